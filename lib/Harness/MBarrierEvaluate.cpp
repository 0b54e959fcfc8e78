//===- MBarrierEvaluate.cpp - Threads and parities of mbarrier ops --------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// What the mbarrier check evaluates: how many threads pass a thread guard,
// how many threads run an op each time its (uniform) loop runs, and the
// parity a wait expects as (a k + b) mod 2 over the iteration k. In a loop
// of R constant trips inside another (outerLoop), k = R q + r counts on
// across the outer loop's iterations q: a phase bit flipped every inner
// iteration is carried through both loops.
//
//===----------------------------------------------------------------------===//

#include "MBarrierChecker.h"

#include "AMK/Analysis/Uniformity.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::mbarrier;

namespace {
/// The threads a guard lets through, along x: [lo, hi), and with
/// `onePerWarp` only the lane elect.sync picks in each warp.
struct GuardedThreads {
  int64_t lo, hi;
  bool onePerWarp = false;
};
} // namespace

/// The threads of a block with `threads` along x that pass `cond` (true),
/// for conjunctions of `thread_id x` (or its warp, `thread_id x / 32`, or
/// warpgroup, `/ 128`) compared with a constant and `nvvm.elect.sync`.
static std::optional<GuardedThreads> guarded(Value cond, int64_t threads,
                                             int depth = 0) {
  if (depth > 8)
    return std::nullopt;
  if (cond.getDefiningOp<NVVM::ElectSyncOp>())
    return GuardedThreads{0, threads, true};
  if (auto andOp = cond.getDefiningOp<arith::AndIOp>()) {
    auto a = guarded(andOp.getLhs(), threads, depth + 1);
    auto b = guarded(andOp.getRhs(), threads, depth + 1);
    if (!a || !b)
      return std::nullopt;
    return GuardedThreads{std::max(a->lo, b->lo), std::min(a->hi, b->hi),
                          a->onePerWarp || b->onePerWarp};
  }
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  std::optional<int64_t> c =
      cmp ? getConstantIntValue(cmp.getRhs()) : std::nullopt;
  if (!cmp || !c || *c < 0)
    return std::nullopt;
  // thread_id x, or its warp (thread_id x / 32) or warpgroup (/ 128).
  Value lhs = cmp.getLhs();
  int64_t unit = 1;
  if (auto div = lhs.getDefiningOp<arith::DivUIOp>()) {
    std::optional<int64_t> d = getConstantIntValue(div.getRhs());
    if (!d || (*d != 32 && *d != 128))
      return std::nullopt;
    unit = *d;
    lhs = div.getLhs();
  }
  auto tid = lhs.getDefiningOp<gpu::ThreadIdOp>();
  if (!tid || tid.getDimension() != gpu::Dimension::x)
    return std::nullopt;
  int64_t lo = 0, hi = threads;
  using P = arith::CmpIPredicate;
  switch (cmp.getPredicate()) {
  case P::eq:
    lo = *c * unit, hi = (*c + 1) * unit;
    break;
  case P::ult:
  case P::slt:
    hi = *c * unit;
    break;
  case P::ule:
  case P::sle:
    hi = (*c + 1) * unit;
    break;
  case P::uge:
  case P::sge:
    lo = *c * unit;
    break;
  case P::ugt:
  case P::sgt:
    lo = (*c + 1) * unit;
    break;
  default:
    return std::nullopt;
  }
  return GuardedThreads{std::min(lo, threads), std::min(hi, threads)};
}

std::optional<ThreadRange>
mlir::amk::getThreadGuardRange(Value cond, bool truth, int64_t threads) {
  std::optional<GuardedThreads> g = guarded(cond, threads);
  if (!g)
    return std::nullopt;
  ThreadRange r{g->lo, std::max(g->lo, g->hi), g->onePerWarp};
  if (truth)
    return r;
  // The else branch: the rest of the block, when that is one range.
  if (r.onePerWarp)
    return std::nullopt;
  if (r.lo == r.hi)
    return ThreadRange{0, threads};
  if (r.lo == 0)
    return ThreadRange{r.hi, threads};
  if (r.hi == threads)
    return ThreadRange{0, r.lo};
  return std::nullopt;
}

std::optional<ThreadRange> MBarrierChecker::guardRange(Value cond,
                                                       bool truth) const {
  if (block[0] <= 0 || block[1] != 1 || block[2] != 1)
    return std::nullopt;
  return getThreadGuardRange(cond, truth, block[0]);
}

std::optional<int64_t> MBarrierChecker::countOf(ThreadRange r) const {
  if (r.hi <= r.lo)
    return 0;
  if (!r.onePerWarp)
    return r.hi - r.lo;
  // elect.sync ran in every lane of each warp (it is outside the guard it
  // combines with): the lane it picks passes only where whole warps do.
  if (r.lo % 32 != 0 || (r.hi % 32 != 0 && r.hi != block[0]))
    return std::nullopt;
  return llvm::divideCeil(r.hi - r.lo, 32);
}

std::optional<int64_t> MBarrierChecker::guardThreads(Value cond,
                                                     bool truth) const {
  std::optional<ThreadRange> r = guardRange(cond, truth);
  return r ? countOf(*r) : std::nullopt;
}

std::optional<std::pair<int64_t, scf::ForOp>>
MBarrierChecker::executors(Operation *op, StringRef what, bool counts,
                           ThreadRange *rangeOut, bool *everyIteration) {
  int64_t threads = block[0] * block[1] * block[2];
  scf::ForOp loop;
  // The thread guards on the way out, intersected (inside or around the
  // loop: a guard is the same in every iteration).
  ThreadRange range{0, threads};
  bool guarded = false, outerSeen = false;
  Operation *child = op;
  for (Operation *parent = op->getParentOp(); parent != kernel;
       child = parent, parent = parent->getParentOp()) {
    if (auto ifOp = dyn_cast<scf::IfOp>(parent)) {
      bool truth = child->getParentRegion() == &ifOp.getThenRegion();
      if (std::optional<ThreadRange> r =
              guardRange(ifOp.getCondition(), truth)) {
        range = {std::max(range.lo, r->lo), std::min(range.hi, r->hi),
                 range.onePerWarp || r->onePerWarp};
        guarded = true;
        continue;
      }
      // A wait by some threads only is fine: waiting counts for nothing.
      if (!counts) {
        if (everyIteration)
          *everyIteration = false;
        continue;
      }
      if (uniformity.isDivergent(ifOp.getCondition())) {
        report(check::kMBarrierPhase, op,
               what + " is under divergent control (" + describeOp(ifOp) +
                   "): how many threads arrive per phase is not known, so "
                   "the count the mbarrier completes on cannot be matched");
        return std::nullopt;
      }
      report(check::kUnprovable, op,
             what + " under a data-dependent " + describeOp(ifOp) +
                 " is not modelled by the mbarrier check");
      return std::nullopt;
    }
    auto forOp = dyn_cast<scf::ForOp>(parent);
    // One scf.for, or one of constant trip count in another whose
    // iterations continue its count (outerLoop).
    bool outer = forOp && loop && !outerSeen && constantTripCount(loop);
    if (!forOp || (loop && !outer)) {
      report(check::kUnprovable, op,
             what + " inside " + describeOp(parent) +
                 " is not modelled by the mbarrier check (top level, one "
                 "scf.for, or one of constant trip count in another)");
      return std::nullopt;
    }
    if (uniformity.hasDivergentControl(forOp)) {
      report(check::kMBarrierPhase, op,
             what + " is in a loop whose trip count differs between threads (" +
                 describeOp(forOp) + "): arrivals per phase are not known");
      return std::nullopt;
    }
    if (outer)
      outerSeen = true;
    else
      loop = forOp;
  }
  if (rangeOut)
    *rangeOut = range;
  if (guarded) {
    std::optional<int64_t> n = countOf(range);
    if (!n) {
      report(check::kUnprovable, op,
             what + " under thread guards whose threads the mbarrier check "
                    "cannot count is not modelled");
      return std::nullopt;
    }
    threads = *n;
  }
  return std::make_pair(threads, loop);
}

std::optional<Parity> MBarrierChecker::parity(Value v, scf::ForOp loop,
                                              int depth) const {
  if (depth > 16)
    return std::nullopt;
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return Parity{0, *c & 1};
  // Under an outer loop, r = k - R q: a form a r + b is a k + b when a R
  // is even.
  scf::ForOp outer = outerLoop(loop);
  std::optional<int64_t> trips = loop ? constantTripCount(loop) : std::nullopt;
  auto flat = [&](Parity p) -> std::optional<Parity> {
    if (outer && (!trips || (p.a & *trips & 1)))
      return std::nullopt;
    return p;
  };
  if (loop && v == loop.getInductionVar()) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                           step = getConstantIntValue(loop.getStep());
    if (!lb || !step)
      return std::nullopt;
    return flat(Parity{*step & 1, *lb & 1});
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // A loop-carried phase bit: constant start, toggled (or kept) by the
    // yield.
    if (!loop || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0)
      return std::nullopt;
    unsigned i = arg.getArgNumber() - 1;
    Value yielded =
        cast<scf::YieldOp>(loop.getBody()->getTerminator()).getOperand(i);
    // Flipped by `a` each iteration.
    std::optional<int64_t> a;
    if (yielded == arg)
      a = 0;
    Operation *def = yielded.getDefiningOp();
    if (isa_and_nonnull<arith::XOrIOp, arith::AddIOp>(def))
      for (unsigned j = 0; j < 2; ++j)
        if (def->getOperand(j) == arg)
          if (std::optional<int64_t> c =
                  getConstantIntValue(def->getOperand(1 - j)))
            a = *c & 1;
    if (!a)
      return std::nullopt;
    Value init = loop.getInitArgs()[i];
    if (std::optional<int64_t> b = getConstantIntValue(init))
      return flat(Parity{*a, *b & 1});
    // Carried through the outer loop: started there at a constant b, and
    // the outer loop yields this loop's result, so in tile q it starts at
    // b + a R q: a (R q + r) + b = a k + b.
    auto carried = dyn_cast<BlockArgument>(init);
    if (!outer || !carried || carried.getOwner() != outer.getBody() ||
        carried.getArgNumber() == 0)
      return std::nullopt;
    unsigned j = carried.getArgNumber() - 1;
    std::optional<int64_t> b = getConstantIntValue(outer.getInitArgs()[j]);
    Value outerYield =
        cast<scf::YieldOp>(outer.getBody()->getTerminator()).getOperand(j);
    if (!b || outerYield != loop.getResult(i))
      return std::nullopt;
    return Parity{*a, *b & 1};
  }
  Operation *op = v.getDefiningOp();
  // Values of the loop body only (or constants): others are not functions
  // of k the check knows.
  if (!op || (loop && !loop->isProperAncestor(op)) || (!loop))
    return std::nullopt;
  auto operand = [&](unsigned i) {
    return parity(op->getOperand(i), loop, depth + 1);
  };
  if (isa<arith::AddIOp, arith::SubIOp, arith::XOrIOp>(op)) {
    std::optional<Parity> x = operand(0), y = operand(1);
    if (x && y)
      return *x + *y;
    return std::nullopt;
  }
  if (isa<arith::MulIOp>(op))
    for (unsigned j = 0; j < 2; ++j)
      if (std::optional<int64_t> c = getConstantIntValue(op->getOperand(j)))
        if (std::optional<Parity> x = operand(1 - j))
          return Parity{(x->a * *c) & 1, (x->b * *c) & 1};
  // Low bit kept: x mod 2^n, x & odd, casts.
  if (auto rem = dyn_cast<arith::RemUIOp>(op))
    if (std::optional<int64_t> c = getConstantIntValue(rem.getRhs());
        c && *c > 1 && llvm::isPowerOf2_64(*c))
      return operand(0);
  if (auto andOp = dyn_cast<arith::AndIOp>(op))
    for (unsigned j = 0; j < 2; ++j)
      if (std::optional<int64_t> c = getConstantIntValue(op->getOperand(j))) {
        if (!(*c & 1))
          return Parity{0, 0};
        return operand(1 - j);
      }
  if (isa<arith::TruncIOp, arith::ExtUIOp, arith::ExtSIOp, arith::IndexCastOp,
          arith::IndexCastUIOp>(op))
    return operand(0);
  // (x mod 2) != 0 and == 0, for x known to be 0 or 1.
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    Operation *lhs = cmp.getLhs().getDefiningOp();
    bool bit = false;
    if (auto rem = dyn_cast_or_null<arith::RemUIOp>(lhs))
      bit = getConstantIntValue(rem.getRhs()) == 2;
    if (auto andOp = dyn_cast_or_null<arith::AndIOp>(lhs))
      bit = getConstantIntValue(andOp.getRhs()) == 1;
    if (!bit || getConstantIntValue(cmp.getRhs()) != 0)
      return std::nullopt;
    std::optional<Parity> x = operand(0);
    if (!x)
      return std::nullopt;
    if (cmp.getPredicate() == arith::CmpIPredicate::ne)
      return x;
    if (cmp.getPredicate() == arith::CmpIPredicate::eq)
      return *x + Parity{0, 1};
  }
  return std::nullopt;
}
