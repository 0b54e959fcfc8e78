//===- MBarrierEvaluate.cpp - Threads and parities of mbarrier ops --------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// What the mbarrier check evaluates: how many threads pass a thread guard,
// how many threads run an op each time its (at most one, uniform) loop runs,
// and the parity a wait expects as (a k + b) mod 2 over the iteration k.
//
//===----------------------------------------------------------------------===//

#include "MBarrierChecker.h"

#include "AMK/Analysis/Uniformity.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::mbarrier;

std::optional<int64_t> MBarrierChecker::guardThreads(Value cond,
                                                     bool truth) const {
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp || !truth || block[0] <= 0 || block[1] != 1 || block[2] != 1)
    return std::nullopt;
  auto tid = cmp.getLhs().getDefiningOp<gpu::ThreadIdOp>();
  std::optional<int64_t> c = constantOf(cmp.getRhs());
  if (!tid || tid.getDimension() != gpu::Dimension::x || !c || *c < 0)
    return std::nullopt;
  using P = arith::CmpIPredicate;
  switch (cmp.getPredicate()) {
  case P::eq:
    return *c < block[0] ? 1 : 0;
  case P::ult:
  case P::slt:
    return std::min(*c, block[0]);
  case P::ule:
  case P::sle:
    return std::min(*c + 1, block[0]);
  default:
    return std::nullopt;
  }
}

std::optional<std::pair<int64_t, scf::ForOp>>
MBarrierChecker::executors(Operation *op, StringRef what, bool counts) {
  int64_t threads = block[0] * block[1] * block[2];
  scf::ForOp loop;
  bool guarded = false;
  Operation *child = op;
  for (Operation *parent = op->getParentOp(); parent != kernel;
       child = parent, parent = parent->getParentOp()) {
    if (auto ifOp = dyn_cast<scf::IfOp>(parent)) {
      bool truth = child->getParentRegion() == &ifOp.getThenRegion();
      std::optional<int64_t> n = guardThreads(ifOp.getCondition(), truth);
      if (n && !guarded && !loop) {
        threads = *n;
        guarded = true;
        continue;
      }
      // A wait by some threads only is fine: waiting counts for nothing.
      if (!counts)
        continue;
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
    if (!forOp || loop) {
      report(check::kUnprovable, op,
             what + " inside " + describeOp(parent) +
                 " is not modelled by the mbarrier check (top level or one "
                 "scf.for only)");
      return std::nullopt;
    }
    if (uniformity.hasDivergentControl(forOp)) {
      report(check::kMBarrierPhase, op,
             what + " is in a loop whose trip count differs between threads (" +
                 describeOp(forOp) + "): arrivals per phase are not known");
      return std::nullopt;
    }
    loop = forOp;
  }
  return std::make_pair(threads, loop);
}

std::optional<Parity> MBarrierChecker::parity(Value v, scf::ForOp loop,
                                              int depth) const {
  if (depth > 16)
    return std::nullopt;
  if (std::optional<int64_t> c = constantOf(v))
    return Parity{0, *c & 1};
  if (loop && v == loop.getInductionVar()) {
    std::optional<int64_t> lb = constantOf(loop.getLowerBound()),
                           step = constantOf(loop.getStep());
    if (!lb || !step)
      return std::nullopt;
    return Parity{*step & 1, *lb & 1};
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // A loop-carried phase bit: constant start, toggled (or kept) by the
    // yield.
    if (!loop || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0)
      return std::nullopt;
    unsigned i = arg.getArgNumber() - 1;
    std::optional<int64_t> init = constantOf(loop.getInitArgs()[i]);
    Value yielded =
        cast<scf::YieldOp>(loop.getBody()->getTerminator()).getOperand(i);
    if (!init)
      return std::nullopt;
    if (yielded == arg)
      return Parity{0, *init & 1};
    Operation *def = yielded.getDefiningOp();
    if (isa_and_nonnull<arith::XOrIOp, arith::AddIOp>(def))
      for (unsigned j = 0; j < 2; ++j)
        if (def->getOperand(j) == arg)
          if (std::optional<int64_t> c = constantOf(def->getOperand(1 - j)))
            return Parity{*c & 1, *init & 1};
    return std::nullopt;
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
      if (std::optional<int64_t> c = constantOf(op->getOperand(j)))
        if (std::optional<Parity> x = operand(1 - j))
          return Parity{(x->a * *c) & 1, (x->b * *c) & 1};
  // Low bit kept: x mod 2^n, x & odd, casts.
  if (auto rem = dyn_cast<arith::RemUIOp>(op))
    if (std::optional<int64_t> c = constantOf(rem.getRhs());
        c && *c > 1 && llvm::isPowerOf2_64(*c))
      return operand(0);
  if (auto andOp = dyn_cast<arith::AndIOp>(op))
    for (unsigned j = 0; j < 2; ++j)
      if (std::optional<int64_t> c = constantOf(op->getOperand(j))) {
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
      bit = constantOf(rem.getRhs()) == 2;
    if (auto andOp = dyn_cast_or_null<arith::AndIOp>(lhs))
      bit = constantOf(andOp.getRhs()) == 1;
    if (!bit || constantOf(cmp.getRhs()) != 0)
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
