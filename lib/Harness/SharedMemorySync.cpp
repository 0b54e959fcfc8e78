//===- SharedMemorySync.cpp - Barriers and async copies of the race check -===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The synchronisation the race check (SharedMemory.cpp) orders accesses by.
// The number of barriers, and of async-group commits, a thread has passed
// before an op instance is affine in the iterations of the loops around it
// and their trip counts: barriers and commits must run a known number of
// times per loop iteration. The wait and barrier that retire an async copy
// for an access are the latest ones before it (earlier ones retire less),
// found per structured path: the same block, the previous loop iteration,
// or before the loop.
//
//===----------------------------------------------------------------------===//

#include "SharedMemoryModel.h"

#include "AMK/Analysis/Uniformity.h"
#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::smem;

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

bool smem::isEvent(Event kind, Operation *op) {
  switch (kind) {
  case Event::Barrier:
    return isBlockBarrier(op);
  case Event::Commit:
    return isa<nvgpu::DeviceAsyncCreateGroupOp>(op);
  case Event::Wait:
    return isa<nvgpu::DeviceAsyncWaitOp>(op);
  case Event::MBarrierWait:
    return isa<nvgpu::MBarrierTryWaitParityOp>(op);
  case Event::WgmmaCommit:
    return isa<nvgpu::WarpgroupMmaOp, NVVM::WgmmaGroupSyncAlignedOp>(op);
  case Event::WgmmaWait:
    return isa<nvgpu::WarpgroupMmaOp, NVVM::WgmmaWaitGroupSyncOp>(op);
  case Event::NamedBarrier:
    return isa<NVVM::BarrierOp>(op) && !isBlockBarrier(op);
  case Event::WarpBarrier:
    return isWarpBarrier(op);
  }
  return false;
}

bool smem::isWarpBarrier(Operation *op) {
  auto sync = dyn_cast<NVVM::SyncWarpOp>(op);
  std::optional<int64_t> mask =
      sync ? getConstantIntValue(sync.getMask()) : std::nullopt;
  return mask && uint32_t(*mask) == 0xffffffffu;
}

StringRef smem::eventName(Event kind) {
  switch (kind) {
  case Event::Barrier:
    return "barriers";
  case Event::Commit:
    return "async-group commits";
  case Event::Wait:
    return "async waits";
  case Event::MBarrierWait:
    return "mbarrier waits";
  case Event::WgmmaCommit:
    return "wgmma group commits";
  case Event::WgmmaWait:
    return "wgmma waits";
  case Event::NamedBarrier:
    return "named barriers";
  case Event::WarpBarrier:
    return "warp barriers";
  }
  return "";
}

int64_t smem::waitGroups(Operation *wait) {
  if (auto mma = dyn_cast<nvgpu::WarpgroupMmaOp>(wait))
    return mma.getWaitGroup();
  if (auto w = dyn_cast<NVVM::WgmmaWaitGroupSyncOp>(wait))
    return w.getGroup();
  std::optional<uint32_t> n =
      cast<nvgpu::DeviceAsyncWaitOp>(wait).getNumGroups();
  return n ? *n : 0;
}

std::pair<Event, Event> smem::groupEvents(const MemoryAccess &access) {
  if (access.wgmma)
    return {Event::WgmmaCommit, Event::WgmmaWait};
  return {Event::Commit, Event::Wait};
}

bool Model::contains(Event kind, Operation *op) const {
  assert(kind != Event::MBarrierWait && kind != Event::NamedBarrier &&
         "per barrier or group: containsHere");
  auto [it, inserted] = containsCache[int(kind)].try_emplace(op, false);
  if (inserted)
    it->second = op->walk([&](Operation *inner) {
                     return isEvent(kind, inner) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
                   }).wasInterrupted();
  return it->second;
}

unsigned SystemBuilder::counted(Event kind) const {
  return kind == Event::NamedBarrier ? kNumEvents + unsigned(group->id)
                                     : unsigned(kind);
}

bool SystemBuilder::isEventHere(Event kind, Operation *op) const {
  if (kind == Event::NamedBarrier)
    return model.named->isEvent(op, *group);
  if (kind != Event::MBarrierWait)
    return isEvent(kind, op);
  auto it = model.phases.of.find(op);
  return isEvent(kind, op) && it != model.phases.of.end() &&
         it->second.barrier == waitBarrier;
}

bool SystemBuilder::containsHere(Event kind, Operation *op) const {
  if (kind != Event::MBarrierWait && kind != Event::NamedBarrier)
    return model.contains(kind, op);
  return op
      ->walk([&](Operation *inner) {
        return isEventHere(kind, inner) ? WalkResult::interrupt()
                                        : WalkResult::advance();
      })
      .wasInterrupted();
}

//===----------------------------------------------------------------------===//
// Counts and the latest events
//===----------------------------------------------------------------------===//

std::optional<Lin> SystemBuilder::tripCount(scf::ForOp loop) {
  if (auto it = trips.find(loop); it != trips.end())
    return it->second;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                         ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (lb && ub && step && *step > 0) {
    Lin t = Lin::of(*ub > *lb ? llvm::divideCeil(*ub - *lb, *step) : 0);
    return trips[loop] = t;
  }
  // A symbolic trip count: the same for every thread (the loop syncs, so
  // its bounds are uniform) and defined outside every loop.
  for (Value bound : {loop.getLowerBound(), loop.getUpperBound()})
    if (model.uniformity.isDivergent(bound) ||
        !enclosingLoops(bound.getParentRegion()->getParentOp(), model.kernel)
             .empty() ||
        isa<scf::ForOp>(bound.getParentRegion()->getParentOp()))
      return std::nullopt;
  Lin t = Lin::var(sys.var(0, std::nullopt));
  if (step && *step > 0) {
    Instance none;
    none.op = loop;
    Lin span =
        expr(loop.getUpperBound(), none) - expr(loop.getLowerBound(), none);
    sys.ge0(t * *step - span);
  }
  return trips[loop] = t;
}

std::optional<int64_t> SystemBuilder::bodyTotal(Event kind, scf::ForOp loop) {
  return blockTotal(kind, *loop.getBody());
}

std::optional<int64_t> SystemBuilder::blockTotal(Event kind, Block &block) {
  int64_t sum = 0;
  for (Operation &op : block) {
    std::optional<Lin> t = total(kind, &op);
    std::optional<int64_t> c = t ? t->asConstant() : std::nullopt;
    if (!c)
      return std::nullopt;
    sum += *c;
  }
  return sum;
}

std::optional<Lin> SystemBuilder::total(Event kind, Operation *op) {
  if (isEventHere(kind, op))
    return Lin::of(1);
  if (!containsHere(kind, op))
    return Lin::of(0);
  auto &known = model.constantTotals[counted(kind)];
  if (auto it = known.find(op); it != known.end())
    return Lin::of(it->second);
  std::optional<Lin> result = computeTotal(kind, op);
  if (result)
    if (std::optional<int64_t> c = result->asConstant())
      known[op] = *c;
  return result;
}

std::optional<Lin> SystemBuilder::computeTotal(Event kind, Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::optional<int64_t> body = bodyTotal(kind, loop);
    std::optional<Lin> trip = tripCount(loop);
    if (!body || !trip)
      return std::nullopt;
    return *trip * *body;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    auto regionTotal = [&](Region &r) -> std::optional<int64_t> {
      return r.empty() ? 0 : blockTotal(kind, r.front());
    };
    std::optional<int64_t> a = regionTotal(ifOp.getThenRegion()),
                           b = regionTotal(ifOp.getElseRegion());
    if (a && b && *a == *b)
      return Lin::of(*a);
    // A branch the whole block takes or not, once (under no loop): the
    // same choice for both threads of a pair, b + taken * (a - b).
    if (a && b &&
        !model.uniformity.isDivergent(ifOp.getCondition(),
                                      ThreadScope::Block) &&
        enclosingLoops(ifOp, model.kernel).empty()) {
      auto it = branches.find(ifOp);
      if (it == branches.end())
        it = branches.try_emplace(ifOp, Lin::var(sys.var(0, 1))).first;
      return Lin::of(*b) + it->second * (*a - *b);
    }
  }
  return std::nullopt;
}

std::optional<int64_t> SystemBuilder::prefix(Event kind, Operation *op) {
  auto &known = model.prefixTotals[counted(kind)];
  if (auto it = known.find(op); it != known.end())
    return it->second;
  // One pass over the block fills every op's prefix; a scratch builder keeps
  // symbolic trip counts met on the way out of this system.
  SystemBuilder scratch(model);
  scratch.group = group;
  std::optional<int64_t> running = 0;
  for (Operation &o : *op->getBlock()) {
    known[&o] = running;
    if (!running)
      continue;
    std::optional<Lin> t = scratch.total(kind, &o);
    std::optional<int64_t> c = t ? t->asConstant() : std::nullopt;
    if (c && !llvm::AddOverflow(*running, *c, *running))
      continue;
    running = std::nullopt;
  }
  return known.lookup(op);
}

std::optional<Lin> SystemBuilder::count(Event kind, Operation *op,
                                        const Instance &in) {
  Lin sum;
  for (Operation *cur = op;;) {
    std::optional<int64_t> before = prefix(kind, cur);
    if (before)
      sum = sum + *before;
    for (Operation *prev = before ? nullptr : cur->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      std::optional<Lin> t = total(kind, prev);
      if (!t) {
        whyNot = llvm::formatv("the {0} in '{1}' do not run a known number "
                               "of times",
                               eventName(kind), prev->getName())
                     .str();
        return std::nullopt;
      }
      sum = sum + *t;
    }
    Operation *parent = cur->getParentOp();
    if (!parent || parent == model.kernel)
      return sum;
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      std::optional<int64_t> body = bodyTotal(kind, loop);
      if (!body) {
        whyNot = llvm::formatv("the {0} in a loop iteration do not run a "
                               "known number of times",
                               eventName(kind))
                     .str();
        return std::nullopt;
      }
      sum = sum + in.iteration.lookup(loop) * *body;
    } else if (!isa<scf::IfOp>(parent)) {
      whyNot = llvm::formatv("'{0}' around an access is not modelled",
                             parent->getName())
                   .str();
      return std::nullopt;
    }
    cur = parent;
  }
}

std::optional<std::pair<Lin, Lin>>
SystemBuilder::countWarpBarriers(const Instance &a, const Instance &b) {
  if (!model.contains(Event::WarpBarrier, model.kernel))
    return std::nullopt;
  std::string why = whyNot;
  std::optional<Lin> ca = count(Event::WarpBarrier, a.op, a),
                     cb = count(Event::WarpBarrier, b.op, b);
  whyNot = why;
  if (!ca || !cb)
    return std::nullopt;
  return std::make_pair(*ca, *cb);
}

void SystemBuilder::addNamedBarrierSplit(const Instance &a, const Instance &b,
                                         bool warps) {
  if (!model.blockKnown)
    return;
  struct Counted {
    const NamedBarriers::Group *group;
    Lin a, b;
  };
  SmallVector<Counted> counted;
  std::string why = whyNot;
  ArrayRef<NamedBarriers::Group> groups;
  if (model.named)
    groups = model.named->groups();
  for (const NamedBarriers::Group &g : groups) {
    group = &g;
    std::optional<Lin> ca = count(Event::NamedBarrier, a.op, a),
                       cb = count(Event::NamedBarrier, b.op, b);
    if (ca && cb)
      counted.push_back({&g, *ca, *cb});
  }
  group = nullptr;
  whyNot = why;
  // Warp barriers: two threads of one warp as far through them.
  if (std::optional<std::pair<Lin, Lin>> c =
          warps ? countWarpBarriers(a, b) : std::nullopt) {
    Lin wa = warpOf(a), wb = warpOf(b);
    orderSplits.push_back({{{wa - wb - 1, false}},
                           {{wb - wa - 1, false}},
                           {{wa - wb, true}, {c->first - c->second, true}}});
  }
  if (counted.empty())
    return;
  llvm::sort(counted, [](const Counted &x, const Counted &y) {
    return x.group->first < y.group->first;
  });
  Lin ta = threadId(a), tb = threadId(b);
  SmallVector<SmallVector<Constraint, 3>, 2> alternatives;
  // a's thread in no group: before, between or after them.
  int64_t next = 0;
  for (const Counted &c : counted) {
    if (c.group->first > next)
      alternatives.push_back(
          {{ta - next, false}, {Lin::of(c.group->first - 1) - ta, false}});
    next = c.group->last + 1;
  }
  alternatives.push_back({{ta - next, false}});
  // In a group: b's thread outside it, or as far through its barriers.
  for (const Counted &c : counted) {
    int64_t first = c.group->first, last = c.group->last;
    Constraint inA[] = {{ta - first, false}, {Lin::of(last) - ta, false}};
    alternatives.push_back({inA[0], inA[1], {Lin::of(first - 1) - tb, false}});
    alternatives.push_back({inA[0], inA[1], {tb - (last + 1), false}});
    alternatives.push_back({inA[0],
                            inA[1],
                            {tb - first, false},
                            {Lin::of(last) - tb, false},
                            {c.a - c.b, true}});
  }
  orderSplits.push_back(std::move(alternatives));
}

/// Whether every iteration of a loop with this body runs an event of `kind`
/// at its top level (or in a nested loop that runs and does).
bool SystemBuilder::unconditional(Event kind, Block &body) {
  for (Operation &op : body) {
    if (isEventHere(kind, &op))
      return true;
    if (auto loop = dyn_cast<scf::ForOp>(&op)) {
      std::optional<Lin> trip = tripCount(loop);
      std::optional<int64_t> c = trip ? trip->asConstant() : std::nullopt;
      if (c && *c >= 1 && unconditional(kind, *loop.getBody()))
        return true;
    }
  }
  return false;
}

/// Scans `block` backwards from `from` (exclusive; null: the end) for the
/// latest event; returns whether the scan is complete (an event found on
/// every case it split into).
Operation *SystemBuilder::stopAtOrBefore(Event kind, Operation *op) {
  // Memoized per kernel for every op the walk passes: the race checks ask
  // from the same ops of long unrolled blocks again and again.
  SmallVector<Operation *, 16> passed;
  Operation *stop = nullptr;
  for (Operation *cur = op; cur; cur = cur->getPrevNode()) {
    auto key = std::make_tuple(cur, unsigned(kind), waitBarrier.first,
                               waitBarrier.second);
    if (auto it = model.stops.find(key); it != model.stops.end()) {
      stop = it->second;
      break;
    }
    passed.push_back(cur);
    auto loop = dyn_cast<scf::ForOp>(cur);
    if (isEventHere(kind, cur) || (loop && containsHere(kind, loop) &&
                                   unconditional(kind, *loop.getBody()))) {
      stop = cur;
      break;
    }
  }
  for (Operation *p : passed)
    model.stops[std::make_tuple(p, unsigned(kind), waitBarrier.first,
                                waitBarrier.second)] = stop;
  return stop;
}

bool SystemBuilder::scanBack(Event kind, Operation *from, Block *block,
                             Instance in, Latest conditions,
                             std::vector<Latest> &out) {
  Operation *start = from ? from->getPrevNode() : &block->back();
  for (Operation *prev = start ? stopAtOrBefore(kind, start) : nullptr; prev;
       prev = prev->getPrevNode() ? stopAtOrBefore(kind, prev->getPrevNode())
                                  : nullptr) {
    if (isEventHere(kind, prev)) {
      conditions.op = prev;
      in.op = prev;
      conditions.instance = in;
      out.push_back(conditions);
      return true;
    }
    auto loop = dyn_cast<scf::ForOp>(prev);
    if (!loop || !containsHere(kind, loop) ||
        !unconditional(kind, *loop.getBody()))
      continue; // conditional events are skipped: earlier retire less.
    std::optional<Lin> trip = tripCount(loop);
    if (!trip)
      continue;
    // The loop ran (its last iteration has the latest event) ...
    Latest ran = conditions;
    ran.atLeastZero.push_back(*trip - 1);
    Instance inner = in;
    inner.iteration[loop] = *trip - 1;
    scanBack(kind, nullptr, loop.getBody(), inner, ran, out);
    // ... or did not.
    std::optional<int64_t> c = trip->asConstant();
    if (c && *c >= 1)
      return true;
    if (c)
      continue;
    conditions.equalZero.push_back(*trip);
  }
  return false;
}

void SystemBuilder::latest(Event kind, Operation *op, const Instance &in,
                           std::vector<Latest> &out) {
  Latest conditions;
  Instance ctx = in;
  for (Operation *cur = op;;) {
    if (scanBack(kind, cur, cur->getBlock(), ctx, conditions, out))
      return;
    Operation *parent = cur->getParentOp();
    if (!parent || parent == model.kernel) {
      conditions.op = nullptr;
      out.push_back(conditions);
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(parent);
        loop && unconditional(kind, *loop.getBody())) {
      // The previous iteration's last event ...
      Lin k = ctx.iteration.lookup(loop);
      Latest previous = conditions;
      previous.atLeastZero.push_back(k - 1);
      Instance before = ctx;
      before.iteration[loop] = k - 1;
      scanBack(kind, nullptr, loop.getBody(), before, previous, out);
      // ... or, in the first iteration, one before the loop.
      conditions.equalZero.push_back(k);
    }
    cur = parent;
  }
}

void SystemBuilder::latestWait(MBarrierPhases::Barrier barrier, Operation *op,
                               const Instance &in, std::vector<Latest> &out) {
  waitBarrier = barrier;
  latest(Event::MBarrierWait, op, in, out);
}

std::optional<Lin> SystemBuilder::phaseOf(const Instance &in) const {
  auto it = model.phases.of.find(in.op);
  if (it == model.phases.of.end())
    return std::nullopt;
  const MBarrierPhases::Phase &phase = it->second;
  Lin result = Lin::of(phase.base);
  if (!phase.loop)
    return result;
  std::optional<Lin> k = flatIteration(in, phase.loop);
  if (!k)
    return std::nullopt;
  return result + *k;
}

std::optional<Lin> smem::flatIteration(const Instance &in, scf::ForOp loop) {
  auto k = in.iteration.find(loop.getOperation());
  if (k == in.iteration.end())
    return std::nullopt;
  scf::ForOp outer = mbarrier::outerLoop(loop);
  if (!outer)
    return k->second;
  auto q = in.iteration.find(outer.getOperation());
  std::optional<int64_t> trips = mbarrier::constantTripCount(loop);
  if (q == in.iteration.end() || !trips)
    return std::nullopt;
  return k->second + q->second * *trips;
}
