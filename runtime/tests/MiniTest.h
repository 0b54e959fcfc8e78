//===- MiniTest.h - A GoogleTest subset for machines without it -*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The runtime tests use GoogleTest where CMake finds it. The GPU machine may
// not have it, so this header provides the few macros the tests use (TEST,
// EXPECT_/ASSERT_ TRUE, FALSE, EQ, NE) with the same spelling, and a main()
// that prints GoogleTest's summary line.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_TESTS_MINITEST_H
#define AMK_RUNTIME_TESTS_MINITEST_H

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace minitest {

struct TestCase {
  const char *name;
  void (*body)();
};

inline std::vector<TestCase> &registry() {
  static std::vector<TestCase> tests;
  return tests;
}

inline int &currentFailures() {
  static int failures = 0;
  return failures;
}

struct Registrar {
  Registrar(const char *name, void (*body)()) {
    registry().push_back({name, body});
  }
};

inline bool check(bool ok, const char *expr, const char *file, int line) {
  if (!ok) {
    std::printf("%s:%d: failure: %s\n", file, line, expr);
    ++currentFailures();
  }
  return ok;
}

/// Writes `value` to `os`, element by element for containers.
template <class T>
auto print(std::ostream &os, const T &value, int) -> decltype(os << value) {
  return os << value;
}
template <class T>
auto print(std::ostream &os, const T &value, long)
    -> decltype(value.begin(), value.end(), os) {
  os << "{";
  const char *separator = "";
  for (const auto &element : value) {
    os << separator;
    print(os, element, 0);
    separator = ", ";
  }
  return os << "}";
}

template <class A, class B>
bool checkEq(const A &a, const B &b, bool wantEqual, const char *exprA,
             const char *exprB, const char *file, int line) {
  if ((a == b) == wantEqual)
    return true;
  std::ostringstream os;
  os << file << ":" << line << ": failure: " << exprA
     << (wantEqual ? " == " : " != ") << exprB << "\n  left:  ";
  print(os, a, 0) << "\n  right: ";
  print(os, b, 0) << "\n";
  std::printf("%s", os.str().c_str());
  ++currentFailures();
  return false;
}

inline int runAll() {
  int failed = 0;
  for (const TestCase &test : registry()) {
    currentFailures() = 0;
    test.body();
    std::printf("[ %s ] %s\n", currentFailures() ? "FAILED" : "    OK",
                test.name);
    failed += currentFailures() != 0;
  }
  if (failed) {
    std::printf("[  FAILED  ] %d of %zu tests.\n", failed, registry().size());
    return 1;
  }
  std::printf("[  PASSED  ] %zu tests.\n", registry().size());
  return 0;
}

} // namespace minitest

#define TEST(suite, name)                                                      \
  static void suite##_##name();                                                \
  static minitest::Registrar suite##_##name##_registrar(#suite "." #name,      \
                                                        suite##_##name);       \
  static void suite##_##name()

#define EXPECT_TRUE(c) minitest::check(bool(c), #c, __FILE__, __LINE__)
#define EXPECT_FALSE(c)                                                        \
  minitest::check(!bool(c), "!(" #c ")", __FILE__, __LINE__)
#define EXPECT_EQ(a, b)                                                        \
  minitest::checkEq((a), (b), true, #a, #b, __FILE__, __LINE__)
#define EXPECT_NE(a, b)                                                        \
  minitest::checkEq((a), (b), false, #a, #b, __FILE__, __LINE__)
#define ASSERT_TRUE(c)                                                         \
  do {                                                                         \
    if (!EXPECT_TRUE(c))                                                       \
      return;                                                                  \
  } while (false)
#define ASSERT_EQ(a, b)                                                        \
  do {                                                                         \
    if (!EXPECT_EQ(a, b))                                                      \
      return;                                                                  \
  } while (false)

#endif // AMK_RUNTIME_TESTS_MINITEST_H
