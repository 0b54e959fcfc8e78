//===- RowReduceSynthesis.cpp - Row-wise kernels from a row config --------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// One kernel shape for every row-wise problem:
//
//   row = blockIdx.x * rows_per_block + tid / threads_per_row
//     (a cluster of C blocks per row: row = blockIdx.x / C, and block
//     blockIdx.x mod C takes the row's threads from rank * threads_per_row)
//   for each statistics pass:
//     each thread folds its strided vectors of the row into f32 statistics
//     (if the row exists; a cached row's runs from its registers or its
//     staged copy in shared memory), then the row's threads combine them:
//     xor shuffles within a warp, shared memory and one barrier across
//     warps, a workspace and a cluster barrier across a cluster's blocks
//   output pass: each thread writes its vectors of y (softmax, norms), or
//     the row's first thread writes the value (sum, max, mean).
//
// Collectives sit outside every thread-dependent branch: all threads of a
// block (of a cluster) reach each shuffle and barrier. Every load and store
// is inside the row's guard and the loop bound of its dimension.
//
//===----------------------------------------------------------------------===//

#include "RowKernelBuilder.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::rows;

Value RowKernelBuilder::dim(Value memref, int64_t d) {
  return getValueOrCreateConstantIndexOp(
      b, b.getLoc(), memref::getMixedSize(b, b.getLoc(), memref, d));
}

ResultRange RowKernelBuilder::buildIfElse(
    Value cond, TypeRange types, llvm::function_ref<SmallVector<Value>()> then,
    llvm::function_ref<SmallVector<Value>()> otherwise) {
  auto ifOp = scf::IfOp::create(b, types, cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, otherwise());
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, then());
  return ifOp.getResults();
}

Value RowKernelBuilder::lengthF32() {
  Value n = arith::IndexCastUIOp::create(b, b.getI64Type(), dim(x, 1));
  return arith::UIToFPOp::create(b, b.getF32Type(), n);
}

void RowKernelBuilder::writeReduction(Value value) {
  Value first =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rowLane, c(0));
  auto ifOp = scf::IfOp::create(b, arith::AndIOp::create(b, active, first),
                                /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  if (!p.outType.isF32())
    value = arith::TruncFOp::create(b, p.outType, value);
  memref::StoreOp::create(b, value, y, ValueRange{row});
}

void RowKernelBuilder::writeRows(ElementFn element,
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
    if (splitLoads) {
      // One by one, inside by y's guard of the run's last element (so the
      // race check takes the run's stores as one box).
      for (auto [i, v] : llvm::enumerate(out))
        memref::StoreOp::create(
            b, v, y,
            ValueRange{row, arith::AddIOp::create(b, col, c(i)).getResult()});
      return;
    }
    Value vec = vector::FromElementsOp::create(
        b, VectorType::get({width}, p.outType), out);
    vector::StoreOp::create(b, vec, y, ValueRange{row, col},
                            /*nontemporal=*/false,
                            llvm::MaybeAlign(width * p.outBytes()));
  };
  if (isCached()) {
    for (auto [k, valid] : llvm::enumerate(cachedValid)) {
      OpBuilder::InsertionGuard inner(b);
      auto exists = scf::IfOp::create(b, valid, /*withElseRegion=*/false);
      b.setInsertionPointToStart(exists.thenBlock());
      writeRun(cachedColumn[k],
               values.empty() ? cachedAsF32(cachedRun(k)) : values[k]);
    }
    return;
  }
  forEachRun([&](Value col, ArrayRef<Value> in) { writeRun(col, in); });
  SmallVector<Value> none;
  forEachTail(
      {},
      [&](Value col, ValueRange) {
        writeRun(col, loadRun(x, ValueRange{row, clampTo(x, 1, col)}));
        return Stats();
      },
      none);
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
  if (config.getCluster() > 1)
    workspace = args[next++];
  if (p.batched) {
    // The launch sizes grid z by x's batch; a y with a dynamic batch may
    // hold fewer: blocks past either do nothing (the guard, uniform over
    // the block, also proves the batch views in bounds).
    Value batch = gpu::BlockIdOp::create(b, gpu::Dimension::z);
    if (Value inBatch = getBatchGuard(b, ValueRange{x, y}, batch)) {
      auto ifOp = scf::IfOp::create(b, inBatch, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    x = selectBatch(b, x, batch);
    y = selectBatch(b, y, batch);
  }
  int64_t perRow = config.getThreadsPerRow(), cluster = config.getCluster();
  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  lane = arith::RemUIOp::create(b, tid, c(perRow));
  warpInRow = arith::DivUIOp::create(b, lane, c(32));
  rowInBlock = arith::DivUIOp::create(b, tid, c(perRow));
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  rowThreads = perRow * cluster;
  if (cluster > 1) {
    // A cluster per row (one row a block): block `rank` of the cluster
    // takes the row's threads rank * perRow and on.
    row = arith::DivUIOp::create(b, bid, c(cluster));
    rank = arith::RemUIOp::create(b, bid, c(cluster));
    rowLane = arith::AddIOp::create(
        b, arith::MulIOp::create(b, rank, c(perRow)), lane);
  } else {
    row = arith::AddIOp::create(
        b, arith::MulIOp::create(b, bid, c(config.getRowsPerBlock())),
        rowInBlock);
    rowLane = lane;
  }
  // The row exists in x and in y (each guard bounds its own buffer).
  active = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, dim(x, 0)),
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, dim(y, 0)));
  // Shared memory: the staged rows (cache = shared), then the combine's
  // statistics.
  int64_t stagedBytes = getRowStagedBytes(config, p);
  if (int64_t bytes = getRowSmemBytes(config, p)) {
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    Value raw = gpu::DynamicSharedMemoryOp::create(
        b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                           space));
    if (stagedBytes)
      staged =
          memref::ViewOp::create(b,
                                 MemRefType::get({config.getRowsPerBlock(),
                                                  getRowStagedColumns(config)},
                                                 p.inType, AffineMap(), space),
                                 raw, c(0), ValueRange{});
    if (int64_t combine = getRowCombineBytes(config))
      smem = memref::ViewOp::create(
          b, MemRefType::get({combine / 4}, b.getF32Type(), AffineMap(), space),
          raw, c(stagedBytes), ValueRange{});
  }

  width = config.getVector();
  if (width > 1 && ShapedType::isDynamic(p.n)) {
    // A dynamic row length: the vector version where the vector divides
    // the row length of every buffer (so every row starts aligned and
    // every run ends inside; one uniform test), element by element
    // otherwise (buildRows).
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
  // The element version of a dynamic row length streams with split loads:
  // the vector's runs, element by element, then the tail (H100, 3 rows of
  // 32769: norms took 36 us a scalar at a time, 18 split).
  bool elementVersion = width < config.getVector();
  auto stream = [&] {
    if (!elementVersion)
      return buildPasses(0);
    width = config.getVector();
    splitLoads = true;
    buildPasses(0);
    width = 1;
    splitLoads = false;
  };
  int64_t count = config.getCachedRuns();
  if (count == 0)
    return stream();
  if (!ShapedType::isDynamic(p.n))
    return buildPasses(count);
  // It caches the vector version's elements as scalar runs, up to
  // kMaxElementRuns a thread: within the kernel's register cap, 290
  // configs (softmax, RMSNorm, LayerNorm with and without bias; bf16, f16,
  // f32; 64-1024 threads; 1-8 runs) assemble without a spill, 247 of them
  // in the registers a third as many took, none in more than 8 more; at 32
  // a planned cluster kernel spilled. A row the cache misses streams
  // element by element, a round trip per run group: caching beat split
  // loads where both fit (H100, softmax of 7 rows of 4099: 5.9 us against
  // 7.4 streamed and 9.0 cached split).
  if (elementVersion)
    count = std::min(count * config.getVector(), kMaxElementRuns);
  // A dynamic row: cached where it has 1 to capacity elements (uniform
  // over the block), streamed where not.
  Value n = dim(x, 1);
  int64_t capacity = count * rowThreads * width;
  Value fits = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::uge, n, c(1)),
      arith::CmpIOp::create(b, arith::CmpIPredicate::ule, n, c(capacity)));
  auto ifOp = scf::IfOp::create(b, fits, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  buildPasses(count);
  b.setInsertionPointToStart(ifOp.elseBlock());
  stream();
}

void RowKernelBuilder::buildPasses(int64_t cachedCount) {
  cachedRuns.clear();
  cachedValid.clear();
  cachedColumn.clear();
  stagedColumn.clear();
  rowStaged = false;
  if (cachedCount > 0)
    loadCachedRow(cachedCount);

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
    // A dynamic row too long for the config's cache streams with online
    // statistics: one read fewer than a second pass (its exponentials,
    // which a cached row saves, no longer are the cost).
    bool fallback = !isCached() && config.getCachedRuns() > 0;
    if (config.getPasses() == 1 || fallback) {
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

void RowKernelBuilder::buildTile(const RowTile &tile) {
  x = tile.x;
  weight = tile.weight;
  bias = tile.bias;
  y = tile.y;
  row = tile.row;
  smem = tile.smem;
  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  lane = rowLane = tid;
  rowThreads = config.getThreadsPerRow();
  warpInRow = arith::DivUIOp::create(b, lane, c(32));
  rowInBlock = c(0);
  active = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, dim(x, 0)),
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, dim(y, 0)));
  width = config.getVector();
  buildRows();
}

void mlir::amk::buildRowTile(ImplicitLocOpBuilder &b, RowConfigAttr config,
                             const RowProblem &p, const RowTile &tile) {
  assert(config.getRowsPerBlock() == 1 && config.getCachedRuns() == 0 &&
         !p.hasDynamicSizes() && "a row tile is one static, streamed row");
  RowKernelBuilder(b, config, p).buildTile(tile);
}

FailureOr<gpu::GPUFuncOp>
mlir::amk::synthesizeRowKernel(gpu::GPUModuleOp module, KernelOp kernel,
                               RowConfigAttr config, StringRef name,
                               const TargetSpec &target) {
  auto op = cast<RowReduceOp>(kernel.getProblem().getOperation());
  RowProblem problem = RowProblem::get(op);
  std::string whyNot;
  if (failed(checkRowLowerable(config, problem, whyNot, &target)))
    return kernel.emitOpError("cannot synthesize ") << config << ": " << whyNot;
  SmallVector<Type> argTypes(ValueRange(op.getKernelOperands()).getTypes());
  if (MemRefType workspace = getRowWorkspaceType(config, problem))
    argTypes.push_back(workspace);
  gpu::GPUFuncOp func = createKernelFunc(module, kernel.getLoc(), name,
                                         argTypes, config.getThreads());
  // (Lowered to .reqnctapercluster: a plain launch runs the clusters.)
  if (config.getCluster() > 1)
    func.setKnownClusterSizeAttr(DenseI32ArrayAttr::get(
        func.getContext(), {int32_t(config.getCluster()), 1, 1}));
  ImplicitLocOpBuilder b(kernel.getLoc(), func.getContext());
  RowKernelBuilder(b, config, problem).build(func);
  return func;
}
