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

namespace mbarrier {
/// The trip count of `loop` when its bounds and step are constants.
std::optional<int64_t> constantTripCount(scf::ForOp loop);
/// The loop around `loop` whose iterations continue its count (a
/// persistent kernel's tile loop around its rounds): iteration k = R q + r
/// of an op in iteration r of `loop` (R constant trips) in iteration q of
/// the outer loop. Null where `loop` is outermost.
scf::ForOp outerLoop(scf::ForOp loop);
} // namespace mbarrier

/// Threads [lo, hi) of a 1-D block; with `onePerWarp`, only the lane
/// elect.sync picks in each of their warps.
struct ThreadRange {
  int64_t lo, hi;
  bool onePerWarp = false;
};

/// The threads of a 1-D block of `threads` that take the `truth` branch of
/// `cond`, when it is a thread guard: conjunctions of `thread_id x`, its
/// warp (`/ 32`) or warpgroup (`/ 128`) compared with constants, and
/// `nvvm.elect.sync` (the else branch: when the rest is one range).
std::optional<ThreadRange> getThreadGuardRange(Value cond, bool truth,
                                               int64_t threads);

/// What the mbarrier check proved, for the race check: the phase each wait
/// waits for and each TMA load completes in, as `base + k` over the
/// iteration k of its scf.for (null: the constant `base`), k counted on
/// across an outer loop's iterations (mbarrier::outerLoop). Only ops of
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

  using ThreadRange = amk::ThreadRange;
  /// An arrive, wait or TMA load of a proved barrier that its threads run
  /// in every iteration of its loop (only thread guards between): phase
  /// base + k in iteration k.
  struct Node {
    enum Kind { Arrive, Wait, Load };
    Barrier barrier;
    scf::ForOp loop;
    int64_t base;
    ThreadRange threads;
    Kind kind;
  };
  llvm::DenseMap<Operation *, Node> nodes;

  /// The least d such that instance k of `from` happens before instance
  /// k + d of `to` (their own loops' iterations) for every k, through
  /// program order within one loop (a thread that runs an op runs the later
  /// one), an arrive before every wait that returns for its phase or a later
  /// one (mbarrier.arrive releases, try_wait acquires), and a TMA load's
  /// bytes before such waits; nullopt: no such chain was found. Loops that
  /// run the same iterations only (mbarrier::sameIterations).
  std::optional<int64_t> minOffset(Operation *from, Operation *to) const;

private:
  /// sameIterations of two nodes' loops, asked again and again by the
  /// searches.
  bool sameIterations(scf::ForOp a, scf::ForOp b) const;
  mutable llvm::DenseMap<std::pair<Operation *, Operation *>, bool>
      sameIterationsCache;
};

/// AMK-RES-REGS for setmaxnreg: the counts the warpgroups end with fit the
/// registers the block was launched with (RegisterSplit.cpp).
void checkRegisterSplit(
    Operation *kernel,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report);

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
