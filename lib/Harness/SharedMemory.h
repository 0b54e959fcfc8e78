//===- SharedMemory.h - Races and async-copy ordering -----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_SHAREDMEMORY_H
#define AMK_LIB_HARNESS_SHAREDMEMORY_H

#include "AMK/Harness/KernelSafety.h"

namespace mlir {
class DataFlowSolver;
} // namespace mlir

namespace mlir::amk {
class NamedBarriers;

class UniformityInfo;
struct MBarrierPhases;

/// Proves that no two threads of a block race on shared memory between
/// barriers (AMK-SMEM-RACE) and that no shared memory an async copy writes is
/// read or written before a wait retires the copy and, for other threads, a
/// barrier follows (AMK-ASYNC-UNWAITED), nor a TMA load's box before a wait
/// for the mbarrier phase it completes in (`phases`, from checkMBarriers).
/// Calls `report` (check id, op, message) for each access it cannot prove;
/// what it cannot model is AMK-UNPROVABLE. Expects a structured kernel
/// without divergent barriers, and `solver` with IntegerRangeAnalysis run
/// on it.
void checkSharedMemory(
    Operation *kernel, const UniformityInfo &uniformity,
    const DataFlowSolver &solver, const MBarrierPhases &phases,
    const NamedBarriers &named,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report);

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_SHAREDMEMORY_H
