//===- IntegerSystem.h - Presburger systems of the race check ---*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The integer side of the shared-memory checks (SharedMemory.cpp): affine
// expressions over the variables of one system, and a conjunction of
// constraints on them whose integer points an exact search finds, after an
// integer-exact reducer refuted most systems cheaply.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_INTEGERSYSTEM_H
#define AMK_LIB_HARNESS_INTEGERSYSTEM_H

#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace mlir::amk::smem {

/// sum(coeff * var) + constant; `valid` is false after an overflow.
struct Lin {
  llvm::SmallVector<std::pair<unsigned, int64_t>, 4> terms;
  int64_t constant = 0;
  bool valid = true;

  static Lin of(int64_t c) {
    Lin l;
    l.constant = c;
    return l;
  }
  static Lin var(unsigned v) {
    Lin l;
    l.terms.push_back({v, 1});
    return l;
  }
  Lin operator+(const Lin &o) const {
    Lin r = *this;
    r.valid &= o.valid;
    r.terms.append(o.terms.begin(), o.terms.end());
    r.valid &= !llvm::AddOverflow(constant, o.constant, r.constant);
    return r;
  }
  Lin operator*(int64_t f) const {
    Lin r = *this;
    for (auto &[v, c] : r.terms)
      r.valid &= !llvm::MulOverflow(c, f, c);
    r.valid &= !llvm::MulOverflow(constant, f, r.constant);
    return r;
  }
  Lin operator-(const Lin &o) const { return *this + o * -1; }
  Lin operator+(int64_t c) const { return *this + of(c); }
  Lin operator-(int64_t c) const { return *this + of(-c); }
  /// The constant, when no variable has a non-zero coefficient.
  std::optional<int64_t> asConstant() const {
    llvm::SmallDenseMap<unsigned, int64_t> sum;
    for (auto [v, c] : terms)
      sum[v] += c;
    for (auto [v, c] : sum)
      if (c != 0)
        return std::nullopt;
    return constant;
  }
  /// The variable, when this is exactly one variable.
  std::optional<unsigned> asVar() const {
    if (terms.size() == 1 && terms[0].second == 1 && constant == 0)
      return terms[0].first;
    return std::nullopt;
  }
};

/// The largest variable bound a system keeps (larger ones are dropped).
constexpr int64_t kMaxVarBound = int64_t(1) << 40;

/// One conjunction of constraints; empty means the question's answer is no.
/// The rows are kept sparse and in int64 (a system is built and copied far
/// more often than it is solved); upstream's exact search sees them only in
/// `sample`.
class System {
public:
  /// A new variable within [lo, hi] (each side optional).
  unsigned var(std::optional<int64_t> lo, std::optional<int64_t> hi);
  unsigned getNumVars() const { return bounds.size(); }
  /// e >= 0.
  void ge0(const Lin &e);
  /// e == 0.
  void eq0(const Lin &e);
  /// The interval of `e` by the variables' own bounds (nullopt: unbounded).
  std::optional<std::pair<int64_t, int64_t>> interval(const Lin &e) const;
  /// An integer point satisfying the constraints, if any: upstream's exact
  /// search (generalized basis reduction).
  std::optional<llvm::SmallVector<int64_t>> sample() const;
  bool isEmpty() const { return !sample(); }
  static int64_t eval(const Lin &e, llvm::ArrayRef<int64_t> values);
  /// A sound, incomplete emptiness test; every step keeps the integer
  /// points exactly (`Reducer`), then upstream's Fourier-Motzkin with GCD
  /// tests (`isEmpty`) on what is left.
  bool provablyEmpty() const;

private:
  /// Cases on a variable of few values before the exact search: the
  /// systems a block's lanes and cluster ranks make are refuted value by
  /// value by the reducer, where generalized basis reduction takes
  /// milliseconds. Sound: every value is refuted, or it gives up (false).
  bool emptyByCases(unsigned depth, unsigned &budget) const;
  static constexpr int64_t kMaxCaseValues = 8;
  static constexpr unsigned kCaseDepth = 2;
  static constexpr unsigned kMaxCaseSystems = 40;

  /// `e` with its terms merged and zero terms dropped; nullopt when it is
  /// not valid or a sum overflows (dropping a row only adds points: sound).
  static std::optional<Lin> canonical(const Lin &e);
  /// The rows as dense vectors of `getNumVars()` coefficients, then the
  /// constant.
  std::vector<std::vector<int64_t>> dense(llvm::ArrayRef<Lin> rows) const;

  llvm::SmallVector<Lin, 0> equalities, inequalities;
  llvm::SmallVector<std::pair<std::optional<int64_t>, std::optional<int64_t>>>
      bounds;
};

} // namespace mlir::amk::smem

#endif // AMK_LIB_HARNESS_INTEGERSYSTEM_H
