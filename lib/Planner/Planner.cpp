//===- Planner.cpp - The agent: a ladder of configs for one problem -------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Planner/Planner.h"

#include "AMK/Harness/Harness.h"
#include "AMK/Tuning/Calibrate.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ScopedPrinter.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::amk;

StringRef mlir::amk::stringifyCandidateSource(CandidateSource source) {
  switch (source) {
  case CandidateSource::Model:
    return "model";
  case CandidateSource::Measured:
    return "measured";
  case CandidateSource::Nearby:
    return "nearby";
  }
  llvm_unreachable("unknown candidate source");
}

std::string Plan::summarizeRejections(bool withExamples) const {
  SmallVector<PlanRejection> sorted(rejections.begin(), rejections.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const PlanRejection &a, const PlanRejection &b) {
                     return a.count > b.count;
                   });
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(sorted, os, [&](const PlanRejection &r) {
    os << r.count << " " << r.reason;
    if (withExamples)
      os << " (e.g. " << r.example << ")";
  });
  return out;
}

TuningProblem mlir::amk::getTuningProblem(const KernelFamily &family,
                                          ProblemOpInterface problem) {
  TuningProblem t;
  t.signature = problem.getProblemSignature();
  t.details = family.problemToJSON(problem);
  t.details["family"] = family.getName();
  t.sizes = family.getSizes(t.details);
  t.family = family.getComparableKey(t.signature, t.details);
  return t;
}

CostOverrides mlir::amk::getCalibration(const KernelFamily &family,
                                        const TuningDB *db,
                                        const TargetSpec &target,
                                        std::string *ignored) {
  CostOverrides overrides;
  if (!db)
    return overrides;
  const TuningRecord *calibration = db->calibration(getTargetIdentity(target));
  if (!calibration)
    return overrides;
  // Loading checked only the ranges of any family's constants; this
  // family's defaults bound what a fit of them can be.
  SmallVector<CalibrationParam> params;
  for (const auto &[name, value] : family.getCostParams())
    params.push_back(CalibrationParam{name, value});
  if (std::string why = checkCalibration(*calibration, params); !why.empty()) {
    if (ignored)
      *ignored = "the tuning database's calibration is ignored: " + why;
    return overrides;
  }
  for (const auto &[name, value] : family.getCostParams()) {
    double fitted = calibration->params.lookup(name);
    if (fitted > 0)
      overrides[name] = fitted;
  }
  return overrides;
}

namespace {
/// A candidate that passed every check, or why it did not.
using Verdict = std::optional<std::pair<std::string, std::string>>;

/// The candidate of `config`: resources, the resource check of the harness,
/// the family's heuristics and its cost model.
Verdict evaluate(const ProblemModel &model, KernelConfigAttrInterface config,
                 const TargetSpec &target, MLIRContext *context,
                 PlanCandidate &out, bool prune = true) {
  SmallVector<HarnessFinding> findings;
  if (failed(checkKernelResources(model, config, target,
                                  UnknownLoc::get(context), "", findings)))
    return std::make_pair(findings.front().check, findings.front().message);
  if (prune)
    if (Verdict why = model.prune(config))
      return why;
  out.config = config;
  out.resources = *model.getResources(config);
  out.cost = model.predict(config, out.resources);
  if (!std::isfinite(out.cost.totalNs))
    return std::make_pair(std::string("target:no-math-path"),
                          llvm::formatv("target '{0}' has no peak rate for {1}",
                                        target.name, config)
                              .str());
  return std::nullopt;
}

/// What the tuning database says about one problem on one target.
struct TuningContext {
  const TuningDB &db;
  const KernelFamily &family;
  std::string target;
  TuningProblem problem;
  std::vector<const TuningRecord *> repairs;
  llvm::StringSet<> failedConfigs, measuredConfigs;
  int64_t dropped = 0;

  TuningContext(const TuningDB &db, const KernelFamily &family,
                ProblemOpInterface op, const TargetSpec &spec)
      : db(db), family(family), target(getTargetIdentity(spec)),
        problem(getTuningProblem(family, op)),
        repairs(db.repairs(target, problem)) {
    for (const TuningRecord *r : db.failures(target, problem.signature))
      failedConfigs.insert(r->config);
    for (const TuningRecord *r : db.exact(target, problem.signature))
      measuredConfigs.insert(r->config);
  }

  /// Whether a repair rule or a failed measurement drops `c`.
  Verdict rejects(const PlanCandidate &c, const ProblemModel &model,
                  bool measured = false) {
    std::string config = llvm::to_string(c.config);
    auto drop = [&](StringRef reason, const Twine &message) {
      ++dropped;
      return std::make_optional(std::make_pair(reason.str(), message.str()));
    };
    if (failedConfigs.contains(config))
      return drop("tuning:failed", "failed when measured on this problem");
    for (const TuningRecord *r : repairs) {
      if (r->rule == "max-smem" && c.resources.dynamicSmemBytes >= r->value)
        return drop(
            "tuning:max-smem",
            llvm::formatv("{0} B of shared memory failed to launch: {1}",
                          r->value, r->reason));
      // A measured time of this very config outweighs the spill heuristic.
      int64_t pressure = family.getRegisterPressure(c.config);
      if (r->rule == "max-accumulators" && !measured && pressure > 0 &&
          pressure >= r->value)
        return drop("tuning:spills",
                    llvm::formatv("{0} accumulators per thread spilled: {1}",
                                  r->value, r->reason));
      if (r->rule == "unsafe-edge" && r->config == config &&
          (model.hasDynamicSizes() || model.hasPartialTiles(c.config)))
        return drop("tuning:unsafe-edge",
                    "wrong on partial tiles when measured: " + r->reason);
    }
    return std::nullopt;
  }

  /// The candidate a measured record names, if its config is still legal
  /// for this problem and no repair drops it.
  std::optional<PlanCandidate> candidate(MLIRContext *context,
                                         const TuningRecord &r,
                                         const ProblemModel &model,
                                         const TargetSpec &spec) {
    KernelConfigAttrInterface config;
    {
      // A config this AMK no longer parses is skipped, not an error.
      ScopedDiagnosticHandler quiet(context,
                                    [](Diagnostic &) { return success(); });
      config = llvm::dyn_cast_if_present<KernelConfigAttrInterface>(
          parseAttribute(r.config, context));
    }
    if (!config || config.getProblemFamily() != family.getName())
      return std::nullopt;
    PlanCandidate c;
    if (evaluate(model, config, spec, context, c, /*prune=*/false))
      return std::nullopt;
    if (rejects(c, model, r.problem.signature == problem.signature))
      return std::nullopt;
    return c;
  }

  std::string summary(ArrayRef<PlanCandidate> ladder) const {
    int64_t measured = llvm::count_if(ladder, [](const PlanCandidate &c) {
      return c.source == CandidateSource::Measured;
    });
    int64_t nearby = llvm::count_if(ladder, [](const PlanCandidate &c) {
      return c.source == CandidateSource::Nearby;
    });
    return llvm::formatv("{0} measured, {1} from nearby problems, {2} "
                         "repair rule(s), {3} candidate(s) dropped{4}",
                         measured, nearby, repairs.size(), dropped,
                         db.calibration(target) ? ", calibrated cost model"
                                                : "")
        .str();
  }
};

/// Builds the ladder of a plan from the ranked survivors.
class LadderBuilder {
public:
  LadderBuilder(Plan &plan, const ProblemModel &model,
                const PlanOptions &options)
      : plan(plan), model(model), options(options),
        rungs(std::max<int64_t>(options.ladderSize, 1)) {}

  /// Measured configs of this problem first, fastest first; then the best
  /// configs of nearby problems, on up to half of the rungs left.
  void addMeasured(TuningContext &tuning, MLIRContext *context,
                   const TargetSpec &target) {
    for (const TuningRecord *r :
         tuning.db.exact(tuning.target, tuning.problem.signature)) {
      if (full() || (options.explore && !plan.ladder.empty()))
        break;
      std::optional<PlanCandidate> c =
          tuning.candidate(context, *r, model, target);
      if (!c || contains(c->config))
        continue;
      c->source = CandidateSource::Measured;
      c->measuredUs = r->timeUs;
      plan.ladder.push_back(*c);
    }
    int64_t measured = plan.ladder.size();
    int64_t nearbyRungs = (rungs - measured) / 2;
    if (model.hasDynamicSizes())
      return;
    for (const TuningRecord *r : tuning.db.nearby(tuning.target, tuning.problem,
                                                  options.nearbyLogDistance)) {
      if (static_cast<int64_t>(plan.ladder.size()) - measured >= nearbyRungs)
        break;
      std::optional<PlanCandidate> c =
          tuning.candidate(context, *r, model, target);
      if (!c || contains(c->config) ||
          (options.explore &&
           tuning.measuredConfigs.contains(llvm::to_string(c->config))))
        continue;
      c->source = CandidateSource::Nearby;
      c->measuredUs = r->timeUs;
      c->measuredOn = r->problem.signature;
      plan.ladder.push_back(*c);
    }
  }

  /// The model's rungs: diverse shapes first (with `diverse`), then the
  /// shared-memory descent, then the best of other coarse shapes.
  void addModel(ArrayRef<PlanCandidate> survivors) {
    size_t fromTuning = plan.ladder.size();
    if (options.diverse)
      addNewShapes(survivors, /*coarse=*/false);
    for (const PlanCandidate &c : survivors) {
      if (full())
        break;
      if (contains(c.config))
        continue;
      if (plan.ladder.size() == fromTuning ||
          c.resources.dynamicSmemBytes <
              plan.ladder.back().resources.dynamicSmemBytes)
        plan.ladder.push_back(c);
    }
    addNewShapes(survivors, /*coarse=*/true);
  }

private:
  bool full() const {
    return static_cast<int64_t>(plan.ladder.size()) >= rungs;
  }
  bool contains(KernelConfigAttrInterface config) const {
    return llvm::any_of(plan.ladder, [&](const PlanCandidate &c) {
      return c.config == config;
    });
  }
  void addNewShapes(ArrayRef<PlanCandidate> survivors, bool coarse) {
    for (const PlanCandidate &c : survivors) {
      if (full())
        break;
      std::string key = model.getShapeKey(c.config, coarse);
      if (llvm::none_of(plan.ladder, [&](const PlanCandidate &other) {
            return model.getShapeKey(other.config, coarse) == key;
          }))
        plan.ladder.push_back(c);
    }
  }

  Plan &plan;
  const ProblemModel &model;
  const PlanOptions &options;
  int64_t rungs;
};
} // namespace

ConfigVerdict mlir::amk::explainConfig(const KernelFamily &family,
                                       ProblemOpInterface problem,
                                       const TargetSpec &target,
                                       KernelConfigAttrInterface config,
                                       const TuningDB *tuningDB) {
  std::unique_ptr<ProblemModel> model = family.getModel(
      problem, target, getCalibration(family, tuningDB, target), {});
  ConfigVerdict verdict;
  PlanCandidate c;
  if (Verdict why = evaluate(*model, config, target, problem->getContext(), c,
                             /*prune=*/false)) {
    std::tie(verdict.rejectedBy, verdict.reason) = *why;
    return verdict;
  }
  if (Verdict why = model->prune(config))
    std::tie(verdict.rejectedBy, verdict.reason) = *why;
  verdict.candidate = std::move(c);
  return verdict;
}

Plan mlir::amk::planProblem(const KernelFamily &family,
                            ProblemOpInterface problem,
                            const TargetSpec &target,
                            const PlanOptions &options) {
  MLIRContext *context = problem->getContext();
  Plan plan;
  std::string ignoredCalibration;
  std::unique_ptr<ProblemModel> model = family.getModel(
      problem, target,
      getCalibration(family, options.tuningDB, target, &ignoredCalibration),
      options.planningSizes);
  plan.notes = model->getPlanNotes();
  if (!ignoredCalibration.empty())
    plan.notes.push_back(ignoredCalibration);

  llvm::StringMap<unsigned> reasonIndex;
  auto reject = [&](StringRef reason, const std::string &message) {
    ++plan.numRejected;
    auto [it, inserted] =
        reasonIndex.try_emplace(reason, plan.rejections.size());
    if (inserted)
      plan.rejections.push_back(PlanRejection{reason.str(), 0, message});
    ++plan.rejections[it->second].count;
  };

  std::vector<PlanCandidate> survivors;
  model->enumerate([&](KernelConfigAttrInterface config) {
    ++plan.numCandidates;
    PlanCandidate c;
    if (Verdict why = evaluate(*model, config, target, context, c))
      return reject(why->first, why->second);
    survivors.push_back(std::move(c));
  });

  // The tuning database: repairs and failures drop candidates.
  std::optional<TuningContext> tuning;
  if (options.tuningDB)
    tuning.emplace(*options.tuningDB, family, problem, target);
  if (tuning)
    llvm::erase_if(survivors, [&](const PlanCandidate &c) {
      Verdict why = tuning->rejects(c, *model);
      if (why)
        reject(why->first, why->second);
      return why.has_value();
    });

  // Rank: the prediction rounded to 0.1%, so that model noise does not
  // override the family's tie-breakers.
  auto key = [&](const PlanCandidate &c) {
    SmallVector<int64_t> k = {
        static_cast<int64_t>(std::llround(std::log(c.cost.totalNs) * 1000))};
    llvm::append_range(k, model->getTieBreakers(c.config, c.resources));
    return k;
  };
  SmallVector<std::pair<SmallVector<int64_t>, unsigned>> order;
  for (auto [i, c] : llvm::enumerate(survivors))
    order.push_back({key(c), static_cast<unsigned>(i)});
  std::stable_sort(order.begin(), order.end());
  std::vector<PlanCandidate> ranked;
  for (auto &[k, i] : order)
    ranked.push_back(std::move(survivors[i]));

  LadderBuilder ladder(plan, *model, options);
  if (tuning) {
    ladder.addMeasured(*tuning, context, target);
    plan.tuningSummary = tuning->summary(plan.ladder);
    if (options.explore)
      llvm::erase_if(ranked, [&](const PlanCandidate &c) {
        return tuning->measuredConfigs.contains(llvm::to_string(c.config));
      });
  }
  ladder.addModel(ranked);
  return plan;
}

SmallVector<DispatchVariant, 1>
mlir::amk::planDispatch(const KernelFamily &family, ProblemOpInterface problem,
                        const TargetSpec &target, const PlanOptions &options,
                        KernelConfigAttrInterface defaultConfig) {
  CostOverrides calibration = getCalibration(family, options.tuningDB, target);
  SmallVector<DispatchVariant, 1> variants;
  // In the family's order, which is the order the variants are tried in.
  SmallVector<PlanBucket> buckets =
      family.getModel(problem, target, calibration, options.planningSizes)
          ->getPlanBuckets();
  for (const PlanBucket &bucket : buckets) {
    PlanOptions at = options;
    at.ladderSize = 1;
    at.diverse = at.explore = false;
    at.planningSizes[bucket.symbol] = bucket.upTo;
    Plan plan = planProblem(family, problem, target, at);
    if (plan.ladder.empty() || plan.ladder.front().config == defaultConfig)
      continue;
    // What the default config would take at this size.
    std::unique_ptr<ProblemModel> model =
        family.getModel(problem, target, calibration, at.planningSizes);
    FailureOr<KernelResources> resources = model->getResources(defaultConfig);
    if (failed(resources))
      continue;
    double defaultNs = model->predict(defaultConfig, *resources).totalNs;
    const PlanCandidate &best = plan.ladder.front();
    if (!(best.cost.totalNs < 0.9 * defaultNs))
      continue;
    variants.push_back(DispatchVariant{bucket, best, defaultNs});
  }
  return variants;
}
