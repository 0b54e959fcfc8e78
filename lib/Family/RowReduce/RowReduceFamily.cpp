//===- RowReduceFamily.cpp - The row-wise family and its planner ----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Candidates: threads per row (a few lanes to a whole block), rows per
// block, the load vector width and, for softmax and LayerNorm, one or two
// statistics passes. The cost model is a memory model: the row is read once
// from HBM per statistics pass that does not find it in L2, plus the output
// pass; the loads in flight per SM bound what latency allows.
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/RowReduce/RowReduceModel.h"
#include "AMK/Family/SilentEmitter.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::amk;

namespace {

/// Constants of the cost model a calibration may refit.
struct RowCostParams {
  double hbmEfficiency = 0.9;
  double l2BandwidthPerHbm = 2.5;
  double memLatencyNs = 700;
  double loadsInFlight = 4;
  double sfuExposed = 0.3;
  double launchOverheadNs = 3000;
  /// Cycles a thread spends on one element of weight 1 when its warp is
  /// alone on its scheduler (each dependent instruction waits out its
  /// latency).
  double elementCycles = 17;
  /// A staged row's access to shared memory, per element, against a sum's
  /// element work.
  double stagedAccessWeight = 0.5;
  /// A combine across a cluster: a workspace round trip through L2 and a
  /// cluster barrier that waits for the slowest block; per block of the
  /// cluster where the clusters' blocks outnumber the SMs (H100, 64 rows
  /// of 100000 bf16: clusters of 2 ran 0.79-0.97 of the copy ceiling, of
  /// 4 and 8 0.42-0.92), once where they do not (H100, 3 dynamic rows of
  /// 32768 bf16 softmax: clusters of 8 took 6.6 us, of 4 6.7, of 2 7.3).
  double clusterCombineNs = 1000;
  /// Dynamic sizes are planned at this size.
  double representativeSize = 4096;
};

/// The row length a dynamic one is planned at, and the fewest threads a
/// row of dynamic length gets.
constexpr int64_t kDynamicRowLength = 32768;
constexpr int64_t kDynamicRowThreads = 256;
/// The fewest threads a row staged in shared memory gets, and the fewest
/// a block of a clustered row has.
constexpr int64_t kStagedRowThreads = 512;
constexpr int64_t kClusterRowThreads = 256;
/// Dynamic row lengths up to each of these get a kernel of their own
/// (where it beats the all-lengths kernel): a few lanes to a row, a warp
/// or two, a block that caches the row.
constexpr int64_t kShortRowBuckets[] = {64, 512, 4096};
/// Dynamic row counts up to the SMs over each of these get a kernel of
/// their own: clusters of 8 fill the SMs at an eighth of them. (Not at a
/// half, for clusters of 2: H100, 64 dynamic rows of 8193 bf16 softmax
/// took 8.0 us in clusters of 2 against 6.8 a block per row.)
constexpr int64_t kFewRowBuckets[] = {8};
/// ... of rows longer than this where the length is dynamic (a block
/// serves shorter ones as well: H100, 7 dynamic rows of 4099 bf16 softmax
/// took 6.8 us in clusters of 8, 6.2 a block per row).
constexpr int64_t kFewRowsLongerThan = 8192;
/// ... and planned at this length.
constexpr int64_t kFewRowsPlannedLength = 131072;

template <typename Fn> static void forEachParam(RowCostParams &p, Fn fn) {
  fn("row_hbm_efficiency", p.hbmEfficiency);
  fn("row_l2_bandwidth_per_hbm", p.l2BandwidthPerHbm);
  fn("row_mem_latency_ns", p.memLatencyNs);
  fn("row_loads_in_flight", p.loadsInFlight);
  fn("row_sfu_exposed", p.sfuExposed);
  fn("row_launch_overhead_ns", p.launchOverheadNs);
  fn("row_element_cycles", p.elementCycles);
  fn("row_staged_access_weight", p.stagedAccessWeight);
  fn("row_cluster_combine_ns", p.clusterCombineNs);
}

class RowProblemModel : public ProblemModel {
public:
  RowProblemModel(MLIRContext *context, const RowProblem &problem,
                  const TargetSpec &target, const RowCostParams &params,
                  const PlanningSizes &planningSizes)
      : context(context), problem(problem), rep(problem), target(target),
        params(params) {
    int64_t size = static_cast<int64_t>(params.representativeSize);
    if (ShapedType::isDynamic(rep.batch))
      rep.batch = 1;
    if (ShapedType::isDynamic(rep.m))
      rep.m = size;
    // A dynamic row length is planned long: a block sized for long rows
    // wastes a little on short ones, one sized for short rows crawls on
    // long ones (H200: a warp per 100000-wide row ran 20x slower than torch).
    if (ShapedType::isDynamic(rep.n))
      rep.n = kDynamicRowLength;
    // A dispatch variant plans a range of sizes at its upper end.
    for (auto [symbol, dynamic, planned] :
         {std::make_tuple("M", problem.m, &rep.m),
          std::make_tuple("N", problem.n, &rep.n)}) {
      auto it = planningSizes.find(symbol);
      if (ShapedType::isDynamic(dynamic) && it != planningSizes.end() &&
          it->second >= 1) {
        *planned = it->second;
        (StringRef(symbol) == "N" ? rowBound : rowCountBound) = it->second;
      }
    }
    // Few rows of a dynamic length are the long ones (the bucket takes
    // rows past kFewRowsLongerThan): planned longer still, where a block
    // per row is bound by one SM's bandwidth (H100, a dynamic sum of
    // 1x262145 bf16: 26.5 us a block per row, 8.3 in clusters of 8).
    if (rowCountBound && ShapedType::isDynamic(problem.n) && !rowBound)
      rep.n = kFewRowsPlannedLength;
  }

  FailureOr<KernelResources>
  getResources(KernelConfigAttrInterface config) const override {
    auto row = dyn_cast<RowConfigAttr>(config);
    if (!row)
      return failure();
    return getRowResources(row, problem, target);
  }

  LogicalResult checkLowerable(KernelConfigAttrInterface config,
                               std::string &whyNot) const override {
    auto row = dyn_cast<RowConfigAttr>(config);
    if (!row) {
      whyNot = "not a #amk.row_config";
      return failure();
    }
    return checkRowLowerable(row, problem, whyNot, &target);
  }

  void enumerate(
      llvm::function_ref<void(KernelConfigAttrInterface)> fn) const override {
    for (int64_t perRow = 1; perRow <= 1024; perRow *= 2)
      for (int64_t threads = 32; threads <= 1024; threads *= 2) {
        if (threads < perRow)
          continue;
        for (int64_t vector : {1, 2, 4, 8})
          for (int64_t passes : {1, 2}) {
            if (passes == 2 && !problem.hasTwoPassForm())
              continue;
            for (int64_t cluster : getClusterChoices(perRow, threads))
              for (auto [cached, cache] :
                   getCacheChoices(perRow * cluster, vector))
                if (auto config = RowConfigAttr::getChecked(
                        getSilentEmitter(), context, perRow, threads / perRow,
                        vector, passes, cached, cache, cluster))
                  fn(config);
          }
      }
  }

  /// One block per row and, for a whole block to a 2-D row on a target
  /// with clusters, a cluster of 2, 4 or 8 blocks where the rows are too
  /// few to fill the SMs twice (many rows fill them anyway; a cluster only
  /// adds its combines).
  SmallVector<int64_t, 4> getClusterChoices(int64_t perRow,
                                            int64_t threads) const {
    SmallVector<int64_t, 4> choices = {1};
    if (perRow == threads && perRow >= kClusterRowThreads && !problem.batched &&
        rep.m < 2 * target.sm_count && target.hasFeature(ArchFeature::Clusters))
      choices.append({2, 4, 8});
    return choices;
  }

  /// Streaming (0 runs), the registers that hold the row where it fits (a
  /// dynamic one at its planned length) and, for a static row that spans
  /// warps and is read again for the output, the row staged in shared
  /// memory (whether it fits a block's shared memory is the resources'
  /// question).
  SmallVector<std::pair<int64_t, RowCache>, 3>
  getCacheChoices(int64_t rowThreads, int64_t vector) const {
    SmallVector<std::pair<int64_t, RowCache>, 3> choices = {
        {0, RowCache::registers}};
    int64_t runs = llvm::divideCeil(rep.n, rowThreads * vector);
    if (getCachedRegisters(runs, vector, problem) <= kMaxCachedRegisters)
      choices.push_back({runs, RowCache::registers});
    if (!ShapedType::isDynamic(problem.n) && problem.isElementwiseOutput() &&
        rowThreads >= 64)
      choices.push_back({runs, RowCache::shared});
    return choices;
  }

  std::optional<std::pair<std::string, std::string>>
  prune(KernelConfigAttrInterface config) const override {
    auto c = cast<RowConfigAttr>(config);
    // A dynamic row may be long and come in few rows: fewer threads per row
    // then crawl through it (H200, 300 rows of 100000: a warp per row took
    // 20x torch's time), while a wide block only idles a little on short
    // rows.
    if (ShapedType::isDynamic(problem.n) && !rowBound &&
        c.getThreadsPerRow() < kDynamicRowThreads)
      return std::make_pair(
          std::string("heuristic:dynamic-row-narrow"),
          llvm::formatv("{0} threads for a row of dynamic length (at least "
                        "{1})",
                        c.getThreadsPerRow(), kDynamicRowThreads)
              .str());
    // A staged row caps the blocks of an SM by their shared memory (three
    // of 64 KB): narrower blocks leave too few warps to hide the output
    // pass's latency (H100, 8192x32768 bf16 norms: 0.81 of the copy
    // ceiling at 256 threads, 0.995 at 512; 4096x4096 softmax at 64 to 256
    // threads 3-13% slower than in registers).
    if (c.getCache() == RowCache::shared &&
        c.getThreadsPerRow() < kStagedRowThreads)
      return std::make_pair(
          std::string("heuristic:staged-narrow"),
          llvm::formatv("a row staged in shared memory by {0} threads (at "
                        "least {1})",
                        c.getThreadsPerRow(), kStagedRowThreads)
              .str());
    // Staging pays by the blocks it lets share an SM; one alone on its SM
    // gains nothing over reading its row again from L2 (H100, 64 rows of
    // 100000 bf16: 2-4% slower staged).
    int64_t staged = getRowStagedBytes(c, problem);
    if (staged && 2 * staged > target.smem_per_sm_bytes)
      return std::make_pair(
          std::string("heuristic:staged-alone"),
          llvm::formatv("{0} bytes of staged rows leave the block alone on "
                        "its SM",
                        staged)
              .str());
    // Threads past twice the row's vectors would only idle.
    if (c.getThreadsPerRow() > 1 &&
        c.getThreadsPerRow() * c.getVector() > 2 * rep.n)
      return std::make_pair(
          std::string("heuristic:threads-exceed-row"),
          llvm::formatv("{0} threads of {1} elements for rows of {2}",
                        c.getThreadsPerRow(), c.getVector(), rep.n)
              .str());
    return std::nullopt;
  }

  CandidateCost predict(KernelConfigAttrInterface config,
                        const KernelResources &resources) const override {
    auto c = cast<RowConfigAttr>(config);
    CandidateCost cost;
    if (resources.blocksPerSM <= 0 || target.sm_count <= 0 ||
        target.hbm_gbps <= 0) {
      cost.totalNs = std::numeric_limits<double>::infinity();
      return cost;
    }
    double rows = double(rep.batch) * rep.m;
    double rowBytes = double(rep.n) * rep.inBytes();
    // Statistics passes, then the output pass of softmax and the norms.
    // A cached row is read once, whatever the passes.
    bool cached = c.getCachedRuns() > 0;
    int64_t reads =
        cached ? 1 : c.getPasses() + (rep.isElementwiseOutput() ? 1 : 0);
    double outBytes = rep.isElementwiseOutput() ? rows * rep.n * rep.outBytes()
                                                : rows * rep.outBytes();
    // Blocks and rows in flight at once (no more than there are): re-reads
    // come from L2 while those rows fit in it.
    // (A clustered row takes `cluster` blocks.)
    int64_t cluster = c.getCluster();
    double blocks = std::ceil(rows / c.getRowsPerBlock()) * cluster;
    double residentBlocks =
        std::min(blocks, double(target.sm_count) * resources.blocksPerSM);
    double resident = residentBlocks * c.getRowsPerBlock() / cluster;
    bool rereadsHitL2 = resident * rowBytes < 0.5 * target.l2_bytes;
    double hbmBytes = rows * rowBytes * (rereadsHitL2 ? 1 : reads) + outBytes +
                      (rep.weight ? rep.n * rep.outBytes() : 0) +
                      (rep.bias ? rep.n * rep.outBytes() : 0);
    // Re-reads from L2 do not overlap the stream from HBM: they add (the
    // H200 measured a streaming two-read softmax at 0.77 of the copy
    // ceiling where a one-read kernel reached 0.9).
    double l2Bytes = rereadsHitL2 ? rows * rowBytes * (reads - 1) : 0;
    double hbmNs = hbmBytes / (target.hbm_gbps * params.hbmEfficiency);
    double l2Ns = l2Bytes / (target.hbm_gbps * params.l2BandwidthPerHbm);
    // Latency: each thread keeps a few independent vector loads in flight
    // (the compiler unrolls the run loop).
    // (A cached row issues all its runs at once; a staged one, a streamed
    // row's few.)
    bool staged = c.getCache() == RowCache::shared;
    double loads = cached && !staged ? std::max<double>(params.loadsInFlight,
                                                        c.getCachedRuns())
                                     : params.loadsInFlight;
    double inFlight =
        residentBlocks * c.getThreads() * c.getVector() * rep.inBytes() * loads;
    double latencyNs = rows * rowBytes * reads / inFlight * params.memLatencyNs;
    double waves = std::ceil(rows / std::max(resident, 1.0));
    // L1: a warp's load costs one wavefront per 128-byte line it touches;
    // rows narrower than a warp spread one load over several rows.
    int64_t lanesPerRow = std::min<int64_t>(c.getThreadsPerRow(), 32);
    double linesPerLoad =
        (32.0 / lanesPerRow) *
        std::ceil(double(lanesPerRow) * c.getVector() * rep.inBytes() / 128);
    // A staged row's copy and its reads back take the same wavefronts: one
    // write, and a read for each later pass and the output.
    double stagedAccesses =
        staged ? c.getPasses() + (rep.isElementwiseOutput() ? 1 : 0) : 0;
    double warpLoads =
        rows * rep.n *
        (reads + stagedAccesses + (rep.weight ? 1 : 0) + (rep.bias ? 1 : 0)) /
        (32.0 * c.getVector());
    double l1Ns = warpLoads * linesPerLoad /
                  (double(target.sm_count) * target.clock_mhz / 1000.0);
    // A row's combines (one per statistics pass): shuffles, and a barrier
    // across warps; part of the row's chain, hidden by other rows' loads.
    double steps =
        std::log2(double(std::min<int64_t>(c.getThreadsPerRow(), 32)));
    // Across warps: a barrier, then shuffles over the row's warps. It
    // still grows with the warps, not their logarithm (H100, 16 rows of
    // 4096 f16 softmax with the shuffle tree: a 1024-thread row took 5.5
    // us, a 128-thread one 4.5).
    int64_t warps = c.getWarpsPerRow();
    // Across a cluster: the workspace's round trip and the cluster barrier.
    double combineNs =
        waves * c.getPasses() *
        (steps * 30 + (warps > 1 ? 200 + 25.0 * warps : 0) +
         (cluster > 1 ? params.clusterCombineNs *
                            (blocks > target.sm_count ? cluster : 1)
                      : 0));
    double iterations = std::ceil(
        double(rep.n) / (c.getThreadsPerRow() * cluster * c.getVector()));
    // Exponentials (softmax) on the SFUs, 16 per clock per SM: the online
    // pass takes vector + 2 per run, the output pass one per element; a
    // cached two-pass softmax computes each once.
    double expsPerElement = 0;
    if (rep.kind == RowOp::softmax) {
      if (cached && c.getPasses() == 2)
        expsPerElement = 1;
      else if (c.getPasses() == 2)
        expsPerElement = 2;
      else
        expsPerElement = 1 + (c.getVector() + 2.0) / c.getVector();
    }
    // A thread's own work on its elements: latency-bound while few warps share
    // a scheduler, issue-bound past that (H100, 900 LayerNorm rows of 1000
    // f16: 16 threads per row, 64 elements each, took 8.4 us; 128 threads,
    // 8 elements each, 5.6 us).
    double warpsPerScheduler =
        residentBlocks / target.sm_count * c.getThreads() / 32.0 / 4;
    // A staged row's shared-memory accesses are a thread's work too, half
    // a sum's element each (H100, 4096x4096 bf16 softmax: a staged row ran
    // 3-9% slower than registers at 128-512 threads; 8192x32768, where
    // registers hold one row per SM, 6% faster).
    double threadNs = waves * iterations * c.getVector() *
                      (getElementWeight() + expsPerElement +
                       params.stagedAccessWeight * stagedAccesses) *
                      std::max(params.elementCycles, 4 * warpsPerScheduler) /
                      (target.clock_mhz / 1000.0);
    // A row's own chain: each of a thread's runs waits for its load (a few
    // at a time), pass after pass, then its combines and its work; waves of
    // rows run one after another.
    double chainNs =
        waves * std::ceil(iterations / loads) * reads * params.memLatencyNs +
        combineNs + threadNs;
    double sfuNs = rows * rep.n * expsPerElement /
                   (double(target.sm_count) * 16 * target.clock_mhz / 1000.0);
    // They overlap the memory stream only in part: on the H200 a cached
    // 4096x4096 bf16 softmax ran 1.5 us faster with 1.25 fewer exps per
    // element (5 us of SFU time), so 0.3 of it adds.
    double largest = std::max({hbmNs + l2Ns, latencyNs, l1Ns, chainNs, sfuNs}) +
                     params.sfuExposed * sfuNs;
    cost.totalNs = params.launchOverheadNs + largest;
    cost.terms =
        llvm::formatv("hbm {0:f1}, l2 re-reads {1:f1}, latency "
                      "{2:f1}, l1 {3:f1}, chain {4:f1}, sfu {5:f1}, "
                      "combine {6:f1}, thread work {7:f1} us",
                      hbmNs / 1000, l2Ns / 1000, latencyNs / 1000, l1Ns / 1000,
                      chainNs / 1000, sfuNs / 1000, combineNs / 1000,
                      threadNs / 1000)
            .str();
    cost.notes =
        llvm::formatv("{0:f0} rows, {1} read pass(es)", rows, reads).str();
    return cost;
  }

  /// A kind's work per element, relative to a sum's: its statistics passes
  /// and output arithmetic (a softmax's exponentials come on top).
  double getElementWeight() const {
    switch (rep.kind) {
    case RowOp::sum:
    case RowOp::max:
    case RowOp::mean:
      return 1;
    case RowOp::rms_norm:
      return 3;
    case RowOp::softmax:
      return 4;
    case RowOp::layer_norm:
      return rep.bias ? 5 : 4;
    }
    return 4;
  }

  SmallVector<int64_t>
  getTieBreakers(KernelConfigAttrInterface config,
                 const KernelResources &resources) const override {
    auto c = cast<RowConfigAttr>(config);
    // No staged row (its shared memory buys nothing where the model sees
    // no gain), a cached row, fewer passes, wider vectors, more threads to
    // a row (fewer runs each: where the memory bound hides the difference,
    // the H100 still ran 8192x32768 f32 norms at 1024 threads 16% faster
    // than at 512), then smaller blocks.
    bool staged = c.getCache() == RowCache::shared;
    return {staged, c.getCachedRuns() == 0, c.getPasses(), -c.getVector(),
            -c.getThreadsPerRow(), c.getThreads()};
  }

  std::string getShapeKey(KernelConfigAttrInterface config,
                          bool coarse) const override {
    auto c = cast<RowConfigAttr>(config);
    std::string key =
        llvm::formatv("{0}x{1}", c.getThreadsPerRow(), c.getRowsPerBlock());
    if (c.getCluster() > 1)
      key += llvm::formatv("x{0}", c.getCluster()).str();
    if (!coarse)
      key += llvm::formatv(
                 "/v{0}/c{1}{2}/p{3}", c.getVector(), c.getCachedRuns(),
                 c.getCache() == RowCache::shared ? "s" : "", c.getPasses())
                 .str();
    return key;
  }

  bool hasPartialTiles(KernelConfigAttrInterface config) const override {
    auto c = cast<RowConfigAttr>(config);
    return problem.hasDynamicSizes() || problem.m % c.getRowsPerBlock() ||
           problem.n % (c.getThreadsPerRow() * c.getCluster() * c.getVector());
  }

  bool hasDynamicSizes() const override { return problem.hasDynamicSizes(); }

  SmallVector<std::string> getPlanNotes() const override {
    if (!problem.hasDynamicSizes())
      return {};
    return {llvm::formatv("dynamic sizes planned as {0:f0} rows of {1} (a "
                          "dynamic batch as 1)",
                          params.representativeSize,
                          ShapedType::isDynamic(problem.n) ? kDynamicRowLength
                                                           : problem.n)
                .str()};
  }

  /// Rows of a dynamic length up to each of kShortRowBuckets get a kernel
  /// of their own (the all-lengths kernel is planned for long rows); then,
  /// where the row count is dynamic and clusters exist, few rows (up to
  /// the SMs over each of kFewRowBuckets) get one, which may spread each
  /// row over a cluster (the all-rows kernel is planned for many: H100, 3
  /// rows of 32769 bf16 softmax took 20.7 us a block per row, 8.3 in
  /// clusters of 8).
  SmallVector<PlanBucket> getPlanBuckets() const override {
    SmallVector<PlanBucket> buckets;
    if (ShapedType::isDynamic(problem.n) && !rowBound)
      for (int64_t upTo : kShortRowBuckets)
        buckets.push_back(PlanBucket{"N", upTo});
    if (ShapedType::isDynamic(problem.m) && !rowCountBound &&
        !problem.batched && target.hasFeature(ArchFeature::Clusters))
      for (int64_t fraction : kFewRowBuckets)
        if (int64_t upTo = target.sm_count / fraction; upTo >= 1)
          buckets.push_back(ShapedType::isDynamic(problem.n)
                                ? PlanBucket{"M", upTo, "N", kFewRowsLongerThan}
                                : PlanBucket{"M", upTo});
    return buckets;
  }

private:
  MLIRContext *context;
  RowProblem problem;
  /// The longest dynamic row length a dispatch variant is planned for (0:
  /// all lengths).
  int64_t rowBound = 0;
  /// The most dynamic rows a dispatch variant is planned for (0: any).
  int64_t rowCountBound = 0;
  /// The problem at its representative sizes, for the cost model.
  RowProblem rep;
  const TargetSpec &target;
  RowCostParams params;
};

class RowReduceFamily : public KernelFamily {
public:
  StringRef getName() const override { return "row_reduce"; }
  StringRef getDisplayName() const override { return "row-wise"; }

  bool canImport(Operation *op) const override {
    return isa<linalg::SoftmaxOp, linalg::ReduceOp>(op);
  }
  LogicalResult importOp(RewriterBase &rewriter, Operation *op,
                         ImportDecline &why) const override {
    return importLinalgRowOp(rewriter, op, why);
  }

  std::unique_ptr<ProblemModel>
  getModel(ProblemOpInterface problem, const TargetSpec &target,
           const CostOverrides &overrides,
           const PlanningSizes &planningSizes) const override {
    return std::make_unique<RowProblemModel>(
        problem->getContext(),
        RowProblem::get(cast<RowReduceOp>(problem.getOperation())), target,
        getParams(overrides), planningSizes);
  }

  FailureOr<std::unique_ptr<ProblemModel>>
  getModel(MLIRContext *context, const llvm::json::Object &json,
           const TargetSpec &target,
           const CostOverrides &overrides) const override {
    FailureOr<RowProblem> problem = RowProblem::fromJSON(context, json);
    if (failed(problem))
      return failure();
    return std::unique_ptr<ProblemModel>(std::make_unique<RowProblemModel>(
        context, *problem, target, getParams(overrides), PlanningSizes()));
  }

  KernelLaunch describeLaunch(ProblemOpInterface op,
                              KernelConfigAttrInterface configAttr,
                              const TargetSpec &target) const override;

  FailureOr<SmallVector<gpu::GPUFuncOp>>
  synthesize(gpu::GPUModuleOp module, KernelOp kernel,
             KernelConfigAttrInterface configAttr, StringRef name,
             const TargetSpec &target) const override {
    auto config = dyn_cast<RowConfigAttr>(configAttr);
    if (!config)
      return kernel.emitOpError("has no row-wise synthesizer for config ")
             << configAttr;
    FailureOr<gpu::GPUFuncOp> func =
        synthesizeRowKernel(module, kernel, config, name, target);
    if (failed(func))
      return failure();
    return SmallVector<gpu::GPUFuncOp>{*func};
  }

  llvm::json::Object problemToJSON(ProblemOpInterface problem) const override {
    return RowProblem::get(cast<RowReduceOp>(problem.getOperation())).toJSON();
  }

  llvm::StringMap<int64_t>
  getSizes(const llvm::json::Object &json) const override {
    return readSizeFields(json, {{"batch", "B"}, {"m", "M"}, {"n", "N"}}, -1);
  }

  /// Elements read once.
  double getWork(const llvm::json::Object &json) const override {
    double work = 1;
    for (const auto &entry : getSizes(json))
      work *= ShapedType::isDynamic(entry.getValue()) ? 0 : entry.getValue();
    return work;
  }

  SmallVector<std::pair<std::string, double>> getCostParams() const override {
    return listCostParams<RowCostParams>(
        [](auto &p, auto fn) { forEachParam(p, fn); });
  }

private:
  static RowCostParams getParams(const CostOverrides &overrides) {
    return applyCostOverrides<RowCostParams>(
        overrides, [](auto &p, auto fn) { forEachParam(p, fn); });
  }
};
} // namespace

KernelLaunch
RowReduceFamily::describeLaunch(ProblemOpInterface op,
                                KernelConfigAttrInterface configAttr,
                                const TargetSpec &target) const {
  auto rowOp = cast<RowReduceOp>(op.getOperation());
  auto config = cast<RowConfigAttr>(configAttr);
  RowProblem p = RowProblem::get(rowOp);
  KernelLaunch launch;
  SmallVector<std::string> rowShape, vectorShape = {"N"};
  if (p.batched)
    rowShape.push_back("B");
  rowShape.append({"M", "N"});
  SmallVector<std::string> outShape(rowShape);
  if (!p.isElementwiseOutput())
    outShape.pop_back();
  SmallVector<std::pair<std::string, SmallVector<std::string>>> names = {
      {"x", rowShape}};
  if (p.weight)
    names.push_back({"weight", vectorShape});
  if (p.bias)
    names.push_back({"bias", vectorShape});
  names.push_back({"y", outShape});
  // Each operand at its own type; where one leaves a size dynamic that
  // another fixes, the kernel still reads it from the operand it indexes.
  for (auto [i, operand] : llvm::enumerate(rowOp.getKernelOperands()))
    launch.args.push_back(LaunchArg{
        names[i].first, cast<MemRefType>(operand.getType()), names[i].second});
  unsigned off = p.batched ? 1 : 0;
  launch.symbols = {
      p.batched ? SizeSymbol{"B", p.batch, 0u, 0} : SizeSymbol{"B", 1, {}, 0},
      SizeSymbol{"M", p.m, 0u, off}, SizeSymbol{"N", p.n, 0u, off + 1}};
  LaunchKernel &kernel = launch.kernels.emplace_back();
  SizeExpr rowGroups =
      SizeExpr::ceilDiv(SizeExpr::symbol("M"), config.getRowsPerBlock());
  if (config.getCluster() > 1)
    rowGroups = rowGroups * SizeExpr::constant(config.getCluster());
  kernel.grid = {rowGroups, SizeExpr::constant(1), SizeExpr::symbol("B")};
  kernel.block = {config.getThreads(), 1, 1};
  kernel.dynamicSmemBytes = getRowSmemBytes(config, p);
  kernel.estimatedRegs = getRowRegisters(config, p);
  for (const LaunchArg &arg : launch.args)
    kernel.params.push_back(arg.name);
  // A clustered row's blocks meet through a workspace (each writes its own
  // slots before it reads the others').
  if (MemRefType workspace = getRowWorkspaceType(config, p)) {
    launch.workspace.push_back(
        WorkspaceBuffer{"partials",
                        workspace,
                        {SizeExpr::symbol("M"),
                         SizeExpr::constant(getRowWorkspaceColumns(config))}});
    kernel.params.push_back("partials");
  }
  return launch;
}

std::unique_ptr<KernelFamily> mlir::amk::createRowReduceFamily() {
  return std::make_unique<RowReduceFamily>();
}
