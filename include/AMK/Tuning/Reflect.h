//===- Reflect.h - Repair rules from what a GPU run said ---------*- C++
//-*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The reflector of the evaluate -> reflect -> repair loop: each failure class
// amk-bench reports has one repair rule (docs/TUNING.md), which the planner
// then obeys. Depends on LLVM Support only: what the rules need of a config
// (its shared memory, its register pressure) comes with the outcome.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNING_REFLECT_H
#define AMK_TUNING_REFLECT_H

#include "AMK/Tuning/TuningDB.h"

namespace mlir::amk {

/// Local memory per thread from which a spill is worth a repair rule (a few
/// spilled words are noise, not a reason).
constexpr int64_t kSignificantSpillBytes = 64;

/// One candidate of a tuning build with what the GPU said about it.
struct TuningOutcome {
  std::string id, config, manifest;
  TuningProblem problem;
  double predictedUs = 0;
  /// amk-bench has a result for it.
  bool measured = false;
  /// PASS, FAIL, ERROR (amk-bench), COMPILE-ERROR, missing or not-run.
  std::string status;
  std::string failureClass, detail;
  std::vector<std::string> flags;
  double timeUs = 0, refUs = 0, peakTflops = 0;
  /// The case's roofline: the longer of its math at the peak and its
  /// minimum bytes at the HBM bandwidth (amk-bench's roofline_us).
  double rooflineUs = 0;
  /// The dynamic shared memory the kernel asked for, and its spills.
  int64_t smemBytes = 0, localBytes = 0;
  /// Registers a thread holds for results (the family's register pressure
  /// of the config; 0: unknown).
  int64_t registerPressure = 0;
};

/// The repair rules the failures among `outcomes` call for, each once:
///   out-of-resources  max-smem for every problem of the target;
///   mismatch-edge     unsafe-edge for the config on the problem's family,
///                     and a harness gap (the harness let it through);
///   spills            max-accumulators for the problem (>= 64 B spilled
///                     per thread and a known register pressure).
/// `harnessGaps` gets one line per gap.
std::vector<TuningRecord> reflect(llvm::ArrayRef<TuningOutcome> outcomes,
                                  llvm::StringRef target,
                                  std::vector<std::string> &harnessGaps);

/// The measurement record of an outcome; nullopt when it was not measured,
/// or passed without a positive time (a broken timing, not a verdict).
std::optional<TuningRecord> getMeasurement(const TuningOutcome &outcome,
                                           llvm::StringRef target);

} // namespace mlir::amk

#endif // AMK_TUNING_REFLECT_H
