//===- IntegerUB.h - Integer arithmetic without UB ---------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_INTEGERUB_H
#define AMK_LIB_HARNESS_INTEGERUB_H

#include "mlir/IR/Operation.h"

namespace mlir {
class DataFlowSolver;
} // namespace mlir

namespace mlir::amk {

/// Reports (AMK-INT-UB) every integer division or remainder whose divisor
/// can be zero and every shift whose amount can be negative or at least the
/// bit width, where `solver`'s integer ranges bound the divisor or amount
/// (IntegerUB.cpp says which ranges count as bounded).
/// A shift whose amount the ranges do not keep inside the width is asked of
/// `proveWithin(op, amount, 0, width - 1)` (relations between loop
/// variables and their bounds) before it is reported.
void checkIntegerArithmetic(
    Operation *kernel, const DataFlowSolver &solver,
    llvm::function_ref<bool(Operation *, Value, int64_t, int64_t)> proveWithin,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report);

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_INTEGERUB_H
