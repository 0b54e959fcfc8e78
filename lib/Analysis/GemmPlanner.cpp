//===- GemmPlanner.cpp - Choose a GEMM kernel design ----------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/GemmPlanner.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

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
/// At most this many warps per block are enumerated.
static constexpr int64_t kMaxWarps = 16;

/// The largest load vector width (elements) dividing both contiguous extents
/// and fitting a 16-byte access.
static int64_t pickVectorWidth(const GemmProblem &problem) {
  int64_t maxVector = 128 / problem.inType.getIntOrFloatBitWidth();
  int64_t extA = problem.getContiguousExtentA(),
          extB = problem.getContiguousExtentB();
  for (int64_t v = maxVector; v > 1; v /= 2)
    if (!ShapedType::isDynamic(extA) && !ShapedType::isDynamic(extB) &&
        extA % v == 0 && extB % v == 0)
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

static void enumerate(const GemmProblem &problem,
                      function_ref<void(const RawConfig &)> fn) {
  int64_t vector = pickVectorWidth(problem);
  bool tf32 = problem.inType.isF32() && problem.tf32;
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
                               vector,
                               32 * warps,
                               swizzle});
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

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

std::string GemmPlan::summarizeRejections(bool withExamples) const {
  SmallVector<GemmRejection> sorted(rejections.begin(), rejections.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const GemmRejection &a, const GemmRejection &b) {
                     return a.count > b.count;
                   });
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(sorted, os, [&](const GemmRejection &r) {
    os << r.count << " " << r.reason;
    if (withExamples)
      os << " (e.g. " << r.example << ")";
  });
  return out;
}

/// A tile side is "far larger than the problem" when it exceeds both the
/// smallest side enumerated and the next power of two of the size.
static bool exceedsProblem(int64_t tile, int64_t size, int64_t smallest) {
  return tile > smallest && tile > static_cast<int64_t>(llvm::PowerOf2Ceil(
                                       std::max<int64_t>(size, 1)));
}

GemmPlan mlir::amk::planGemm(MLIRContext *context, const GemmProblem &problem,
                             const TargetSpec &target,
                             const GemmPlanOptions &options) {
  GemmPlan plan;
  plan.usedRepresentativeSizes = problem.hasDynamicSizes();
  GemmProblem rep = getRepresentativeProblem(problem, options.cost);
  Location loc = UnknownLoc::get(context);
  llvm::StringMap<unsigned> reasonIndex;
  auto reject = [&](StringRef reason, const std::string &message) {
    ++plan.numRejected;
    auto [it, inserted] =
        reasonIndex.try_emplace(reason, plan.rejections.size());
    if (inserted)
      plan.rejections.push_back(GemmRejection{reason.str(), 0, message});
    ++plan.rejections[it->second].count;
  };
  bool isMma = !problem.inType.isF32();
  int64_t smallestMN = isMma ? kMmaBlockMN[0] : kSimtBlockMN[0];
  int64_t smallestK = isMma ? kMmaBlockK[0] : kSimtBlockK[0];

  SmallVector<GemmPlanCandidate> survivors;
  enumerate(problem, [&](const RawConfig &raw) {
    auto silent = [&]() -> InFlightDiagnostic {
      // Configs the attribute verifier refuses are not candidates.
      return InFlightDiagnostic();
    };
    GemmConfigAttr config = GemmConfigAttr::getChecked(
        silent, context, ArrayRef<int64_t>(raw.block),
        ArrayRef<int64_t>(raw.warp), raw.math, ArrayRef<int64_t>(raw.inst),
        ArrayRef<int64_t>(raw.thread), raw.stages, raw.vector, raw.threads,
        raw.swizzle, /*split_k=*/int64_t(1));
    if (!config)
      return;
    ++plan.numCandidates;

    SmallVector<HarnessFinding> findings;
    if (failed(
            checkGemmResources(config, problem, target, loc, "", findings))) {
      reject(findings.front().check, findings.front().message);
      return;
    }
    if (exceedsProblem(raw.block[0], rep.m, smallestMN) ||
        exceedsProblem(raw.block[1], rep.n, smallestMN) ||
        exceedsProblem(raw.block[2], rep.k, smallestK)) {
      reject("heuristic:tile-exceeds-problem",
             llvm::formatv("block tile {0}x{1}x{2} is far larger than the "
                           "{3}x{4}x{5} problem",
                           raw.block[0], raw.block[1], raw.block[2], rep.m,
                           rep.n, rep.k));
      return;
    }
    GemmResources resources = getGemmResources(config, problem, target);
    GemmCost cost =
        predictGemmTime(config, rep, target, resources, options.cost);
    if (!std::isfinite(cost.totalNs)) {
      reject("target:no-math-path",
             llvm::formatv("target '{0}' has no peak rate for {1}", target.name,
                           stringifyMathInst(raw.math)));
      return;
    }
    survivors.push_back(GemmPlanCandidate{config, resources, cost});
  });

  auto key = [](const GemmPlanCandidate &c) {
    GemmConfigAttr cfg = c.config;
    bool notMult32 = cfg.getBlockM() % 32 != 0 || cfg.getBlockN() % 32 != 0;
    // Round the prediction to 0.1% so that model noise does not override the
    // tie-breakers.
    double t = c.cost.totalNs;
    int64_t bucket = static_cast<int64_t>(std::llround(std::log(t) * 1000));
    return std::make_tuple(bucket, notMult32, c.resources.dynamicSmemBytes,
                           cfg.getThreads(), cfg.getSwizzle(), cfg.getBlockK());
  };
  std::stable_sort(survivors.begin(), survivors.end(),
                   [&](const GemmPlanCandidate &a, const GemmPlanCandidate &b) {
                     return key(a) < key(b);
                   });

  // The ladder descends in shared memory: after the winner, each rung is the
  // best config that needs strictly less shared memory than the rung above,
  // so a launcher short of shared memory can step down. Rungs left over are
  // filled with the best configs of other block tiles.
  int64_t rungs = std::max<int64_t>(options.ladderSize, 1);
  auto full = [&] { return static_cast<int64_t>(plan.ladder.size()) >= rungs; };
  for (const GemmPlanCandidate &c : survivors) {
    if (full())
      break;
    if (plan.ladder.empty() ||
        c.resources.dynamicSmemBytes <
            plan.ladder.back().resources.dynamicSmemBytes)
      plan.ladder.push_back(c);
  }
  for (const GemmPlanCandidate &c : survivors) {
    if (full())
      break;
    if (llvm::none_of(plan.ladder, [&](const GemmPlanCandidate &other) {
          return other.config.getBlock() == c.config.getBlock();
        }))
      plan.ladder.push_back(c);
  }
  return plan;
}
