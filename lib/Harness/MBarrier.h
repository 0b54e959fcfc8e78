//===- MBarrier.h - mbarrier arrive/wait phases match -----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_MBARRIER_H
#define AMK_LIB_HARNESS_MBARRIER_H

#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::amk {

class UniformityInfo;

/// What the mbarrier check proved, for the race check: the phase each wait
/// waits for and each TMA load completes in, as `base + k` over the
/// iteration k of one scf.for (null: the constant `base`). Only ops of
/// barriers with no finding are here.
struct MBarrierPhases {
  /// An mbarrier: its nvgpu.mbarrier.create and index.
  using Barrier = std::pair<Operation *, int64_t>;
  struct Phase {
    Barrier barrier;
    scf::ForOp loop;
    int64_t base;
  };
  llvm::DenseMap<Operation *, Phase> of;
  /// TMA loads whose barrier the check reported (the kernel is rejected;
  /// the race check need not say again that their phase is unknown).
  llvm::DenseSet<Operation *> reported;
};

/// AMK-MBARRIER-PHASE: every nvgpu mbarrier is initialized once and made
/// visible by a block barrier before use, arrived on by exactly its count
/// of threads per phase, and waited on with the parity of the phase its
/// round completes; every arrive.expect_tx expects the bytes the TMA loads
/// of its round deliver. Uses outside that model are AMK-UNPROVABLE.
MBarrierPhases checkMBarriers(
    Operation *kernel, const UniformityInfo &uniformity,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report);

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_MBARRIER_H
