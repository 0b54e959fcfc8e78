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

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ControlFlowToSCF/ControlFlowToSCF.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
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

} // namespace

OwningOpRef<gpu::GPUFuncOp> mlir::amk::normalizeForChecks(gpu::GPUFuncOp func) {
  bool branches = hasBranches(func);
  bool multiDim = func->walk([](Operation *op) {
                        return isMultiDimAccess(op) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
                      })
                      .wasInterrupted();
  if (!branches && !multiDim)
    return nullptr;
  OwningOpRef<gpu::GPUFuncOp> copy = cast<gpu::GPUFuncOp>(func->clone());
  if (branches && failed(liftBranches(*copy)))
    return nullptr;
  if (multiDim)
    unrollVectorAccesses(*copy);
  return copy;
}
