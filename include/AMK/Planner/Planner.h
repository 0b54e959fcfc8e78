//===- Planner.h - The agent: a ladder of configs for one problem -*- C++
//-*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The generic planner behind `--amk-plan`, for any family:
//
//   1. enumerate  the family's candidate space (ProblemModel::enumerate);
//   2. filter     with checkKernelResources (Harness.h): the synthesizer's
//                 limits and every resource check `--amk-verify` runs, so plan
//                 never proposes what verify rejects;
//   3. prune      the family's heuristics;
//   4. rank       by the family's cost model, ties broken by its tie-breakers;
//   5. ladder     `ladderSize` rungs, best first, descending in shared memory
//                 (each rung the best config needing less than the one above,
//                 so a launcher short of shared memory can step down), topped
//                 up with the best configs of other tile shapes.
//
// With a tuning database (TuningDB.h) for the target, measurements come
// first: its calibration replaces the cost model's constants, its repair
// rules and the failures of this exact problem drop candidates, the measured
// configs of this exact problem head the ladder fastest first, and the best
// configs of nearby problems of the same family take up to half of the
// remaining rungs.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PLANNER_PLANNER_H
#define AMK_PLANNER_PLANNER_H

#include "AMK/Family/Family.h"
#include "AMK/Tuning/TuningDB.h"

#include <string>

namespace mlir::amk {

struct PlanOptions {
  /// Rungs of the ladder (>= 1), the winner included.
  int64_t ladderSize = 4;
  /// Measurements, repairs and calibrations to consult (null: none).
  const TuningDB *tuningDB = nullptr;
  /// Model rungs: the best config of each tile shape and work split first,
  /// before the shared-memory descent (candidates worth measuring).
  bool diverse = false;
  /// A tuning round: one measured rung (the best), and model rungs only for
  /// configs not measured on this problem yet.
  bool explore = false;
  /// Nearby problems: at most this sum of |ln(size ratio)| over the sizes.
  double nearbyLogDistance = 1.5;
  /// Sizes to plan dynamic symbols at (the family's defaults otherwise).
  PlanningSizes planningSizes;
};

/// Where a rung of the ladder came from.
enum class CandidateSource { Model, Measured, Nearby };
llvm::StringRef stringifyCandidateSource(CandidateSource source);

/// A config that survived every layer, with its prediction.
struct PlanCandidate {
  KernelConfigAttrInterface config;
  KernelResources resources;
  CandidateCost cost;
  CandidateSource source = CandidateSource::Model;
  /// The measured time (Measured: of this problem; Nearby: of the problem
  /// named in `measuredOn`), us.
  double measuredUs = 0;
  std::string measuredOn;
};

/// Why candidates were dropped: one entry per reason (a harness check id, or
/// `heuristic:...`, `tuning:...`), in order of first occurrence.
struct PlanRejection {
  std::string reason;
  int64_t count = 0;
  /// The message of the first rejection for this reason.
  std::string example;
};

struct Plan {
  /// Best first; empty when no config fits.
  SmallVector<PlanCandidate, 4> ladder;
  /// Configs enumerated (all pass the attribute verifier).
  int64_t numCandidates = 0;
  /// Of those, dropped by the synthesizer limits, the target or heuristics.
  int64_t numRejected = 0;
  SmallVector<PlanRejection> rejections;
  /// The family's remarks (planning sizes, ...).
  SmallVector<std::string> notes;
  /// What the tuning database contributed ("" without one).
  std::string tuningSummary;

  /// "12 AMK-RES-SMEM, 3 AMK-SYNTH-UNSUPPORTED" (most frequent first).
  std::string summarizeRejections(bool withExamples = false) const;
};

/// The record of a problem in the tuning database.
TuningProblem getTuningProblem(const KernelFamily &family,
                               ProblemOpInterface problem);

/// Plans `problem` (of `family`) for `target`.
Plan planProblem(const KernelFamily &family, ProblemOpInterface problem,
                 const TargetSpec &target, const PlanOptions &options = {});

/// A config given for `problem` (an `amk.kernel` the user configured), as
/// the planner sees it: its resources and predicted cost, or why the
/// planner would have rejected it (the check id and message; a config the
/// heuristics prune still gets its cost, with the reason beside it).
struct ConfigVerdict {
  std::optional<PlanCandidate> candidate;
  std::string rejectedBy, reason;
};
ConfigVerdict explainConfig(const KernelFamily &family,
                            ProblemOpInterface problem,
                            const TargetSpec &target,
                            KernelConfigAttrInterface config,
                            const TuningDB *tuningDB = nullptr);

/// A kernel of its own for a range of a dynamic size: the bucket, the best
/// config planned at its size, and the prediction there of the config that
/// serves all other sizes.
struct DispatchVariant {
  PlanBucket bucket;
  PlanCandidate best;
  double defaultNs = 0;
};

/// The buckets of `problem` (ProblemModel::getPlanBuckets) whose own best
/// config is predicted at least 10% faster at the bucket's size than
/// `defaultConfig` (the plan's winner); smallest bucket first.
SmallVector<DispatchVariant, 1>
planDispatch(const KernelFamily &family, ProblemOpInterface problem,
             const TargetSpec &target, const PlanOptions &options,
             KernelConfigAttrInterface defaultConfig);

/// The cost-model constants of `family` that a calibration in `db` replaces
/// for `target` (none without a calibration, or with one that fails
/// checkCalibration against the family's defaults: then `ignored` says why).
CostOverrides getCalibration(const KernelFamily &family, const TuningDB *db,
                             const TargetSpec &target,
                             std::string *ignored = nullptr);

} // namespace mlir::amk

#endif // AMK_PLANNER_PLANNER_H
