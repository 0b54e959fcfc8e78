//===- GemmPlanner.cpp - Choose a GEMM kernel design ----------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/GemmPlanner.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
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

static void enumerate(const GemmProblem &problem,
                      function_ref<void(const RawConfig &)> fn) {
  int64_t vector = pickVectorWidth(problem, /*versioned=*/false);
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
                               pickVectorWidth(problem, /*versioned=*/true),
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

//===----------------------------------------------------------------------===//
// The tuning database
//===----------------------------------------------------------------------===//

TuningProblem mlir::amk::getTuningProblem(const GemmProblem &problem,
                                          StringRef signature) {
  TuningProblem t;
  t.signature = signature.str();
  // The family is the signature without its sizes token
  // (gemm_[<batch>x]<m>x<n>x<k>_...).
  StringRef rest = signature;
  if (rest.consume_front("gemm_")) {
    auto [sizes, tail] = rest.split('_');
    t.family = ("gemm_" + Twine(problem.batched ? "b_" : "") + tail).str();
  } else {
    t.family = signature.str();
  }
  t.batch = problem.batched ? problem.batch : 1;
  t.m = problem.m;
  t.n = problem.n;
  t.k = problem.k;
  auto typeName = [](Type type) { return llvm::to_string(type); };
  t.details = llvm::json::Object{
      {"batched", problem.batched},
      {"in_type", typeName(problem.inType)},
      {"acc_type", typeName(problem.accType)},
      {"out_type", typeName(problem.outType)},
      {"transpose_a", problem.transposeA},
      {"transpose_b", problem.transposeB},
      {"precision", problem.tf32 ? "tf32" : "ieee"},
      {"alpha", problem.alpha},
      {"beta", problem.beta},
      {"bias", problem.hasBias},
      {"activation", stringifyActivation(problem.activation)}};
  return t;
}

FailureOr<GemmProblem> mlir::amk::getGemmProblem(MLIRContext *context,
                                                 const TuningProblem &t) {
  const llvm::json::Object &d = t.details;
  auto type = [&](StringRef key) -> Type {
    std::optional<StringRef> name = d.getString(key);
    if (!name)
      return {};
    if (*name == "f32")
      return Float32Type::get(context);
    if (*name == "f16")
      return Float16Type::get(context);
    if (*name == "bf16")
      return BFloat16Type::get(context);
    return {};
  };
  GemmProblem p;
  p.inType = type("in_type");
  p.accType = type("acc_type");
  p.outType = type("out_type");
  std::optional<StringRef> activation = d.getString("activation");
  std::optional<Activation> act =
      activation ? symbolizeActivation(*activation) : std::nullopt;
  if (!p.inType || !p.accType || !p.outType || !act)
    return failure();
  p.activation = *act;
  p.batched = d.getBoolean("batched").value_or(t.batch > 1);
  p.batch = t.batch;
  p.m = t.m;
  p.n = t.n;
  p.k = t.k;
  p.transposeA = d.getBoolean("transpose_a").value_or(false);
  p.transposeB = d.getBoolean("transpose_b").value_or(false);
  p.tf32 = d.getString("precision") == std::optional<StringRef>("tf32");
  p.hasBias = d.getBoolean("bias").value_or(false);
  p.alpha = d.getNumber("alpha").value_or(1.0);
  p.beta = d.getNumber("beta").value_or(0.0);
  return p;
}

void mlir::amk::forEachCalibratedParam(
    GemmCostParams &params, function_ref<void(StringRef, double &)> fn) {
  fn("launch_overhead_ns", params.launchOverheadNs);
  fn("simt_efficiency", params.simtEfficiency);
  fn("mma_sync_efficiency_hopper", params.mmaSyncEfficiencyHopper);
  fn("mma_sync_efficiency_native", params.mmaSyncEfficiencyNative);
  fn("hbm_efficiency", params.hbmEfficiency);
  fn("mem_latency_ns", params.memLatencyNs);
  fn("l2_bandwidth_per_hbm", params.l2BandwidthPerHbm);
  fn("lone_block_efficiency", params.loneBlockEfficiency);
  fn("overlap", params.overlap);
}

int64_t mlir::amk::getAccumulatorsPerThread(GemmConfigAttr config) {
  if (config.getMath() == MathInst::mma_sync)
    return config.getWarpM() * config.getWarpN() / 32;
  ArrayRef<int64_t> thread = config.getThread();
  return thread.size() == 2 ? thread[0] * thread[1] : 0;
}

namespace {
/// What the tuning database says about one problem on one target.
struct TuningContext {
  const TuningDB &db;
  std::string target;
  TuningProblem problem;
  std::vector<const TuningRecord *> repairs;
  llvm::StringSet<> failedConfigs, measuredConfigs;
  int64_t dropped = 0;

  TuningContext(const TuningDB &db, const GemmProblem &p,
                const TargetSpec &spec, StringRef signature)
      : db(db), target(getTargetIdentity(spec)),
        problem(getTuningProblem(p, signature)),
        repairs(db.repairs(target, problem)) {
    for (const TuningRecord *r : db.failures(target, signature))
      failedConfigs.insert(r->config);
    for (const TuningRecord *r : db.exact(target, signature))
      measuredConfigs.insert(r->config);
  }

  /// Whether a repair rule or a failed measurement drops `c`: (reason,
  /// message).
  std::optional<std::pair<std::string, std::string>>
  rejects(const GemmPlanCandidate &c, const GemmProblem &p,
          bool measured = false) {
    std::string config = llvm::to_string(c.config);
    auto drop = [&](StringRef reason, const Twine &message) {
      ++dropped;
      return std::make_optional(std::make_pair(reason.str(), message.str()));
    };
    if (failedConfigs.contains(config))
      return drop("tuning:failed", "failed when measured on this problem");
    bool partial = p.hasDynamicSizes() || p.m % c.config.getBlockM() ||
                   p.n % c.config.getBlockN() || p.k % c.config.getBlockK();
    for (const TuningRecord *r : repairs) {
      if (r->rule == "max-smem" && c.resources.dynamicSmemBytes >= r->value)
        return drop("tuning:max-smem",
                    llvm::formatv("{0} B of shared memory failed to launch: {1}",
                                  r->value, r->reason));
      // A measured time of this very config outweighs the spill heuristic.
      if (r->rule == "max-accumulators" && !measured &&
          getAccumulatorsPerThread(c.config) >= r->value)
        return drop("tuning:spills",
                    llvm::formatv("{0} accumulators per thread spilled: {1}",
                                  r->value, r->reason));
      if (r->rule == "unsafe-edge" && partial && r->config == config)
        return drop("tuning:unsafe-edge",
                    "wrong on partial tiles when measured: " + r->reason);
    }
    return std::nullopt;
  }

  /// The candidate a measured record names, if its config is still legal
  /// for `p` on `spec` and no repair drops it.
  std::optional<GemmPlanCandidate>
  candidate(MLIRContext *context, const TuningRecord &r, const GemmProblem &p,
            const GemmProblem &rep, const TargetSpec &spec,
            const GemmCostParams &params) {
    GemmConfigAttr config;
    {
      // A config this AMK no longer parses is skipped, not an error.
      ScopedDiagnosticHandler quiet(context, [](Diagnostic &) {
        return success();
      });
      config = llvm::dyn_cast_if_present<GemmConfigAttr>(
          parseAttribute(r.config, context));
    }
    if (!config)
      return std::nullopt;
    SmallVector<HarnessFinding> findings;
    if (failed(checkGemmResources(config, p, spec, UnknownLoc::get(context),
                                  "", findings)))
      return std::nullopt;
    GemmResources resources = getGemmResources(config, p, spec);
    GemmPlanCandidate c;
    c.config = config;
    c.resources = resources;
    c.cost = predictGemmTime(config, rep, spec, resources, params);
    bool measured = r.problem.signature == problem.signature;
    if (rejects(c, p, measured))
      return std::nullopt;
    return c;
  }

  std::string summary(ArrayRef<GemmPlanCandidate> ladder) const {
    int64_t measured = llvm::count_if(ladder, [](const GemmPlanCandidate &c) {
      return c.source == GemmCandidateSource::Measured;
    });
    int64_t nearby = llvm::count_if(ladder, [](const GemmPlanCandidate &c) {
      return c.source == GemmCandidateSource::Nearby;
    });
    return llvm::formatv("{0} measured, {1} from nearby problems, {2} "
                         "repair rule(s), {3} candidate(s) dropped{4}",
                         measured, nearby, repairs.size(), dropped,
                         db.calibration(target) ? ", calibrated cost model"
                                                : "")
        .str();
  }
};
} // namespace

GemmPlan mlir::amk::planGemm(MLIRContext *context, const GemmProblem &problem,
                             const TargetSpec &target,
                             const GemmPlanOptions &options) {
  GemmPlan plan;
  plan.usedRepresentativeSizes = problem.hasDynamicSizes();
  GemmCostParams params = options.cost;
  if (options.tuningDB)
    if (const TuningRecord *calibration =
            options.tuningDB->calibration(getTargetIdentity(target)))
      forEachCalibratedParam(params, [&](StringRef name, double &value) {
        value = calibration->params.lookup(name) > 0
                    ? calibration->params.lookup(name)
                    : value;
      });
  GemmProblem rep = getRepresentativeProblem(problem, params);
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

  SmallVector<GemmPlanCandidate, 4> survivors;
  // Split-K for grids that fill at most a quarter of the SMs (measured on
  // the H200: it pays on decode-like shapes, 0.17x -> 0.75x cuBLAS at fp32
  // 1x4096x4096, but a grid of 64 tiles lost to its zeroing and atomics):
  // up to 32 splits of at least 4 k-tiles each, where the problem allows.
  auto splitsFor = [&](const RawConfig &raw) {
    SmallVector<int64_t, 6> splits = {1};
    int64_t outputTiles = rep.batch * llvm::divideCeil(rep.m, raw.block[0]) *
                          llvm::divideCeil(rep.n, raw.block[1]);
    int64_t kTiles = llvm::divideCeil(rep.k, raw.block[2]);
    if (!supportsSplitK(problem) || 4 * outputTiles > target.sm_count)
      return splits;
    for (int64_t s = 2; s <= 32 && kTiles / s >= 4; s *= 2)
      splits.push_back(s);
    return splits;
  };
  auto consider = [&](const RawConfig &raw, int64_t splitK) {
    auto silent = [&]() -> InFlightDiagnostic {
      // Configs the attribute verifier refuses are not candidates.
      return InFlightDiagnostic();
    };
    GemmConfigAttr config = GemmConfigAttr::getChecked(
        silent, context, ArrayRef<int64_t>(raw.block),
        ArrayRef<int64_t>(raw.warp), raw.math, ArrayRef<int64_t>(raw.inst),
        ArrayRef<int64_t>(raw.thread), raw.stages, raw.vector, raw.threads,
        raw.swizzle, splitK);
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
        predictGemmTime(config, rep, target, resources, params);
    if (!std::isfinite(cost.totalNs)) {
      reject("target:no-math-path",
             llvm::formatv("target '{0}' has no peak rate for {1}", target.name,
                           stringifyMathInst(raw.math)));
      return;
    }
    GemmPlanCandidate &c = survivors.emplace_back();
    c.config = config;
    c.resources = resources;
    c.cost = cost;
  };
  enumerate(problem, [&](const RawConfig &raw) {
    for (int64_t splitK : splitsFor(raw))
      consider(raw, splitK);
  });

  // The tuning database: repairs and failures drop candidates.
  std::optional<TuningContext> tuning;
  if (options.tuningDB)
    tuning.emplace(*options.tuningDB, problem, target, options.signature);
  if (tuning)
    llvm::erase_if(survivors, [&](const GemmPlanCandidate &c) {
      std::optional<std::pair<std::string, std::string>> why =
          tuning->rejects(c, problem);
      if (why)
        reject(why->first, why->second);
      return why.has_value();
    });

  auto key = [](const GemmPlanCandidate &c) {
    GemmConfigAttr cfg = c.config;
    bool notMult32 = cfg.getBlockM() % 32 != 0 || cfg.getBlockN() % 32 != 0;
    // Round the prediction to 0.1% so that model noise does not override the
    // tie-breakers.
    double t = c.cost.totalNs;
    int64_t bucket = static_cast<int64_t>(std::llround(std::log(t) * 1000));
    return std::make_tuple(bucket, notMult32, cfg.getSplitK(),
                           c.resources.dynamicSmemBytes, cfg.getThreads(),
                           cfg.getSwizzle(), cfg.getBlockK());
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
  auto contains = [&](GemmConfigAttr config) {
    return llvm::any_of(plan.ladder, [&](const GemmPlanCandidate &c) {
      return c.config == config;
    });
  };
  if (tuning) {
    // Measured configs of this problem first, fastest first; then the best
    // configs of nearby problems, on up to half of the rungs left.
    for (const TuningRecord *r : tuning->db.exact(tuning->target,
                                                  options.signature)) {
      if (full() || (options.explore && !plan.ladder.empty()))
        break;
      std::optional<GemmPlanCandidate> c = tuning->candidate(
          context, *r, problem, rep, target, params);
      if (!c || contains(c->config))
        continue;
      c->source = GemmCandidateSource::Measured;
      c->measuredUs = r->timeUs;
      plan.ladder.push_back(*c);
    }
    int64_t measured = plan.ladder.size();
    int64_t nearbyRungs = (rungs - measured) / 2;
    if (!problem.hasDynamicSizes())
      for (const TuningRecord *r : tuning->db.nearby(
               tuning->target, tuning->problem, options.nearbyLogDistance)) {
        if (static_cast<int64_t>(plan.ladder.size()) - measured >=
            nearbyRungs)
          break;
        std::optional<GemmPlanCandidate> c = tuning->candidate(
            context, *r, problem, rep, target, params);
        if (!c || contains(c->config) ||
            (options.explore &&
             tuning->measuredConfigs.contains(llvm::to_string(c->config))))
          continue;
        c->source = GemmCandidateSource::Nearby;
        c->measuredUs = r->timeUs;
        c->measuredOn = r->problem.signature;
        plan.ladder.push_back(*c);
      }
    plan.tuningSummary = tuning->summary(plan.ladder);
  }
  size_t fromTuning = plan.ladder.size();
  if (tuning && options.explore)
    llvm::erase_if(survivors, [&](const GemmPlanCandidate &c) {
      return tuning->measuredConfigs.contains(llvm::to_string(c.config));
    });
  if (options.diverse)
    for (const GemmPlanCandidate &c : survivors) {
      if (full())
        break;
      if (llvm::none_of(plan.ladder, [&](const GemmPlanCandidate &other) {
            return other.config.getBlock() == c.config.getBlock() &&
                   other.config.getWarp() == c.config.getWarp();
          }))
        plan.ladder.push_back(c);
    }
  for (const GemmPlanCandidate &c : survivors) {
    if (full())
      break;
    if (contains(c.config))
      continue;
    if (plan.ladder.size() == fromTuning ||
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
