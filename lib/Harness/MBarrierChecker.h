//===- MBarrierChecker.h - The mbarrier check's parts -----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The checker behind checkMBarriers, in three parts: the uses of each
// mbarrier collected and its init and arrives checked (MBarrier.cpp, which
// states the model), the waits against the rounds of arrives
// (MBarrierWaits.cpp), and what the checks evaluate, the threads that run an
// op and the parity a value has per iteration (MBarrierEvaluate.cpp).
// Internal to the harness.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_MBARRIERCHECKER_H
#define AMK_LIB_HARNESS_MBARRIERCHECKER_H

#include "MBarrier.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir::amk::mbarrier {

/// How many times an op in `loop` (null: at the top level) runs: its trip
/// count when a constant (times its outer loop's), 1 at the top level.
std::optional<int64_t> runsIn(scf::ForOp loop);
/// Whether ops in `a` and in `b` run the same iterations k: equal constant
/// trip counts or the same bounds, inside outer loops of the same bounds
/// (or none).
bool sameIterations(scf::ForOp a, scf::ForOp b);

/// "1 thread arrives", "128 threads arrive".
std::string threadsArrive(int64_t n);

using amk::isBlockBarrier;

using ThreadRange = MBarrierPhases::ThreadRange;
using Node = MBarrierPhases::Node;

/// (a k + b) mod 2 over the iteration k of one loop.
struct Parity {
  int64_t a = 0, b = 0;
  Parity operator+(const Parity &o) const {
    return {(a + o.a) & 1, (b + o.b) & 1};
  }
};

/// AMK-MBARRIER-PHASE on one kernel (the model is stated in MBarrier.cpp).
class MBarrierChecker {
public:
  MBarrierChecker(
      Operation *kernel, const UniformityInfo &uniformity,
      llvm::function_ref<void(StringRef, Operation *, const Twine &)> report,
      MBarrierPhases &phases)
      : kernel(kernel), uniformity(uniformity), report(report), phases(phases) {
    if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
      if (DenseI32ArrayAttr size = func.getKnownBlockSizeAttr())
        for (auto [i, d] : llvm::enumerate(size.asArrayRef()))
          if (i < 3)
            block[i] = d;
  }

  void run();

private:
  struct Uses {
    MBarrierPhases::Barrier key;
    std::string name;
    /// Arrives are plain or expect_tx; loads are TMA loads completing on it.
    SmallVector<Operation *> inits, arrives, waits, loads;
  };

  /// The op's ancestor in the kernel's body block.
  Operation *topLevel(Operation *op) const {
    while (op->getParentOp() != kernel)
      op = op->getParentOp();
    return op;
  }
  /// The threads that take the `truth` branch of `cond`, when it is a
  /// thread guard (the else branch: when the rest is one range).
  std::optional<ThreadRange> guardRange(Value cond, bool truth) const;
  /// How many threads a range holds (nullopt: elect.sync in partial warps).
  std::optional<int64_t> countOf(ThreadRange r) const;
  /// Threads that pass `cond` (`truth` branch), when it is a thread guard.
  std::optional<int64_t> guardThreads(Value cond, bool truth) const;
  /// Threads that run `op` each time its loops run, with its one loop (or
  /// null); reports and returns nullopt outside the model.
  std::optional<std::pair<int64_t, scf::ForOp>>
  executors(Operation *op, StringRef what, bool counts = true,
            ThreadRange *range = nullptr, bool *everyIteration = nullptr);
  std::optional<Parity> parity(Value v, scf::ForOp loop, int depth = 0) const;

  /// An arrive statement: each completes one phase.
  struct Round {
    Operation *op;
    scf::ForOp loop;
    int64_t threads;
    /// Which threads those are (guards intersected).
    ThreadRange range;
    /// The phase it completes is phaseBase (+ k in its loop); -1: unknown
    /// (after another loop of rounds).
    int64_t phaseBase;
    /// The arrive in the other branch of `op`'s scf.if, when both branches
    /// arrive (`if (tid == 0) expect_tx(n) else expect_tx(0)`): together
    /// every thread that runs the scf.if arrives once.
    Operation *complement = nullptr;
  };
  /// Checks one barrier; records its phases once all of it holds.
  void check(Uses &uses);
  /// The checks of one barrier: false after a report.
  bool prove(Uses &uses);
  /// The init of `uses` and its count C: one init, a positive constant
  /// count, by one thread or all, outside loops.
  std::optional<std::pair<nvgpu::MBarrierInitOp, int64_t>>
  checkInit(Uses &uses);
  /// Whether a block barrier after the init precedes every other use.
  bool checkVisible(Uses &uses, nvgpu::MBarrierInitOp init);
  /// The arrive directly in the other branch of the scf.if that holds
  /// `arrive` directly, when each branch has exactly one; else null.
  Operation *complementOf(Operation *arrive, ArrayRef<Operation *> arrives);
  /// The arrives: each by C threads, at most one per loop.
  std::optional<SmallVector<Round>>
  getRounds(Uses &uses, nvgpu::MBarrierInitOp init, int64_t count);
  /// The round a TMA load is in: that of the one arrive.expect_tx on its
  /// barrier in its block (null: none, or several).
  const Round *roundOf(const Uses &uses, ArrayRef<Round> rounds,
                       Operation *load);
  /// Every TMA load's phase is waited for before the block exits.
  bool checkLoadsWaited(const Uses &uses, ArrayRef<Round> rounds);
  /// Every TMA load is in a round of the same threads, and each
  /// arrive.expect_tx expects exactly the bytes its round's loads deliver.
  bool checkTransactions(Uses &uses, ArrayRef<Round> rounds);
  /// Whether `wait` waits for the parity of the phase its round completes;
  /// records the phase.
  bool checkWait(nvgpu::MBarrierTryWaitParityOp wait, const Uses &uses,
                 ArrayRef<Round> rounds);
  /// In `loop`, with `before` phases completed by top-level rounds before
  /// it: the loop has the round's arrive (`own`); the wait, before or after
  /// it in the iteration, sees iteration k's phase or the one before; when
  /// fewer threads than the block's arrive, a block barrier keeps the next
  /// arrive behind every thread's wait. The phase in iteration 0, or nullopt
  /// (reported).
  std::optional<int64_t> checkLoopRound(nvgpu::MBarrierTryWaitParityOp wait,
                                        scf::ForOp loop, const Round &own,
                                        const std::string &name, int64_t before,
                                        ArrayRef<Round> rounds);
  /// At the top level: after `before` arrives, at least one.
  bool checkTopLevelRounds(nvgpu::MBarrierTryWaitParityOp wait,
                           const std::string &name, int64_t before,
                           ArrayRef<Round> rounds);
  /// The wait's parity is that of `phase` (+ k in iteration k of `loop`).
  bool checkParity(nvgpu::MBarrierTryWaitParityOp wait, scf::ForOp loop,
                   const std::string &name, int64_t phase);

  // Pipelines: arrives and waits of one barrier in loops of different
  // threads (MBarrierPipeline.cpp).
  /// A wait in a loop where its threads do not arrive on the barrier (a
  /// consumer waiting for a producer): its threads wait every iteration,
  /// phase k + P0 in iteration k with P0 in {-1, 0} read off the parity
  /// (-1: a fresh barrier's preceding phase counts as complete). The claim
  /// is proved once every barrier's phases are known (checkPipelines).
  std::optional<int64_t>
  checkCrossThreadWait(nvgpu::MBarrierTryWaitParityOp wait, scf::ForOp loop,
                       const Uses &uses, ArrayRef<Round> rounds,
                       bool everyIteration);
  /// Whether the arrives of a round in a loop where its threads do not wait
  /// on the barrier need the pipeline proof of their separation.
  bool needsSeparation(const Uses &uses, const Round &round) const;
  /// Records the pipeline nodes of a proved barrier.
  void addNodes(const Uses &uses, ArrayRef<Round> rounds);
  /// The deferred proofs: cross-thread waits neither pass early nor block
  /// for good, arrives of one thread land in successive phases.
  void checkPipelines();
  /// A deferred proof: a cross-thread wait, or the separation of a round's
  /// arrives; `target` the barrier's arrive.
  struct Obligation {
    Operation *op;
    Operation *arrive;
    std::string name;
    bool isWait;
  };

  Operation *kernel;
  const UniformityInfo &uniformity;
  llvm::function_ref<void(StringRef, Operation *, const Twine &)> report;
  MBarrierPhases &phases;
  /// The phases of the barrier being checked, kept once all of it holds.
  llvm::DenseMap<Operation *, MBarrierPhases::Phase> pending;
  /// Pipeline nodes of the barrier being checked (phases.nodes: of proved
  /// ones).
  llvm::DenseMap<Operation *, Node> pendingNodes;
  SmallVector<Obligation> pendingObligations, obligations;
  int64_t block[3] = {0, 0, 0};
};

} // namespace mlir::amk::mbarrier

#endif // AMK_LIB_HARNESS_MBARRIERCHECKER_H
