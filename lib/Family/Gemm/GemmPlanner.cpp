//===- GemmPlanner.cpp - The GEMM candidate space and its ranking --------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Gemm/GemmFamily.h"

#include "AMK/Family/Gemm/GemmResources.h"
#include "AMK/Family/SilentEmitter.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ScopedPrinter.h"

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::amk;

//===----------------------------------------------------------------------===//
// The enumeration space
//===----------------------------------------------------------------------===//

static constexpr int64_t kMmaBlockMN[] = {16, 32, 64, 128, 256};
static constexpr int64_t kMmaBlockK[] = {32, 64};
static constexpr int64_t kMmaWarpMN[] = {16, 32, 64};
static constexpr int64_t kMmaStages[] = {2, 3, 4, 5, 6};
static constexpr int64_t kSimtBlockMN[] = {16, 32, 64, 128};
static constexpr int64_t kSimtBlockK[] = {8, 16, 32};
/// Heuristic: deeper simt k-tiles only for skinny problems (M or N below
/// this). On the H200 at 4096^3, BK = 16 and 32 ran 12% and 6% slower than
/// BK = 8, while a 1x4096x4096 product ran 2.2x faster with BK = 32 than
/// with BK = 8 (docs/PERF_LOG.md); the cost model does not capture either
/// yet, and given deep k-tiles it picks small tiles for square problems.
static constexpr int64_t kSimtDeepKMaxMN = 256;
static constexpr int64_t kSimtThreadMN[] = {1, 2, 4, 8};
static constexpr int64_t kSimtLanesM[] = {1, 2, 4, 8, 16, 32};
static constexpr int64_t kSwizzles[] = {1, 8};
/// wgmma: warpgroup tiles 64 x WN; block tiles of at most 4 warpgroups and
/// 256 rows or columns (TMA boxes).
static constexpr int64_t kWgmmaWarpN[] = {64, 96, 128, 160, 192, 224, 256};
static constexpr int64_t kWgmmaBlockM[] = {64, 128, 256};
static constexpr int64_t kWgmmaStages[] = {2, 3, 4, 5, 6};
static constexpr int64_t kWgmmaMaxWarpgroups = 4;
/// At most this many warps per block are enumerated.
static constexpr int64_t kMaxWarps = 16;

/// The largest load vector width (elements) fitting a 16-byte access that
/// divides either contiguous extent (the other operand narrows it, see
/// getOperandVector); with `versioned`, a dynamic extent may turn out to be
/// a multiple of any width (see getOperandVersionedVector).
static int64_t pickVectorWidth(const GemmProblem &problem, bool versioned) {
  int64_t maxVector = 128 / problem.inType.getIntOrFloatBitWidth();
  auto divides = [&](int64_t v, int64_t extent) {
    return ShapedType::isDynamic(extent) ? versioned : extent % v == 0;
  };
  for (int64_t v = maxVector; v > 1; v /= 2)
    if (divides(v, problem.getContiguousExtentA()) ||
        divides(v, problem.getContiguousExtentB()))
      return v;
  return 1;
}

namespace {
struct RawConfig {
  SmallVector<int64_t, 3> block;
  SmallVector<int64_t, 2> warp, inst, thread;
  MathInst math;
  int64_t stages, vector, threads, swizzle;
};
} // namespace

static void enumerateRaw(const GemmProblem &problem,
                         function_ref<void(const RawConfig &)> fn) {
  int64_t vector = pickVectorWidth(problem, /*versioned=*/false);
  bool tf32 = problem.inType.isF32() && problem.isTF32();
  if (problem.inType.isF16() || problem.inType.isBF16() || tf32) {
    // Tensor cores: m16n8k16 for 16-bit types, m16n8k8 for tf32, whose
    // 32-bit elements halve the K of a shared-memory row.
    int64_t instK = tf32 ? 8 : 16;
    for (int64_t bm : kMmaBlockMN)
      for (int64_t bn : kMmaBlockMN)
        for (int64_t bk16 : kMmaBlockK)
          for (int64_t wm : kMmaWarpMN)
            for (int64_t wn : kMmaWarpMN) {
              if (wm > bm || wn > bn || bm % wm || bn % wn)
                continue;
              int64_t warps = (bm / wm) * (bn / wn);
              if (warps > kMaxWarps)
                continue;
              for (int64_t stages : kMmaStages)
                for (int64_t swizzle : kSwizzles)
                  fn(RawConfig{{bm, bn, tf32 ? bk16 / 2 : bk16},
                               {wm, wn},
                               {16, 8, instK},
                               {},
                               MathInst::mma_sync,
                               stages,
                               pickVectorWidth(problem, /*versioned=*/true),
                               32 * warps,
                               swizzle});
            }
    // wgmma (Hopper; checkGemmLowerable keeps it to targets that have it):
    // tiles of 128-byte swizzle rows, BK = 128 / element bytes; in every
    // layout (repacksOperand: what wgmma cannot read as stored is copied first).
    // Warp specialized (a producer warpgroup beside the compute ones) where
    // it is persistent: static M and N (and batch).
    bool persistent =
        !ShapedType::isDynamic(problem.m) &&
        !ShapedType::isDynamic(problem.n) &&
        !(problem.batched && ShapedType::isDynamic(problem.batch));
    for (int64_t bm : kWgmmaBlockM)
      for (int64_t wn : kWgmmaWarpN)
        for (int64_t bn : {wn, 2 * wn}) {
          int64_t warpgroups = (bm / 64) * (bn / wn);
          if (bn > 256 || warpgroups > kWgmmaMaxWarpgroups)
            continue;
          for (int64_t stages : kWgmmaStages)
            for (int64_t swizzle : kSwizzles)
              for (int64_t producer : {0, 128}) {
                if (producer && !persistent)
                  continue;
                fn(RawConfig{{bm, bn, 128 / problem.inBytes()},
                             {64, wn},
                             {64, wn, instK},
                             {},
                             MathInst::wgmma,
                             stages,
                             pickVectorWidth(problem, /*versioned=*/true),
                             128 * warpgroups + producer,
                             swizzle});
              }
        }
    if (!tf32)
      return;
  }
  // f32: SIMT FMAs (also a fallback for tf32, which it computes exactly).
  auto isSmall = [](int64_t size) {
    return !ShapedType::isDynamic(size) && size < kSimtDeepKMaxMN;
  };
  bool skinny = isSmall(problem.m) || isSmall(problem.n);
  for (int64_t bm : kSimtBlockMN)
    for (int64_t bn : kSimtBlockMN)
      for (int64_t bk : kSimtBlockK)
        for (int64_t tm : kSimtThreadMN)
          for (int64_t tn : kSimtThreadMN)
            for (int64_t lanesM : kSimtLanesM) {
              if (bk > kSimtBlockK[0] && !skinny)
                continue;
              int64_t wm = tm * lanesM, wn = tn * (32 / lanesM);
              if (wm > bm || wn > bn || bm % wm || bn % wn)
                continue;
              int64_t warps = (bm / wm) * (bn / wn);
              if (warps > kMaxWarps)
                continue;
              for (int64_t swizzle : kSwizzles)
                fn(RawConfig{{bm, bn, bk},
                             {wm, wn},
                             {},
                             {tm, tn},
                             MathInst::simt,
                             2,
                             vector,
                             32 * warps,
                             swizzle});
            }
}

void mlir::amk::forEachCalibratedParam(
    GemmCostParams &params, function_ref<void(StringRef, double &)> fn) {
  fn("launch_overhead_ns", params.launchOverheadNs);
  fn("simt_efficiency", params.simtEfficiency);
  fn("mma_sync_efficiency_hopper", params.mmaSyncEfficiencyHopper);
  fn("mma_sync_efficiency_native", params.mmaSyncEfficiencyNative);
  fn("mma_sync_tf32_efficiency", params.mmaSyncTf32Efficiency);
  fn("mma_sync_realign_efficiency", params.mmaSyncRealignEfficiency);
  fn("wgmma_efficiency", params.wgmmaEfficiency);
  fn("wgmma_persistent_efficiency", params.wgmmaPersistentEfficiency);
  fn("hbm_efficiency", params.hbmEfficiency);
  fn("hbm_per_sm_share", params.hbmPerSmShare);
  fn("repack_16bit_share", params.repack16BitShare);
  fn("mem_latency_ns", params.memLatencyNs);
  fn("async_copy_latency_ns", params.asyncCopyLatencyNs);
  fn("tma_latency_ns", params.tmaLatencyNs);
  fn("tma_stream_latency_ns", params.tmaStreamLatencyNs);
  fn("async_copy_hbm_share", params.asyncCopyHbmShare);
  fn("l2_bandwidth_per_hbm", params.l2BandwidthPerHbm);
  fn("lone_block_efficiency", params.loneBlockEfficiency);
  fn("overlap", params.overlap);
}

int64_t mlir::amk::getAccumulatorsPerThread(GemmConfigAttr config) {
  if (config.getMath() == MathInst::mma_sync)
    return config.getWarpM() * config.getWarpN() / 32;
  if (config.getMath() == MathInst::wgmma)
    return config.getWarpM() * config.getWarpN() / 128;
  ArrayRef<int64_t> thread = config.getThread();
  return thread.size() == 2 ? thread[0] * thread[1] : 0;
}

//===----------------------------------------------------------------------===//
// The model of one problem
//===----------------------------------------------------------------------===//

/// A tile side is "far larger than the problem" when it exceeds both the
/// smallest side enumerated and the next power of two of the size.
static bool exceedsProblem(int64_t tile, int64_t size, int64_t smallest) {
  return tile > smallest && tile > static_cast<int64_t>(llvm::PowerOf2Ceil(
                                       std::max<int64_t>(size, 1)));
}

static std::string formatUs(double ns) {
  return llvm::formatv("{0:f1}", ns / 1000.0).str();
}

namespace {
class GemmProblemModel : public ProblemModel {
public:
  GemmProblemModel(MLIRContext *context, const GemmProblem &problem,
                   const TargetSpec &target, const GemmCostParams &params,
                   const PlanningSizes &planningSizes)
      : context(context), problem(problem),
        rep(getRepresentativeProblem(problem, params)), target(target),
        params(params) {
    for (auto [symbol, dynamic, size] :
         {std::make_tuple("B", problem.batch, &rep.batch),
          std::make_tuple("M", problem.m, &rep.m),
          std::make_tuple("N", problem.n, &rep.n),
          std::make_tuple("K", problem.k, &rep.k)}) {
      auto it = planningSizes.find(symbol);
      if (ShapedType::isDynamic(dynamic) && it != planningSizes.end() &&
          it->second >= 1) {
        *size = it->second;
        plannedAt[symbol] = it->second;
      }
    }
  }

  FailureOr<KernelResources>
  getResources(KernelConfigAttrInterface config) const override {
    auto gemm = dyn_cast<GemmConfigAttr>(config);
    if (!gemm)
      return failure();
    return getGemmResources(gemm, problem, target);
  }

  LogicalResult checkLowerable(KernelConfigAttrInterface config,
                               std::string &whyNot) const override {
    auto gemm = dyn_cast<GemmConfigAttr>(config);
    if (!gemm) {
      whyNot = "not a #amk.gemm_config";
      return failure();
    }
    return checkGemmLowerable(gemm, problem, target, whyNot);
  }

  void
  enumerate(function_ref<void(KernelConfigAttrInterface)> fn) const override {
    enumerateRaw(problem, [&](const RawConfig &raw) {
      for (auto [splitK, reduce] : getSplits(raw))
        if (GemmConfigAttr config = getConfig(raw, splitK, reduce))
          fn(config);
    });
  }

  std::optional<std::pair<std::string, std::string>>
  prune(KernelConfigAttrInterface config) const override {
    auto c = cast<GemmConfigAttr>(config);
    bool isMma = !problem.inType.isF32();
    int64_t smallestMN = isMma ? kMmaBlockMN[0] : kSimtBlockMN[0];
    // (wgmma's smallest tiles are a warpgroup's 64 rows and 64 columns.)
    if (c.getMath() == MathInst::wgmma)
      smallestMN = std::max(kWgmmaBlockM[0], kWgmmaWarpN[0]);
    int64_t smallestK = isMma ? kMmaBlockK[0] : kSimtBlockK[0];
    if (!exceedsProblem(c.getBlockM(), rep.m, smallestMN) &&
        !exceedsProblem(c.getBlockN(), rep.n, smallestMN) &&
        !exceedsProblem(c.getBlockK(), rep.k, smallestK))
      return std::nullopt;
    return std::make_pair(
        std::string("heuristic:tile-exceeds-problem"),
        llvm::formatv("block tile {0}x{1}x{2} is far larger than the "
                      "{3}x{4}x{5} problem",
                      c.getBlockM(), c.getBlockN(), c.getBlockK(), rep.m, rep.n,
                      rep.k)
            .str());
  }

  CandidateCost predict(KernelConfigAttrInterface config,
                        const KernelResources &resources) const override {
    GemmCost cost = predictGemmTime(cast<GemmConfigAttr>(config), rep, target,
                                    resources, params);
    CandidateCost out;
    out.totalNs = cost.totalNs;
    out.terms = llvm::formatv("compute {0}, hbm {1}, l2 {2}, feed {3}, smem "
                              "{4} us",
                              formatUs(cost.computeNs), formatUs(cost.hbmNs),
                              formatUs(cost.l2Ns), formatUs(cost.feedNs),
                              formatUs(cost.smemNs))
                    .str();
    out.notes = llvm::formatv("{0} tiles", cost.tiles).str();
    return out;
  }

  SmallVector<int64_t>
  getTieBreakers(KernelConfigAttrInterface config,
                 const KernelResources &resources) const override {
    auto c = cast<GemmConfigAttr>(config);
    bool notMult32 = c.getBlockM() % 32 != 0 || c.getBlockN() % 32 != 0;
    // On a tie the deterministic split reduction wins.
    bool atomic = isAtomicSplit(c);
    // A persistent kernel takes the grouped raster on a tie: on the H100 it
    // ran 3-40% faster than row order at every shape measured, where the
    // model's per-wave L2 reuse sees none (PERF_LOG, 2026-12-06, sixth).
    // Elsewhere the plain order wins a tie (mma_sync measured no
    // difference).
    int64_t raster = getPersistentBlocks(c, problem, target) ? -c.getSwizzle()
                                                             : c.getSwizzle();
    return {
        notMult32,      c.getSplitK(), atomic,       resources.dynamicSmemBytes,
        c.getThreads(), raster,        c.getBlockK()};
  }

  std::string getShapeKey(KernelConfigAttrInterface config,
                          bool coarse) const override {
    auto c = cast<GemmConfigAttr>(config);
    std::string key = llvm::formatv("{0}x{1}x{2}", c.getBlockM(), c.getBlockN(),
                                    c.getBlockK());
    if (!coarse)
      key += llvm::formatv("/{0}x{1}", c.getWarpM(), c.getWarpN()).str();
    return key;
  }

  bool hasPartialTiles(KernelConfigAttrInterface config) const override {
    auto c = cast<GemmConfigAttr>(config);
    return problem.hasDynamicSizes() || problem.m % c.getBlockM() ||
           problem.n % c.getBlockN() || problem.k % c.getBlockK();
  }

  bool hasDynamicSizes() const override { return problem.hasDynamicSizes(); }

  SmallVector<std::string> getPlanNotes() const override {
    SmallVector<std::string> notes;
    if (problem.hasDynamicSizes()) {
      std::string note =
          llvm::formatv("dynamic sizes planned as {0} (a dynamic batch as 1)",
                        params.representativeSize);
      for (const auto &entry : plannedAt)
        note += llvm::formatv(", {0} as {1}", entry.getKey(), entry.getValue());
      notes.push_back(note);
    }
    // Why a target with the Hopper path does not take it here.
    if (std::optional<std::string> why = whyNoWgmma())
      notes.push_back("the TMA + wgmma path does not apply: " + *why);
    return notes;
  }

  /// A small dynamic M (decode) gets a kernel of its own.
  SmallVector<PlanBucket> getPlanBuckets() const override {
    if (!ShapedType::isDynamic(problem.m) || plannedAt.contains("M"))
      return {};
    return {PlanBucket{"M", kGemmSmallMBucket}};
  }

private:
  /// On a wgmma target, what keeps this problem off the path (asked of a
  /// typical config: the problem's own reasons, not a tile's); none when
  /// the path applies or the target has no wgmma.
  std::optional<std::string> whyNoWgmma() const {
    if (!target.hasFeature(ArchFeature::Wgmma) ||
        !(problem.inType.isF16() || problem.inType.isBF16() ||
          (problem.inType.isF32() && problem.isTF32())))
      return std::nullopt;
    RawConfig raw{{128, 128, 128 / problem.inBytes()},
                  {64, 128},
                  {64, 128, problem.inType.isF32() ? 8 : 16},
                  {},
                  MathInst::wgmma,
                  /*stages=*/4,
                  /*vector=*/128 / problem.inType.getIntOrFloatBitWidth(),
                  /*threads=*/256,
                  /*swizzle=*/1};
    GemmConfigAttr config = getConfig(raw, 1, SplitReduce::atomic);
    std::string whyNot;
    if (!config ||
        succeeded(checkGemmLowerable(config, problem, target, whyNot)))
      return std::nullopt;
    return whyNot;
  }

  /// Split-K for grids that fill at most a quarter of the SMs (measured on
  /// the H200: it pays on decode-like shapes, 0.17x -> 0.75x cuBLAS at fp32
  /// 1x4096x4096, but a grid of 64 tiles lost to its zeroing and atomics):
  /// up to 32 splits of at least 4 k-tiles each, summed through a workspace
  /// by a second kernel (any problem with an f32 accumulator), by the last
  /// split to arrive at each tile (static sizes), or atomically (where the
  /// problem allows).
  SmallVector<std::pair<int64_t, SplitReduce>, 12>
  getSplits(const RawConfig &raw) const {
    SmallVector<std::pair<int64_t, SplitReduce>, 12> splits = {
        {1, SplitReduce::atomic}};
    int64_t outputTiles = rep.batch * llvm::divideCeil(rep.m, raw.block[0]) *
                          llvm::divideCeil(rep.n, raw.block[1]);
    int64_t kTiles = llvm::divideCeil(rep.k, raw.block[2]);
    if (!problem.accType.isF32() || outputTiles > 2 * target.sm_count)
      return splits;
    bool staticSizes =
        !ShapedType::isDynamic(problem.m) &&
        !ShapedType::isDynamic(problem.n) &&
        !(problem.batched && ShapedType::isDynamic(problem.batch));
    for (int64_t s = 2; s <= 32 && kTiles / s >= 4; s *= 2) {
      // (Not serial: on the H100 its turns cost 1.6-2.6 us more than the
      // workspace's second kernel, launched programmatically, at every tile
      // up to 128 x 128, and tie at 128 x 256; explicit configs only.)
      splits.push_back({s, SplitReduce::workspace});
      // (The last split: measured on wgmma tiles whose every warp computes,
      // where it beat the workspace by 0.2-0.8 us at 64 x 64 and 2-4
      // splits; not yet in a warp-specialized kernel.)
      int64_t warpgroupThreads =
          raw.block[0] / raw.warp[0] * (raw.block[1] / raw.warp[1]) * 128;
      if (staticSizes && raw.math == MathInst::wgmma &&
          raw.threads == warpgroupThreads)
        splits.push_back({s, SplitReduce::last});
      if (supportsSplitK(problem))
        splits.push_back({s, SplitReduce::atomic});
    }
    return splits;
  }

  /// The config, or null when the attribute's verifier refuses it (such
  /// configs are not candidates).
  GemmConfigAttr getConfig(const RawConfig &raw, int64_t splitK,
                           SplitReduce reduce) const {
    return GemmConfigAttr::getChecked(
        getSilentEmitter(), context, ArrayRef<int64_t>(raw.block),
        ArrayRef<int64_t>(raw.warp), raw.math, ArrayRef<int64_t>(raw.inst),
        ArrayRef<int64_t>(raw.thread), raw.stages, raw.vector, raw.threads,
        raw.swizzle, splitK, reduce);
  }

  MLIRContext *context;
  GemmProblem problem;
  /// The problem at its representative sizes, for the cost model.
  GemmProblem rep;
  const TargetSpec &target;
  GemmCostParams params;
  /// The dynamic symbols planned at a given size instead of the
  /// representative one.
  llvm::StringMap<int64_t> plannedAt;
};
} // namespace

std::unique_ptr<ProblemModel> mlir::amk::createGemmProblemModel(
    MLIRContext *context, const GemmProblem &problem, const TargetSpec &target,
    const GemmCostParams &params, const PlanningSizes &planningSizes) {
  return std::make_unique<GemmProblemModel>(context, problem, target, params,
                                            planningSizes);
}
