//===- WarpAggregation.cpp - Warp-aggregated slot takes -------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "WarpAggregation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::amk;

namespace {

/// `v` through integer casts (a lane number survives every one of them).
Value stripCasts(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
             arith::ExtSIOp, arith::TruncIOp>(op))
      break;
    v = op->getOperand(0);
  }
  return v;
}

/// Whether `v` is the thread's lane: gpu.lane_id, nvvm's laneid, or the
/// thread id x modulo 32 (andi 31) in blocks whose x size is a multiple of
/// 32 (warps are cut from the linear thread id).
bool isLane(Value v, Operation *kernel) {
  v = stripCasts(v);
  Operation *op = v.getDefiningOp();
  if (isa_and_nonnull<gpu::LaneIdOp, NVVM::LaneIdOp>(op))
    return true;
  if (!isa_and_nonnull<arith::RemUIOp, arith::AndIOp>(op))
    return false;
  std::optional<int64_t> c = getConstantIntValue(op->getOperand(1));
  if (!c || *c != (isa<arith::RemUIOp>(op) ? 32 : 31))
    return false;
  Operation *tid = stripCasts(op->getOperand(0)).getDefiningOp();
  bool x = (isa_and_nonnull<gpu::ThreadIdOp>(tid) &&
            cast<gpu::ThreadIdOp>(tid).getDimension() == gpu::Dimension::x) ||
           isa_and_nonnull<NVVM::ThreadIdXOp>(tid);
  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  DenseI32ArrayAttr block = func ? func.getKnownBlockSizeAttr() : nullptr;
  return x && block && block.size() == 3 && block[0] > 0 && block[0] % 32 == 0;
}

/// The predicate of a ballot over the whole warp that `mask` is.
Value getBallotPredicate(Value mask) {
  auto vote = mask.getDefiningOp<NVVM::VoteSyncOp>();
  if (!vote || vote.getKind() != NVVM::VoteSyncKind::ballot)
    return {};
  std::optional<int64_t> members = getConstantIntValue(vote.getMask());
  if (!members || (*members & 0xffffffff) != 0xffffffff)
    return {};
  return vote.getPred();
}

/// The value `v` counts the set bits of.
Value getPopcountOf(Value v) {
  Operation *op = v.getDefiningOp();
  if (isa_and_nonnull<math::CtPopOp, LLVM::CtPopOp>(op))
    return op->getOperand(0);
  return {};
}

/// Whether `v` is the lanes below the thread's: nvvm's lanemask_lt, or
/// (1 << lane) - 1.
bool isLanesBelow(Value v, Operation *kernel) {
  if (v.getDefiningOp<NVVM::LaneMaskLtOp>())
    return true;
  auto sub = v.getDefiningOp<arith::SubIOp>();
  auto shift = sub ? sub.getLhs().getDefiningOp<arith::ShLIOp>() : nullptr;
  return shift && getConstantIntValue(sub.getRhs()) == 1 &&
         getConstantIntValue(shift.getLhs()) == 1 &&
         isLane(shift.getRhs(), kernel);
}

/// Whether `leader` names one lane that every lane agrees on: a constant
/// lane, or the lowest set bit of `mask` (none when the mask is empty, and
/// then no lane uses the run).
bool isLeader(Value leader, Value mask) {
  if (std::optional<int64_t> c = getConstantIntValue(leader))
    return *c >= 0 && *c < 32;
  Operation *op = stripCasts(leader).getDefiningOp();
  return isa_and_nonnull<math::CountTrailingZerosOp,
                         LLVM::CountTrailingZerosOp>(op) &&
         op->getOperand(0) == mask;
}

/// Whether two values name the same lane: the same value, or equal
/// constants.
bool sameLane(Value a, Value b) {
  std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(b);
  if (x || y)
    return x && y && *x == *y;
  return stripCasts(a) == stripCasts(b);
}

struct Take {
  memref::AtomicRMWOp add;
  /// Each lane's position, used only in `guard`'s then branch.
  Value position;
  scf::IfOp guard;
};

/// The warp-aggregated take whose leader's add is `add`, if it is one.
std::optional<Take> matchTake(memref::AtomicRMWOp add, Operation *kernel) {
  // Whole warps only: a lane the ballot names must exist (a constant leader
  // too).
  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  DenseI32ArrayAttr block = func ? func.getKnownBlockSizeAttr() : nullptr;
  if (add.getKind() != arith::AtomicRMWKind::addi || !block ||
      block.size() != 3 || int64_t(block[0]) * block[1] * block[2] % 32 != 0)
    return std::nullopt;
  Value mask = getPopcountOf(add.getValue());
  Value pred = mask ? getBallotPredicate(mask) : Value();
  // if (lane == leader) { first = add; yield first } else { yield ... }
  auto branch = dyn_cast<scf::IfOp>(add->getParentOp());
  auto yield = branch
                   ? dyn_cast<scf::YieldOp>(branch.thenBlock()->getTerminator())
                   : nullptr;
  auto test =
      branch ? branch.getCondition().getDefiningOp<arith::CmpIOp>() : nullptr;
  if (!pred || !yield || !test ||
      test.getPredicate() != arith::CmpIPredicate::eq ||
      add->getBlock() != branch.thenBlock())
    return std::nullopt;
  Value leader = isLane(test.getLhs(), kernel)   ? test.getRhs()
                 : isLane(test.getRhs(), kernel) ? test.getLhs()
                                                 : Value();
  if (!leader || !isLeader(leader, mask))
    return std::nullopt;
  // The counter's indices come from before the branch: they hold at the
  // per-lane takes after it.
  for (Value index : add.getIndices())
    if (branch->isAncestor(index.getParentBlock()->getParentOp()))
      return std::nullopt;
  // (The add's count reaches the lanes only through the shuffle: the
  // rewrite drops it.)
  if (!add.getResult().hasOneUse() ||
      !isa<scf::YieldOp>(*add.getResult().getUsers().begin()))
    return std::nullopt;
  auto yielded = llvm::find(yield.getOperands(), add.getResult());
  Value first = branch.getResult(yielded - yield.getOperands().begin());
  if (!first.hasOneUse())
    return std::nullopt;
  // first = shuffle idx first, leader (width 32); pos = first + rank.
  for (Operation *user : first.getUsers()) {
    auto shuffle = dyn_cast<gpu::ShuffleOp>(user);
    if (!shuffle || shuffle.getMode() != gpu::ShuffleMode::IDX ||
        shuffle.getValue() != first ||
        getConstantIntValue(shuffle.getWidth()) != 32 ||
        !sameLane(shuffle.getOffset(), leader) ||
        shuffle->getBlock() != branch->getBlock() ||
        !shuffle.getShuffleResult().hasOneUse())
      continue;
    for (Operation *sum : shuffle.getShuffleResult().getUsers()) {
      auto addi = dyn_cast<arith::AddIOp>(sum);
      if (!addi)
        continue;
      Value rank = addi.getLhs() == shuffle.getShuffleResult() ? addi.getRhs()
                                                               : addi.getLhs();
      auto below = getPopcountOf(rank).getDefiningOp<arith::AndIOp>();
      if (!below ||
          !((below.getLhs() == mask && isLanesBelow(below.getRhs(), kernel)) ||
            (below.getRhs() == mask && isLanesBelow(below.getLhs(), kernel))))
        continue;
      // Every use of the position in one `if (p)`, after it in its block.
      Value position = addi.getResult();
      scf::IfOp guard;
      bool guarded = !position.use_empty();
      for (Operation *use : position.getUsers()) {
        Operation *top = addi->getBlock()->findAncestorOpInBlock(*use);
        auto ifOp = dyn_cast_or_null<scf::IfOp>(top);
        guarded &= ifOp && ifOp.getCondition() == pred &&
                   ifOp.getThenRegion().isAncestor(use->getParentRegion()) &&
                   (!guard || guard == ifOp);
        guard = ifOp;
      }
      if (guarded)
        return Take{add, position, guard};
    }
  }
  return std::nullopt;
}

void collectTakes(Operation *root, SmallVectorImpl<Take> &takes) {
  root->walk([&](memref::AtomicRMWOp add) {
    Operation *kernel = add->getParentOfType<gpu::GPUFuncOp>();
    if (std::optional<Take> take =
            kernel ? matchTake(add, kernel) : std::nullopt)
      takes.push_back(*take);
  });
}

} // namespace

bool mlir::amk::hasWarpAggregatedTakes(Operation *root) {
  SmallVector<Take> takes;
  collectTakes(root, takes);
  return !takes.empty();
}

void mlir::amk::rewriteWarpAggregatedTakes(Operation *root) {
  SmallVector<Take> takes;
  collectTakes(root, takes);
  for (Take &take : takes) {
    memref::AtomicRMWOp add = take.add;
    OpBuilder b(take.guard.thenBlock(), take.guard.thenBlock()->begin());
    Type type = add.getValue().getType();
    Value one =
        arith::ConstantOp::create(b, add.getLoc(), b.getIntegerAttr(type, 1));
    auto slot =
        memref::AtomicRMWOp::create(b, add.getLoc(), arith::AtomicRMWKind::addi,
                                    one, add.getMemref(), add.getIndices());
    take.position.replaceAllUsesWith(slot.getResult());
    b.setInsertionPoint(add);
    Value zero =
        arith::ConstantOp::create(b, add.getLoc(), b.getIntegerAttr(type, 0));
    add.getResult().replaceAllUsesWith(zero);
    add.erase();
  }
}
