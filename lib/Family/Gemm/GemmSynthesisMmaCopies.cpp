//===- GemmSynthesisMmaCopies.cpp - The mma.sync ring and its copies ------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Operands move global -> shared with cp.async (16, 8 or 4 bytes, zero-filled
// outside the matrix) into a multi-stage ring, XOR-swizzled in 16-byte chunks
// so that ldmatrix reads are free of bank conflicts. Rows that are not even
// 4-byte aligned (an odd contiguous extent of a 16-bit type) cannot use
// cp.async: each thread reads the two aligned 16-byte chunks around its 8
// elements from a flat view of the whole buffer, shifts them into place,
// masks what lies outside the matrix, and stores 16 bytes to the same ring.
// The loads and the stores of those copies are issued apart (StagedCopies),
// so the main loop can keep the loads in flight.
//
//===----------------------------------------------------------------------===//

#include "GemmSynthesisMmaSync.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::gemm;

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

MmaSyncRing::MmaSyncRing(GemmKernelBuilder &kb, int64_t aVec, int64_t bVec)
    : kb(kb), b(kb.b), m(kb.m), p(kb.p) {
  GemmConfigAttr config = kb.config;
  const GemmSmemLayout &layout = kb.layout;
  const int64_t bm = config.getBlockM(), bn = config.getBlockN();
  bk = config.getBlockK();
  threads = config.getThreads();
  stages = layout.stages;
  inType = p.inType;
  Type f16Type = b.getF16Type();
  auto wg =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  int64_t ringElems = stages * layout.stageBytes() / p.inBytes();
  view = memref::ViewOp::create(
      b, MemRefType::get({ringElems}, inType, AffineMap(), wg), kb.smem, m.c(0),
      ValueRange{});
  view16 = inType == f16Type
               ? view
               : (Value)memref::ViewOp::create(
                     b,
                     MemRefType::get({ringElems * p.inBytes() / 2}, f16Type,
                                     AffineMap(), wg),
                     kb.smem, m.c(0), ValueRange{});
  stageElems = layout.stageBytes() / p.inBytes();
  bOffset = layout.bOffsetBytes() / p.inBytes();
  chunkElems = 16 / p.inBytes();
  realignElems = 16 / p.inBytes();
  aCopy = TileCopy{
      kb.a, true, p.transposeA, p.transposeA ? bk : bm, p.transposeA ? bm : bk,
      aVec};
  bCopy = TileCopy{kb.bMat,
                   false,
                   !p.transposeB,
                   p.transposeB ? bn : bk,
                   p.transposeB ? bk : bn,
                   bVec};
}

Value MmaSyncRing::stageOf(Value kt) {
  return m.mul(m.rem(kt, stages), stageElems);
}

Value MmaSyncRing::tileOffset(Value stageBase, Value row, Value col,
                              int64_t pitch) {
  int64_t chunksPerRow = pitch / chunkElems;
  Value chunk = swizzleChunk(m, row, m.div(col, chunkElems), chunksPerRow);
  return m.add(stageBase,
               m.add(m.mul(row, pitch),
                     m.add(m.mul(chunk, chunkElems), m.rem(col, chunkElems))));
}

//===----------------------------------------------------------------------===//
// Copies of a stage
//===----------------------------------------------------------------------===//

void MmaSyncRing::forEachPiece(
    const TileCopy &t, Value k0, int64_t width,
    function_ref<void(Value, Value, Value, Value, Value, Value)> fn) {
  int64_t perRow = t.cols / width;
  int64_t pieces = t.rows * t.cols / (threads * width);
  Value mn0 = t.isA ? kb.m0 : kb.n0;
  Value r0 = t.kMajor ? k0 : mn0, c0 = t.kMajor ? mn0 : k0;
  Value rows = kb.operandDim(t.global, 0), cols = kb.operandDim(t.global, 1);
  for (int64_t l = 0; l < pieces; ++l) {
    Value i = m.add(kb.tid, l * threads);
    Value r = m.div(i, perRow);
    Value col = m.mul(m.rem(i, perRow), width);
    fn(r, col, m.add(r0, r), m.add(c0, col), rows, cols);
  }
}

void MmaSyncRing::issueTile(const TileCopy &t, Value k0, Value stageBase,
                            SmallVectorImpl<Value> &tokens,
                            StagedCopies &staged) {
  const int64_t vec = t.vec;
  if (canRealign(t)) {
    std::optional<FlatView> &flat = t.isA ? aFlat : bFlat;
    if (!flat) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfterValue(t.global);
      flat = flatView(t.global);
    }
    forEachPiece(t, k0, realignElems,
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
          Value v = memref::LoadOp::create(b, t.global, ValueRange{srcR, srcC});
          staged.push_back({v, ok});
          return;
        }
        Value dst = tileOffset(stageBase, r, col, t.cols);
        auto copy = nvgpu::DeviceAsyncCopyOp::create(
            b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), view,
            ValueRange{dst}, t.global, ValueRange{srcR, srcC},
            b.getIndexAttr(vec), srcElems,
            vec * p.inBytes() == 16 ? b.getUnitAttr() : UnitAttr());
        tokens.push_back(copy.getAsyncToken());
      });
}

Value MmaSyncRing::issueStage(Value kt, StagedCopies &staged) {
  // Stage kt % stages; k-tiles past K copy only zeros (past this block's
  // split, the next split's data, which is never computed).
  Value stageBase = stageOf(kt);
  Value k0 = m.mul(m.add(kb.kTileBegin, kt), bk);
  SmallVector<Value> tokens;
  issueTile(aCopy, k0, stageBase, tokens, staged);
  issueTile(bCopy, k0, m.add(stageBase, bOffset), tokens, staged);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

// Visits the pieces in the order issueTile loaded them.
void MmaSyncRing::storeStaged(Value kt, const StagedCopies &copies) {
  Value stageBase = stageOf(kt);
  Value k0 = m.mul(m.add(kb.kTileBegin, kt), bk);
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
            memref::StoreOp::create(b, m.select(c[1], c[0], kb.zero(inType)),
                                    view, ValueRange{dst});
            return;
          }
          vector::StoreOp::create(b, finishRealigned(c[0], c[1], c[2], c[3]),
                                  view, ValueRange{dst}, /*nontemporal=*/false,
                                  llvm::MaybeAlign(16));
        });
  }
  assert(copy == copies.end() && "a store for every staged copy");
}

//===----------------------------------------------------------------------===//
// Realigned copies through registers
//===----------------------------------------------------------------------===//

bool MmaSyncRing::canRealign(const TileCopy &t) const {
  return t.vec == 1 && p.inBytes() == 2 &&
         (t.rows * t.cols) % (threads * realignElems) == 0;
}

MmaSyncRing::FlatView MmaSyncRing::flatView(Value matrix) {
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
}

SmallVector<Value, 4> MmaSyncRing::loadRealigned(const FlatView &flat, Value gr,
                                                 Value gc, Value rows,
                                                 Value cols) {
  const int64_t n = realignElems;
  auto chunkType = VectorType::get({n}, inType);
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
  auto ifOp = scf::IfOp::create(b, TypeRange{chunkType, chunkType}, fits, true);
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
    // read as zero (they lie past the row's end: masked later). A branch,
    // not a clamp to the last element: an empty matrix has none.
    // Rare (the very end of the matrix), so a loop: one access for the
    // harness to check instead of 2n (LLVM unrolls it anyway).
    b.setInsertionPointToStart(ifOp.elseBlock());
    auto loop =
        scf::ForOp::create(b, m.c(0), m.c(n), m.c(1),
                           ValueRange{kb.zero(chunkType), kb.zero(chunkType)});
    {
      OpBuilder::InsertionGuard loopGuard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value e = loop.getInductionVar();
      SmallVector<Value, 2> halves;
      for (auto [h, chunk] : llvm::enumerate(loop.getRegionIterArgs())) {
        Value at = m.add(aligned, m.add(e, int64_t(h) * n));
        auto inside =
            scf::IfOp::create(b, TypeRange{inType}, m.lt(at, flat.end), true);
        b.setInsertionPointToStart(inside.thenBlock());
        scf::YieldOp::create(
            b, ValueRange{memref::LoadOp::create(b, flat.buffer, at)});
        b.setInsertionPointToStart(inside.elseBlock());
        scf::YieldOp::create(b, ValueRange{kb.zero(inType)});
        b.setInsertionPointAfter(inside);
        Value elem = inside.getResult(0);
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
}

// Realigning is ALU work on every chunk (with both operands unaligned it
// outweighs the MMAs), so it works on 32-bit words: a select tree on the
// bits of shift / 2 picks the five words from word shift / 2 on, and an
// odd shift splices the halves of adjacent words (one funnel shift each).
Value MmaSyncRing::finishRealigned(Value lo, Value hi, Value shift,
                                   Value valid) {
  const int64_t n = realignElems;
  auto chunkType = VectorType::get({n}, inType);
  Type i32Type = b.getI32Type();
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
    Value spliced =
        arith::OrIOp::create(b, arith::ShRUIOp::create(b, words[j], i32c(16)),
                             arith::ShLIOp::create(b, words[j + 1], i32c(16)));
    out.push_back(m.select(odd, spliced, words[j]));
  }
  Value result = vector::BitCastOp::create(
      b, chunkType, vector::FromElementsOp::create(b, wordsType, out));
  // Chunks past the matrix's edge keep only their first `valid` elements
  // (`valid` may exceed n, or be negative past the row's end).
  auto masked = scf::IfOp::create(
      b, TypeRange{chunkType},
      arith::CmpIOp::create(b, arith::CmpIPredicate::sge, valid, m.c(n)), true);
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
      arith::ConstantOp::create(b, DenseIntElementsAttr::get(laneType, lanes)),
      vector::BroadcastOp::create(b, laneType, validI32));
  scf::YieldOp::create(b, ValueRange{arith::SelectOp::create(
                              b, mask, result, kb.zero(chunkType))});
  return masked.getResult(0);
}
