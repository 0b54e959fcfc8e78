//===- GlobalMemory.h - Races between blocks on global memory ---*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_GLOBALMEMORY_H
#define AMK_LIB_HARNESS_GLOBALMEMORY_H

#include "mlir/IR/Operation.h"

namespace mlir {
class DataFlowSolver;
} // namespace mlir

namespace mlir::amk {
class NamedBarriers;

class UniformityInfo;
struct MBarrierPhases;

/// Proves that no two blocks of a launch touch one element of a global
/// buffer where one of them writes it plainly (AMK-GLOBAL-RACE); two atomic
/// updates never race. `grid` (empty or 0 per dimension: unknown) bounds the
/// block ids. Calls `report` (check id, op, message) for each pair it cannot
/// prove disjoint; what it cannot model is AMK-UNPROVABLE. Expects a
/// structured kernel and `solver` with IntegerRangeAnalysis run on it.
void checkGlobalMemory(
    Operation *kernel, const UniformityInfo &uniformity,
    const DataFlowSolver &solver, const MBarrierPhases &phases,
    const NamedBarriers &named, llvm::ArrayRef<int64_t> grid,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report);

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_GLOBALMEMORY_H
