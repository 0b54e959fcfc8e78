//===- BoundsProver.h - Index bounds proofs of the bounds check -*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// What the bounds check (Bounds.cpp) proves an index with: its integer range,
// the guards known true at the access (compared symbolically with the size
// they bound), and divisibility for vector widths.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_BOUNDSPROVER_H
#define AMK_LIB_HARNESS_BOUNDSPROVER_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"

#include <optional>
#include <string>

namespace mlir {
class DataFlowSolver;
namespace arith {
class CmpIOp;
} // namespace arith
} // namespace mlir

namespace mlir::amk::bounds {

/// The conjuncts of a condition (`andi` trees).
void conjuncts(Value cond, SmallVectorImpl<Value> &out);

/// What a size stands for: a constant, an SSA value (a dynamic size given
/// to a view), or a dynamic dimension of a kernel argument.
struct SymbolicSize {
  std::optional<int64_t> constant;
  Value value;
  Value memref;
  unsigned dim = 0;

  static SymbolicSize of(int64_t c) { return {c, {}, {}, 0}; }
  static SymbolicSize of(Value v) { return {std::nullopt, v, {}, 0}; }
  static SymbolicSize dimOf(Value memref, unsigned dim) {
    return {std::nullopt, {}, memref, dim};
  }
  static SymbolicSize unknown() { return {std::nullopt, {}, {}, 0}; }

  bool isKnown() const { return constant || value || memref; }
  bool operator==(const SymbolicSize &o) const {
    if (constant || o.constant)
      return constant == o.constant;
    if (value || o.value)
      return value == o.value;
    return memref && memref == o.memref && dim == o.dim;
  }
};

/// Proves indices inside the sizes they index, for all sizes.
class BoundsProver {
public:
  BoundsProver(const DataFlowSolver &solver, ArrayRef<int64_t> launchGrid)
      : solver(solver), launchGrid(launchGrid) {}

  /// Signed range of an index, or nullopt when unknown. A block id is also
  /// below the grid every launch of the kernel in its module uses.
  std::optional<ConstantIntRanges> range(Value v) const;

  /// The size dimension `dim` of `memref` stands for.
  SymbolicSize sizeOf(Value memref, unsigned dim) const;

  /// What an index-typed bound value stands for.
  SymbolicSize valueSize(OpFoldResult size) const;

  /// Proves `lo >= 0` and `v + width <= size` under `guards` (conditions
  /// known true at the access).
  bool proveInBounds(Value v, int64_t width, SymbolicSize size,
                     ArrayRef<Value> guards, std::string &why) const;

  /// Proves `v >= 0` under `guards` (a masked access's last index: what
  /// lies past the size is not accessed).
  bool proveNonNegative(Value v, ArrayRef<Value> guards,
                        std::string &why) const;

  /// Proves `size >= c` under `guards`: a constant, every size's minimum 1,
  /// or a guard comparing the size with a constant.
  bool proveAtLeast(SymbolicSize size, int64_t c, ArrayRef<Value> guards) const;

private:
  /// The largest power-of-two divisor known for `v` (1 when unknown).
  int64_t divisor(Value v, int depth = 0) const;
  /// Whether `v`'s signed range is known and at most `max` (at least
  /// `min`).
  bool rangeAtMost(Value v, int64_t max) const;
  bool rangeAtLeast(Value v, int64_t min) const;
  /// Whether a guard's side x + c is the integer it stands for under
  /// `guards` (no 64-bit wrap).
  bool sideCannotWrap(Value x, int64_t c, bool isUnsigned,
                      ArrayRef<Value> guards) const;

  /// Proves v >= 0: by its range, or by an unsigned guard `v < size`, or
  /// through selects and unsigned minima.
  bool nonNegative(Value v, ArrayRef<Value> guards, int depth) const;

  /// Whether `v` is the size of a buffer: a `memref.dim`, a size from
  /// strided metadata, or a dynamic size a view or reinterpret_cast is made
  /// with.
  static bool isSize(Value v);

  /// `x + c` (or `x - c`) as (x, c).
  static std::pair<Value, int64_t> splitConstant(Value v);

  /// Whether a guard asserts `x >= k` (`x > k - 1`, `x >= k`, either way
  /// round; unsigned only for an x proved non-negative).
  bool guardedAtLeast(Value x, int64_t k, ArrayRef<Value> guards,
                      int depth) const;

  /// The largest k such that a guard asserts `x >= k` (as guardedAtLeast
  /// reads guards), if any.
  std::optional<int64_t> guardedLowerBound(Value x, ArrayRef<Value> guards,
                                           int depth) const;

  /// The smallest k such that a guard asserts `x <= k`, if any.
  std::optional<int64_t> guardedUpperBound(Value x,
                                           ArrayRef<Value> guards) const;

  /// Bounds [lo, hi] of `v` read as a sum of constant multiples of values
  /// (through addi, subi and muli by constants), each bounded by its range
  /// narrowed by the guards. None when a value has no range, or some sum or
  /// product of the ranges passes int64 (the 64-bit arithmetic could wrap,
  /// and the sum would not be the integer the index stands for).
  std::optional<std::pair<int64_t, int64_t>>
  linearBounds(Value v, ArrayRef<Value> guards, int depth) const;

  /// [lo, hi] of `v` when it is `a*x - a*d*(x floordiv d)` = `a*(x mod d)`.
  std::optional<std::pair<int64_t, int64_t>> modIdentityRange(Value v) const;

  /// Whether a guard asserts `x % c == 0` for an `x` standing for `size`
  /// and a multiple c of `width`.
  bool guardedMultiple(const SymbolicSize &size, int64_t width,
                       ArrayRef<Value> guards) const;

  /// Whether some conjunct of `guards` is `lhs < rhs` (strict, either
  /// operand order, any signedness) that `accept` takes.
  static bool
  anyGuardLess(ArrayRef<Value> guards,
               llvm::function_ref<bool(arith::CmpIOp, Value, Value)> accept);

  bool proveBelow(Value v, int64_t width, SymbolicSize size,
                  ArrayRef<Value> guards, int depth) const;

  static std::optional<int> blockIdDim(Value v);

  const DataFlowSolver &solver;
  ArrayRef<int64_t> launchGrid;
};

} // namespace mlir::amk::bounds

#endif // AMK_LIB_HARNESS_BOUNDSPROVER_H
