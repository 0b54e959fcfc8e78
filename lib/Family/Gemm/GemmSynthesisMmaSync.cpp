//===- GemmSynthesisMmaSync.cpp - The mma.sync GEMM main loop -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Warp-level m16n8k16 tensor-core MMAs (tf32: m16n8k8) on operands that
// ldmatrix reads from the shared-memory ring (GemmSynthesisMmaCopies.cpp).
// The main loop keeps stages - 1 k-tiles in flight: each iteration waits for
// k-tile kt, refills the stage every warp finished reading in the previous
// iteration, and computes kt. Kernels with dynamic row lengths are versioned:
// one uniform test picks a cp.async main loop or a realigning one.
//
//===----------------------------------------------------------------------===//

#include "GemmSynthesisMmaSync.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <deque>

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::gemm;

namespace {

/// The MMA operands of a warp's m16 and n8 tiles, read from the ring by
/// ldmatrix (tf32: ldmatrix on the 16-bit view or element by element).
class MmaSyncFragments {
public:
  /// Creates the warp tile's origin and the lanes' ldmatrix addressing.
  MmaSyncFragments(GemmKernelBuilder &kb, MmaSyncRing &ring);

  /// A fragments of m16 tile `i` at k offset kk: 4 registers.
  SmallVector<Value> loadA(Value stageBase, int64_t i, int64_t kk);
  /// B fragments of n8 tiles `j` and `j + 1` at k offset kk: 2 + 2 registers.
  SmallVector<Value> loadB(Value stageBase, int64_t j, int64_t kk);

private:
  /// One 32-bit register of an MMA operand, typed as nvvm.mma.sync wants it:
  /// vector<2xf16> for f16, the packed bits as i32 for bf16.
  Value toI32(Value frag, int64_t r);
  // tf32 (m16n8k8): 32-bit elements. A row-major tile [BM][BK] (and a
  // [BN][BK] B) reads with ldmatrix on the 16-bit view, since an 8x8 b16
  // matrix is an 8x4 f32 one and lands each lane's element where the MMA
  // wants it. The other layouts would need a 32-bit transpose, which
  // ldmatrix lacks: those fragments are read element by element. Values are
  // rounded to tf32 (nearest, ties away) as cuBLAS does, not truncated.
  Value roundTf32(Value bits);
  SmallVector<Value> ldmatrixTf32(Value off);
  Value loadTf32(Value stageBase, Value row, Value col, int64_t pitch);
  SmallVector<Value> loadTf32A(Value stageBase, int64_t i, int64_t kk);
  SmallVector<Value> loadTf32B(Value stageBase, int64_t j, int64_t kk);

  ImplicitLocOpBuilder &b;
  IndexMath &m;
  const GemmProblem &p;
  MmaSyncRing &ring;
  int64_t bm, bn, bk;
  Type inType, i32Type;
  bool tf32;
  VectorType fragType4;
  /// Warp tile origin inside the block tile.
  Value wm0, wn0;
  /// ldmatrix lane addressing (see the PTX ISA, "ldmatrix"): lane l supplies
  /// the address of one 8-element row of one of the four 8x8 matrices.
  Value l16, l8, hi16, mid;
  /// A lane's group and thread in the group (the MMA fragment layouts).
  Value g, t4;
};

/// The tensor-core main loop of one builder, A and B copied `aVec` and
/// `bVec` wide.
class MmaSyncMainLoop {
public:
  MmaSyncMainLoop(GemmKernelBuilder &kb, int64_t aVec, int64_t bVec);

  /// Emits the prologue and the loop; returns the warp tile's accumulators
  /// (4 per m16n8 tile, row-major).
  SmallVector<Value> build();

private:
  /// The first stages - 1 k-tiles; returns the last group's token.
  Value issuePrologue();
  /// The pending copies as loop-carried values, and back.
  void flatten(SmallVectorImpl<Value> &values);
  void unflatten(ArrayRef<Value> values);
  /// One iteration: wait for k-tile kt, refill, compute.
  void buildIteration(scf::ForOp loop, Value groupToken);
  /// The MMAs of k-tile kt into `accs`.
  void computeKTile(Value kt, SmallVector<Value> &accs);

  GemmKernelBuilder &kb;
  ImplicitLocOpBuilder &b;
  IndexMath &m;
  MmaSyncRing ring;
  MmaSyncFragments frags;
  int64_t stages, bk, tilesM, tilesN, numAcc, instK, lookahead;
  Value numK;
  NVVM::MMATypes mmaType;
  Type resultType;
  std::deque<StagedCopies> pending; // oldest k-tile first
  SmallVector<int64_t> copySizes;
};

} // namespace

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

MmaSyncFragments::MmaSyncFragments(GemmKernelBuilder &kb, MmaSyncRing &ring)
    : b(kb.b), m(kb.m), p(kb.p), ring(ring) {
  GemmConfigAttr config = kb.config;
  bm = config.getBlockM();
  bn = config.getBlockN();
  bk = config.getBlockK();
  const int64_t wm = config.getWarpM(), wn = config.getWarpN();
  inType = p.inType;
  i32Type = b.getI32Type();
  tf32 = inType.isF32();
  int64_t warpsN = bn / wn;
  wm0 = m.mul(m.div(kb.warp, warpsN), wm);
  wn0 = m.mul(m.rem(kb.warp, warpsN), wn);
  fragType4 = VectorType::get({4, 2}, b.getF16Type());
  l16 = m.rem(kb.lane, 16);
  l8 = m.rem(kb.lane, 8);
  hi16 = m.div(kb.lane, 16);
  mid = m.rem(m.div(kb.lane, 8), 2);
  g = m.div(kb.lane, 4);
  t4 = m.rem(kb.lane, 4);
}

Value MmaSyncFragments::toI32(Value frag, int64_t r) {
  Value pair = vector::ExtractOp::create(b, frag, r);
  if (inType.isF16())
    return pair; // (f16 only; tf32 fragments come from ldmatrixTf32)
  Value asI32 =
      vector::BitCastOp::create(b, VectorType::get({1}, i32Type), pair);
  return (Value)vector::ExtractOp::create(b, asI32, 0);
}

Value MmaSyncFragments::roundTf32(Value bits) {
  Value c1000 = arith::ConstantIntOp::create(b, i32Type, 0x1000);
  Value mask = arith::ConstantIntOp::create(b, i32Type, ~0x1FFF);
  return arith::AndIOp::create(b, arith::AddIOp::create(b, bits, c1000), mask);
}

SmallVector<Value> MmaSyncFragments::ldmatrixTf32(Value off) {
  Value frag = nvgpu::LdMatrixOp::create(b, fragType4, ring.view16,
                                         ValueRange{m.mul(off, 2)}, false, 4);
  SmallVector<Value> regs;
  for (int64_t r = 0; r < 4; ++r) {
    Value pair = vector::ExtractOp::create(b, frag, r);
    Value asI32 =
        vector::BitCastOp::create(b, VectorType::get({1}, i32Type), pair);
    regs.push_back(roundTf32(vector::ExtractOp::create(b, asI32, 0)));
  }
  return regs;
}

Value MmaSyncFragments::loadTf32(Value stageBase, Value row, Value col,
                                 int64_t pitch) {
  Value x = memref::LoadOp::create(
      b, ring.view, ValueRange{ring.tileOffset(stageBase, row, col, pitch)});
  return roundTf32(arith::BitcastOp::create(b, i32Type, x));
}

SmallVector<Value> MmaSyncFragments::loadTf32A(Value stageBase, int64_t i,
                                               int64_t kk) {
  Value m16 = m.add(wm0, i * 16);
  if (!p.transposeA) // lanes 0-15: rows at k, lanes 16-31: rows at k + 4
    return ldmatrixTf32(ring.tileOffset(stageBase, m.add(m16, l16),
                                        m.add(m.mul(hi16, 4), kk), bk));
  // [BK][BM]: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4).
  SmallVector<Value> regs;
  for (auto [dm, dk] :
       {std::pair<int64_t, int64_t>{0, 0}, {8, 0}, {0, 4}, {8, 4}})
    regs.push_back(
        loadTf32(stageBase, m.add(t4, kk + dk), m.add(m16, m.add(g, dm)), bm));
  return regs;
}

SmallVector<Value> MmaSyncFragments::loadTf32B(Value stageBase, int64_t j,
                                               int64_t kk) {
  Value n8 = m.add(wn0, j * 8);
  if (p.transposeB) // [BN][BK]: matrices (n 0-7|8-15) x (k 0-3|4-7)
    return ldmatrixTf32(ring.tileOffset(stageBase,
                                        m.add(n8, m.add(l8, m.mul(hi16, 8))),
                                        m.add(m.mul(mid, 4), kk), bk));
  // [BK][BN]: b0 (k = t, n = g), b1 (k = t + 4, n = g), for tiles j, j+1.
  SmallVector<Value> regs;
  for (int64_t dn : {0, 8})
    for (int64_t dk : {0, 4})
      regs.push_back(
          loadTf32(stageBase, m.add(t4, kk + dk), m.add(n8, m.add(g, dn)), bn));
  return regs;
}

SmallVector<Value> MmaSyncFragments::loadA(Value stageBase, int64_t i,
                                           int64_t kk) {
  Value off;
  if (tf32)
    return loadTf32A(stageBase, i, kk);
  if (!p.transposeA) { // [BM][BK]: rows m, non-transposed matrices
    Value row = m.add(wm0, m.add(l16, i * 16));
    Value col = m.add(m.mul(hi16, 8), kk);
    off = ring.tileOffset(stageBase, row, col, bk);
  } else { // [BK][BM]: rows k, transposed on load
    Value row = m.add(m.add(l8, m.mul(hi16, 8)), kk);
    Value col = m.add(wm0, m.add(m.mul(mid, 8), i * 16));
    off = ring.tileOffset(stageBase, row, col, bm);
  }
  Value frag = nvgpu::LdMatrixOp::create(b, fragType4, ring.view16,
                                         ValueRange{off}, p.transposeA, 4);
  return SmallVector<Value>{toI32(frag, 0), toI32(frag, 1), toI32(frag, 2),
                            toI32(frag, 3)};
}

SmallVector<Value> MmaSyncFragments::loadB(Value stageBase, int64_t j,
                                           int64_t kk) {
  Value off;
  if (tf32)
    return loadTf32B(stageBase, j, kk);
  bool trans = !p.transposeB;
  if (trans) { // [BK][BN]: rows k
    Value row = m.add(m.add(l8, m.mul(mid, 8)), kk);
    Value col = m.add(wn0, m.add(m.mul(hi16, 8), j * 8));
    off = ring.tileOffset(stageBase, row, col, bn);
  } else { // [BN][BK]: rows n
    Value row = m.add(wn0, m.add(m.add(l8, m.mul(hi16, 8)), j * 8));
    Value col = m.add(m.mul(mid, 8), kk);
    off = ring.tileOffset(stageBase, row, col, bk);
  }
  Value frag = nvgpu::LdMatrixOp::create(b, fragType4, ring.view16,
                                         ValueRange{off}, trans, 4);
  return SmallVector<Value>{toI32(frag, 0), toI32(frag, 1), toI32(frag, 2),
                            toI32(frag, 3)};
}

//===----------------------------------------------------------------------===//
// Main loop
//===----------------------------------------------------------------------===//

MmaSyncMainLoop::MmaSyncMainLoop(GemmKernelBuilder &kb, int64_t aVec,
                                 int64_t bVec)
    : kb(kb), b(kb.b), m(kb.m), ring(kb, aVec, bVec), frags(kb, ring) {
  GemmConfigAttr config = kb.config;
  stages = ring.stages;
  bk = config.getBlockK();
  tilesM = config.getWarpM() / 16;
  tilesN = config.getWarpN() / 8;
  numAcc = tilesM * tilesN * 4;
  // This block's k-tiles, counted from its first (kTileBegin).
  numK = kb.kTiles;
  Type inType = kb.p.inType;
  const bool tf32 = inType.isF32();
  mmaType = tf32              ? NVVM::MMATypes::tf32
            : inType.isBF16() ? NVVM::MMATypes::bf16
                              : NVVM::MMATypes::f16;
  instK = tf32 ? 8 : 16;
  resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, b.getF32Type()));
  lookahead = getRegisterLookahead(config);
}

Value MmaSyncMainLoop::issuePrologue() {
  // Prologue: stages - 1 k-tiles in flight. Waits name the last prologue
  // group; cp.async.wait_group only counts groups, the token orders the IR.
  // Register-staged copies stay in flight `lookahead` k-tiles longer: the
  // last `lookahead` prologue k-tiles' loads enter the loop unstored.
  // The k-tiles before those (all but the last prologue k-tile, at least)
  // are issued by one loop rather than unrolled: a quarter of the code for
  // ptxas and the harness at six stages.
  const int64_t looped = stages - 1 - std::max<int64_t>(lookahead, 1);
  if (looped > 1) {
    auto prologue = scf::ForOp::create(b, m.c(0), m.c(looped), m.c(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(prologue.getBody());
    StagedCopies copies;
    ring.issueStage(prologue.getInductionVar(), copies);
    ring.storeStaged(prologue.getInductionVar(), copies);
  }
  Value groupToken;
  for (int64_t s = looped > 1 ? looped : 0; s + 1 < stages; ++s) {
    groupToken = ring.issueStage(m.c(s), pending.emplace_back());
    if (int64_t(pending.size()) > lookahead) {
      ring.storeStaged(m.c(s - lookahead), pending.front());
      pending.pop_front();
    }
  }
  if (!pending.empty())
    for (ArrayRef<Value> c : pending.front())
      copySizes.push_back(c.size());
  return groupToken;
}

void MmaSyncMainLoop::flatten(SmallVectorImpl<Value> &values) {
  for (const StagedCopies &tile : pending)
    for (ArrayRef<Value> c : tile)
      values.append(c.begin(), c.end());
}

void MmaSyncMainLoop::unflatten(ArrayRef<Value> values) {
  pending.clear();
  while (!values.empty()) {
    StagedCopies &tile = pending.emplace_back();
    for (int64_t size : copySizes) {
      tile.emplace_back(values.take_front(size));
      values = values.drop_front(size);
    }
  }
}

void MmaSyncMainLoop::computeKTile(Value kt, SmallVector<Value> &accs) {
  Value stageBase = ring.stageOf(kt);
  Value bBase = m.add(stageBase, ring.bOffset);
  for (int64_t kk = 0; kk < bk; kk += instK) {
    SmallVector<SmallVector<Value>> aFrags, bFrags;
    for (int64_t i = 0; i < tilesM; ++i)
      aFrags.push_back(frags.loadA(stageBase, i, kk));
    for (int64_t j = 0; j < tilesN; j += 2)
      bFrags.push_back(frags.loadB(bBase, j, kk));
    for (int64_t i = 0; i < tilesM; ++i) {
      for (int64_t j = 0; j < tilesN; ++j) {
        ArrayRef<Value> bPair = bFrags[j / 2];
        SmallVector<Value> bRegs = {bPair[(j % 2) * 2], bPair[(j % 2) * 2 + 1]};
        int64_t base = (i * tilesN + j) * 4;
        SmallVector<Value> cRegs(accs.begin() + base, accs.begin() + base + 4);
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
}

void MmaSyncMainLoop::buildIteration(scf::ForOp loop, Value groupToken) {
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
    ring.storeStaged(m.add(kt, stages - 1 - lookahead), pending.front());
    pending.pop_front();
  }
  // Refill the stage every warp finished reading in iteration kt - 1.
  ring.issueStage(m.add(kt, stages - 1), pending.emplace_back());

  computeKTile(kt, accs);
  // Without lookahead, the refill's register-staged copies land now,
  // after the MMAs; the next iteration's barrier orders them before any
  // read.
  if (lookahead == 0) {
    ring.storeStaged(m.add(kt, stages - 1), pending.front());
    pending.pop_front();
  }
  flatten(accs);
  scf::YieldOp::create(b, accs);
}

SmallVector<Value> MmaSyncMainLoop::build() {
  Value groupToken = issuePrologue();
  SmallVector<Value> init(numAcc, kb.f32(0.0));
  flatten(init);
  auto loop = scf::ForOp::create(b, m.c(0), numK, m.c(1), init);
  buildIteration(loop, groupToken);
  // (Copies still pending belong to k-tiles past the last: dropped.)
  // Drain the (zero-filling) copies still in flight before the kernel ends.
  nvgpu::DeviceAsyncWaitOp::create(b, groupToken, b.getI32IntegerAttr(0));
  return SmallVector<Value>(loop.getResults().take_front(numAcc));
}

//===----------------------------------------------------------------------===//
// The mma.sync kernel
//===----------------------------------------------------------------------===//

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

SmallVector<Value> GemmKernelBuilder::buildMmaSyncMainLoop(int64_t aVec,
                                                           int64_t bVec) {
  return MmaSyncMainLoop(*this, aVec, bVec).build();
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
  buildEpilogue([&] {
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
  });
}
