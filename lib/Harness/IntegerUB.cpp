//===- IntegerUB.cpp - Integer arithmetic without undefined behaviour -----===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// AMK-INT-UB: integer arithmetic whose result LLVM leaves undefined. A
// division or remainder by zero is immediate undefined behaviour; a shift by
// the bit width or more (or by a negative amount, a huge unsigned one) is
// poison. Either, in an index, is an address no bounds proof can vouch for:
// the bounds check reasons about the ranges the integer range analysis
// gives, and the analysis gives an arbitrary range to an undefined result.
//
// The divisor's (or shift amount's) range comes from the same analysis.
// A range bounded by constants, thread and block ids (its magnitude below
// 2^32) that holds the undefined values is reported: some thread of some
// launch computes them. A range that is unbounded because it comes from a
// size or a scalar argument is not: divisions by a dynamic tile count
// (pid / ceildiv(n, 16)) are the norm, and the harness takes the sizes of a
// launch to make such divisors at least 1 (docs/ARCHITECTURE.md).
//
//===----------------------------------------------------------------------===//

#include "IntegerUB.h"

#include "AMK/Harness/Harness.h"
#include "AMK/Harness/KernelSafety.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;

/// The signed range of `v`, when the analysis bounds it below 2^32 in
/// magnitude (a range from constants, thread and block ids).
static std::optional<ConstantIntRanges>
getBoundedRanges(const DataFlowSolver &solver, Value v) {
  std::optional<ConstantIntRanges> r = getIntegerRanges(solver, v);
  if (!r || r->smin().getSignificantBits() > 33 ||
      r->smax().getSignificantBits() > 33)
    return std::nullopt;
  return r;
}

static std::pair<int64_t, int64_t> getSignedRange(const ConstantIntRanges &r) {
  return {r.smin().getSExtValue(), r.smax().getSExtValue()};
}

static std::string formatRange(std::pair<int64_t, int64_t> range) {
  if (range.first == range.second)
    return std::to_string(range.first);
  return llvm::formatv("[{0}, {1}]", range.first, range.second).str();
}

void mlir::amk::checkIntegerArithmetic(
    Operation *kernel, const DataFlowSolver &solver,
    llvm::function_ref<bool(Operation *, Value, int64_t, int64_t)> proveWithin,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report) {
  kernel->walk([&](Operation *op) {
    if (isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp,
            arith::CeilDivUIOp, arith::CeilDivSIOp, arith::FloorDivSIOp>(op)) {
      std::optional<ConstantIntRanges> ranges =
          getBoundedRanges(solver, op->getOperand(1));
      // Both ranges over-approximate the divisor's values: 0 is possible only
      // where both hold it (select(c, -1, 1) has signed range [-1, 1] but
      // unsigned range [1, 2^64 - 1]).
      if (!ranges || !ranges->umin().isZero())
        return;
      std::pair<int64_t, int64_t> divisor = getSignedRange(*ranges);
      if (divisor.first <= 0 && divisor.second >= 0)
        report(check::kIntegerUB, op,
               llvm::formatv("{0} divides by zero: its divisor is {1}{2}, and "
                             "a division by zero is undefined (guard the "
                             "divisor, or divide by a value that is never 0)",
                             describeOp(op), formatRange(divisor),
                             divisor.first == divisor.second
                                 ? ""
                                 : " for some thread or block")
                   .str());
      return;
    }
    if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op)) {
      Type type = getElementTypeOrSelf(op->getResult(0).getType());
      unsigned width = isa<IndexType>(type) ? 64 : type.getIntOrFloatBitWidth();
      std::optional<ConstantIntRanges> ranges =
          getBoundedRanges(solver, op->getOperand(1));
      if (!ranges)
        return;
      std::pair<int64_t, int64_t> amount = getSignedRange(*ranges);
      if ((amount.first < 0 || amount.second >= int64_t(width)) &&
          !proveWithin(op, op->getOperand(1), 0, width - 1))
        report(check::kIntegerUB, op,
               llvm::formatv("{0} shifts a {1}-bit value by {2}: a shift by "
                             "a negative amount or by {1} or more is poison "
                             "(its result, and any address made from it, is "
                             "undefined)",
                             describeOp(op), width, formatRange(amount))
                   .str());
    }
  });
}
