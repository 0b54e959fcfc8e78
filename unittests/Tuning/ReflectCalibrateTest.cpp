//===- ReflectCalibrateTest.cpp - Repair rules and cost-model fits --------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Tuning/Calibrate.h"
#include "AMK/Tuning/Reflect.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amk;

namespace {
TuningOutcome outcome(llvm::StringRef id, llvm::StringRef failureClass) {
  TuningOutcome o;
  o.id = id.str();
  o.config = "cfg-" + id.str();
  o.problem.signature = "gemm_64x64x64_f32_f32_f32_nn";
  o.problem.family = "gemm_f32_f32_f32_nn";
  o.measured = true;
  o.status = failureClass.empty() ? "PASS" : "FAIL";
  o.failureClass = failureClass.str();
  o.timeUs = 10;
  return o;
}

TEST(Reflect, OneRuleForEachFailureClass) {
  TuningOutcome smem = outcome("a", "out-of-resources");
  smem.smemBytes = 200000;
  TuningOutcome edge = outcome("b", "mismatch-edge");
  TuningOutcome spills = outcome("c", "");
  spills.flags = {"spills"};
  spills.localBytes = 128;
  spills.registerPressure = 64;
  TuningOutcome fewSpills = spills;
  fewSpills.id = "d";
  fewSpills.localBytes = 8; // noise, not a reason
  TuningOutcome unknownPressure = spills;
  unknownPressure.id = "e";
  unknownPressure.registerPressure = 0;
  std::vector<std::string> gaps;
  std::vector<TuningRecord> rules = reflect(
      {smem, edge, spills, fewSpills, unknownPressure, smem}, "t", gaps);
  ASSERT_EQ(rules.size(), 3u); // the duplicate smem failure adds nothing
  EXPECT_EQ(rules[0].rule, "max-smem");
  EXPECT_EQ(rules[0].scope, "*");
  EXPECT_EQ(rules[0].value, 200000);
  EXPECT_EQ(rules[1].rule, "unsafe-edge");
  EXPECT_EQ(rules[1].scope, "gemm_f32_f32_f32_nn");
  EXPECT_EQ(rules[1].config, "cfg-b");
  EXPECT_EQ(rules[2].rule, "max-accumulators");
  EXPECT_EQ(rules[2].scope, "gemm_64x64x64_f32_f32_f32_nn");
  EXPECT_EQ(rules[2].value, 64);
  for (const TuningRecord &r : rules) {
    EXPECT_EQ(r.kind, TuningRecordKind::Repair);
    EXPECT_EQ(r.target, "t");
  }
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_NE(gaps[0].find("cfg-b"), std::string::npos);
}

TEST(Reflect, MeasurementsKeepVerdictsHonest) {
  std::optional<TuningRecord> pass = getMeasurement(outcome("a", ""), "t");
  ASSERT_TRUE(pass);
  EXPECT_EQ(pass->verdict, "pass");
  std::optional<TuningRecord> fail =
      getMeasurement(outcome("b", "mismatch"), "t");
  ASSERT_TRUE(fail);
  EXPECT_EQ(fail->verdict, "fail");
  EXPECT_EQ(fail->failure, "mismatch");
  // A pass without a positive time measured nothing: no record (recorded
  // as a failure it would ban a correct config for good).
  TuningOutcome zero = outcome("c", "");
  zero.timeUs = 0;
  EXPECT_FALSE(getMeasurement(zero, "t"));
  TuningOutcome notRun = outcome("d", "");
  notRun.measured = false;
  EXPECT_FALSE(getMeasurement(notRun, "t"));
}

/// Points of a model time = work / rate + overhead whose true rate is 2x
/// the default and whose overhead is right.
std::vector<CalibrationPoint> points() {
  std::vector<CalibrationPoint> out;
  for (int i = 1; i <= 16; ++i) {
    double work = 100.0 * i * i;
    CalibrationPoint p;
    p.predictUs = [work](const llvm::StringMap<double> &params) {
      return work / params.lookup("rate") + params.lookup("overhead_us");
    };
    p.measuredUs = work / 2.0 + 5;
    p.group = i % 2 ? "odd" : "even";
    out.push_back(std::move(p));
  }
  return out;
}

TEST(Calibrate, FitsTheConstantsWithinTheirBounds) {
  llvm::json::Object report;
  TuningRecord r = calibrate(points(), {{"rate", 1.0}, {"overhead_us", 5.0}},
                             "target-id", report);
  EXPECT_EQ(r.kind, TuningRecordKind::Calibration);
  EXPECT_EQ(r.target, "target-id");
  EXPECT_NEAR(r.params.lookup("rate"), 2.0, 0.1);
  EXPECT_NEAR(r.params.lookup("overhead_us"), 5.0, 1.5);
  EXPECT_LT(*report.getNumber("rms_log_error_after"),
            *report.getNumber("rms_log_error_before"));
  EXPECT_EQ(report.getInteger("points"), 16);
  EXPECT_EQ(report.getInteger("ladders"), 2);

  // A constant never leaves 4x of its default, and efficiencies stay <= 1.
  llvm::json::Object bounded;
  std::vector<CalibrationPoint> far = points();
  for (CalibrationPoint &p : far)
    p.measuredUs /= 10; // needs rate 20
  TuningRecord clamped =
      calibrate(far, {{"rate", 1.0}, {"overhead_us", 5.0}}, "t", bounded);
  EXPECT_LE(clamped.params.lookup("rate"), 4.0);
  TuningRecord efficiency = calibrate(
      far, {{"rate_efficiency", 0.9}, {"overhead_us", 5.0}}, "t", bounded);
  EXPECT_LE(efficiency.params.lookup("rate_efficiency"), 1.0);
}
} // namespace
