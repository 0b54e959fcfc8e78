//===- GraphSynthesis.cpp - The megakernel synthesizer --------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// One persistent kernel runs the graph's steps in order. In a step, block b
// owns the output columns n = b + blocks * s (s = 0, 1, ...); each warp
// takes rows_per_warp of them at a time and streams those weight rows with
// 16-byte loads, `unroll` per row in flight per lane, folding in A (a few
// rows, from L1) with f32 FMAs; xor shuffles sum the lanes and lane 0
// writes the epilogue. Every access is in bounds by construction: loop
// bounds bound the columns of K, rows past N are clamped for loads and
// guarded for stores.
//
// Dependencies between steps are counters in global memory (a workspace
// the launch zeroes, one per step): when a block has written its part of a
// step that a later step reads, it releases it (a barrier, a gpu-scope
// fence, an atomic add of 1 by thread 0); a step reading it first acquires
// (thread 0 polls with atomic reads until all blocks signalled, fences,
// then a barrier). Every block is resident (the launch is cooperative and
// the plan checked residency), so no block waits on one that cannot run.
// This is the protocol the harness's AMK-GLOBAL-SYNC check proves.
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Graph/GraphModel.h"
#include "AMK/Family/KernelBuilding.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  /// Runs `body` in an scf.if on `cond` (no results).
  void ifThen(Value cond, llvm::function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  }

  /// `vector` elements of `memref` at [row, col], as f32.
  SmallVector<Value> loadRun(Value memref, Value row, Value col,
                             int64_t vector);
  /// Folds one run of each weight row against A's rows at column `col`
  /// (run index `run`) into `acc` (row-major [rows][M]).
  void foldRuns(const GraphStep &s, Value a, Value w, ArrayRef<Value> rows,
                ArrayRef<Value> runs, SmallVectorImpl<Value> &acc);
  void buildStep(unsigned index, MatmulOp step);
  /// The release of step `index` (after its writes) and the acquire of it
  /// (before a read of them).
  void signal(unsigned index);
  void waitFor(unsigned index);

  ImplicitLocOpBuilder &b;
  GraphConfigAttr config;
  GraphOp graph;
  const GraphProblem &p;
  /// The kernel's value of each graph value (body arguments, buffers).
  IRMapping kernelValue;
  Value tid, lane, warp, bid, first, counters;
};

} // namespace

SmallVector<Value> GraphKernelBuilder::loadRun(Value memref, Value row,
                                               Value col, int64_t vector) {
  Type elem = cast<MemRefType>(memref.getType()).getElementType();
  auto toF32 = [&](Value v) -> Value {
    return elem.isF32() ? v : arith::ExtFOp::create(b, b.getF32Type(), v);
  };
  SmallVector<Value> values;
  if (vector == 1) {
    values.push_back(
        toF32(memref::LoadOp::create(b, memref, ValueRange{row, col})));
    return values;
  }
  int64_t align = vector * elem.getIntOrFloatBitWidth() / 8;
  Value run = vector::LoadOp::create(b, VectorType::get({vector}, elem),
                                     memref, ValueRange{row, col},
                                     /*nontemporal=*/false,
                                     llvm::MaybeAlign(align));
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
  Value a = kernelValue.lookup(step.getA());
  Value w = kernelValue.lookup(step.getB());
  Value out = kernelValue.lookup(step.getC());
  Value bias = step.getBias() ? kernelValue.lookup(step.getBias()) : Value();
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
  Value slot = add(mul(loop.getInductionVar(), c(slots)),
                   mul(warp, c(rowsPerWarp)));
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
    foldLoop(c(0), c(mainChunks), 1, config.getUnroll(),
             [&](Value chunkIndex) {
               return add(mul(chunkIndex, c(chunk)), lane);
             });
  if (runs % chunk)
    foldLoop(add(lane, c(mainChunks * chunk)), c(runs), 32, 1,
             [](Value run) { return run; });

  // Sum over the warp's lanes; every lane ends with the totals.
  for (Value &sum : acc)
    for (int64_t offset = 16; offset >= 1; offset /= 2)
      sum = gpu::ShuffleOp::create(b, sum, i32(offset), i32(32),
                                   gpu::ShuffleMode::XOR)
                .getShuffleResult();
  Value lane0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, c(0));
  for (int64_t r = 0; r < rowsPerWarp; ++r) {
    Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                         columns[r], c(s.n));
    ifThen(inside, [&] {
      ifThen(lane0, [&] {
        Value biasValue;
        if (bias) {
          biasValue = memref::LoadOp::create(b, bias, ValueRange{columns[r]});
          if (!s.outType.isF32())
            biasValue = arith::ExtFOp::create(b, b.getF32Type(), biasValue);
        }
        for (int64_t m = 0; m < s.m; ++m) {
          Value v = acc[r * s.m + m];
          if (s.alpha != 1.0)
            v = arith::MulFOp::create(b, v, f32(s.alpha));
          if (biasValue)
            v = arith::AddFOp::create(b, v, biasValue);
          v = buildActivation(b, s.activation, v);
          if (!s.outType.isF32())
            v = arith::TruncFOp::create(b, s.outType, v);
          memref::StoreOp::create(b, v, out, ValueRange{c(m), columns[r]});
        }
      });
    });
  }
}

void GraphKernelBuilder::signal(unsigned index) {
  gpu::BarrierOp::create(b);
  ifThen(first, [&] {
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
    memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi, i32(1),
                                counters, ValueRange{c(index)});
  });
}

void GraphKernelBuilder::waitFor(unsigned index) {
  ifThen(first, [&] {
    auto spin = scf::WhileOp::create(b, TypeRange{}, ValueRange{});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&spin.getBefore().emplaceBlock());
      Value seen = memref::AtomicRMWOp::create(
          b, arith::AtomicRMWKind::addi, i32(0), counters, ValueRange{c(index)});
      Value waiting = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, seen,
                                            i32(config.getBlocks()));
      scf::ConditionOp::create(b, waiting, ValueRange{});
      b.setInsertionPointToStart(&spin.getAfter().emplaceBlock());
      scf::YieldOp::create(b);
    }
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
  });
  gpu::BarrierOp::create(b);
}

void GraphKernelBuilder::build(gpu::GPUFuncOp func) {
  b.setInsertionPointToStart(&func.front());
  Block &body = graph.getBody().front();
  for (BlockArgument arg : body.getArguments())
    kernelValue.map(arg, func.getArgument(arg.getArgNumber()));
  unsigned next = body.getNumArguments();
  for (GraphBufferOp buffer : getGraphBuffers(graph))
    kernelValue.map(buffer.getBuffer(), func.getArgument(next++));
  counters = func.getArgument(next);

  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  lane = arith::RemUIOp::create(b, tid, c(32));
  warp = arith::DivUIOp::create(b, tid, c(32));
  first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, c(0));
  // A step waits once per step it reads from (only A comes from steps).
  for (auto [index, step] : llvm::enumerate(getGraphSteps(graph))) {
    if (std::optional<unsigned> producer = p.steps[index].a.step)
      waitFor(*producer);
    buildStep(index, step);
    if (p.steps[index].isRead)
      signal(index);
  }
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
  argTypes.push_back(MemRefType::get({int64_t(p.steps.size())},
                                     IntegerType::get(context, 32)));
  gpu::GPUFuncOp func = createKernelFunc(module, kernel.getLoc(), name,
                                         argTypes, config.getThreads());
  OpBuilder attrs(context);
  func.setKnownGridSizeAttr(attrs.getDenseI32ArrayAttr(
      {static_cast<int32_t>(config.getBlocks()), 1, 1}));
  func->setAttr("amk.cooperative", attrs.getUnitAttr());
  func.setArgAttr(argTypes.size() - 1, "amk.counter", attrs.getUnitAttr());
  ImplicitLocOpBuilder b(kernel.getLoc(), context);
  GraphKernelBuilder(b, config, graph, p).build(func);
  return func;
}
