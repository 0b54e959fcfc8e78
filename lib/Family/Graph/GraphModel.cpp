//===- GraphModel.cpp - The megakernel's problem and resources ------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Graph/GraphModel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amk;

int64_t GraphStep::getVector() const {
  bool byDepth =
      kind == GraphStepKind::matmul || kind == GraphStepKind::attention;
  int64_t length = byDepth ? k : n;
  int64_t widest = std::max(inBytes(), outBytes());
  int64_t vector = 16 / (byDepth ? inBytes() : widest);
  while (length % vector)
    vector /= 2;
  return vector;
}

static std::optional<ElementwiseOp> getElementwiseOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<ElementwiseOp>>(op)
      .Case([](linalg::AddOp) { return ElementwiseOp::add; })
      .Case([](linalg::SubOp) { return ElementwiseOp::sub; })
      .Case([](linalg::MulOp) { return ElementwiseOp::mul; })
      .Case([](linalg::DivOp) { return ElementwiseOp::div; })
      .Case([](linalg::MaxOp) { return ElementwiseOp::max; })
      .Case([](linalg::MinOp) { return ElementwiseOp::min; })
      .Default([](Operation *) { return std::nullopt; });
}

static constexpr std::pair<ElementwiseOp, StringLiteral> kElementwiseNames[] = {
    {ElementwiseOp::add, "add"}, {ElementwiseOp::sub, "sub"},
    {ElementwiseOp::mul, "mul"}, {ElementwiseOp::div, "div"},
    {ElementwiseOp::max, "max"}, {ElementwiseOp::min, "min"}};

StringRef mlir::amk::stringifyElementwiseOp(ElementwiseOp op) {
  for (auto [value, name] : kElementwiseNames)
    if (value == op)
      return name;
  llvm_unreachable("an elementwise op without a name");
}

static std::optional<ElementwiseOp> symbolizeElementwiseOp(StringRef name) {
  for (auto [value, spelling] : kElementwiseNames)
    if (spelling == name)
      return value;
  return std::nullopt;
}

GraphProblem GraphProblem::get(GraphOp op) {
  GraphProblem p;
  llvm::DenseMap<Value, unsigned> producer;
  SmallVector<GraphBufferOp> buffers = getGraphBuffers(op);
  auto operandIndex = [](Value v) {
    return cast<BlockArgument>(v).getArgNumber();
  };
  auto sourceOf = [&](Value v) {
    GraphSource source;
    if (auto it = producer.find(v); it != producer.end())
      source.step = it->second;
    else
      source.input = operandIndex(v);
    return source;
  };
  auto elementType = [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  };
  for (Operation *step : getGraphSteps(op)) {
    GraphStepOperands operands = *getGraphStepOperands(step);
    GraphStep s;
    auto shape = cast<MemRefType>(operands.result.getType()).getShape();
    s.m = shape[0];
    s.n = shape[1];
    s.inType = elementType(operands.reads[0]);
    s.outType = elementType(operands.result);
    s.a = sourceOf(operands.reads[0]);
    if (auto mm = dyn_cast<MatmulOp>(step)) {
      s.k = mm.getK();
      s.activation = mm.getActivationValue();
      s.alpha = mm.getAlphaValue();
    } else if (auto row = dyn_cast<RowReduceOp>(step)) {
      s.kind = GraphStepKind::row;
      s.rowOp = row.getKind();
      s.eps = row.getEpsValue();
    } else if (auto attention = dyn_cast<DecodeAttentionOp>(step)) {
      s.kind = GraphStepKind::attention;
      s.k = attention.getHeadDim();
      s.alpha = attention.getScaleValue();
      s.heads = attention.getHeads();
      s.kvHeads = attention.getKvHeads();
      s.cacheLength = attention.getCacheLength();
      s.b = sourceOf(operands.reads[1]);
      s.v = sourceOf(operands.reads[2]);
      s.bType = s.inType;
      s.append = attention.getAppend();
    } else {
      s.kind = GraphStepKind::elementwise;
      s.binary = *getElementwiseOp(step);
      s.b = sourceOf(operands.reads[1]);
      s.bType = elementType(operands.reads[1]);
    }
    SmallVector<std::pair<StringRef, Value>> named(operands.parameters);
    llvm::append_range(named, operands.updates);
    for (auto [name, value] : named)
      (name == "bias"          ? s.bias
       : name == "key_cache"   ? s.keyCache
       : name == "value_cache" ? s.valueCache
       : name == "lengths"     ? s.lengths
       : name == "cos"         ? s.cos
       : name == "sin"         ? s.sin
                               : s.weights) = operandIndex(value);
    if (auto buffer = operands.result.getDefiningOp<GraphBufferOp>())
      s.buffer = llvm::find(buffers, buffer) - buffers.begin();
    else
      s.output = operandIndex(operands.result);
    producer[operands.result] = p.steps.size();
    p.steps.push_back(s);
  }
  p.connect();
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

void GraphProblem::connect() {
  // The latest counter this program order has waited on: a wait covers
  // every step up to it (each block signals after all its earlier writes).
  std::optional<unsigned> acquired;
  for (GraphStep &s : steps) {
    s.waitsOn.reset();
    s.barrierBefore = s.signals = false;
  }
  for (GraphStep &s : steps) {
    bool ownBlock = false;
    std::optional<unsigned> needs;
    for (const GraphSource *source : {&s.a, &s.b, &s.v}) {
      if (!source->step)
        continue;
      // An elementwise step reads a column-owning step's result where its
      // own block wrote it; everything else needs every block's part.
      if (s.kind == GraphStepKind::elementwise &&
          steps[*source->step].ownsColumns())
        ownBlock = true;
      else
        needs = std::max(needs.value_or(0), *source->step);
    }
    if (needs && (!acquired || *needs > *acquired)) {
      s.waitsOn = acquired = needs;
      steps[*needs].signals = true;
    }
    // A wait ends in a barrier, which orders the block's own writes too.
    s.barrierBefore = ownBlock && !s.waitsOn;
  }
  // An appending attention writes its caches once every block has read
  // them: after a later step's wait that covers it, or its own.
  for (unsigned i = 0; i < steps.size(); ++i) {
    GraphStep &s = steps[i];
    if (!s.append)
      continue;
    s.appendWaits = llvm::none_of(
        llvm::drop_begin(steps, i + 1),
        [&](const GraphStep &later) { return later.waitsOn >= i; });
    s.signals |= s.appendWaits;
  }
}

/// A step's "op": "matmul", "attention", a row op or an elementwise op.
static bool parseStepOp(StringRef name, GraphStep &s) {
  if (name == "matmul")
    return true;
  if (name == "attention") {
    s.kind = GraphStepKind::attention;
    return true;
  }
  if (std::optional<RowOp> row = symbolizeRowOp(name)) {
    s.kind = GraphStepKind::row;
    s.rowOp = *row;
    return *row == RowOp::softmax || *row == RowOp::rms_norm ||
           *row == RowOp::layer_norm;
  }
  if (std::optional<ElementwiseOp> binary = symbolizeElementwiseOp(name)) {
    s.kind = GraphStepKind::elementwise;
    s.binary = *binary;
    return true;
  }
  return false;
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
    bool ok = parseStepOp(o->getString("op").value_or("matmul"), s);
    bool matmul = s.kind == GraphStepKind::matmul;
    bool attention = s.kind == GraphStepKind::attention;
    for (auto [key, out] : {std::pair<StringRef, int64_t *>{"m", &s.m},
                            {"n", &s.n},
                            {"k", &s.k},
                            {"heads", &s.heads},
                            {"kv_heads", &s.kvHeads},
                            {"cache_length", &s.cacheLength}}) {
      std::optional<int64_t> v = o->getInteger(key);
      bool wanted =
          key == "m" || key == "n" || (key == "k" && matmul) || attention;
      if (!wanted) {
        ok &= !v;
        continue;
      }
      ok &= v && *v >= 1 && *v <= (int64_t(1) << 40);
      *out = v.value_or(1);
    }
    // Attention: n is heads of k elements, shared by groups of heads.
    if (attention)
      ok &= s.heads <= (1 << 16) && s.heads % s.kvHeads == 0 &&
            s.n == s.heads * s.k;
    // Graph steps compute in f16, bf16 or f32.
    auto typeOf = [&](StringRef key) {
      std::optional<StringRef> name = o->getString(key);
      Type t = name ? parseFloatTypeName(context, *name) : Type();
      return t && !t.isF64() ? t : Type();
    };
    s.inType = typeOf("in_type");
    s.outType = typeOf("out_type");
    s.alpha = o->getNumber("alpha").value_or(1.0);
    s.eps = o->getNumber("eps").value_or(1e-5);
    ok &= s.eps > 0 && s.eps <= 1;
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
    // A source: an input, or an earlier step.
    auto readSource = [&](StringRef prefix) {
      GraphSource source;
      source.input = readIndex((prefix + "_input").str());
      source.step = readIndex((prefix + "_step").str());
      ok &= source.input.has_value() != source.step.has_value() &&
            (!source.step || *source.step < p.steps.size());
      return source;
    };
    s.a = readSource("a");
    if (s.kind == GraphStepKind::elementwise) {
      s.b = readSource("b");
      s.bType = typeOf("b_type");
      ok &= bool(s.bType);
    }
    if (attention) {
      s.b = readSource("b");
      s.v = readSource("v");
      s.bType = s.inType;
      s.alpha = o->getNumber("scale").value_or(0.0);
      ok &= std::isfinite(s.alpha) && s.alpha > 0 && s.alpha <= 1e4;
      s.keyCache = readIndex("key_cache");
      s.valueCache = readIndex("value_cache");
      s.lengths = readIndex("lengths");
      s.append = o->getBoolean("append").value_or(false);
      s.cos = readIndex("cos");
      s.sin = readIndex("sin");
      ok &= s.keyCache && s.valueCache && s.lengths &&
            (!s.append || *s.keyCache != *s.valueCache) &&
            s.cos.has_value() == s.sin.has_value() && (!s.cos || s.k % 2 == 0);
    }
    s.weights = readIndex("weights");
    s.bias = readIndex("bias");
    s.output = readIndex("c_output");
    s.buffer = readIndex("c_buffer");
    ok &=
        (!matmul || s.weights) && s.output.has_value() != s.buffer.has_value();
    if (!ok || !s.inType || !s.outType || !activation)
      return failure();
    s.activation = *activation;
    p.steps.push_back(s);
  }
  p.connect();
  return p;
}

llvm::json::Object GraphProblem::toJSON() const {
  llvm::json::Array steps;
  for (const GraphStep &s : this->steps) {
    llvm::json::Object o{{"m", s.m},
                         {"n", s.n},
                         {"in_type", getTypeName(s.inType)},
                         {"out_type", getTypeName(s.outType)}};
    // (An owned key: a json::ObjectKey made from a StringRef borrows it.)
    auto put = [&](std::string key, std::optional<unsigned> v) {
      if (v)
        o[std::move(key)] = int64_t(*v);
    };
    // A source: `<prefix>_input` or `<prefix>_step` (readSource's keys).
    auto putSource = [&](StringRef prefix, const GraphSource &from) {
      put(prefix.str() + "_input", from.input);
      put(prefix.str() + "_step", from.step);
    };
    switch (s.kind) {
    case GraphStepKind::matmul:
      o["op"] = "matmul";
      o["k"] = s.k;
      o["activation"] = stringifyActivation(s.activation);
      o["alpha"] = s.alpha;
      break;
    case GraphStepKind::row:
      o["op"] = stringifyRowOp(s.rowOp);
      o["eps"] = s.eps;
      break;
    case GraphStepKind::elementwise:
      o["op"] = stringifyElementwiseOp(s.binary);
      o["b_type"] = getTypeName(s.bType);
      putSource("b", s.b);
      break;
    case GraphStepKind::attention:
      o["op"] = "attention";
      o["k"] = s.k;
      o["heads"] = s.heads;
      o["kv_heads"] = s.kvHeads;
      o["cache_length"] = s.cacheLength;
      o["scale"] = s.alpha;
      putSource("b", s.b);
      putSource("v", s.v);
      put("key_cache", s.keyCache);
      put("value_cache", s.valueCache);
      put("lengths", s.lengths);
      put("cos", s.cos);
      put("sin", s.sin);
      if (s.append)
        o["append"] = true;
      break;
    }
    putSource("a", s.a);
    put("weights", s.weights);
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
    if (s.kind == GraphStepKind::matmul)
      rows = std::max(rows, s.m);
  return rows;
}

double GraphProblem::getBytes() const {
  double bytes = 0;
  for (const GraphStep &s : steps) {
    double out = double(s.m) * s.n * s.outBytes();
    double perColumn = (s.weights ? 1 : 0) + (s.bias ? 1 : 0);
    switch (s.kind) {
    case GraphStepKind::matmul:
      bytes += double(s.n) * s.k * s.inBytes() +
               double(s.m) * s.k * s.inBytes() + out +
               (s.bias ? double(s.n) * s.outBytes() : 0.0);
      break;
    case GraphStepKind::row:
      bytes += double(s.m) * s.n * s.inBytes() + out +
               perColumn * s.n * s.outBytes();
      break;
    case GraphStepKind::elementwise:
      bytes += double(s.m) * s.n *
                   (s.inBytes() + s.bType.getIntOrFloatBitWidth() / 8) +
               out;
      break;
    case GraphStepKind::attention:
      // The caches at their capacity (the lengths are known at run time),
      // the queries, the new keys and values.
      bytes += double(s.m) * s.kvHeads * s.k * s.inBytes() *
                   (2.0 * s.cacheLength + 2) +
               double(s.m) * s.n * s.inBytes() + out;
      break;
    }
  }
  return bytes;
}

int64_t mlir::amk::getGraphAttentionRegisters(const GraphStep &step,
                                              int64_t unitHeads) {
  // Per head of the unit a query run and a state (the output run, maximum
  // and sum), then each position's key and value runs in flight (a word
  // per two 16-bit elements); ptxas spilled at 48 more.
  int64_t vector = step.getVector();
  return 56 + unitHeads * (2 * vector + 2) +
         kGraphAttentionUnroll * 2 * vector * step.inBytes() / 4;
}

int64_t mlir::amk::getGraphAttentionRound(GraphConfigAttr config,
                                          const GraphStep &step) {
  return config.getWarps() * std::max<int64_t>(1, step.getAttentionSlots()) *
         kGraphAttentionUnroll;
}

/// The parts of each unit's positions when a unit is `unitHeads` heads:
/// as many as leave a task for every block, each at least a round of the
/// block's positions.
static int64_t getSplits(GraphConfigAttr config, const GraphStep &step,
                         int64_t unitHeads) {
  int64_t units = step.m * (step.heads / unitHeads);
  int64_t perRound = getGraphAttentionRound(config, step);
  int64_t rounds = llvm::divideCeil(step.cacheLength, perRound);
  return std::max<int64_t>(1, std::min(config.getBlocks() / units, rounds));
}

int64_t mlir::amk::getGraphAttentionUnitHeads(GraphConfigAttr config,
                                              const GraphStep &step) {
  // A block's rounds of positions: its tasks one after another, each a
  // round trip per round of its warps' positions.
  int64_t perRound = getGraphAttentionRound(config, step);
  auto rounds = [&](int64_t h) {
    int64_t splits = getSplits(config, step, h);
    int64_t tasks = step.m * (step.heads / h) * splits;
    return llvm::divideCeil(tasks, config.getBlocks()) *
           llvm::divideCeil(llvm::divideCeil(step.cacheLength, splits),
                            perRound);
  };
  int64_t group = step.heads / step.kvHeads, best = 1;
  for (int64_t h = 2; h <= std::min(group, kMaxGraphAttentionUnitHeads); ++h)
    if (group % h == 0 &&
        getGraphAttentionRegisters(step, h) <= kMaxGraphAttentionRegisters &&
        rounds(h) <= rounds(best))
      best = h;
  return best;
}

int64_t mlir::amk::getGraphAttentionSplits(GraphConfigAttr config,
                                           const GraphStep &step) {
  return getSplits(config, step, getGraphAttentionUnitHeads(config, step));
}

int64_t mlir::amk::getGraphAttentionPartials(GraphConfigAttr config,
                                             const GraphStep &step) {
  return step.m * step.heads * getGraphAttentionSplits(config, step) *
         (step.k + 2);
}

int64_t mlir::amk::getGraphCounters(GraphConfigAttr config,
                                    const GraphProblem &problem) {
  int64_t counters = problem.steps.size();
  for (const GraphStep &s : problem.steps)
    if (s.kind == GraphStepKind::attention &&
        getGraphAttentionSplits(config, s) > 1)
      ++counters;
  return counters;
}

int64_t mlir::amk::getGraphAttentionFloats(GraphConfigAttr config,
                                           const GraphStep &step) {
  return config.getWarps() * getGraphAttentionUnitHeads(config, step) *
         (step.k + 2);
}

RowConfigAttr mlir::amk::getGraphRowConfig(GraphConfigAttr config,
                                           const GraphStep &step) {
  // Two statistics passes where they mean something (the second reads
  // the row again from L1 or L2; decode rows are short).
  int64_t passes =
      step.rowOp == RowOp::softmax || step.rowOp == RowOp::layer_norm ? 2 : 1;
  return RowConfigAttr::get(config.getContext(), config.getThreads(),
                            /*rowsPerBlock=*/1, step.getVector(), passes,
                            /*cachedRuns=*/0, RowCache::registers,
                            /*cluster=*/1);
}

RowProblem mlir::amk::getGraphRowProblem(const GraphStep &step) {
  RowProblem p;
  p.kind = step.rowOp;
  p.m = step.m;
  p.n = step.n;
  p.inType = step.inType;
  p.outType = step.outType;
  p.weight = step.weights.has_value();
  p.bias = step.bias.has_value();
  p.eps = step.eps;
  return p;
}

int64_t mlir::amk::getGraphRegisters(GraphConfigAttr config,
                                     const GraphProblem &problem) {
  int64_t m = problem.getMaxRows(), rows = config.getRowsPerWarp();
  int64_t unroll = config.getUnroll();
  // mma: 4 accumulators per tile, the weights' 16-byte loads in flight and
  // A's (one or two per chunk). simt: M x rows accumulators, the weights'
  // loads in flight, one load of A per row of M at a time. Both: the
  // addressing and the epilogue (ptxas spilled a few bytes at 8 fewer).
  // Row and elementwise steps need fewer.
  // Attention steps take their own (at most 128) whatever the products'
  // body.
  int64_t regs;
  if (config.getMath() == MathInst::mma_sync && config.getStages() > 0)
    regs = 64 + 8 * rows + (m > 8 ? 8 : 4);
  // Warp staged: a chunk's loads of 8 rows per tile slot in flight (4
  // words each) beside the transposed one and its products (ptxas spilled
  // 8 bytes at 124 for one slot, M = 16).
  else if (config.getWarpStaged())
    regs = 64 + 48 * rows + (m > 8 ? 16 : 8);
  else if (config.getMath() == MathInst::mma_sync)
    regs = 56 + 4 * rows + 4 * unroll * rows + (m > 8 ? 8 : 4) * unroll;
  else
    regs = 48 + m * rows + 4 * unroll * rows + 4 * m;
  for (const GraphStep &s : problem.steps)
    if (s.kind == GraphStepKind::attention)
      regs = std::max(regs, getGraphAttentionRegisters(
                                s, getGraphAttentionUnitHeads(config, s)));
  return regs;
}

int64_t mlir::amk::getGraphKSplit(GraphConfigAttr config,
                                  const GraphStep &step) {
  if (config.getMath() != MathInst::mma_sync ||
      step.kind != GraphStepKind::matmul)
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

int64_t mlir::amk::getGraphStageColumns(const GraphStep &step) {
  // A box row is at most 256 elements; K's last chunk zero-fills.
  return std::min<int64_t>(256, llvm::alignTo(step.k, 32));
}

int64_t mlir::amk::getGraphStageTiles(GraphConfigAttr config,
                                      const GraphStep &step) {
  return config.getWarps() / getGraphKSplit(config, step) *
         config.getRowsPerWarp();
}

int64_t mlir::amk::getGraphStageBoxes(GraphConfigAttr config,
                                      const GraphStep &step) {
  return getGraphStageTiles(config, step) * getGraphKSplit(config, step);
}

bool mlir::amk::getGraphRingStagesA(GraphConfigAttr config,
                                    const GraphStep &step) {
  int64_t pieces = step.m * getGraphKSplit(config, step) *
                   getGraphStageColumns(step) * step.inBytes() / 16;
  return pieces % config.getThreads() == 0;
}

int64_t mlir::amk::getGraphStageBytes(GraphConfigAttr config,
                                      const GraphStep &step) {
  int64_t columns = getGraphStageColumns(step);
  int64_t bytes = getGraphStageBoxes(config, step) * 8 * columns;
  if (getGraphRingStagesA(config, step))
    bytes += step.m * getGraphKSplit(config, step) * columns;
  return bytes * step.inBytes();
}

int64_t mlir::amk::getGraphRingBytes(GraphConfigAttr config,
                                     const GraphProblem &problem) {
  if (config.getStages() == 0)
    return 0;
  int64_t bytes = 0;
  for (const GraphStep &s : problem.steps)
    if (s.kind == GraphStepKind::matmul)
      bytes =
          std::max(bytes, config.getStages() * getGraphStageBytes(config, s));
  return bytes;
}

int64_t mlir::amk::getGraphSmemBytes(GraphConfigAttr config,
                                     const GraphProblem &problem) {
  // After the ring, one region: every step that uses it
  // ends in a barrier.
  int64_t bytes = 0;
  for (const GraphStep &s : problem.steps) {
    if (getGraphKSplit(config, s) > 1)
      bytes = std::max(bytes,
                       config.getThreads() * 4 * config.getRowsPerWarp() * 4);
    if (s.kind == GraphStepKind::row)
      bytes = std::max(bytes, getRowCombineBytes(getGraphRowConfig(config, s)));
    if (s.kind == GraphStepKind::attention)
      bytes = std::max(bytes, getGraphAttentionFloats(config, s) * 4);
  }
  return getGraphRingBytes(config, problem) + bytes;
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
  int64_t m = problem.getMaxRows();
  if (m > kMaxGraphRows) {
    whyNot = llvm::formatv("a step has M = {0}: graph steps are decode "
                           "products of at most {1} rows (plan larger "
                           "products as their own kernels)",
                           m, kMaxGraphRows);
    return failure();
  }
  for (const GraphStep &s : problem.steps)
    if (s.kind == GraphStepKind::row &&
        failed(checkRowLowerable(getGraphRowConfig(config, s),
                                 getGraphRowProblem(s), whyNot)))
      return failure();
  int64_t paramBytes = problem.paramBytes;
  for (const GraphStep &s : problem.steps)
    if (s.kind == GraphStepKind::attention &&
        getGraphAttentionSplits(config, s) > 1)
      paramBytes += (3 + 2) * 8; // the parts' workspace
  if (paramBytes > kMaxKernelParamBytes) {
    whyNot = llvm::formatv("the kernel would take {0} bytes of parameters "
                           "(a memref descriptor per operand and buffer), "
                           "more than the {1} a kernel takes: split the "
                           "graph",
                           paramBytes, kMaxKernelParamBytes);
    return failure();
  }
  for (const GraphStep &s : problem.steps) {
    if (s.kind != GraphStepKind::attention)
      continue;
    // A position's D elements in 16-byte runs over a power of two of
    // lanes, so a warp takes whole positions at a time.
    int64_t lanes = s.getAttentionLanes();
    if (lanes > 32 || 32 % lanes) {
      whyNot = llvm::formatv("attention reads a head's {0} elements as runs "
                             "of {1} on as many lanes, which must divide a "
                             "warp's 32 (head sizes such as 32, 64, 128, "
                             "256)",
                             s.k, s.getVector());
      return failure();
    }
    if (s.m * s.heads > (int64_t(1) << 31)) {
      whyNot = "attention of more than 2^31 (sequence, head) pairs";
      return failure();
    }
    // Positions are i32 like the lengths that count them.
    if (s.cacheLength >= (int64_t(1) << 31)) {
      whyNot = llvm::formatv("attention over caches of {0} positions: the "
                             "lengths are i32, so at most 2^31 - 1",
                             s.cacheLength);
      return failure();
    }
  }
  if (config.getMath() == MathInst::mma_sync)
    for (const GraphStep &s : problem.steps)
      if (s.kind == GraphStepKind::matmul &&
          ((!s.inType.isBF16() && !s.inType.isF16()) || s.m > 16 || s.k % 8)) {
        whyNot = llvm::formatv("math = mma_sync takes f16 or bf16 steps of "
                               "at most 16 rows and K a multiple of 8 (a "
                               "step is {0}x{1}x{2})",
                               s.m, s.n, s.k);
        return failure();
      }
  if (config.getStages() > 0) {
    if (!target.hasFeature(ArchFeature::Tma)) {
      whyNot = llvm::formatv("stages = {0} streams the weights with TMA, "
                             "which {1} ({2}) lacks (TMA: {3} and later)",
                             config.getStages(), target.name, target.arch,
                             getMinimumArch(ArchFeature::Tma));
      return failure();
    }
    for (const GraphStep &s : problem.steps) {
      if (s.kind != GraphStepKind::matmul)
        continue;
      int64_t tiles = llvm::divideCeil(s.n, 8);
      int64_t iterations =
          llvm::divideCeil(llvm::divideCeil(tiles, config.getBlocks()),
                           getGraphStageTiles(config, s));
      if (iterations > kMaxGraphRingIterations) {
        whyNot =
            llvm::formatv("with stages, a block takes a step's tiles in "
                          "at most {0} rounds of its warps' tiles; a "
                          "{1}x{2}x{3} step would take {4} (more "
                          "blocks, threads or rows_per_warp)",
                          kMaxGraphRingIterations, s.m, s.n, s.k, iterations);
        return failure();
      }
    }
  }
  KernelResources r = getGraphResources(config, problem, target);
  if (r.dynamicSmemBytes > target.smem_per_block_optin_bytes) {
    whyNot = llvm::formatv("the block would take {0} bytes of shared memory "
                           "(the TMA ring of {1} stages or the warps' "
                           "staging, and the steps' combines), more than "
                           "the {2} a block of {3} can have (fewer stages, "
                           "threads or rows_per_warp)",
                           r.dynamicSmemBytes, config.getStages(),
                           target.smem_per_block_optin_bytes, target.name);
    return failure();
  }
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
