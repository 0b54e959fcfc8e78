//===- GemmSynthesis.cpp - GEMM kernels from a gemm config ----------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Two math paths share one skeleton:
//
//   tile = swizzle(blockIdx.x); batch = blockIdx.z
//   prologue: fill the shared-memory pipeline
//   for kt in [0, ceil(K / BK)):   stage k-tile kt+1.. while computing kt
//   epilogue: alpha, beta * C, bias, activation; masked stores of C
//
// simt      f32 FMAs on a TM x TN register tile per thread; global tiles are
//           staged through registers into double-buffered K-major shared
//           tiles (one barrier per k-tile).
// mma_sync  warp-level m16n8k16 tensor-core MMAs; operands move global ->
//           shared with cp.async (zero-filled outside the matrix) in a
//           multi-stage ring, XOR-swizzled in 16-byte chunks so that ldmatrix
//           reads are free of bank conflicts. Operands whose rows are not
//           4-byte aligned (an odd contiguous extent) are copied through
//           registers instead, into the same ring.
//
// Every global access is guarded or clamped so that it stays inside its
// buffer for all sizes, static or dynamic.
//
//===----------------------------------------------------------------------===//

#include "GemmSynthesisBuilder.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::gemm;

//===----------------------------------------------------------------------===//
// Shared skeleton
//===----------------------------------------------------------------------===//

Value GemmKernelBuilder::dimOf(Value memref, int64_t dim, int64_t staticSize) {
  if (!ShapedType::isDynamic(staticSize))
    return m.c(staticSize);
  return memref::DimOp::create(b, memref, dim);
}

/// `source[batch]`: the operand without its leading batch dimension.
static Value selectBatch(ImplicitLocOpBuilder &b, Value source, Value batch) {
  auto type = cast<MemRefType>(source.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[0] = batch;
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
  for (int64_t d = 1; d < rank; ++d)
    sizes.push_back(memref::getMixedSize(b, b.getLoc(), source, d));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto resultType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, cast<MemRefType>(resultType), source,
                                   offsets, sizes, strides);
}

void GemmKernelBuilder::setupOperands(ArrayRef<Value> operands, Value batch) {
  // Batched operands are [batch, ...]: work on this block's batch.
  auto operand = [&](unsigned i) {
    return p.batched ? selectBatch(b, operands[i], batch) : operands[i];
  };
  unsigned arg = 0;
  a = operand(arg++);
  bMat = operand(arg++);
  if (p.bias)
    bias = operand(arg++);
  c = operand(arg++);
  sizeM = dimOf(c, 0, p.m);
  sizeN = dimOf(c, 1, p.n);
  sizeK = dimOf(a, p.transposeA ? 0 : 1, p.k);
}

void GemmKernelBuilder::setupTile() {
  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  warp = m.div(tid, 32);
  lane = m.rem(tid, 32);
  // Rasterize tiles in groups of `swizzle` tile rows so that blocks running
  // at the same time share rows of A and columns of B in L2.
  Value pid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value tilesM = m.ceilDiv(sizeM, config.getBlockM());
  Value tilesN = m.ceilDiv(sizeN, config.getBlockN());
  Value tileM, tileN;
  int64_t group = config.getSwizzle();
  if (group == 1) {
    tileM = m.div(pid, tilesN);
    tileN = m.rem(pid, tilesN);
  } else {
    Value perGroup = m.mul(tilesN, group);
    Value firstM = m.mul(m.div(pid, perGroup), group);
    Value groupRows = m.min(m.sub(tilesM, firstM), m.c(group));
    Value inGroup = m.rem(pid, perGroup);
    tileM = m.add(firstM, m.rem(inGroup, groupRows));
    tileN = m.div(inGroup, groupRows);
  }
  m0 = m.mul(tileM, config.getBlockM());
  n0 = m.mul(tileN, config.getBlockN());
  smem = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                         gpu::AddressSpaceAttr::get(
                             b.getContext(), gpu::AddressSpace::Workgroup)));
}

void GemmKernelBuilder::build(gpu::GPUFuncOp func) {
  b.setInsertionPointToStart(&func.getBody().front());
  SmallVector<Value> operands(func.getArguments());
  // Grid z enumerates batch x split_k.
  Value z = gpu::BlockIdOp::create(b, gpu::Dimension::z);
  int64_t splits = config.getSplitK();
  Value batch = splits == 1 ? z : m.div(z, splits);
  // (z < batch x split_k, so z / split_k < batch: the clamp, a no-op, says
  // so to the range analysis, which bounds z itself but not z / split_k.)
  if (splits > 1 && p.batched && !ShapedType::isDynamic(p.batch))
    batch = m.min(batch, m.c(p.batch - 1));
  Value split = splits == 1 ? m.c(0) : m.rem(z, splits);
  // The launch sizes grid z by C's batch; an operand with a dynamic batch
  // may hold fewer. Blocks past any operand's batch do nothing (this guard
  // is also what proves each batch subview in bounds).
  Value inBatch;
  if (p.batched) {
    for (Value operand : operands) {
      if (!cast<MemRefType>(operand.getType()).isDynamicDim(0))
        continue;
      Value inside = m.lt(batch, memref::DimOp::create(b, operand, 0));
      inBatch = inBatch ? m.andi(inBatch, inside) : inside;
    }
  }
  if (inBatch) {
    auto ifOp = scf::IfOp::create(b, TypeRange{}, inBatch, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    buildBody(operands, batch, split);
  } else {
    buildBody(operands, batch, split);
  }
  gpu::ReturnOp::create(b);
}

void GemmKernelBuilder::buildBody(ArrayRef<Value> operands, Value batch,
                                  Value split) {
  setupOperands(operands, batch);
  setupTile();
  // Split-K: split s takes k-tiles [s * per, min((s + 1) * per, all)).
  Value allTiles = m.ceilDiv(sizeK, config.getBlockK());
  if (config.getSplitK() == 1) {
    kTileBegin = m.c(0);
    kTiles = allTiles;
  } else {
    Value per = m.ceilDiv(allTiles, config.getSplitK());
    kTileBegin = m.mul(split, per);
    Value end = m.min(allTiles, m.add(kTileBegin, per));
    kTiles = m.select(m.lt(kTileBegin, end), m.sub(end, kTileBegin), m.c(0));
  }
  if (config.getMath() == MathInst::simt)
    buildSimt();
  else
    buildMmaSync();
}

//===----------------------------------------------------------------------===//
// Epilogue
//===----------------------------------------------------------------------===//

Value GemmKernelBuilder::applyActivation(Value x) {
  switch (p.activation) {
  case Activation::none:
    return x;
  case Activation::relu:
    return arith::MaximumFOp::create(b, x, f32(0.0));
  case Activation::gelu: {
    // The exact (erf) form: 0.5 x (1 + erf(x / sqrt(2))).
    Value erf =
        math::ErfOp::create(b, arith::MulFOp::create(b, x, f32(M_SQRT1_2)));
    Value half = arith::MulFOp::create(b, x, f32(0.5));
    return arith::MulFOp::create(b, half,
                                 arith::AddFOp::create(b, erf, f32(1.0)));
  }
  case Activation::silu: {
    // x * sigmoid(x) = x / (1 + exp(-x)).
    Value e = math::ExpOp::create(b, arith::NegFOp::create(b, x));
    return arith::DivFOp::create(b, x, arith::AddFOp::create(b, e, f32(1.0)));
  }
  }
  llvm_unreachable("unknown activation");
}

SmallVector<Value> GemmKernelBuilder::loadBias(Value col, int64_t width) {
  SmallVector<Value> values;
  if (!bias)
    return values;
  // The bias has its own (equal) size: its reads are clamped by it.
  Value biasN = operandDim(bias, 0);
  for (int64_t i = 0; i < width; ++i) {
    Value colI = m.add(col, i);
    Value v = memref::LoadOp::create(
        b, bias, ValueRange{m.select(m.lt(colI, biasN), colI, m.c(0))});
    if (p.outType != b.getF32Type())
      v = arith::ExtFOp::create(b, b.getF32Type(), v);
    values.push_back(v);
  }
  return values;
}

void GemmKernelBuilder::storeOutput(Value row, Value col,
                                    ArrayRef<Value> values,
                                    ArrayRef<Value> biasValues) {
  Type outType = p.outType;
  Type f32Type = b.getF32Type();
  int64_t width = values.size();
  auto finish = [&](Value acc, Value r, Value cIdx, int64_t i) -> Value {
    Value v = acc;
    if (p.alpha != 1.0)
      v = arith::MulFOp::create(b, v, f32(p.alpha));
    if (p.beta != 0.0) {
      Value old = memref::LoadOp::create(b, c, ValueRange{r, cIdx});
      if (outType != f32Type)
        old = arith::ExtFOp::create(b, f32Type, old);
      v = arith::AddFOp::create(b, v,
                                arith::MulFOp::create(b, old, f32(p.beta)));
    }
    if (bias)
      v = arith::AddFOp::create(b, v, biasValues[i]);
    v = applyActivation(v);
    if (outType != f32Type)
      v = arith::TruncFOp::create(b, outType, v);
    return v;
  };

  Value rowOk = m.lt(row, sizeM);
  // A whole run is stored with one vector store when C's rows keep the run
  // aligned: N a static multiple of the run, so `col` (a multiple of the run)
  // is in bounds exactly when the whole run is.
  bool vectorStore = width > 1 && !ShapedType::isDynamic(p.n) &&
                     p.n % width == 0 && p.beta == 0.0 &&
                     config.getSplitK() == 1;
  if (vectorStore) {
    Value ok = m.andi(rowOk, m.lt(col, sizeN));
    auto ifOp = scf::IfOp::create(b, ok, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> outs;
    for (int64_t i = 0; i < width; ++i)
      outs.push_back(finish(values[i], row, m.add(col, i), i));
    auto vecType = VectorType::get({width}, outType);
    Value vec = vector::FromElementsOp::create(b, vecType, outs);
    int64_t align = width * p.outBytes();
    vector::StoreOp::create(b, vec, c, ValueRange{row, col},
                            /*nontemporal=*/false, llvm::MaybeAlign(align));
    return;
  }
  for (int64_t i = 0; i < width; ++i) {
    Value colI = m.add(col, i);
    auto ifOp = scf::IfOp::create(b, m.andi(rowOk, m.lt(colI, sizeN)), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value v = finish(values[i], row, colI, i);
    // Split-K: every split adds its partial sum to C, which the launch
    // zeroes first (f32 only, no beta, bias or activation: see
    // checkGemmLowerable).
    if (config.getSplitK() > 1)
      memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addf, v, c,
                                  ValueRange{row, colI});
    else
      memref::StoreOp::create(b, v, c, ValueRange{row, colI});
  }
}

FailureOr<gpu::GPUFuncOp>
mlir::amk::synthesizeGemmKernel(gpu::GPUModuleOp module, KernelOp kernel,
                                GemmConfigAttr config, StringRef name) {
  auto matmul = cast<MatmulOp>(kernel.getProblem().getOperation());
  GemmProblem problem = GemmProblem::get(matmul);
  // The arch decides which instructions exist: never emit one it lacks.
  TargetAttr target = lookupTarget(kernel);
  if (!target)
    return kernel.emitOpError("has no #amk.target to synthesize for");
  std::string whyNot;
  if (failed(checkGemmLowerable(config, problem, target.getSpec(), whyNot)))
    return kernel.emitOpError("cannot synthesize ") << config << ": " << whyNot;

  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> argTypes;
  for (auto [i, operand] : llvm::enumerate(matmul.getKernelOperands()))
    argTypes.push_back(
        getKernelOperandType(problem, i, cast<MemRefType>(operand.getType())));
  auto func = gpu::GPUFuncOp::create(builder, kernel.getLoc(), name,
                                     builder.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                builder.getUnitAttr());
  func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(config.getThreads()), 1, 1}));

  ImplicitLocOpBuilder b(kernel.getLoc(), builder);
  GemmKernelBuilder(b, config, problem).build(func);
  return func;
}
