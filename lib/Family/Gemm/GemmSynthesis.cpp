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

#include "GemmSynthesis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/Support/MathExtras.h"

#include <deque>
#include <functional>

using namespace mlir;
using namespace mlir::amk;

namespace {

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

/// Short names for index arithmetic, so that the kernels read like the math.
struct IndexMath {
  ImplicitLocOpBuilder &b;

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value add(Value x, int64_t y) { return y == 0 ? x : add(x, c(y)); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, c(y)); }
  Value div(Value x, int64_t y) {
    return y == 1 ? x : arith::DivUIOp::create(b, x, c(y));
  }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, x, y); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, x, c(y)); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, x, y); }
  Value xori(Value x, Value y) { return arith::XOrIOp::create(b, x, y); }
  Value min(Value x, Value y) { return arith::MinUIOp::create(b, x, y); }
  Value ceilDiv(Value x, int64_t y) { return div(add(x, y - 1), y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, y);
  }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, cond, x, y);
  }
};

//===----------------------------------------------------------------------===//
// Shared skeleton
//===----------------------------------------------------------------------===//

class GemmKernelBuilder {
public:
  GemmKernelBuilder(ImplicitLocOpBuilder &b, GemmConfigAttr config,
                    const GemmProblem &problem)
      : b(b), m{b}, config(config), p(problem),
        layout(getGemmSmemLayout(config, problem)) {}

  /// Emits the kernel body into `func` (whose entry block is empty).
  void build(gpu::GPUFuncOp func);

private:
  /// Everything inside the batch guard.
  void buildBody(ArrayRef<Value> operands, Value batch, Value split);

  // Setup.
  /// A, B, [bias], C: the kernel's arguments; `batch` this block's batch.
  void setupOperands(ArrayRef<Value> operands, Value batch);
  void setupTile();
  Value dimOf(Value memref, int64_t dim, int64_t staticSize);
  /// Size `dim` of a rank-2 (per-batch) operand: a constant when static.
  Value operandDim(Value memref, int64_t dim) {
    return dimOf(memref, dim,
                 cast<MemRefType>(memref.getType()).getDimSize(dim));
  }

  // Paths.
  void buildSimt();
  void buildMmaSync();
  /// The tensor-core main loop, A and B loaded `aVec` and `bVec` wide:
  /// returns the warp tile's accumulators (4 per m16n8 tile, row-major).
  SmallVector<Value> buildMmaSyncMainLoop(int64_t aVec, int64_t bVec);
  /// Stores the accumulators of buildMmaSyncMainLoop through the epilogue.
  void storeMmaSyncAccumulators(ArrayRef<Value> acc);

  // Epilogue: stores `values` (f32) to C[row, col .. col + values.size()).
  // `biasValues` (from loadBias at `col`) when the operation has a bias.
  void storeOutput(Value row, Value col, ArrayRef<Value> values,
                   ArrayRef<Value> biasValues);
  /// The bias (f32) at columns col .. col + width. The reads are clamped to
  /// the bias's size, so they need no guard: loaded once per column, they
  /// serve every row a thread stores.
  SmallVector<Value> loadBias(Value col, int64_t width);
  Value applyActivation(Value x);

  /// A zero of `type` (scalar or vector).
  Value zero(Type type) {
    return arith::ConstantOp::create(b, type, b.getZeroAttr(type));
  }
  Value f32(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }

  ImplicitLocOpBuilder &b;
  IndexMath m;
  GemmConfigAttr config;
  const GemmProblem &p;
  GemmSmemLayout layout;

  // Rank-2 views of this block's batch, and the bias row.
  Value a, bMat, c, bias;
  Value sizeM, sizeN, sizeK;
  /// This block's k-tiles: [kTileBegin, kTileBegin + kTiles) (all of K, or
  /// this block's split of it).
  Value kTileBegin, kTiles;
  Value tid, warp, lane;
  /// First row and column of this block's output tile.
  Value m0, n0;
  /// The dynamic shared memory as bytes.
  Value smem;
};

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

void GemmKernelBuilder::buildMmaSync() {
  int64_t aVec = getOperandVector(config, p, true),
          bVec = getOperandVector(config, p, false);
  int64_t aFast = getOperandVersionedVector(config, p, true),
          bFast = getOperandVersionedVector(config, p, false);
  if (aFast == aVec && bFast == bVec)
    return storeMmaSyncAccumulators(buildMmaSyncMainLoop(aVec, bVec));
  // Dynamic rows: one uniform test of the row lengths picks the cp.async
  // main loop when they are multiples of the wide loads (the harness proves
  // that version under this guard), the realigning one otherwise; one
  // epilogue stores what either computed.
  Value aligned;
  for (auto [operand, vec, fast] :
       {std::tuple(a, aVec, aFast), std::tuple(bMat, bVec, bFast)}) {
    if (vec == fast)
      continue;
    Value multiple =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                              m.rem(operandDim(operand, 1), fast), m.c(0));
    aligned = aligned ? m.andi(aligned, multiple) : multiple;
  }
  int64_t numAcc = (config.getWarpM() / 16) * (config.getWarpN() / 8) * 4;
  auto ifOp = scf::IfOp::create(b, SmallVector<Type>(numAcc, b.getF32Type()),
                                aligned, true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, buildMmaSyncMainLoop(aFast, bFast));
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, buildMmaSyncMainLoop(aVec, bVec));
  }
  storeMmaSyncAccumulators(SmallVector<Value>(ifOp.getResults()));
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

//===----------------------------------------------------------------------===//
// simt
//===----------------------------------------------------------------------===//

void GemmKernelBuilder::buildSimt() {
  const int64_t bm = config.getBlockM(), bn = config.getBlockN(),
                bk = config.getBlockK(), wm = config.getWarpM(),
                wn = config.getWarpN(), tm = config.getThread()[0],
                tn = config.getThread()[1], threads = config.getThreads();
  Type f32Type = b.getF32Type();
  auto wg =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  // Shared tiles, K-major: As[stage][k][m], Bs[stage][k][n].
  auto view = [&](int64_t offsetBytes, MemRefType type) -> Value {
    return memref::ViewOp::create(b, type, smem, m.c(offsetBytes),
                                  ValueRange{});
  };
  // One static [rows][pitch] view per tile and stage.
  SmallVector<Value> as, bs;
  for (int64_t s = 0; s < layout.stages; ++s) {
    int64_t base = s * layout.stageBytes();
    as.push_back(view(base + layout.aOffsetBytes(),
                      MemRefType::get({layout.a.rows, layout.a.pitch}, f32Type,
                                      AffineMap(), wg)));
    bs.push_back(view(base + layout.bOffsetBytes(),
                      MemRefType::get({layout.b.rows, layout.b.pitch}, f32Type,
                                      AffineMap(), wg)));
  }

  // Which thread holds which part of the output tile. A thread's TM x TN
  // tile is split into chunks of up to 4 rows and 4 columns spread over the
  // warp tile (chunk q of the columns starts at q * WN / chunks), so that one
  // 16-byte shared-memory read of the warp covers 128 contiguous bytes:
  // conflict-free, where contiguous 8-wide thread tiles conflict 2-way.
  int64_t warpsN = bn / wn, lanesN = wn / tn, lanesM = wm / tm;
  const int64_t tmv = std::min<int64_t>(tm, 4), tnv = std::min<int64_t>(tn, 4);
  const int64_t chunksM = tm / tmv, chunksN = tn / tnv;
  Value warpRow = m.mul(m.div(warp, warpsN), wm);
  Value warpCol = m.mul(m.rem(warp, warpsN), wn);
  Value laneRow = m.mul(m.div(lane, lanesN), tmv);
  Value laneCol = m.mul(m.rem(lane, lanesN), tnv);
  // First row (column) of chunk q, inside the block tile.
  auto rowChunk = [&](int64_t q) {
    return m.add(warpRow, m.add(laneRow, q * lanesM * tmv));
  };
  auto colChunk = [&](int64_t q) {
    return m.add(warpCol, m.add(laneCol, q * lanesN * tnv));
  };

  // Global -> register staging. Each thread moves `loads` vectors of each
  // tile; vector i covers `vec` consecutive elements of a contiguous row.
  struct TileLoad {
    Value global;       // rank-2 operand
    bool kMajor;        // global rows run along K (no transpose needed)
    int64_t rows, cols; // the tile as stored in global memory
    int64_t vec;        // load width (elements)
  };
  // A tile in global memory: [BM][BK] (row-major A) or [BK][BM] (transposed).
  TileLoad aLoad{a, p.transposeA, p.transposeA ? bk : bm,
                 p.transposeA ? bm : bk, getOperandVector(config, p, true)};
  TileLoad bLoad{bMat, !p.transposeB, p.transposeB ? bn : bk,
                 p.transposeB ? bk : bn, getOperandVector(config, p, false)};
  auto globalOrigin = [&](const TileLoad &t, bool isA, Value k0) {
    // (row, col) of the tile's first element in the global operand.
    Value mn0 = isA ? m0 : n0;
    return t.kMajor ? std::make_pair(k0, mn0) : std::make_pair(mn0, k0);
  };
  // The operand's own sizes, so that every guard names the buffer it
  // protects (the harness matches guards to accesses symbolically).
  auto globalExtent = [&](const TileLoad &t, bool) {
    return std::make_pair(operandDim(t.global, 0), operandDim(t.global, 1));
  };
  auto loadTile = [&](const TileLoad &t, bool isA, Value k0) {
    SmallVector<Value> regs;
    const int64_t vec = t.vec;
    auto vecType = VectorType::get({vec}, f32Type);
    int64_t vecsPerRow = t.cols / vec;
    int64_t loads = t.rows * t.cols / (threads * vec);
    auto [r0, c0] = globalOrigin(t, isA, k0);
    auto [rows, cols] = globalExtent(t, isA);
    for (int64_t l = 0; l < loads; ++l) {
      Value i = m.add(tid, l * threads);
      Value gr = m.add(r0, m.div(i, vecsPerRow));
      Value gc = m.add(c0, m.mul(m.rem(i, vecsPerRow), vec));
      // `vec` divides the contiguous extent, so a vector is wholly inside or
      // wholly outside the matrix. Outside, load element (0, 0) instead and
      // discard it: no branch, so all of a thread's loads can be in flight.
      Value ok = m.andi(m.lt(gr, rows), m.lt(gc, cols));
      Value zeroIdx = m.c(0);
      SmallVector<Value, 2> idx = {m.select(ok, gr, zeroIdx),
                                   m.select(ok, gc, zeroIdx)};
      Value v = vec == 1
                    ? (Value)memref::LoadOp::create(b, t.global, idx)
                    : (Value)vector::LoadOp::create(b, vecType, t.global, idx,
                                                    /*nontemporal=*/false,
                                                    llvm::MaybeAlign(vec * 4));
      regs.push_back(m.select(ok, v, zero(v.getType())));
    }
    return regs;
  };
  auto storeTile = [&](const TileLoad &t, ArrayRef<Value> regs, Value dst) {
    const int64_t vec = t.vec;
    int64_t vecsPerRow = t.cols / vec;
    for (auto [l, v] : llvm::enumerate(regs)) {
      Value i = m.add(tid, int64_t(l) * threads);
      Value r = m.div(i, vecsPerRow);
      Value col = m.mul(m.rem(i, vecsPerRow), vec);
      if (t.kMajor) {
        // Global rows are K rows: copy the vector as is.
        if (vec == 1)
          memref::StoreOp::create(b, v, dst, ValueRange{r, col});
        else
          vector::StoreOp::create(b, v, dst, ValueRange{r, col}, false,
                                  llvm::MaybeAlign(vec * 4));
        continue;
      }
      // Global rows are M (or N) rows: transpose into the K-major tile.
      for (int64_t e = 0; e < vec; ++e) {
        Value x = vec == 1 ? v : (Value)vector::ExtractOp::create(b, v, e);
        memref::StoreOp::create(b, x, dst, ValueRange{m.add(col, e), r});
      }
    }
  };

  Value numK = kTiles;
  auto accType = VectorType::get({tn}, f32Type);
  SmallVector<Value> acc(tm, zero(accType));

  // Prologue: the first k-tile into stage 0.
  Value firstK = m.mul(kTileBegin, bk);
  storeTile(aLoad, loadTile(aLoad, true, firstK), as[0]);
  storeTile(bLoad, loadTile(bLoad, false, firstK), bs[0]);
  gpu::BarrierOp::create(b);

  // Main loop, unrolled by the two stages so each buffer is a static view.
  // Iteration kt computes stage kt % 2 and fills stage (kt + 1) % 2.
  auto computeStage = [&](Value aS, Value bS, SmallVector<Value> &acc) {
    auto aChunkType = VectorType::get({tmv}, f32Type);
    auto bChunkType = VectorType::get({tnv}, f32Type);
    for (int64_t kk = 0; kk < bk; ++kk) {
      Value k = m.c(kk);
      SmallVector<Value> a;
      for (int64_t q = 0; q < chunksM; ++q) {
        Value chunk = vector::LoadOp::create(b, aChunkType, aS,
                                             ValueRange{k, rowChunk(q)}, false,
                                             llvm::MaybeAlign(tmv * 4));
        for (int64_t e = 0; e < tmv; ++e)
          a.push_back(vector::ExtractOp::create(b, chunk, e));
      }
      Value bv =
          vector::LoadOp::create(b, bChunkType, bS, ValueRange{k, colChunk(0)},
                                 false, llvm::MaybeAlign(tnv * 4));
      if (chunksN == 2) {
        Value hi = vector::LoadOp::create(b, bChunkType, bS,
                                          ValueRange{k, colChunk(1)}, false,
                                          llvm::MaybeAlign(tnv * 4));
        bv = vector::ShuffleOp::create(
            b, bv, hi, ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
      }
      for (int64_t i = 0; i < tm; ++i) {
        Value splat = vector::BroadcastOp::create(b, accType, a[i]);
        acc[i] = vector::FMAOp::create(b, splat, bv, acc[i]);
      }
    }
  };
  auto step = [&](Value kt, int64_t cur, SmallVector<Value> &acc,
                  bool barrier) {
    Value next = m.add(kt, 1);
    Value hasNext = m.lt(next, numK);
    Value k0 = m.mul(m.add(kTileBegin, next), bk);
    // Loads past the last k-tile are all masked off (k0 >= K): harmless.
    SmallVector<Value> aRegs = loadTile(aLoad, true, k0);
    SmallVector<Value> bRegs = loadTile(bLoad, false, k0);
    computeStage(as[cur], bs[cur], acc);
    auto ifOp = scf::IfOp::create(b, hasNext, false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      storeTile(aLoad, aRegs, as[1 - cur]);
      storeTile(bLoad, bRegs, bs[1 - cur]);
    }
    if (barrier)
      gpu::BarrierOp::create(b);
  };
  // for kt in [0, numK) step 2: stage 0 then (if any) stage 1.
  auto loop = scf::ForOp::create(b, m.c(0), numK, m.c(2), acc);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> iter(loop.getRegionIterArgs());
    Value kt = loop.getInductionVar();
    step(kt, 0, iter, /*barrier=*/true);
    Value kt1 = m.add(kt, 1);
    auto second = scf::IfOp::create(b, SmallVector<Type>(tm, accType),
                                    m.lt(kt1, numK), true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(second.thenBlock());
      SmallVector<Value> inner = iter;
      step(kt1, 1, inner, /*barrier=*/false);
      scf::YieldOp::create(b, inner);
      b.setInsertionPointToStart(second.elseBlock());
      scf::YieldOp::create(b, iter);
    }
    // The second stage's barrier runs unconditionally (an extra one after
    // an odd last k-tile is harmless): the harness then counts exactly two
    // barriers per iteration.
    gpu::BarrierOp::create(b);
    scf::YieldOp::create(b, second.getResults());
  }

  // Epilogue: row i is row i % tmv of chunk i / tmv; each column chunk is a
  // run of tnv contiguous columns.
  for (int64_t q = 0; q < chunksN; ++q) {
    Value col = m.add(n0, colChunk(q));
    SmallVector<Value> biasValues = loadBias(col, tnv);
    for (int64_t i = 0; i < tm; ++i) {
      Value row = m.add(m0, m.add(rowChunk(i / tmv), i % tmv));
      SmallVector<Value> vals;
      for (int64_t j = 0; j < tnv; ++j)
        vals.push_back(
            vector::ExtractOp::create(b, loop.getResult(i), q * tnv + j));
      storeOutput(row, col, vals, biasValues);
    }
  }
}

//===----------------------------------------------------------------------===//
// mma_sync
//===----------------------------------------------------------------------===//

/// The physical 16-byte chunk of logical chunk `chunk` in row `row` of a
/// swizzled tile with `chunksPerRow` chunks per row. Any 8 consecutive rows
/// put a given logical chunk into 8 different bank groups, which makes the 8
/// row addresses of an ldmatrix conflict-free.
static Value swizzleChunk(IndexMath &m, Value row, Value chunk,
                          int64_t chunksPerRow) {
  if (chunksPerRow >= 8)
    return m.xori(chunk, m.rem(row, 8));
  int64_t rowsPerLine = 8 / chunksPerRow;
  return m.xori(chunk, m.rem(m.div(row, rowsPerLine), chunksPerRow));
}

SmallVector<Value> GemmKernelBuilder::buildMmaSyncMainLoop(int64_t aVec,
                                                           int64_t bVec) {
  const int64_t bm = config.getBlockM(), bn = config.getBlockN(),
                bk = config.getBlockK(), wm = config.getWarpM(),
                wn = config.getWarpN(), threads = config.getThreads(),
                stages = layout.stages;
  Type inType = p.inType, f32Type = b.getF32Type();
  Type f16Type = b.getF16Type(), i32Type = b.getI32Type();
  auto wg =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  // The whole ring as one flat array of input elements (for cp.async), and
  // the same bytes as f16 (ldmatrix moves 16-bit values whatever they mean).
  int64_t ringElems = stages * layout.stageBytes() / p.inBytes();
  Value ring = memref::ViewOp::create(
      b, MemRefType::get({ringElems}, inType, AffineMap(), wg), smem, m.c(0),
      ValueRange{});
  Value ring16 = inType == f16Type
                     ? ring
                     : (Value)memref::ViewOp::create(
                           b,
                           MemRefType::get({ringElems * p.inBytes() / 2},
                                           f16Type, AffineMap(), wg),
                           smem, m.c(0), ValueRange{});
  int64_t stageElems = layout.stageBytes() / p.inBytes();
  int64_t bOffset = layout.bOffsetBytes() / p.inBytes();

  // Element offset of (row, col) in a swizzled tile of `pitch` elements.
  const bool tf32 = inType.isF32();
  const int64_t chunkElems = 16 / p.inBytes(); // elements per 16-byte chunk
  auto tileOffset = [&](Value stageBase, Value row, Value col, int64_t pitch) {
    int64_t chunksPerRow = pitch / chunkElems;
    Value chunk = swizzleChunk(m, row, m.div(col, chunkElems), chunksPerRow);
    return m.add(stageBase,
                 m.add(m.mul(row, pitch), m.add(m.mul(chunk, chunkElems),
                                                m.rem(col, chunkElems))));
  };

  // One async copy per `vec` elements; outside the matrix the copy reads
  // nothing and writes zeros (src elements = 0, source index clamped to 0).
  struct TileCopy {
    Value global;
    bool isA;
    bool kMajor; // rows run along K
    int64_t rows, cols;
    int64_t vec; // copy width (elements)
  };
  TileCopy aCopy{
      a,   true, p.transposeA, p.transposeA ? bk : bm, p.transposeA ? bm : bk,
      aVec};
  TileCopy bCopy{bMat,
                 false,
                 !p.transposeB,
                 p.transposeB ? bn : bk,
                 p.transposeB ? bk : bn,
                 bVec};
  // Register-staged copies of one k-tile (copies under 4 bytes: a 16-bit
  // type at vector width 1, for which no cp.async exists): the
  // loaded values and what their store to shared memory needs, kept apart
  // so that nothing uses a loaded value before the store. A realigned chunk
  // is {lo, hi, shift, valid}; a single element {value, ok}. Every k-tile is
  // issued by the same code, so all k-tiles' copies have the same shape and
  // can be carried through the main loop. (Destinations are recomputed at
  // the store from the k-tile, so that the harness sees how they depend on
  // the thread and the loop.)
  using StagedCopies = SmallVector<SmallVector<Value, 4>>;

  // Rows that are not even 4-byte aligned (an odd contiguous extent of a
  // 16-bit type) cannot use cp.async. Rather than one 2-byte load per
  // element, each thread reads the two aligned 16-byte chunks around its 8
  // elements from a flat view of the whole buffer, shifts them into place,
  // masks what lies outside the matrix, and stores 16 bytes to shared memory.
  const int64_t realignElems = 16 / p.inBytes();
  auto canRealign = [&](const TileCopy &t) {
    return t.vec == 1 && p.inBytes() == 2 &&
           (t.rows * t.cols) % (threads * realignElems) == 0;
  };
  struct FlatView {
    Value buffer, base, pitch, end;
  };
  auto flatView = [&](Value matrix) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, matrix);
    Value pitch = meta.getStrides()[0];
    // One past the matrix's last element, counted from the buffer start.
    Value end = m.add(meta.getOffset(),
                      m.add(m.mul(m.sub(meta.getSizes()[0], m.c(1)), pitch),
                            meta.getSizes()[1]));
    auto type = MemRefType::get({ShapedType::kDynamic}, inType);
    Value buffer = memref::ReinterpretCastOp::create(
        b, type, meta.getBaseBuffer(), OpFoldResult(b.getIndexAttr(0)),
        ArrayRef<OpFoldResult>{end}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    return FlatView{buffer, meta.getOffset(), pitch, end};
  };
  std::optional<FlatView> aFlat, bFlat;
  const int64_t n = realignElems;
  auto chunkType = VectorType::get({n}, inType);
  // Loads the two aligned chunks around the n elements at (gr, gc): a
  // staged copy {lo, hi, shift, valid}.
  auto loadRealigned = [&](const FlatView &flat, Value gr, Value gc, Value rows,
                           Value cols) -> SmallVector<Value, 4> {
    Value rowOk = m.lt(gr, rows);
    Value row = m.select(rowOk, gr, m.c(0));
    Value start = m.add(flat.base, m.add(m.mul(row, flat.pitch), gc));
    Value aligned = m.mul(m.div(start, n), n);
    Value shift = m.sub(start, aligned);
    // Both chunks in bounds of the buffer, or (rare: the very end of the
    // matrix) element by element.
    // (`aligned < end` is implied, but states non-negativity for the harness
    // without trusting index arithmetic not to wrap.)
    Value fits = m.andi(m.lt(aligned, flat.end),
                        m.lt(m.add(aligned, 2 * n - 1), flat.end));
    auto ifOp =
        scf::IfOp::create(b, TypeRange{chunkType, chunkType}, fits, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value lo =
          vector::LoadOp::create(b, chunkType, flat.buffer, ValueRange{aligned},
                                 false, llvm::MaybeAlign(16));
      Value hi = vector::LoadOp::create(b, chunkType, flat.buffer,
                                        ValueRange{m.add(aligned, n)}, false,
                                        llvm::MaybeAlign(16));
      scf::YieldOp::create(b, ValueRange{lo, hi});
      // The same 2n elements one by one, the ones past the buffer's end
      // replaced by its last (they lie past the row's end: masked later).
      // Rare (the very end of the matrix), so a loop: one access for the
      // harness to check instead of 2n (LLVM unrolls it anyway).
      b.setInsertionPointToStart(ifOp.elseBlock());
      Value last = m.sub(flat.end, m.c(1));
      auto loop =
          scf::ForOp::create(b, m.c(0), m.c(n), m.c(1),
                             ValueRange{zero(chunkType), zero(chunkType)});
      {
        OpBuilder::InsertionGuard loopGuard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value e = loop.getInductionVar();
        SmallVector<Value, 2> halves;
        for (auto [h, chunk] : llvm::enumerate(loop.getRegionIterArgs())) {
          Value at = m.min(m.add(aligned, m.add(e, int64_t(h) * n)), last);
          Value elem = memref::LoadOp::create(b, flat.buffer, ValueRange{at});
          halves.push_back(
              vector::InsertOp::create(b, elem, chunk, OpFoldResult(e)));
        }
        scf::YieldOp::create(b, halves);
      }
      scf::YieldOp::create(b, loop.getResults());
    }
    // How many of the n elements lie inside the matrix (not past the row's
    // end, i.e. in the next row, nor past the last row).
    Value valid = m.select(rowOk, m.sub(cols, gc), m.c(0));
    return {ifOp.getResult(0), ifOp.getResult(1), shift, valid};
  };
  // The n elements starting at `shift` of lo ++ hi, zero past `valid`.
  // Realigning is ALU work on every chunk (with both operands unaligned it
  // outweighs the MMAs), so it works on 32-bit words: a select tree on the
  // bits of shift / 2 picks the five words from word shift / 2 on, and an
  // odd shift splices the halves of adjacent words (one funnel shift each).
  auto finishRealigned = [&](Value lo, Value hi, Value shift,
                             Value valid) -> Value {
    auto wordsType = VectorType::get({n / 2}, i32Type);
    auto i32c = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, i32Type, v);
    };
    SmallVector<Value> words;
    for (Value half : {lo, hi}) {
      Value asWords = vector::BitCastOp::create(b, wordsType, half);
      for (int64_t i = 0; i < n / 2; ++i)
        words.push_back(vector::ExtractOp::create(b, asWords, i));
    }
    Value shift32 = arith::IndexCastOp::create(b, i32Type, shift);
    auto bitSet = [&](int64_t bit) {
      return arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                   arith::AndIOp::create(b, shift32, i32c(bit)),
                                   i32c(0));
    };
    // Shift by 1, 2, 4, ... words while fewer than n / 2 + 1 words remain
    // needed.
    for (int64_t wordShift = 1; wordShift < n / 2; wordShift *= 2) {
      Value take = bitSet(2 * wordShift);
      SmallVector<Value> shifted;
      for (size_t i = 0; i + wordShift < words.size(); ++i)
        shifted.push_back(m.select(take, words[i + wordShift], words[i]));
      words = std::move(shifted);
    }
    Value odd = bitSet(1);
    SmallVector<Value> out;
    for (int64_t j = 0; j < n / 2; ++j) {
      Value spliced = arith::OrIOp::create(
          b, arith::ShRUIOp::create(b, words[j], i32c(16)),
          arith::ShLIOp::create(b, words[j + 1], i32c(16)));
      out.push_back(m.select(odd, spliced, words[j]));
    }
    Value result = vector::BitCastOp::create(
        b, chunkType, vector::FromElementsOp::create(b, wordsType, out));
    // Chunks past the matrix's edge keep only their first `valid` elements
    // (`valid` may exceed n, or be negative past the row's end).
    auto masked = scf::IfOp::create(
        b, TypeRange{chunkType},
        arith::CmpIOp::create(b, arith::CmpIPredicate::sge, valid, m.c(n)),
        true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(masked.thenBlock());
    scf::YieldOp::create(b, result);
    b.setInsertionPointToStart(masked.elseBlock());
    Value validI32 = arith::IndexCastOp::create(
        b, i32Type, arith::MinSIOp::create(b, valid, m.c(n)));
    auto laneType = VectorType::get({n}, i32Type);
    SmallVector<int32_t> lanes;
    for (int32_t e = 0; e < n; ++e)
      lanes.push_back(e);
    Value mask = arith::CmpIOp::create(
        b, arith::CmpIPredicate::slt,
        arith::ConstantOp::create(b,
                                  DenseIntElementsAttr::get(laneType, lanes)),
        vector::BroadcastOp::create(b, laneType, validI32));
    scf::YieldOp::create(b, ValueRange{arith::SelectOp::create(
                                b, mask, result, zero(chunkType))});
    return masked.getResult(0);
  };

  // Calls fn(r, col, gr, gc, rows, cols) for each piece of `width`
  // elements this thread moves of tile `t`: (r, col) inside the tile, (gr,
  // gc) in the operand, whose sizes are rows x cols.
  auto forEachPiece =
      [&](const TileCopy &t, Value k0, int64_t width,
          function_ref<void(Value, Value, Value, Value, Value, Value)> fn) {
        int64_t perRow = t.cols / width;
        int64_t pieces = t.rows * t.cols / (threads * width);
        Value mn0 = t.isA ? m0 : n0;
        Value r0 = t.kMajor ? k0 : mn0, c0 = t.kMajor ? mn0 : k0;
        Value rows = operandDim(t.global, 0), cols = operandDim(t.global, 1);
        for (int64_t l = 0; l < pieces; ++l) {
          Value i = m.add(tid, l * threads);
          Value r = m.div(i, perRow);
          Value col = m.mul(m.rem(i, perRow), width);
          fn(r, col, m.add(r0, r), m.add(c0, col), rows, cols);
        }
      };
  auto issueTile = [&](const TileCopy &t, Value k0, Value stageBase,
                       SmallVectorImpl<Value> &tokens, StagedCopies &staged) {
    const int64_t vec = t.vec;
    if (canRealign(t)) {
      std::optional<FlatView> &flat = t.isA ? aFlat : bFlat;
      if (!flat) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointAfterValue(t.global);
        flat = flatView(t.global);
      }
      forEachPiece(
          t, k0, realignElems,
          [&](Value, Value, Value gr, Value gc, Value rows, Value cols) {
            staged.push_back(loadRealigned(*flat, gr, gc, rows, cols));
          });
      return;
    }
    forEachPiece(
        t, k0, vec,
        [&](Value r, Value col, Value gr, Value gc, Value rows, Value cols) {
          Value ok = m.andi(m.lt(gr, rows), m.lt(gc, cols));
          Value zeroIdx = m.c(0);
          Value srcR = m.select(ok, gr, zeroIdx),
                srcC = m.select(ok, gc, zeroIdx);
          Value srcElems = m.select(ok, m.c(vec), zeroIdx);
          if (vec * p.inBytes() < 4) {
            // No 2-byte cp.async exists: copy through a register, loading the
            // (in-bounds) first element where the tile leaves the matrix.
            Value v =
                memref::LoadOp::create(b, t.global, ValueRange{srcR, srcC});
            staged.push_back({v, ok});
            return;
          }
          Value dst = tileOffset(stageBase, r, col, t.cols);
          auto copy = nvgpu::DeviceAsyncCopyOp::create(
              b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), ring,
              ValueRange{dst}, t.global, ValueRange{srcR, srcC},
              b.getIndexAttr(vec), srcElems,
              vec * p.inBytes() == 16 ? b.getUnitAttr() : UnitAttr());
          tokens.push_back(copy.getAsyncToken());
        });
  };
  // Stores k-tile kt's register-staged copies into its stage, visiting the
  // pieces in the order issueTile loaded them.
  auto storeStaged = [&](Value kt, const StagedCopies &copies) {
    Value stageBase = m.mul(m.rem(kt, stages), stageElems);
    Value k0 = m.mul(m.add(kTileBegin, kt), bk);
    const SmallVector<Value, 4> *copy = copies.begin();
    for (const TileCopy *t : {&aCopy, &bCopy}) {
      if (t->vec * p.inBytes() >= 4)
        continue;
      Value base = t->isA ? stageBase : m.add(stageBase, bOffset);
      bool realign = canRealign(*t);
      forEachPiece(
          *t, k0, realign ? realignElems : 1,
          [&](Value r, Value col, Value, Value, Value, Value) {
            ArrayRef<Value> c = *copy++;
            Value dst = tileOffset(base, r, col, t->cols);
            if (!realign) {
              memref::StoreOp::create(b, m.select(c[1], c[0], zero(inType)),
                                      ring, ValueRange{dst});
              return;
            }
            vector::StoreOp::create(
                b, finishRealigned(c[0], c[1], c[2], c[3]), ring,
                ValueRange{dst}, /*nontemporal=*/false, llvm::MaybeAlign(16));
          });
    }
    assert(copy == copies.end() && "a store for every staged copy");
  };
  // This block's k-tiles, counted from its first (kTileBegin).
  Value numK = kTiles;
  auto issueStage = [&](Value kt, StagedCopies &staged) {
    // Stage kt % stages; k-tiles past K copy only zeros (past this block's
    // split, the next split's data, which is never computed).
    Value stageBase = m.mul(m.rem(kt, stages), stageElems);
    Value k0 = m.mul(m.add(kTileBegin, kt), bk);
    SmallVector<Value> tokens;
    issueTile(aCopy, k0, stageBase, tokens, staged);
    issueTile(bCopy, k0, m.add(stageBase, bOffset), tokens, staged);
    return nvgpu::DeviceAsyncCreateGroupOp::create(
        b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
  };

  // Warp tile origin inside the block tile.
  int64_t warpsN = bn / wn;
  Value wm0 = m.mul(m.div(warp, warpsN), wm);
  Value wn0 = m.mul(m.rem(warp, warpsN), wn);
  const int64_t tilesM = wm / 16, tilesN = wn / 8;
  auto fragType4 = VectorType::get({4, 2}, f16Type);

  // ldmatrix lane addressing (see the PTX ISA, "ldmatrix"): lane l supplies
  // the address of one 8-element row of one of the four 8x8 matrices.
  Value l16 = m.rem(lane, 16), l8 = m.rem(lane, 8);
  Value hi16 = m.div(lane, 16), mid = m.rem(m.div(lane, 8), 2);
  // One 32-bit register of an MMA operand, typed as nvvm.mma.sync wants it:
  // vector<2xf16> for f16, the packed bits as i32 for bf16.
  auto toI32 = [&](Value frag, int64_t r) {
    Value pair = vector::ExtractOp::create(b, frag, r);
    if (inType.isF16())
      return pair; // (f16 only; tf32 fragments come from ldmatrixTf32)
    Value asI32 =
        vector::BitCastOp::create(b, VectorType::get({1}, i32Type), pair);
    return (Value)vector::ExtractOp::create(b, asI32, 0);
  };
  // tf32 (m16n8k8): 32-bit elements. A row-major tile [BM][BK] (and a
  // [BN][BK] B) reads with ldmatrix on the 16-bit view, since an 8x8 b16
  // matrix is an 8x4 f32 one and lands each lane's element where the MMA
  // wants it. The other layouts would need a 32-bit transpose, which
  // ldmatrix lacks: those fragments are read element by element. Values are
  // rounded to tf32 (nearest, ties away) as cuBLAS does, not truncated.
  Value g = m.div(lane, 4), t4 = m.rem(lane, 4);
  auto roundTf32 = [&](Value bits) -> Value {
    Value c1000 = arith::ConstantIntOp::create(b, i32Type, 0x1000);
    Value mask = arith::ConstantIntOp::create(b, i32Type, ~0x1FFF);
    return arith::AndIOp::create(b, arith::AddIOp::create(b, bits, c1000),
                                 mask);
  };
  auto ldmatrixTf32 = [&](Value off) {
    Value frag = nvgpu::LdMatrixOp::create(b, fragType4, ring16,
                                           ValueRange{m.mul(off, 2)}, false, 4);
    SmallVector<Value> regs;
    for (int64_t r = 0; r < 4; ++r) {
      Value pair = vector::ExtractOp::create(b, frag, r);
      Value asI32 =
          vector::BitCastOp::create(b, VectorType::get({1}, i32Type), pair);
      regs.push_back(roundTf32(vector::ExtractOp::create(b, asI32, 0)));
    }
    return regs;
  };
  auto loadTf32 = [&](Value stageBase, Value row, Value col, int64_t pitch) {
    Value x = memref::LoadOp::create(
        b, ring, ValueRange{tileOffset(stageBase, row, col, pitch)});
    return roundTf32(arith::BitcastOp::create(b, i32Type, x));
  };
  std::function<SmallVector<Value>(Value, int64_t, int64_t)> loadTf32A =
      [&](Value stageBase, int64_t i, int64_t kk) -> SmallVector<Value> {
    Value m16 = m.add(wm0, i * 16);
    if (!p.transposeA) // lanes 0-15: rows at k, lanes 16-31: rows at k + 4
      return ldmatrixTf32(tileOffset(stageBase, m.add(m16, l16),
                                     m.add(m.mul(hi16, 4), kk), bk));
    // [BK][BM]: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4).
    SmallVector<Value> regs;
    for (auto [dm, dk] :
         {std::pair<int64_t, int64_t>{0, 0}, {8, 0}, {0, 4}, {8, 4}})
      regs.push_back(loadTf32(stageBase, m.add(t4, kk + dk),
                              m.add(m16, m.add(g, dm)), bm));
    return regs;
  };
  std::function<SmallVector<Value>(Value, int64_t, int64_t)> loadTf32B =
      [&](Value stageBase, int64_t j, int64_t kk) -> SmallVector<Value> {
    Value n8 = m.add(wn0, j * 8);
    if (p.transposeB) // [BN][BK]: matrices (n 0-7|8-15) x (k 0-3|4-7)
      return ldmatrixTf32(tileOffset(stageBase,
                                     m.add(n8, m.add(l8, m.mul(hi16, 8))),
                                     m.add(m.mul(mid, 4), kk), bk));
    // [BK][BN]: b0 (k = t, n = g), b1 (k = t + 4, n = g), for tiles j, j+1.
    SmallVector<Value> regs;
    for (int64_t dn : {0, 8})
      for (int64_t dk : {0, 4})
        regs.push_back(loadTf32(stageBase, m.add(t4, kk + dk),
                                m.add(n8, m.add(g, dn)), bn));
    return regs;
  };

  // A fragments of m16 tile `i` at k offset kk: 4 registers.
  auto loadA = [&](Value stageBase, int64_t i, int64_t kk) {
    Value off;
    if (tf32)
      return loadTf32A(stageBase, i, kk);
    if (!p.transposeA) { // [BM][BK]: rows m, non-transposed matrices
      Value row = m.add(wm0, m.add(l16, i * 16));
      Value col = m.add(m.mul(hi16, 8), kk);
      off = tileOffset(stageBase, row, col, bk);
    } else { // [BK][BM]: rows k, transposed on load
      Value row = m.add(m.add(l8, m.mul(hi16, 8)), kk);
      Value col = m.add(wm0, m.add(m.mul(mid, 8), i * 16));
      off = tileOffset(stageBase, row, col, bm);
    }
    Value frag = nvgpu::LdMatrixOp::create(b, fragType4, ring16,
                                           ValueRange{off}, p.transposeA, 4);
    return SmallVector<Value>{toI32(frag, 0), toI32(frag, 1), toI32(frag, 2),
                              toI32(frag, 3)};
  };
  // B fragments of n8 tiles `j` and `j + 1` at k offset kk: 2 + 2 registers.
  auto loadB = [&](Value stageBase, int64_t j, int64_t kk) {
    Value off;
    if (tf32)
      return loadTf32B(stageBase, j, kk);
    bool trans = !p.transposeB;
    if (trans) { // [BK][BN]: rows k
      Value row = m.add(m.add(l8, m.mul(mid, 8)), kk);
      Value col = m.add(wn0, m.add(m.mul(hi16, 8), j * 8));
      off = tileOffset(stageBase, row, col, bn);
    } else { // [BN][BK]: rows n
      Value row = m.add(wn0, m.add(m.add(l8, m.mul(hi16, 8)), j * 8));
      Value col = m.add(m.mul(mid, 8), kk);
      off = tileOffset(stageBase, row, col, bk);
    }
    Value frag = nvgpu::LdMatrixOp::create(b, fragType4, ring16,
                                           ValueRange{off}, trans, 4);
    return SmallVector<Value>{toI32(frag, 0), toI32(frag, 1), toI32(frag, 2),
                              toI32(frag, 3)};
  };

  auto mmaType = tf32              ? NVVM::MMATypes::tf32
                 : inType.isBF16() ? NVVM::MMATypes::bf16
                                   : NVVM::MMATypes::f16;
  const int64_t instK = tf32 ? 8 : 16;
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, f32Type));

  // Prologue: stages - 1 k-tiles in flight. Waits name the last prologue
  // group; cp.async.wait_group only counts groups, the token orders the IR.
  // Register-staged copies stay in flight `lookahead` k-tiles longer: the
  // last `lookahead` prologue k-tiles' loads enter the loop unstored.
  // The k-tiles before those (all but the last prologue k-tile, at least)
  // are issued by one loop rather than unrolled: a quarter of the code for
  // ptxas and the harness at six stages.
  const int64_t lookahead = getRegisterLookahead(config);
  const int64_t looped = stages - 1 - std::max<int64_t>(lookahead, 1);
  if (looped > 1) {
    auto prologue = scf::ForOp::create(b, m.c(0), m.c(looped), m.c(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(prologue.getBody());
    StagedCopies copies;
    issueStage(prologue.getInductionVar(), copies);
    storeStaged(prologue.getInductionVar(), copies);
  }
  Value groupToken;
  std::deque<StagedCopies> pending; // oldest k-tile first
  for (int64_t s = looped > 1 ? looped : 0; s + 1 < stages; ++s) {
    groupToken = issueStage(m.c(s), pending.emplace_back());
    if (int64_t(pending.size()) > lookahead) {
      storeStaged(m.c(s - lookahead), pending.front());
      pending.pop_front();
    }
  }
  // The pending copies as loop-carried values, and back.
  SmallVector<int64_t> copySizes;
  if (!pending.empty())
    for (ArrayRef<Value> c : pending.front())
      copySizes.push_back(c.size());
  auto flatten = [&](SmallVectorImpl<Value> &values) {
    for (const StagedCopies &tile : pending)
      for (ArrayRef<Value> c : tile)
        values.append(c.begin(), c.end());
  };
  auto unflatten = [&](ArrayRef<Value> values) {
    pending.clear();
    while (!values.empty()) {
      StagedCopies &tile = pending.emplace_back();
      for (int64_t size : copySizes) {
        tile.emplace_back(values.take_front(size));
        values = values.drop_front(size);
      }
    }
  };

  const int64_t numAcc = tilesM * tilesN * 4;
  SmallVector<Value> init(numAcc, f32(0.0));
  flatten(init);
  auto loop = scf::ForOp::create(b, m.c(0), numK, m.c(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    ValueRange iterArgs = loop.getRegionIterArgs();
    SmallVector<Value> accs(iterArgs.take_front(numAcc));
    unflatten(SmallVector<Value>(iterArgs.drop_front(numAcc)));
    // Wait until k-tile kt has landed (at most stages - 2 newer groups stay
    // in flight), then make every thread's copies visible to all.
    nvgpu::DeviceAsyncWaitOp::create(b, groupToken,
                                     b.getI32IntegerAttr(stages - 2));
    gpu::BarrierOp::create(b);
    // Store the register-staged k-tile kt + stages - 1 - lookahead (its
    // stage was last read in iteration kt - 1 - lookahead; at least one
    // barrier separates the store from its reads, lookahead <= stages - 2).
    if (lookahead > 0) {
      storeStaged(m.add(kt, stages - 1 - lookahead), pending.front());
      pending.pop_front();
    }
    // Refill the stage every warp finished reading in iteration kt - 1.
    issueStage(m.add(kt, stages - 1), pending.emplace_back());

    Value stageBase = m.mul(m.rem(kt, stages), stageElems);
    Value bBase = m.add(stageBase, bOffset);
    for (int64_t kk = 0; kk < bk; kk += instK) {
      SmallVector<SmallVector<Value>> aFrags, bFrags;
      for (int64_t i = 0; i < tilesM; ++i)
        aFrags.push_back(loadA(stageBase, i, kk));
      for (int64_t j = 0; j < tilesN; j += 2)
        bFrags.push_back(loadB(bBase, j, kk));
      for (int64_t i = 0; i < tilesM; ++i) {
        for (int64_t j = 0; j < tilesN; ++j) {
          ArrayRef<Value> bPair = bFrags[j / 2];
          SmallVector<Value> bRegs = {bPair[(j % 2) * 2],
                                      bPair[(j % 2) * 2 + 1]};
          int64_t base = (i * tilesN + j) * 4;
          SmallVector<Value> cRegs(accs.begin() + base,
                                   accs.begin() + base + 4);
          auto mma = NVVM::MmaOp::create(
              b, resultType, aFrags[i], bRegs, cRegs,
              ArrayRef<int64_t>{16, 8, instK}, std::nullopt, std::nullopt,
              std::array<NVVM::MMATypes, 2>{mmaType, mmaType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (int64_t e = 0; e < 4; ++e)
            accs[base + e] = LLVM::ExtractValueOp::create(b, mma, e);
        }
      }
    }
    // Without lookahead, the refill's register-staged copies land now,
    // after the MMAs; the next iteration's barrier orders them before any
    // read.
    if (lookahead == 0) {
      storeStaged(m.add(kt, stages - 1), pending.front());
      pending.pop_front();
    }
    flatten(accs);
    scf::YieldOp::create(b, accs);
  }
  // (Copies still pending belong to k-tiles past the last: dropped.)
  // Drain the (zero-filling) copies still in flight before the kernel ends.
  nvgpu::DeviceAsyncWaitOp::create(b, groupToken, b.getI32IntegerAttr(0));
  return SmallVector<Value>(loop.getResults().take_front(numAcc));
}

void GemmKernelBuilder::storeMmaSyncAccumulators(ArrayRef<Value> acc) {
  const int64_t wm = config.getWarpM(), wn = config.getWarpN();
  const int64_t tilesM = wm / 16, tilesN = wn / 8;
  int64_t warpsN = config.getBlockN() / wn;
  Value wm0 = m.mul(m.div(warp, warpsN), wm);
  Value wn0 = m.mul(m.rem(warp, warpsN), wn);
  // Epilogue: thread holds rows lane/4 (+8) and column pairs 2*(lane%4) of
  // every m16n8 tile.
  Value rowInTile = m.div(lane, 4);
  Value colInTile = m.mul(m.rem(lane, 4), 2);
  for (int64_t j = 0; j < tilesN; ++j) {
    Value col = m.add(n0, m.add(wn0, m.add(colInTile, j * 8)));
    SmallVector<Value> biasValues = loadBias(col, 2);
    for (int64_t i = 0; i < tilesM; ++i) {
      int64_t base = (i * tilesN + j) * 4;
      for (int64_t h = 0; h < 2; ++h) {
        Value row = m.add(m0, m.add(wm0, m.add(rowInTile, i * 16 + h * 8)));
        storeOutput(row, col, {acc[base + 2 * h], acc[base + 2 * h + 1]},
                    biasValues);
      }
    }
  }
}

} // namespace

FailureOr<gpu::GPUFuncOp>
mlir::amk::synthesizeGemmKernel(gpu::GPUModuleOp module, KernelOp kernel,
                                GemmConfigAttr config, StringRef name) {
  auto matmul = cast<MatmulOp>(kernel.getProblem().getOperation());
  GemmProblem problem = GemmProblem::get(matmul);
  std::string whyNot;
  if (failed(checkGemmLowerable(config, problem, whyNot)))
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
