//===- Reflect.cpp - Repair rules from what a GPU run said ----------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Tuning/Reflect.h"

#include "AMK/Version.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;

std::vector<TuningRecord>
mlir::amk::reflect(llvm::ArrayRef<TuningOutcome> outcomes,
                   llvm::StringRef target,
                   std::vector<std::string> &harnessGaps) {
  std::vector<TuningRecord> rules;
  llvm::StringSet<> seen;
  auto add = [&](TuningRecord r) {
    std::string key =
        llvm::formatv("{0}|{1}|{2}|{3}", r.rule, r.scope, r.value, r.config);
    if (seen.insert(key).second)
      rules.push_back(std::move(r));
  };
  auto rule = [&](llvm::StringRef name, llvm::StringRef scope, int64_t value,
                  const TuningOutcome &o, const std::string &reason) {
    TuningRecord r;
    r.kind = TuningRecordKind::Repair;
    r.target = target.str();
    r.date = getTodayDate();
    r.amkVersion = kAMKVersion.str();
    r.rule = name.str();
    r.scope = scope.str();
    r.value = value;
    r.config = o.config;
    r.reason = reason;
    return r;
  };
  for (const TuningOutcome &o : outcomes) {
    if (o.failureClass == "out-of-resources")
      // Too much shared memory (or registers) at launch: no config needing
      // as much shared memory again, on any problem of this target.
      add(rule("max-smem", "*", o.smemBytes, o,
               o.id + " could not launch: " + o.detail));
    if (o.failureClass == "mismatch-edge") {
      // Right inside, wrong on partial tiles: the config is unsafe for edge
      // cases of the family, and the harness let it through: a harness gap.
      add(rule("unsafe-edge", o.problem.family, 0, o,
               o.id + " on " + o.problem.signature + ": " + o.detail));
      harnessGaps.push_back(o.id + " (" + o.problem.signature + ", " +
                            o.config + "): " + o.detail);
    }
    if (llvm::is_contained(o.flags, "spills") &&
        o.localBytes >= kSignificantSpillBytes && o.registerPressure > 0)
      // Spills: for this problem, no config holding as many results per
      // thread.
      add(rule(
          "max-accumulators", o.problem.signature, o.registerPressure, o,
          llvm::formatv("{0} spilled {1} B per thread", o.id, o.localBytes)));
  }
  return rules;
}

std::optional<TuningRecord> mlir::amk::getMeasurement(const TuningOutcome &o,
                                                      llvm::StringRef target) {
  // A passing run without a positive time measured nothing: recording it
  // as a failure would ban a correct config for good.
  if (!o.measured || (o.status == "PASS" && !(o.timeUs > 0)))
    return std::nullopt;
  TuningRecord rec;
  rec.kind = TuningRecordKind::Measurement;
  rec.target = target.str();
  rec.date = getTodayDate();
  rec.amkVersion = kAMKVersion.str();
  rec.problem = o.problem;
  rec.config = o.config;
  rec.timeUs = o.timeUs;
  rec.refUs = o.refUs;
  rec.predictedUs = o.predictedUs;
  bool pass = o.status == "PASS";
  rec.verdict = pass ? "pass" : "fail";
  rec.failure = pass ? "" : o.failureClass;
  return rec;
}
