//===- RowReduceSynthesis.cpp - Row-wise kernels from a row config --------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// One kernel shape for every row-wise problem:
//
//   row = blockIdx.x * rows_per_block + tid / threads_per_row
//   for each statistics pass:
//     each thread folds its strided vectors of the row into f32 statistics
//     (if the row exists), then the row's threads combine them: xor
//     shuffles within a warp, shared memory and one barrier across warps
//   output pass: each thread writes its vectors of y (softmax, norms), or
//     the row's first thread writes the value (sum, max, mean).
//
// Collectives sit outside every thread-dependent branch: all threads of a
// block reach each shuffle and barrier. Every load and store is inside the
// row's guard and the loop bound of its dimension.
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/RowReduce/RowReduceModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::amk;

namespace {

/// A pass's statistics: a few f32 values per thread.
using Stats = SmallVector<Value, 2>;

/// What one statistics pass computes: its initial values, how an element
/// folds in, and how two threads' statistics combine.
struct StatPass {
  std::function<Stats()> init;
  std::function<Stats(const Stats &, Value)> fold;
  std::function<Stats(const Stats &, const Stats &)> combine;
  /// Folds a whole run at once where that is cheaper (online softmax:
  /// one rescale per run, not per element); null: element by element.
  std::function<Stats(const Stats &, ArrayRef<Value>)> foldRun;
};

class RowKernelBuilder {
public:
  RowKernelBuilder(ImplicitLocOpBuilder &b, RowConfigAttr config,
                   const RowProblem &p)
      : b(b), config(config), p(p) {}

  void build(gpu::GPUFuncOp func);

private:
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value toF32(Value v) {
    return v.getType().isF32() ? v
                               : arith::ExtFOp::create(b, b.getF32Type(), v);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }

  /// `source[batch]` without its batch dimension.
  Value selectBatch(Value source, Value batch);
  Value dim(Value memref, int64_t d);
  /// The row length as f32.
  Value lengthF32();

  /// `vector` elements of `memref` at [row, col] (or [col] for rank 1), as
  /// f32 (or as stored).
  SmallVector<Value> loadRun(Value memref, ValueRange at, bool asF32 = true);
  /// A cached run as f32.
  SmallVector<Value> cachedAsF32(ArrayRef<Value> run) {
    SmallVector<Value> out;
    for (Value v : run)
      out.push_back(toF32(v));
    return out;
  }
  /// `index` (the start of a run of `width`) into dimension `d` of
  /// `memref`, clamped to 0 where that is dynamic (the run never leaves it;
  /// the clamp says so to the bounds proof, which does not relate different
  /// buffers' dynamic sizes or take a loop bound for a guard).
  Value clampTo(Value memref, int64_t d, Value index);
  /// Folds this thread's elements of the row into `pass`'s statistics.
  Stats foldRow(const StatPass &pass);
  /// The row's statistics, combined over its threads (all threads call).
  Stats combineRow(const StatPass &pass, Stats stats, int64_t stage);
  /// Calls `body(col)` for this thread's runs of an existing row.
  void forEachRun(llvm::function_ref<void(Value)> body);
  scf::ForOp buildRunLoop(ValueRange init);
  Value runColumn(scf::ForOp loop);

  StatPass sumPass(std::function<Value(Value)> term);
  StatPass maxPass();
  StatPass onlineSoftmaxPass();
  static Stats combineOnline(ImplicitLocOpBuilder &b, const Stats &a,
                             const Stats &c);

  void writeReduction(Value value);
  /// Writes y: `element(v, i, col)` of each element v of this thread's
  /// runs (for a cached row, `values[k]` in place of run k where given).
  void writeRows(llvm::function_ref<Value(Value, int64_t, Value)> element,
                 ArrayRef<SmallVector<Value>> values = {});

  /// cached_runs > 0: loads this thread's runs of the row once (clamped
  /// into the row; `cachedValid` says which exist).
  void loadCachedRow();
  /// Folds the cached runs that exist into `stats`.
  Stats foldCached(const StatPass &pass);

  /// The statistics and output passes over this thread's runs (after the
  /// row and shared memory are set up), `width` elements per run.
  void buildRows();

  ImplicitLocOpBuilder &b;
  RowConfigAttr config;
  const RowProblem &p;
  /// Elements per run in the version being built: the config's vector, or
  /// 1 in the fallback of a dynamic row length it does not divide.
  int64_t width = 1;
  Value x, weight, bias, y;
  /// The cached runs (f32), whether each is in the row, and its column.
  SmallVector<SmallVector<Value>> cachedRuns;
  SmallVector<Value> cachedValid, cachedColumn;
  /// The weight and bias of the run being written (f32).
  SmallVector<Value> runWeight, runBias;
  Value tid, lane, warpInRow, rowInBlock, row, active;
  Value smem;
};
} // namespace

Value RowKernelBuilder::dim(Value memref, int64_t d) {
  int64_t size = cast<MemRefType>(memref.getType()).getDimSize(d);
  if (!ShapedType::isDynamic(size))
    return c(size);
  return memref::DimOp::create(b, memref, d);
}

Value RowKernelBuilder::selectBatch(Value source, Value batch) {
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

Value RowKernelBuilder::lengthF32() {
  Value n = arith::IndexCastUIOp::create(b, b.getI64Type(), dim(x, 1));
  return arith::UIToFPOp::create(b, b.getF32Type(), n);
}

SmallVector<Value> RowKernelBuilder::loadRun(Value memref, ValueRange at,
                                             bool asF32) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<Value> values;
  auto convert = [&](Value v) { return asF32 ? toF32(v) : v; };
  if (width == 1) {
    values.push_back(convert(memref::LoadOp::create(b, memref, at)));
    return values;
  }
  Type elem = type.getElementType();
  int64_t align = width * elem.getIntOrFloatBitWidth() / 8;
  Value vec =
      vector::LoadOp::create(b, VectorType::get({width}, elem), memref, at,
                             /*nontemporal=*/false, llvm::MaybeAlign(align));
  for (int64_t i = 0; i < width; ++i)
    values.push_back(convert(vector::ExtractOp::create(b, vec, i)));
  return values;
}

/// The loop over this thread's runs: run r of the row starts at column
/// r * vector (counting runs, not columns, bounds the last run's end by the
/// row length: vector divides it).
scf::ForOp RowKernelBuilder::buildRunLoop(ValueRange init) {
  Value runs = arith::DivUIOp::create(b, dim(x, 1), c(width));
  return scf::ForOp::create(b, lane, runs, c(config.getThreadsPerRow()), init);
}

Value RowKernelBuilder::runColumn(scf::ForOp loop) {
  return arith::MulIOp::create(b, loop.getInductionVar(), c(width));
}

Value RowKernelBuilder::clampTo(Value memref, int64_t d, Value index) {
  if (!cast<MemRefType>(memref.getType()).isDynamicDim(d))
    return index;
  // The run's last element is inside: index + width - 1 < size.
  Value last = arith::AddIOp::create(b, index, c(width - 1));
  Value inside =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, last, dim(memref, d));
  return arith::SelectOp::create(b, inside, index, c(0));
}

void RowKernelBuilder::forEachRun(llvm::function_ref<void(Value)> body) {
  scf::ForOp loop = buildRunLoop({});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(runColumn(loop));
}

void RowKernelBuilder::loadCachedRow() {
  int64_t count = config.getCachedRuns();
  // Static: checkRowLowerable takes cached rows of a static length only.
  int64_t runs = p.n / width;
  for (int64_t k = 0; k < count; ++k) {
    Value run =
        arith::AddIOp::create(b, lane, c(k * config.getThreadsPerRow()));
    cachedValid.push_back(
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, run, c(runs)));
    // Clamped to the last run: equal to the run's own column wherever it
    // is valid, and inside the row by its range alone (the bounds proof
    // does not carry the guard through the multiplication).
    Value clamped = arith::MinUIOp::create(b, run, c(runs - 1));
    cachedColumn.push_back(arith::MulIOp::create(b, clamped, c(width)));
  }
  // Rows past the end load nothing; their zeros are never written.
  Type elem = p.inType;
  SmallVector<Type> types(count * width, elem);
  auto ifOp = scf::IfOp::create(b, types, active, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.elseBlock());
    Value zero = arith::ConstantOp::create(b, elem, b.getZeroAttr(elem));
    scf::YieldOp::create(b, SmallVector<Value>(count * width, zero));
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> values;
    // Kept as stored (bf16 and f16 take half the registers).
    for (Value col : cachedColumn)
      llvm::append_range(values, loadRun(x, ValueRange{row, col}, false));
    scf::YieldOp::create(b, values);
  }
  for (int64_t k = 0; k < count; ++k)
    cachedRuns.push_back(
        SmallVector<Value>(ifOp.getResults().slice(k * width, width)));
}

Stats RowKernelBuilder::foldCached(const StatPass &pass) {
  Stats stats = pass.init();
  for (auto [run, valid] : llvm::zip_equal(cachedRuns, cachedValid)) {
    Stats next = stats;
    SmallVector<Value> values = cachedAsF32(run);
    if (pass.foldRun)
      next = pass.foldRun(next, values);
    else
      for (Value v : values)
        next = pass.fold(next, v);
    for (auto [s, n] : llvm::zip_equal(stats, next))
      s = arith::SelectOp::create(b, valid, n, s);
  }
  return stats;
}

Stats RowKernelBuilder::foldRow(const StatPass &pass) {
  if (!cachedRuns.empty())
    return foldCached(pass);
  Stats init = pass.init();
  SmallVector<Type> types(init.size(), b.getF32Type());
  auto ifOp = scf::IfOp::create(b, types, active, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, init);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::ForOp loop = buildRunLoop(init);
    b.setInsertionPointToStart(loop.getBody());
    Stats stats(loop.getRegionIterArgs());
    Value col = clampTo(x, 1, runColumn(loop));
    SmallVector<Value> run = loadRun(x, ValueRange{row, col});
    if (pass.foldRun)
      stats = pass.foldRun(stats, run);
    else
      for (Value v : run)
        stats = pass.fold(stats, v);
    scf::YieldOp::create(b, stats);
    b.setInsertionPointAfter(loop);
    scf::YieldOp::create(b, loop.getResults());
  }
  return Stats(ifOp.getResults());
}

Stats RowKernelBuilder::combineRow(const StatPass &pass, Stats stats,
                                   int64_t stage) {
  Type i32 = b.getI32Type();
  Value width = arith::ConstantIntOp::create(b, i32, 32);
  // Within a warp: the row's lanes are an aligned group of threads_per_row.
  for (int64_t offset = std::min<int64_t>(config.getThreadsPerRow(), 32) / 2;
       offset >= 1; offset /= 2) {
    Value off = arith::ConstantIntOp::create(b, i32, offset);
    Stats other;
    for (Value v : stats)
      other.push_back(
          gpu::ShuffleOp::create(b, v, off, width, gpu::ShuffleMode::XOR)
              .getShuffleResult());
    stats = pass.combine(stats, other);
  }
  int64_t warps = config.getWarpsPerRow();
  if (warps <= 1)
    return stats;
  // Across the row's warps: each warp's first lane publishes, one barrier,
  // then every thread combines the row's warps in order.
  int64_t rowsPerBlock = config.getRowsPerBlock();
  auto slot = [&](Value warp, int64_t k) {
    Value base = arith::AddIOp::create(
        b, arith::MulIOp::create(b, c(stage * rowsPerBlock), c(1)), rowInBlock);
    Value index = arith::AddIOp::create(
        b, arith::MulIOp::create(b, base, c(warps)), warp);
    return arith::AddIOp::create(b, arith::MulIOp::create(b, index, c(2)),
                                 c(k));
  };
  Value leader =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                            arith::RemUIOp::create(b, lane, c(32)), c(0));
  {
    auto ifOp = scf::IfOp::create(b, leader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [k, v] : llvm::enumerate(stats))
      memref::StoreOp::create(b, v, smem, ValueRange{slot(warpInRow, k)});
  }
  gpu::BarrierOp::create(b);
  Stats total;
  for (int64_t w = 0; w < warps; ++w) {
    Stats part;
    for (int64_t k = 0, e = stats.size(); k < e; ++k)
      part.push_back(
          memref::LoadOp::create(b, smem, ValueRange{slot(c(w), k)}));
    total = w == 0 ? part : pass.combine(total, part);
  }
  return total;
}

StatPass RowKernelBuilder::sumPass(std::function<Value(Value)> term) {
  StatPass pass;
  pass.init = [this] { return Stats{f32(0.0)}; };
  pass.fold = [this, term](const Stats &s, Value v) {
    return Stats{add(s[0], term(v))};
  };
  pass.combine = [this](const Stats &a, const Stats &o) {
    return Stats{add(a[0], o[0])};
  };
  return pass;
}

StatPass RowKernelBuilder::maxPass() {
  StatPass pass;
  pass.init = [this] {
    return Stats{f32(-std::numeric_limits<double>::infinity())};
  };
  auto max = [this](const Stats &s, Value v) {
    return Stats{arith::MaximumFOp::create(b, s[0], v)};
  };
  pass.fold = max;
  pass.combine = [max](const Stats &a, const Stats &o) { return max(a, o[0]); };
  return pass;
}

/// (max, sum of exp(x - max)) of two parts. A part that has seen only
/// -inf contributes nothing (its exp(-inf - -inf) would be NaN).
Stats RowKernelBuilder::combineOnline(ImplicitLocOpBuilder &b, const Stats &a,
                                      const Stats &o) {
  Value m = arith::MaximumFOp::create(b, a[0], o[0]);
  Value negInf = arith::ConstantOp::create(
      b, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0));
  Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, m, negInf);
  auto scaled = [&](const Stats &part) {
    Value e = math::ExpOp::create(b, arith::SubFOp::create(b, part[0], m));
    return arith::SelectOp::create(b, empty, zero,
                                   arith::MulFOp::create(b, part[1], e));
  };
  return Stats{m, arith::AddFOp::create(b, scaled(a), scaled(o))};
}

StatPass RowKernelBuilder::onlineSoftmaxPass() {
  StatPass pass;
  pass.init = [this] {
    return Stats{f32(-std::numeric_limits<double>::infinity()), f32(0.0)};
  };
  pass.fold = [this](const Stats &s, Value v) {
    return combineOnline(b, s, Stats{v, f32(1.0)});
  };
  pass.combine = [this](const Stats &a, const Stats &o) {
    return combineOnline(b, a, o);
  };
  // A run's own (max, sum), then one combine: width + 2 exponentials per
  // run instead of two per element. A run of only -inf sums to 0.
  pass.foldRun = [this](const Stats &s, ArrayRef<Value> run) {
    Value m = run.front();
    for (Value v : run.drop_front())
      m = arith::MaximumFOp::create(b, m, v);
    Value sum = f32(0.0);
    for (Value v : run)
      sum = add(sum, math::ExpOp::create(b, sub(v, m)));
    Value empty =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, m,
                              f32(-std::numeric_limits<double>::infinity()));
    sum = arith::SelectOp::create(b, empty, f32(0.0), sum);
    return combineOnline(b, s, Stats{m, sum});
  };
  return pass;
}

void RowKernelBuilder::writeReduction(Value value) {
  Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, c(0));
  auto ifOp = scf::IfOp::create(b, arith::AndIOp::create(b, active, first),
                                /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  if (!p.outType.isF32())
    value = arith::TruncFOp::create(b, p.outType, value);
  memref::StoreOp::create(b, value, y, ValueRange{row});
}

void RowKernelBuilder::writeRows(
    llvm::function_ref<Value(Value, int64_t, Value)> element,
    ArrayRef<SmallVector<Value>> values) {
  auto ifOp = scf::IfOp::create(b, active, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  auto writeRun = [&](Value col, ArrayRef<Value> in) {
    // The weight and bias of these columns, a run each, read as x is.
    runWeight.clear();
    runBias.clear();
    if (weight)
      runWeight = loadRun(weight, ValueRange{clampTo(weight, 0, col)});
    if (bias)
      runBias = loadRun(bias, ValueRange{clampTo(bias, 0, col)});
    SmallVector<Value> out;
    for (int64_t i = 0; i < width; ++i) {
      Value v = element(in[i], i, col);
      out.push_back(p.outType.isF32()
                        ? v
                        : arith::TruncFOp::create(b, p.outType, v).getResult());
    }
    // A dynamic row length: y's own size guards the store of the run.
    OpBuilder::InsertionGuard inner(b);
    if (cast<MemRefType>(y.getType()).isDynamicDim(1)) {
      Value last = arith::AddIOp::create(b, col, c(width - 1));
      Value inside =
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, last, dim(y, 1));
      auto store = scf::IfOp::create(b, inside, /*withElseRegion=*/false);
      b.setInsertionPointToStart(store.thenBlock());
    }
    if (width == 1) {
      memref::StoreOp::create(b, out[0], y, ValueRange{row, col});
      return;
    }
    Value vec = vector::FromElementsOp::create(
        b, VectorType::get({width}, p.outType), out);
    vector::StoreOp::create(b, vec, y, ValueRange{row, col},
                            /*nontemporal=*/false,
                            llvm::MaybeAlign(width * p.outBytes()));
  };
  if (cachedRuns.empty()) {
    forEachRun([&](Value col) {
      writeRun(col, loadRun(x, ValueRange{row, clampTo(x, 1, col)}));
    });
    return;
  }
  for (auto [k, run] : llvm::enumerate(cachedRuns)) {
    OpBuilder::InsertionGuard inner(b);
    auto exists =
        scf::IfOp::create(b, cachedValid[k], /*withElseRegion=*/false);
    b.setInsertionPointToStart(exists.thenBlock());
    writeRun(cachedColumn[k], values.empty() ? cachedAsF32(run) : values[k]);
  }
}

void RowKernelBuilder::build(gpu::GPUFuncOp func) {
  b.setInsertionPointToStart(&func.getBody().front());
  SmallVector<Value> args(func.getArguments());
  unsigned next = 0;
  x = args[next++];
  if (p.weight)
    weight = args[next++];
  if (p.bias)
    bias = args[next++];
  y = args[next++];
  if (p.batched) {
    // The launch sizes grid z by x's batch; a y with a dynamic batch may
    // hold fewer: blocks past either do nothing (the guard, uniform over
    // the block, also proves the batch views in bounds).
    Value batch = gpu::BlockIdOp::create(b, gpu::Dimension::z);
    Value inBatch;
    for (Value operand : {x, y}) {
      if (!cast<MemRefType>(operand.getType()).isDynamicDim(0))
        continue;
      Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, batch,
                                           dim(operand, 0));
      inBatch = inBatch ? arith::AndIOp::create(b, inBatch, inside) : inside;
    }
    if (inBatch) {
      auto ifOp = scf::IfOp::create(b, inBatch, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    x = selectBatch(x, batch);
    y = selectBatch(y, batch);
  }
  int64_t perRow = config.getThreadsPerRow();
  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  lane = arith::RemUIOp::create(b, tid, c(perRow));
  warpInRow = arith::DivUIOp::create(b, lane, c(32));
  rowInBlock = arith::DivUIOp::create(b, tid, c(perRow));
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  row = arith::AddIOp::create(
      b, arith::MulIOp::create(b, bid, c(config.getRowsPerBlock())),
      rowInBlock);
  // The row exists in x and in y (each guard bounds its own buffer).
  active = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, dim(x, 0)),
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, dim(y, 0)));
  if (int64_t bytes = getRowSmemBytes(config)) {
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    Value raw = gpu::DynamicSharedMemoryOp::create(
        b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                           space));
    smem = memref::ViewOp::create(
        b, MemRefType::get({bytes / 4}, b.getF32Type(), AffineMap(), space),
        raw, c(0), ValueRange{});
  }

  width = config.getVector();
  if (width > 1 && ShapedType::isDynamic(p.n)) {
    // A dynamic row length: the vector version where the vector divides
    // the row length of every buffer (so every row starts aligned and
    // every run ends inside; one uniform test), element by element
    // otherwise.
    Value multiple;
    for (Value buffer : {x, y, weight, bias}) {
      if (!buffer || (buffer == y && !p.isElementwiseOutput()))
        continue;
      int64_t last = cast<MemRefType>(buffer.getType()).getRank() - 1;
      Value rem = arith::RemUIOp::create(b, dim(buffer, last), c(width));
      Value zero =
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rem, c(0));
      multiple = multiple ? arith::AndIOp::create(b, multiple, zero) : zero;
    }
    auto ifOp = scf::IfOp::create(b, multiple, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    buildRows();
    b.setInsertionPointToStart(ifOp.elseBlock());
    width = 1;
    buildRows();
  } else {
    buildRows();
  }
  b.setInsertionPointToEnd(&func.getBody().front());
  gpu::ReturnOp::create(b);
}

void RowKernelBuilder::buildRows() {
  if (config.getCachedRuns() > 0)
    loadCachedRow();

  auto identity = [](Value v) { return v; };
  auto square = [this](Value v) { return mul(v, v); };
  auto rstdOf = [this](Value meanSquare) {
    return math::RsqrtOp::create(b, add(meanSquare, f32(p.eps)));
  };
  auto rowStats = [&](const StatPass &pass, int64_t stage) {
    return combineRow(pass, foldRow(pass), stage);
  };
  switch (p.kind) {
  case RowOp::sum:
  case RowOp::mean: {
    Value sum = rowStats(sumPass(identity), 0)[0];
    writeReduction(p.kind == RowOp::mean
                       ? arith::DivFOp::create(b, sum, lengthF32())
                       : sum);
    break;
  }
  case RowOp::max:
    writeReduction(rowStats(maxPass(), 0)[0]);
    break;
  case RowOp::softmax: {
    Value m, s;
    if (!cachedRuns.empty() && config.getPasses() == 2) {
      // A cached row: the max costs no exponential, and each exp(x - max)
      // is computed once, summed and kept for the output.
      m = rowStats(maxPass(), 0)[0];
      SmallVector<SmallVector<Value>> exps;
      Value sum = f32(0.0);
      for (auto [run, valid] : llvm::zip_equal(cachedRuns, cachedValid)) {
        SmallVector<Value> &e = exps.emplace_back();
        Value runSum = f32(0.0);
        for (Value v : cachedAsF32(run)) {
          e.push_back(math::ExpOp::create(b, sub(v, m)));
          runSum = add(runSum, e.back());
        }
        sum = arith::SelectOp::create(b, valid, add(sum, runSum), sum);
      }
      s = combineRow(sumPass([](Value v) { return v; }), {sum}, 1)[0];
      Value inv = arith::DivFOp::create(b, f32(1.0), s);
      writeRows([&](Value e, int64_t, Value) { return mul(e, inv); }, exps);
      break;
    }
    if (config.getPasses() == 1) {
      Stats st = rowStats(onlineSoftmaxPass(), 0);
      m = st[0];
      s = st[1];
    } else {
      m = rowStats(maxPass(), 0)[0];
      s = rowStats(sumPass([&, m](Value v) {
                     return Value(math::ExpOp::create(b, sub(v, m)));
                   }),
                   1)[0];
    }
    Value inv = arith::DivFOp::create(b, f32(1.0), s);
    writeRows([&](Value v, int64_t, Value) {
      return mul(math::ExpOp::create(b, sub(v, m)), inv);
    });
    break;
  }
  case RowOp::rms_norm: {
    Value sumSq = rowStats(sumPass(square), 0)[0];
    Value rstd = rstdOf(arith::DivFOp::create(b, sumSq, lengthF32()));
    writeRows([&](Value v, int64_t i, Value col) {
      return mul(mul(v, rstd), runWeight[i]);
    });
    break;
  }
  case RowOp::layer_norm: {
    Value n = lengthF32(), mean, var;
    if (config.getPasses() == 1) {
      StatPass pass;
      pass.init = [&] { return Stats{f32(0.0), f32(0.0)}; };
      pass.fold = [&](const Stats &s, Value v) {
        return Stats{add(s[0], v), add(s[1], mul(v, v))};
      };
      pass.combine = [&](const Stats &a, const Stats &o) {
        return Stats{add(a[0], o[0]), add(a[1], o[1])};
      };
      Stats st = rowStats(pass, 0);
      mean = arith::DivFOp::create(b, st[0], n);
      Value meanSq = arith::DivFOp::create(b, st[1], n);
      // E[x^2] - E[x]^2 can round below zero.
      var =
          arith::MaximumFOp::create(b, sub(meanSq, mul(mean, mean)), f32(0.0));
    } else {
      mean = arith::DivFOp::create(b, rowStats(sumPass(identity), 0)[0], n);
      Value centered = rowStats(sumPass([&, mean](Value v) {
                                  Value d = sub(v, mean);
                                  return mul(d, d);
                                }),
                                1)[0];
      var = arith::DivFOp::create(b, centered, n);
    }
    Value rstd = rstdOf(var);
    writeRows([&](Value v, int64_t i, Value col) {
      Value out = mul(mul(sub(v, mean), rstd), runWeight[i]);
      return bias ? add(out, runBias[i]) : out;
    });
    break;
  }
  }
}

FailureOr<gpu::GPUFuncOp>
mlir::amk::synthesizeRowKernel(gpu::GPUModuleOp module, KernelOp kernel,
                               RowConfigAttr config, StringRef name) {
  auto op = cast<RowReduceOp>(kernel.getProblem().getOperation());
  RowProblem problem = RowProblem::get(op);
  std::string whyNot;
  if (failed(checkRowLowerable(config, problem, whyNot)))
    return kernel.emitOpError("cannot synthesize ") << config << ": " << whyNot;
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> argTypes;
  for (Value operand : op.getKernelOperands())
    argTypes.push_back(operand.getType());
  auto func = gpu::GPUFuncOp::create(builder, kernel.getLoc(), name,
                                     builder.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                builder.getUnitAttr());
  func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(config.getThreads()), 1, 1}));
  ImplicitLocOpBuilder b(kernel.getLoc(), builder);
  RowKernelBuilder(b, config, problem).build(func);
  return func;
}
