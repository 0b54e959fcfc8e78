//===- GemmSynthesis.cpp - GEMM kernels from a gemm config ----------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Two math paths share one skeleton:
//
//   tile = swizzle(blockIdx.x); batch = blockIdx.z
//   prologue: fill the shared-memory pipeline
//   for kt in [0, ceil(K / BK)):   stage k-tile kt+1.. while computing kt
//   epilogue: alpha, beta * C, bias, activation; masked stores of C
//
// simt      f32 FMAs on a TM x TN register tile per thread; global tiles are
//           staged through registers into double-buffered K-major shared
//           tiles (one barrier per k-tile).
// mma_sync  warp-level m16n8k16 tensor-core MMAs; operands move global ->
//           shared with cp.async (zero-filled outside the matrix) in a
//           multi-stage ring, XOR-swizzled in 16-byte chunks so that ldmatrix
//           reads are free of bank conflicts. Operands whose rows are not
//           4-byte aligned (an odd contiguous extent) are copied through
//           registers instead, into the same ring.
//
// Every global access is guarded or clamped so that it stays inside its
// buffer for all sizes, static or dynamic.
//
//===----------------------------------------------------------------------===//

#include "GemmSynthesisBuilder.h"

#include "AMK/Family/KernelBuilding.h"
#include "AMK/Harness/KernelSafety.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::gemm;

//===----------------------------------------------------------------------===//
// Shared skeleton
//===----------------------------------------------------------------------===//

Value GemmKernelBuilder::dimOf(Value memref, int64_t dim, int64_t staticSize) {
  if (!ShapedType::isDynamic(staticSize))
    return m.c(staticSize);
  return memref::DimOp::create(b, memref, dim);
}

void GemmKernelBuilder::setupOperands(ArrayRef<Value> operands, Value batch) {
  // Batched operands are [batch, ...]: work on this block's batch.
  auto operand = [&](unsigned i) {
    return p.batched ? selectBatch(b, operands[i], batch) : operands[i];
  };
  unsigned arg = 0;
  a = operand(arg++);
  bMat = operand(arg++);
  if (p.bias)
    bias = operand(arg++);
  c = operand(arg++);
  if (storesSplitPartials(config))
    partials = operands[arg++];
  if (usesSplitCounters(config))
    counters = operands[arg++];
  sizeM = dimOf(c, 0, p.m);
  sizeN = dimOf(c, 1, p.n);
  sizeK = dimOf(a, p.transposeA ? 0 : 1, p.k);
}

void GemmKernelBuilder::setupTile() {
  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  warp = m.div(tid, 32);
  lane = m.rem(tid, 32);
  std::tie(m0, n0) = tileOrigin(gpu::BlockIdOp::create(b, gpu::Dimension::x));
  smem = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                         gpu::AddressSpaceAttr::get(
                             b.getContext(), gpu::AddressSpace::Workgroup)));
}

Value GemmKernelBuilder::tileCount() {
  return m.mul(m.ceilDiv(sizeM, config.getBlockM()),
               m.ceilDiv(sizeN, config.getBlockN()));
}

std::pair<Value, Value> GemmKernelBuilder::tileOrigin(Value pid) {
  // Rasterize tiles in groups of `swizzle` tile rows so that blocks running
  // at the same time share rows of A and columns of B in L2.
  Value tilesM = m.ceilDiv(sizeM, config.getBlockM());
  Value tilesN = m.ceilDiv(sizeN, config.getBlockN());
  Value tileM, tileN;
  int64_t group = config.getSwizzle();
  if (group == 1) {
    tileM = m.div(pid, tilesN);
    tileN = m.rem(pid, tilesN);
  } else {
    Value perGroup = m.mul(tilesN, group);
    Value firstM = m.mul(m.div(pid, perGroup), group);
    // The last group may be short. (Signed, and at least 1 for blocks past
    // the last tile too: then the harness proves every block's tile its
    // own whatever the grid, and nothing divides by 0.)
    Value groupRows = m.maxSigned(
        m.minSigned(m.sub(tilesM, firstM), m.c(group)), m.c(1));
    // Whole groups only (static M): every group is `group` rows.
    if (!ShapedType::isDynamic(p.m) &&
        llvm::divideCeil(p.m, config.getBlockM()) % group == 0)
      groupRows = m.c(group);
    Value inGroup = m.rem(pid, perGroup);
    tileM = m.add(firstM, m.rem(inGroup, groupRows));
    tileN = m.div(inGroup, groupRows);
  }
  return {m.mul(tileM, config.getBlockM()), m.mul(tileN, config.getBlockN())};
}

Value GemmKernelBuilder::applyActivation(Value x) {
  return buildActivation(b, p.activation, x);
}

SmallVector<Value> GemmKernelBuilder::loadBias(Value col, int64_t width) {
  SmallVector<Value> values;
  if (!bias)
    return values;
  // The bias has its own (equal) size: its reads are clamped by it.
  Value biasN = operandDim(bias, 0);
  for (int64_t i = 0; i < width; ++i) {
    Value colI = m.add(col, i);
    Value v = memref::LoadOp::create(
        b, bias, ValueRange{m.select(m.lt(colI, biasN), colI, m.c(0))});
    if (p.outType != b.getF32Type())
      v = arith::ExtFOp::create(b, b.getF32Type(), v);
    values.push_back(v);
  }
  return values;
}

void GemmKernelBuilder::storePartials(Value row, Value col,
                                      ArrayRef<Value> values) {
  // Guarded by the workspace's own sizes (equal to C's), which is what
  // proves each store in bounds.
  Value rows = operandDim(partials, 2), cols = operandDim(partials, 3);
  Value rowOk = m.lt(row, rows);
  int64_t width = values.size();
  Value slot = usesSerialSplit(config) ? m.c(0) : splitIndex;
  auto store = [&](Value v, Value colI) {
    memref::StoreOp::create(b, v, partials,
                            ValueRange{batchIndex, slot, row, colI});
  };
  if (width > 1 && storesRuns(width)) {
    auto ifOp = scf::IfOp::create(b, m.andi(rowOk, m.lt(col, cols)), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    auto vecType = VectorType::get({width}, b.getF32Type());
    Value vec = vector::FromElementsOp::create(b, vecType, values);
    vector::StoreOp::create(b, vec, partials,
                            ValueRange{batchIndex, slot, row, col},
                            /*nontemporal=*/false, llvm::MaybeAlign(4 * width));
    return;
  }
  for (int64_t i = 0; i < width; ++i) {
    Value colI = m.add(col, i);
    auto ifOp = scf::IfOp::create(b, m.andi(rowOk, m.lt(colI, cols)), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    store(values[i], colI);
  }
}

SmallVector<Value> GemmKernelBuilder::loadPartialTile(Value slot, Value row,
                                                      Value col, int64_t width,
                                                      Value ok) {
  // Guarded like the stores, by the workspace's own sizes.
  Value rows = operandDim(partials, 2), cols = operandDim(partials, 3);
  ok = ok ? m.andi(ok, m.lt(row, rows)) : m.lt(row, rows);
  Type f32Type = b.getF32Type();
  auto loadIf = [&](Value cond, Type type, function_ref<Value()> load) {
    auto ifOp = scf::IfOp::create(b, type, cond, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, load());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, zero(type));
    return ifOp.getResult(0);
  };
  SmallVector<Value> values;
  if (width > 1 && runsAligned(width)) {
    auto vecType = VectorType::get({width}, f32Type);
    Value vec = loadIf(m.andi(ok, m.lt(col, cols)), vecType, [&] {
      return vector::LoadOp::create(
          b, vecType, partials, ValueRange{batchIndex, slot, row, col},
          /*nontemporal=*/false, llvm::MaybeAlign(4 * width));
    });
    for (int64_t i = 0; i < width; ++i)
      values.push_back(vector::ExtractOp::create(b, vec, i));
    return values;
  }
  for (int64_t i = 0; i < width; ++i) {
    Value colI = m.add(col, i);
    values.push_back(loadIf(m.andi(ok, m.lt(colI, cols)), f32Type, [&] {
      return memref::LoadOp::create(b, partials,
                                    ValueRange{batchIndex, slot, row, colI});
    }));
  }
  return values;
}

SmallVector<Value> GemmKernelBuilder::loadRunningSum(Value row, Value col,
                                                     int64_t width) {
  // Turn 0 starts the sum (what the workspace holds then is no earlier
  // turn's): zeros.
  Value ok = finishesTile ? Value() : m.lt(m.c(0), splitIndex);
  return loadPartialTile(m.c(0), row, col, width, ok);
}

void GemmKernelBuilder::storeWithSums(
    function_ref<void()> stores,
    function_ref<SmallVector<SmallVector<Value>>(const PendingStore &)> loads,
    bool addOwn) {
  // The stores are gathered first, then every load is issued before any
  // sum uses one: loads interleaved with their uses wait out an L2 latency
  // each.
  pending.emplace();
  stores();
  SmallVector<PendingStore> gathered = std::move(*pending);
  pending.reset();
  SmallVector<SmallVector<SmallVector<Value>>> loaded;
  for (const PendingStore &store : gathered)
    loaded.push_back(loads(store));
  for (auto [store, terms] : llvm::zip_equal(gathered, loaded)) {
    // (In order: the own value first, then the terms as loaded.)
    SmallVector<Value> sums =
        addOwn ? SmallVector<Value>(store.values) : terms.front();
    for (const SmallVector<Value> &term :
         llvm::drop_begin(terms, addOwn ? 0 : 1))
      for (auto [sum, x] : llvm::zip_equal(sums, term))
        sum = arith::AddFOp::create(b, sum, x);
    storeOutput(store.row, store.col, sums, store.biasValues);
  }
}

void GemmKernelBuilder::storeWithRunningSum(function_ref<void()> stores) {
  storeWithSums(
      stores,
      [&](const PendingStore &store) {
        return SmallVector<SmallVector<Value>>{
            loadRunningSum(store.row, store.col, store.values.size())};
      },
      /*addOwn=*/true);
}

void GemmKernelBuilder::storeWithSplitSum(function_ref<void()> stores) {
  // Every split's partial, this block's too, summed in split order
  // whichever split arrived last.
  storeWithSums(
      stores,
      [&](const PendingStore &store) {
        SmallVector<SmallVector<Value>> parts;
        for (int64_t s = 0; s < config.getSplitK(); ++s)
          parts.push_back(loadPartialTile(m.c(s), store.row, store.col,
                                          store.values.size(), Value()));
        return parts;
      },
      /*addOwn=*/false);
}

bool GemmKernelBuilder::runsAligned(int64_t width) const {
  return !ShapedType::isDynamic(p.n) && p.n % width == 0;
}

bool GemmKernelBuilder::storesRuns(int64_t width) const {
  // Runs stay aligned and inside C's rows when N is a static multiple of
  // them; C is read element by element for beta, and atomic split-K adds
  // element by element.
  if (!runsAligned(width))
    return false;
  return storesPartials() || (p.beta == 0.0 && !isAtomicSplit(config));
}

//===----------------------------------------------------------------------===//
// Serial split-K (split_reduce = serial)
//===----------------------------------------------------------------------===//
//
// The splits of a tile take turns in split order through the tile's counter
// (zeroed by the launch), the protocol the harness's global checks prove:
//
//   thread 0: wait until counter >= split; fence.gpu     (acquire)
//   barrier; split 0: partial -> workspace; 0 < s < last: partial + workspace
//   -> workspace; last: partial + workspace, epilogue -> C
//   barrier; thread 0: fence.gpu; counter += 1           (release)
//
// Each split's main loop runs at once; only the epilogues follow each other,
// in a fixed order, so the sum does not depend on scheduling.

Value GemmKernelBuilder::tileCounterIndex() {
  Value tile = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  int64_t tiles = getGemmGrid(config, 1, p.m, p.n)[0];
  return m.add(m.mul(batchIndex, tiles), tile);
}

void GemmKernelBuilder::waitForTurn() {
  counterIndex = tileCounterIndex();
  Value turn = arith::IndexCastOp::create(b, b.getI32Type(), splitIndex);
  buildWait(b, m.lt(tid, m.c(1)), counters, counterIndex, turn);
}

void GemmKernelBuilder::signalTurn() {
  buildSignal(b, m.lt(tid, m.c(1)), counters, counterIndex);
}

void GemmKernelBuilder::buildEpilogue(function_ref<void()> stores) {
  if (usesLastSplit(config))
    return buildLastSplitEpilogue(stores);
  if (!usesSerialSplit(config))
    return stores();
  waitForTurn();
  Value last = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, splitIndex,
                                     m.c(config.getSplitK() - 1));
  auto ifOp = scf::IfOp::create(b, last, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    finishesTile = true;
    storeWithRunningSum(stores);
    b.setInsertionPointToStart(ifOp.elseBlock());
    finishesTile = false;
    storeWithRunningSum(stores);
  }
  signalTurn();
}

//===----------------------------------------------------------------------===//
// Split-K summed by the last split to arrive (split_reduce = last)
//===----------------------------------------------------------------------===//
//
// No turns: every split stores its partial tile, then its tile's counter
// tells the split that arrives last, which resets the counter, sums the
// partials and finishes C (the gate the harness's global checks prove):
//
//   every split: partial -> workspace[split]
//   barrier; thread 0: fence.gpu; n = counter += 1; fence.gpu;
//   flag = n == split_k - 1 (shared); barrier
//   if (flag): thread 0: counter = 0;
//              C = epilogue(workspace[0] + ... + workspace[split_k - 1])
//
// The sum runs in split order whichever split arrives last, so it does not
// depend on scheduling; no block waits for another. The counters start at
// zero once, when the runtime allocates them (kept_zero), and every launch
// leaves them so: no launch zeroes them.

void GemmKernelBuilder::buildLastSplitEpilogue(function_ref<void()> stores) {
  stores();
  Value index = tileCounterIndex();
  Value leader = m.lt(tid, m.c(1));
  Value last = buildLastArrival(b, leader, counters, index, config.getSplitK(),
                                lastFlag, epilogueThreads);
  auto ifOp = scf::IfOp::create(b, last, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  // Every split of the tile has arrived: its counter is free for the next
  // launch.
  {
    auto reset = scf::IfOp::create(b, leader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(reset.thenBlock());
    memref::StoreOp::create(b,
                            arith::ConstantIntOp::create(b, b.getI32Type(), 0),
                            counters, ValueRange{index});
  }
  finishesTile = true;
  storeWithSplitSum(stores);
  finishesTile = false;
}

void GemmKernelBuilder::storeOutput(Value row, Value col,
                                    ArrayRef<Value> values,
                                    ArrayRef<Value> biasValues) {
  if (pending) {
    pending->push_back(
        {row, col, SmallVector<Value>(values), SmallVector<Value>(biasValues)});
    return;
  }
  if (storesPartials())
    return storePartials(row, col, values);
  bool atomic = isAtomicSplit(config);
  Type outType = p.outType;
  Type f32Type = b.getF32Type();
  int64_t width = values.size();
  auto finish = [&](Value acc, Value r, Value cIdx, int64_t i) -> Value {
    Value v = acc;
    if (p.alpha != 1.0)
      v = arith::MulFOp::create(b, v, f32(p.alpha));
    if (p.beta != 0.0) {
      Value old = memref::LoadOp::create(b, c, ValueRange{r, cIdx});
      if (outType != f32Type)
        old = arith::ExtFOp::create(b, f32Type, old);
      v = arith::AddFOp::create(b, v,
                                arith::MulFOp::create(b, old, f32(p.beta)));
    }
    if (bias)
      v = arith::AddFOp::create(b, v, biasValues[i]);
    v = applyActivation(v);
    if (outType != f32Type)
      v = arith::TruncFOp::create(b, outType, v);
    return v;
  };

  Value rowOk = m.lt(row, sizeM);
  // A whole run is stored with one vector store when C's rows keep the run
  // aligned: N a static multiple of the run, so `col` (a multiple of the run)
  // is in bounds exactly when the whole run is.
  bool vectorStore = width > 1 && storesRuns(width);
  if (vectorStore) {
    Value ok = m.andi(rowOk, m.lt(col, sizeN));
    auto ifOp = scf::IfOp::create(b, ok, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> outs;
    for (int64_t i = 0; i < width; ++i)
      outs.push_back(finish(values[i], row, m.add(col, i), i));
    auto vecType = VectorType::get({width}, outType);
    Value vec = vector::FromElementsOp::create(b, vecType, outs);
    int64_t align = width * p.outBytes();
    vector::StoreOp::create(b, vec, c, ValueRange{row, col},
                            /*nontemporal=*/false, llvm::MaybeAlign(align));
    return;
  }
  for (int64_t i = 0; i < width; ++i) {
    Value colI = m.add(col, i);
    auto ifOp = scf::IfOp::create(b, m.andi(rowOk, m.lt(colI, sizeN)), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value v = finish(values[i], row, colI, i);
    // Atomic split-K: every split adds its partial sum to C, which the
    // launch zeroes first (f32 only, no beta, bias or activation: see
    // checkGemmLowerable).
    if (atomic)
      memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addf, v, c,
                                  ValueRange{row, colI});
    else
      memref::StoreOp::create(b, v, c, ValueRange{row, colI});
  }
}

FailureOr<gpu::GPUFuncOp>
mlir::amk::synthesizeGemmKernel(gpu::GPUModuleOp module, KernelOp kernel,
                                GemmConfigAttr config, StringRef name) {
  auto matmul = cast<MatmulOp>(kernel.getProblem().getOperation());
  GemmProblem given = GemmProblem::get(matmul);
  // The arch decides which instructions exist: never emit one it lacks.
  TargetAttr target = lookupTarget(kernel);
  if (!target)
    return kernel.emitOpError("has no #amk.target to synthesize for");
  std::string whyNot;
  if (failed(checkGemmLowerable(config, given, target.getSpec(), whyNot)))
    return kernel.emitOpError("cannot synthesize ") << config << ": " << whyNot;

  // A repacked operand is taken as its K-major copy in its place.
  GemmProblem problem = getProductProblem(config, given);
  SmallVector<Type> argTypes;
  for (auto [i, operand] : llvm::enumerate(matmul.getKernelOperands()))
    argTypes.push_back(
        i < 2 && repacksOperand(config, given, i == 0)
            ? getRepackedType(given, i == 0)
            : getKernelOperandType(problem, i,
                                   cast<MemRefType>(operand.getType())));
  // The launch's order (GemmFamily): operands, tensor maps, workspace.
  if (config.getMath() == MathInst::wgmma)
    argTypes.append(2, LLVM::LLVMPointerType::get(kernel.getContext()));
  if (storesSplitPartials(config))
    argTypes.push_back(getSplitWorkspaceType(config, problem));
  if (usesSplitCounters(config))
    argTypes.push_back(getSplitCounterType(config, problem));
  gpu::GPUFuncOp func = createKernelFunc(module, kernel.getLoc(), name,
                                         argTypes, config.getThreads());
  // The last split's flag, which thread 0 shares with its block.
  if (usesLastSplit(config))
    func.addWorkgroupAttribution(
        MemRefType::get({1}, IntegerType::get(func.getContext(), 1),
                        AffineMap(),
                        gpu::AddressSpaceAttr::get(
                            func.getContext(), gpu::AddressSpace::Workgroup)),
        kernel.getLoc());
  if (config.getMath() == MathInst::wgmma)
    func->setAttr(kDynamicSmemAlignAttrName,
                  IntegerAttr::get(IntegerType::get(func.getContext(), 64),
                                   kWgmmaSmemAlignBytes));
  ImplicitLocOpBuilder b(kernel.getLoc(), func.getContext());
  GemmKernelBuilder builder(b, config, problem);
  // A persistent kernel relies on its grid (each block loops over the tiles
  // bid, bid + G, ...): the launch's, stated for the harness.
  if (int64_t blocks = getPersistentBlocks(config, problem, target.getSpec())) {
    builder.persistentBlocks = blocks;
    int64_t z = (problem.batched ? problem.batch : 1) * config.getSplitK();
    func.setKnownGridSizeAttr(
        b.getDenseI32ArrayAttr({int32_t(blocks), 1, int32_t(z)}));
  }
  if (usesSplitCounters(config)) {
    // The splits of a tile meet at its counter, which the launch zeroes,
    // over the known grid; serial: blocks wait for blocks, all resident
    // (checkGemmLowerable).
    std::array<int64_t, 3> grid = getGemmGrid(
        config, problem.batched ? problem.batch : 1, problem.m, problem.n);
    func.setKnownGridSizeAttr(b.getDenseI32ArrayAttr(
        {int32_t(grid[0]), int32_t(grid[1]), int32_t(grid[2])}));
    if (usesSerialSplit(config))
      func->setAttr("amk.cooperative", b.getUnitAttr());
    // (The last split resets its tile's counter: no launch zeroes them.)
    if (!usesLastSplit(config))
      func.setArgAttr(argTypes.size() - 1, "amk.counter", b.getUnitAttr());
  }
  builder.build(func);
  return func;
}

void GemmKernelBuilder::build(gpu::GPUFuncOp func) {
  b.setInsertionPointToStart(&func.getBody().front());
  // (The entry block's arguments past the function's are attributions.)
  SmallVector<Value> operands(
      func.getArguments().take_front(func.getFunctionType().getNumInputs()));
  if (usesLastSplit(config))
    lastFlag = func.getWorkgroupAttributions().front();
  if (config.getMath() == MathInst::wgmma) {
    // The tensor maps follow the operands, as pointers (a pre-outlined
    // gpu.func cannot take !nvgpu.tensormap.descriptor arguments:
    // docs/FACTS.md); a split's workspace (and serial turns' counters) come
    // after them.
    size_t first = operands.size() - 2 - storesSplitPartials(config) -
                   usesSplitCounters(config);
    Value pointerA = operands[first], pointerB = operands[first + 1];
    tensorMapA = castToTensorMap(pointerA, true);
    tensorMapB = castToTensorMap(pointerB, false);
    tileMapA = p.batched ? castToTensorMap(pointerA, true, true) : tensorMapA;
    tileMapB = p.batched ? castToTensorMap(pointerB, false, true) : tensorMapB;
    operands.erase(operands.begin() + first, operands.begin() + first + 2);
  }
  // Grid z enumerates batch x split_k.
  Value z = gpu::BlockIdOp::create(b, gpu::Dimension::z);
  int64_t splits = config.getSplitK();
  Value batch = splits == 1 ? z : m.div(z, splits);
  // (z < batch x split_k, so z / split_k < batch: the clamp, a no-op, says
  // so to the range analysis, which bounds z itself but not z / split_k.)
  if (splits > 1 && p.batched && !ShapedType::isDynamic(p.batch))
    batch = m.min(batch, m.c(p.batch - 1));
  Value split = splits == 1 ? m.c(0) : m.rem(z, splits);
  // The launch sizes grid z by C's batch; an operand with a dynamic batch
  // may hold fewer. Blocks past any operand's batch do nothing (this guard
  // is also what proves each batch subview in bounds).
  Value inBatch = p.batched ? getBatchGuard(b, operands, batch) : Value();
  if (inBatch) {
    auto ifOp = scf::IfOp::create(b, TypeRange{}, inBatch, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    buildBody(operands, batch, split);
  } else {
    buildBody(operands, batch, split);
  }
  gpu::ReturnOp::create(b);
}

void GemmKernelBuilder::buildBody(ArrayRef<Value> operands, Value batch,
                                  Value split) {
  setupOperands(operands, batch);
  batchIndex = p.batched ? batch : m.c(0);
  splitIndex = split;
  setupTile();
  // Split-K: split s takes k-tiles [s * per, min((s + 1) * per, all)).
  Value allTiles = m.ceilDiv(sizeK, config.getBlockK());
  if (config.getSplitK() == 1) {
    kTileBegin = m.c(0);
    kTiles = allTiles;
  } else {
    Value per = m.ceilDiv(allTiles, config.getSplitK());
    kTileBegin = m.mul(split, per);
    Value end = m.min(allTiles, m.add(kTileBegin, per));
    kTiles = m.select(m.lt(kTileBegin, end), m.sub(end, kTileBegin), m.c(0));
  }
  switch (config.getMath()) {
  case MathInst::simt:
    return buildSimt();
  case MathInst::mma_sync:
    return buildMmaSync();
  case MathInst::wgmma:
    return buildWgmma();
  }
}

//===----------------------------------------------------------------------===//
// The split-K reduction (split_reduce = workspace)
//===----------------------------------------------------------------------===//

/// One thread: `width` adjacent elements of C, each the sum over the splits
/// in split order (so the result does not depend on scheduling), then the
/// epilogue.
static void buildSplitReduceBody(GemmKernelBuilder &kb, Value workspace,
                                 Value batch) {
  ImplicitLocOpBuilder &b = kb.b;
  IndexMath &m = kb.m;
  int64_t width = getSplitReduceVector(kb.p);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value first = m.mul(m.add(m.mul(bid, kSplitReduceThreads), tid), width);
  // Rows and columns from the workspace's own sizes, which bound its reads.
  Value rows = kb.operandDim(workspace, 2), cols = kb.operandDim(workspace, 3);
  Value row = m.div(first, cols), col = m.rem(first, cols);
  // (col < cols holds by construction; the guard states it for the bounds
  // proof, which takes a remainder by a dynamic size as unbounded.)
  auto ifOp =
      scf::IfOp::create(b, m.andi(m.lt(row, rows), m.lt(col, cols)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Type f32 = b.getF32Type();
  SmallVector<Value> sums(width, kb.f32(0.0));
  for (int64_t s = 0; s < kb.config.getSplitK(); ++s) {
    SmallVector<Value, 4> at = {batch, m.c(s), row, col};
    SmallVector<Value> parts;
    if (width == 1) {
      parts.push_back(memref::LoadOp::create(b, workspace, at));
    } else {
      Value vec = vector::LoadOp::create(b, VectorType::get({width}, f32),
                                         workspace, at, /*nontemporal=*/false,
                                         llvm::MaybeAlign(4 * width));
      for (int64_t i = 0; i < width; ++i)
        parts.push_back(vector::ExtractOp::create(b, vec, i));
    }
    for (int64_t i = 0; i < width; ++i)
      sums[i] = arith::AddFOp::create(b, sums[i], parts[i]);
  }
  kb.storeOutput(row, col, sums, kb.loadBias(col, width));
}

gpu::GPUFuncOp mlir::amk::synthesizeGemmSplitReduceKernel(
    gpu::GPUModuleOp module, KernelOp kernel, GemmConfigAttr config,
    StringRef name) {
  auto matmul = cast<MatmulOp>(kernel.getProblem().getOperation());
  GemmProblem problem = GemmProblem::get(matmul);
  // (workspace, [bias], C): the matmul's operands after A and B.
  SmallVector<Type> argTypes = {getSplitWorkspaceType(config, problem)};
  for (auto [i, operand] : llvm::enumerate(matmul.getKernelOperands()))
    if (i >= 2)
      argTypes.push_back(getKernelOperandType(
          problem, i, cast<MemRefType>(operand.getType())));
  gpu::GPUFuncOp func = createKernelFunc(module, kernel.getLoc(), name,
                                         argTypes, kSplitReduceThreads);
  ImplicitLocOpBuilder b(kernel.getLoc(), func.getContext());
  b.setInsertionPointToStart(&func.getBody().front());
  GemmKernelBuilder kb(b, config, problem);
  SmallVector<Value> operands(func.getArguments());
  Value batch = problem.batched
                    ? Value(gpu::BlockIdOp::create(b, gpu::Dimension::z))
                    : kb.m.c(0);
  auto body = [&] {
    auto operand = [&](Value v) {
      return problem.batched ? selectBatch(b, v, batch) : v;
    };
    if (problem.bias)
      kb.bias = operand(operands[1]);
    kb.c = operand(operands.back());
    kb.sizeM = kb.operandDim(kb.c, 0);
    kb.sizeN = kb.operandDim(kb.c, 1);
    buildSplitReduceBody(kb, operands[0], batch);
  };
  Value inBatch = problem.batched ? getBatchGuard(b, operands, batch) : Value();
  if (inBatch) {
    auto ifOp = scf::IfOp::create(b, TypeRange{}, inBatch, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  } else {
    body();
  }
  gpu::ReturnOp::create(b);
  return func;
}
