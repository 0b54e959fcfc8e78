//===- Calibrate.h - Fit a cost model's constants to measurements -*- C++
//-*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Calibration of any family's cost model: coordinate descent on log-scale
// factors of its named constants, minimizing the mean squared log error of
// the predictions plus the rank disagreement within ladders (the planner
// needs the order right more than the times). Each constant stays within 4x
// of its default (a fit that needs more is a model that lacks a term, not a
// constant to move), and efficiencies (names ending in "efficiency") at most
// 1. Depends on LLVM Support only: the family's model enters as a callback.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNING_CALIBRATE_H
#define AMK_TUNING_CALIBRATE_H

#include "AMK/Tuning/TuningDB.h"

#include <functional>

namespace mlir::amk {

/// Passing measurements a calibration needs (fewer would fit noise).
constexpr size_t kMinCalibrationPoints = 12;

/// A cost-model constant and its default.
struct CalibrationParam {
  std::string name;
  double defaultValue = 0;
};

/// One measurement: the model's prediction for constants `params` (names of
/// the CalibrationParams; absent ones at their defaults), the measured time
/// and the ladder it belongs to (Spearman is taken per group).
struct CalibrationPoint {
  std::function<double(const llvm::StringMap<double> &params)> predictUs;
  double measuredUs = 0;
  std::string group;
};

/// The calibration record for `targetIdentity` fitted to `points`; `report`
/// gets the fit's quality before and after (points, ladders, RMS log error,
/// Spearman, the fitted params).
TuningRecord calibrate(llvm::ArrayRef<CalibrationPoint> points,
                       llvm::ArrayRef<CalibrationParam> params,
                       llvm::StringRef targetIdentity,
                       llvm::json::Object &report);

/// Why the constants of `calibration` must not replace the defaults of
/// `params` ("" when they may): a constant outside 4x of its default or an
/// efficiency above 1, which calibrate() never fits, so the record was
/// edited or written by something else. Constants that are not in `params`
/// are ignored (another family's). A planner checks a calibration with this
/// before using it (loading checks only ranges any family's constants lie
/// in: validateTuningRecord).
std::string checkCalibration(const TuningRecord &calibration,
                             llvm::ArrayRef<CalibrationParam> params);

} // namespace mlir::amk

#endif // AMK_TUNING_CALIBRATE_H
