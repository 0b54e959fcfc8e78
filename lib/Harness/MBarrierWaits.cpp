//===- MBarrierWaits.cpp - mbarrier waits against their rounds ------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The waits of AMK-MBARRIER-PHASE (the model is MBarrier.cpp's): each after
// the arrive of its round, at the top level or in that arrive's loop, with
// the parity of the phase the round completes, and, where fewer threads
// arrive than the block has, a block barrier between one round's wait and
// the next arrive.
//
//===----------------------------------------------------------------------===//

#include "MBarrierChecker.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::mbarrier;

std::optional<int64_t> MBarrierChecker::checkLoopRound(
    nvgpu::MBarrierTryWaitParityOp wait, scf::ForOp loop, const Round &own,
    const std::string &name, int64_t before, ArrayRef<Round> rounds) {
  Block *body = loop.getBody();
  auto inBody = [&](Operation *x) { return body->findAncestorOpInBlock(*x); };
  Operation *a = inBody(own.op), *w = inBody(wait);
  // Arrive then wait: iteration k's own phase. Wait then arrive (wait,
  // consume, refill): the previous iteration's, or before the loop the
  // last top-level one, which must exist.
  bool waitsFirst = w->isBeforeInBlock(a);
  if (waitsFirst && before == 0) {
    report(check::kMBarrierPhase, wait,
           "waits on " + name +
               " in the first iteration before any arrive on it: no phase "
               "has completed for it to see");
    return std::nullopt;
  }
  // Fewer arrivers than threads: a barrier must keep the next arrive
  // behind every thread's wait.
  if (own.threads < block[0] * block[1] * block[2]) {
    bool separated = false;
    for (Operation &x : *body)
      if (isBlockBarrier(&x) &&
          (waitsFirst ? w->isBeforeInBlock(&x) && x.isBeforeInBlock(a)
                      : x.isBeforeInBlock(a) || w->isBeforeInBlock(&x)))
        separated = true;
    if (!separated) {
      report(check::kMBarrierPhase, wait,
             llvm::formatv("{0} on {1} per iteration, "
                           "fewer than the block's, and no block barrier "
                           "separates a wait from the next iteration's "
                           "arrive: the phase can complete again (its "
                           "parity flip back) before a slow thread waits",
                           threadsArrive(own.threads), name)
                 .str());
      return std::nullopt;
    }
  }
  return waitsFirst ? before - 1 : before;
}

bool MBarrierChecker::checkTopLevelRounds(nvgpu::MBarrierTryWaitParityOp wait,
                                          const std::string &name,
                                          int64_t before,
                                          ArrayRef<Round> rounds) {
  if (before == 0) {
    report(check::kMBarrierPhase, wait,
           "waits on " + name +
               " before any arrive on it: no phase has completed for it "
               "to see");
    return false;
  }
  // With fewer arrivers than threads, a later phase could complete before a
  // slow thread waits (its parity flips back): fine when no round follows,
  // or a block barrier keeps every later arrive behind every thread's wait.
  Operation *top = topLevel(wait);
  auto separated = [&](Operation *arrive) {
    for (Operation *x = top->getNextNode(); x && x != arrive;
         x = x->getNextNode())
      if (isBlockBarrier(x))
        return true;
    return false;
  };
  bool later = llvm::any_of(rounds, [&](const Round &r) {
    Operation *arrive = topLevel(r.op);
    return top->isBeforeInBlock(arrive) && !separated(arrive);
  });
  if (later && llvm::any_of(rounds, [&](const Round &r) {
        return r.threads < block[0] * block[1] * block[2];
      })) {
    report(check::kUnprovable, wait,
           "repeated arrives by fewer threads than the block outside a "
           "loop, with more after this wait and no block barrier between, "
           "are not modelled");
    return false;
  }
  return true;
}

bool MBarrierChecker::checkParity(nvgpu::MBarrierTryWaitParityOp wait,
                                  scf::ForOp loop, const std::string &name,
                                  int64_t phase) {
  std::optional<Parity> p = parity(wait.getPhaseParity(), loop);
  if (!p) {
    report(check::kUnprovable, wait,
           "the parity this wait on " + name +
               " expects is not a function of the loop iteration the "
               "mbarrier check evaluates");
    return false;
  }
  // In iteration k the wait needs phase `phase` + k (top level: `phase`).
  Parity want = loop ? Parity{1, phase & 1} : Parity{0, phase & 1};
  if (p->a != want.a || p->b != want.b) {
    auto text = [&](Parity x) {
      if (!loop)
        return std::to_string(x.b);
      return x.a ? (x.b ? std::string("(k + 1) mod 2") : std::string("k mod 2"))
                 : std::to_string(x.b);
    };
    report(check::kMBarrierPhase, wait,
           llvm::formatv("waits on {0} for parity {1}{2}, but the phase "
                         "its arrive completes has parity {3}: the wait "
                         "{4}",
                         name, text(*p), loop ? " in iteration k" : "",
                         text(want),
                         loop ? "passes early or blocks for good in some "
                                "iterations"
                              : "passes before the phase completes, or "
                                "blocks for good")
               .str());
    return false;
  }
  return true;
}

bool MBarrierChecker::checkWait(nvgpu::MBarrierTryWaitParityOp wait,
                                const Uses &uses, ArrayRef<Round> rounds) {
  const std::string &name = uses.name;
  ThreadRange range;
  bool everyIteration = true;
  std::optional<std::pair<int64_t, scf::ForOp>> by = executors(
      wait, "the wait on " + name, /*counts=*/false, &range, &everyIteration);
  if (!by)
    return false;
  scf::ForOp loop = by->second;
  Operation *top = topLevel(wait);
  // The round of the wait's own loop; none: another thread's (a pipeline,
  // whose phases do not count the rounds before the loop).
  const Round *own = nullptr;
  for (const Round &r : rounds)
    if (loop && r.loop == loop)
      own = &r;
  bool crossThread = loop && !own;
  // Phases completed before `top` at the top level: one per top-level
  // round, a loop's trip count per loop of rounds (a constant, or the wait
  // is not modelled).
  int64_t before = 0;
  for (const Round &r : crossThread ? ArrayRef<Round>() : rounds) {
    Operation *rtop = topLevel(r.op);
    if (rtop == top && loop && r.loop == loop)
      continue;
    if (!rtop->isBeforeInBlock(top) && rtop != top)
      continue;
    std::optional<int64_t> trips = runsIn(r.loop);
    if (!trips) {
      report(check::kUnprovable, wait,
             "a wait on " + name +
                 " after a loop of its phases whose trip count is not a "
                 "constant is not modelled");
      return false;
    }
    before += *trips;
  }
  std::optional<int64_t> phase;
  if (crossThread)
    phase = checkCrossThreadWait(wait, loop, uses, rounds, everyIteration);
  else if (loop)
    phase = checkLoopRound(wait, loop, *own, name, before, rounds);
  else if (checkTopLevelRounds(wait, name, before, rounds))
    phase = before - 1;
  if (!phase || !checkParity(wait, loop, name, *phase))
    return false;
  // The phase it waits for: *phase (+ k in iteration k of its loop); in a
  // loop, run each iteration by its threads, a pipeline node too.
  pending[wait] = MBarrierPhases::Phase{uses.key, loop, *phase};
  if (loop && everyIteration)
    pendingNodes[wait] = Node{uses.key, loop, *phase, range, Node::Wait};
  return true;
}
