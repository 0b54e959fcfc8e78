//===- Graph.cpp - amk.graph, amk.graph_buffer and #amk.graph_config ------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The megakernel family's problem: steps that one persistent kernel runs in
// order, wired through graph inputs, outputs and internal buffers.
//
//===----------------------------------------------------------------------===//

#include "AMK/Dialect/AMK/IR/AMKOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amk;

//===----------------------------------------------------------------------===//
// amk.graph_buffer
//===----------------------------------------------------------------------===//

LogicalResult GraphBufferOp::verify() {
  MemRefType type = getBuffer().getType();
  if (!type.getLayout().isIdentity() || type.getMemorySpace())
    return emitOpError("must be a contiguous row-major buffer in global "
                       "memory (identity layout, no memory space), got ")
           << type;
  if (llvm::any_of(type.getShape(), [](int64_t d) { return d <= 0; }))
    return emitOpError("has an empty dimension: ") << type;
  return success();
}

//===----------------------------------------------------------------------===//
// amk.decode_attention
//===----------------------------------------------------------------------===//

LogicalResult DecodeAttentionOp::verify() {
  int64_t heads = getHeads(), kvHeads = getKvHeads();
  if (heads < 1 || heads > (1 << 16) || kvHeads < 1 || heads % kvHeads)
    return emitOpError() << "heads (" << heads << ") must be in [1, 65536] "
                         << "and a multiple of kv_heads (" << kvHeads << ")";
  MemRefType q = getQ().getType(), o = getO().getType();
  struct Expected {
    StringRef name;
    MemRefType type;
    int64_t rank;
    StringRef shape;
  };
  Expected operands[] = {
      {"q", q, 2, "[M, heads * D]"},
      {"k", getK().getType(), 2, "[M, kv_heads * D]"},
      {"v", getV().getType(), 2, "[M, kv_heads * D]"},
      {"key_cache", getKeyCache().getType(), 4, "[M, L, kv_heads, D]"},
      {"value_cache", getValueCache().getType(), 4, "[M, L, kv_heads, D]"},
      {"lengths", getLengths().getType(), 1, "[M]"},
      {"o", o, 2, "[M, heads * D]"}};
  for (const Expected &e : operands) {
    if (e.type.getRank() != e.rank)
      return emitOpError() << e.name << " must be " << e.shape << ", got "
                           << e.type;
    if (!e.type.hasStaticShape() ||
        llvm::any_of(e.type.getShape(), [](int64_t d) { return d <= 0; }))
      return emitOpError() << e.name << " must have static, non-empty "
                           << "sizes, got " << e.type;
    if (!e.type.getLayout().isIdentity())
      return emitOpError() << e.name << " must be contiguous and row-major, "
                           << "got " << e.type;
  }
  int64_t m = q.getDimSize(0), width = q.getDimSize(1);
  if (width % heads)
    return emitOpError() << "q's " << width << " columns are not " << heads
                         << " heads of equal size";
  int64_t d = width / heads;
  SmallVector<int64_t> kvShape = {m, kvHeads * d};
  SmallVector<int64_t> cacheShape = {m, getCacheLength(), kvHeads, d};
  for (const Expected &e : operands) {
    ArrayRef<int64_t> want = e.rank == 4   ? ArrayRef<int64_t>(cacheShape)
                             : e.rank == 1 ? ArrayRef<int64_t>(m)
                             : e.name == "k" || e.name == "v"
                                 ? ArrayRef<int64_t>(kvShape)
                                 : q.getShape();
    if (e.type.getShape() != want)
      return emitOpError() << e.name << " must be " << e.shape << " (M = " << m
                           << ", D = " << d << "), got " << e.type;
  }
  if (!getLengths().getType().getElementType().isInteger(32))
    return emitOpError() << "lengths must be i32, got "
                         << getLengths().getType().getElementType();
  Type elem = q.getElementType();
  auto isFloat = [](Type t) { return t.isF32() || t.isF16() || t.isBF16(); };
  for (const Expected &e : ArrayRef(operands).drop_back(2))
    if (e.type.getElementType() != elem || !isFloat(elem))
      return emitOpError() << "q, k, v and the caches must share one element "
                           << "type of f32, f16 or bf16; " << e.name << " is "
                           << e.type.getElementType();
  if (!isFloat(o.getElementType()))
    return emitOpError() << "o's element type must be f32, f16 or bf16, got "
                         << o.getElementType();
  if (bool(getCos()) != bool(getSin()))
    return emitOpError("rotary takes both tables, cos and sin");
  for (Value table : {getCos(), getSin()}) {
    if (!table)
      continue;
    auto type = cast<MemRefType>(table.getType());
    StringRef name = table == getCos() ? "cos" : "sin";
    SmallVector<int64_t> want = {getCacheLength() + 1, d};
    if (type.getShape() != ArrayRef(want) || !type.getLayout().isIdentity())
      return emitOpError() << "rotary " << name << " must be [L + 1, D] = ["
                           << want[0] << ", " << d << "], contiguous, got "
                           << type;
    Type tableElem = type.getElementType();
    if (!tableElem.isF32() && tableElem != elem)
      return emitOpError() << "rotary " << name << " must be f32 or q's "
                           << elem << ", got " << tableElem;
    if (d % 2)
      return emitOpError() << "rotary rotates halves of a head: D (" << d
                           << ") must be even";
  }
  if (getAppend() && getKeyCache() == getValueCache())
    return emitOpError("appends keys and values into one buffer: "
                       "key_cache and value_cache must differ");
  double scale = getScaleValue();
  if (!std::isfinite(scale) || scale <= 0 || scale > 1e4)
    return emitOpError() << "scale must be in (0, 1e4], got " << scale;
  return success();
}

//===----------------------------------------------------------------------===//
// amk.graph
//===----------------------------------------------------------------------===//

std::optional<GraphStepOperands>
mlir::amk::getGraphStepOperands(Operation *op) {
  GraphStepOperands operands;
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    operands.reads = {mm.getA()};
    operands.parameters = {{"weights", mm.getB()}};
    if (mm.getBias())
      operands.parameters.push_back({"bias", mm.getBias()});
    operands.result = mm.getC();
    return operands;
  }
  if (auto row = dyn_cast<RowReduceOp>(op)) {
    operands.reads = {row.getX()};
    if (row.getWeight())
      operands.parameters.push_back({"weight", row.getWeight()});
    if (row.getBias())
      operands.parameters.push_back({"bias", row.getBias()});
    operands.result = row.getY();
    return operands;
  }
  if (auto attention = dyn_cast<DecodeAttentionOp>(op)) {
    operands.reads = {attention.getQ(), attention.getK(), attention.getV()};
    SmallVector<std::pair<StringRef, Value>, 2> caches = {
        {"key_cache", attention.getKeyCache()},
        {"value_cache", attention.getValueCache()}};
    if (attention.getAppend())
      operands.updates = caches;
    else
      operands.parameters = caches;
    operands.parameters.push_back({"lengths", attention.getLengths()});
    if (attention.getCos()) {
      operands.parameters.push_back({"cos", attention.getCos()});
      operands.parameters.push_back({"sin", attention.getSin()});
    }
    operands.result = attention.getO();
    return operands;
  }
  if (isa<linalg::AddOp, linalg::SubOp, linalg::MulOp, linalg::DivOp,
          linalg::MaxOp, linalg::MinOp>(op)) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    operands.reads = llvm::to_vector_of<Value, 2>(llvm::map_range(
        linalgOp.getDpsInputOperands(), [](OpOperand *o) { return o->get(); }));
    if (linalgOp.getNumDpsInits() == 1)
      operands.result = linalgOp.getDpsInitOperand(0)->get();
    return operands;
  }
  return std::nullopt;
}

SmallVector<Operation *> mlir::amk::getGraphSteps(GraphOp graph) {
  SmallVector<Operation *> steps;
  for (Operation &op : graph.getBody().front())
    if (!isa<GraphBufferOp>(op))
      steps.push_back(&op);
  return steps;
}

SmallVector<GraphBufferOp> mlir::amk::getGraphBuffers(GraphOp graph) {
  return llvm::to_vector(graph.getBody().front().getOps<GraphBufferOp>());
}

static bool isGraphElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// Every buffer of a step: static, contiguous, row-major, of a float type
/// the steps compute.
static LogicalResult verifyStepBuffers(Operation *step) {
  for (Value operand : step->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      return step->emitOpError("cannot be a graph step: steps work on "
                               "buffers (memrefs), got ")
             << operand.getType();
    if (!type.hasStaticShape())
      return step->emitOpError("cannot be a graph step: graph sizes are "
                               "static, got ")
             << type;
    if (!type.getLayout().isIdentity())
      return step->emitOpError("cannot be a graph step: its buffers must be "
                               "contiguous and row-major, got ")
             << type;
    if (!isGraphElementType(type.getElementType()))
      return step->emitOpError("cannot be a graph step: element type ")
             << type.getElementType() << " (f32, f16, bf16)";
  }
  return success();
}

/// The step's shape conditions: a decode-shaped product, a row op of an
/// activation, or an elementwise op of [M, N] activations.
static LogicalResult verifyStepShape(Operation *op) {
  // Attention's own verifier checked its buffers (its lengths are i32).
  if (isa<DecodeAttentionOp>(op))
    return success();
  if (failed(verifyStepBuffers(op)))
    return failure();
  if (auto step = dyn_cast<MatmulOp>(op)) {
    if (step.isBatched())
      return step.emitOpError("cannot be a graph step: graph steps are not "
                              "batched");
    if (!step.getTransposeB() || step.getTransposeA())
      return step.emitOpError("cannot be a graph step: a step takes A as "
                              "[M, K] and its weights as [N, K] (transpose_b, "
                              "not transpose_a)");
    if (step.getBetaValue() != 0.0)
      return step.emitOpError("cannot be a graph step: beta reads the old "
                              "output, and a graph's outputs are only "
                              "written");
    if (!step.getAccumulatorType().isF32())
      return step.emitOpError("cannot be a graph step: steps accumulate in "
                              "f32");
    return success();
  }
  if (auto row = dyn_cast<RowReduceOp>(op)) {
    if (!row.isElementwiseOutput())
      return row.emitOpError("cannot be a graph step: graph row steps are "
                             "softmax, rms_norm and layer_norm (y has x's "
                             "shape), got ")
             << stringifyRowOp(row.getKind());
    if (row.isBatched())
      return row.emitOpError("cannot be a graph step: graph steps are not "
                             "batched");
    return success();
  }
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (linalgOp.getNumDpsInputs() != 2 || linalgOp.getNumDpsInits() != 1)
    return op->emitOpError("cannot be a graph step: an elementwise step "
                           "takes two inputs and one output");
  MemRefType shape = cast<MemRefType>(op->getOperand(0).getType());
  if (shape.getRank() != 2)
    return op->emitOpError("cannot be a graph step: elementwise steps work "
                           "on [M, N] activations, got ")
           << shape;
  // linalg's own verifier gave every operand this shape (no broadcast).
  return success();
}

LogicalResult GraphOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getNumOperands())
    return emitOpError() << "body takes " << body.getNumArguments()
                         << " arguments, one per operand (" << getNumOperands()
                         << ")";
  for (auto [i, arg, operand] :
       llvm::enumerate(body.getArguments(), getOperands()))
    if (arg.getType() != operand.getType())
      return emitOpError() << "body argument #" << i << " is " << arg.getType()
                           << " but operand #" << i << " is "
                           << operand.getType();
  unsigned numInputs = getInputs().size();
  auto isInput = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body && arg.getArgNumber() < numInputs;
  };
  auto isOutput = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body && arg.getArgNumber() >= numInputs;
  };
  auto isBuffer = [](Value v) { return v.getDefiningOp<GraphBufferOp>(); };

  // The step writing each output and buffer so far, and what was read.
  llvm::DenseMap<Value, Operation *> writer;
  llvm::DenseSet<Value> read;
  unsigned steps = 0;
  for (Operation &op : body) {
    if (isa<GraphBufferOp>(op))
      continue;
    std::optional<GraphStepOperands> operands = getGraphStepOperands(&op);
    if (!operands)
      return op.emitOpError("cannot be a step of amk.graph (its steps are "
                            "amk.matmul, amk.row_reduce, "
                            "amk.decode_attention and the elementwise "
                            "linalg.add, sub, mul, div, max and min; "
                            "amk.graph_buffer declares buffers)");
    ++steps;
    if (failed(verifyStepShape(&op)))
      return failure();
    for (Value operand : op.getOperands())
      if (!isInput(operand) && !isOutput(operand) && !isBuffer(operand))
        return op.emitOpError("reads or writes a value that is neither an "
                              "argument of the graph's body nor one of its "
                              "buffers");
    for (auto [name, value] : operands->parameters)
      if (!isInput(value))
        return op.emitOpError() << "its " << name
                                << " must be a graph input (steps write "
                                   "outputs and buffers only)";
    for (auto [name, value] : operands->updates)
      if (!isOutput(value))
        return op.emitOpError() << "updates its " << name
                                << " in place, so it must be a graph output";
    for (Value a : operands->reads)
      if (!isInput(a) && !writer.count(a))
        return op.emitOpError("reads an activation before any step writes "
                              "it (steps run in order)");
    Value c = operands->result;
    if (isInput(c))
      return op.emitOpError("writes a graph input (inputs are read-only)");
    if (auto it = writer.find(c); it != writer.end()) {
      InFlightDiagnostic diag =
          op.emitOpError("writes a buffer an earlier step already wrote "
                         "(each output and buffer has one writer)");
      diag.attachNote(it->second->getLoc()) << "written first here";
      return diag;
    }
    writer[c] = &op;
    for (auto [name, value] : operands->updates) {
      if (auto it = writer.find(value); it != writer.end()) {
        InFlightDiagnostic diag = op.emitOpError()
                                  << "updates its " << name
                                  << ", which an earlier step already wrote "
                                     "(each output and buffer has one writer)";
        diag.attachNote(it->second->getLoc()) << "written first here";
        return diag;
      }
      writer[value] = &op;
    }
    read.insert(operands->reads.begin(), operands->reads.end());
  }
  if (steps == 0)
    return emitOpError("has no steps (amk.matmul, amk.row_reduce or "
                       "elementwise linalg ops in its body)");
  for (auto [i, output] :
       llvm::enumerate(body.getArguments().drop_front(numInputs)))
    if (!writer.count(output))
      return emitOpError() << "output #" << i << " is never written";
  for (GraphBufferOp buffer : getGraphBuffers(*this)) {
    if (!writer.count(buffer.getBuffer()))
      return buffer.emitOpError("is never written by a step");
    if (!read.count(buffer.getBuffer()))
      return buffer.emitOpError("is written but never read (make it an "
                                "output of the graph)");
  }
  return success();
}

StringRef GraphOp::getProblemFamily() { return "graph"; }

SmallVector<Value, 4> GraphOp::getKernelOperands() {
  return llvm::to_vector_of<Value, 4>(getOperands());
}

/// `graph_` and, per step, its product, types and epilogue; where a step's
/// A comes from (an input, step i's result) ties the wiring in.
std::string GraphOp::getProblemSignature() {
  auto typeName = [](Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t;
    return s;
  };
  llvm::DenseMap<Value, unsigned> producer;
  std::string sig = "graph";
  for (auto [i, op] : llvm::enumerate(getGraphSteps(*this))) {
    GraphStepOperands operands = *getGraphStepOperands(op);
    auto shape = cast<MemRefType>(operands.result.getType()).getShape();
    Type in = cast<MemRefType>(operands.reads[0].getType()).getElementType();
    if (auto step = dyn_cast<MatmulOp>(op))
      sig +=
          llvm::formatv("_{0}x{1}x{2}", step.getM(), step.getN(), step.getK());
    else if (auto row = dyn_cast<RowReduceOp>(op))
      sig += llvm::formatv("_{0}{1}x{2}", stringifyRowOp(row.getKind()),
                           shape[0], shape[1]);
    else if (auto attention = dyn_cast<DecodeAttentionOp>(op))
      sig += llvm::formatv(
          "_attention{0}x{1}x{2}x{3}x{4}{6}{7}_scale{5:e}", attention.getM(),
          attention.getHeads(), attention.getKvHeads(), attention.getHeadDim(),
          attention.getCacheLength(), attention.getScaleValue(),
          attention.getAppend() ? "_append" : "",
          attention.getCos() ? "_rotary" : "");
    else
      sig += llvm::formatv("_{0}{1}x{2}", op->getName().stripDialect().str(),
                           shape[0], shape[1]);
    for (Value read : operands.reads)
      if (auto it = producer.find(read); it != producer.end())
        sig += llvm::formatv("s{0}", it->second);
    sig += "_" + typeName(in);
    Type out = cast<MemRefType>(operands.result.getType()).getElementType();
    if (out != in)
      sig += typeName(out);
    if (llvm::any_of(operands.parameters,
                     [](auto &p) { return p.first == "bias"; }))
      sig += "_bias";
    if (auto step = dyn_cast<MatmulOp>(op)) {
      if (step.getActivationValue() != Activation::none)
        sig += "_" + stringifyActivation(step.getActivationValue()).str();
      if (step.getAlphaValue() != 1.0)
        sig += llvm::formatv("_a{0:e}", step.getAlphaValue()).str();
    }
    producer[operands.result] = i;
  }
  return sig;
}

//===----------------------------------------------------------------------===//
// #amk.graph_config
//===----------------------------------------------------------------------===//

LogicalResult
GraphConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t blocks, int64_t threads, int64_t rowsPerWarp,
                        int64_t unroll, MathInst math, int64_t stages,
                        bool warpStaged) {
  // Cooperative grids are bounded by residency: no GPU holds more than a
  // few thousand blocks at once.
  if (blocks < 1 || blocks > 65536)
    return emitError() << "blocks must be in [1, 65536], got " << blocks;
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    return emitError() << "threads must be whole warps, 32 to 1024, got "
                       << threads;
  if (rowsPerWarp < 1 || rowsPerWarp > 8)
    return emitError() << "rows_per_warp must be in [1, 8], got "
                       << rowsPerWarp;
  if (unroll < 1 || unroll > 16)
    return emitError() << "unroll must be in [1, 16], got " << unroll;
  if (math != MathInst::simt && math != MathInst::mma_sync)
    return emitError() << "math must be simt or mma_sync, got "
                       << stringifyMathInst(math);
  if (stages != 0 && (stages < 2 || stages > 8))
    return emitError() << "stages must be 0 (direct loads) or in [2, 8], got "
                       << stages;
  if (stages != 0 && math != MathInst::mma_sync)
    return emitError() << "stages (a TMA ring of the weights) needs math = "
                          "mma_sync";
  if (warpStaged && (math != MathInst::mma_sync || stages != 0))
    return emitError() << "warp_staged (weight rows loaded whole and "
                          "transposed by shuffles) needs math = mma_sync and "
                          "no stages";
  return success();
}

StringRef GraphConfigAttr::getProblemFamily() const { return "graph"; }

int64_t GraphConfigAttr::getThreadsPerBlock() const { return getThreads(); }

LogicalResult GraphConfigAttr::verifyForProblem(
    Operation *problem, function_ref<InFlightDiagnostic()> emitError) const {
  auto graph = dyn_cast<GraphOp>(problem);
  if (!graph)
    return emitError() << "#amk.graph_config cannot compute '"
                       << problem->getName() << "'";
  if (getMath() != MathInst::mma_sync)
    return success();
  // The tensor-core body of products: 16-row tiles of A, 16-byte loads of
  // K.
  for (Operation *op : getGraphSteps(graph)) {
    auto step = dyn_cast<MatmulOp>(op);
    if (!step)
      continue;
    Type in = step.getInputElementType();
    if (!in.isBF16() && !in.isF16())
      return emitError() << "math = mma_sync takes f16 or bf16 steps, got "
                         << in;
    if (step.getM() > 16 || step.getK() % 8)
      return emitError() << "math = mma_sync takes steps of at most 16 rows "
                            "and K a multiple of 8, got M = "
                         << step.getM() << ", K = " << step.getK();
  }
  return success();
}
