//===- SharedMemorySolve.cpp - One race-check question as systems ---------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// One question about two accesses (a race, or an access to bytes an async
// copy may still write) is asked per relation of their loop iterations (the
// same iteration of every common loop, or b's earlier or later at one) and,
// for the full system, per order of the two thread ids. Each is a system of
// the two instances, their overlap and the question's timing; accesses that
// split by thread solve only the uniform parts' difference and look the
// threads up in their groups' byte intervals.
//
//===----------------------------------------------------------------------===//

#include "ProgramOrder.h"
#include "SharedMemoryModel.h"

#include "AMK/Analysis/Uniformity.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::smem;

/// "threads 3 and 35, byte 140" (or "thread 3, byte 140").
static std::string witnessText(bool sameThread, StringRef t1, StringRef t2,
                               int64_t byte) {
  if (sameThread)
    return llvm::formatv("thread {0}, byte {1}", t1, byte).str();
  return llvm::formatv("threads {0} and {1}, byte {2}", t1, t2, byte).str();
}

/// A thread of a witness: its linear id when the block size is known, else
/// its (x, y, z).
struct WitnessThread {
  Lin dims[3];

  WitnessThread(SystemBuilder &builder, const Instance &in)
      : dims{builder.threadDim(in, 0), builder.threadDim(in, 1),
             builder.threadDim(in, 2)} {}

  std::string text(const Model &model, ArrayRef<int64_t> point) const {
    int64_t x = System::eval(dims[0], point), y = System::eval(dims[1], point),
            z = System::eval(dims[2], point);
    if (model.blockKnown)
      return std::to_string(x + model.block[0] * (y + model.block[1] * z));
    return llvm::formatv("({0}, {1}, {2})", x, y, z).str();
  }
};

/// The deltas (a's uniform address part minus b's) at which some items
/// can overlap: [min b - max a end, max b end - min a]; empty when no
/// thread runs one of them.
static std::pair<int64_t, int64_t> badDeltas(const Group &a, const Group &b) {
  if (a.items.empty() || b.items.empty())
    return {1, 0};
  int64_t aEnd = INT64_MIN, bEnd = INT64_MIN;
  for (const Group::Item &i : a.items)
    aEnd = std::max(aEnd, i.offset + i.width - 1);
  for (const Group::Item &i : b.items)
    bEnd = std::max(bEnd, i.offset + i.width - 1);
  return {b.items.front().offset - aEnd, bEnd - a.items.front().offset};
}

/// The first two overlapping items of threads t1 != t2, t1 == t2, or any,
/// in `warps`, at a delta of the uniform parts.
static std::optional<std::pair<const Group::Item *, const Group::Item *>>
itemPair(const Group &a, const Group &b, int64_t delta, Threads threads,
         Warps warps = Warps::Any) {
  for (const Group::Item &x : a.items) {
    // b's offset in [x + delta - (b width - 1), x + delta + x width - 1].
    int64_t lo = x.offset + delta - (b.maxWidth - 1),
            hi = x.offset + delta + x.width - 1;
    auto it =
        llvm::lower_bound(b.items, lo, [](const Group::Item &i, int64_t v) {
          return i.offset < v;
        });
    for (; it != b.items.end() && it->offset <= hi; ++it) {
      if (it->offset + it->width - 1 < x.offset + delta)
        continue;
      bool sameWarp = it->thread / 32 == x.thread / 32;
      if ((threads == Threads::Any ||
           (threads == Threads::Same) == (it->thread == x.thread)) &&
          (warps == Warps::Any || (warps == Warps::Same) == sameWarp))
        return std::make_pair(&x, &*it);
    }
  }
  return std::nullopt;
}

/// Whether x and y lie in the two branches of one scf.if whose condition is
/// uniform and which runs once per block (in no loop): every thread of the
/// block takes the same branch, so the two never both run. (Kernels
/// versioned on their sizes have a whole body in each branch.)
static bool inExclusiveBranches(Operation *x, Operation *y,
                                const Model &model) {
  Operation *common = x->getParentOp();
  while (common && common != model.kernel && !common->isAncestor(y))
    common = common->getParentOp();
  auto ifOp = dyn_cast_or_null<scf::IfOp>(common);
  if (!ifOp || model.uniformity.isDivergent(ifOp.getCondition()))
    return false;
  if (ifOp.getThenRegion().isAncestor(x->getParentRegion()) ==
      ifOp.getThenRegion().isAncestor(y->getParentRegion()))
    return false;
  for (Operation *p = ifOp->getParentOp(); p && p != model.kernel;
       p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      return false;
  return true;
}

void Checker::addInstances(Pair &p, const Unit &ua, const Unit &ub,
                           const Relation &relation, bool sameThread) {
  const SharedAccess &a = *ua.access, &b = *ub.access;
  System &sys = p.builder.sys;
  p.ia = p.builder.instance(a.access.op, 0, llvm::DenseMap<Operation *, Lin>());
  // The loops around both: the same iteration (relation 0), or b's earlier
  // (-1) or later (+1) at the outermost loop where they differ.
  llvm::DenseMap<Operation *, Lin> fixed;
  for (auto [loop, rel] : relation)
    if (rel == 0)
      fixed[loop] = p.ia.iteration.lookup(loop);
  p.ib = p.builder.instance(b.access.op, sameThread ? 0 : 1, fixed);
  for (auto [loop, rel] : relation) {
    Lin ka = p.ia.iteration.lookup(loop), kb = p.ib.iteration.lookup(loop);
    if (rel < 0)
      sys.ge0(ka - kb - 1);
    else if (rel > 0)
      sys.ge0(kb - ka - 1);
  }
}

bool Checker::addOverlap(Pair &p, const Unit &ua, const Unit &ub,
                         Threads threadsOf, unsigned order) {
  const SharedAccess &a = *ua.access, &b = *ub.access;
  const Group *groupA = ua.group, *groupB = ub.group;
  SystemBuilder &builder = p.builder;
  System &sys = builder.sys;
  // A fragment's rows as one interval (a sound cover of the gaps between).
  int64_t wa = getSpanElements(a.access) * a.elementBytes,
          wb = getSpanElements(b.access) * b.elementBytes;
  // The overlap, as constraints (full system) or as delta = the uniform
  // part of a's address minus b's (thread-separated).
  if (groupA && groupB) {
    Lin uA = Lin::of(0), uB = Lin::of(0);
    for (auto [v, c] : groupA->uniform)
      uA = uA + builder.expr(v, p.ia) * c;
    for (auto [v, c] : groupB->uniform)
      uB = uB + builder.expr(v, p.ib) * c;
    for (auto [cond, truth] : groupA->guards)
      builder.condition(cond, truth, p.ia);
    for (auto [cond, truth] : groupB->guards)
      builder.condition(cond, truth, p.ib);
    p.delta = uA - uB;
    p.addrA = uA;
    p.addrB = uB;
    // Cheap first: a delta no items can meet, whatever the timing.
    if (std::optional<int64_t> d = p.delta.asConstant()) {
      if (!itemPair(*groupA, *groupB, *d, threadsOf))
        return false;
    } else if (auto range = sys.interval(p.delta)) {
      auto [lo, hi] = badDeltas(*groupA, *groupB);
      if (range->second < lo || range->first > hi)
        return false;
    }
    return true;
  }
  builder.addGuards(p.ia);
  builder.addGuards(p.ib);
  if (threadsOf == Threads::Distinct) {
    // The same instance of a warpgroup's (a warp's) collective access:
    // only another warpgroup's (warp's) threads are another access. (Warps
    // are runs of 32 linear ids: with the block size unknown, every thread
    // counts as its own.)
    bool same = a.access.op == b.access.op && p.sameIterations;
    Lin ta = builder.threadId(p.ia), tb = builder.threadId(p.ib);
    if (same && a.access.warpgroupCollective) {
      ta = builder.warpgroupOf(p.ia);
      tb = builder.warpgroupOf(p.ib);
    } else if (same && a.access.warpCollective && model.blockKnown) {
      ta = builder.warpOf(p.ia);
      tb = builder.warpOf(p.ib);
    }
    sys.ge0(order == 0 ? tb - ta - 1 : ta - tb - 1);
  }
  p.addrA = builder.address(a, p.ia)->second;
  p.addrB = builder.address(b, p.ib)->second;
  // A span: the union of its members' bytes.
  if (ua.span) {
    p.addrA = p.addrA + ua.span->lo;
    wa = ua.span->hi - ua.span->lo;
  }
  if (ub.span) {
    p.addrB = p.addrB + ub.span->lo;
    wb = ub.span->hi - ub.span->lo;
  }
  // Intervals first: most pairs touch disjoint slices.
  auto ra = sys.interval(p.addrA), rb = sys.interval(p.addrB);
  if (ra && rb &&
      (ra->second + wa <= rb->first || rb->second + wb <= ra->first))
    return false;
  // Then exactly: a fragment touches one of its rows, each a row wide.
  auto row = [&](const SharedAccess &x, Lin &addr, int64_t &width) {
    if (x.access.rows == 1)
      return;
    Lin r = Lin::var(sys.var(0, x.access.rows - 1));
    addr = addr + r * (x.access.rowStride * x.elementBytes);
    width = x.access.width * x.elementBytes;
  };
  if (!ua.span)
    row(a, p.addrA, wa);
  if (!ub.span)
    row(b, p.addrB, wb);
  sys.ge0(p.addrA + (wa - 1) - p.addrB);
  sys.ge0(p.addrB + (wb - 1) - p.addrA);
  return true;
}

std::optional<Lin> Checker::countEvents(SystemBuilder &builder, Event kind,
                                        const Instance &in) {
  std::optional<Lin> c = builder.count(kind, in.op, in);
  if (!c && !unprovable) {
    unprovable = true;
    report(check::kUnprovable, in.op,
           "cannot order shared-memory accesses: " + builder.whyNot);
  }
  return c;
}

/// Whether `op`'s thread runs a proxy fence for the async proxy's shared
/// memory (`fence.proxy.async[.shared::cta]`) after it and before the next
/// barrier, in its block or, past the end of an scf.if, after it.
static bool fencedForAsyncProxy(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp()) {
    for (Operation *next = cur->getNextNode(); next;
         next = next->getNextNode()) {
      if (auto fence = dyn_cast<NVVM::FenceProxyOp>(next))
        if (fence.getKind() == NVVM::ProxyKind::async ||
            fence.getKind() == NVVM::ProxyKind::async_shared)
          return true;
      if (next->walk([](Operation *x) {
                return isEvent(Event::Barrier, x) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
              })
              .wasInterrupted())
        return false;
    }
    if (!isa_and_nonnull<scf::IfOp>(cur->getParentOp()))
      return false;
  }
  return false;
}

/// Whether a barrier orders `b` against the async proxy's accesses: always,
/// unless b is a plain write with no proxy fence before the next barrier.
static bool barrierOrdersForAsyncProxy(const SharedAccess &b) {
  return !b.access.write || b.access.async || fencedForAsyncProxy(b.access.op);
}

/// `s` under the conditions of a latest-event path.
static System withConditions(System s, const Latest &l) {
  for (const Lin &e : l.atLeastZero)
    s.ge0(e);
  for (const Lin &e : l.equalZero)
    s.eq0(e);
  return s;
}

std::optional<Checker::MBarrierOrder>
Checker::mbarrierOrder(const SharedAccess &x, const SharedAccess &y) {
  const MBarrierPhases &phases = model.phases;
  if (phases.nodes.empty())
    return std::nullopt;
  auto [cached, inserted] =
      orders.try_emplace({x.access.op, y.access.op}, std::nullopt);
  if (!inserted)
    return cached->second;
  // A plain write before the async proxy's write needs a proxy fence,
  // which the mbarriers do not give.
  if (x.access.write && !x.access.async && y.access.tma)
    return std::nullopt;
  using Node = MBarrierPhases::Node;
  auto nodeOf = [&](Operation *op) -> const Node * {
    auto it = phases.nodes.find(op);
    return it == phases.nodes.end() ? nullptr : &it->second;
  };
  // Where x is released: its TMA bytes, or its thread's arrives after it in
  // its block (an async access once retired: a wait for all but N groups
  // with N groups committed after x's; a wgmma commits, then waits). In a
  // loop body, the search goes on into the next iteration, up to x: an
  // arrive there releases x's instance one iteration later.
  SmallVector<std::pair<Operation *, int64_t>> sources;
  if (x.access.tma) {
    if (nodeOf(x.access.op))
      sources.push_back({x.access.op, 0});
  } else {
    bool retired = !x.access.async;
    std::pair<Event, Event> kinds =
        x.access.async ? groupEvents(x.access)
                       : std::make_pair(Event::Commit, Event::Wait);
    Event commitKind = kinds.first, waitKind = kinds.second;
    int64_t committed = 0;
    auto visit = [&](Operation *op, int64_t shift) {
      committed += isEvent(commitKind, op);
      if (!retired && isEvent(waitKind, op) && waitGroups(op) <= committed)
        retired = true;
      const Node *n = nodeOf(op);
      if (retired && n && n->kind == Node::Arrive)
        sources.push_back({op, shift});
    };
    for (Operation *op = x.access.op->getNextNode(); op; op = op->getNextNode())
      visit(op, 0);
    Block *body = x.access.op->getBlock();
    if (isa<scf::ForOp>(body->getParentOp()))
      for (Operation &op : *body) {
        if (&op == x.access.op)
          break;
        visit(&op, 1);
      }
  }
  // Where y acquires: its thread's waits before it in its block.
  SmallVector<Operation *> targets;
  for (Operation *op = y.access.op->getPrevNode(); op; op = op->getPrevNode())
    if (const Node *n = nodeOf(op); n && n->kind == Node::Wait)
      targets.push_back(op);
  std::optional<MBarrierOrder> best;
  for (auto [s, shift] : sources)
    for (Operation *t : targets)
      if (std::optional<int64_t> d = phases.minOffset(s, t);
          d && (!best || *d + shift < best->offset))
        best = MBarrierOrder{*d + shift, nodeOf(s)->loop, nodeOf(t)->loop};
  orders[{x.access.op, y.access.op}] = best;
  return best;
}

void Checker::addMBarrierOrder(Pair &p, const SharedAccess &b) {
  // Neither instance follows the other through the mbarriers: with x's
  // iteration kx released to y's kx + d, y runs in an earlier one.
  auto unordered = [&](const SharedAccess &x, const Instance &ix,
                       const SharedAccess &y, const Instance &iy) {
    std::optional<MBarrierOrder> order = mbarrierOrder(x, y);
    if (!order)
      return;
    std::optional<Lin> kx = flatIteration(ix, order->loopX),
                       ky = flatIteration(iy, order->loopY);
    if (!kx || !ky)
      return;
    p.builder.sys.ge0(*kx + (order->offset - 1) - *ky);
  };
  unordered(*p.accessA, p.ia, b, p.ib);
  unordered(b, p.ib, *p.accessA, p.ia);
}

std::optional<std::vector<System>> Checker::timingCases(Question q, Pair &p,
                                                        const SharedAccess &b) {
  SystemBuilder &builder = p.builder;
  System &sys = builder.sys;
  const Instance &ia = p.ia, &ib = p.ib;
  auto counts = [&](Event kind, const Instance &in) {
    return countEvents(builder, kind, in);
  };
  std::optional<Lin> barA = counts(Event::Barrier, ia),
                     barB = counts(Event::Barrier, ib);
  if (!barA || !barB)
    return std::nullopt;

  // What the mbarriers order is ordered for every question but the
  // proxies'.
  if (q != Question::CrossProxy)
    addMBarrierOrder(p, b);

  std::vector<System> cases;
  if (q == Question::Race) {
    sys.eq0(*barA - *barB);
    // Thread-separated, the threads are concrete: another warp's pair, or
    // one warp's as far through its barriers.
    if (p.separated) {
      if (std::optional<std::pair<Lin, Lin>> c =
              builder.countWarpBarriers(ia, ib)) {
        cases.push_back(sys);
        sys.eq0(c->first - c->second);
        cases.push_back(sys);
        p.warps = {Warps::Different, Warps::Same};
        return cases;
      }
    }
    builder.addNamedBarrierSplit(ia, ib, /*warps=*/!p.separated);
    cases.push_back(sys);
    for (const auto &split : builder.orderSplits) {
      std::vector<System> each;
      for (const System &c : cases)
        for (const Alternative &alternative : split) {
          System s = c;
          for (const SystemBuilder::Constraint &x : alternative)
            x.equality ? s.eq0(x.form) : s.ge0(x.form);
          each.push_back(std::move(s));
        }
      cases = std::move(each);
    }
    return cases;
  }
  if (q == Question::TmaUnwaited)
    return tmaTimingCases(p, b, *barA, *barB);
  if (q == Question::CrossProxy) {
    if (barrierOrdersForAsyncProxy(b))
      return cases;
    // Only a write in the wgmma's barrier interval or before can be what it
    // reads; a later one is the wgmma wait's question.
    sys.ge0(*barA - *barB);
    cases.push_back(sys);
    return cases;
  }
  std::pair<Event, Event> events = groupEvents(p.accessA->access);
  Event commit = events.first, waitKind = events.second;
  std::optional<Lin> comA = counts(commit, ia);
  if (!comA)
    return std::nullopt;
  sys.ge0(*barB - *barA);
  auto notRetired = [&](System &s, const Latest &wait) -> bool {
    if (!wait.op)
      return true;
    std::optional<Lin> comW = counts(commit, wait.instance);
    if (!comW)
      return false;
    // A wait that commits too (nvgpu.warpgroup.mma) does so first.
    if (isEvent(commit, wait.op))
      *comW = *comW + 1;
    // Retired iff c(a) + N + 1 <= c(wait).
    s.ge0(*comA + waitGroups(wait.op) - *comW);
    return true;
  };
  if (q == Question::AsyncSameThread) {
    std::optional<Lin> comB = counts(commit, ib);
    if (!comB)
      return std::nullopt;
    sys.ge0(*comB - *comA);
    std::vector<Latest> waits;
    builder.latest(waitKind, ib.op, ib, waits);
    for (const Latest &w : waits) {
      System s = withConditions(sys, w);
      if (notRetired(s, w))
        cases.push_back(s);
    }
    return withoutPhaseWaited(p, b, std::move(cases));
  }
  std::vector<Latest> barriers;
  builder.latest(Event::Barrier, ib.op, ib, barriers);
  for (const Latest &bar : barriers) {
    System s = withConditions(sys, bar);
    if (!bar.op) {
      cases.push_back(s);
      continue;
    }
    std::vector<Latest> waits;
    builder.latest(waitKind, bar.op, bar.instance, waits);
    for (const Latest &w : waits) {
      System s2 = withConditions(s, w);
      if (notRetired(s2, w))
        cases.push_back(s2);
    }
  }
  return withoutPhaseWaited(p, b, std::move(cases));
}

std::vector<System> Checker::withoutPhaseWaited(Pair &p, const SharedAccess &b,
                                                std::vector<System> cases) {
  // b a TMA load: a's thread that waited for b's phase before a saw the box
  // land before a began.
  if (!b.access.tma)
    return cases;
  std::optional<Lin> phase = p.builder.phaseOf(p.ib);
  if (!phase)
    return cases; // the TMA question reports it
  return notWaitedFor(p, p.ib, *phase, p.ia, cases);
}

std::vector<System> Checker::notWaitedFor(Pair &p, const Instance &load,
                                          const Lin &phase,
                                          const Instance &waiter,
                                          ArrayRef<System> cases) {
  SystemBuilder &builder = p.builder;
  std::vector<Latest> waits;
  builder.latestWait(model.phases.of.lookup(load.op).barrier, waiter.op, waiter,
                     waits);
  std::vector<System> out;
  for (const System &c : cases)
    for (const Latest &w : waits) {
      System s = withConditions(c, w);
      if (w.op) {
        std::optional<Lin> waited = builder.phaseOf(w.instance);
        if (!waited)
          continue; // only proved waits are events
        s.ge0(phase - *waited - 1);
      }
      out.push_back(s);
    }
  return out;
}

std::optional<std::vector<System>>
Checker::tmaTimingCases(Pair &p, const SharedAccess &b, const Lin &barA,
                        const Lin &barB) {
  SystemBuilder &builder = p.builder;
  System &sys = builder.sys;
  std::optional<Lin> phase = builder.phaseOf(p.ia);
  if (!phase) {
    if (!unprovable && !model.phases.reported.contains(p.ia.op))
      report(check::kUnprovable, p.ia.op,
             "cannot order the shared memory this TMA load writes: the "
             "mbarrier check did not prove the phase it completes in");
    unprovable = true;
    return std::nullopt;
  }
  // Not issued after b by a barrier between them (a barrier orders a
  // plain write before the async proxy's write only with a proxy fence
  // between the two in the writing thread) ...
  if (barrierOrdersForAsyncProxy(b))
    sys.ge0(barB - barA);
  // ... and b's thread has not waited for the load's phase: its latest
  // proved wait on the barrier (none, or one for an earlier phase).
  return notWaitedFor(p, p.ia, *phase, p.ib, {sys});
}

bool Checker::solveSeparated(const Pair &p, const Group &groupA,
                             const Group &groupB, Threads threadsOf,
                             std::vector<System> &cases, Hit &hit) {
  const Lin &delta = p.delta;
  // Thread differences b[t2] - a[t1] that can overlap lie in
  // [min b - max a, max b - min a]; delta must be within (wa, wb) of
  // one. Enumerate delta's feasible values there, each with one solve.
  auto [badLo, badHi] = badDeltas(groupA, groupB);
  if (badLo > badHi)
    return false; // no thread runs one of them
  auto found = [&](const SmallVector<int64_t> &point, int64_t d, Warps warps) {
    auto pair = itemPair(groupA, groupB, d, threadsOf, warps);
    if (!pair)
      return false;
    auto [x, y] = *pair;
    hit.a = groupA.members[x->member]->access.op;
    hit.b = groupB.members[y->member]->access.op;
    int64_t byte = std::max(System::eval(p.addrA, point) + x->offset,
                            System::eval(p.addrB, point) + y->offset);
    hit.witness =
        witnessText(threadsOf == Threads::Same, std::to_string(x->thread),
                    std::to_string(y->thread), byte);
    return true;
  };
  for (auto [i, c] : llvm::enumerate(cases)) {
    Warps warps = p.warps.empty() ? Warps::Any : p.warps[i];
    // A constant delta: the threads decide, the system only whether
    // the instances exist.
    if (std::optional<int64_t> d = delta.asConstant()) {
      if (!itemPair(groupA, groupB, *d, threadsOf, warps))
        continue;
      if (std::optional<SmallVector<int64_t>> point = c.sample())
        if (found(*point, *d, warps))
          return true;
      continue;
    }
    unsigned solves = 0;
    // Depth-first over [lo, hi]: a sample, then both sides of it.
    SmallVector<std::pair<int64_t, int64_t>> ranges{{badLo, badHi}};
    while (!ranges.empty()) {
      auto [lo, hi] = ranges.pop_back_val();
      if (lo > hi)
        continue;
      if (++solves > 256) {
        // Too many values: ask whether any is feasible at all.
        System any = c;
        any.ge0(delta - lo);
        any.ge0(Lin::of(hi) - delta);
        if (!any.isEmpty()) {
          hit.witness = "many address offsets";
          return true;
        }
        continue;
      }
      System s = c;
      s.ge0(delta - lo);
      s.ge0(Lin::of(hi) - delta);
      std::optional<SmallVector<int64_t>> point = s.sample();
      if (!point)
        continue;
      int64_t d = System::eval(delta, *point);
      if (found(*point, d, warps))
        return true;
      ranges.push_back({lo, d - 1});
      ranges.push_back({d + 1, hi});
    }
  }
  return false;
}

/// Xor is a bijection for a fixed y: for the same xor in the two threads,
/// either the y's differ, or x1 = x2 and r1 = r2, or x1 != x2 and r1 != r2.
/// Splits every case by those alternatives.
static void splitXors(const SystemBuilder &builder,
                      std::vector<System> &cases) {
  for (const SystemBuilder::XorTerm &x1 : builder.xors) {
    for (const SystemBuilder::XorTerm &x2 : builder.xors) {
      if (x1.value != x2.value || x1.thread >= x2.thread || cases.size() > 64)
        continue;
      std::vector<System> split;
      for (const System &c : cases) {
        System lt = c, gt = c;
        lt.ge0(x2.y - x1.y - 1);
        gt.ge0(x1.y - x2.y - 1);
        split.push_back(lt);
        split.push_back(gt);
        System same = c;
        same.eq0(x1.y - x2.y);
        System equal = same;
        equal.eq0(x1.x - x2.x);
        equal.eq0(x1.r - x2.r);
        split.push_back(equal);
        for (int dx : {-1, 1})
          for (int dr : {-1, 1}) {
            System differ = same;
            differ.ge0((x2.x - x1.x) * dx - 1);
            differ.ge0((x2.r - x1.r) * dr - 1);
            split.push_back(differ);
          }
      }
      cases = std::move(split);
    }
  }
}

const Checker::InLine &Checker::inLineOf(Operation *op) {
  if (auto it = inLine.find(op); it != inLine.end())
    return it->second;
  InLine facts;
  for (Operation &x : *op->getBlock()) {
    inLine[&x] = facts;
    if (isBlockBarrier(&x))
      ++facts.barriers;
    auto wait = model.phases.of.find(&x);
    if (isa<nvgpu::MBarrierTryWaitParityOp>(x) &&
        wait != model.phases.of.end() && !wait->second.loop) {
      int64_t &latest = facts.waited[wait->second.barrier];
      latest = std::max(latest, wait->second.base);
    }
  }
  return inLine[op];
}

bool Checker::tmaOrderedInLine(const SharedAccess &load,
                               const SharedAccess &b) {
  const MBarrierPhases &phases = model.phases;
  auto phase = phases.of.find(load.access.op);
  if (phase == phases.of.end() || phase->second.loop ||
      !enclosingLoops(load.access.op, model.kernel).empty() ||
      !enclosingLoops(b.access.op, model.kernel).empty())
    return false;
  // A wait before b, in its block or one around it.
  for (Operation *at = b.access.op; at && at != model.kernel;
       at = at->getParentOp()) {
    const InLine &facts = inLineOf(at);
    auto waited = facts.waited.find(phase->second.barrier);
    if (waited != facts.waited.end() && waited->second >= phase->second.base)
      return true;
  }
  // A barrier after b and before the load (barrierBetween, from the
  // blocks' counts): in a block on the way down to the load before its
  // ancestor there, or in their common block between the two.
  if (!barrierOrdersForAsyncProxy(b))
    return false;
  auto [common, fromB, toLoad] =
      getCommonBlock(b.access.op, load.access.op, model.kernel);
  if (!common || fromB == toLoad || !fromB->isBeforeInBlock(toLoad))
    return false;
  for (Operation *at = load.access.op; at != toLoad; at = at->getParentOp())
    if (inLineOf(at).barriers > 0)
      return true;
  // (Counts, not references: a lookup may grow the map.)
  int64_t atLoad = inLineOf(toLoad).barriers;
  int64_t afterB = inLineOf(fromB).barriers + (isBlockBarrier(fromB) ? 1 : 0);
  return atLoad > afterB;
}

bool Checker::solve(Question q, const Unit &ua, const Unit &ub,
                    const Relation &relation, Hit &hit) {
  const SharedAccess &a = *ua.access, &b = *ub.access;
  if (inExclusiveBranches(a.access.op, b.access.op, model))
    return false;
  if (q == Question::TmaUnwaited && a.access.op != b.access.op &&
      tmaOrderedInLine(a, b))
    return false;
  hit.a = a.access.op;
  hit.b = b.access.op;
  bool sameThread = q == Question::AsyncSameThread;
  // The same iteration of every loop around a and b (for one op: the same
  // instance in two threads).
  bool sameIterations =
      llvm::all_of(relation, [](auto r) { return r.second == 0; }) &&
      relation.size() == enclosingLoops(a.access.op, model.kernel).size();
  // A TMA load against its own instance: only another thread's is a
  // second write.
  bool ownInstance = q == Question::TmaUnwaited && a.access.op == b.access.op &&
                     sameIterations;
  Threads threadsOf =
      sameThread ? Threads::Same
      : (q == Question::AsyncAnyThread || q == Question::TmaUnwaited ||
         q == Question::CrossProxy) &&
              !ownInstance
          ? Threads::Any
          : Threads::Distinct;
  const Group *groupA = ua.group, *groupB = ub.group;
  bool fast = groupA && groupB;
  // The systems to ask, per thread order (the full system only).
  for (unsigned order = 0;
       order < (fast || threadsOf != Threads::Distinct ? 1u : 2u); ++order) {
    Pair p(model);
    p.accessA = &a;
    p.sameIterations = sameIterations;
    p.separated = fast;
    addInstances(p, ua, ub, relation, sameThread);
    if (!addOverlap(p, ua, ub, threadsOf, order))
      continue;
    // The witness's threads, before the cases copy the system: a thread
    // dimension made later would be a variable the cases lack.
    WitnessThread threadA(p.builder, p.ia), threadB(p.builder, p.ib);
    std::optional<std::vector<System>> cases = timingCases(q, p, b);
    if (!cases)
      return false;
    if (fast) {
      if (solveSeparated(p, *groupA, *groupB, threadsOf, *cases, hit))
        return true;
      continue;
    }
    splitXors(p.builder, *cases);
    for (System &s : *cases) {
      std::optional<SmallVector<int64_t>> sample = s.sample();
      if (!sample)
        continue;
      int64_t byte = std::max(System::eval(p.addrA, *sample),
                              System::eval(p.addrB, *sample));
      hit.witness = witnessText(sameThread, threadA.text(model, *sample),
                                threadB.text(model, *sample), byte);
      return true;
    }
  }
  return false;
}

bool Checker::ask(Question q, const Unit &ua, const Unit &ub, Hit &hit) {
  const SharedAccess &a = *ua.access, &b = *ub.access;
  // Partition the iterations of the loops around both: the same iteration of
  // every loop, or the same down to one loop where b's is earlier or later.
  SmallVector<scf::ForOp> la = enclosingLoops(a.access.op, model.kernel),
                          lb = enclosingLoops(b.access.op, model.kernel);
  SmallVector<scf::ForOp> common;
  for (auto [x, y] : llvm::zip(la, lb)) {
    if (x != y)
      break;
    common.push_back(x);
  }
  for (int split = -1; split < int(common.size()); ++split) {
    for (int dir : {-1, 1}) {
      if (split < 0 && dir > 0)
        continue;
      Relation relation;
      for (auto [i, loop] : llvm::enumerate(common)) {
        if (split >= 0 && int(i) > split)
          break;
        relation[loop] = int(i) == split ? dir : 0;
      }
      // The very same instance of one op in one thread is no conflict.
      if (q == Question::AsyncSameThread && split < 0 && ua.group == ub.group &&
          a.access.op == b.access.op)
        continue;
      if (solve(q, ua, ub, relation, hit))
        return true;
      if (unprovable)
        return false;
    }
  }
  return false;
}
