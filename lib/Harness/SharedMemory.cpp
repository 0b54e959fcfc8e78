//===- SharedMemory.cpp - Races and async-copy ordering on shared memory --===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Every question is asked as a Presburger system (upstream
// `presburger::IntegerPolyhedron`) whose emptiness proves the kernel safe:
//
//  - An access is a byte interval [addr, addr + width) of its root allocation
//    (dynamic shared memory, a workgroup attribution, a workgroup alloc or
//    global). Index arithmetic is translated exactly where it is affine or
//    quasi-affine (+, -, * and / and % by constants, shifts, masks, xor of
//    small values through their bits); anything else is an unknown bounded by
//    IntegerRangeAnalysis, shared by the two threads when the uniformity
//    analysis says it is the same for every thread.
//  - An op instance is an op and the iteration k of every scf.for around it.
//    The number of barriers, and of async-group commits, a thread has passed
//    before an instance is affine in the k's and the trip counts: barriers
//    and commits must run a known number of times per loop iteration.
//  - AMK-SMEM-RACE: two instances, threads t1 != t2, at least one a plain
//    write, the same barrier count (no barrier between them), overlapping
//    bytes.
//  - AMK-ASYNC-UNWAITED: an async copy's bytes are in flight from the copy
//    until a `wait_group N` retires its group (the copy is in group c, the
//    number of commits before it; `wait_group N` after C commits retires the
//    groups below C - N), and for other threads until a barrier follows that
//    wait. An access to them by the same thread before the wait, or by another
//    thread before the barrier after it, is reported. The wait and barrier
//    taken are the latest ones before the access (earlier ones retire less),
//    found per structured path: the same block, the previous loop iteration,
//    or before the loop.
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"

#include "SharedMemoryModel.h"

#include "AMK/Analysis/Address.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::smem;

bool Checker::check(const Unit &a, const Unit &b) {
  Hit hit;
  bool sameUnit = a.access == b.access && a.group == b.group;
  if (a.access->access.tma) {
    // The same load instance by its own thread is no conflict; another
    // instance of it is asked like any access.
    if (!ask(Question::TmaUnwaited, a, b, hit))
      return false;
    reported.insert(hit.b);
    const MemoryAccess &other = b.access->access;
    bool plainWrite = other.write && !other.async;
    report(check::kAsyncUnwaited, hit.b,
           llvm::formatv("{0} touches shared memory that the TMA load ({1}) "
                         "may still be writing: it runs neither after its "
                         "thread's wait for the mbarrier phase the load "
                         "completes in nor before a barrier the load is "
                         "issued after{2} ({3})",
                         describeOp(hit.b), describeOp(hit.a),
                         plainWrite ? " with fence.proxy.async between the "
                                      "write and that barrier (the box is "
                                      "the async proxy's)"
                                    : "",
                         hit.witness));
    return true;
  }
  if (a.access->access.wgmma && b.access->access.write &&
      !b.access->access.async && ask(Question::CrossProxy, a, b, hit)) {
    reported.insert(hit.b);
    report(check::kAsyncUnwaited, hit.b,
           llvm::formatv("{0} writes shared memory that a wgmma ({1}) reads "
                         "through the async proxy, with no fence.proxy.async "
                         "after it before the next barrier: the wgmma may "
                         "read the bytes from before the write ({2})",
                         describeOp(hit.b), describeOp(hit.a), hit.witness));
    return true;
  }
  if (a.access->access.async) {
    // The relaxed screen first; then which thread it is.
    bool screened = sameUnit || ask(Question::AsyncAnyThread, a, b, hit);
    Question q = Question::AsyncOtherThread;
    bool found = screened && ask(q, a, b, hit);
    if (screened && !found && !unprovable && !sameUnit) {
      q = Question::AsyncSameThread;
      found = ask(q, a, b, hit);
    }
    if (!found)
      return false;
    reported.insert(hit.b);
    bool wgmma = a.access->access.wgmma;
    StringRef what = wgmma ? "overwrites shared memory that the wgmma"
                           : "touches shared memory that the async copy";
    StringRef doing = wgmma ? "reading" : "writing";
    StringRef wait = wgmma ? "wgmma wait" : "wait_group";
    StringRef owner = wgmma ? "wgmma" : "copy";
    std::string why =
        q == Question::AsyncSameThread
            ? llvm::formatv("no {0} retires the {1}'s group first", wait, owner)
                  .str()
            : llvm::formatv("no barrier after a {0} that retires the {1}'s "
                            "group orders it",
                            wait, owner)
                  .str();
    report(check::kAsyncUnwaited, hit.b,
           llvm::formatv("{0} {1} ({2}) may still be {3}: {4} ({5})",
                         describeOp(hit.b), what, describeOp(hit.a), doing, why,
                         hit.witness));
    return true;
  }
  if (!ask(Question::Race, a, b, hit))
    return false;
  reported.insert(hit.b);
  report(check::kSmemRace, hit.b,
         llvm::formatv("{0} races with the {1}: no barrier between them "
                       "({2}, {3})",
                       describeOp(hit.b),
                       hit.a == hit.b ? "same access in another thread"
                                      : describeOp(hit.a),
                       b.access->access.write ? "write-write" : "write-read",
                       hit.witness));
  return true;
}

void Checker::collectAccesses(std::deque<SharedAccess> &accesses) {
  model.kernel->walk([&](Operation *op) {
    FailureOr<SmallVector<MemoryAccess>> list = getMemoryAccesses(op);
    if (failed(list))
      return; // the bounds check reports it.
    for (MemoryAccess &access : *list) {
      auto type = cast<MemRefType>(access.memref.getType());
      if (!isWorkgroupMemRef(type))
        continue;
      accesses.push_back(SharedAccess{access,
                                      elementBytes(type.getElementType()),
                                      unsigned(accesses.size())});
    }
  });
}

bool Checker::groupAccesses(std::deque<SharedAccess> &accesses,
                            GroupMap &groups, std::vector<Unit> &units) {
  // Every address must be modelled; thread-separable ones are grouped, in
  // the order they first appear (the keys hold pointers: ordering by them
  // would make which op of a racing pair is reported vary between runs).
  llvm::DenseMap<Operation *, int64_t> segment;
  // (Threads a named barrier orders are asked in the full system, where
  // each is a variable.)
  bool named = model.named && !model.named->groups().empty();
  for (SharedAccess &a : accesses) {
    FailureOr<Value> root = sharedRoot(a, model);
    if (failed(root)) {
      report(check::kUnprovable, a.access.op,
             "the shared-memory address of this " + a.access.what +
                 " is not modelled (a view chain with dynamic strides or "
                 "offsets, or an unknown allocation)");
      return false;
    }
    // A whole view (a TMA box, a wgmma operand, an accumulator store) is
    // one interval from its base, a warp's fragment one over its rows:
    // asked one by one.
    std::optional<Separated> sep =
        a.access.wholeView || a.access.warpCollective || named
            ? std::nullopt
            : separate(a, model, threads);
    if (!sep) {
      units.push_back(Unit{&a});
      continue;
    }
    // The segment: synchronization ops before it in its block.
    Block *block = a.access.op->getBlock();
    if (!segment.count(a.access.op)) {
      int64_t n = 0;
      for (Operation &op : *block) {
        segment[&op] = n;
        if (llvm::any_of(
                std::initializer_list<Event>{
                    Event::Barrier, Event::Commit, Event::Wait,
                    Event::WgmmaCommit, Event::WgmmaWait, Event::WarpBarrier},
                [&](Event e) { return model.contains(e, &op); }))
          ++n;
      }
    }
    std::string key;
    llvm::raw_string_ostream os(key);
    os << block << '/' << segment[a.access.op] << '/' << a.access.async << '/'
       << a.access.write << '/' << root->getAsOpaquePointer();
    for (auto [v, c] : sep->uniform)
      os << '/' << v.getAsOpaquePointer() << '*' << c;
    Group &g = groups[key];
    if (!g.representative) {
      g.representative = &a;
      g.uniform = sep->uniform;
      g.guards = sep->guards;
    }
    int32_t member = g.members.size();
    g.members.push_back(&a);
    int64_t width = a.access.width * a.elementBytes;
    g.maxWidth = std::max(g.maxWidth, width);
    for (size_t t = 0; t < sep->perThread.size(); ++t)
      if (sep->active[t])
        g.items.push_back(Group::Item{sep->perThread[t] + sep->constant, width,
                                      int32_t(t), member});
  }
  for (auto &[key, g] : groups) {
    llvm::sort(g.items, [](const Group::Item &x, const Group::Item &y) {
      return x.offset < y.offset;
    });
    units.push_back(Unit{g.representative, &g});
  }
  return true;
}

/// Whether `op` may order memory or change a timing count between two
/// members of a span: a synchronization event, a region (a branch or loop
/// holds who knows what), or any op with memory effects that is not itself
/// one of the collected accesses (mbarrier arrives and inits, fences).
static bool ordersAccesses(Operation *op) {
  if (op->getNumRegions() > 0 ||
      isa<nvgpu::MBarrierArriveOp, nvgpu::MBarrierArriveExpectTxOp,
          nvgpu::MBarrierInitOp, NVVM::FenceProxyOp>(op))
    return true;
  for (unsigned e = 0; e < kNumEvents; ++e)
    if (isEvent(Event(e), op))
      return true;
  if (isMemoryEffectFree(op))
    return false;
  FailureOr<SmallVector<MemoryAccess>> list = getMemoryAccesses(op);
  return failed(list) || list->empty();
}

/// Whether `a` may join `span`: the same kind, block, allocation, condition
/// and mbarrier phase, with nothing that orders accesses from the
/// representative up to `a`, both included (a representative that orders
/// accesses, such as a wgmma's commit, never gets a second member).
static bool mayJoin(const ByteSpan &span, const SharedAccess &a,
                    const Model &model) {
  const SharedAccess &r = *span.representative;
  const MemoryAccess &x = r.access, &y = a.access;
  if (x.op->getBlock() != y.op->getBlock() || x.write != y.write ||
      x.async != y.async || x.tma != y.tma || x.wgmma != y.wgmma ||
      x.wholeView != y.wholeView ||
      x.warpgroupCollective != y.warpgroupCollective ||
      x.warpCollective != y.warpCollective || x.masked != y.masked ||
      x.condition != y.condition ||
      *sharedRoot(r, model) != *sharedRoot(a, model))
    return false;
  auto phase = [&](Operation *op) {
    auto it = model.phases.of.find(op);
    return it == model.phases.of.end()
               ? std::nullopt
               : std::optional(
                     std::make_tuple(it->second.barrier,
                                     static_cast<Operation *>(it->second.loop),
                                     it->second.base));
  };
  // (From the representative to the last member was walked as it joined.)
  Operation *last = span.members.back()->access.op;
  if (phase(x.op) != phase(y.op) || !last->isBeforeInBlock(y.op))
    return false;
  for (Operation *op = last;; op = op->getNextNode()) {
    if (ordersAccesses(op))
      return false;
    if (op == y.op)
      return true;
  }
}

void Checker::mergeSpans(std::vector<Unit> &units,
                         std::deque<ByteSpan> &spans) {
  // Each span stays where its representative was (the order of units
  // decides which op of a pair is reported).
  std::vector<Unit> merged;
  llvm::DenseMap<const ByteSpan *, size_t> position;
  llvm::DenseMap<Block *, SmallVector<ByteSpan *>> open;
  for (const Unit &u : units) {
    if (u.group) {
      merged.push_back(u);
      continue;
    }
    const SharedAccess &a = *u.access;
    int64_t width = getSpanElements(a.access) * a.elementBytes;
    SmallVector<ByteSpan *> &candidates = open[a.access.op->getBlock()];
    auto joins = [&](ByteSpan *span) {
      if (!mayJoin(*span, a, model))
        return false;
      // The address difference to the representative, in one instance.
      SystemBuilder builder(model);
      Instance in = builder.instance(span->representative->access.op, 0,
                                     llvm::DenseMap<Operation *, Lin>());
      FailureOr<std::pair<Value, Lin>> base =
          builder.address(*span->representative, in);
      in.op = a.access.op;
      FailureOr<std::pair<Value, Lin>> mine = builder.address(a, in);
      if (failed(base) || failed(mine))
        return false;
      std::optional<int64_t> delta = (mine->second - base->second).asConstant();
      int64_t end;
      if (!delta || llvm::AddOverflow(*delta, width, end))
        return false;
      span->members.push_back(&a);
      span->lo = std::min(span->lo, *delta);
      span->hi = std::max(span->hi, end);
      return true;
    };
    if (llvm::any_of(llvm::reverse(candidates), joins))
      continue;
    spans.push_back(ByteSpan{&a, {&a}, 0, width});
    candidates.push_back(&spans.back());
    position[&spans.back()] = merged.size();
    merged.push_back(u);
  }
  for (const ByteSpan &span : spans)
    if (span.members.size() > 1)
      merged[position[&span]].span = &span;
  units = std::move(merged);
}

/// Whether two roots are the same memory: the same value, dynamic shared
/// memory (every gpu.dynamic_shared_memory is the same bytes), or the same
/// global.
static bool sameAllocation(Value x, Value y) {
  if (x == y)
    return true;
  Operation *a = x.getDefiningOp(), *b = y.getDefiningOp();
  if (isa_and_nonnull<gpu::DynamicSharedMemoryOp>(a) &&
      isa_and_nonnull<gpu::DynamicSharedMemoryOp>(b))
    return true;
  auto ga = dyn_cast_or_null<memref::GetGlobalOp>(a);
  auto gb = dyn_cast_or_null<memref::GetGlobalOp>(b);
  return ga && gb && ga.getName() == gb.getName();
}

void Checker::checkPairs(ArrayRef<Unit> units) {
  // Whether every access of a unit is an atomic update (once per unit).
  std::vector<bool> atomic;
  for (const Unit &u : units) {
    auto isAtomic = [](const SharedAccess *m) {
      return isAtomicAccess(m->access);
    };
    atomic.push_back(u.group  ? llvm::all_of(u.group->members, isAtomic)
                     : u.span ? llvm::all_of(u.span->members, isAtomic)
                              : isAtomic(u.access));
  }
  // Every pair with a write: groups against groups, single accesses one by
  // one (against each member of a group or span).
  auto expand = [](const Unit &u) {
    SmallVector<Unit> out;
    if (u.group)
      for (const SharedAccess *m : u.group->members)
        out.push_back(Unit{m});
    else if (u.span)
      for (const SharedAccess *m : u.span->members)
        out.push_back(Unit{m});
    else
      out.push_back(u);
    return out;
  };
  for (size_t i = 0; i < units.size(); ++i) {
    const Unit &a = units[i];
    if (!a.access->access.write && !a.access->access.wgmma)
      continue;
    for (size_t j = 0; j < units.size(); ++j) {
      const Unit &b = units[j];
      // A wgmma's reads conflict with writes only; distinct allocations
      // never overlap.
      if (a.access->access.wgmma && !b.access->access.write)
        continue;
      if (!sameAllocation(*sharedRoot(*a.access, model),
                          *sharedRoot(*b.access, model)))
        continue;
      // Two atomic updates never race (a shared-memory histogram's bins).
      if (atomic[i] && atomic[j])
        continue;
      // Two plain writes: one order is enough.
      if (!a.access->access.async && b.access->access.write &&
          !b.access->access.async && j < i)
        continue;
      if (!a.access->access.async && b.access->access.async)
        continue; // asked from the copy's side
      if (a.group && b.group) {
        check(a, b);
      } else {
        // Two spans, or a span and an access: screened as wholes first
        // (a span against itself is no screen: each member meets itself).
        bool screen =
            (a.span || b.span) && a.span != b.span && !a.group && !b.group;
        if (screen && disjointFootprints(a, b))
          continue;
        if (screen && !mayConflict(a, b)) {
          if (unprovable)
            return;
          continue;
        }
        for (const Unit &x : expand(a))
          for (const Unit &y : expand(b))
            if (!reported.contains(y.access->access.op) &&
                !disjointFootprints(x, y) && check(x, y))
              break;
      }
      if (unprovable)
        return;
    }
  }
}

std::optional<std::pair<int64_t, int64_t>>
Checker::footprint(const SharedAccess &a) {
  if (auto it = footprints.find(&a); it != footprints.end())
    return it->second;
  std::optional<std::pair<int64_t, int64_t>> bytes;
  SystemBuilder builder(model);
  Instance in =
      builder.instance(a.access.op, 0, llvm::DenseMap<Operation *, Lin>());
  FailureOr<std::pair<Value, Lin>> address = builder.address(a, in);
  if (succeeded(address))
    if (auto range = builder.sys.interval(address->second)) {
      int64_t end;
      if (!llvm::AddOverflow(range->second,
                             getSpanElements(a.access) * a.elementBytes, end))
        bytes = std::make_pair(range->first, end);
    }
  footprints[&a] = bytes;
  return bytes;
}

std::optional<std::pair<int64_t, int64_t>> Checker::footprint(const Unit &u) {
  if (!u.span)
    return footprint(*u.access);
  std::optional<std::pair<int64_t, int64_t>> bytes;
  for (const SharedAccess *m : u.span->members) {
    std::optional<std::pair<int64_t, int64_t>> f = footprint(*m);
    if (!f)
      return std::nullopt;
    bytes = bytes ? std::make_pair(std::min(bytes->first, f->first),
                                   std::max(bytes->second, f->second))
                  : *f;
  }
  return bytes;
}

bool Checker::disjointFootprints(const Unit &a, const Unit &b) {
  std::optional<std::pair<int64_t, int64_t>> fa = footprint(a),
                                             fb = footprint(b);
  return fa && fb && (fa->second <= fb->first || fb->second <= fa->first);
}

bool Checker::mayConflict(const Unit &a, const Unit &b) {
  // The questions check() asks, in their relaxed forms.
  Hit hit;
  if (a.access->access.tma)
    return ask(Question::TmaUnwaited, a, b, hit);
  if (a.access->access.wgmma && b.access->access.write &&
      !b.access->access.async && ask(Question::CrossProxy, a, b, hit))
    return true;
  if (unprovable)
    return false;
  return ask(a.access->access.async ? Question::AsyncAnyThread : Question::Race,
             a, b, hit);
}

void Checker::run() {
  std::deque<SharedAccess> accesses;
  collectAccesses(accesses);
  if (llvm::none_of(accesses,
                    [](const SharedAccess &a) { return a.access.write; }))
    return;
  GroupMap groups;
  std::vector<Unit> units;
  if (!groupAccesses(accesses, groups, units))
    return;
  std::deque<ByteSpan> spans;
  mergeSpans(units, spans);
  checkPairs(units);
}

void mlir::amk::checkSharedMemory(
    Operation *kernel, const UniformityInfo &uniformity,
    const DataFlowSolver &solver, const MBarrierPhases &phases,
    const NamedBarriers &named,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report) {
  Checker(kernel, uniformity, solver, phases, named, report).run();
}
