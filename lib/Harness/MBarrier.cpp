//===- MBarrier.cpp - mbarrier arrive/wait phases match -------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// AMK-MBARRIER-PHASE. The model (anything else is AMK-UNPROVABLE):
//
//  - an mbarrier is `nvgpu.mbarrier.create` (workgroup memory) at a constant
//    index, initialized once with a constant count C, by one thread (an
//    `scf.if` or predicate `thread_id x == c` in a 1-D block) or by all,
//    outside loops; a block barrier at the top level follows the init and
//    precedes every other use (the init is visible to every thread);
//  - arrives (`nvgpu.mbarrier.arrive`) run at the top level or in one
//    uniform scf.for, by all threads or under one thread guard (`thread_id
//    x == c`, `< c`): that many threads arrive each time, which must be C,
//    so every arrive statement completes exactly one phase; one arrive
//    statement per loop;
//  - waits (`nvgpu.mbarrier.try_wait.parity`, which the NVVM lowering
//    spins until the phase completes) come after the arrive of their round:
//    at the top level after m arrives, parity (m - 1) mod 2; in the arrive's
//    loop, after it in the body, parity (P0 + k) mod 2 in iteration k, P0
//    the arrives before the loop. The parity is evaluated as (a k + b) mod 2
//    through the induction variable, a loop-carried toggle (`xori %p,
//    true`), + - * by constants, `remui`/`andi` by powers of two, casts;
//  - when fewer threads arrive than the block has, a phase could complete
//    again before a slow thread has seen it (its parity flips back): a
//    block barrier must separate one round's wait from the next arrive.
//
//===----------------------------------------------------------------------===//

#include "MBarrierChecker.h"

#include "Bounds.h"

#include "AMK/Analysis/Uniformity.h"
#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::mbarrier;

std::optional<int64_t> mlir::amk::mbarrier::constantTripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                         ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub > *lb ? llvm::divideCeil(*ub - *lb, *step) : 0;
}

std::optional<int64_t> mlir::amk::mbarrier::runsIn(scf::ForOp loop) {
  if (!loop)
    return 1;
  std::optional<int64_t> trips = constantTripCount(loop);
  scf::ForOp outer = outerLoop(loop);
  if (!trips || !outer)
    return trips;
  std::optional<int64_t> outerTrips = constantTripCount(outer);
  int64_t all;
  if (!outerTrips || llvm::MulOverflow(*trips, *outerTrips, all))
    return std::nullopt;
  return all;
}

scf::ForOp mlir::amk::mbarrier::outerLoop(scf::ForOp loop) {
  return loop ? loop->getParentOfType<scf::ForOp>() : scf::ForOp();
}

/// Whether loops `a` and `b` run the same iterations: equal constant trip
/// counts, or the same bounds (the same values, or equal constants).
static bool sameTrips(scf::ForOp a, scf::ForOp b) {
  std::optional<int64_t> trips = mbarrier::constantTripCount(a);
  if (trips && trips == mbarrier::constantTripCount(b))
    return true;
  return isEqualConstantIntOrValue(a.getLowerBound(), b.getLowerBound()) &&
         isEqualConstantIntOrValue(a.getUpperBound(), b.getUpperBound()) &&
         isEqualConstantIntOrValue(a.getStep(), b.getStep());
}

bool mlir::amk::mbarrier::sameIterations(scf::ForOp a, scf::ForOp b) {
  if (!a || !b)
    return !a && !b;
  if (!sameTrips(a, b))
    return false;
  scf::ForOp oa = outerLoop(a), ob = outerLoop(b);
  if (!oa || !ob)
    return !oa && !ob;
  // Counted on across the outer loops: R = a's constant trips.
  return constantTripCount(a) && constantTripCount(b) && sameTrips(oa, ob);
}

std::string mlir::amk::mbarrier::threadsArrive(int64_t n) {
  return llvm::formatv("{0} {1}", n,
                       n == 1 ? "thread arrives" : "threads arrive")
      .str();
}

void MBarrierChecker::run() {
  // Every mbarrier op names a created barrier at a constant index.
  std::map<std::pair<const void *, int64_t>, Uses> all;
  bool modelled = true;
  kernel->walk([&](Operation *op) {
    Value group, id;
    if (auto init = dyn_cast<nvgpu::MBarrierInitOp>(op))
      group = init.getBarriers(), id = init.getMbarId();
    else if (auto arrive = dyn_cast<nvgpu::MBarrierArriveOp>(op))
      group = arrive.getBarriers(), id = arrive.getMbarId();
    else if (auto expect = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(op))
      group = expect.getBarriers(), id = expect.getMbarId();
    else if (auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(op))
      group = load.getBarriers(), id = load.getMbarId();
    else if (auto wait = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(op))
      group = wait.getBarriers(), id = wait.getMbarId();
    else if (auto create = dyn_cast<nvgpu::MBarrierCreateOp>(op)) {
      auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
          create.getBarriers().getType().getMemorySpace());
      if (!space || space.getValue() != gpu::AddressSpace::Workgroup) {
        report(check::kUnprovable, op,
               "an mbarrier outside workgroup memory is not modelled");
        modelled = false;
      }
      return;
    } else
      return;
    auto create = group.getDefiningOp<nvgpu::MBarrierCreateOp>();
    std::optional<int64_t> index = getConstantIntValue(id);
    unsigned count =
        create ? create.getBarriers().getType().getNumBarriers() : 0;
    if (!create || !index || *index < 0 || *index >= int64_t(count)) {
      report(check::kUnprovable, op,
             "an mbarrier that is not one of an nvgpu.mbarrier.create group "
             "at a constant index in range is not modelled");
      modelled = false;
      return;
    }
    Uses &uses = all[{create.getOperation(), *index}];
    uses.name =
        llvm::formatv("mbarrier {0} of {1}", *index, describeOp(create)).str();
    uses.key = {create.getOperation(), *index};
    if (isa<nvgpu::MBarrierInitOp>(op))
      uses.inits.push_back(op);
    else if (isa<nvgpu::MBarrierArriveOp, nvgpu::MBarrierArriveExpectTxOp>(op))
      uses.arrives.push_back(op);
    else if (isa<nvgpu::TmaAsyncLoadOp>(op))
      uses.loads.push_back(op);
    else
      uses.waits.push_back(op);
  });
  if (!modelled || all.empty())
    return;
  if (block[0] <= 0) {
    report(check::kUnprovable, kernel,
           "mbarriers in a kernel without known_block_size: arrivals per "
           "phase cannot be counted");
    return;
  }
  for (auto &[key, uses] : all)
    check(uses);
  checkPipelines();
}

std::optional<std::pair<nvgpu::MBarrierInitOp, int64_t>>
MBarrierChecker::checkInit(Uses &uses) {
  const std::string &name = uses.name;
  Operation *firstUse = !uses.arrives.empty() ? uses.arrives.front()
                        : !uses.waits.empty() ? uses.waits.front()
                        : !uses.loads.empty() ? uses.loads.front()
                                              : nullptr;
  if (uses.inits.empty()) {
    if (firstUse)
      report(check::kMBarrierPhase, firstUse,
             name + " is used but never initialized (nvgpu.mbarrier.init)");
    return std::nullopt;
  }
  if (uses.inits.size() > 1) {
    report(check::kUnprovable, uses.inits[1],
           name + " is initialized more than once: not modelled");
    return std::nullopt;
  }
  auto init = cast<nvgpu::MBarrierInitOp>(uses.inits.front());
  std::optional<int64_t> count = getConstantIntValue(init.getCount());
  if (!count || *count < 1) {
    report(check::kUnprovable, init,
           name + " is initialized with a count that is not a positive "
                  "constant: not modelled");
    return std::nullopt;
  }
  // The init: by one thread or all, outside loops.
  int64_t threads = block[0] * block[1] * block[2];
  {
    std::optional<std::pair<int64_t, scf::ForOp>> by =
        executors(init, "the mbarrier init");
    if (!by)
      return std::nullopt;
    int64_t initThreads = by->first;
    if (Value pred = init.getPredicate()) {
      std::optional<int64_t> n = guardThreads(pred, true);
      initThreads = n && by->first == threads ? *n : -1;
    }
    if (by->second || (initThreads != 1 && initThreads != threads)) {
      report(check::kUnprovable, init,
             name + " is initialized in a loop, or by neither one thread nor "
                    "all: not modelled");
      return std::nullopt;
    }
  }
  return std::make_pair(init, *count);
}

bool MBarrierChecker::checkVisible(Uses &uses, nvgpu::MBarrierInitOp init) {
  const std::string &name = uses.name;
  // A block barrier after the init makes it visible to every thread.
  Operation *initTop = topLevel(init);
  Operation *visible = nullptr;
  for (Operation *op = initTop->getNextNode(); op && !visible;
       op = op->getNextNode())
    if (isBlockBarrier(op))
      visible = op;
  bool ordered = true;
  for (Operation *use : llvm::concat<Operation *>(uses.arrives, uses.waits)) {
    Operation *top = topLevel(use);
    if (!visible || !visible->isBeforeInBlock(top)) {
      report(check::kMBarrierPhase, use,
             describeOp(use) + " uses " + name +
                 " before a block barrier makes its initialization (" +
                 describeOp(init) + ") visible to every thread");
      ordered = false;
    }
  }
  return ordered;
}

Operation *MBarrierChecker::complementOf(Operation *arrive,
                                         ArrayRef<Operation *> arrives) {
  auto ifOp = dyn_cast<scf::IfOp>(arrive->getParentOp());
  if (!ifOp || ifOp.getElseRegion().empty())
    return nullptr;
  // Exactly one arrive directly in each branch.
  auto only = [&](Region &region) -> Operation * {
    Operation *found = nullptr;
    for (Operation *a : arrives)
      if (a->getParentRegion() == &region) {
        if (found)
          return nullptr;
        found = a;
      }
    return found;
  };
  Operation *inThen = only(ifOp.getThenRegion());
  Operation *inElse = only(ifOp.getElseRegion());
  if (!inThen || !inElse)
    return nullptr;
  return arrive == inThen ? inElse : arrive == inElse ? inThen : nullptr;
}

std::optional<SmallVector<MBarrierChecker::Round>>
MBarrierChecker::getRounds(Uses &uses, nvgpu::MBarrierInitOp init,
                           int64_t count) {
  const std::string &name = uses.name;
  SmallVector<Round> rounds;
  llvm::SmallPtrSet<Operation *, 4> complements;
  for (Operation *arrive : uses.arrives) {
    if (complements.contains(arrive))
      continue;
    Operation *complement = complementOf(arrive, uses.arrives);
    bool predicated = false;
    for (Operation *op : {arrive, complement})
      if (auto expect = dyn_cast_or_null<nvgpu::MBarrierArriveExpectTxOp>(op))
        predicated |= static_cast<bool>(expect.getPredicate());
    if (predicated) {
      report(check::kUnprovable, arrive,
             "a predicated arrive.expect_tx on " + name + " is not modelled");
      return std::nullopt;
    }
    // Arrives in both branches of one scf.if: whatever its condition, each
    // thread that runs the scf.if arrives once.
    if (complement)
      complements.insert(complement);
    ThreadRange range;
    std::optional<std::pair<int64_t, scf::ForOp>> by =
        executors(complement ? arrive->getParentOp() : arrive,
                  "the arrive on " + name, /*counts=*/true, &range);
    if (!by)
      return std::nullopt;
    if (by->first != count) {
      report(check::kMBarrierPhase, arrive,
             llvm::formatv("{0} on {1} each time, but it was "
                           "initialized with count {2} ({3}): {4}",
                           threadsArrive(by->first), name, count,
                           describeOp(init),
                           by->first < count
                               ? "the phase never completes"
                               : "phases complete early, before the threads "
                                 "that wait on them arrived")
                 .str());
      return std::nullopt;
    }
    if (by->second && llvm::any_of(rounds, [&](const Round &r) {
          return r.loop == by->second;
        })) {
      report(check::kUnprovable, arrive,
             "more than one arrive on " + name +
                 " in one loop is not modelled");
      return std::nullopt;
    }
    rounds.push_back({arrive, by->second, by->first, range, -1, complement});
  }
  // Rounds in a loop nested in another interleave with any other round of
  // the barrier, which the phases counted in program order below cannot
  // say.
  if (rounds.size() > 1 && llvm::any_of(rounds, [](const Round &r) {
        return static_cast<bool>(outerLoop(r.loop));
      })) {
    report(check::kUnprovable, rounds.front().op,
           "arrives on " + name +
               " in a nested loop and elsewhere are not modelled");
    return std::nullopt;
  }
  // Phases in program order: top-level rounds one each, a loop's one per
  // iteration; past a loop of unknown trip count the count is symbolic.
  int64_t next = 0;
  for (Round &r : rounds) {
    if (next < 0)
      break;
    r.phaseBase = next;
    std::optional<int64_t> trips = runsIn(r.loop);
    next = trips ? next + *trips : -1;
  }
  return rounds;
}

void MBarrierChecker::check(Uses &uses) {
  pending.clear();
  pendingNodes.clear();
  pendingObligations.clear();
  if (prove(uses)) {
    phases.of.insert(pending.begin(), pending.end());
    phases.nodes.insert(pendingNodes.begin(), pendingNodes.end());
    llvm::append_range(obligations, pendingObligations);
  } else {
    phases.reported.insert(uses.loads.begin(), uses.loads.end());
  }
}

bool MBarrierChecker::prove(Uses &uses) {
  std::optional<std::pair<nvgpu::MBarrierInitOp, int64_t>> initAndCount =
      checkInit(uses);
  if (!initAndCount)
    return false;
  auto [init, count] = *initAndCount;
  if (!checkVisible(uses, init))
    return false;
  std::optional<SmallVector<Round>> rounds = getRounds(uses, init, count);
  if (!rounds || !checkTransactions(uses, *rounds))
    return false;
  // Waits: the parity of the phase their round completes.
  for (Operation *op : uses.waits)
    if (!checkWait(cast<nvgpu::MBarrierTryWaitParityOp>(op), uses, *rounds))
      return false;
  if (!checkLoadsWaited(uses, *rounds))
    return false;
  // Proved: the phase of every TMA load and arrive is its round's (a
  // wait's is recorded by checkWait).
  for (Operation *load : uses.loads) {
    const Round *round = roundOf(uses, *rounds, load);
    if (round->phaseBase < 0)
      continue;
    pending[load] =
        MBarrierPhases::Phase{uses.key, round->loop, round->phaseBase};
    // In a loop, a pipeline node (its guards: checkTransactions counted
    // it, so they are thread guards only).
    ThreadRange range;
    if (round->loop && executors(load, "the TMA load on " + uses.name,
                                 /*counts=*/true, &range))
      pendingNodes[load] =
          Node{uses.key, round->loop, round->phaseBase, range, Node::Load};
  }
  for (const Round &r : *rounds)
    if (r.phaseBase >= 0)
      for (Operation *op : {r.op, r.complement})
        if (op)
          pending[op] = MBarrierPhases::Phase{uses.key, r.loop, r.phaseBase};
  addNodes(uses, *rounds);
  return true;
}

bool MBarrierChecker::checkLoadsWaited(const Uses &uses,
                                       ArrayRef<Round> rounds) {
  // A round of TMA loads must be waited for before the block exits: its
  // boxes would land in shared memory the block no longer owns. Waited: in
  // the round's loop by a wait of the same or a later phase each
  // iteration, or after the round by a wait of a phase at least its last
  // (phases complete in order).
  for (Operation *load : uses.loads) {
    const Round *round = roundOf(uses, rounds, load);
    if (round->phaseBase < 0)
      continue; // its phase is unknown: the race check reports the load
    bool waited = llvm::any_of(uses.waits, [&](Operation *w) {
      auto it = pending.find(w);
      if (it == pending.end())
        return false;
      const MBarrierPhases::Phase &p = it->second;
      if (round->loop && p.loop == round->loop)
        return p.base >= round->phaseBase;
      // A pipeline's consumer loop of as many iterations (a waiting thread
      // cannot exit before its last wait returns).
      if (round->loop && p.loop && pendingNodes.count(w) &&
          sameIterations(round->loop, p.loop))
        return p.base >= round->phaseBase;
      std::optional<int64_t> trips = runsIn(round->loop),
                             waitTrips = runsIn(p.loop);
      if (!trips || !waitTrips || *waitTrips < 1 ||
          !topLevel(load)->isBeforeInBlock(topLevel(w)))
        return false;
      return p.base + *waitTrips - 1 >= round->phaseBase + *trips - 1;
    });
    if (!waited) {
      report(check::kMBarrierPhase, load,
             describeOp(load) + " completes in a phase of " + uses.name +
                 " that no wait covers (" +
                 (round->loop ? "in its loop's last iteration"
                              : "after the load") +
                 "): the block can exit while its box is still landing in "
                 "shared memory");
      return false;
    }
  }
  return true;
}

const MBarrierChecker::Round *MBarrierChecker::roundOf(const Uses &uses,
                                                       ArrayRef<Round> rounds,
                                                       Operation *load) {
  Operation *found = nullptr;
  for (Operation *arrive : uses.arrives)
    if (isa<nvgpu::MBarrierArriveExpectTxOp>(arrive) &&
        arrive->getBlock() == load->getBlock()) {
      if (found)
        return nullptr;
      found = arrive;
    }
  const Round *round = llvm::find_if(rounds, [&](const Round &r) {
    return r.op == found || r.complement == found;
  });
  return found && round != rounds.end() ? round : nullptr;
}

bool MBarrierChecker::checkTransactions(Uses &uses, ArrayRef<Round> rounds) {
  const std::string &name = uses.name;
  // Each TMA load counts its bytes against the one arrive.expect_tx on the
  // barrier in its block, run by the same threads.
  llvm::DenseMap<Operation *, int64_t> delivered;
  for (Operation *op : uses.loads) {
    auto load = cast<nvgpu::TmaAsyncLoadOp>(op);
    std::optional<int64_t> box = getTmaBoxElements(load);
    if (!box || load.getPredicate() || load.getMulticastMask()) {
      report(check::kUnprovable, op,
             "a TMA load on " + name +
                 " that is predicated, multicast, or into a destination "
                 "that is not a static contiguous view of the box's type is "
                 "not modelled");
      return false;
    }
    const Round *round = roundOf(uses, rounds, op);
    if (!round) {
      report(check::kMBarrierPhase, op,
             describeOp(op) + " completes on " + name +
                 " but its block has no single arrive.expect_tx on it: no "
                 "phase waits for its bytes, which may land after the "
                 "phase the readers wait for");
      return false;
    }
    std::optional<std::pair<int64_t, scf::ForOp>> by =
        executors(op, "the TMA load on " + name);
    if (!by)
      return false;
    // (A round of both branches counts every thread of its scf.if; the
    // load's own branch is its expect_tx's block.)
    if (!round->complement && by->first != round->threads) {
      report(check::kMBarrierPhase, op,
             llvm::formatv("{0} is issued by {1} thread(s) per round but "
                           "its arrive.expect_tx ({2}) by {3}: the bytes "
                           "expected and delivered differ",
                           describeOp(op), by->first, describeOp(round->op),
                           round->threads)
                 .str());
      return false;
    }
    auto type = cast<MemRefType>(load.getDst().getType());
    int64_t bytes = *box * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    delivered[round->op] += bytes;
  }
  for (Operation *arrive : uses.arrives) {
    auto expect = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(arrive);
    if (!expect)
      continue;
    std::optional<int64_t> tx = getConstantIntValue(expect.getTxcount());
    if (!tx || *tx < 0) {
      report(check::kUnprovable, arrive,
             "an arrive.expect_tx on " + name +
                 " whose byte count is not a constant is not modelled");
      return false;
    }
    int64_t got = delivered.lookup(arrive);
    if (got != *tx) {
      report(check::kMBarrierPhase, arrive,
             llvm::formatv("{0} expects {1} transaction bytes on {2}, but "
                           "the TMA loads of its round deliver {3}: {4}",
                           describeOp(arrive), *tx, name, got,
                           got < *tx ? "the phase never completes"
                                     : "the phase completes before all "
                                       "their bytes have landed")
                 .str());
      return false;
    }
  }
  return true;
}

MBarrierPhases mlir::amk::checkMBarriers(
    Operation *kernel, const UniformityInfo &uniformity,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report) {
  MBarrierPhases phases;
  MBarrierChecker(kernel, uniformity, report, phases).run();
  return phases;
}
