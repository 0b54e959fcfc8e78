//===- MBarrier.h - mbarrier phase check ------------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_ANALYSIS_MBARRIER_H
#define AMK_LIB_ANALYSIS_MBARRIER_H

#include "AMK/Analysis/KernelSafety.h"

namespace mlir::amk {

class UniformityInfo;

/// Whether the mbarrier check models `op` (the harness refuses the other
/// mbarrier, TMA and wgmma ops as AMK-UNPROVABLE).
bool isModelledMBarrierOp(Operation *op);

/// AMK-MBARRIER: every nvgpu mbarrier is initialized once, by one thread,
/// and made visible by a barrier before use; each phase gets exactly the
/// arrivals its count expects; every wait names the parity of the phase that
/// completes there and follows its arrive. Forms outside the model are
/// AMK-UNPROVABLE.
void checkKernelMBarriers(
    Operation *kernel, const UniformityInfo &uniformity,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report);

} // namespace mlir::amk

#endif // AMK_LIB_ANALYSIS_MBARRIER_H
