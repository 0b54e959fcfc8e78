//===- Normalize.cpp - The kernel the checks analyse ----------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Rewrites a copy of a kernel into the structured, 1-D form the checks
// model (Normalize.h). The rewrites run with the walk driver, which neither
// folds nor erases dead ops: every access of the kernel stays to be checked.
// CSE then merges the index arithmetic they repeat (it merges an access
// only with an identical one that nothing between them may write).
//
//===----------------------------------------------------------------------===//

#include "Normalize.h"
#include "MBarrier.h"
#include "SlotCounters.h"
#include "WarpAggregation.h"

#include "AMK/Harness/KernelSafety.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ControlFlowToSCF/ControlFlowToSCF.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/FoldUtils.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::amk;

namespace {

/// The memref dimension the leading dimension of an n-D vector access
/// moves along: its vector dimensions are the memref's trailing ones.
std::optional<unsigned> leadingDim(VectorType vector, MemRefType memref) {
  if (vector.getRank() < 2 || vector.isScalable() ||
      memref.getRank() < vector.getRank())
    return std::nullopt;
  return memref.getRank() - vector.getRank();
}

/// `indices` with `r` added to the one of dimension `dim`.
SmallVector<Value> rowIndices(PatternRewriter &rewriter, Location loc,
                              ValueRange indices, unsigned dim, int64_t r) {
  SmallVector<Value> out(indices);
  if (r != 0)
    out[dim] =
        arith::AddIOp::create(rewriter, loc, out[dim],
                              arith::ConstantIndexOp::create(rewriter, loc, r));
  return out;
}

/// An n-D vector.load as the (n-1)-D loads of its rows.
struct SplitLoadRows : OpRewritePattern<vector::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::LoadOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    std::optional<unsigned> dim = leadingDim(type, op.getMemRefType());
    if (!dim)
      return failure();
    VectorType row = VectorType::Builder(type).dropDim(0);
    Location loc = op.getLoc();
    Value result = ub::PoisonOp::create(rewriter, loc, type);
    for (int64_t r = 0, e = type.getDimSize(0); r < e; ++r) {
      Value part = vector::LoadOp::create(
          rewriter, loc, row, op.getBase(),
          rowIndices(rewriter, loc, op.getIndices(), *dim, r));
      result = vector::InsertOp::create(rewriter, loc, part, result,
                                        ArrayRef<int64_t>{r});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An n-D vector.store as the (n-1)-D stores of its rows.
struct SplitStoreRows : OpRewritePattern<vector::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::StoreOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    std::optional<unsigned> dim = leadingDim(type, op.getMemRefType());
    if (!dim)
      return failure();
    Location loc = op.getLoc();
    for (int64_t r = 0, e = type.getDimSize(0); r < e; ++r) {
      Value part = vector::ExtractOp::create(
          rewriter, loc, op.getValueToStore(), ArrayRef<int64_t>{r});
      vector::StoreOp::create(
          rewriter, loc, part, op.getBase(),
          rowIndices(rewriter, loc, op.getIndices(), *dim, r));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Whether `op` is a vector access of more than one dimension on a memref.
bool isMultiDimAccess(Operation *op) {
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return load.getVectorType().getRank() > 1;
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return store.getVectorType().getRank() > 1;
  if (auto transfer = dyn_cast<VectorTransferOpInterface>(op))
    return isa<MemRefType>(transfer.getBase().getType()) &&
           transfer.getVectorType().getRank() > 1;
  return false;
}

bool hasBranches(Operation *root) {
  return root
      ->walk([](Operation *op) {
        for (Region &region : op->getRegions())
          if (!region.empty() && !region.hasOneBlock())
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

LogicalResult liftBranches(Operation *root) {
  ControlFlowToSCFTransformation lifting;
  bool lifted = true;
  root->walk<WalkOrder::PostOrder>([&](Operation *op) {
    for (Region &region : op->getRegions()) {
      if (region.empty() || region.hasOneBlock())
        continue;
      DominanceInfo dominance(op);
      lifted &= succeeded(transformCFGToSCF(region, lifting, dominance));
    }
  });
  // An infinite loop ends the function in a func.return, which a gpu.func
  // cannot hold.
  bool returns =
      root->walk([](func::ReturnOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  return success(lifted && !returns);
}

/// Rewrites n-D vector accesses into 1-D ones, one vector dimension per
/// round (the walk driver does not revisit what it made). What no pattern
/// takes stays n-D, and the checks report it as unmodelled.
void unrollVectorAccesses(Operation *root) {
  RewritePatternSet patterns(root->getContext());
  patterns.add<SplitLoadRows, SplitStoreRows>(root->getContext());
  populateVectorToSCFConversionPatterns(
      patterns,
      VectorTransferToSCFOptions().setTargetRank(1).enableFullUnroll());
  populateAffineToStdConversionPatterns(patterns);
  FrozenRewritePatternSet frozen(std::move(patterns));
  for (int round = 0; round < 8; ++round) {
    auto left = [&] {
      return root
          ->walk([](Operation *op) {
            return isMultiDimAccess(op) || isa<affine::AffineApplyOp>(op)
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
    };
    if (!left())
      break;
    walkAndApplyPatterns(root, frozen);
  }
  // The unrolling computes a row's index once for its guard and once for
  // its access: one value, so that the guard is seen to bound the access.
  IRRewriter rewriter(root->getContext());
  DominanceInfo dominance(root);
  eliminateCommonSubExpressions(rewriter, dominance, root);
}

/// A while loop counted by one integer that starts at a constant, runs
/// while a comparison of it with a constant holds, and steps by a constant
/// shift (or a multiplication or unsigned division by a power of two): a
/// tree reduction's `for (s = 128; s > 0; s >>= 1)`, a scan's `for (d = 1;
/// d < n; d <<= 1)`; other values it carries along pass the condition
/// unchanged. Its count's values are known: `values` in order, and the one
/// it exits with.
struct CountedWhile {
  unsigned counter = 0;
  Operation *step = nullptr;
  SmallVector<int64_t> values;
  int64_t exit = 0;
};

/// The shape both loops below share: the before block only compares one
/// of the values with a bound and forwards them all; the after block steps
/// that value by one binary op of it and a second operand.
struct LoopCount {
  unsigned counter;
  arith::CmpIOp cmp;
  Operation *step;
};

std::optional<LoopCount> matchLoopCount(scf::WhileOp loop) {
  Block &before = loop.getBefore().front();
  Block &after = loop.getAfter().front();
  // before: %c = cmpi pred, %count, %bound; scf.condition(%c) %args...
  auto condition = loop.getConditionOp();
  if (before.getOperations().size() != 2 ||
      condition.getArgs() != ValueRange(before.getArguments()) ||
      after.getNumArguments() != before.getNumArguments() ||
      loop.getInits().size() != before.getNumArguments())
    return std::nullopt;
  auto cmp = condition.getCondition().getDefiningOp<arith::CmpIOp>();
  auto count = cmp ? dyn_cast<BlockArgument>(cmp.getLhs()) : BlockArgument();
  if (!cmp || cmp->getBlock() != &before || !count ||
      count.getOwner() != &before || !count.getType().isIntOrIndex())
    return std::nullopt;
  // after: ...; scf.yield ..., (%count op %x), ...
  unsigned counter = count.getArgNumber();
  auto yield = cast<scf::YieldOp>(after.getTerminator());
  Operation *step = yield.getResults()[counter].getDefiningOp();
  if (!step || step->getBlock() != &after || step->getNumOperands() != 2 ||
      step->getOperand(0) != after.getArgument(counter))
    return std::nullopt;
  return LoopCount{counter, cmp, step};
}

/// The loop's count, or nothing when it is no such loop (or runs more than
/// 64 iterations).
std::optional<CountedWhile> matchCountedWhile(scf::WhileOp loop) {
  std::optional<LoopCount> shape = matchLoopCount(loop);
  if (!shape)
    return std::nullopt;
  CountedWhile counted;
  counted.counter = shape->counter;
  arith::CmpIOp cmp = shape->cmp;
  Operation *step = shape->step;
  Value init = loop.getInits()[counted.counter];
  Type type = init.getType();
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  std::optional<int64_t> first = getConstantIntValue(init);
  std::optional<int64_t> bound = getConstantIntValue(cmp.getRhs());
  if (!first || !bound)
    return std::nullopt;
  std::optional<int64_t> by = getConstantIntValue(step->getOperand(1));
  if (!by || *by < 0 || *by >= 64)
    return std::nullopt;
  counted.step = step;
  // The next value, in the loop's width (none: an op it does not know).
  auto next = [&](llvm::APInt v) -> std::optional<llvm::APInt> {
    if (isa<arith::ShRUIOp>(step))
      return v.lshr(*by);
    if (isa<arith::ShLIOp>(step))
      return v.shl(*by);
    if (isa<arith::DivUIOp>(step) && *by > 0 && llvm::isPowerOf2_64(*by))
      return v.udiv(llvm::APInt(width, *by));
    if (isa<arith::MulIOp>(step) && llvm::isPowerOf2_64(*by))
      return v * llvm::APInt(width, *by);
    return std::nullopt;
  };
  llvm::APInt value(width, *first, /*isSigned=*/true);
  llvm::APInt limit(width, *bound, /*isSigned=*/true);
  for (int i = 0; i <= 64; ++i) {
    if (!arith::applyCmpPredicate(cmp.getPredicate(), value, limit)) {
      counted.exit = value.getSExtValue();
      return counted;
    }
    if (i == 64)
      break;
    counted.values.push_back(value.getSExtValue());
    std::optional<llvm::APInt> following = next(value);
    if (!following)
      return std::nullopt;
    value = *following;
  }
  return std::nullopt;
}

/// Replaces `loop` by `forOp` (made before it, its iteration arguments the
/// loop's values but its count): the loop's body, the count `count` of the
/// induction variable, and the count's result `exit`.
void replaceWhileByFor(scf::WhileOp loop, unsigned counter, scf::ForOp forOp,
                       function_ref<Value(Value iv)> count, Value exit,
                       RewriterBase &rewriter) {
  Block &after = loop.getAfter().front();
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forOp.getBody());
    Value current = count(forOp.getInductionVar());
    IRMapping mapping;
    for (unsigned i = 0, j = 0; i < after.getNumArguments(); ++i)
      mapping.map(after.getArgument(i),
                  i == counter ? current : forOp.getRegionIterArgs()[j++]);
    for (Operation &op : after.without_terminator())
      rewriter.clone(op, mapping);
    // (Without carried values the builder made the body's yield.)
    SmallVector<Value> yielded;
    for (auto [i, v] : llvm::enumerate(
             cast<scf::YieldOp>(after.getTerminator()).getResults()))
      if (i != counter)
        yielded.push_back(mapping.lookupOrDefault(v));
    if (!yielded.empty())
      scf::YieldOp::create(rewriter, loop.getLoc(), yielded);
  }
  SmallVector<Value> results;
  for (unsigned i = 0, j = 0; i < loop->getNumResults(); ++i)
    results.push_back(i == counter ? exit : forOp.getResult(j++));
  rewriter.replaceOp(loop, results);
}

/// The loop's values but its count: the scf.for's iteration arguments.
SmallVector<Value> getCarried(scf::WhileOp loop, unsigned counter) {
  SmallVector<Value> carried;
  for (auto [i, init] : llvm::enumerate(loop.getInits()))
    if (i != counter)
      carried.push_back(init);
  return carried;
}

/// Such a loop as the scf.for over its iterations the checks model, the
/// other values carried as its iteration arguments, the count in iteration
/// k the first shifted by k steps (a multiplication or division by 2^s is
/// a shift by s: the values were computed in the loop's width, where they
/// agree).
LogicalResult rewriteCountedWhile(scf::WhileOp loop, RewriterBase &rewriter) {
  std::optional<CountedWhile> counted = matchCountedWhile(loop);
  if (!counted || counted->values.empty())
    return failure();
  unsigned counter = counted->counter;
  Type type = loop.getInits()[counter].getType();
  Operation *step = counted->step;
  int64_t by = *getConstantIntValue(step->getOperand(1));
  int64_t shift = isa<arith::ShRUIOp, arith::ShLIOp>(step)
                      ? by
                      : llvm::Log2_64(uint64_t(by));
  bool right = isa<arith::ShRUIOp, arith::DivUIOp>(step);
  // (A shift by the width or more is poison: such a loop stays as it is.)
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  if (int64_t(counted->values.size() - 1) * shift >= int64_t(width))
    return failure();
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto constant = [&](int64_t v) -> Value {
    if (type.isIndex())
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    return arith::ConstantIntOp::create(rewriter, loc, type, v);
  };
  Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value ub =
      arith::ConstantIndexOp::create(rewriter, loc, counted->values.size());
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto forOp =
      scf::ForOp::create(rewriter, loc, lb, ub, one, getCarried(loop, counter));
  Value exit = constant(counted->exit);
  replaceWhileByFor(
      loop, counter, forOp,
      [&](Value k) -> Value {
        if (!type.isIndex())
          k = arith::IndexCastOp::create(rewriter, loc, type, k);
        Value amount = arith::MulIOp::create(rewriter, loc, k, constant(shift));
        Value first = constant(counted->values.front());
        if (right)
          return arith::ShRUIOp::create(rewriter, loc, first, amount);
        return arith::ShLIOp::create(rewriter, loc, first, amount);
      },
      exit, rewriter);
  return success();
}

/// Whether `v` (index) is at least 1 wherever it is defined: a positive
/// constant (at most 2^31), a block or grid size, or the sum or product of
/// two such (no product of them reaches 2^63).
bool isPositiveStep(Value v, int depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c >= 1 && *c <= (int64_t(1) << 31);
  Operation *op = v.getDefiningOp();
  if (isa_and_nonnull<gpu::BlockDimOp, gpu::GridDimOp>(op))
    return true;
  if (depth == 0 && isa_and_nonnull<arith::AddIOp, arith::MulIOp>(op))
    return isPositiveStep(op->getOperand(0), 1) &&
           isPositiveStep(op->getOperand(1), 1);
  return false;
}

/// A strided while loop, a grid-stride loop's `for (i = start; i < n; i +=
/// stride)`: the count an index compared below a bound (signed or unsigned)
/// and stepped by a positive stride, both defined before the loop, its
/// value unused after it; or nothing.
std::optional<LoopCount> matchStridedWhile(scf::WhileOp loop) {
  std::optional<LoopCount> shape = matchLoopCount(loop);
  if (!shape)
    return std::nullopt;
  arith::CmpIPredicate predicate = shape->cmp.getPredicate();
  Value bound = shape->cmp.getRhs(), stride = shape->step->getOperand(1);
  auto outside = [&](Value v) {
    return !loop->isAncestor(v.getParentBlock()->getParentOp());
  };
  if (!loop.getInits()[shape->counter].getType().isIndex() ||
      !isa<arith::AddIOp>(shape->step) ||
      (predicate != arith::CmpIPredicate::ult &&
       predicate != arith::CmpIPredicate::slt) ||
      !outside(bound) || !outside(stride) || !isPositiveStep(stride) ||
      !loop->getResult(shape->counter).use_empty())
    return std::nullopt;
  return shape;
}

/// Such a loop as the scf.for from its start to the bound by the stride
/// (unsigned: `unsignedCmp`).
LogicalResult rewriteStridedWhile(scf::WhileOp loop, RewriterBase &rewriter) {
  std::optional<LoopCount> shape = matchStridedWhile(loop);
  if (!shape)
    return failure();
  unsigned counter = shape->counter;
  Value start = loop.getInits()[counter];
  rewriter.setInsertionPoint(loop);
  auto forOp = scf::ForOp::create(
      rewriter, loop.getLoc(), start, shape->cmp.getRhs(),
      shape->step->getOperand(1), getCarried(loop, counter), nullptr,
      shape->cmp.getPredicate() == arith::CmpIPredicate::ult);
  // (The count's result has no use: any value stands in for it.)
  replaceWhileByFor(
      loop, counter, forOp, [](Value iv) { return iv; }, start, rewriter);
  return success();
}

/// A work queue's loop, `t = slot; while (t < n) { ...; t = slot }`: the
/// one value it carries starts and steps as slots of one counter element
/// (SlotCounters::isSlotAdd; the next slot taken directly in the body),
/// the bound is defined before the loop, no op in the body is one whose
/// count across threads a check follows, and the loop's result is unused.
/// The take of the next slot, or null.
memref::AtomicRMWOp matchWorkQueue(scf::WhileOp loop, Operation *kernel) {
  if (loop.getInits().size() != 1 || !loop->getResult(0).use_empty() ||
      !llvm::hasSingleElement(loop.getBefore()) ||
      !llvm::hasSingleElement(loop.getAfter()))
    return {};
  auto first = loop.getInits()[0].getDefiningOp<memref::AtomicRMWOp>();
  Block &before = loop.getBefore().front(), &after = loop.getAfter().front();
  auto condition = cast<scf::ConditionOp>(before.getTerminator());
  auto cmp = condition.getCondition().getDefiningOp<arith::CmpIOp>();
  auto yield = cast<scf::YieldOp>(after.getTerminator());
  auto next = yield.getResults()[0].getDefiningOp<memref::AtomicRMWOp>();
  if (!first || !cmp || !next || next->getBlock() != &after ||
      condition.getArgs().size() != 1 ||
      condition.getArgs()[0] != before.getArgument(0) ||
      next.getMemref() != first.getMemref())
    return {};
  // (One element, the same constant indices.)
  std::optional<SmallVector<int64_t>> at =
      getConstantIntValues(getAsOpFoldResult(first.getIndices()));
  if (!at || getConstantIntValues(getAsOpFoldResult(next.getIndices())) != at)
    return {};
  // t < n (or n > t), n from before the loop; the before block nothing
  // else.
  using P = arith::CmpIPredicate;
  Value t = before.getArgument(0);
  bool below = (cmp.getLhs() == t && (cmp.getPredicate() == P::slt ||
                                      cmp.getPredicate() == P::ult)) ||
               (cmp.getRhs() == t &&
                (cmp.getPredicate() == P::sgt || cmp.getPredicate() == P::ugt));
  Value bound = cmp.getLhs() == t ? cmp.getRhs() : cmp.getLhs();
  bool onlyTest = llvm::all_of(before, [&](Operation &op) {
    return &op == cmp || &op == condition || isa<arith::ConstantOp>(op);
  });
  if (!below || !onlyTest ||
      loop->isAncestor(bound.getParentBlock()->getParentOp()))
    return {};
  // The body runs once per thread in the copy: nothing whose count or
  // order across threads a check follows (barriers and other convergent
  // ops, polls, the counter protocol's signals and tests, mbarriers and
  // async copies).
  auto func = cast<FunctionOpInterface>(kernel);
  auto counted = [&](Operation *op) {
    if (getConvergenceScope(op) || isa<scf::WhileOp>(op) ||
        op->getName().getDialectNamespace() == "nvgpu" ||
        (op->getName().getDialectNamespace() == "nvvm" &&
         !op->getName().getStringRef().starts_with("nvvm.read.ptx.sreg")))
      return true;
    auto rmw = dyn_cast<memref::AtomicRMWOp>(op);
    if (!rmw || rmw == next)
      return false;
    auto arg = dyn_cast<BlockArgument>(rmw.getMemref());
    bool counter = arg && arg.getOwner()->getParentOp() == kernel &&
                   func.getArgAttr(arg.getArgNumber(), "amk.counter");
    return counter || !rmw->getResult(0).use_empty();
  };
  bool uncountable = loop.getAfter()
                         .walk([&](Operation *op) {
                           return counted(op) ? WalkResult::interrupt()
                                              : WalkResult::advance();
                         })
                         .wasInterrupted();
  if (uncountable || !SlotCounters::isSlotAdd(first, kernel) ||
      !SlotCounters::isSlotAdd(next, kernel))
    return {};
  return next;
}

/// Every run of a work queue's body takes a slot no other run takes (in
/// any thread or block), so the checks see the body once, under `if (t <
/// n)` on the first slot: two threads' or blocks' runs then stand for any
/// two of its iterations. The take of the next slot stays, marked with the
/// bound (SlotCounters::kWorkQueueBound: a constant n bounds the slots
/// the iterations took).
LogicalResult rewriteWorkQueue(scf::WhileOp loop, RewriterBase &rewriter) {
  Operation *kernel = loop->getParentOfType<gpu::GPUFuncOp>();
  memref::AtomicRMWOp next = kernel ? matchWorkQueue(loop, kernel) : nullptr;
  if (!next)
    return failure();
  Block &before = loop.getBefore().front(), &after = loop.getAfter().front();
  Value first = loop.getInits()[0];
  rewriter.setInsertionPoint(loop);
  IRMapping mapping;
  mapping.map(before.getArgument(0), first);
  for (Operation &op : before.without_terminator())
    rewriter.clone(op, mapping);
  Value test = mapping.lookup(
      cast<scf::ConditionOp>(before.getTerminator()).getCondition());
  auto ifOp = scf::IfOp::create(rewriter, loop.getLoc(), test,
                                /*withElseRegion=*/false);
  rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  mapping.map(after.getArgument(0), first);
  for (Operation &op : after.without_terminator()) {
    Operation *copy = rewriter.clone(op, mapping);
    if (&op != next.getOperation())
      continue;
    auto cmp =
        cast<arith::CmpIOp>(cast<scf::ConditionOp>(before.getTerminator())
                                .getCondition()
                                .getDefiningOp());
    Value bound =
        cmp.getLhs() == before.getArgument(0) ? cmp.getRhs() : cmp.getLhs();
    std::optional<int64_t> n = getConstantIntValue(bound);
    copy->setAttr(SlotCounters::kWorkQueueBound,
                  n ? Attribute(rewriter.getI64IntegerAttr(*n))
                    : Attribute(rewriter.getUnitAttr()));
  }
  rewriter.eraseOp(loop);
  return success();
}

/// Whether a while loop is one the rewrites below turn into an scf.for
/// (or, a work queue, into an scf.if).
bool isRewritableWhile(scf::WhileOp loop) {
  Operation *kernel = loop->getParentOfType<gpu::GPUFuncOp>();
  return matchCountedWhile(loop) || matchStridedWhile(loop) ||
         (kernel && matchWorkQueue(loop, kernel));
}

bool hasCountedWhile(Operation *root) {
  return root
      ->walk([](scf::WhileOp loop) {
        return isRewritableWhile(loop) ? WalkResult::interrupt()
                                       : WalkResult::advance();
      })
      .wasInterrupted();
}

void rewriteCountedWhiles(Operation *root) {
  SmallVector<scf::WhileOp> loops;
  root->walk([&](scf::WhileOp loop) { loops.push_back(loop); });
  IRRewriter rewriter(root->getContext());
  // Innermost first (the walk is post-order): an outer loop's body is
  // cloned with its inner loops already rewritten.
  for (scf::WhileOp loop : loops)
    if (failed(rewriteCountedWhile(loop, rewriter)) &&
        failed(rewriteStridedWhile(loop, rewriter)))
      (void)rewriteWorkQueue(loop, rewriter);
}

/// The most iterations a loop of a triangular nest may have to be
/// unrolled, and the most copies of loop bodies, and of ops, one kernel's
/// unrolling makes.
constexpr int64_t kMaxUnrolledTrips = 32;
constexpr int64_t kMaxUnrolledCopies = 1024;
constexpr int64_t kMaxUnrolledOps = 100000;

/// Whether `v` depends on `iv` through integer arithmetic.
bool dependsOn(Value v, Value iv, int depth = 0) {
  if (v == iv)
    return true;
  Operation *op = v.getDefiningOp();
  if (!op || depth > 16 || op->getName().getDialectNamespace() != "arith")
    return false;
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return dependsOn(operand, iv, depth + 1);
  });
}

/// Whether `v` reaches an xor, and or or through integer arithmetic.
bool feedsBitwise(Value v, int depth = 0) {
  for (Operation *user : v.getUsers()) {
    if (isa<arith::XOrIOp, arith::AndIOp, arith::OrIOp>(user))
      return true;
    if (depth < 8 && user->getName().getDialectNamespace() == "arith" &&
        user->getNumResults() == 1 &&
        feedsBitwise(user->getResult(0), depth + 1))
      return true;
  }
  return false;
}

/// Marks the loops that counted while loops inside an unrolled copy became
/// (unrollTriangularNests).
constexpr llvm::StringLiteral kFromUnrolledCopy = "amk.from_unrolled_copy";

/// A loop of a small constant trip count that holds a while loop starting
/// from its count, which the rewrites above cannot take (a triangular nest:
/// a bitonic network's `for (k = 2; k <= n; k <<= 1) for (j = k >> 1; j > 0;
/// j >>= 1)`), or, made from such a while loop in an unrolled copy, whose
/// count is a shift amount (`j = j0 >> i` around `tid ^ j`). Unrolled, its
/// copies' counts are constants, which the checks model exactly there
/// (`tid ^ j`, `tid & k` by bits). Its trip count, or nullopt.
std::optional<int64_t> getTriangularTrips(scf::ForOp loop) {
  std::optional<int64_t> trips = mbarrier::constantTripCount(loop);
  if (!trips || *trips < 1 || *trips > kMaxUnrolledTrips)
    return std::nullopt;
  Value iv = loop.getInductionVar();
  bool marked = loop->hasAttr(kFromUnrolledCopy);
  bool unroll =
      loop.getBody()
          ->walk([&](Operation *op) {
            // A shift by the count that a bitwise op takes (`tid ^ (1 <<
            // i)`), or, in a loop from an unrolled copy, any shift by it.
            bool shiftsByCount =
                isa<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp>(op) &&
                !getConstantIntValue(op->getOperand(1)) &&
                dependsOn(op->getOperand(1), iv) &&
                (marked || feedsBitwise(op->getResult(0)));
            auto inner = dyn_cast<scf::WhileOp>(op);
            bool whileFromCount =
                inner && llvm::any_of(inner.getInits(), [&](Value init) {
                  return dependsOn(init, iv);
                });
            return shiftsByCount || whileFromCount ? WalkResult::interrupt()
                                                   : WalkResult::advance();
          })
          .wasInterrupted();
  return unroll ? trips : std::nullopt;
}

bool hasTriangularNest(Operation *root) {
  return root
      ->walk([](scf::ForOp loop) {
        return getTriangularTrips(loop) ? WalkResult::interrupt()
                                        : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Unrolls such loops, outermost first, folding the constants each copy's
/// count makes (pure arith ops only) and rewriting the while loops that
/// then count from constants; up to kMaxUnrolledCopies bodies and
/// kMaxUnrolledOps ops in all (past them the nest stays, unprovable).
void unrollTriangularNests(Operation *root) {
  int64_t copies = 0, ops = 0;
  for (int round = 0; round < 64; ++round) {
    scf::ForOp outer;
    root->walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (!getTriangularTrips(loop))
        return WalkResult::advance();
      outer = loop;
      return WalkResult::interrupt();
    });
    int64_t trips = outer ? *getTriangularTrips(outer) : 0;
    int64_t bodyOps = 0;
    if (outer)
      outer.getBody()->walk([&](Operation *) { ++bodyOps; });
    if (!outer || copies + trips > kMaxUnrolledCopies ||
        ops + trips * bodyOps > kMaxUnrolledOps ||
        failed(loopUnrollFull(outer)))
      return;
    copies += trips;
    ops += trips * bodyOps;
    root->setAttr(kUnrolledAttrName, UnitAttr::get(root->getContext()));
    // (In program order, so a fold's constant feeds the next op's fold.)
    OperationFolder folder(root->getContext());
    SmallVector<Operation *> arith;
    root->walk([&](Operation *op) {
      if (op->getName().getDialectNamespace() == "arith" &&
          !isa<arith::ConstantOp>(op) && isPure(op))
        arith.push_back(op);
    });
    for (Operation *op : arith)
      if (llvm::all_of(op->getOperands(), [](Value v) {
            return v.getDefiningOp<arith::ConstantOp>();
          }))
        (void)folder.tryToFold(op);
    llvm::DenseSet<Operation *> before;
    root->walk([&](scf::ForOp loop) { before.insert(loop); });
    rewriteCountedWhiles(root);
    root->walk([&](scf::ForOp loop) {
      if (!before.contains(loop))
        loop->setAttr(kFromUnrolledCopy, UnitAttr::get(root->getContext()));
    });
  }
}

} // namespace

OwningOpRef<gpu::GPUFuncOp> mlir::amk::normalizeForChecks(gpu::GPUFuncOp func) {
  bool branches = hasBranches(func);
  bool multiDim = func->walk([](Operation *op) {
                        return isMultiDimAccess(op) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
                      })
                      .wasInterrupted();
  bool countedWhiles = hasCountedWhile(func);
  bool aggregated = hasWarpAggregatedTakes(func);
  bool triangular = hasTriangularNest(func);
  if (!branches && !multiDim && !countedWhiles && !aggregated && !triangular)
    return nullptr;
  OwningOpRef<gpu::GPUFuncOp> copy = cast<gpu::GPUFuncOp>(func->clone());
  if (branches && failed(liftBranches(*copy)))
    return nullptr;
  // (After the lifting: a loop of branches may become such a while loop.)
  rewriteCountedWhiles(*copy);
  unrollTriangularNests(*copy);
  rewriteWarpAggregatedTakes(*copy);
  if (multiDim)
    unrollVectorAccesses(*copy);
  return copy;
}
