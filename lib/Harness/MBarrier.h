//===- MBarrier.h - mbarrier arrive/wait phases match -----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_MBARRIER_H
#define AMK_LIB_HARNESS_MBARRIER_H

#include "AMK/Harness/KernelSafety.h"

namespace mlir::amk {

class UniformityInfo;

/// AMK-MBARRIER-PHASE: every nvgpu mbarrier is initialized once and made
/// visible by a block barrier before use, arrived on by exactly its count
/// of threads per phase, and waited on with the parity of the phase its
/// round completes; uses outside that model are AMK-UNPROVABLE.
void checkMBarriers(
    Operation *kernel, const UniformityInfo &uniformity,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report);

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_MBARRIER_H
