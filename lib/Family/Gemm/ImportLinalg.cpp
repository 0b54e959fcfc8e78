//===- ImportLinalg.cpp - Raise linalg matmuls to amk.matmul --------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Gemm/GemmFamily.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::amk;

/// The indexing maps of a (batched) matmul over loops (b?, m, n, k), with A
/// and/or B transposed.
static SmallVector<AffineMap> matmulMaps(MLIRContext *ctx, bool batched,
                                         bool transposeA, bool transposeB) {
  unsigned numDims = batched ? 4 : 3;
  unsigned off = batched ? 1 : 0;
  AffineExpr m = getAffineDimExpr(off, ctx), n = getAffineDimExpr(off + 1, ctx),
             k = getAffineDimExpr(off + 2, ctx);
  auto map = [&](AffineExpr x, AffineExpr y) {
    SmallVector<AffineExpr> exprs;
    if (batched)
      exprs.push_back(getAffineDimExpr(0, ctx));
    exprs.append({x, y});
    return AffineMap::get(numDims, 0, exprs, ctx);
  };
  return {transposeA ? map(k, m) : map(m, k),
          transposeB ? map(n, k) : map(k, n), map(m, n)};
}

/// Whether `op` is a `linalg.fill` of `buffer` with +0.0 right before `next`.
static linalg::FillOp getZeroFillBefore(Operation *next, Value buffer) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(next->getPrevNode());
  if (!fill || fill.getOutputs().size() != 1 || fill.getOutputs()[0] != buffer)
    return {};
  if (!matchPattern(fill.getInputs()[0], m_PosZeroFloat()))
    return {};
  return fill;
}

LogicalResult mlir::amk::importLinalgMatmul(RewriterBase &rewriter,
                                            Operation *op,
                                            std::string &whyNot) {
  bool batched = isa<linalg::BatchMatmulOp>(op);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !(batched || isa<linalg::MatmulOp>(op))) {
    whyNot = "not a linalg.matmul or linalg.batch_matmul";
    return failure();
  }
  if (!linalgOp.hasPureBufferSemantics()) {
    whyNot = "operates on tensors; bufferize first (amk.matmul takes memrefs)";
    return failure();
  }
  if (auto castAttr = op->getAttrOfType<linalg::TypeFnAttr>("cast");
      castAttr && castAttr.getValue() != linalg::TypeFn::cast_signed) {
    whyNot = "has a non-default 'cast'";
    return failure();
  }
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  std::optional<std::pair<bool, bool>> transposes;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      if (maps == matmulMaps(op->getContext(), batched, ta, tb))
        transposes = {ta, tb};
  if (!transposes) {
    whyNot = "has indexing maps other than a plain or transposed product "
             "(broadcasts are not supported)";
    return failure();
  }
  Value a = linalgOp.getDpsInputs()[0], b = linalgOp.getDpsInputs()[1];
  Value c = linalgOp.getDpsInits()[0];
  auto elemType = [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  };
  Type in = elemType(a), out = elemType(c);
  if (elemType(b) != in || !(in.isF32() || in.isF16() || in.isBF16()) ||
      !(out.isF32() || out == in)) {
    whyNot = "has element types amk.matmul does not take (A and B f32, f16 or "
             "bf16 alike; C f32 or the input type)";
    return failure();
  }

  linalg::FillOp zeroFill = getZeroFillBefore(op, c);
  rewriter.setInsertionPoint(op);
  auto matmul = MatmulOp::create(rewriter, op->getLoc(), a, b, c);
  matmul.setTransposeA(transposes->first);
  matmul.setTransposeB(transposes->second);
  // linalg accumulates into C; a zero fill right before makes it a plain store.
  if (zeroFill)
    rewriter.eraseOp(zeroFill);
  else
    matmul.setBetaAttr(rewriter.getF64FloatAttr(1.0));
  rewriter.eraseOp(op);
  return success();
}
