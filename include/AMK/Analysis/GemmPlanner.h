//===- GemmPlanner.h - Choose a GEMM kernel design --------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The GEMM agent behind `--amk-plan`, usable without the pass:
//
//   1. enumerate  configs of the math paths the synthesizer has for the
//                 element type (simt for f32, also tf32 until mma_sync tf32 is
//                 synthesized; mma_sync m16n8k16 for f16/bf16) over block,
//                 warp and thread tiles, stages and swizzle; the load vector
//                 width is the largest that divides the contiguous extents of
//                 A and B and fits 16 bytes. Only configs the #amk.gemm_config
//                 verifier accepts count as candidates.
//   2. filter     with checkGemmResources (Harness.h): the synthesizer's
//                 limits and every resource check `--amk-verify` runs;
//   3. heuristics drop block tiles far larger than the problem (a tile side
//                 above the next power of two of the size, beyond the smallest
//                 tile enumerated);
//   4. rank       by the cost model (GemmCostModel.h); ties prefer tile sides
//                 that are multiples of 32, then less shared memory, fewer
//                 threads, no swizzle;
//   5. ladder     `ladderSize` rungs, best first, descending in shared
//                 memory (each rung the best config needing less than the one
//                 above, so a launcher short of shared memory can step down),
//                 topped up with the best configs of other block tiles.
//
// Dynamic sizes are planned for GemmCostParams::representativeSize (4096; a
// dynamic batch counts as 1); legality is still checked on the real problem.
//
// With a tuning database (TuningDB.h) for the target, measurements come
// first: its calibration replaces the cost model's constants, its repair
// rules and the failures of this exact problem drop candidates, the measured
// configs of this exact problem head the ladder fastest first (a measured
// best beats the model's guess), and the best configs of nearby problems of
// the same family take up to half of the remaining rungs.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_ANALYSIS_GEMMPLANNER_H
#define AMK_ANALYSIS_GEMMPLANNER_H

#include "AMK/Analysis/GemmCostModel.h"
#include "AMK/Analysis/Harness.h"
#include "AMK/Tuning/TuningDB.h"

#include <string>

namespace mlir::amk {

struct GemmPlanOptions {
  /// Rungs of the ladder (>= 1), the winner included.
  int64_t ladderSize = 4;
  GemmCostParams cost;
  /// Measurements, repairs and calibrations to consult (null: none).
  const TuningDB *tuningDB = nullptr;
  /// The problem's signature (MatmulOp::getProblemSignature), the key of
  /// the tuning database's records.
  std::string signature;
  /// Model rungs: the best config of each block and warp tile first, before
  /// the shared-memory descent (candidates worth measuring, not fallbacks).
  bool diverse = false;
  /// A tuning round: one measured rung (the best), and model rungs only for
  /// configs not measured on this problem yet, so each round tries new ones.
  bool explore = false;
  /// Nearby problems: at most this sum of |ln(size ratio)| over M, N, K.
  double nearbyLogDistance = 1.5;
};

/// Where a rung of the ladder came from.
enum class GemmCandidateSource { Model, Measured, Nearby };

/// A config that survived every layer, with its prediction.
struct GemmPlanCandidate {
  GemmConfigAttr config;
  GemmResources resources;
  GemmCost cost;
  GemmCandidateSource source = GemmCandidateSource::Model;
  /// The measured time (Measured: of this problem; Nearby: of the nearby
  /// problem named in `measuredOn`), us.
  double measuredUs = 0;
  std::string measuredOn;
};

/// Why candidates were dropped: one entry per reason (a harness check id, or
/// `heuristic:...`), in order of first occurrence.
struct GemmRejection {
  std::string reason;
  int64_t count = 0;
  /// The message of the first rejection for this reason.
  std::string example;
};

struct GemmPlan {
  /// Best first; empty when no config fits.
  llvm::SmallVector<GemmPlanCandidate, 4> ladder;
  /// Configs enumerated that the attribute verifier accepts.
  int64_t numCandidates = 0;
  /// Of those, dropped by the synthesizer limits, the target or heuristics.
  int64_t numRejected = 0;
  llvm::SmallVector<GemmRejection> rejections;
  /// Whether dynamic sizes were replaced by the representative size.
  bool usedRepresentativeSizes = false;

  /// What the tuning database contributed ("" without one).
  std::string tuningSummary;

  /// "12 AMK-RES-SMEM, 3 AMK-SYNTH-UNSUPPORTED" (most frequent first).
  std::string summarizeRejections(bool withExamples = false) const;
};

/// Plans `problem` for `target`.
GemmPlan planGemm(MLIRContext *context, const GemmProblem &problem,
                  const TargetSpec &target,
                  const GemmPlanOptions &options = {});

/// The record of a problem in the tuning database: its signature, the
/// family (the signature without sizes) and the sizes.
TuningProblem getTuningProblem(const GemmProblem &problem,
                               llvm::StringRef signature);

/// Rebuilds a problem from a measurement's details (the bundle manifest's
/// `problem` object); fails on unknown types or missing fields.
FailureOr<GemmProblem> getGemmProblem(MLIRContext *context,
                                      const TuningProblem &problem);

/// Accumulators each thread of `config` holds (what spills grow with).
int64_t getAccumulatorsPerThread(GemmConfigAttr config);

/// The cost-model constants a calibration may refit, by name.
void forEachCalibratedParam(
    GemmCostParams &params,
    llvm::function_ref<void(llvm::StringRef, double &)> fn);

} // namespace mlir::amk

#endif // AMK_ANALYSIS_GEMMPLANNER_H
