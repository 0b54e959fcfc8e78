//===- GraphFamily.cpp - The megakernel family and its planner ------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Candidates: blocks per SM (every block resident), threads, rows per warp
// and loads in flight per row. The cost model is a memory model: each
// product streams its weights once, at the HBM rate or what the loads in
// flight allow (Little's law), its time set by the busiest block; row and
// elementwise steps cost a memory round trip per pass over activations
// that are mostly in L2; each step that waits on a counter adds a
// grid-wide release/acquire.
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Graph/GraphModel.h"
#include "AMK/Family/SilentEmitter.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::amk;

namespace {

/// Constants of the cost model a calibration may refit.
struct GraphCostParams {
  double hbmEfficiency = 0.92;
  double memLatencyNs = 1500;
  /// The mma body streams slower: a warp's load spans 8 weight rows.
  double mmaStreamEfficiency = 0.6;
  /// The mma body through a TMA ring: on the H200 it streamed the M = 16
  /// MLP at the direct body's rate (79 against 80 us) and the Llama block
  /// a little slower (123 against 120), far below what its loads alone
  /// reach: slightly under the direct body until the ring is faster.
  double ringStreamEfficiency = 0.55;
  /// simt issues about twice the FMA, load and widening instructions.
  double simtIssueFactor = 2;
  double syncNs = 1500;
  double launchOverheadNs = 4000;
};

template <typename Fn> static void forEachParam(GraphCostParams &p, Fn fn) {
  fn("graph_hbm_efficiency", p.hbmEfficiency);
  fn("graph_mem_latency_ns", p.memLatencyNs);
  fn("graph_mma_stream_efficiency", p.mmaStreamEfficiency);
  fn("graph_ring_stream_efficiency", p.ringStreamEfficiency);
  fn("graph_simt_issue_factor", p.simtIssueFactor);
  fn("graph_sync_ns", p.syncNs);
  fn("graph_launch_overhead_ns", p.launchOverheadNs);
}

class GraphProblemModel : public ProblemModel {
public:
  GraphProblemModel(MLIRContext *context, GraphProblem problem,
                    const TargetSpec &target, const GraphCostParams &params)
      : context(context), problem(std::move(problem)), target(target),
        params(params) {}

  FailureOr<KernelResources>
  getResources(KernelConfigAttrInterface config) const override {
    auto graph = dyn_cast<GraphConfigAttr>(config);
    if (!graph)
      return failure();
    return getGraphResources(graph, problem, target);
  }

  LogicalResult checkLowerable(KernelConfigAttrInterface config,
                               std::string &whyNot) const override {
    auto graph = dyn_cast<GraphConfigAttr>(config);
    if (!graph) {
      whyNot = "not a #amk.graph_config";
      return failure();
    }
    return checkGraphLowerable(graph, problem, target, whyNot);
  }

  void enumerate(
      llvm::function_ref<void(KernelConfigAttrInterface)> fn) const override {
    // A TMA ring (stages) streams the weights without registers: unroll
    // means nothing there. The ring needs the target's TMA.
    // The bodies differ only in products: a graph without any is simt.
    bool products = llvm::any_of(problem.steps, [](const GraphStep &s) {
      return s.kind == GraphStepKind::matmul;
    });
    SmallVector<std::pair<MathInst, int64_t>> bodies = {{MathInst::simt, 0}};
    if (products)
      bodies.push_back({MathInst::mma_sync, 0});
    if (products && target.hasFeature(ArchFeature::Tma))
      for (int64_t stages : {3, 4, 6})
        bodies.push_back({MathInst::mma_sync, stages});
    for (auto [math, stages] : bodies)
      for (int64_t perSM : {1, 2, 3, 4})
        for (int64_t threads : {128, 256, 512, 1024})
          for (int64_t rows : {1, 2, 4})
            for (int64_t unroll : {1, 2, 4, 8})
              if (stages == 0 || unroll == 1)
                if (auto config = GraphConfigAttr::getChecked(
                        getSilentEmitter(), context, perSM * target.sm_count,
                        threads, rows, unroll, math, stages,
                        /*warpStaged=*/false))
                  fn(config);
  }

  CandidateCost predict(KernelConfigAttrInterface config,
                        const KernelResources &resources) const override {
    auto c = cast<GraphConfigAttr>(config);
    CandidateCost cost;
    if (resources.blocksPerSM <= 0 || target.sm_count <= 0 ||
        target.hbm_gbps <= 0) {
      cost.totalNs = std::numeric_limits<double>::infinity();
      return cost;
    }
    double blocks = c.getBlocks();
    bool mma = c.getMath() == MathInst::mma_sync;
    // Bytes in flight: each warp keeps rows x unroll loads of 512 bytes
    // (16 per lane) outstanding; Little's law bounds the stream by them.
    // With a ring: the stages in flight ahead of the one in use.
    // Warp staged: one chunk of the warp's rows ahead.
    bool ring = c.getStages() > 0;
    double inFlight =
        blocks * c.getWarps() * c.getRowsPerWarp() * c.getUnroll() * 512;
    if (ring)
      inFlight = blocks * (c.getStages() - 1) * c.getWarps() *
                 c.getRowsPerWarp() * 8 * 256 * 2;
    if (c.getWarpStaged())
      inFlight = blocks * c.getWarps() * c.getRowsPerWarp() * 8 *
                 kGraphStagedColumns * 2;
    double perClock = target.sm_count * (target.clock_mhz / 1000.0);
    // The stream also wants warps: on the H200 the decode MLP took 1.33x
    // the time at 4 warps per SM and 1.07x at 8 of what it took at 16.
    double warpsPerSM = blocks / target.sm_count * c.getWarps();
    double efficiency = std::pow(std::min(1.0, warpsPerSM / 16), 0.2) *
                        (ring  ? params.ringStreamEfficiency
                         : mma ? params.mmaStreamEfficiency
                               : 1.0);
    double stepsNs = 0, hbmNs = 0, latencyNs = 0, computeNs = 0, syncNs = 0;
    for (const GraphStep &s : problem.steps) {
      if (s.waitsOn)
        syncNs += params.syncNs;
      if (s.kind == GraphStepKind::attention) {
        // The caches stream once from HBM (units of one key/value head
        // re-read them from L2); a block's tasks (units, or their parts
        // when split) one after another, each a round trip per round of
        // its warps' positions; split parts meet after a wait.
        double bytes =
            2.0 * s.m * s.cacheLength * s.kvHeads * s.k * s.inBytes();
        double hbm =
            bytes / (target.hbm_gbps * params.hbmEfficiency * efficiency);
        double perRound = getGraphAttentionRound(c, s);
        int64_t splits = getGraphAttentionSplits(c, s);
        double tasks =
            double(s.m) * s.heads / getGraphAttentionUnitHeads(c, s) * splits;
        double latency =
            std::ceil(tasks / blocks) *
            std::ceil(std::ceil(double(s.cacheLength + 1) / splits) /
                      perRound) *
            params.memLatencyNs;
        if (splits > 1)
          syncNs += params.syncNs + params.memLatencyNs;
        stepsNs += std::max(hbm, latency);
        hbmNs += hbm;
        latencyNs += latency;
        continue;
      }
      if (s.kind != GraphStepKind::matmul) {
        // Activations, mostly from L2 (an earlier step just wrote them):
        // a memory round trip per pass over them, a block reduction each
        // for rows (the block's rows one after another).
        double bytes = double(s.m) * s.n * (s.inBytes() + s.outBytes());
        double hbm = bytes / (target.hbm_gbps * params.hbmEfficiency);
        double passes =
            s.kind == GraphStepKind::row
                ? (s.rowOp == RowOp::rms_norm ? 2 : 3) * std::ceil(s.m / blocks)
                : 1;
        double latency = passes * params.memLatencyNs;
        stepsNs += std::max(hbm, latency);
        hbmNs += hbm;
        latencyNs += latency;
        continue;
      }
      double bytes = double(s.n) * s.k * s.inBytes();
      double hbm =
          bytes / (target.hbm_gbps * params.hbmEfficiency * efficiency);
      double latency = bytes / inFlight * params.memLatencyNs;
      // simt, per product: an FMA (128 per SM and clock), a load of A per
      // vector (32 lanes per clock), and widening each weight and each A
      // element once per row group: bf16 by integer shifts (64 per
      // clock), f16 by the conversion pipe (16 per clock). mma: the tensor
      // cores are far from full.
      double compute = 0;
      if (!mma) {
        double products = double(s.m) * s.n * s.k;
        double widened = double(s.n) * s.k + products / c.getRowsPerWarp();
        double widenRate = s.inType.isBF16() ? 64 : s.inType.isF16() ? 16 : 0;
        compute = products / 128 + products / s.getVector() / 32 +
                  (widenRate ? widened / widenRate : 0);
        compute *= params.simtIssueFactor / perClock;
      }
      // The busiest block computes ceil(N / blocks) units (columns, or
      // tiles of 8 for mma), a warp's rows at a time.
      double units = mma ? std::ceil(s.n / 8.0) : s.n;
      double slots = c.getWarps() / getGraphKSplit(c, s) * c.getRowsPerWarp();
      double busiest =
          std::ceil(std::ceil(units / blocks) / slots) * slots * blocks;
      double imbalance = std::max(1.0, busiest / units);
      stepsNs += std::max({hbm, latency, compute}) * imbalance;
      hbmNs += hbm;
      latencyNs += latency;
      computeNs += compute;
    }
    cost.totalNs = params.launchOverheadNs + stepsNs + syncNs;
    cost.terms = llvm::formatv("hbm {0:f1}, latency {1:f1}, compute {2:f1}, "
                               "steps {3:f1}, sync {4:f1} us",
                               hbmNs / 1000, latencyNs / 1000, computeNs / 1000,
                               stepsNs / 1000, syncNs / 1000)
                     .str();
    cost.notes = llvm::formatv("{0} steps, floor {1:f1} us at the HBM peak",
                               problem.steps.size(),
                               problem.getBytes() / target.hbm_gbps / 1000)
                     .str();
    return cost;
  }

  SmallVector<int64_t>
  getTieBreakers(KernelConfigAttrInterface config,
                 const KernelResources &resources) const override {
    auto c = cast<GraphConfigAttr>(config);
    // Tensor cores, then blocks of 256 threads (on the H200 two of them
    // per SM streamed best), more loads in flight, fewer blocks.
    return {c.getMath() != MathInst::mma_sync, std::abs(c.getThreads() - 256),
            -c.getUnroll(), c.getBlocks(), c.getRowsPerWarp()};
  }

  std::string getShapeKey(KernelConfigAttrInterface config,
                          bool coarse) const override {
    auto c = cast<GraphConfigAttr>(config);
    std::string key =
        llvm::formatv("{0}/{1}x{2}", stringifyMathInst(c.getMath()),
                      c.getBlocks(), c.getThreads());
    if (c.getStages() > 0)
      key += llvm::formatv("/s{0}", c.getStages());
    if (!coarse)
      key += llvm::formatv("/r{0}/u{1}", c.getRowsPerWarp(), c.getUnroll());
    return key;
  }

  bool hasPartialTiles(KernelConfigAttrInterface config) const override {
    auto c = cast<GraphConfigAttr>(config);
    return llvm::any_of(problem.steps, [&](const GraphStep &s) {
      if (s.kind != GraphStepKind::matmul)
        return false;
      int64_t units =
          c.getMath() == MathInst::mma_sync ? llvm::divideCeil(s.n, 8) : s.n;
      return units % c.getBlocks() || s.k % (32 * s.getVector());
    });
  }

  bool hasDynamicSizes() const override { return false; }

  /// The graph as explain shows it: each step, where its activations
  /// come from, where its result goes, and how it is ordered after the
  /// steps it reads (a counter reaching the block count, or a barrier of
  /// its own block).
  SmallVector<std::string> getPlanNotes() const override {
    SmallVector<std::string> notes;
    auto source = [](const GraphSource &from) {
      return from.step ? llvm::formatv("step {0}", *from.step).str()
                       : llvm::formatv("input #{0}", *from.input).str();
    };
    for (auto [i, s] : llvm::enumerate(problem.steps)) {
      std::string what;
      switch (s.kind) {
      case GraphStepKind::matmul:
        what = llvm::formatv(
            "{0}x{1}x{2}{3}, A from {4}, weights input #{5}", s.m, s.n, s.k,
            s.activation == Activation::none
                ? std::string()
                : " " + stringifyActivation(s.activation).str(),
            source(s.a), *s.weights);
        break;
      case GraphStepKind::row:
        what = llvm::formatv(
            "{0} {1}x{2} of {3}{4}, a row per block", stringifyRowOp(s.rowOp),
            s.m, s.n, source(s.a),
            s.weights ? llvm::formatv(", weight input #{0}", *s.weights).str()
                      : std::string());
        break;
      case GraphStepKind::elementwise:
        what = llvm::formatv("{0} {1}x{2} of {3} and {4}",
                             stringifyElementwiseOp(s.binary), s.m, s.n,
                             source(s.a), source(s.b));
        break;
      case GraphStepKind::attention:
        what = llvm::formatv(
            "decode attention of {0} sequences, {1} heads of {2} ({3} "
            "key/value heads), over caches of {4} positions (operands #{5} "
            "and #{6}, lengths input #{7}); queries from {8}, new keys from "
            "{9}, new values from {10}{11}",
            s.m, s.heads, s.k, s.kvHeads, s.cacheLength, *s.keyCache,
            *s.valueCache, *s.lengths, source(s.a), source(s.b), source(s.v),
            s.append ? "; appended to the caches at the kernel's end" : "");
        if (s.cos)
          what += llvm::formatv("; q and the new keys rotated by the tables "
                                "#{0} and #{1} at position n_m",
                                *s.cos, *s.sin);
        break;
      }
      std::string order =
          s.waitsOn
              ? llvm::formatv(", after step {0}'s counter", *s.waitsOn).str()
          : s.barrierBefore ? ", after a barrier (its block wrote what it "
                              "reads)"
                            : "";
      std::string to = s.output ? llvm::formatv("output #{0}", *s.output).str()
                                : llvm::formatv("buffer {0}", *s.buffer).str();
      notes.push_back(
          llvm::formatv("step {0}: {1}{2}, into {3}{4}", i, what, order, to,
                        s.signals ? ", then signals its counter" : "")
              .str());
    }
    return notes;
  }

private:
  MLIRContext *context;
  GraphProblem problem;
  const TargetSpec &target;
  GraphCostParams params;
};

class GraphFamily : public KernelFamily {
public:
  StringRef getName() const override { return "graph"; }
  StringRef getDisplayName() const override { return "megakernel"; }

  std::unique_ptr<ProblemModel> getModel(ProblemOpInterface problem,
                                         const TargetSpec &target,
                                         const CostOverrides &overrides,
                                         const PlanningSizes &) const override {
    return std::make_unique<GraphProblemModel>(
        problem->getContext(),
        GraphProblem::get(cast<GraphOp>(problem.getOperation())), target,
        getParams(overrides));
  }

  FailureOr<std::unique_ptr<ProblemModel>>
  getModel(MLIRContext *context, const llvm::json::Object &json,
           const TargetSpec &target,
           const CostOverrides &overrides) const override {
    FailureOr<GraphProblem> problem = GraphProblem::fromJSON(context, json);
    if (failed(problem))
      return failure();
    return std::unique_ptr<ProblemModel>(std::make_unique<GraphProblemModel>(
        context, std::move(*problem), target, getParams(overrides)));
  }

  KernelLaunch describeLaunch(ProblemOpInterface op,
                              KernelConfigAttrInterface configAttr,
                              const TargetSpec &target) const override;

  FailureOr<SmallVector<gpu::GPUFuncOp>>
  synthesize(gpu::GPUModuleOp module, KernelOp kernel,
             KernelConfigAttrInterface configAttr, StringRef name,
             const TargetSpec &) const override {
    auto config = dyn_cast<GraphConfigAttr>(configAttr);
    if (!config)
      return kernel.emitOpError("has no megakernel synthesizer for config ")
             << configAttr;
    FailureOr<gpu::GPUFuncOp> func =
        synthesizeGraphKernel(module, kernel, config, name);
    if (failed(func))
      return failure();
    return SmallVector<gpu::GPUFuncOp>{*func};
  }

  llvm::json::Object problemToJSON(ProblemOpInterface problem) const override {
    return GraphProblem::get(cast<GraphOp>(problem.getOperation())).toJSON();
  }

  /// The rows of the widest step (decode's token count) is the size that
  /// makes graphs of one wiring comparable.
  llvm::StringMap<int64_t>
  getSizes(const llvm::json::Object &json) const override {
    llvm::StringMap<int64_t> sizes;
    int64_t m = 0;
    if (const llvm::json::Array *steps = json.getArray("steps"))
      for (const llvm::json::Value &step : *steps)
        if (const llvm::json::Object *o = step.getAsObject())
          m = std::max(m, o->getInteger("m").value_or(0));
    sizes["M"] = m;
    return sizes;
  }

  /// Flops of the products and of attention (two per score and per
  /// value element, at the caches' capacity).
  double getWork(const llvm::json::Object &json) const override {
    double work = 0;
    if (const llvm::json::Array *steps = json.getArray("steps"))
      for (const llvm::json::Value &step : *steps)
        if (const llvm::json::Object *o = step.getAsObject()) {
          double mn = double(o->getInteger("m").value_or(0)) *
                      o->getInteger("n").value_or(0);
          work +=
              o->getString("op") == "attention"
                  ? 4.0 * mn * (o->getInteger("cache_length").value_or(0) + 1)
                  : 2.0 * mn * o->getInteger("k").value_or(0);
        }
    return work;
  }

  SmallVector<std::pair<std::string, double>> getCostParams() const override {
    return listCostParams<GraphCostParams>(
        [](auto &p, auto fn) { forEachParam(p, fn); });
  }

private:
  static GraphCostParams getParams(const CostOverrides &overrides) {
    return applyCostOverrides<GraphCostParams>(
        overrides, [](auto &p, auto fn) { forEachParam(p, fn); });
  }
};
} // namespace

/// Operands are `in<i>` and `out<i>`, internal buffers `buf<i>`; the size
/// symbols name each step's extents (`M0`, `N0`, `K0`, ...), all static.
KernelLaunch GraphFamily::describeLaunch(ProblemOpInterface op,
                                         KernelConfigAttrInterface configAttr,
                                         const TargetSpec &) const {
  auto graph = cast<GraphOp>(op.getOperation());
  auto config = cast<GraphConfigAttr>(configAttr);
  GraphProblem p = GraphProblem::get(graph);
  Block &body = graph.getBody().front();
  unsigned numInputs = graph.getInputs().size();
  KernelLaunch launch;
  // Each operand's dimensions as the symbols of the first step using it.
  llvm::DenseMap<Value, SmallVector<std::string>> shapes;
  auto addSymbol = [&](std::string name, int64_t value) {
    if (!launch.findSymbol(name))
      launch.symbols.push_back(SizeSymbol{name, value, {}, 0});
    return name;
  };
  for (auto [i, step] : llvm::enumerate(getGraphSteps(graph))) {
    const GraphStep &s = p.steps[i];
    GraphStepOperands operands = *getGraphStepOperands(step);
    std::string m = addSymbol(llvm::formatv("M{0}", i), s.m);
    std::string n = addSymbol(llvm::formatv("N{0}", i), s.n);
    SmallVector<std::string> activation = {m, n};
    if (s.kind == GraphStepKind::matmul) {
      std::string k = addSymbol(llvm::formatv("K{0}", i), s.k);
      activation = {m, k};
      for (auto [name, value] : operands.parameters)
        shapes.try_emplace(value, name == "bias"
                                      ? SmallVector<std::string>{n}
                                      : SmallVector<std::string>{n, k});
    } else if (s.kind == GraphStepKind::attention) {
      // The caches [M, L, kv_heads, D], the lengths [M], the new keys and
      // values [M, kv_heads * D].
      std::string l = addSymbol(llvm::formatv("L{0}", i), s.cacheLength);
      std::string h = addSymbol(llvm::formatv("H{0}", i), s.kvHeads);
      std::string d = addSymbol(llvm::formatv("D{0}", i), s.k);
      std::string kv = addSymbol(llvm::formatv("KV{0}", i), s.kvHeads * s.k);
      SmallVector<std::pair<StringRef, Value>> named(operands.parameters);
      llvm::append_range(named, operands.updates);
      std::string positions =
          addSymbol(llvm::formatv("P{0}", i), s.cacheLength + 1);
      for (auto [name, value] : named)
        shapes.try_emplace(value, name == "lengths"
                                      ? SmallVector<std::string>{m}
                                  : name == "cos" || name == "sin"
                                      ? SmallVector<std::string>{positions, d}
                                      : SmallVector<std::string>{m, l, h, d});
      for (Value read : ArrayRef(operands.reads).drop_front())
        shapes.try_emplace(read, SmallVector<std::string>{m, kv});
    } else {
      for (auto [name, value] : operands.parameters)
        shapes.try_emplace(value, SmallVector<std::string>{n});
    }
    for (Value read : operands.reads)
      shapes.try_emplace(read, activation);
    shapes.try_emplace(operands.result, SmallVector<std::string>{m, n});
  }
  for (BlockArgument arg : body.getArguments()) {
    unsigned i = arg.getArgNumber();
    std::string name = i < numInputs
                           ? llvm::formatv("in{0}", i).str()
                           : llvm::formatv("out{0}", i - numInputs).str();
    auto type = cast<MemRefType>(arg.getType());
    SmallVector<std::string> shape = shapes.lookup(arg);
    // An input no step reads: its own extents as symbols.
    if (shape.empty())
      for (int64_t d = 0; d < type.getRank(); ++d)
        shape.push_back(
            addSymbol(llvm::formatv("{0}_{1}", name, d), type.getDimSize(d)));
    launch.args.push_back(LaunchArg{name, type, shape, i >= numInputs});
  }
  for (auto [i, buffer] : llvm::enumerate(getGraphBuffers(graph))) {
    MemRefType type = buffer.getBuffer().getType();
    WorkspaceBuffer &w = launch.workspace.emplace_back();
    w.name = llvm::formatv("buf{0}", i);
    w.kernelType = type;
    for (int64_t extent : type.getShape())
      w.shape.push_back(SizeExpr::constant(extent));
  }
  WorkspaceBuffer &counters = launch.workspace.emplace_back();
  counters.name = "counters";
  int64_t numCounters = getGraphCounters(config, p);
  counters.kernelType =
      MemRefType::get({numCounters}, IntegerType::get(graph.getContext(), 32));
  counters.shape = {SizeExpr::constant(numCounters)};
  launch.zeroed.push_back("counters");
  // Split attention: its parts' states, written before they are read.
  for (auto [i, s] : llvm::enumerate(p.steps)) {
    if (s.kind != GraphStepKind::attention ||
        getGraphAttentionSplits(config, s) == 1)
      continue;
    int64_t floats = getGraphAttentionPartials(config, s);
    WorkspaceBuffer &w = launch.workspace.emplace_back();
    w.name = llvm::formatv("partials{0}", i);
    w.kernelType =
        MemRefType::get({floats}, Float32Type::get(graph.getContext()));
    w.shape = {SizeExpr::constant(floats)};
  }

  LaunchKernel &kernel = launch.kernels.emplace_back();
  kernel.grid = {SizeExpr::constant(config.getBlocks()), SizeExpr::constant(1),
                 SizeExpr::constant(1)};
  kernel.block = {config.getThreads(), 1, 1};
  kernel.estimatedRegs = getGraphRegisters(config, p);
  kernel.dynamicSmemBytes = getGraphSmemBytes(config, p);
  kernel.cooperative = true;
  for (const LaunchArg &arg : launch.args)
    kernel.params.push_back(arg.name);
  for (const WorkspaceBuffer &w : launch.workspace)
    kernel.params.push_back(w.name);
  // With a TMA ring, a map of each product's weights (boxes of 8 rows by a
  // stage's columns), after the buffers, in step order.
  if (config.getStages() > 0)
    for (auto [i, s] : llvm::enumerate(p.steps)) {
      if (s.kind != GraphStepKind::matmul)
        continue;
      TensorMapParam map{llvm::formatv("w{0}_tma", i).str(),
                         launch.args[*s.weights].name,
                         {getGraphStageColumns(s), 8},
                         /*swizzleBytes=*/0};
      kernel.params.push_back(map.name);
      kernel.tensorMaps.push_back(std::move(map));
    }
  return launch;
}

std::unique_ptr<KernelFamily> mlir::amk::createGraphFamily() {
  return std::make_unique<GraphFamily>();
}
