//===- MBarrierPipeline.cpp - mbarriers between producers and consumers ---===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The part of AMK-MBARRIER-PHASE for pipelines of different threads (a
// producer warpgroup filling a ring of stages that consumer warpgroups
// drain): one barrier's arrives and waits sit in loops of different
// threads, with no block barrier between a wait and the next round. The
// model, on top of MBarrier.cpp's:
//
//  - a barrier has one arrive statement, in a loop; a thread that waits on
//    it in another loop waits in every iteration, for phase k + P0 in
//    iteration k, P0 in {-1, 0} read off its parity (phase -1: a fresh
//    barrier's preceding phase, which try_wait.parity(1) sees complete);
//    the loops run the same constant number of iterations;
//  - happens-before between instances is program order within one loop
//    (a thread that runs an op runs the later one) and an arrive before
//    every wait that returns for its phase or a later one (mbarrier.arrive
//    releases, try_wait acquires);
//  - a wait for phase p returns for p only, neither early (phase p - 2 of
//    the same parity, excluded as its threads waited for p - 1 before) nor
//    never (it needs the arrive of phase p, which must not come after it,
//    and phase p + 1 must not complete before it returns, or its parity
//    flips back): exactly when the arrive of phase p + 1 is the first of
//    them that must follow it;
//  - the arrives of one thread land in successive phases: phase p has
//    completed (some wait for it happened) before its next arrive.
//
//===----------------------------------------------------------------------===//

#include "MBarrierChecker.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <queue>

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::mbarrier;

/// Whether `u` runs before `v` in one iteration of the loop around both:
/// their ancestors in the innermost block that holds both, in order.
static bool comesBefore(Operation *u, Operation *v) {
  for (Operation *a = u; a; a = a->getParentOp())
    if (Operation *b = a->getBlock()->findAncestorOpInBlock(*v))
      return b != a && a->isBeforeInBlock(b);
  return false;
}

std::optional<int64_t> MBarrierChecker::checkCrossThreadWait(
    nvgpu::MBarrierTryWaitParityOp wait, scf::ForOp loop, const Uses &uses,
    ArrayRef<Round> rounds, bool everyIteration) {
  const std::string &name = uses.name;
  auto unprovable = [&](const Twine &why) -> std::optional<int64_t> {
    report(check::kUnprovable, wait,
           "a wait on " + name + " in a loop without an arrive on it " + why +
               ": not modelled");
    return std::nullopt;
  };
  if (rounds.size() != 1 || !rounds[0].loop || rounds[0].complement ||
      rounds[0].phaseBase != 0)
    return unprovable("on a barrier with other than one arrive statement, in "
                      "a loop");
  if (!sameIterations(loop, rounds[0].loop))
    return unprovable("whose iterations are not those of the arrive's loop "
                      "(constant trip counts, in outer loops of the same "
                      "bounds)");
  // The only wait on the barrier in its loop, run by its threads in every
  // iteration.
  for (Operation *other : uses.waits)
    if (other != wait && loop->isProperAncestor(other))
      return unprovable("beside another wait on it in the loop");
  if (!everyIteration)
    return unprovable("under a condition other than a thread guard");
  std::optional<Parity> p = parity(wait.getPhaseParity(), loop);
  if (!p || p->a != 1) {
    report(check::kMBarrierPhase, wait,
           "waits on " + name +
               " in a loop of another thread's arrives with a parity that "
               "does not flip every iteration: its arrives complete one "
               "phase per iteration, so the wait passes early or blocks "
               "for good");
    return std::nullopt;
  }
  int64_t base = p->b ? -1 : 0;
  pendingObligations.push_back(
      {wait.getOperation(), rounds[0].op, name, /*isWait=*/true});
  return base;
}

bool MBarrierChecker::needsSeparation(const Uses &uses,
                                      const Round &round) const {
  // One run, or a wait on the barrier in the same loop (checkLoopRound
  // orders those): nothing more to prove.
  if (!round.loop || constantTripCount(round.loop) == std::optional<int64_t>(1))
    return false;
  return llvm::none_of(uses.waits, [&](Operation *w) {
    return round.loop->isProperAncestor(w);
  });
}

void MBarrierChecker::addNodes(const Uses &uses, ArrayRef<Round> rounds) {
  for (const Round &r : rounds) {
    if (!r.loop || r.complement || r.phaseBase < 0)
      continue;
    // (Counted by executors: under thread guards only, every iteration.)
    pendingNodes[r.op] =
        Node{uses.key, r.loop, r.phaseBase, r.range, Node::Arrive};
    if (needsSeparation(uses, r))
      pendingObligations.push_back({r.op, r.op, uses.name, /*isWait=*/false});
  }
}

bool MBarrierPhases::sameIterations(scf::ForOp a, scf::ForOp b) const {
  auto [it, inserted] = sameIterationsCache.try_emplace({a, b}, false);
  if (inserted)
    it->second = mbarrier::sameIterations(a, b);
  return it->second;
}

std::optional<int64_t> MBarrierPhases::minOffset(Operation *from,
                                                 Operation *to) const {
  // Dijkstra over (op, offset): every edge adds 0 or more.
  constexpr int64_t kMaxOffset = 4;
  auto fromIt = nodes.find(from);
  if (fromIt == nodes.end())
    return std::nullopt;
  scf::ForOp fromLoop = fromIt->second.loop;
  llvm::DenseMap<Operation *, int64_t> best;
  using Item = std::pair<int64_t, Operation *>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  best[from] = 0;
  queue.push({0, from});
  auto relax = [&](Operation *v, int64_t d) {
    if (d > kMaxOffset)
      return;
    auto it = best.find(v);
    if (it != best.end() && it->second <= d)
      return;
    best[v] = d;
    queue.push({d, v});
  };
  while (!queue.empty()) {
    auto [d, u] = queue.top();
    queue.pop();
    if (best.lookup(u) != d)
      continue;
    if (u == to)
      return d;
    const Node &nu = nodes.find(u)->second;
    for (const auto &[v, nv] : nodes) {
      if (!sameIterations(nv.loop, fromLoop))
        continue;
      // Program order: v's threads include u's (a load's bytes are not
      // ordered by it).
      if (nv.loop == nu.loop && nu.kind != Node::Load &&
          nv.kind != Node::Load && !nv.threads.onePerWarp &&
          nv.threads.lo <= nu.threads.lo && nu.threads.hi <= nv.threads.hi)
        relax(v, d + (comesBefore(u, v) ? 0 : 1));
      // An arrive (a load's bytes) precedes every wait of its barrier that
      // returns for its phase or a later one: the first such wait instance
      // at or after iteration k + d.
      if (nu.kind != Node::Wait && nv.kind == Node::Wait &&
          nv.barrier == nu.barrier)
        relax(v, std::max(d, d + nu.base - nv.base));
    }
  }
  return std::nullopt;
}

void MBarrierChecker::checkPipelines() {
  for (const Obligation &o : obligations) {
    const Node &arrive = phases.nodes.find(o.arrive)->second;
    if (o.isWait) {
      // Waits for phase b + k in iteration k: the arrive of phase b + k + 1
      // (iteration b + 1 - a + k) must be the first that follows it.
      const Node &wait = phases.nodes.find(o.op)->second;
      int64_t want = wait.base + 1 - arrive.base;
      std::optional<int64_t> d = phases.minOffset(o.op, o.arrive);
      if (d && *d == want)
        continue;
      if (d && *d < want) {
        report(check::kMBarrierPhase, o.op,
               llvm::formatv("waits on {0} for a phase whose arrive ({1}) "
                             "runs only after this wait returns: the threads "
                             "block for good",
                             o.name, describeOp(o.arrive))
                   .str());
        continue;
      }
      report(check::kMBarrierPhase, o.op,
             llvm::formatv("waits on {0} in a loop its arrives ({1}) run in "
                           "other threads, but nothing keeps the next "
                           "phase from completing before this wait returns "
                           "(no chain of arrives and waits from the wait to "
                           "the arrive of the next phase): the parity can "
                           "flip back and the wait miss its phase",
                           o.name, describeOp(o.arrive))
                 .str());
      continue;
    }
    // Successive arrives: some wait for phase a + k happens before the
    // arrive of iteration k + 1 (w + i = a + k: i = k + a - w).
    bool separated = false;
    for (const auto &[w, nw] : phases.nodes) {
      if (nw.kind != Node::Wait || nw.barrier != arrive.barrier)
        continue;
      int64_t shift = arrive.base - nw.base;
      if (shift < 0 || shift > 1)
        continue;
      std::optional<int64_t> d = phases.minOffset(w, o.op);
      if (d && *d <= 1 - shift)
        separated = true;
    }
    if (!separated)
      report(check::kMBarrierPhase, o.op,
             llvm::formatv("arrives on {0} in every iteration, but no wait "
                           "for a phase comes between its threads' arrive "
                           "and their next one: the next arrive can land in "
                           "the same phase (its count, or its transaction "
                           "bytes, are then wrong)",
                           o.name)
                 .str());
  }
}
