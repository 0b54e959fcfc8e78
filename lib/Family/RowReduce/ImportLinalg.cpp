//===- ImportLinalg.cpp - Raise linalg softmax and reductions -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// linalg.softmax over the last dimension, and linalg.reduce of the last
// dimension with an addf or maximumf combiner, on memrefs, become
// amk.row_reduce. linalg.reduce folds into the init's contents; AMK's row
// reductions overwrite, so a fill of the init with the combiner's identity
// (0 for addf, -inf for maximumf) right before is required and removed.
// AMK accumulates in f32, at least as precise as the init's type.
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/RowReduce/RowReduceModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace mlir::amk;

static bool isRowType(Type t) { return t.isF32() || t.isF16() || t.isBF16(); }

/// Why `input` and `output` cannot be a row problem's x and y, or "".
static std::string checkBuffers(Value input, Value output) {
  auto x = dyn_cast<MemRefType>(input.getType());
  auto y = dyn_cast<MemRefType>(output.getType());
  if (!x || !y)
    return "";
  if (!isRowType(x.getElementType()) || !isRowType(y.getElementType()))
    return "element types must be f32, f16 or bf16";
  if (x.getRank() != 2 && x.getRank() != 3)
    return "the input must be rank 2 or 3 (rows of the last dimension)";
  if (!x.getLayout().isIdentity() || !y.getLayout().isIdentity())
    return "buffers must be contiguous row-major (identity layout)";
  return "";
}

/// The kind of reduction `reduce`'s combiner computes: one addf or
/// maximumf of its two block arguments, yielded.
static std::optional<RowOp> getCombinerKind(linalg::ReduceOp reduce) {
  Block &body = reduce.getCombiner().front();
  if (body.getNumArguments() != 2 || body.getOperations().size() != 2)
    return std::nullopt;
  Operation &combine = body.front();
  auto yield = dyn_cast<linalg::YieldOp>(body.back());
  if (!yield || yield->getNumOperands() != 1 ||
      yield->getOperand(0) != combine.getResult(0))
    return std::nullopt;
  auto isArgs = [&](Operation &op) {
    Value a = op.getOperand(0), b = op.getOperand(1);
    return (a == body.getArgument(0) && b == body.getArgument(1)) ||
           (a == body.getArgument(1) && b == body.getArgument(0));
  };
  if (isa<arith::AddFOp>(combine) && isArgs(combine))
    return RowOp::sum;
  if (isa<arith::MaximumFOp>(combine) && isArgs(combine))
    return RowOp::max;
  return std::nullopt;
}

/// The fill of `buffer` with the identity of `kind` right before `op`.
static linalg::FillOp getIdentityFillBefore(Operation *op, Value buffer,
                                            RowOp kind) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  if (!fill || fill.getOutputs().size() != 1 || fill.getOutputs()[0] != buffer)
    return {};
  Value value = fill.getInputs()[0];
  if (kind == RowOp::sum)
    return matchPattern(value, m_PosZeroFloat()) ? fill : linalg::FillOp();
  APFloat constant(0.0);
  if (!matchPattern(value, m_ConstantFloat(&constant)) ||
      !constant.isInfinity() || !constant.isNegative())
    return {};
  return fill;
}

static LogicalResult importSoftmax(RewriterBase &rewriter, linalg::SoftmaxOp op,
                                   ImportDecline &why) {
  Value x = op.getInput(), y = op.getOutput();
  if (!isa<MemRefType>(x.getType())) {
    why.reason = "operates on tensors; bufferize first (amk.row_reduce takes "
                 "memrefs)";
    return failure();
  }
  why.isError = true;
  why.reason = checkBuffers(x, y);
  if (!why.reason.empty())
    return failure();
  int64_t last = cast<MemRefType>(x.getType()).getRank() - 1;
  if (static_cast<int64_t>(op.getDimension()) != last) {
    why.reason = "softmax over dimension " + std::to_string(op.getDimension()) +
                 ": AMK normalizes rows, the last dimension (" +
                 std::to_string(last) + ")";
    return failure();
  }
  rewriter.setInsertionPoint(op);
  RowReduceOp::create(rewriter, op.getLoc(), x, Value(), Value(), y,
                      RowOpAttr::get(rewriter.getContext(), RowOp::softmax),
                      FloatAttr());
  rewriter.eraseOp(op);
  return success();
}

static LogicalResult importReduce(RewriterBase &rewriter, linalg::ReduceOp op,
                                  ImportDecline &why) {
  if (!op.hasPureBufferSemantics()) {
    why.reason = "operates on tensors; bufferize first (amk.row_reduce takes "
                 "memrefs)";
    return failure();
  }
  why.isError = true;
  if (op.getInputs().size() != 1 || op.getInits().size() != 1) {
    why.reason = "reduces several buffers at once; AMK reduces one";
    return failure();
  }
  Value x = op.getInputs()[0], y = op.getInits()[0];
  why.reason = checkBuffers(x, y);
  if (!why.reason.empty())
    return failure();
  int64_t last = cast<MemRefType>(x.getType()).getRank() - 1;
  if (op.getDimensions() != ArrayRef<int64_t>{last}) {
    why.reason = "reduces dimensions other than exactly the last; AMK "
                 "reduces rows (the last dimension)";
    return failure();
  }
  std::optional<RowOp> kind = getCombinerKind(op);
  if (!kind) {
    why.reason = "the combiner is not a known one (one arith.addf or "
                 "arith.maximumf of the two block arguments)";
    return failure();
  }
  linalg::FillOp fill = getIdentityFillBefore(op, y, *kind);
  if (!fill) {
    why.reason = std::string("folds into the init's contents; AMK's row ") +
                 (*kind == RowOp::sum ? "sum" : "max") +
                 " overwrites it: fill the init with " +
                 (*kind == RowOp::sum ? "0.0" : "-inf") +
                 " right before the reduce";
    return failure();
  }
  rewriter.setInsertionPoint(op);
  RowReduceOp::create(rewriter, op.getLoc(), x, Value(), Value(), y,
                      RowOpAttr::get(rewriter.getContext(), *kind),
                      FloatAttr());
  rewriter.eraseOp(fill);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult mlir::amk::importLinalgRowOp(RewriterBase &rewriter,
                                           Operation *op, ImportDecline &why) {
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op))
    return importSoftmax(rewriter, softmax, why);
  if (auto reduce = dyn_cast<linalg::ReduceOp>(op))
    return importReduce(rewriter, reduce, why);
  why.reason = "not a linalg.softmax or linalg.reduce";
  return failure();
}
