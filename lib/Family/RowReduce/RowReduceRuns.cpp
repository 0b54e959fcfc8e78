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

void RowKernelBuilder::loadCachedRow(int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    Value run =
        arith::AddIOp::create(b, lane, c(k * config.getThreadsPerRow()));
    if (ShapedType::isDynamic(p.n)) {
      // Each run's load and store is guarded by its own `cachedValid`. An
      // unclamped column is the thread's first plus a constant, so the
      // compiler keeps one register for all of them, not one each.
      Value col = arith::MulIOp::create(b, run, c(width));
      Value last = arith::AddIOp::create(b, col, c(width - 1));
      cachedValid.push_back(arith::CmpIOp::create(
          b, arith::CmpIPredicate::ult, last, dim(x, 1)));
      cachedColumn.push_back(col);
      continue;
    }
    int64_t runs = p.n / width;
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
    for (auto [col, valid] : llvm::zip_equal(cachedColumn, cachedValid)) {
      if (!ShapedType::isDynamic(p.n)) {
        llvm::append_range(values, loadRun(x, ValueRange{row, col}, false));
        continue;
      }
      // A dynamic row may fill few of the runs: the others load nothing.
      // (The run stays a vector through the branch: 16-bit elements yielded
      // one by one would take a register each.)
      Type type = width == 1 ? elem : VectorType::get({width}, elem);
      auto load = scf::IfOp::create(b, type, valid, /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(load.elseBlock());
        scf::YieldOp::create(
            b, width == 1 ? zero
                          : arith::ConstantOp::create(
                                b, type, b.getZeroAttr(type)).getResult());
        b.setInsertionPointToStart(load.thenBlock());
        scf::YieldOp::create(b, loadVector(x, ValueRange{row, col}));
      }
      llvm::append_range(values, splitRun(load.getResult(0), false));
    }
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
