//===- GemmSynthesisSimt.cpp - The simt GEMM main loop --------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// f32 FMAs on a TM x TN register tile per thread. Global tiles are staged
// through registers into double-buffered K-major shared tiles: one barrier
// per k-tile, the next k-tile's loads in flight under this one's FMAs.
//
//===----------------------------------------------------------------------===//

#include "GemmSynthesisBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::gemm;

namespace {

/// Global -> register staging. Each thread moves `loads` vectors of each
/// tile; vector i covers `vec` consecutive elements of a contiguous row.
struct TileLoad {
  Value global;       // rank-2 operand
  bool kMajor;        // global rows run along K (no transpose needed)
  int64_t rows, cols; // the tile as stored in global memory
  int64_t vec;        // load width (elements)
};

/// The simt kernel of one builder: its shared tiles, the part of the output
/// tile each thread holds, the main loop and the epilogue.
class SimtKernel {
public:
  /// Creates the shared tiles' views and the threads' positions.
  explicit SimtKernel(GemmKernelBuilder &kb);

  /// The prologue, the main loop and the epilogue.
  void build();

private:
  /// First row (column) of chunk q, inside the block tile.
  Value rowChunk(int64_t q) {
    return m.add(warpRow, m.add(laneRow, q * lanesM * tmv));
  }
  Value colChunk(int64_t q) {
    return m.add(warpCol, m.add(laneCol, q * lanesN * tnv));
  }
  /// Loads this thread's vectors of the k-tile at `k0` into registers.
  SmallVector<Value> loadTile(const TileLoad &t, bool isA, Value k0);
  /// Stores them into a K-major shared tile.
  void storeTile(const TileLoad &t, ArrayRef<Value> regs, Value dst);
  /// The FMAs of one k-tile from shared tiles `aS` and `bS`.
  void computeStage(Value aS, Value bS, SmallVector<Value> &acc);
  /// k-tile kt from stage `cur`, filling the other stage with k-tile kt + 1.
  void step(Value kt, int64_t cur, SmallVector<Value> &acc, bool barrier);
  /// The main loop, two k-tiles per iteration; returns its accumulators.
  scf::ForOp buildMainLoop(ArrayRef<Value> acc);
  void storeAccumulators(scf::ForOp loop);

  GemmKernelBuilder &kb;
  ImplicitLocOpBuilder &b;
  IndexMath &m;
  const GemmProblem &p;
  int64_t bm, bn, bk, wm, wn, tm, tn, threads;
  Type f32Type;
  /// One static [rows][pitch] view per tile and stage.
  SmallVector<Value> as, bs;
  int64_t warpsN, lanesN, lanesM, tmv, tnv, chunksM, chunksN;
  Value warpRow, warpCol, laneRow, laneCol;
  TileLoad aLoad, bLoad;
  VectorType accType;
};

} // namespace

SimtKernel::SimtKernel(GemmKernelBuilder &kb)
    : kb(kb), b(kb.b), m(kb.m), p(kb.p) {
  GemmConfigAttr config = kb.config;
  const GemmSmemLayout &layout = kb.layout;
  bm = config.getBlockM();
  bn = config.getBlockN();
  bk = config.getBlockK();
  wm = config.getWarpM();
  wn = config.getWarpN();
  tm = config.getThread()[0];
  tn = config.getThread()[1];
  threads = config.getThreads();
  f32Type = b.getF32Type();
  auto wg =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  // Shared tiles, K-major: As[stage][k][m], Bs[stage][k][n].
  auto view = [&](int64_t offsetBytes, MemRefType type) -> Value {
    return memref::ViewOp::create(b, type, kb.smem, m.c(offsetBytes),
                                  ValueRange{});
  };
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
  warpsN = bn / wn;
  lanesN = wn / tn;
  lanesM = wm / tm;
  tmv = std::min<int64_t>(tm, 4);
  tnv = std::min<int64_t>(tn, 4);
  chunksM = tm / tmv;
  chunksN = tn / tnv;
  warpRow = m.mul(m.div(kb.warp, warpsN), wm);
  warpCol = m.mul(m.rem(kb.warp, warpsN), wn);
  laneRow = m.mul(m.div(kb.lane, lanesN), tmv);
  laneCol = m.mul(m.rem(kb.lane, lanesN), tnv);

  // A tile in global memory: [BM][BK] (row-major A) or [BK][BM] (transposed).
  aLoad = TileLoad{kb.a, p.transposeA, p.transposeA ? bk : bm,
                   p.transposeA ? bm : bk, getOperandVector(config, p, true)};
  bLoad = TileLoad{kb.bMat, !p.transposeB, p.transposeB ? bn : bk,
                   p.transposeB ? bk : bn, getOperandVector(config, p, false)};
  accType = VectorType::get({tn}, f32Type);
}

SmallVector<Value> SimtKernel::loadTile(const TileLoad &t, bool isA, Value k0) {
  SmallVector<Value> regs;
  const int64_t vec = t.vec;
  auto vecType = VectorType::get({vec}, f32Type);
  int64_t vecsPerRow = t.cols / vec;
  int64_t loads = t.rows * t.cols / (threads * vec);
  // (row, col) of the tile's first element in the global operand.
  Value mn0 = isA ? kb.m0 : kb.n0;
  auto [r0, c0] = t.kMajor ? std::make_pair(k0, mn0) : std::make_pair(mn0, k0);
  // The operand's own sizes, so that every guard names the buffer it
  // protects (the harness matches guards to accesses symbolically).
  auto [rows, cols] =
      std::make_pair(kb.operandDim(t.global, 0), kb.operandDim(t.global, 1));
  for (int64_t l = 0; l < loads; ++l) {
    Value i = m.add(kb.tid, l * threads);
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
    regs.push_back(m.select(ok, v, kb.zero(v.getType())));
  }
  return regs;
}

void SimtKernel::storeTile(const TileLoad &t, ArrayRef<Value> regs, Value dst) {
  const int64_t vec = t.vec;
  int64_t vecsPerRow = t.cols / vec;
  for (auto [l, v] : llvm::enumerate(regs)) {
    Value i = m.add(kb.tid, int64_t(l) * threads);
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
}

void SimtKernel::computeStage(Value aS, Value bS, SmallVector<Value> &acc) {
  auto aChunkType = VectorType::get({tmv}, f32Type);
  auto bChunkType = VectorType::get({tnv}, f32Type);
  for (int64_t kk = 0; kk < bk; ++kk) {
    Value k = m.c(kk);
    SmallVector<Value> a;
    for (int64_t q = 0; q < chunksM; ++q) {
      Value chunk =
          vector::LoadOp::create(b, aChunkType, aS, ValueRange{k, rowChunk(q)},
                                 false, llvm::MaybeAlign(tmv * 4));
      for (int64_t e = 0; e < tmv; ++e)
        a.push_back(vector::ExtractOp::create(b, chunk, e));
    }
    Value bv =
        vector::LoadOp::create(b, bChunkType, bS, ValueRange{k, colChunk(0)},
                               false, llvm::MaybeAlign(tnv * 4));
    if (chunksN == 2) {
      Value hi =
          vector::LoadOp::create(b, bChunkType, bS, ValueRange{k, colChunk(1)},
                                 false, llvm::MaybeAlign(tnv * 4));
      bv = vector::ShuffleOp::create(b, bv, hi,
                                     ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
    }
    for (int64_t i = 0; i < tm; ++i) {
      Value splat = vector::BroadcastOp::create(b, accType, a[i]);
      acc[i] = vector::FMAOp::create(b, splat, bv, acc[i]);
    }
  }
}

void SimtKernel::step(Value kt, int64_t cur, SmallVector<Value> &acc,
                      bool barrier) {
  Value next = m.add(kt, 1);
  Value hasNext = m.lt(next, kb.kTiles);
  Value k0 = m.mul(m.add(kb.kTileBegin, next), bk);
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
}

scf::ForOp SimtKernel::buildMainLoop(ArrayRef<Value> acc) {
  // Main loop, unrolled by the two stages so each buffer is a static view.
  // Iteration kt computes stage kt % 2 and fills stage (kt + 1) % 2.
  // for kt in [0, numK) step 2: stage 0 then (if any) stage 1.
  Value numK = kb.kTiles;
  auto loop = scf::ForOp::create(b, m.c(0), numK, m.c(2), acc);
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
  return loop;
}

void SimtKernel::storeAccumulators(scf::ForOp loop) {
  // Epilogue: row i is row i % tmv of chunk i / tmv; each column chunk is a
  // run of tnv contiguous columns.
  kb.buildEpilogue([&] {
    for (int64_t q = 0; q < chunksN; ++q) {
      Value col = m.add(kb.n0, colChunk(q));
      SmallVector<Value> biasValues = kb.loadBias(col, tnv);
      for (int64_t i = 0; i < tm; ++i) {
        Value row = m.add(kb.m0, m.add(rowChunk(i / tmv), i % tmv));
        SmallVector<Value> vals;
        for (int64_t j = 0; j < tnv; ++j)
          vals.push_back(
              vector::ExtractOp::create(b, loop.getResult(i), q * tnv + j));
        kb.storeOutput(row, col, vals, biasValues);
      }
    }
  });
}

void SimtKernel::build() {
  SmallVector<Value> acc(tm, kb.zero(accType));

  // Prologue: the first k-tile into stage 0.
  Value firstK = m.mul(kb.kTileBegin, bk);
  storeTile(aLoad, loadTile(aLoad, true, firstK), as[0]);
  storeTile(bLoad, loadTile(bLoad, false, firstK), bs[0]);
  gpu::BarrierOp::create(b);

  storeAccumulators(buildMainLoop(acc));
}

void GemmKernelBuilder::buildSimt() { SimtKernel(*this).build(); }
