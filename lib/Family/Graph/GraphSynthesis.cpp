//===- GraphSynthesis.cpp - The megakernel synthesizer --------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// One persistent kernel runs the graph's steps in order. In a product,
// block b owns the output columns n = b + blocks * s (s = 0, 1, ...); each
// warp takes rows_per_warp of them at a time and streams those weight rows
// with 16-byte loads, `unroll` per row in flight per lane, folding in A (a
// few rows, from L1) with f32 FMAs; xor shuffles sum the lanes and lane 0
// writes the epilogue (simt). With math = mma_sync the unit is a tile of 8
// columns and m16n8k16 products fold the same 16-byte loads (buildMmaStep
// says how); a step leaving a block fewer tiles than warps splits K over
// them. With stages > 0 the mma body reads the weights (and, where they
// divide among the threads, A's rows) from a ring of shared-memory stages
// that TMA (and cp.async) fill ahead (buildMmaRingStep says how). An
// elementwise step owns its columns as the products do; a row
// step (softmax, the norms) gives block b the rows b + blocks * s, each
// the row family's tile body over the block's threads. Every access is in
// bounds by construction: loop bounds bound the columns of K, rows past N
// are clamped for loads and guarded for stores.
//
// Dependencies between steps are counters in global memory (a workspace
// the launch zeroes, one per step): when a block has written its part of a
// step that a later step waits for, it releases it (a barrier, a gpu-scope
// fence, an atomic add of 1 by thread 0); the waiting step first acquires
// (thread 0 polls with atomic reads until all blocks signalled, fences,
// then a barrier). An elementwise step that reads products' results reads
// only what its own block wrote: a barrier orders it. Every block is
// resident (the launch is cooperative and the plan checked residency), so
// no block waits on one that cannot run.
// This is the protocol the harness's AMK-GLOBAL-SYNC check proves.
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Graph/GraphModel.h"
#include "AMK/Family/KernelBuilding.h"
#include "AMK/Harness/KernelSafety.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::amk;

namespace {

class GraphKernelBuilder {
public:
  GraphKernelBuilder(ImplicitLocOpBuilder &b, GraphConfigAttr config,
                     GraphOp graph, const GraphProblem &p)
      : b(b), config(config), graph(graph), p(p) {}

  void build(gpu::GPUFuncOp func);

private:
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, b.getI32Type(), v);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  /// `v` of the lane `offset` away (xor), across the whole warp.
  Value shuffleXor(Value v, int64_t offset) {
    return gpu::ShuffleOp::create(b, v, i32(offset), i32(32),
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  /// Runs `body` in an scf.if on `cond` (no results).
  void ifThen(Value cond, llvm::function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  }

  /// One element of `memref` at `indices`, as f32.
  Value loadF32(Value memref, ValueRange indices) {
    Value v = memref::LoadOp::create(b, memref, indices);
    return v.getType().isF32() ? v
                               : arith::ExtFOp::create(b, b.getF32Type(), v);
  }
  /// `vector` elements of `memref` at [row, col] (or `indices`), as f32.
  SmallVector<Value> loadRun(Value memref, Value row, Value col,
                             int64_t vector) {
    return loadRun(memref, ValueRange{row, col}, vector);
  }
  SmallVector<Value> loadRun(Value memref, ValueRange indices, int64_t vector);
  /// Folds the runs `runs` (run indices of K) of each weight row against
  /// A's rows into `acc` (row-major [rows][M]).
  void foldRuns(const GraphStep &s, Value a, Value w, ArrayRef<Value> rows,
                ArrayRef<Value> runs, SmallVectorImpl<Value> &acc);
  void buildStep(unsigned index, MatmulOp step);
  /// Block b computes the rows b, b + blocks, ... as the row family's tile
  /// body.
  void buildRowStep(unsigned index, RowReduceOp step);
  /// Block b computes the columns it owns in products (buildStep,
  /// buildMmaStep), so it reads what its own block wrote there.
  void buildElementwiseStep(unsigned index, Operation *step);
  /// Decode attention (buildAttentionStep says how): its tasks, each a
  /// unit of a sequence and query heads of one key/value head (or a part of
  /// its positions), the parts merged after a wait.
  void buildAttentionStep(unsigned index, DecodeAttentionOp step);
  /// What an attention step's pieces share: its sizes and buffers, and the
  /// coordinates of the unit being built.
  struct Attention {
    Attention(const GraphStep &s, DecodeAttentionOp op) : s(s), op(op) {}
    const GraphStep &s;
    mutable DecodeAttentionOp op;
    int64_t d = 0, vector = 0, lanes = 0, slots = 0, unitHeads = 0,
            unitsPerRow = 0, units = 0, splits = 0;
    Value slot, column, smem, row, firstHead;
  };
  /// Task `task`'s states (per head: maximum, sum, this lane's output
  /// run) over its positions [begin, end) of the cache and, when `seeded`,
  /// the new token, merged over the warp's slots.
  SmallVector<Value> foldPositions(const Attention &a, Value part, Value real);
  /// The warps' states meet in shared memory; `finish` gets each of the
  /// unit's outputs the block's threads take (e, its head h, its element)
  /// with the unit's maximum, sum and unnormalized output.
  void combineWarps(const Attention &a, ArrayRef<Value> states,
                    llvm::function_ref<void(Value e, Value h, Value element,
                                            Value top, Value sum, Value acc)>
                        finish);
  /// Output e of the unit from its sums.
  void storeAttentionOutput(const Attention &a, Value acc, Value sum, Value e);
  /// Runs `body(e, h, element)` on the unit's outputs the thread takes:
  /// e = t, t + threads, ... below unitHeads * D, head e / D, element
  /// e % D.
  void forEachUnitOutput(const Attention &a,
                         llvm::function_ref<void(Value, Value, Value)> body);
  /// n_m: attention `op`'s length of sequence `row` clamped to [0, L], the
  /// new token's position.
  Value loadPosition(DecodeAttentionOp op, const GraphStep &s, Value row);
  /// A run rotated at position `n` (rotary tables given): run * cos +
  /// rotate_half(run) * sin, where `partner[e]` is the element D/2 from
  /// run[e] and `lower[e]` whether run[e] is in the head's first half (its
  /// partner then enters negated). The tables' runs at [n, column].
  SmallVector<Value> rotateRun(const GraphStep &s, DecodeAttentionOp op,
                               ArrayRef<Value> run, ArrayRef<Value> partner,
                               ArrayRef<Value> lower, Value n, Value column);
  /// The same for a lane's run of a head in attention's layout: the
  /// partner run is on the lane lanes / 2 away (or, with one lane a head,
  /// in the run itself).
  SmallVector<Value> rotateLaneRun(const Attention &a, ArrayRef<Value> run,
                                   Value n);
  /// After every block's parts: block b merges units b, b + blocks, ....
  void mergeAttentionParts(const Attention &a, Value parts, int64_t counter);
  void mergeUnit(const Attention &a, Value parts, Value unit);
  /// Runs `body(item, real)` on the items b, b + blocks, ... below
  /// `count` of block b. Where every block has one at most, straight code:
  /// block b's item is min(b, count - 1), and `real` (null where every
  /// block has one) tells the blocks past the items, which must write
  /// nothing; a loop otherwise. (The harness proves the straight code far
  /// faster than a loop, and counts its barriers, which it cannot under a
  /// branch on the block.)
  void forEachOfBlock(int64_t count,
                      llvm::function_ref<void(Value, Value)> body) {
    OpBuilder::InsertionGuard guard(b);
    if (count == config.getBlocks())
      return body(bid, Value());
    if (count < config.getBlocks())
      return body(
          arith::MinUIOp::create(b, bid, c(count - 1)),
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, bid, c(count)));
    auto loop = scf::ForOp::create(b, bid, c(count), c(config.getBlocks()));
    b.setInsertionPointToStart(loop.getBody());
    body(loop.getInductionVar(), Value());
  }
  /// Runs `body` where `real` holds (always when null).
  void ifReal(Value real, llvm::function_ref<void()> body) {
    if (real)
      return ifThen(real, body);
    body();
  }
  /// An appending attention's writes of the new keys and values into its
  /// caches at position n_m (where n_m < L), at the kernel's end, after
  /// every block's reads (a wait on the step's counter, or a later wait
  /// that covers it): the threads of all blocks take the runs in turn.
  void buildAppend(unsigned index, DecodeAttentionOp step);
  /// An appending, rotating attention's new key run (kv head `kvHead`,
  /// columns from `column`) of row `row` rotated at position `n`.
  SmallVector<Value> rotatedKeyRun(const GraphStep &s, DecodeAttentionOp op,
                                   Value row, Value kvHead, Value column,
                                   Value n);
  /// `values` (f32) as a vector of `elem`.
  Value buildVector(ArrayRef<Value> values, Type elem);
  /// The dynamic shared memory as `floats` f32.
  Value getSharedFloats(int64_t floats);
  /// The same on the weights a TMA ring stages (stages > 0): beginRing
  /// (before the step's wait: the weights are inputs) creates the step's
  /// mbarriers and fills the first stages.
  void beginRing(unsigned index);
  void buildMmaRingStep(unsigned index, MatmulOp step);
  /// 16 bytes of `memref` at [row, col] as a vector of 4 i32 words.
  Value loadWordVector(Value memref, Value row, Value col);
  /// The same as 4 i32 words, zero where `valid` is false (when given).
  SmallVector<Value> loadWords(Value memref, Value row, Value col,
                               Value valid = {});
  /// One word as an mma operand register of `elem` (bf16: the i32; f16:
  /// two halves).
  Value asOperand(Value word, Type elem);
  /// A step's buffers as the kernel takes them (bias null without one).
  struct StepBuffers {
    Value a, weights, out, bias;
  };
  StepBuffers getBuffers(MatmulOp step) {
    return {kernelValue.lookup(step.getA()), kernelValue.lookup(step.getB()),
            kernelValue.lookup(step.getC()),
            step.getBias() ? kernelValue.lookup(step.getBias()) : Value()};
  }
  /// What a product's tensor-core bodies share: the split of K over the
  /// block's warp groups, the tiles a block takes at a time, lane (g, q)'s
  /// rows.
  struct MmaStep {
    const GraphStep &s;
    StepBuffers buffers;
    int64_t split, groupWarps, slots, iterations;
    Value g, q, warpInGroup, part, firstPart, rowA0, rowA1;
  };
  MmaStep getMmaStep(unsigned index, MatmulOp step);
  /// This warp's tiles in block iteration `iteration`.
  SmallVector<Value> getTiles(const MmaStep &m, Value iteration);
  /// The two m16n8k16 products of a 32-column chunk of tile `t`: A's words
  /// of rows g (x0) and g + 8 (x1), the weights' words of row g (wt).
  void mmaChunk(const MmaStep &m, ArrayRef<Value> x0, ArrayRef<Value> x1,
                ArrayRef<Value> wt, int64_t t, SmallVectorImpl<Value> &sums);
  /// Runs `body` on the accumulators in group 0 only; the others keep
  /// theirs.
  void inFirstPart(const MmaStep &m, SmallVectorImpl<Value> &acc,
                   llvm::function_ref<void(SmallVectorImpl<Value> &)> body);
  /// The groups' partial sums meet, then the tiles' epilogue.
  void finishMmaTiles(const MmaStep &m, SmallVectorImpl<Value> &acc,
                      ArrayRef<Value> tiles);
  /// The tensor-core body of a step (math = mma_sync), loading the weights
  /// directly or, warp staged, through the warp's shared memory.
  void buildMmaStep(unsigned index, MatmulOp step);
  /// Warp staged: folds the part's `chunks` chunks of kGraphStagedColumns
  /// columns, from chunk `first`, into `acc`.
  void foldStagedChunks(const MmaStep &m, ArrayRef<Value> tiles, Value first,
                        int64_t chunks, SmallVectorImpl<Value> &acc);
  /// Transposes a warp's 8 x 8 matrices of 16-byte blocks over the lanes'
  /// rows g = lane / 4 (one matrix per class lane % 4).
  void transposeBlocks(Value g, MutableArrayRef<Value> blocks);
  /// The epilogue of one output element (under the caller's guards).
  void storeElement(const GraphStep &s, const StepBuffers &buffers, Value acc,
                    Value row, Value column);
  /// A product's TMA ring: its mbarriers (one per stage), its weights'
  /// tensor map, its boxes' shape and its entries (chunks of K per round of
  /// the block's tiles, rounds times chunks in all).
  struct Ring {
    Value barriers, map;
    MemRefType boxType;
    int64_t stages = 0, columns = 0, tilesPerStage = 0, split = 1, chunks = 0,
            total = 0, stageBytes = 0, boxBytes = 0;
    /// A's rows of a stage's columns (when the stage holds them).
    MemRefType aType;
  };
  Ring &getRing(unsigned index);
  /// The first column of K ring entry `j` covers (its chunk j % chunks).
  Value getEntryColumn(const Ring &r, Value j);
  /// Stage `stage`'s box of tile slot `slot`.
  Value getBox(const Ring &r, int64_t stage, Value slot);
  /// Thread 0 arms stage `stage` and copies ring entry `j` into it.
  void fill(const Ring &r, Value j, int64_t stage);
  /// Stage `stage`'s rows of A, and every thread's copies of entry `j`'s
  /// into it (one group; its token).
  Value getAStage(const Ring &r, int64_t stage);
  Value copyA(const Ring &r, Value a, Value j, int64_t stage);
  /// The release of counter `counter` (step `counter`'s, after its
  /// writes; or a split attention step's parts') and the acquire of it
  /// (before a read of them).
  void signal(int64_t counter);
  void waitFor(int64_t counter);

  ImplicitLocOpBuilder &b;
  GraphConfigAttr config;
  GraphOp graph;
  const GraphProblem &p;
  /// The kernel's value of each graph value (body arguments, buffers).
  IRMapping kernelValue;
  Value tid, lane, warp, bid, first, counters;
  /// The dynamic shared memory (bytes); the products' tensor maps (as
  /// pointers) and rings, by step.
  Value smemRaw;
  llvm::DenseMap<unsigned, Value> mapPointers;
  llvm::DenseMap<unsigned, Ring> rings;
  /// Split attention steps' workspace of parts and their counter, by step.
  llvm::DenseMap<unsigned, std::pair<Value, int64_t>> attentionParts;
};

} // namespace

SmallVector<Value> GraphKernelBuilder::loadRun(Value memref, ValueRange indices,
                                               int64_t vector) {
  Type elem = cast<MemRefType>(memref.getType()).getElementType();
  SmallVector<Value> values;
  if (vector == 1) {
    values.push_back(loadF32(memref, indices));
    return values;
  }
  int64_t align = vector * elem.getIntOrFloatBitWidth() / 8;
  Value run = vector::LoadOp::create(
      b, VectorType::get({vector}, elem), memref, indices,
      /*nontemporal=*/false, llvm::MaybeAlign(align));
  // bf16 widens exactly by shifting its bits into the top half of an f32:
  // two integer ops per pair, where cvt.f32.bf16 takes the conversion pipe
  // (16 per SM and clock on sm_90; it bounded the decode MLP).
  if (elem.isBF16() && vector % 2 == 0) {
    Type i32 = b.getI32Type();
    Value words =
        vector::BitCastOp::create(b, VectorType::get({vector / 2}, i32), run);
    Value high = this->i32(int64_t(0xffff0000u) - (int64_t(1) << 32));
    for (int64_t i = 0; i < vector / 2; ++i) {
      Value word = vector::ExtractOp::create(b, words, i);
      Value lo = arith::ShLIOp::create(b, word, this->i32(16));
      Value hi = arith::AndIOp::create(b, word, high);
      values.push_back(arith::BitcastOp::create(b, b.getF32Type(), lo));
      values.push_back(arith::BitcastOp::create(b, b.getF32Type(), hi));
    }
    return values;
  }
  if (!elem.isF32())
    run = arith::ExtFOp::create(b, VectorType::get({vector}, b.getF32Type()),
                                run);
  for (int64_t i = 0; i < vector; ++i)
    values.push_back(vector::ExtractOp::create(b, run, i));
  return values;
}

void GraphKernelBuilder::foldRuns(const GraphStep &s, Value a, Value w,
                                  ArrayRef<Value> rows, ArrayRef<Value> runs,
                                  SmallVectorImpl<Value> &acc) {
  int64_t vector = s.getVector();
  // Every weight load first (they are what is in flight), then A's rows
  // from L1 and the FMAs.
  SmallVector<SmallVector<Value>> weights;
  for (Value run : runs) {
    Value col = mul(run, c(vector));
    for (Value row : rows)
      weights.push_back(loadRun(w, row, col, vector));
  }
  for (auto [u, run] : llvm::enumerate(runs)) {
    Value col = mul(run, c(vector));
    for (int64_t m = 0; m < s.m; ++m) {
      SmallVector<Value> x = loadRun(a, c(m), col, vector);
      for (size_t r = 0; r < rows.size(); ++r) {
        Value &sum = acc[r * s.m + m];
        for (int64_t e = 0; e < vector; ++e)
          sum = math::FmaOp::create(b, weights[u * rows.size() + r][e], x[e],
                                    sum);
      }
    }
  }
}

void GraphKernelBuilder::buildStep(unsigned index, MatmulOp step) {
  const GraphStep &s = p.steps[index];
  StepBuffers buffers = getBuffers(step);
  Value a = buffers.a, w = buffers.weights;
  int64_t blocks = config.getBlocks(), rowsPerWarp = config.getRowsPerWarp();
  int64_t slots = config.getWarps() * rowsPerWarp;
  int64_t perBlock = llvm::divideCeil(s.n, blocks);
  int64_t iterations = llvm::divideCeil(perBlock, slots);
  int64_t vector = s.getVector();
  int64_t runs = s.k / vector, chunk = 32 * config.getUnroll();
  int64_t mainChunks = runs / chunk;

  auto loop = scf::ForOp::create(b, c(0), c(iterations), c(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value slot =
      add(mul(loop.getInductionVar(), c(slots)), mul(warp, c(rowsPerWarp)));
  // This warp's output columns, and the same clamped into the weights for
  // the loads (a column past N computes a copy of the last, unwritten).
  SmallVector<Value> columns, rows;
  for (int64_t r = 0; r < rowsPerWarp; ++r) {
    Value column = add(bid, mul(add(slot, c(r)), c(blocks)));
    columns.push_back(column);
    rows.push_back(arith::MinUIOp::create(b, column, c(s.n - 1)));
  }
  SmallVector<Value> acc(rowsPerWarp * s.m, f32(0.0));
  // `base(iv)` is the lane's first run of an iteration; it folds `unroll`
  // runs 32 apart.
  auto foldLoop = [&](Value lb, Value ub, int64_t step, int64_t unroll,
                      llvm::function_ref<Value(Value)> base) {
    auto k = scf::ForOp::create(b, lb, ub, c(step), acc);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(k.getBody());
    SmallVector<Value> sums(k.getRegionIterArgs());
    Value first = base(k.getInductionVar());
    SmallVector<Value> runIndices;
    for (int64_t u = 0; u < unroll; ++u)
      runIndices.push_back(add(first, c(32 * u)));
    foldRuns(s, a, w, rows, runIndices, sums);
    scf::YieldOp::create(b, sums);
    b.setInsertionPointAfter(k);
    acc.assign(k.getResults().begin(), k.getResults().end());
  };
  // Whole chunks of `unroll` runs per lane (counted by chunk, so each run
  // is below the chunks' end), then the remaining runs one at a time (a
  // loop bounded by the row's runs).
  if (mainChunks > 0)
    foldLoop(c(0), c(mainChunks), 1, config.getUnroll(), [&](Value chunkIndex) {
      return add(mul(chunkIndex, c(chunk)), lane);
    });
  if (runs % chunk)
    foldLoop(add(lane, c(mainChunks * chunk)), c(runs), 32, 1,
             [](Value run) { return run; });

  // Sum over the warp's lanes; every lane ends with the totals.
  for (Value &sum : acc)
    for (int64_t offset = 16; offset >= 1; offset /= 2)
      sum = arith::AddFOp::create(b, sum,
                                  gpu::ShuffleOp::create(b, sum, i32(offset),
                                                         i32(32),
                                                         gpu::ShuffleMode::XOR)
                                      .getShuffleResult());
  Value lane0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, c(0));
  for (int64_t r = 0; r < rowsPerWarp; ++r) {
    Value inside =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, columns[r], c(s.n));
    ifThen(inside, [&] {
      ifThen(lane0, [&] {
        for (int64_t m = 0; m < s.m; ++m)
          storeElement(s, buffers, acc[r * s.m + m], c(m), columns[r]);
      });
    });
  }
}

void GraphKernelBuilder::storeElement(const GraphStep &s,
                                      const StepBuffers &buffers, Value acc,
                                      Value row, Value column) {
  Value v = acc;
  if (s.alpha != 1.0)
    v = arith::MulFOp::create(b, v, f32(s.alpha));
  if (buffers.bias) {
    v = arith::AddFOp::create(b, v, loadF32(buffers.bias, ValueRange{column}));
  }
  v = buildActivation(b, s.activation, v);
  if (!s.outType.isF32())
    v = arith::TruncFOp::create(b, s.outType, v);
  memref::StoreOp::create(b, v, buffers.out, ValueRange{row, column});
}

Value GraphKernelBuilder::loadWordVector(Value memref, Value row, Value col) {
  Type elem = cast<MemRefType>(memref.getType()).getElementType();
  int64_t vector = 128 / elem.getIntOrFloatBitWidth();
  Value run = vector::LoadOp::create(
      b, VectorType::get({vector}, elem), memref, ValueRange{row, col},
      /*nontemporal=*/false, llvm::MaybeAlign(16));
  return vector::BitCastOp::create(b, VectorType::get({4}, b.getI32Type()),
                                   run);
}

SmallVector<Value> GraphKernelBuilder::loadWords(Value memref, Value row,
                                                 Value col, Value valid) {
  Value words = loadWordVector(memref, row, col);
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i) {
    Value word = vector::ExtractOp::create(b, words, i);
    if (valid)
      word = arith::SelectOp::create(b, valid, word, i32(0));
    out.push_back(word);
  }
  return out;
}

Value GraphKernelBuilder::asOperand(Value word, Type elem) {
  if (elem.isBF16())
    return word;
  Value one = vector::BroadcastOp::create(
      b, VectorType::get({1}, b.getI32Type()), word);
  return vector::BitCastOp::create(b, VectorType::get({2}, elem), one);
}

GraphKernelBuilder::MmaStep GraphKernelBuilder::getMmaStep(unsigned index,
                                                           MatmulOp step) {
  MmaStep m{p.steps[index], getBuffers(step)};
  const GraphStep &s = m.s;
  m.split = getGraphKSplit(config, s);
  m.groupWarps = config.getWarps() / m.split;
  m.slots = m.groupWarps * config.getRowsPerWarp();
  int64_t tiles = llvm::divideCeil(s.n, 8);
  m.iterations =
      llvm::divideCeil(llvm::divideCeil(tiles, config.getBlocks()), m.slots);
  m.g = arith::DivUIOp::create(b, lane, c(4));
  m.q = arith::RemUIOp::create(b, lane, c(4));
  m.warpInGroup =
      m.split > 1 ? arith::RemUIOp::create(b, warp, c(m.groupWarps)) : warp;
  m.part =
      m.split > 1 ? arith::DivUIOp::create(b, warp, c(m.groupWarps)) : c(0);
  m.firstPart =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, m.part, c(0));
  // A's rows past M repeat its last row: their products land in rows of C
  // that are not stored.
  m.rowA0 = arith::MinUIOp::create(b, m.g, c(s.m - 1));
  m.rowA1 =
      s.m > 8 ? arith::MinUIOp::create(b, add(m.g, c(8)), c(s.m - 1)) : Value();
  return m;
}

SmallVector<Value> GraphKernelBuilder::getTiles(const MmaStep &m,
                                                Value iteration) {
  Value slot = add(mul(iteration, c(m.slots)),
                   mul(m.warpInGroup, c(config.getRowsPerWarp())));
  SmallVector<Value> tiles;
  for (int64_t t = 0; t < config.getRowsPerWarp(); ++t)
    tiles.push_back(add(bid, mul(add(slot, c(t)), c(config.getBlocks()))));
  return tiles;
}

void GraphKernelBuilder::mmaChunk(const MmaStep &m, ArrayRef<Value> x0,
                                  ArrayRef<Value> x1, ArrayRef<Value> wt,
                                  int64_t t, SmallVectorImpl<Value> &sums) {
  Type elem = m.s.inType;
  auto mmaType = elem.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, b.getF32Type()));
  for (int64_t half = 0; half < 2; ++half) {
    SmallVector<Value> aRegs = {
        asOperand(x0[2 * half], elem), asOperand(x1[2 * half], elem),
        asOperand(x0[2 * half + 1], elem), asOperand(x1[2 * half + 1], elem)};
    SmallVector<Value> bRegs = {asOperand(wt[2 * half], elem),
                                asOperand(wt[2 * half + 1], elem)};
    SmallVector<Value> cRegs(sums.begin() + 4 * t, sums.begin() + 4 * t + 4);
    auto mma = NVVM::MmaOp::create(
        b, resultType, aRegs, bRegs, cRegs, ArrayRef<int64_t>{16, 8, 16},
        std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{mmaType, mmaType},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    for (int64_t e = 0; e < 4; ++e)
      sums[4 * t + e] = LLVM::ExtractValueOp::create(b, mma, e);
  }
}

void GraphKernelBuilder::inFirstPart(
    const MmaStep &m, SmallVectorImpl<Value> &acc,
    llvm::function_ref<void(SmallVectorImpl<Value> &)> body) {
  auto ifOp =
      scf::IfOp::create(b, SmallVector<Type>(acc.size(), b.getF32Type()),
                        m.firstPart, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  SmallVector<Value> sums(acc.begin(), acc.end());
  body(sums);
  scf::YieldOp::create(b, sums);
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, ValueRange(acc));
  b.setInsertionPointAfter(ifOp);
  acc.assign(ifOp.getResults().begin(), ifOp.getResults().end());
}

void GraphKernelBuilder::finishMmaTiles(const MmaStep &m,
                                        SmallVectorImpl<Value> &acc,
                                        ArrayRef<Value> tiles) {
  const GraphStep &s = m.s;
  int64_t tilesPerWarp = config.getRowsPerWarp();
  // The groups' partial sums meet in shared memory: each warp writes its
  // own, group 0 adds the others' after a barrier.
  if (m.split > 1) {
    Value partials = getSharedFloats(config.getThreads() * 4 * tilesPerWarp);
    auto slotOf = [&](Value partIndex, int64_t r) {
      Value w = add(mul(partIndex, c(m.groupWarps)), m.warpInGroup);
      return add(mul(add(mul(w, c(4 * tilesPerWarp)), c(r)), c(32)), lane);
    };
    for (auto [r, v] : llvm::enumerate(acc))
      memref::StoreOp::create(b, v, partials, ValueRange{slotOf(m.part, r)});
    gpu::BarrierOp::create(b);
    inFirstPart(m, acc, [&](SmallVectorImpl<Value> &sums) {
      for (int64_t other = 1; other < m.split; ++other)
        for (auto [r, v] : llvm::enumerate(sums))
          v = arith::AddFOp::create(
              b, v,
              memref::LoadOp::create(b, partials,
                                     ValueRange{slotOf(c(other), r)}));
    });
    // The next iteration writes its partials after every read of these.
    gpu::BarrierOp::create(b);
  }
  // Lane (g, q) holds rows g and g + 8, columns 2q and 2q + 1 of the tile.
  for (int64_t t = 0; t < tilesPerWarp; ++t)
    for (int64_t e = 0; e < 4; ++e) {
      Value row = e < 2 ? m.g : add(m.g, c(8));
      Value column = add(add(mul(tiles[t], c(8)), mul(m.q, c(2))), c(e % 2));
      Value inside = arith::AndIOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, c(s.m)),
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, column, c(s.n)));
      if (m.split > 1)
        inside = arith::AndIOp::create(b, inside, m.firstPart);
      ifThen(inside,
             [&] { storeElement(s, m.buffers, acc[4 * t + e], row, column); });
    }
}

/// Lane (g, q) = (lane / 4, lane % 4) loads 16 bytes at columns 8q..8q+7 of
/// each 32-column chunk of K, of weight row g of its tile and of A's rows g
/// and g + 8. The two m16n8k16 products of a chunk take words {0, 1} and
/// {2, 3} of those loads as their B and A registers: the k-th logical
/// column of a product is the same physical column for A and B (k < 8:
/// 8 (k / 2) + k % 2; k >= 8: that of k - 8, plus 2), so each product sums
/// 16 distinct columns and the pair sums the chunk's 32.
void GraphKernelBuilder::buildMmaStep(unsigned index, MatmulOp step) {
  MmaStep m = getMmaStep(index, step);
  const GraphStep &s = m.s;
  Value a = m.buffers.a, w = m.buffers.weights;
  int64_t tilesPerWarp = config.getRowsPerWarp();
  int64_t unroll = config.getUnroll();
  // K is split over `split` groups of the block's warps; group `part`
  // takes chunks [part * perPart, (part + 1) * perPart), group 0 also the
  // leftover and partial chunks, and adds the others' partial sums.
  int64_t split = m.split;
  int64_t fullChunks = s.k / 32, perPart = fullChunks / split;
  Value q8 = mul(m.q, c(8));

  auto loop = scf::ForOp::create(b, c(0), c(m.iterations), c(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> tiles = getTiles(m, loop.getInductionVar()), wRows;
  for (Value tile : tiles)
    wRows.push_back(
        arith::MinUIOp::create(b, add(mul(tile, c(8)), m.g), c(s.n - 1)));
  SmallVector<Value> acc(4 * tilesPerWarp, f32(0.0));

  // Folds the chunks starting at columns `cols` (this lane's 8q added).
  auto foldChunks = [&](ArrayRef<Value> cols, Value valid,
                        SmallVectorImpl<Value> &sums) {
    SmallVector<SmallVector<Value>> wWords;
    for (Value col : cols)
      for (Value row : wRows)
        wWords.push_back(loadWords(w, row, col, valid));
    for (auto [u, col] : llvm::enumerate(cols)) {
      SmallVector<Value> x0 = loadWords(a, m.rowA0, col, valid);
      // Rows g + 8 are past M when it is at most 8: any values do.
      SmallVector<Value> x1 = s.m > 8 ? loadWords(a, m.rowA1, col, valid) : x0;
      for (int64_t t = 0; t < tilesPerWarp; ++t)
        mmaChunk(m, x0, x1, wWords[u * tilesPerWarp + t], t, sums);
    }
  };
  auto chunkColumn = [&](Value chunk) { return add(mul(chunk, c(32)), q8); };
  // This group's share. Warp staged: whole chunks of kGraphStagedColumns.
  // Else whole groups of `unroll` chunks (counted by group, so every
  // column is below the share's end), then the rest one at a time.
  int64_t stagedPerPart =
      config.getWarpStaged() ? s.k / kGraphStagedColumns / split : 0;
  if (stagedPerPart > 0) {
    perPart = stagedPerPart * (kGraphStagedColumns / 32);
    foldStagedChunks(m, tiles, mul(m.part, c(stagedPerPart)), stagedPerPart,
                     acc);
  } else {
    Value partBase = mul(m.part, c(perPart));
    if (int64_t groups = perPart / unroll) {
      auto k = scf::ForOp::create(b, c(0), c(groups), c(1), acc);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(k.getBody());
      SmallVector<Value> sums(k.getRegionIterArgs());
      SmallVector<Value> cols;
      for (int64_t u = 0; u < unroll; ++u)
        cols.push_back(chunkColumn(
            add(partBase, add(mul(k.getInductionVar(), c(unroll)), c(u)))));
      foldChunks(cols, Value(), sums);
      scf::YieldOp::create(b, sums);
      b.setInsertionPointAfter(k);
      acc.assign(k.getResults().begin(), k.getResults().end());
    }
    for (int64_t chunk = perPart / unroll * unroll; chunk < perPart; ++chunk)
      foldChunks({chunkColumn(add(partBase, c(chunk)))}, Value(), acc);
  }
  // Group 0: the chunks past the shares, then a partial chunk (lanes past
  // K load a clamped column and add zeros).
  auto foldTail = [&](SmallVectorImpl<Value> &sums) {
    for (int64_t chunk = split * perPart; chunk < fullChunks; ++chunk)
      foldChunks({chunkColumn(c(chunk))}, Value(), sums);
    if (s.k % 32) {
      Value col = chunkColumn(c(fullChunks));
      Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::ule,
                                          add(col, c(8)), c(s.k));
      foldChunks({arith::MinUIOp::create(b, col, c(s.k - 8))}, valid, sums);
    }
  };
  if (split * perPart < fullChunks || s.k % 32) {
    if (split == 1)
      foldTail(acc);
    else
      inFirstPart(m, acc, foldTail);
  }
  finishMmaTiles(m, acc, tiles);
}

/// Warp staged. Load r of the warp (lane l) takes 16 bytes at columns 8l..
/// 8l+7 of a chunk of the warp's r-th weight row (row r % 8 of tile slot
/// r / 8): 512 contiguous bytes per load. Per tile, the eight loads are an
/// 8 x 8 matrix of 16-byte blocks, a lane's row of it each, that
/// transposeBlocks turns over the lanes of each class l % 4: lane (g, q)
/// then holds, for each 32-column piece j of the chunk, the 16 bytes at
/// 32j + 8q of row g of the tile, the direct body's words in its K order.
/// The next chunk's loads are in flight meanwhile.
void GraphKernelBuilder::foldStagedChunks(const MmaStep &m,
                                          ArrayRef<Value> tiles, Value first,
                                          int64_t chunks,
                                          SmallVectorImpl<Value> &acc) {
  const GraphStep &s = m.s;
  Value a = m.buffers.a, w = m.buffers.weights;
  int64_t tilesPerWarp = config.getRowsPerWarp(), rows = 8 * tilesPerWarp;
  SmallVector<Value> weightRows;
  for (int64_t r = 0; r < rows; ++r)
    weightRows.push_back(arith::MinUIOp::create(
        b, add(mul(tiles[r / 8], c(8)), c(r % 8)), c(s.n - 1)));
  auto load = [&](Value chunk) {
    Value col = add(mul(chunk, c(kGraphStagedColumns)), mul(lane, c(8)));
    SmallVector<Value> runs;
    for (Value row : weightRows)
      runs.push_back(loadWordVector(w, row, col));
    return runs;
  };
  Value q8 = mul(m.q, c(8));
  // Loads the next chunk's runs when asked, transposes and folds this one.
  auto fold = [&](Value chunk, ArrayRef<Value> runs, bool loadNext,
                  SmallVectorImpl<Value> &sums) {
    SmallVector<Value> next;
    if (loadNext)
      next = load(add(chunk, c(1)));
    SmallVector<Value> blocks(runs);
    for (int64_t t = 0; t < tilesPerWarp; ++t)
      transposeBlocks(m.g, MutableArrayRef<Value>(blocks).slice(8 * t, 8));
    Value chunkCol = mul(chunk, c(kGraphStagedColumns));
    for (int64_t j = 0; j < kGraphStagedColumns / 32; ++j) {
      Value col = add(add(chunkCol, c(32 * j)), q8);
      SmallVector<Value> x0 = loadWords(a, m.rowA0, col);
      SmallVector<Value> x1 = s.m > 8 ? loadWords(a, m.rowA1, col) : x0;
      for (int64_t t = 0; t < tilesPerWarp; ++t) {
        SmallVector<Value> wt;
        for (int64_t i = 0; i < 4; ++i)
          wt.push_back(vector::ExtractOp::create(b, blocks[8 * t + j], i));
        mmaChunk(m, x0, x1, wt, t, sums);
      }
    }
    return next;
  };
  // Every chunk but the last loads its successor; the last, peeled, none.
  SmallVector<Value> runs = load(first);
  if (chunks > 1) {
    SmallVector<Value> init(acc.begin(), acc.end());
    init.append(runs.begin(), runs.end());
    auto loop = scf::ForOp::create(b, c(0), c(chunks - 1), c(1), init);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    ValueRange args = loop.getRegionIterArgs();
    SmallVector<Value> sums(args.take_front(acc.size()));
    SmallVector<Value> pending(args.drop_front(acc.size()));
    SmallVector<Value> next = fold(add(first, loop.getInductionVar()), pending,
                                   /*loadNext=*/true, sums);
    sums.append(next.begin(), next.end());
    scf::YieldOp::create(b, sums);
    b.setInsertionPointAfter(loop);
    ValueRange results = loop.getResults();
    acc.assign(results.begin(), results.begin() + acc.size());
    runs.assign(results.begin() + acc.size(), results.end());
  }
  fold(add(first, c(chunks - 1)), runs, /*loadNext=*/false, acc);
}

/// Lane l holds blocks[r] = element (l / 4, r) of an 8 x 8 matrix per
/// class l % 4; afterwards it holds element (r, l / 4) in blocks[r]. Stage
/// bit d swaps, between lanes 4 * 2^d apart, the blocks whose index differs
/// from the lane's row in bit d: three rounds of 16 xor shuffles.
void GraphKernelBuilder::transposeBlocks(Value g,
                                         MutableArrayRef<Value> blocks) {
  for (int64_t bit = 1; bit < 8; bit *= 2) {
    Value upper = arith::CmpIOp::create(
        b, arith::CmpIPredicate::ne, arith::AndIOp::create(b, g, c(bit)), c(0));
    for (int64_t r = 0; r < 8; ++r) {
      if (r & bit)
        continue;
      Value &low = blocks[r], &high = blocks[r | bit];
      Value send = arith::SelectOp::create(b, upper, low, high);
      SmallVector<Value> words;
      for (int64_t i = 0; i < 4; ++i)
        words.push_back(
            shuffleXor(vector::ExtractOp::create(b, send, i), 4 * bit));
      Value got = vector::FromElementsOp::create(b, send.getType(), words);
      low = arith::SelectOp::create(b, upper, got, low);
      high = arith::SelectOp::create(b, upper, high, got);
    }
  }
}

GraphKernelBuilder::Ring &GraphKernelBuilder::getRing(unsigned index) {
  const GraphStep &s = p.steps[index];
  Ring &r = rings[index];
  if (r.barriers)
    return r;
  r.stages = config.getStages();
  r.columns = getGraphStageColumns(s);
  r.tilesPerStage = getGraphStageTiles(config, s);
  r.split = getGraphKSplit(config, s);
  r.chunks = llvm::divideCeil(s.k, r.columns * r.split);
  int64_t tiles = llvm::divideCeil(s.n, 8);
  r.total = llvm::divideCeil(llvm::divideCeil(tiles, config.getBlocks()),
                             r.tilesPerStage) *
            r.chunks;
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  r.boxType = MemRefType::get({8, r.columns}, s.inType, AffineMap(), workgroup);
  r.boxBytes = 8 * r.columns * s.inBytes();
  r.stageBytes = getGraphStageBytes(config, s);
  if (getGraphRingStagesA(config, s))
    r.aType = MemRefType::get({s.m, r.split * r.columns}, s.inType, AffineMap(),
                              workgroup);
  auto mapType = nvgpu::TensorMapDescriptorType::get(
      b.getContext(), r.boxType, nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  r.map =
      UnrealizedConversionCastOp::create(b, mapType, mapPointers.lookup(index))
          .getResult(0);
  r.barriers = nvgpu::MBarrierCreateOp::create(
      b, nvgpu::MBarrierGroupType::get(b.getContext(), workgroup, r.stages));
  return r;
}

Value GraphKernelBuilder::getEntryColumn(const Ring &r, Value j) {
  return mul(arith::RemUIOp::create(b, j, c(r.chunks)), c(r.columns * r.split));
}

Value GraphKernelBuilder::getBox(const Ring &r, int64_t stage, Value slot) {
  Value offset = add(c(stage * r.stageBytes), mul(slot, c(r.boxBytes)));
  return memref::ViewOp::create(b, r.boxType, smemRaw, offset, ValueRange{});
}

Value GraphKernelBuilder::getAStage(const Ring &r, int64_t stage) {
  int64_t boxesBytes = r.split * r.tilesPerStage * r.boxBytes;
  return memref::ViewOp::create(
      b, r.aType, smemRaw, c(stage * r.stageBytes + boxesBytes), ValueRange{});
}

Value GraphKernelBuilder::copyA(const Ring &r, Value a, Value j,
                                int64_t stage) {
  // A's rows at the entry's columns (chunk j % chunks; columns past K
  // zero-fill), 16 bytes per copy, the same count for every thread.
  int64_t width = 128 / r.aType.getElementTypeBitWidth();
  int64_t perRow = r.aType.getDimSize(1) / width;
  int64_t pieces = r.aType.getDimSize(0) * perRow;
  int64_t k = cast<MemRefType>(a.getType()).getDimSize(1);
  Value k0 = getEntryColumn(r, j);
  Value dst = getAStage(r, stage);
  SmallVector<Value> tokens;
  for (int64_t l = 0; l < pieces / config.getThreads(); ++l) {
    Value i = add(tid, c(l * config.getThreads()));
    Value row = arith::DivUIOp::create(b, i, c(perRow));
    Value col = mul(arith::RemUIOp::create(b, i, c(perRow)), c(width));
    Value global = add(k0, col);
    Value inside =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, global, c(k));
    Value src = arith::SelectOp::create(b, inside, global, c(0));
    Value elements = arith::SelectOp::create(b, inside, c(width), c(0));
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
                         b, nvgpu::DeviceAsyncTokenType::get(b.getContext()),
                         dst, ValueRange{row, col}, a, ValueRange{row, src},
                         b.getIndexAttr(width), elements, b.getUnitAttr())
                         .getAsyncToken());
  }
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

void GraphKernelBuilder::fill(const Ring &r, Value j, int64_t stage) {
  // Entry j of the ring: chunk j % chunks of the block's tiles of round
  // j / chunks, a box per tile and split group (rows past N and columns
  // past K read as zeros), all counted on the stage's mbarrier.
  Value round = arith::DivUIOp::create(b, j, c(r.chunks));
  Value k0 = getEntryColumn(r, j);
  nvgpu::MBarrierArriveExpectTxOp::create(
      b, r.barriers, c(r.split * r.tilesPerStage * r.boxBytes), c(stage),
      Value());
  for (int64_t t = 0; t < r.tilesPerStage; ++t) {
    Value tile = add(bid, mul(add(mul(round, c(r.tilesPerStage)), c(t)),
                              c(config.getBlocks())));
    for (int64_t part = 0; part < r.split; ++part)
      nvgpu::TmaAsyncLoadOp::create(
          b, getBox(r, stage, c(part * r.tilesPerStage + t)), r.barriers, r.map,
          ValueRange{add(k0, c(part * r.columns)), mul(tile, c(8))}, c(stage),
          Value(), Value());
  }
}

void GraphKernelBuilder::beginRing(unsigned index) {
  Ring &r = getRing(index);
  // One arrival (thread 0's expect_tx) per phase; the fence makes the
  // initialized barriers visible to the copy engine.
  ifThen(first, [&] {
    for (int64_t stage = 0; stage < r.stages; ++stage)
      nvgpu::MBarrierInitOp::create(b, r.barriers, c(1), c(stage), Value());
    NVVM::FenceProxyOp::create(
        b,
        NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  });
  gpu::BarrierOp::create(b);
  ifThen(first, [&] {
    for (int64_t j = 0; j < std::min(r.stages, r.total); ++j)
      fill(r, c(j), j);
  });
}

/// Round `it` of the block's tiles runs ring entries it * chunks + kc: a
/// wait for the entry's stage and phase, the products of this warp's box
/// of it (group `part` takes the part-th box of K of its tiles), a barrier
/// (every warp is done with the entry), and thread 0 refilling its stage
/// with entry j + stages.
void GraphKernelBuilder::buildMmaRingStep(unsigned index, MatmulOp step) {
  MmaStep m = getMmaStep(index, step);
  const GraphStep &s = m.s;
  Ring &r = getRing(index);
  int64_t tilesPerWarp = config.getRowsPerWarp(), S = r.stages;
  bool stagesA = bool(r.aType);
  Value q8 = mul(m.q, c(8));
  Value trueV = arith::ConstantIntOp::create(b, b.getI1Type(), 1);
  auto parityOf = [&](int64_t j) {
    return arith::ConstantIntOp::create(b, b.getI1Type(), (j / S) % 2);
  };
  // A's copies of the first S entries (after the step's wait: A may be an
  // earlier step's result); entry 0's land before any warp starts.
  Value token;
  if (stagesA) {
    for (int64_t j = 0; j < S; ++j)
      token = copyA(r, m.buffers.a, c(j), j);
    nvgpu::DeviceAsyncWaitOp::create(b, token, b.getI32IntegerAttr(S - 1));
    gpu::BarrierOp::create(b);
  }
  for (int64_t it = 0; it * r.chunks < r.total; ++it) {
    SmallVector<Value> tiles = getTiles(m, c(it));
    SmallVector<Value> acc(4 * tilesPerWarp, f32(0.0));
    int64_t base = it * r.chunks;
    auto entry = [&](int64_t stage, Value j, Value parity,
                     SmallVectorImpl<Value> &sums, Value &group, bool refill) {
      nvgpu::MBarrierTryWaitParityOp::create(b, r.barriers, parity, c(10000000),
                                             c(stage));
      // This group's box of the entry: columns k0 .. k0 + columns.
      Value kc = arith::SubIOp::create(b, j, c(base));
      Value k0 = mul(add(mul(kc, c(r.split)), m.part), c(r.columns));
      for (int64_t u = 0; u < r.columns / 32; ++u) {
        Value inBox = add(c(32 * u), q8);
        SmallVector<Value> x0, x1;
        if (stagesA) {
          // The stage's A holds zeros past K.
          Value aStage = getAStage(r, stage);
          Value col = add(mul(m.part, c(r.columns)), inBox);
          x0 = loadWords(aStage, m.rowA0, col);
          x1 = s.m > 8 ? loadWords(aStage, m.rowA1, col) : x0;
        } else {
          // Columns past K: the box holds zeros there, and A's clamped
          // loads are replaced by zeros.
          Value col = add(k0, inBox), valid;
          if (s.k % (r.columns * r.split))
            valid = arith::CmpIOp::create(b, arith::CmpIPredicate::ule,
                                          add(col, c(8)), c(s.k));
          Value colA = arith::MinUIOp::create(b, col, c(s.k - 8));
          x0 = loadWords(m.buffers.a, m.rowA0, colA, valid);
          x1 = s.m > 8 ? loadWords(m.buffers.a, m.rowA1, colA, valid) : x0;
        }
        for (int64_t t = 0; t < tilesPerWarp; ++t) {
          Value slot = add(mul(m.part, c(r.tilesPerStage)),
                           add(mul(m.warpInGroup, c(tilesPerWarp)), c(t)));
          mmaChunk(m, x0, x1, loadWords(getBox(r, stage, slot), m.g, inBox), t,
                   sums);
        }
      }
      // Entry j + 1's A has landed (S - 2 newer groups may still be in
      // flight) before the barrier makes it every thread's.
      if (stagesA)
        nvgpu::DeviceAsyncWaitOp::create(b, group, b.getI32IntegerAttr(S - 2));
      gpu::BarrierOp::create(b);
      // Every entry copies A's of entry j + S, so the groups stay S apart
      // (past the last entry: data no warp reads).
      if (stagesA)
        group = copyA(r, m.buffers.a, add(j, c(S)), stage);
      if (refill)
        ifThen(first, [&] { fill(r, add(j, c(S)), stage); });
    };
    // Entries j in [lo, hi), in rounds of S with the stages unrolled (so
    // every mbarrier index is a constant), the parity (and A's latest
    // group) carried per round.
    auto run = [&](int64_t lo, int64_t hi, bool refill) {
      int64_t rounds = std::max<int64_t>(0, hi - lo) / S;
      if (rounds > 0) {
        SmallVector<Value> init = {parityOf(lo)};
        if (stagesA)
          init.push_back(token);
        init.append(acc.begin(), acc.end());
        auto loop = scf::ForOp::create(b, c(0), c(rounds), c(1), init);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value roundStart = add(mul(loop.getInductionVar(), c(S)), c(lo));
        ValueRange args = loop.getRegionIterArgs();
        Value parity = args[0];
        Value group = stagesA ? args[1] : Value();
        SmallVector<Value> sums(args.drop_front(stagesA ? 2 : 1));
        for (int64_t jj = 0; jj < S; ++jj) {
          bool wrapped = lo % S + jj >= S;
          entry((lo + jj) % S, add(roundStart, c(jj)),
                wrapped ? arith::XOrIOp::create(b, parity, trueV) : parity,
                sums, group, refill);
        }
        SmallVector<Value> next = {arith::XOrIOp::create(b, parity, trueV)};
        if (stagesA)
          next.push_back(group);
        next.append(sums.begin(), sums.end());
        scf::YieldOp::create(b, next);
        b.setInsertionPointAfter(loop);
        if (stagesA)
          token = loop.getResult(1);
        acc.assign(loop.getResults().begin() + (stagesA ? 2 : 1),
                   loop.getResults().end());
      }
      for (int64_t j = lo + rounds * S; j < hi; ++j)
        entry(j % S, c(j), parityOf(j), acc, token, refill);
    };
    // Entries 0 .. total - S - 1 refill their own stage with the entry S
    // later; the last S drain the ring.
    int64_t lo = base, hi = std::min(base + r.chunks, r.total);
    int64_t refillHi = std::clamp(r.total - S, lo, hi);
    run(lo, refillHi, true);
    run(refillHi, hi, false);
    finishMmaTiles(m, acc, tiles);
  }
  // The copies past the last entry finish before the ring is reused.
  if (stagesA)
    nvgpu::DeviceAsyncWaitOp::create(b, token, b.getI32IntegerAttr(0));
}

Value GraphKernelBuilder::getSharedFloats(int64_t floats) {
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  return memref::ViewOp::create(
      b, MemRefType::get({floats}, b.getF32Type(), AffineMap(), space), smemRaw,
      c(getGraphRingBytes(config, p)), ValueRange{});
}

void GraphKernelBuilder::buildRowStep(unsigned index, RowReduceOp step) {
  const GraphStep &s = p.steps[index];
  RowConfigAttr rowConfig = getGraphRowConfig(config, s);
  RowTile tile;
  tile.x = kernelValue.lookup(step.getX());
  tile.y = kernelValue.lookup(step.getY());
  if (step.getWeight())
    tile.weight = kernelValue.lookup(step.getWeight());
  if (step.getBias())
    tile.bias = kernelValue.lookup(step.getBias());
  if (int64_t bytes = getRowCombineBytes(rowConfig))
    tile.smem = getSharedFloats(bytes / 4);
  int64_t blocks = config.getBlocks();
  auto loop =
      scf::ForOp::create(b, c(0), c(llvm::divideCeil(s.m, blocks)), c(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  tile.row = add(bid, mul(loop.getInductionVar(), c(blocks)));
  buildRowTile(b, rowConfig, getGraphRowProblem(s), tile);
  // The next row's combine reuses the shared memory this one read.
  gpu::BarrierOp::create(b);
}

void GraphKernelBuilder::buildElementwiseStep(unsigned index, Operation *op) {
  const GraphStep &s = p.steps[index];
  GraphStepOperands operands = *getGraphStepOperands(op);
  Value x = kernelValue.lookup(operands.reads[0]);
  Value y = kernelValue.lookup(operands.reads[1]);
  Value out = kernelValue.lookup(operands.result);
  // Units of columns as the products own them: block b takes units b,
  // b + blocks, ...; its threads take the unit's rows and columns in turn.
  int64_t unit = config.getMath() == MathInst::mma_sync ? 8 : 1;
  int64_t blocks = config.getBlocks();
  int64_t perBlock = llvm::divideCeil(llvm::divideCeil(s.n, unit), blocks);
  int64_t perUnit = s.m * unit;
  auto loop =
      scf::ForOp::create(b, tid, c(perBlock * perUnit), c(config.getThreads()));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value e = loop.getInductionVar();
  Value slot = arith::DivUIOp::create(b, e, c(perUnit));
  Value inUnit = arith::RemUIOp::create(b, e, c(perUnit));
  Value row = inUnit, column = add(bid, mul(slot, c(blocks)));
  if (unit > 1) {
    row = arith::DivUIOp::create(b, inUnit, c(unit));
    column =
        add(mul(column, c(unit)), arith::RemUIOp::create(b, inUnit, c(unit)));
  }
  Value inside =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, column, c(s.n));
  ifThen(inside, [&] {
    Value lhs = loadF32(x, ValueRange{row, column});
    Value rhs = loadF32(y, ValueRange{row, column}), v;
    switch (s.binary) {
    case ElementwiseOp::add:
      v = arith::AddFOp::create(b, lhs, rhs);
      break;
    case ElementwiseOp::sub:
      v = arith::SubFOp::create(b, lhs, rhs);
      break;
    case ElementwiseOp::mul:
      v = arith::MulFOp::create(b, lhs, rhs);
      break;
    case ElementwiseOp::div:
      v = arith::DivFOp::create(b, lhs, rhs);
      break;
    case ElementwiseOp::max:
      v = arith::MaximumFOp::create(b, lhs, rhs);
      break;
    case ElementwiseOp::min:
      v = arith::MinimumFOp::create(b, lhs, rhs);
      break;
    }
    if (!s.outType.isF32())
      v = arith::TruncFOp::create(b, s.outType, v);
    memref::StoreOp::create(b, v, out, ValueRange{row, column});
  });
}

// An empty attention state's maximum: finite, so that merging two empty
// states gives weights of 1 on sums of 0 (not inf - inf).
static constexpr double kEmptyScore = -1e30;

// Decode attention. A unit is a sequence m and `unitHeads` query heads of
// one key/value head (getGraphAttentionUnitHeads): block b takes units b,
// b + blocks, .... A head's D elements are runs of `vector` on `lanes`
// lanes, so a warp takes `slots` positions at a time; warp w's slot j takes
// positions w * slots + j, + warps * slots, ... (kGraphAttentionUnroll of
// them per iteration, their loads in flight together), and each key and
// value run it loads serves every head of the unit, each with an online
// softmax of its own (running maximum, sum and output run, in base 2). The
// new token seeds warp 0's slot 0; the slots then merge by xor shuffles,
// the warps through shared memory, and the block's threads write o. The
// loop bound n_m is the warp's; a lane past it loads the clamped position
// L - 1 and keeps its state, so every access stays in the caches whatever
// `lengths` holds. When units are fewer than blocks, each unit's positions
// split into parts of ceil(L / splits) (getGraphAttentionSplits), each a
// task whose block writes its state to the workspace of parts (the new
// token in part 0's); after a wait on the parts' counter, block b merges
// the parts of units b, b + blocks, ... into o.
void GraphKernelBuilder::buildAttentionStep(unsigned index,
                                            DecodeAttentionOp op) {
  const GraphStep &s = p.steps[index];
  int64_t unitHeads = getGraphAttentionUnitHeads(config, s);
  Attention a(s, op);
  a.d = s.k;
  a.vector = s.getVector();
  a.lanes = s.getAttentionLanes();
  a.slots = s.getAttentionSlots();
  a.unitHeads = unitHeads;
  a.unitsPerRow = s.heads / unitHeads;
  a.units = s.m * a.unitsPerRow;
  a.splits = getGraphAttentionSplits(config, s);
  a.slot = arith::DivUIOp::create(b, lane, c(a.lanes));
  a.column = mul(arith::RemUIOp::create(b, lane, c(a.lanes)), c(a.vector));
  a.smem = getSharedFloats(getGraphAttentionFloats(config, s));
  Value parts;
  int64_t partsCounter = 0;
  if (a.splits > 1)
    std::tie(parts, partsCounter) = attentionParts.lookup(index);

  forEachOfBlock(a.units * a.splits, [&](Value task, Value real) {
    Value unit = task, part;
    if (a.splits > 1) {
      unit = arith::DivUIOp::create(b, task, c(a.splits));
      part = arith::RemUIOp::create(b, task, c(a.splits));
    }
    a.row = arith::DivUIOp::create(b, unit, c(a.unitsPerRow));
    a.firstHead =
        mul(arith::RemUIOp::create(b, unit, c(a.unitsPerRow)), c(unitHeads));
    SmallVector<Value> states = foldPositions(a, part, real);
    combineWarps(
        a, states,
        [&](Value e, Value h, Value element, Value top, Value sum, Value acc) {
          ifReal(real, [&] {
            if (a.splits == 1)
              return storeAttentionOutput(a, acc, sum, e);
            // The part's state: the unnormalized outputs, then (by
            // each head's first thread) the maximum and the sum.
            Value base = mul(add(mul(task, c(unitHeads)), h), c(a.d + 2));
            memref::StoreOp::create(b, acc, parts,
                                    ValueRange{add(base, element)});
            ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, element,
                                         c(0)),
                   [&] {
                     memref::StoreOp::create(b, top, parts,
                                             ValueRange{add(base, c(a.d))});
                     memref::StoreOp::create(b, sum, parts,
                                             ValueRange{add(base, c(a.d + 1))});
                   });
          });
        });
  });
  if (a.splits > 1)
    mergeAttentionParts(a, parts, partsCounter);
}

SmallVector<Value> GraphKernelBuilder::foldPositions(const Attention &a,
                                                     Value part, Value real) {
  const GraphStep &s = a.s;
  int64_t d = a.d, vector = a.vector, state = vector + 2;
  int64_t unroll = kGraphAttentionUnroll, stride = config.getWarps() * a.slots;
  Value q = kernelValue.lookup(a.op.getQ());
  Value keys = kernelValue.lookup(a.op.getKeyCache());
  Value values = kernelValue.lookup(a.op.getValueCache());
  Value kvHead = arith::DivUIOp::create(b, a.firstHead, c(s.heads / s.kvHeads));
  Value kvColumn = add(mul(kvHead, c(d)), a.column);
  auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, pred, x, y);
  };
  auto select = [&](Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, cond, x, y);
  };
  auto exp2 = [&](Value x) { return math::Exp2Op::create(b, x); };
  auto fma = [&](Value x, Value y, Value z) {
    return math::FmaOp::create(b, x, y, z);
  };
  Value n = loadPosition(a.op, s, a.row);
  // The unit's query runs (rotated at n_m), scaled so that scores are
  // base-2 exponents.
  Value scale = f32(s.alpha * M_LOG2E);
  SmallVector<SmallVector<Value>> queries;
  for (int64_t h = 0; h < a.unitHeads; ++h) {
    Value qColumn = add(mul(add(a.firstHead, c(h)), c(d)), a.column);
    queries.push_back(loadRun(q, a.row, qColumn, vector));
    if (s.cos)
      queries.back() = rotateLaneRun(a, queries.back(), n);
    for (Value &x : queries.back())
      x = arith::MulFOp::create(b, x, scale);
  }
  // Head h's score of a position: the lanes' partial dots summed over its
  // lanes.
  auto score = [&](int64_t h, ArrayRef<Value> key) {
    Value sum = f32(0.0);
    for (int64_t e = 0; e < vector; ++e)
      sum = fma(queries[h][e], key[e], sum);
    for (int64_t offset = a.lanes / 2; offset >= 1; offset /= 2)
      sum = arith::AddFOp::create(b, sum, shuffleXor(sum, offset));
    return sum;
  };
  auto headState = [&](MutableArrayRef<Value> all, int64_t h) {
    return all.slice(h * state, state);
  };

  // The states, per head: maximum, sum, then this lane's output run; the
  // new token seeds warp 0's slot 0 (of part 0).
  SmallVector<Value> st;
  Value seeded =
      arith::AndIOp::create(b, cmp(arith::CmpIPredicate::eq, warp, c(0)),
                            cmp(arith::CmpIPredicate::eq, a.slot, c(0)));
  if (part)
    seeded = arith::AndIOp::create(b, seeded,
                                   cmp(arith::CmpIPredicate::eq, part, c(0)));
  SmallVector<Value> newKey =
      loadRun(kernelValue.lookup(a.op.getK()), a.row, kvColumn, vector);
  if (s.cos)
    newKey = rotateLaneRun(a, newKey, n);
  SmallVector<Value> newValue =
      loadRun(kernelValue.lookup(a.op.getV()), a.row, kvColumn, vector);
  for (int64_t h = 0; h < a.unitHeads; ++h) {
    st.push_back(select(seeded, score(h, newKey), f32(kEmptyScore)));
    st.push_back(select(seeded, f32(1.0), f32(0.0)));
    for (Value x : newValue)
      st.push_back(select(seeded, x, f32(0.0)));
  }

  // The task's positions: [begin, end) of [0, n_m).
  Value begin = mul(warp, c(a.slots)), end = n;
  if (part) {
    int64_t chunk = llvm::divideCeil(s.cacheLength, a.splits);
    begin = add(mul(part, c(chunk)), begin);
    end = arith::MinUIOp::create(b, n, mul(add(part, c(1)), c(chunk)));
  }
  // Folds head h's score `x` of a position with value run `value` into
  // its state (unchanged where `valid` is false).
  auto fold = [&](MutableArrayRef<Value> hs, Value x, ArrayRef<Value> value,
                  Value valid) {
    Value top = select(valid, arith::MaximumFOp::create(b, hs[0], x), hs[0]);
    Value keep = exp2(arith::SubFOp::create(b, hs[0], top));
    Value weight =
        select(valid, exp2(arith::SubFOp::create(b, x, top)), f32(0.0));
    hs[0] = top;
    hs[1] = fma(hs[1], keep, weight);
    for (int64_t e = 0; e < vector; ++e)
      hs[2 + e] =
          fma(value[e], weight, arith::MulFOp::create(b, hs[2 + e], keep));
  };
  // A block past the tasks folds no position.
  if (real)
    end = arith::SelectOp::create(b, real, end, begin);
  auto positions = scf::ForOp::create(b, begin, end, c(stride * unroll), st);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(positions.getBody());
    SmallVector<Value> carried(positions.getRegionIterArgs());
    Value first = add(positions.getInductionVar(), a.slot);
    SmallVector<Value> valid;
    SmallVector<SmallVector<Value>> keyRuns, valueRuns;
    for (int64_t u = 0; u < unroll; ++u) {
      Value position = add(first, c(u * stride));
      valid.push_back(cmp(arith::CmpIPredicate::ult, position, end));
      Value at = arith::MinUIOp::create(b, position, c(s.cacheLength - 1));
      SmallVector<Value> indices = {a.row, at, kvHead, a.column};
      keyRuns.push_back(loadRun(keys, indices, vector));
      valueRuns.push_back(loadRun(values, indices, vector));
    }
    for (int64_t u = 0; u < unroll; ++u)
      for (int64_t h = 0; h < a.unitHeads; ++h)
        fold(headState(carried, h), score(h, keyRuns[u]), valueRuns[u],
             valid[u]);
    scf::YieldOp::create(b, carried);
  }
  st.assign(positions.getResults().begin(), positions.getResults().end());

  // The slots' states merge, lanes `offset` apart.
  for (int64_t offset = a.lanes; offset < 32; offset *= 2) {
    SmallVector<Value> other;
    for (Value x : st)
      other.push_back(shuffleXor(x, offset));
    for (int64_t h = 0; h < a.unitHeads; ++h) {
      MutableArrayRef<Value> mine = headState(st, h);
      ArrayRef<Value> theirs = ArrayRef(other).slice(h * state, state);
      Value top = arith::MaximumFOp::create(b, mine[0], theirs[0]);
      Value keepMine = exp2(arith::SubFOp::create(b, mine[0], top));
      Value keepTheirs = exp2(arith::SubFOp::create(b, theirs[0], top));
      mine[0] = top;
      for (int64_t e = 1; e < state; ++e)
        mine[e] = fma(theirs[e], keepTheirs,
                      arith::MulFOp::create(b, mine[e], keepMine));
    }
  }
  return st;
}

void GraphKernelBuilder::combineWarps(
    const Attention &a, ArrayRef<Value> states,
    llvm::function_ref<void(Value, Value, Value, Value, Value, Value)> finish) {
  int64_t d = a.d, unitHeads = a.unitHeads, state = a.vector + 2;
  int64_t warps = config.getWarps();
  // Each warp's states in shared memory, one vector store per head: the
  // output runs of head h at [(w * unitHeads + h) * D, + D), then past all
  // of them its maximum and sum at stats + (h * warps + w) * 2 (a head's
  // for every warp together, read back as one vector).
  int64_t stats = warps * unitHeads * d;
  auto storeVector = [&](ArrayRef<Value> values, Value at) {
    Value v = vector::FromElementsOp::create(
        b, VectorType::get({int64_t(values.size())}, b.getF32Type()), values);
    vector::StoreOp::create(
        b, v, a.smem, ValueRange{at}, /*nontemporal=*/false,
        llvm::MaybeAlign(std::min<int64_t>(16, values.size() * 4)));
  };
  Value warpHeads = mul(warp, c(unitHeads));
  ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, a.slot, c(0)), [&] {
    for (int64_t h = 0; h < unitHeads; ++h)
      storeVector(states.slice(h * state + 2, a.vector),
                  add(mul(add(warpHeads, c(h)), c(d)), a.column));
  });
  ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, c(0)), [&] {
    for (int64_t h = 0; h < unitHeads; ++h)
      storeVector(states.slice(h * state, 2),
                  add(mul(add(warp, c(h * warps)), c(2)), c(stats)));
  });
  gpu::BarrierOp::create(b);
  forEachUnitOutput(a, [&](Value e, Value h, Value element) {
    SmallVector<Value> tops, totals;
    Value top = f32(kEmptyScore);
    Value pairs = vector::LoadOp::create(
        b, VectorType::get({2 * warps}, b.getF32Type()), a.smem,
        ValueRange{add(mul(h, c(2 * warps)), c(stats))},
        /*nontemporal=*/false, llvm::MaybeAlign(warps % 2 ? 8 : 16));
    for (int64_t w = 0; w < warps; ++w) {
      tops.push_back(vector::ExtractOp::create(b, pairs, 2 * w));
      totals.push_back(vector::ExtractOp::create(b, pairs, 2 * w + 1));
      top = arith::MaximumFOp::create(b, top, tops.back());
    }
    Value sum = f32(0.0), acc = f32(0.0);
    for (int64_t w = 0; w < warps; ++w) {
      Value weight =
          math::Exp2Op::create(b, arith::SubFOp::create(b, tops[w], top));
      Value part = memref::LoadOp::create(
          b, a.smem, ValueRange{add(e, c(w * unitHeads * d))});
      sum = math::FmaOp::create(b, totals[w], weight, sum);
      acc = math::FmaOp::create(b, part, weight, acc);
    }
    finish(e, h, element, top, sum, acc);
  });
  // The next task's warps write the shared memory this one read.
  gpu::BarrierOp::create(b);
}

void GraphKernelBuilder::storeAttentionOutput(const Attention &a, Value acc,
                                              Value sum, Value e) {
  Value o = arith::DivFOp::create(b, acc, sum);
  if (!a.s.outType.isF32())
    o = arith::TruncFOp::create(b, a.s.outType, o);
  memref::StoreOp::create(b, o, kernelValue.lookup(a.op.getO()),
                          ValueRange{a.row, add(mul(a.firstHead, c(a.d)), e)});
}

SmallVector<Value>
GraphKernelBuilder::rotateRun(const GraphStep &s, DecodeAttentionOp op,
                              ArrayRef<Value> run, ArrayRef<Value> partner,
                              ArrayRef<Value> lower, Value n, Value column) {
  int64_t vector = run.size();
  SmallVector<Value> cosRun =
      loadRun(kernelValue.lookup(op.getCos()), ValueRange{n, column}, vector);
  SmallVector<Value> sinRun =
      loadRun(kernelValue.lookup(op.getSin()), ValueRange{n, column}, vector);
  SmallVector<Value> rotated;
  for (int64_t e = 0; e < vector; ++e) {
    Value turned = arith::SelectOp::create(
        b, lower[e], arith::NegFOp::create(b, partner[e]), partner[e]);
    rotated.push_back(math::FmaOp::create(
        b, turned, sinRun[e], arith::MulFOp::create(b, run[e], cosRun[e])));
  }
  return rotated;
}

SmallVector<Value> GraphKernelBuilder::rotateLaneRun(const Attention &a,
                                                     ArrayRef<Value> run,
                                                     Value n) {
  int64_t half = a.d / 2;
  SmallVector<Value> partner, lower;
  Value low;
  if (a.lanes > 1)
    low =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, a.column, c(half));
  for (int64_t e = 0; e < a.vector; ++e) {
    if (a.lanes > 1) {
      partner.push_back(shuffleXor(run[e], a.lanes / 2));
      lower.push_back(low);
    } else {
      partner.push_back(run[(e + half) % a.d]);
      lower.push_back(arith::ConstantIntOp::create(b, b.getI1Type(), e < half));
    }
  }
  return rotateRun(a.s, a.op, run, partner, lower, n, a.column);
}

void GraphKernelBuilder::forEachUnitOutput(
    const Attention &a, llvm::function_ref<void(Value, Value, Value)> body) {
  auto outputs =
      scf::ForOp::create(b, tid, c(a.unitHeads * a.d), c(config.getThreads()));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(outputs.getBody());
  Value e = outputs.getInductionVar();
  body(e, arith::DivUIOp::create(b, e, c(a.d)),
       arith::RemUIOp::create(b, e, c(a.d)));
}

Value GraphKernelBuilder::loadPosition(DecodeAttentionOp op, const GraphStep &s,
                                       Value row) {
  Value length = memref::LoadOp::create(b, kernelValue.lookup(op.getLengths()),
                                        ValueRange{row});
  length = arith::MinSIOp::create(b, arith::MaxSIOp::create(b, length, i32(0)),
                                  i32(s.cacheLength));
  return arith::IndexCastUIOp::create(b, b.getIndexType(), length);
}

void GraphKernelBuilder::mergeAttentionParts(const Attention &a, Value parts,
                                             int64_t counter) {
  signal(counter);
  waitFor(counter);
  forEachOfBlock(a.units, [&](Value unit, Value real) {
    ifReal(real, [&] { mergeUnit(a, parts, unit); });
  });
}

void GraphKernelBuilder::mergeUnit(const Attention &a, Value parts,
                                   Value unit) {
  int64_t d = a.d, unitHeads = a.unitHeads, splits = a.splits;
  OpBuilder::InsertionGuard guard(b);
  Attention at = a;
  at.row = arith::DivUIOp::create(b, unit, c(a.unitsPerRow));
  at.firstHead =
      mul(arith::RemUIOp::create(b, unit, c(a.unitsPerRow)), c(unitHeads));
  // The parts' loads go out kGraphAttentionMergeGroup at a time before any
  // is folded (a loop of one part per trip waited a round trip to L2 per
  // part: 32 parts at M = 1).
  int64_t group = std::min(splits, kGraphAttentionMergeGroup);
  forEachUnitOutput(at, [&](Value e, Value h, Value element) {
    auto foldParts = [&](Value first, int64_t count, ValueRange state) {
      SmallVector<Value> tops, sums, accs;
      for (int64_t i = 0; i < count; ++i) {
        Value t = add(mul(unit, c(splits)), add(first, c(i)));
        Value base = mul(add(mul(t, c(unitHeads)), h), c(d + 2));
        auto load = [&](Value offset) {
          return memref::LoadOp::create(b, parts,
                                        ValueRange{add(base, offset)});
        };
        tops.push_back(load(c(d)));
        sums.push_back(load(c(d + 1)));
        accs.push_back(load(element));
      }
      Value top = state[0], sum = state[1], acc = state[2];
      for (int64_t i = 0; i < count; ++i) {
        Value next = arith::MaximumFOp::create(b, top, tops[i]);
        Value keep =
            math::Exp2Op::create(b, arith::SubFOp::create(b, top, next));
        Value weight =
            math::Exp2Op::create(b, arith::SubFOp::create(b, tops[i], next));
        sum = math::FmaOp::create(b, sums[i], weight,
                                  arith::MulFOp::create(b, sum, keep));
        acc = math::FmaOp::create(b, accs[i], weight,
                                  arith::MulFOp::create(b, acc, keep));
        top = next;
      }
      return SmallVector<Value>{top, sum, acc};
    };
    SmallVector<Value> state = {f32(kEmptyScore), f32(0.0), f32(0.0)};
    if (int64_t groups = splits / group) {
      auto merge = scf::ForOp::create(b, c(0), c(groups), c(1), state);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(merge.getBody());
      scf::YieldOp::create(b, foldParts(mul(merge.getInductionVar(), c(group)),
                                        group, merge.getRegionIterArgs()));
      b.setInsertionPointAfter(merge);
      state.assign(merge.getResults().begin(), merge.getResults().end());
    }
    if (int64_t rest = splits % group)
      state = foldParts(c(splits - rest), rest, state);
    storeAttentionOutput(at, state[2], state[1], e);
  });
}

void GraphKernelBuilder::buildAppend(unsigned index, DecodeAttentionOp op) {
  const GraphStep &s = p.steps[index];
  if (s.appendWaits)
    waitFor(index);
  Value newKeys = kernelValue.lookup(op.getK());
  Value newValues = kernelValue.lookup(op.getV());
  Value keys = kernelValue.lookup(op.getKeyCache());
  Value values = kernelValue.lookup(op.getValueCache());
  int64_t d = s.k, vector = s.getVector(), runs = d / vector;
  int64_t perRow = s.kvHeads * runs, threads = config.getThreads();
  auto items =
      scf::ForOp::create(b, add(mul(bid, c(threads)), tid), c(s.m * perRow),
                         c(config.getBlocks() * threads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(items.getBody());
  Value item = items.getInductionVar();
  Value row = arith::DivUIOp::create(b, item, c(perRow));
  Value rest = arith::RemUIOp::create(b, item, c(perRow));
  Value kvHead = arith::DivUIOp::create(b, rest, c(runs));
  Value column = mul(arith::RemUIOp::create(b, rest, c(runs)), c(vector));
  Value n = loadPosition(op, s, row);
  // A full cache keeps what it holds.
  ifThen(
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, n, c(s.cacheLength)),
      [&] {
        Value from = add(mul(kvHead, c(d)), column);
        SmallVector<Value> to = {row, n, kvHead, column};
        Type elem = s.inType;
        auto type = VectorType::get({vector}, elem);
        llvm::MaybeAlign align(vector * s.inBytes());
        for (auto [source, cache] :
             {std::pair{newKeys, keys}, std::pair{newValues, values}}) {
          Value run;
          if (s.cos && source == newKeys) {
            run =
                buildVector(rotatedKeyRun(s, op, row, kvHead, column, n), elem);
          } else {
            run = vector::LoadOp::create(b, type, source, ValueRange{row, from},
                                         /*nontemporal=*/false, align);
          }
          vector::StoreOp::create(b, run, cache, to, /*nontemporal=*/false,
                                  align);
        }
      });
}

SmallVector<Value> GraphKernelBuilder::rotatedKeyRun(const GraphStep &s,
                                                     DecodeAttentionOp op,
                                                     Value row, Value kvHead,
                                                     Value column, Value n) {
  int64_t d = s.k, half = d / 2, vector = s.getVector();
  Value keys = kernelValue.lookup(op.getK());
  Value head = mul(kvHead, c(d));
  SmallVector<Value> run = loadRun(keys, row, add(head, column), vector);
  SmallVector<Value> partner, lower;
  if (vector < d) {
    // The partner run: D/2 on, wrapping within the head (vector divides
    // D/2 when a head is several runs).
    Value low =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, column, c(half));
    Value other =
        arith::SelectOp::create(b, low, add(column, c(half)),
                                arith::SubIOp::create(b, column, c(half)));
    partner = loadRun(keys, row, add(head, other), vector);
    lower.assign(vector, low);
  } else {
    for (int64_t e = 0; e < vector; ++e) {
      partner.push_back(run[(e + half) % d]);
      lower.push_back(arith::ConstantIntOp::create(b, b.getI1Type(), e < half));
    }
  }
  return rotateRun(s, op, run, partner, lower, n, column);
}

Value GraphKernelBuilder::buildVector(ArrayRef<Value> values, Type elem) {
  SmallVector<Value> narrowed;
  for (Value v : values)
    narrowed.push_back(elem.isF32() ? v : arith::TruncFOp::create(b, elem, v));
  return vector::FromElementsOp::create(
      b, VectorType::get({int64_t(values.size())}, elem), narrowed);
}

void GraphKernelBuilder::signal(int64_t counter) {
  buildSignal(b, first, counters, ValueRange{c(counter)});
}

void GraphKernelBuilder::waitFor(int64_t counter) {
  buildWait(b, first, counters, ValueRange{c(counter)},
            i32(config.getBlocks()));
}

void GraphKernelBuilder::build(gpu::GPUFuncOp func) {
  b.setInsertionPointToStart(&func.front());
  Block &body = graph.getBody().front();
  for (BlockArgument arg : body.getArguments())
    kernelValue.map(arg, func.getArgument(arg.getArgNumber()));
  unsigned next = body.getNumArguments();
  for (GraphBufferOp buffer : getGraphBuffers(graph))
    kernelValue.map(buffer.getBuffer(), func.getArgument(next++));
  counters = func.getArgument(next++);
  // A split attention step's parts wait on a counter after the steps'.
  int64_t splitCounter = p.steps.size();
  for (auto [index, s] : llvm::enumerate(p.steps))
    if (s.kind == GraphStepKind::attention &&
        getGraphAttentionSplits(config, s) > 1)
      attentionParts[index] = {func.getArgument(next++), splitCounter++};
  if (config.getStages() > 0)
    for (auto [index, s] : llvm::enumerate(p.steps))
      if (s.kind == GraphStepKind::matmul)
        mapPointers[index] = func.getArgument(next++);

  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  lane = arith::RemUIOp::create(b, tid, c(32));
  warp = arith::DivUIOp::create(b, tid, c(32));
  first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, c(0));
  smemRaw = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                         gpu::AddressSpaceAttr::get(
                             b.getContext(), gpu::AddressSpace::Workgroup)));
  // A step first acquires what other blocks wrote (or orders its own
  // block's writes), and releases what later steps wait for.
  for (auto [index, op] : llvm::enumerate(getGraphSteps(graph))) {
    const GraphStep &s = p.steps[index];
    // A ring's first stages stream while the step waits.
    bool ring = isa<MatmulOp>(op) && config.getStages() > 0;
    if (ring)
      beginRing(index);
    if (s.waitsOn)
      waitFor(*s.waitsOn);
    else if (s.barrierBefore)
      gpu::BarrierOp::create(b);
    if (auto row = dyn_cast<RowReduceOp>(op))
      buildRowStep(index, row);
    else if (auto attention = dyn_cast<DecodeAttentionOp>(op))
      buildAttentionStep(index, attention);
    else if (!isa<MatmulOp>(op))
      buildElementwiseStep(index, op);
    else if (ring)
      buildMmaRingStep(index, cast<MatmulOp>(op));
    else if (config.getMath() == MathInst::mma_sync)
      buildMmaStep(index, cast<MatmulOp>(op));
    else
      buildStep(index, cast<MatmulOp>(op));
    if (s.signals)
      signal(index);
  }
  for (auto [index, op] : llvm::enumerate(getGraphSteps(graph)))
    if (auto attention = dyn_cast<DecodeAttentionOp>(op);
        attention && attention.getAppend())
      buildAppend(index, attention);
  gpu::ReturnOp::create(b);
}

FailureOr<gpu::GPUFuncOp>
mlir::amk::synthesizeGraphKernel(gpu::GPUModuleOp module, KernelOp kernel,
                                 GraphConfigAttr config, StringRef name) {
  auto graph = cast<GraphOp>(kernel.getProblem().getOperation());
  GraphProblem p = GraphProblem::get(graph);
  SmallVector<Type> argTypes(graph.getOperandTypes());
  for (GraphBufferOp buffer : getGraphBuffers(graph))
    argTypes.push_back(buffer.getBuffer().getType());
  MLIRContext *context = kernel.getContext();
  unsigned counterArg = argTypes.size();
  argTypes.push_back(MemRefType::get({getGraphCounters(config, p)},
                                     IntegerType::get(context, 32)));
  // Split attention steps' parts, in step order.
  for (const GraphStep &s : p.steps)
    if (s.kind == GraphStepKind::attention &&
        getGraphAttentionSplits(config, s) > 1)
      argTypes.push_back(MemRefType::get({getGraphAttentionPartials(config, s)},
                                         Float32Type::get(context)));
  // The tensor maps come last, as pointers (a pre-outlined gpu.func cannot
  // take !nvgpu.tensormap.descriptor arguments: docs/FACTS.md).
  if (config.getStages() > 0)
    for (const GraphStep &s : p.steps)
      if (s.kind == GraphStepKind::matmul)
        argTypes.push_back(LLVM::LLVMPointerType::get(context));
  gpu::GPUFuncOp func = createKernelFunc(module, kernel.getLoc(), name,
                                         argTypes, config.getThreads());
  OpBuilder attrs(context);
  func.setKnownGridSizeAttr(attrs.getDenseI32ArrayAttr(
      {static_cast<int32_t>(config.getBlocks()), 1, 1}));
  func->setAttr("amk.cooperative", attrs.getUnitAttr());
  if (config.getStages() > 0)
    func->setAttr(kDynamicSmemAlignAttrName,
                  attrs.getI64IntegerAttr(kGraphSmemAlignBytes));
  func.setArgAttr(counterArg, "amk.counter", attrs.getUnitAttr());
  ImplicitLocOpBuilder b(kernel.getLoc(), context);
  GraphKernelBuilder(b, config, graph, p).build(func);
  return func;
}
