//===- RowReduceRuns.cpp - A row's runs, streamed or cached -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Loading a thread's runs of its row: a loop over strided runs (streamed,
// each pass reads again), or the runs kept in registers (cached), and
// folding them into a pass's statistics.
//
//===----------------------------------------------------------------------===//

#include "RowKernelBuilder.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::rows;

Value RowKernelBuilder::loadVector(Value memref, ValueRange at) {
  Type elem = cast<MemRefType>(memref.getType()).getElementType();
  if (width == 1)
    return memref::LoadOp::create(b, memref, at);
  if (splitLoads) {
    // Element by element: the run may start anywhere (its `width` loads
    // are independent, so they are in flight together).
    SmallVector<Value> elements;
    SmallVector<Value> index(at);
    Value col = index.back();
    int64_t d = index.size() - 1;
    for (int64_t i = 0; i < width; ++i) {
      index.back() = clampElement(memref, d, col, i);
      elements.push_back(memref::LoadOp::create(b, memref, index));
    }
    return vector::FromElementsOp::create(b, VectorType::get({width}, elem),
                                          elements);
  }
  int64_t align = width * elem.getIntOrFloatBitWidth() / 8;
  return vector::LoadOp::create(b, VectorType::get({width}, elem), memref, at,
                                /*nontemporal=*/false, llvm::MaybeAlign(align));
}

SmallVector<Value> RowKernelBuilder::splitRun(Value run, bool asF32) {
  SmallVector<Value> values;
  auto convert = [&](Value v) { return asF32 ? toF32(v) : v; };
  if (!isa<VectorType>(run.getType())) {
    values.push_back(convert(run));
    return values;
  }
  for (int64_t i = 0; i < width; ++i)
    values.push_back(convert(vector::ExtractOp::create(b, run, i)));
  return values;
}

SmallVector<Value> RowKernelBuilder::loadRun(Value memref, ValueRange at,
                                             bool asF32) {
  return splitRun(loadVector(memref, at), asF32);
}

/// The loop over this thread's runs, kStreamedRunsInFlight of them an
/// iteration: run r of the row starts at column r * vector (counting runs,
/// not columns, bounds the last run's end by the row length).
scf::ForOp RowKernelBuilder::buildRunLoop(ValueRange init) {
  Value runs = arith::DivUIOp::create(b, dim(x, 1), c(width));
  return scf::ForOp::create(b, rowLane, runs,
                            c(rowThreads * kStreamedRunsInFlight), init);
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

Value RowKernelBuilder::clampElement(Value memref, int64_t d, Value col,
                                     int64_t i) {
  Value at = arith::AddIOp::create(b, col, c(i));
  Value inside =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, at, dim(memref, d));
  return arith::SelectOp::create(b, inside, at, c(0));
}

RowKernelBuilder::RunPlace RowKernelBuilder::locateRun(Value run,
                                                       bool nearLane) {
  if (ShapedType::isDynamic(p.n)) {
    // Loaded and stored under `valid`. Near the lane (a cached run) the
    // column cannot wrap, and unclamped it is the thread's first plus a
    // constant, so the compiler keeps one register for all of a thread's
    // runs; a streamed run's index is capped at the row's runs (so its
    // column cannot wrap) and its column clamped into the row.
    if (!nearLane)
      run = arith::MinUIOp::create(
          b, run, arith::DivUIOp::create(b, dim(x, 1), c(width)));
    Value col = arith::MulIOp::create(b, run, c(width));
    Value last = arith::AddIOp::create(b, col, c(width - 1));
    return {nearLane ? col : clampTo(x, 1, col),
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, last,
                                  dim(x, 1))};
  }
  int64_t runs = p.n / width;
  // Clamped to the last run: equal to the run's own column wherever it is
  // valid, and inside the row by its range alone (the bounds proof does not
  // carry the guard through the multiplication).
  Value clamped = arith::MinUIOp::create(b, run, c(runs - 1));
  return {arith::MulIOp::create(b, clamped, c(width)),
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, run, c(runs))};
}

SmallVector<Value> RowKernelBuilder::loadPlacedRun(const RunPlace &at) {
  if (!ShapedType::isDynamic(p.n))
    return loadRun(x, ValueRange{row, at.col}, false);
  // A dynamic row may fill few of the runs: the others load nothing. (The
  // run stays a vector through the branch: 16-bit elements yielded one by
  // one would take a register each.)
  Type elem = p.inType;
  Type type = width == 1 ? elem : VectorType::get({width}, elem);
  ResultRange load = buildIfElse(
      at.valid, type,
      [&] {
        return SmallVector<Value>{loadVector(x, ValueRange{row, at.col})};
      },
      [&] {
        return SmallVector<Value>{
            arith::ConstantOp::create(b, type, b.getZeroAttr(type))};
      });
  return splitRun(load[0], false);
}

SmallVector<std::pair<RowKernelBuilder::RunPlace, SmallVector<Value>>>
RowKernelBuilder::loadRunGroup(scf::ForOp loop) {
  SmallVector<std::pair<RunPlace, SmallVector<Value>>> group;
  for (int64_t u = 0; u < kStreamedRunsInFlight; ++u) {
    RunPlace at = locateRun(
        arith::AddIOp::create(b, loop.getInductionVar(), c(u * rowThreads)),
        /*nearLane=*/false);
    group.push_back({at, loadPlacedRun(at)});
  }
  return group;
}

void RowKernelBuilder::forEachRun(
    llvm::function_ref<void(Value, ArrayRef<Value>)> body) {
  scf::ForOp loop = buildRunLoop({});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  for (auto &[at, values] : loadRunGroup(loop)) {
    OpBuilder::InsertionGuard inner(b);
    auto exists = scf::IfOp::create(b, at.valid, /*withElseRegion=*/false);
    b.setInsertionPointToStart(exists.thenBlock());
    body(at.col, cachedAsF32(values));
  }
}

void RowKernelBuilder::loadCachedRow(int64_t count) {
  SmallVector<RunPlace> places;
  for (int64_t k = 0; k < count; ++k) {
    Value run = arith::AddIOp::create(b, rowLane, c(k * rowThreads));
    places.push_back(locateRun(run, /*nearLane=*/true));
    cachedColumn.push_back(places.back().col);
    cachedValid.push_back(places.back().valid);
    // (Its slot in the block's staged row: the run's place among the
    // block's own threads.)
    if (staged)
      stagedColumn.push_back(arith::MulIOp::create(
          b, arith::AddIOp::create(b, lane, c(k * config.getThreadsPerRow())),
          c(width)));
  }
  if (staged)
    return;
  // Rows past the end load nothing; their zeros are never written.
  Type elem = p.inType;
  SmallVector<Type> types(count * width, elem);
  ResultRange loaded = buildIfElse(
      active, types,
      [&] {
        // Kept as stored (bf16 and f16 take half the registers).
        SmallVector<Value> values;
        for (const RunPlace &at : places)
          llvm::append_range(values, loadPlacedRun(at));
        return values;
      },
      [&] {
        Value zero = arith::ConstantOp::create(b, elem, b.getZeroAttr(elem));
        return SmallVector<Value>(count * width, zero);
      });
  for (int64_t k = 0; k < count; ++k)
    cachedRuns.push_back(SmallVector<Value>(loaded.slice(k * width, width)));
}

Stats RowKernelBuilder::foldValidRun(const StatPass &pass, const Stats &stats,
                                     ArrayRef<Value> run, Value valid) {
  Stats next = stats;
  if (pass.foldRun)
    next = pass.foldRun(next, run);
  else
    for (Value v : run)
      next = pass.fold(next, v);
  Stats out;
  for (auto [s, n] : llvm::zip_equal(stats, next))
    out.push_back(arith::SelectOp::create(b, valid, n, s));
  return out;
}

SmallVector<Value> RowKernelBuilder::cachedRun(int64_t k) {
  if (!staged)
    return cachedRuns[k];
  return loadRun(staged, ValueRange{rowInBlock, stagedColumn[k]},
                 /*asF32=*/false);
}

Stats RowKernelBuilder::foldCached(const StatPass &pass) {
  if (staged && !rowStaged)
    return stageRow(pass);
  Stats stats = pass.init();
  for (auto [k, valid] : llvm::enumerate(cachedValid))
    stats = foldValidRun(pass, stats, cachedAsF32(cachedRun(k)), valid);
  return stats;
}

Stats RowKernelBuilder::stageRow(const StatPass &pass) {
  // A streamed row's runs in flight at a time: the registers stay few, so
  // more blocks share an SM and their loads overlap each other's passes.
  Type elem = p.inType;
  Type type = width == 1 ? elem : VectorType::get({width}, elem);
  Stats stats = pass.init();
  int64_t count = cachedValid.size();
  for (int64_t first = 0; first < count; first += kStreamedRunsInFlight) {
    int64_t last = std::min(count, first + kStreamedRunsInFlight);
    // Rows past the end load and copy nothing; their zeros are never
    // written.
    SmallVector<Type> types(last - first, type);
    ResultRange group = buildIfElse(
        active, types,
        [&] {
          SmallVector<Value> runs;
          for (int64_t k = first; k < last; ++k)
            runs.push_back(loadVector(x, ValueRange{row, cachedColumn[k]}));
          // Each thread writes its own slots and later reads only them: no
          // barrier orders the copy.
          for (int64_t k = first; k < last; ++k) {
            SmallVector<Value, 2> at = {rowInBlock, stagedColumn[k]};
            if (width == 1)
              memref::StoreOp::create(b, runs[k - first], staged, at);
            else
              vector::StoreOp::create(b, runs[k - first], staged, at,
                                      /*nontemporal=*/false,
                                      llvm::MaybeAlign(width * p.inBytes()));
          }
          return runs;
        },
        [&] {
          Value zero = arith::ConstantOp::create(b, type, b.getZeroAttr(type));
          return SmallVector<Value>(last - first, zero);
        });
    for (int64_t k = first; k < last; ++k)
      stats =
          foldValidRun(pass, stats, splitRun(group[k - first], /*asF32=*/true),
                       cachedValid[k]);
  }
  rowStaged = true;
  return stats;
}

void RowKernelBuilder::forEachTail(ValueRange init,
                                   llvm::function_ref<Stats(Value, ValueRange)>
                                       body,
                                   SmallVectorImpl<Value> &results) {
  results.assign(init.begin(), init.end());
  if (!splitLoads)
    return;
  // The last n mod width elements, one at a time, strided over the row's
  // threads.
  Value n = dim(x, 1);
  Value full = arith::MulIOp::create(
      b, arith::DivUIOp::create(b, n, c(width)), c(width));
  int64_t saved = width;
  width = 1;
  splitLoads = false;
  auto loop = scf::ForOp::create(b, arith::AddIOp::create(b, full, rowLane), n,
                                 c(rowThreads), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Stats next = body(loop.getInductionVar(), loop.getRegionIterArgs());
    // (A loop without results has its terminator already.)
    if (!init.empty())
      scf::YieldOp::create(b, next);
  }
  width = saved;
  splitLoads = true;
  results.assign(loop.getResults().begin(), loop.getResults().end());
}

Stats RowKernelBuilder::foldRow(const StatPass &pass) {
  if (isCached())
    return foldCached(pass);
  Stats init = pass.init();
  SmallVector<Type> types(init.size(), b.getF32Type());
  auto fold = [&] {
    scf::ForOp loop = buildRunLoop(init);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Stats stats(loop.getRegionIterArgs());
      for (auto &[at, stored] : loadRunGroup(loop))
        stats = foldValidRun(pass, stats, cachedAsF32(stored), at.valid);
      scf::YieldOp::create(b, stats);
    }
    // (Split loads: the elements past the last whole run.)
    SmallVector<Value> folded;
    forEachTail(
        loop.getResults(),
        [&](Value col, ValueRange in) {
          Stats st(in);
          for (Value v : loadRun(x, ValueRange{row, clampTo(x, 1, col)}))
            st = pass.fold(st, v);
          return st;
        },
        folded);
    return folded;
  };
  return Stats(
      buildIfElse(active, types, fold, [&] { return llvm::to_vector(init); }));
}
