//===- GraphModel.cpp - The megakernel's problem and resources ------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Graph/GraphModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;

int64_t GraphStep::getVector() const {
  int64_t vector = 16 / inBytes();
  while (k % vector)
    vector /= 2;
  return vector;
}

GraphProblem GraphProblem::get(GraphOp op) {
  GraphProblem p;
  llvm::DenseMap<Value, unsigned> producer;
  SmallVector<GraphBufferOp> buffers = getGraphBuffers(op);
  auto operandIndex = [](Value v) {
    return cast<BlockArgument>(v).getArgNumber();
  };
  for (MatmulOp mm : getGraphSteps(op)) {
    GraphStep s;
    s.m = mm.getM();
    s.n = mm.getN();
    s.k = mm.getK();
    s.inType = mm.getInputElementType();
    s.outType = mm.getC().getType().getElementType();
    s.activation = mm.getActivationValue();
    s.alpha = mm.getAlphaValue();
    if (auto it = producer.find(mm.getA()); it != producer.end()) {
      s.a.step = it->second;
      p.steps[it->second].isRead = true;
    } else {
      s.a.input = operandIndex(mm.getA());
    }
    s.weights = operandIndex(mm.getB());
    if (mm.getBias())
      s.bias = operandIndex(mm.getBias());
    if (auto buffer = mm.getC().getDefiningOp<GraphBufferOp>())
      s.buffer = llvm::find(buffers, buffer) - buffers.begin();
    else
      s.output = operandIndex(mm.getC());
    producer[mm.getC()] = p.steps.size();
    p.steps.push_back(s);
  }
  // A rank-r descriptor: two pointers, an offset, r sizes and r strides.
  auto descriptorBytes = [](Type type) {
    return (3 + 2 * cast<MemRefType>(type).getRank()) * 8;
  };
  for (Type type : op.getOperandTypes())
    p.paramBytes += descriptorBytes(type);
  for (GraphBufferOp buffer : buffers)
    p.paramBytes += descriptorBytes(buffer.getBuffer().getType());
  p.paramBytes += (3 + 2) * 8; // the counters
  return p;
}

FailureOr<GraphProblem> GraphProblem::fromJSON(MLIRContext *context,
                                               const llvm::json::Object &json) {
  const llvm::json::Array *steps = json.getArray("steps");
  if (!steps || steps->empty() || steps->size() > 256)
    return failure();
  GraphProblem p;
  for (const llvm::json::Value &value : *steps) {
    const llvm::json::Object *o = value.getAsObject();
    if (!o)
      return failure();
    GraphStep s;
    bool ok = true;
    for (auto [key, out] : {std::pair<StringRef, int64_t *>{"m", &s.m},
                            {"n", &s.n},
                            {"k", &s.k}}) {
      std::optional<int64_t> v = o->getInteger(key);
      ok &= v && *v >= 1 && *v <= (int64_t(1) << 40);
      *out = v.value_or(1);
    }
    std::optional<StringRef> in = o->getString("in_type"),
                             out = o->getString("out_type");
    // Graph steps compute in f16, bf16 or f32.
    for (auto [name, type] :
         {std::pair(in, &s.inType), std::pair(out, &s.outType)}) {
      Type t = name ? parseFloatTypeName(context, *name) : Type();
      *type = t && !t.isF64() ? t : Type();
    }
    s.alpha = o->getNumber("alpha").value_or(1.0);
    std::optional<StringRef> act = o->getString("activation");
    std::optional<Activation> activation =
        act ? symbolizeActivation(*act) : Activation::none;
    // Operand and buffer indices (a graph has far fewer than 2^16).
    auto readIndex = [&](StringRef key) -> std::optional<unsigned> {
      std::optional<int64_t> v = o->getInteger(key);
      if (!v)
        return std::nullopt;
      if (*v < 0 || *v >= (1 << 16)) {
        ok = false;
        return std::nullopt;
      }
      return unsigned(*v);
    };
    std::optional<unsigned> aStep = readIndex("a_step");
    s.a.input = readIndex("a_input");
    if (aStep && *aStep < p.steps.size()) {
      s.a.step = aStep;
      p.steps[*aStep].isRead = true;
    }
    std::optional<unsigned> weights = readIndex("weights");
    s.weights = weights.value_or(0);
    s.bias = readIndex("bias");
    s.output = readIndex("c_output");
    s.buffer = readIndex("c_buffer");
    ok &= weights && (s.a.input.has_value() != s.a.step.has_value()) &&
          (s.output.has_value() != s.buffer.has_value());
    if (!ok || !s.inType || !s.outType || !activation)
      return failure();
    s.activation = *activation;
    p.steps.push_back(s);
  }
  return p;
}

llvm::json::Object GraphProblem::toJSON() const {
  llvm::json::Array steps;
  for (const GraphStep &s : this->steps) {
    llvm::json::Object o{{"m", s.m},
                         {"n", s.n},
                         {"k", s.k},
                         {"in_type", getTypeName(s.inType)},
                         {"out_type", getTypeName(s.outType)},
                         {"activation", stringifyActivation(s.activation)},
                         {"alpha", s.alpha},
                         {"weights", int64_t(s.weights)}};
    auto put = [&](StringRef key, std::optional<unsigned> v) {
      if (v)
        o[key] = int64_t(*v);
    };
    put("a_input", s.a.input);
    put("a_step", s.a.step);
    put("bias", s.bias);
    put("c_output", s.output);
    put("c_buffer", s.buffer);
    steps.push_back(std::move(o));
  }
  return llvm::json::Object{{"steps", std::move(steps)}};
}

int64_t GraphProblem::getMaxRows() const {
  int64_t rows = 0;
  for (const GraphStep &s : steps)
    rows = std::max(rows, s.m);
  return rows;
}

double GraphProblem::getBytes() const {
  double bytes = 0;
  for (const GraphStep &s : steps)
    bytes += double(s.n) * s.k * s.inBytes() + double(s.m) * s.k * s.inBytes() +
             double(s.m) * s.n * s.outBytes() +
             (s.bias ? double(s.n) * s.outBytes() : 0.0);
  return bytes;
}

int64_t mlir::amk::getGraphRegisters(GraphConfigAttr config,
                                     const GraphProblem &problem) {
  int64_t m = problem.getMaxRows(), rows = config.getRowsPerWarp();
  int64_t unroll = config.getUnroll();
  // mma: 4 accumulators per tile, the weights' 16-byte loads in flight and
  // A's (one or two per chunk). simt: M x rows accumulators, the weights'
  // loads in flight, one load of A per row of M at a time. Both: the
  // addressing and the epilogue (ptxas spilled a few bytes at 8 fewer).
  if (config.getMath() == MathInst::mma_sync)
    return 56 + 4 * rows + 4 * unroll * rows + (m > 8 ? 8 : 4) * unroll;
  return 48 + m * rows + 4 * unroll * rows + 4 * m;
}

int64_t mlir::amk::getGraphKSplit(GraphConfigAttr config,
                                  const GraphStep &step) {
  if (config.getMath() != MathInst::mma_sync)
    return 1;
  int64_t warps = config.getWarps(), tilesPerWarp = config.getRowsPerWarp();
  int64_t perBlock =
      llvm::divideCeil(llvm::divideCeil(step.n, 8), config.getBlocks());
  int64_t split = 1;
  while (split * 2 <= warps && warps % (split * 2) == 0 &&
         warps / (split * 2) * tilesPerWarp >= perBlock &&
         step.k / 32 >= split * 2)
    split *= 2;
  return split;
}

int64_t mlir::amk::getGraphSmemBytes(GraphConfigAttr config,
                                     const GraphProblem &problem) {
  for (const GraphStep &s : problem.steps)
    if (getGraphKSplit(config, s) > 1)
      return config.getThreads() * 4 * config.getRowsPerWarp() * 4;
  return 0;
}

KernelResources mlir::amk::getGraphResources(GraphConfigAttr config,
                                             const GraphProblem &problem,
                                             const TargetSpec &target) {
  KernelResources r;
  r.threadsPerBlock = config.getThreads();
  r.block = {config.getThreads(), 1, 1};
  r.regsPerThread = getGraphRegisters(config, problem);
  r.regsPerThreadReported = std::min<int64_t>(r.regsPerThread, 255);
  r.dynamicSmemBytes = getGraphSmemBytes(config, problem);
  computeOccupancy(r, target);
  r.grid = {config.getBlocks(), 1, 1};
  return r;
}

LogicalResult mlir::amk::checkGraphLowerable(GraphConfigAttr config,
                                             const GraphProblem &problem,
                                             const TargetSpec &target,
                                             std::string &whyNot) {
  if (problem.paramBytes > kMaxKernelParamBytes) {
    whyNot = llvm::formatv("the kernel would take {0} bytes of parameters "
                           "(a memref descriptor per operand and buffer), "
                           "more than the {1} a kernel takes: split the "
                           "graph",
                           problem.paramBytes, kMaxKernelParamBytes);
    return failure();
  }
  int64_t m = problem.getMaxRows();
  if (m > kMaxGraphRows) {
    whyNot = llvm::formatv("a step has M = {0}: graph steps are decode "
                           "products of at most {1} rows (plan larger "
                           "products as their own kernels)",
                           m, kMaxGraphRows);
    return failure();
  }
  if (config.getMath() == MathInst::mma_sync)
    for (const GraphStep &s : problem.steps)
      if ((!s.inType.isBF16() && !s.inType.isF16()) || s.m > 16 || s.k % 8) {
        whyNot = llvm::formatv("math = mma_sync takes f16 or bf16 steps of "
                               "at most 16 rows and K a multiple of 8 (a "
                               "step is {0}x{1}x{2})",
                               s.m, s.n, s.k);
        return failure();
      }
  KernelResources r = getGraphResources(config, problem, target);
  int64_t resident = r.blocksPerSM * target.sm_count;
  if (config.getBlocks() > resident) {
    whyNot = llvm::formatv("{0} blocks must all be resident at once (the "
                           "blocks wait for each other), but {1} holds {2} "
                           "({3} per SM, limited by {4})",
                           config.getBlocks(), target.name, resident,
                           r.blocksPerSM, r.getOccupancyLimiter());
    return failure();
  }
  return success();
}
