//===- GemmSynthesisWgmma.cpp - The Hopper TMA + wgmma GEMM kernel --------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Warpgroup MMAs (wgmma m64nNk16; tf32 m64nNk8) on operands that TMA copies
// into a ring of shared-memory stages. Each warpgroup owns a 64 x WN tile of
// the block's output. Tiles are rows of the 128-byte swizzle: BK * elem =
// 128 bytes for a K-major operand (A [M, K], B [N, K]), whose k-step kk
// starts kk * 32 bytes into the row of a 1024-aligned pattern (base offset
// 0); an MN-major one (B as [K, N], 16-bit types) comes in 64-wide chunks
// [BK][64], one TMA box each, whose k-step kk starts 16 kk rows in, and
// wgmma transposes it. Batched operands have 3-D maps, the batch
// outermost.
//
// Stage s has its own mbarrier; thread 0 arms it with the stage's bytes
// (expect_tx) and issues both boxes. The stages are unrolled, so every
// barrier index is a constant:
//
//   prologue: thread 0 fills stages 0 .. S-1 with k-tiles 0 .. S-1
//   for each k-tile kt (stage s = kt % S, phase kt / S):
//     wait for stage s's phase
//     BK / instK wgmmas from stage s, each waiting until only this
//     k-tile's groups are in flight
//     barrier: every warpgroup has retired its wgmmas of k-tile kt - 1
//     thread 0 refills that stage, (s - 1) % S, with k-tile kt - 1 + S
//   wgmma wait 0
//
// Warp specialized (threads = the compute warpgroups' + 128), thread 0 of
// the last warpgroup is the producer and no block barrier runs in the loop:
//
//   producer, round r:  for each stage s: wait empty[s] phase r - 1 (round
//                       0: a fresh barrier's preceding phase; stage S - 1:
//                       phase r), expect_tx full[s], load k-tile r S + s
//   consumers, round r: for each stage s: wait full[s] phase r, wgmmas;
//                       then the previous k-tile's wgmmas have retired:
//                       arrive empty[(s - 1) mod S]
//
// The arrive on empty[S - 1] at stage 0 frees the previous round's k-tile,
// so the tensor cores never drain within the loop; in round 0 it frees a
// stage not yet filled, which shifts that barrier's phases by one.
//
// with k-tiles padded to whole rounds (TMA fills the padding with zeros)
// and, when the consumers need more registers than an even share,
// setmaxnreg moving the producer warpgroup's to them. Persistent (static M
// and N: min(tiles, SMs) blocks), each role runs its rounds inside a loop
// over the block's tiles bid, bid + G, ..., the phase bit carried on, and
// the consumers store each tile after its rounds while the producer
// already loads the next.
//
// TMA zero-fills what lies outside A or B, so edge tiles need no masks on
// the loads. The epilogue finishes each thread's accumulators in registers
// with the shared epilogue (alpha, beta, bias, activation, masked stores).
//
//===----------------------------------------------------------------------===//

#include "GemmSynthesisBuilder.h"

#include "AMK/Family/Gemm/GemmResources.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::gemm;

namespace {

/// The ring, its barriers and the warpgroup's wgmmas.
class WgmmaMainLoop {
public:
  WgmmaMainLoop(GemmKernelBuilder &kb);

  /// Emits the main loop and `epilogue` on each finished accumulator (warp
  /// specialized: in the consumers' branch; persistent: per tile, with the
  /// builder's m0 and n0 set to the tile's).
  void build(function_ref<void(Value acc)> epilogue);
  /// Whether a producer warpgroup issues the loads (threads = the compute
  /// warpgroups' + 128).
  bool isSpecialized() const { return specialized; }
  /// The thread's compute warpgroup. (Warp specialized, only the compute
  /// warpgroups multiply and store: the clamp, a no-op for them, bounds
  /// their tiles for the range analysis, so the harness sees each block's
  /// stores inside its own tile.)
  Value computeWarpgroup() {
    Value warpgroup = m.div(kb.tid, 128);
    if (!specialized)
      return warpgroup;
    return m.min(warpgroup, m.c(kb.config.getNumComputeWarps() / 4 - 1));
  }

private:
  /// Thread 0 arms stage `stage`'s barrier and loads k-tile `kt` into it.
  void fill(int64_t stage, Value kt);
  /// Waits for k-tile `kt` in `stage` at `parity` and multiplies it into
  /// `acc`; with `refill`, then refills the stage before it with k-tile
  /// kt - 1 + S.
  Value step(int64_t stage, Value kt, Value parity, Value acc, bool refill);
  /// Steps through k-tiles [lo, hi) (constants): whole rounds of the ring in
  /// an scf.for, the rest unrolled.
  Value run(int64_t lo, int64_t hi, bool refill, Value acc);
  /// The warp-specialized main loop: the producer thread and the consumer
  /// warpgroups hand stages back and forth through full and empty barriers;
  /// persistent, each role loops over the block's tiles around its rounds.
  void buildSpecialized(function_ref<void(Value acc)> epilogue);
  /// The wgmmas of one k-tile in `stage` into `acc`.
  Value multiply(int64_t stage, Value acc);

  /// The byte offset of A's (`isA`) or B's tile of `stage`.
  int64_t tileOffset(int64_t stage, bool isA) const;
  /// The tile of A (`isA`) or B in `stage`, as TMA fills it: K-major
  /// [rows][BK], MN-major [rows / 64][BK][64] (64-element swizzle rows).
  Value tileView(int64_t stage, bool isA);
  /// The k-step `kk` of `rows` rows (M or N) from `row0` of such a tile.
  Value kStep(Value tile, bool isA, Value row0, int64_t rows, int64_t kk);
  /// Thread 0's TMA loads of A (`isA`) or B's k-tile at `k0` into `stage`.
  void load(int64_t stage, bool isA, Value k0, Value id);

  GemmKernelBuilder &kb;
  ImplicitLocOpBuilder &b;
  IndexMath &m;
  const GemmSmemLayout &layout;
  /// Whether A and B have K innermost (else M or N: wgmma transposes).
  bool kMajorA, kMajorB;
  MemRefType tileA, tileB;
  nvgpu::WarpgroupMatrixDescriptorType descA, descB;
  nvgpu::WarpgroupAccumulatorType accType;
  /// Per stage: filled (TMA bytes landed) and, warp specialized, emptied
  /// (every consumer thread done with it).
  Value barriers, emptyBarriers;
  bool specialized;
  /// K's k-tiles (K is static), this block's (its split's) and the stages
  /// the ring uses (at most kTiles).
  int64_t allKTiles, kTiles, stages;
  int64_t instK, kSteps;
  /// This warpgroup's first row of A and of B in a tile.
  Value rowA, rowB;
  Value isLeader;
};

} // namespace

WgmmaMainLoop::WgmmaMainLoop(GemmKernelBuilder &kb)
    : kb(kb), b(kb.b), m(kb.m), layout(kb.layout) {
  MLIRContext *ctx = b.getContext();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Type elem = kb.p.inType;
  GemmConfigAttr config = kb.config;
  int64_t bk = config.getBlockK();
  kMajorA = !kb.p.transposeA;
  kMajorB = kb.p.transposeB;
  auto tile = [&](int64_t rows, bool kMajor) {
    SmallVector<int64_t> shape = {rows, bk};
    if (!kMajor)
      shape = {rows / kWgmmaMNChunk, bk, kWgmmaMNChunk};
    return MemRefType::get(shape, elem, AffineMap(), workgroup);
  };
  tileA = tile(config.getBlockM(), kMajorA);
  tileB = tile(config.getBlockN(), kMajorB);
  instK = config.getInst()[2];
  kSteps = bk / instK;
  int64_t wn = config.getWarpN();
  // The descriptors say how wgmma reads the bytes: f32 as tf32.
  Type mathElem = elem.isF32() ? Type(b.getTF32Type()) : elem;
  descA = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, MemRefType::get({64, instK}, mathElem, AffineMap(), workgroup));
  // nvgpu names B's shape K x N whatever its layout.
  descB = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, MemRefType::get({instK, wn}, mathElem, AffineMap(), workgroup));
  accType = nvgpu::WarpgroupAccumulatorType::get(
      ctx, VectorType::get({64, wn}, b.getF32Type()));
  // Split-K: each split runs the same count of k-tiles from its first
  // (kb.kTileBegin); the last split's past K are boxes TMA fills with zeros.
  allKTiles = llvm::divideCeil(kb.p.k, bk);
  kTiles = getKTilesPerSplit(config, kb.p.k);
  stages = std::min<int64_t>(config.getStages(), kTiles);
  specialized = isWarpSpecialized(config);
  if (specialized) {
    // Whole rounds of the ring: k-tiles past K are boxes TMA fills with
    // zeros, which add nothing. The fewest of them, then the most stages.
    int64_t best = stages;
    for (int64_t s = stages; s >= 2; --s)
      if (llvm::alignTo(kTiles, s) < llvm::alignTo(kTiles, best))
        best = s;
    stages = best;
  }
  // Warpgroup w computes rows 64 * (w / warpsN) and columns WN * (w %
  // warpsN) of the block tile.
  int64_t warpsN = config.getBlockN() / wn;
  Value warpgroup = computeWarpgroup();
  rowA = m.mul(m.div(warpgroup, warpsN), 64);
  rowB = m.mul(m.rem(warpgroup, warpsN), wn);
  isLeader = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, kb.tid, m.c(0));
}

int64_t WgmmaMainLoop::tileOffset(int64_t stage, bool isA) const {
  return stage * layout.stageBytes() +
         (isA ? layout.aOffsetBytes() : layout.bOffsetBytes());
}

Value WgmmaMainLoop::tileView(int64_t stage, bool isA) {
  return memref::ViewOp::create(b, isA ? tileA : tileB, kb.smem,
                                m.c(tileOffset(stage, isA)), ValueRange{});
}

Value WgmmaMainLoop::kStep(Value tile, bool isA, Value row0, int64_t rows,
                           int64_t kk) {
  OpFoldResult k = b.getIndexAttr(kk * instK);
  OpFoldResult one = b.getIndexAttr(1);
  if (isA ? kMajorA : kMajorB) {
    SmallVector<OpFoldResult> offsets = {row0, k};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                       b.getIndexAttr(instK)};
    return memref::SubViewOp::create(b, tile, offsets, sizes,
                                     SmallVector<OpFoldResult>(2, one));
  }
  // MN-major: instK rows of each 64-wide chunk the warpgroup covers (the
  // descriptor steps from chunk to chunk).
  SmallVector<OpFoldResult> offsets = {m.div(row0, kWgmmaMNChunk), k,
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows / kWgmmaMNChunk),
                                     b.getIndexAttr(instK),
                                     b.getIndexAttr(kWgmmaMNChunk)};
  return memref::SubViewOp::create(b, tile, offsets, sizes,
                                   SmallVector<OpFoldResult>(3, one));
}

void WgmmaMainLoop::load(int64_t stage, bool isA, Value k0, Value id) {
  Value map = isA ? kb.tensorMapA : kb.tensorMapB;
  Value row0 = isA ? kb.m0 : kb.n0;
  // Each box lands in a view of its own shape (the box outermost first):
  // the whole tile K-major, one 64-wide chunk after another MN-major.
  SmallVector<int64_t> box = getWgmmaBox(kb.config, kb.p, isA);
  auto boxType =
      MemRefType::get(SmallVector<int64_t>(llvm::reverse(box)), kb.p.inType,
                      AffineMap(), tileA.getMemorySpace());
  int64_t boxBytes = boxType.getNumElements() * kb.p.inBytes();
  int64_t offset = tileOffset(stage, isA);
  bool kMajor = isA ? kMajorA : kMajorB;
  int64_t boxes = kMajor ? 1 : (isA ? tileA : tileB).getDimSize(0);
  for (int64_t c = 0; c < boxes; ++c) {
    Value dst = memref::ViewOp::create(
        b, boxType, kb.smem, m.c(offset + c * boxBytes), ValueRange{});
    // Coordinates run innermost first: (k, row) K-major, (row, k) for a
    // chunk; then the batch.
    Value row = m.add(row0, c * kWgmmaMNChunk);
    SmallVector<Value> coords =
        kMajor ? SmallVector<Value>{k0, row} : SmallVector<Value>{row, k0};
    if (kb.p.batched)
      coords.push_back(kb.batchIndex);
    nvgpu::TmaAsyncLoadOp::create(b, dst, barriers, map, coords, id, Value(),
                                  Value());
  }
}

void WgmmaMainLoop::fill(int64_t stage, Value kt) {
  // k-tile kt of this block's; one past them (a round's padding, warp
  // specialized) loads K's end, which TMA fills with zeros.
  Value tile = m.add(kb.kTileBegin, kt);
  if (specialized && kb.config.getSplitK() > 1 && kTiles % stages != 0)
    tile = m.select(m.lt(kt, m.c(kTiles)), tile, m.c(allKTiles));
  Value k0 = m.mul(tile, kb.config.getBlockK());
  Value bytes =
      m.c((tileA.getNumElements() + tileB.getNumElements()) * kb.p.inBytes());
  Value id = m.c(stage);
  nvgpu::MBarrierArriveExpectTxOp::create(b, barriers, bytes, id, Value());
  load(stage, true, k0, id);
  load(stage, false, k0, id);
}

Value WgmmaMainLoop::step(int64_t stage, Value kt, Value parity, Value acc,
                          bool refill) {
  Value ticks = m.c(10000000);
  nvgpu::MBarrierTryWaitParityOp::create(b, barriers, parity, ticks,
                                         m.c(stage));
  acc = multiply(stage, acc);
  // The previous k-tile's groups are retired. Once every warpgroup is
  // here, its stage is free.
  gpu::BarrierOp::create(b);
  if (refill) {
    auto ifOp = scf::IfOp::create(b, isLeader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    fill((stage + stages - 1) % stages, m.add(kt, stages - 1));
  }
  return acc;
}

Value WgmmaMainLoop::multiply(int64_t stage, Value acc) {
  Value a = tileView(stage, true), bt = tileView(stage, false);
  auto transpose = [&](bool kMajor) {
    return kMajor ? UnitAttr() : b.getUnitAttr();
  };
  for (int64_t kk = 0; kk < kSteps; ++kk) {
    Value da = nvgpu::WarpgroupGenerateDescriptorOp::create(
        b, descA, kStep(a, true, rowA, 64, kk), kb.tileMapA);
    Value db = nvgpu::WarpgroupGenerateDescriptorOp::create(
        b, descB, kStep(bt, false, rowB, kb.config.getWarpN(), kk),
        kb.tileMapB);
    // Each commits a group and waits until at most this k-tile's are in
    // flight: the tensor cores queue a whole k-tile.
    acc = nvgpu::WarpgroupMmaOp::create(
        b, accType, da, db, b.getI64IntegerAttr(kSteps), transpose(kMajorA),
        transpose(kMajorB), acc);
  }
  return acc;
}

Value WgmmaMainLoop::run(int64_t lo, int64_t hi, bool refill, Value acc) {
  // k-tile kt sits in stage kt % S, in that barrier's phase kt / S.
  auto parityOf = [&](int64_t kt) {
    return arith::ConstantIntOp::create(b, b.getI1Type(), (kt / stages) % 2);
  };
  int64_t rounds = (hi - lo) / stages;
  if (rounds > 0) {
    // Round r runs k-tiles lo + r S + j, j < S; the carried parity is that
    // of k-tile lo + r S, and flips within the round where the stage wraps.
    Value trueV = arith::ConstantIntOp::create(b, b.getI1Type(), 1);
    auto loop = scf::ForOp::create(b, m.c(0), m.c(rounds), m.c(1),
                                   ValueRange{parityOf(lo), acc});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value first = m.add(m.mul(loop.getInductionVar(), stages), lo);
    Value parity = loop.getRegionIterArgs()[0];
    Value inner = loop.getRegionIterArgs()[1];
    for (int64_t j = 0; j < stages; ++j) {
      bool wrapped = lo % stages + j >= stages;
      inner = step((lo + j) % stages, m.add(first, j),
                   wrapped ? arith::XOrIOp::create(b, parity, trueV) : parity,
                   inner, refill);
    }
    scf::YieldOp::create(
        b, ValueRange{arith::XOrIOp::create(b, parity, trueV), inner});
    b.setInsertionPointAfter(loop);
    acc = loop.getResult(1);
  }
  for (int64_t kt = lo + rounds * stages; kt < hi; ++kt)
    acc = step(kt % stages, m.c(kt), parityOf(kt), acc, refill);
  return acc;
}

void WgmmaMainLoop::buildSpecialized(function_ref<void(Value acc)> epilogue) {
  MLIRContext *ctx = b.getContext();
  auto group = nvgpu::MBarrierGroupType::get(
      ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
      stages);
  barriers = nvgpu::MBarrierCreateOp::create(b, group);
  // One round of one tile fills each stage once: nothing waits for a stage
  // to empty.
  int64_t rounds = kTiles / stages + (kTiles % stages != 0);
  bool persistent = kb.persistentBlocks > 0;
  bool recycles = rounds > 1 || persistent;
  if (recycles)
    emptyBarriers = nvgpu::MBarrierCreateOp::create(b, group);
  int64_t consumerThreads = kb.config.getNumComputeWarps() * 32;
  // Consumers that need more than an even share take the producer's.
  std::optional<WgmmaRegisterSplit> split =
      getWgmmaRegisterSplit(kb.config, kb.p);
  auto setMaxRegisters = [&](int64_t count, bool increase) {
    NVVM::SetMaxRegisterOp::create(b, count,
                                   increase
                                       ? NVVM::SetMaxRegisterAction::increase
                                       : NVVM::SetMaxRegisterAction::decrease);
  };
  {
    // A stage fills by the producer's expect_tx and empties once every
    // consumer thread has retired its wgmmas on it.
    auto ifOp = scf::IfOp::create(b, isLeader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (int64_t s = 0; s < stages; ++s) {
      nvgpu::MBarrierInitOp::create(b, barriers, m.c(1), m.c(s), Value());
      if (recycles)
        nvgpu::MBarrierInitOp::create(b, emptyBarriers, m.c(consumerThreads),
                                      m.c(s), Value());
    }
    NVVM::FenceProxyOp::create(
        b, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  }
  gpu::BarrierOp::create(b);
  Value ticks = m.c(10000000);
  Value trueV = arith::ConstantIntOp::create(b, b.getI1Type(), 1);
  auto ring = [&](Value parity, ValueRange carried,
                  function_ref<void(Value round, Value parity,
                                    SmallVector<Value> & carried)>
                      body) {
    SmallVector<Value> init = {parity};
    llvm::append_range(init, carried);
    auto loop = scf::ForOp::create(b, m.c(0), m.c(rounds), m.c(1), init);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> values(loop.getRegionIterArgs().drop_front());
    Value phase = loop.getRegionIterArgs()[0];
    body(loop.getInductionVar(), phase, values);
    values.insert(values.begin(), arith::XOrIOp::create(b, phase, trueV));
    scf::YieldOp::create(b, values);
    return loop;
  };
  // Persistent, each role loops over the block's tiles bid, bid + G, ...
  // (both over the same bounds), carrying the phase bit on from tile to
  // tile; `body` builds one tile's rounds, with the builder's m0 and n0
  // set to the tile's, and returns the phase bit after them.
  Value firstTile, tileCount, tileStep;
  if (persistent) {
    firstTile = gpu::BlockIdOp::create(b, gpu::Dimension::x);
    tileCount = kb.tileCount();
    tileStep = m.c(kb.persistentBlocks);
  }
  auto tiles = [&](Value parity, function_ref<Value(Value parity)> body) {
    if (!persistent) {
      body(parity);
      return;
    }
    auto loop = scf::ForOp::create(b, firstTile, tileCount, tileStep,
                                   ValueRange{parity});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    std::tie(kb.m0, kb.n0) = kb.tileOrigin(loop.getInductionVar());
    scf::YieldOp::create(b, body(loop.getRegionIterArgs()[0]));
  };
  {
    // The producer: one thread of the last warpgroup. Round r waits for
    // the consumers to free each stage of round r - 1 (parity of phase
    // r - 1: in round 0, a fresh barrier's preceding phase, complete).
    OpBuilder::InsertionGuard guard(b);
    if (split) {
      // Its warpgroup hands its registers to the consumers.
      Value isProducerGroup =
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, m.div(kb.tid, 128),
                                m.c(consumerThreads / 128));
      auto group = scf::IfOp::create(b, isProducerGroup, false);
      b.setInsertionPointToStart(group.thenBlock());
      setMaxRegisters(split->producer, false);
    }
    Value isProducer = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                             kb.tid, m.c(consumerThreads));
    auto ifOp = scf::IfOp::create(b, isProducer, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    tiles(trueV, [&](Value parity) {
      return ring(parity, {}, [&](Value round, Value parity,
                                  SmallVector<Value> &) {
        for (int64_t s = 0; s < stages; ++s) {
          // Stage S - 1's k-tile of round r - 1 is freed in round r (one
          // stage: in round r - 1, see the consumers).
          if (recycles)
            nvgpu::MBarrierTryWaitParityOp::create(
                b, emptyBarriers,
                s == stages - 1 && stages > 1
                    ? arith::XOrIOp::create(b, parity, trueV)
                    : parity,
                ticks, m.c(s));
          fill(s, m.add(m.mul(round, stages), s));
        }
      }).getResult(0);
    });
  }
  // The consumers: round r waits for each stage's phase r, multiplies it,
  // retires the wgmmas and frees the stage. (By warpgroup index: a
  // condition its threads visibly share.) A ring of one stage (a tile of
  // one k-tile) has no previous stage to free: its own wgmmas retire first,
  // then it frees itself.
  Value isConsumer =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, m.div(kb.tid, 128),
                            m.c(consumerThreads / 128));
  auto consumers = scf::IfOp::create(b, isConsumer, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(consumers.thenBlock()->getTerminator());
  if (split)
    setMaxRegisters(split->consumer, true);
  // The producer does not join the epilogue: its barriers are the
  // consumers' own.
  kb.epilogueThreads = consumerThreads;
  Value falseV = arith::ConstantIntOp::create(b, b.getI1Type(), 0);
  tiles(falseV, [&](Value parity) {
    Value acc = nvgpu::WarpgroupMmaInitAccumulatorOp::create(b, accType);
    // The wgmmas of a k-tile leave only its own groups in flight: the
    // previous k-tile's stage is free (at stage 0, the previous round's
    // last: persistent, the previous tile's).
    auto loop = ring(
        parity, {acc}, [&](Value, Value parity, SmallVector<Value> &carried) {
          for (int64_t s = 0; s < stages; ++s) {
            nvgpu::MBarrierTryWaitParityOp::create(b, barriers, parity, ticks,
                                                   m.c(s));
            carried[0] = multiply(s, carried[0]);
            if (recycles && stages == 1)
              NVVM::WgmmaWaitGroupSyncOp::create(b, b.getI64IntegerAttr(0));
            if (recycles)
              nvgpu::MBarrierArriveOp::create(
                  b, nvgpu::MBarrierTokenType::get(ctx), emptyBarriers,
                  m.c((s + stages - 1) % stages));
          }
        });
    // The accumulators are final once the last group retires.
    NVVM::WgmmaWaitGroupSyncOp::create(b, b.getI64IntegerAttr(0));
    epilogue(loop.getResult(1));
    return loop.getResult(0);
  });
}

void WgmmaMainLoop::build(function_ref<void(Value acc)> epilogue) {
  if (specialized)
    return buildSpecialized(epilogue);
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  barriers = nvgpu::MBarrierCreateOp::create(
      b, nvgpu::MBarrierGroupType::get(b.getContext(), workgroup, stages));
  {
    // One arrival (thread 0's expect_tx) per phase; the fence makes the
    // initialized barriers visible to the copy engine.
    auto ifOp = scf::IfOp::create(b, isLeader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (int64_t s = 0; s < stages; ++s)
      nvgpu::MBarrierInitOp::create(b, barriers, m.c(1), m.c(s), Value());
    NVVM::FenceProxyOp::create(
        b,
        NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }
  gpu::BarrierOp::create(b);
  {
    auto ifOp = scf::IfOp::create(b, isLeader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (int64_t s = 0; s < stages; ++s)
      fill(s, m.c(s));
  }
  // k-tile 0 frees no stage; k-tiles 1 .. kTiles - S refill the one before
  // theirs; the last S - 1 drain the ring.
  Value acc = nvgpu::WarpgroupMmaInitAccumulatorOp::create(b, accType);
  acc = run(0, 1, /*refill=*/false, acc);
  acc = run(1, kTiles - stages + 1, /*refill=*/true, acc);
  acc = run(std::max<int64_t>(1, kTiles - stages + 1), kTiles,
            /*refill=*/false, acc);
  // The accumulators are final once the last group retires.
  NVVM::WgmmaWaitGroupSyncOp::create(b, b.getI64IntegerAttr(0));
  epilogue(acc);
}

void GemmKernelBuilder::buildWgmma() {
  WgmmaMainLoop mainLoop(*this);
  mainLoop.build([&](Value acc) {
    buildEpilogue([&] { storeWgmmaTile(acc, mainLoop.computeWarpgroup()); });
  });
}

/// One step of a 4 x 4 transpose within each quad of lanes: x[j] is the
/// lane's item j (two values); lanes q and q ^ mask swap the items whose
/// `mask` bit differs from their own, so after the steps for masks 2 and 1
/// lane q holds item q of every lane of its quad, in lane order.
static void exchangeInQuad(ImplicitLocOpBuilder &b, IndexMath &m,
                           Value quadLane,
                           SmallVector<SmallVector<Value, 2>, 4> &x,
                           int64_t mask) {
  Type i32 = b.getI32Type();
  Value width = arith::ConstantIntOp::create(b, i32, 32);
  Value offset = arith::ConstantIntOp::create(b, i32, mask);
  Value high = m.lt(m.c(0), m.rem(m.div(quadLane, mask), 2));
  for (int64_t lo = 0; lo < 4; ++lo) {
    if (lo & mask)
      continue;
    int64_t hi = lo | mask;
    for (int64_t e = 0; e < 2; ++e) {
      // Keep the item whose bit matches the lane's, send the other.
      Value send = m.select(high, x[lo][e], x[hi][e]);
      Value got =
          gpu::ShuffleOp::create(b, send, offset, width, gpu::ShuffleMode::XOR)
              .getShuffleResult();
      Value keepLo = x[lo][e], keepHi = x[hi][e];
      x[lo][e] = m.select(high, got, keepLo);
      x[hi][e] = m.select(high, keepHi, got);
    }
  }
}

void GemmKernelBuilder::storeWgmmaTile(Value acc, Value warpgroup) {
  // The accumulator as the LLVM struct it lowers to (one struct of WN / 2
  // f32 per 64 rows), read out register by register: nvgpu's own store
  // places warpgroups other than the first wrongly (it numbers rows by the
  // warp's index in the block).
  int64_t wn = config.getWarpN(), warpsN = config.getBlockN() / wn;
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  auto fragments =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(wn / 2, f32));
  Value regs = UnrealizedConversionCastOp::create(
                   b, LLVM::LLVMStructType::getLiteral(ctx, {fragments}), acc)
                   .getResult(0);
  // Warp q of warpgroup g holds rows 16 q + lane / 4 (+ 8) of g's 64 x WN
  // tile and, per n8 column tile j, columns 8 j + 2 (lane % 4) (+ 1):
  // registers 4 j, 4 j + 1 (row) and 4 j + 2, 4 j + 3 (row + 8).
  Value rowBase =
      m.add(m0, m.add(m.mul(m.div(warpgroup, warpsN), 64),
                      m.add(m.mul(m.rem(warp, 4), 16), m.div(lane, 4))));
  Value quadLane = m.rem(lane, 4);
  Value tileCol = m.add(n0, m.mul(m.rem(warpgroup, warpsN), wn));
  auto extract = [&](int64_t reg) -> Value {
    return LLVM::ExtractValueOp::create(b, regs, ArrayRef<int64_t>{0, reg});
  };
  // 16-bit outputs in 16-byte runs: the four lanes of a quad hold one row
  // of four n8 tiles, two columns each. A transpose within the quad
  // (shuffles by xor 2, then 1) gives lane q the eight columns of the
  // group's tile q, which it stores at once: a warp writes 64 contiguous
  // bytes of each of its rows (two columns per lane wrote half sectors,
  // four times as often). f32 pairs fill their sectors already (f32 C and
  // split-K partials measured no gain for the shuffles).
  if (wn % 32 == 0 && !storesPartials() && p.outBytes() < 4 && storesRuns(8)) {
    for (int64_t j0 = 0; j0 < wn / 8; j0 += 4) {
      Value col = m.add(tileCol, m.add(m.c(j0 * 8), m.mul(quadLane, 8)));
      SmallVector<Value> biasValues = loadBias(col, 8);
      for (int64_t h = 0; h < 2; ++h) {
        SmallVector<SmallVector<Value, 2>, 4> x(4);
        for (int64_t j = 0; j < 4; ++j)
          for (int64_t e = 0; e < 2; ++e)
            x[j].push_back(extract(4 * (j0 + j) + 2 * h + e));
        exchangeInQuad(b, m, quadLane, x, 2);
        exchangeInQuad(b, m, quadLane, x, 1);
        SmallVector<Value> values;
        for (int64_t s = 0; s < 4; ++s)
          llvm::append_range(values, x[s]);
        storeOutput(m.add(rowBase, h * 8), col, values, biasValues);
      }
    }
    return;
  }
  Value colBase = m.add(tileCol, m.mul(quadLane, 2));
  for (int64_t j = 0; j < wn / 8; ++j) {
    Value col = m.add(colBase, j * 8);
    SmallVector<Value> biasValues = loadBias(col, 2);
    for (int64_t h = 0; h < 2; ++h) {
      SmallVector<Value> values;
      for (int64_t e = 0; e < 2; ++e)
        values.push_back(extract(4 * j + 2 * h + e));
      storeOutput(m.add(rowBase, h * 8), col, values, biasValues);
    }
  }
}

Value GemmKernelBuilder::castToTensorMap(Value pointer, bool isA, bool tile) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<int64_t> box = getWgmmaBox(config, p, isA);
  if (tile)
    box.resize(2);
  auto boxType = MemRefType::get(SmallVector<int64_t>(llvm::reverse(box)),
                                 p.inType, AffineMap(), workgroup);
  auto type = nvgpu::TensorMapDescriptorType::get(
      b.getContext(), boxType, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  return UnrealizedConversionCastOp::create(b, type, pointer).getResult(0);
}
