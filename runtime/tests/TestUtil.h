//===- TestUtil.h - Helpers of the runtime tests ----------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_TESTS_TESTUTIL_H
#define AMK_RUNTIME_TESTS_TESTUTIL_H

#include "AMK/Runtime/Bundle.h"
#include "AMK/Runtime/Json.h"

#ifdef AMK_USE_GTEST
#include <gtest/gtest.h>
#else
#include "MiniTest.h"
#endif

#include <algorithm>
#include <cstdio>
#include <string>

namespace amk::runtime::test {

inline std::string inputPath(const std::string &name) {
  return std::string(AMK_RUNTIME_TEST_INPUTS) + "/" + name;
}

/// The text of Inputs/<name>.
inline std::string inputText(const std::string &name) {
  std::string text;
  Status status = readFile(inputPath(name), text);
  EXPECT_TRUE(status.ok());
  return text;
}

/// `text` with the first `from` replaced by `to` (which must be there).
inline std::string replaced(std::string text, const std::string &from,
                            const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

inline bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

/// Parses manifest `text` as if read from Inputs/test.json (so the cubins of
/// schema-2 test bundles are found).
inline Status parseInInputs(const std::string &text, Bundle &bundle) {
  return Bundle::parse(text, AMK_RUNTIME_TEST_INPUTS, "test.json", bundle);
}

/// The error of parsing `text` in Inputs, which must fail.
inline std::string manifestError(const std::string &text) {
  Bundle bundle;
  Status status = parseInInputs(text, bundle);
  EXPECT_FALSE(status.ok());
  return status.message();
}

/// Inputs/gemm-v2.json: the schema-2 bundle most tests start from.
inline std::string gemmText() { return inputText("gemm-v2.json"); }

inline Bundle loadGemm() {
  Bundle bundle;
  Status s = Bundle::loadManifest(inputPath("gemm-v2.json"), bundle);
  EXPECT_TRUE(s.ok());
  if (!s.ok())
    std::printf("%s\n", s.message().c_str());
  return bundle;
}

/// "test.json:<line>:<col>: " of byte `at` of `text`.
inline std::string positionAt(const std::string &text, size_t at) {
  int line =
      1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
  size_t lineStart = text.rfind('\n', at);
  size_t column = at - (lineStart == std::string::npos ? 0 : lineStart + 1);
  return "test.json:" + std::to_string(line) + ":" +
         std::to_string(column + 1) + ": ";
}

/// The same where `needle` starts in `text`.
inline std::string positionOf(const std::string &text,
                              const std::string &needle) {
  size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos);
  return positionAt(text, at == std::string::npos ? 0 : at);
}

} // namespace amk::runtime::test

#endif // AMK_RUNTIME_TESTS_TESTUTIL_H
