//===- GemmSynthesisBuilder.h - The GEMM kernel builder ---------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The builder the GEMM synthesizer's parts share: the skeleton and the
// epilogue (GemmSynthesis.cpp), the simt main loop (GemmSynthesisSimt.cpp)
// and the mma.sync one (GemmSynthesisMmaSync.cpp, with its shared-memory ring
// in GemmSynthesisMmaCopies.cpp). Internal to the synthesizer.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_FAMILY_GEMM_GEMMSYNTHESISBUILDER_H
#define AMK_LIB_FAMILY_GEMM_GEMMSYNTHESISBUILDER_H

#include "GemmSynthesis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::amk::gemm {

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
  /// Signed min and max: for differences that may be negative.
  Value minSigned(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value maxSigned(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
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

/// Builds one kernel. The skeleton sets up the operands, this block's output
/// tile and k-tiles; a main loop computes the tile; the epilogue stores it.
/// The main loops read what the skeleton set up (the public members).
class GemmKernelBuilder {
public:
  GemmKernelBuilder(ImplicitLocOpBuilder &b, GemmConfigAttr config,
                    const GemmProblem &problem)
      : b(b), m{b}, config(config), p(problem),
        layout(getGemmSmemLayout(config, problem)) {}

  /// Emits the kernel body into `func` (whose entry block is empty).
  void build(gpu::GPUFuncOp func);

  /// Size `dim` of a rank-2 (per-batch) operand: a constant when static.
  Value operandDim(Value memref, int64_t dim) {
    return dimOf(memref, dim,
                 cast<MemRefType>(memref.getType()).getDimSize(dim));
  }

  /// The block's epilogue: `stores` (storeOutput for each value the thread
  /// holds). split_reduce = serial: inside this split's turn, built twice,
  /// for the last split (which finishes C) and the others (which add to the
  /// running partial tile).
  void buildEpilogue(function_ref<void()> stores);
  // Epilogue: stores `values` (f32) to C[row, col .. col + values.size()).
  // `biasValues` (from loadBias at `col`) when the operation has a bias.
  void storeOutput(Value row, Value col, ArrayRef<Value> values,
                   ArrayRef<Value> biasValues);
  /// The bias (f32) at columns col .. col + width. The reads are clamped to
  /// the bias's size, so they need no guard: loaded once per column, they
  /// serve every row a thread stores.
  SmallVector<Value> loadBias(Value col, int64_t width);

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
  /// split_reduce = workspace, serial or last: the partial tiles
  /// (getSplitWorkspaceType), and this block's batch (0 unbatched) and
  /// split; serial and last: the tile counters (serial: this block's, for
  /// its signal after its turn), and whether the epilogue being built
  /// finishes C (serial: the last turn; last: the last split to arrive);
  /// last: the shared flag that says which split that is.
  Value partials, batchIndex, splitIndex, counters, counterIndex, lastFlag;
  bool finishesTile = false;
  /// The threads that run the epilogue when fewer than the block's (a
  /// warp-specialized kernel's consumers; 0: the block): its barriers are
  /// then a named barrier of theirs.
  int64_t epilogueThreads = 0;
  Value sizeM, sizeN, sizeK;
  /// This block's k-tiles: [kTileBegin, kTileBegin + kTiles) (all of K, or
  /// this block's split of it).
  Value kTileBegin, kTiles;
  Value tid, warp, lane;
  /// First row and column of this block's output tile (persistent: of the
  /// tile being computed).
  Value m0, n0;
  /// Persistent (warp specialized, static M and N): the grid's x, over which
  /// each block loops the tiles bid, bid + G, ...; 0: one tile per block.
  int64_t persistentBlocks = 0;
  /// The output's tiles (of one batch).
  Value tileCount();
  /// The first row and column of output tile `tile` (rasterized in groups
  /// of `swizzle` tile rows).
  std::pair<Value, Value> tileOrigin(Value tile);
  /// The dynamic shared memory as bytes.
  Value smem;
  /// wgmma: the TMA descriptors of A and B (the kernel's last two
  /// arguments, pointers to tensor maps the runtime encoded), and the same
  /// maps typed by one stage's 2-D tile for the wgmma descriptors (nvgpu
  /// derives an MN-major operand's chunk stride from the map's outermost
  /// box dimension, which a batched map has as 1).
  Value tensorMapA, tensorMapB, tileMapA, tileMapB;

private:
  /// Everything inside the batch guard.
  void buildBody(ArrayRef<Value> operands, Value batch, Value split);

  // Setup.
  /// A, B, [bias], C: the kernel's arguments; `batch` this block's batch.
  void setupOperands(ArrayRef<Value> operands, Value batch);
  void setupTile();
  Value dimOf(Value memref, int64_t dim, int64_t staticSize);

  // Paths.
  /// The simt kernel: main loop and epilogue (GemmSynthesisSimt.cpp).
  void buildSimt();
  /// The mma.sync kernel, versioned on dynamic row alignment
  /// (GemmSynthesisMmaSync.cpp).
  void buildMmaSync();
  /// The tensor-core main loop, A and B loaded `aVec` and `bVec` wide:
  /// returns the warp tile's accumulators (4 per m16n8 tile, row-major).
  SmallVector<Value> buildMmaSyncMainLoop(int64_t aVec, int64_t bVec);
  /// Stores the accumulators of buildMmaSyncMainLoop through the epilogue.
  void storeMmaSyncAccumulators(ArrayRef<Value> acc);
  /// The Hopper kernel: TMA ring, wgmma main loop, epilogue through shared
  /// memory (GemmSynthesisWgmma.cpp).
  void buildWgmma();
  /// The wgmma epilogue: each thread's accumulator registers (of compute
  /// warpgroup `warpgroup`), finished and stored at the tile m0, n0.
  void storeWgmmaTile(Value acc, Value warpgroup);
  /// The tensor map of A (`isA`) or B from its pointer argument: the box of
  /// one stage's tile (`tile`: without the batch), 128-byte swizzle,
  /// out-of-bounds zero fill.
  Value castToTensorMap(Value pointer, bool isA, bool tile = false);

  Value applyActivation(Value x);
  /// Stores `values` (f32) unfinished to partials[batch, split, row, col..]
  /// (serial: to the running sum, partials[batch, 0, row, col..]).
  void storePartials(Value row, Value col, ArrayRef<Value> values);
  /// A storeOutput call held back by storeWithSums.
  struct PendingStore {
    Value row, col;
    SmallVector<Value> values, biasValues;
  };
  std::optional<SmallVector<PendingStore>> pending;
  /// The f32 partial tile of workspace slot `slot` at row, col .. col +
  /// width, where `ok` (null: always) holds and the row and columns are
  /// inside (zeros elsewhere).
  SmallVector<Value> loadPartialTile(Value slot, Value row, Value col,
                                     int64_t width, Value ok);
  /// split_reduce = serial: the running sum the earlier turns left at row,
  /// col .. col + width (zeros in turn 0).
  SmallVector<Value> loadRunningSum(Value row, Value col, int64_t width);
  /// Runs `stores` (storeOutput calls) with each run of values replaced by
  /// the sum, in order, of the run itself (`addOwn`) and the runs `loads`
  /// returns for its place; every load is issued before any sum.
  void storeWithSums(
      function_ref<void()> stores,
      function_ref<SmallVector<SmallVector<Value>>(const PendingStore &)> loads,
      bool addOwn);
  /// split_reduce = serial: runs `stores`, each value plus the running sum
  /// at its place.
  void storeWithRunningSum(function_ref<void()> stores);
  /// split_reduce = last: runs `stores`, each value replaced by the sum of
  /// every split's partial at its place, in split order.
  void storeWithSplitSum(function_ref<void()> stores);
  /// Whether this epilogue stores unfinished partial sums.
  bool storesPartials() const { return partials && !finishesTile; }
  /// Whether runs of `width` columns at multiples of `width` stay aligned
  /// and inside the rows: N is a static multiple of `width`.
  bool runsAligned(int64_t width) const;
  /// Whether storeOutput stores a run of `width` columns (at a multiple of
  /// `width`) with one vector store.
  bool storesRuns(int64_t width) const;
  /// split_reduce = serial: thread 0 waits until the splits before this
  /// block's have signalled its tile's counter, then the block proceeds;
  /// and, after the block's stores, signals it.
  void waitForTurn();
  void signalTurn();
  /// The counter of this block's tile (serial and last split-K): one per
  /// output tile of each batch.
  Value tileCounterIndex();
  /// split_reduce = last: every split stores its partial tile and signals
  /// its tile's counter; the last to arrive finishes C.
  void buildLastSplitEpilogue(function_ref<void()> stores);
};

} // namespace mlir::amk::gemm

#endif // AMK_LIB_FAMILY_GEMM_GEMMSYNTHESISBUILDER_H
