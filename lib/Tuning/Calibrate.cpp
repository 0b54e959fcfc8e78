//===- Calibrate.cpp - Fit a cost model's constants to measurements -------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Tuning/Calibrate.h"

#include "AMK/Version.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>
#include <map>

using namespace mlir;
using namespace mlir::amk;

using Params = llvm::StringMap<double>;

/// Mean Spearman correlation of predicted and measured time over the
/// ladders (groups) of at least three points.
static std::optional<double>
meanSpearman(llvm::ArrayRef<CalibrationPoint> points, const Params &params,
             int64_t *numGroups = nullptr) {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>>
      groups;
  for (const CalibrationPoint &p : points) {
    groups[p.group].first.push_back(p.predictUs(params));
    groups[p.group].second.push_back(p.measuredUs);
  }
  double sum = 0;
  int64_t n = 0;
  for (auto &[name, series] : groups) {
    if (series.first.size() < 3)
      continue;
    if (std::optional<double> rho = getSpearman(series.first, series.second)) {
      sum += *rho;
      ++n;
    }
  }
  if (numGroups)
    *numGroups = n;
  if (n == 0)
    return std::nullopt;
  return sum / n;
}

/// Mean squared log error of the model over the points (a non-finite
/// error counts as 100).
static double logError(llvm::ArrayRef<CalibrationPoint> points,
                       const Params &params) {
  double sum = 0;
  for (const CalibrationPoint &p : points) {
    double e = std::log(p.predictUs(params) / p.measuredUs);
    sum += std::isfinite(e) ? e * e : 100;
  }
  return points.empty() ? 0 : sum / points.size();
}

static double loss(llvm::ArrayRef<CalibrationPoint> points,
                   const Params &params) {
  return logError(points, params) +
         (1 - meanSpearman(points, params).value_or(0));
}

/// Whether `value` is a legal setting of the constant `param`.
static bool isAllowed(const CalibrationParam &param, double value) {
  // Efficiencies are fractions of a peak.
  if (llvm::StringRef(param.name).ends_with("efficiency") && value > 1.0)
    return false;
  double base = param.defaultValue;
  return value <= 4 * base && value >= base / 4;
}

std::string
mlir::amk::checkCalibration(const TuningRecord &calibration,
                            llvm::ArrayRef<CalibrationParam> params) {
  for (const CalibrationParam &p : params) {
    auto it = calibration.params.find(p.name);
    if (it == calibration.params.end())
      continue;
    // JSON round-trips doubles exactly; the slack only forgives rounding in
    // whatever else wrote the record.
    double value = it->getValue(), slack = 1 + 1e-9;
    if (isAllowed(p, value / slack) || isAllowed(p, value * slack))
      continue;
    auto num = [](double v) {
      char text[32];
      std::snprintf(text, sizeof(text), "%.6g", v);
      return std::string(text);
    };
    return llvm::formatv("calibration parameter '{0}' = {1} is outside "
                         "[{2}, {3}] (4x its default {4}{5})",
                         p.name, num(value), num(p.defaultValue / 4),
                         num(p.defaultValue * 4), num(p.defaultValue),
                         llvm::StringRef(p.name).ends_with("efficiency")
                             ? ", at most 1"
                             : "")
        .str();
  }
  return "";
}

TuningRecord mlir::amk::calibrate(llvm::ArrayRef<CalibrationPoint> points,
                                  llvm::ArrayRef<CalibrationParam> params,
                                  llvm::StringRef targetIdentity,
                                  llvm::json::Object &report) {
  Params start, fitted;
  for (const CalibrationParam &p : params)
    start[p.name] = fitted[p.name] = p.defaultValue;
  double before = logError(points, start);
  static constexpr double kFactors[] = {0.5,  0.7, 0.85, 0.95,
                                        1.05, 1.2, 1.4,  2.0};
  for (int round = 0; round < 6; ++round) {
    bool improved = false;
    for (const CalibrationParam &p : params) {
      double &value = fitted[p.name];
      double original = value, best = value, bestLoss = loss(points, fitted);
      for (double f : kFactors) {
        value = original * f;
        if (!isAllowed(p, value))
          continue;
        double l = loss(points, fitted);
        if (l < bestLoss - 1e-9) {
          bestLoss = l;
          best = value;
        }
      }
      value = best;
      improved |= best != original;
    }
    if (!improved)
      break;
  }
  double after = logError(points, fitted);
  int64_t groups = 0;
  std::optional<double> rhoBefore = meanSpearman(points, start, &groups);
  std::optional<double> rhoAfter = meanSpearman(points, fitted);

  TuningRecord r;
  r.kind = TuningRecordKind::Calibration;
  r.target = targetIdentity.str();
  r.date = getTodayDate();
  r.amkVersion = kAMKVersion.str();
  llvm::json::Object fittedJSON;
  for (const CalibrationParam &p : params) {
    r.params[p.name] = fitted[p.name];
    fittedJSON[p.name] = fitted[p.name];
  }
  r.spearmanBefore = rhoBefore.value_or(0);
  r.spearmanAfter = rhoAfter.value_or(0);
  report = llvm::json::Object{
      {"points", int64_t(points.size())},
      {"ladders", groups},
      {"rms_log_error_before", std::sqrt(before)},
      {"rms_log_error_after", std::sqrt(after)},
      {"spearman_before",
       rhoBefore ? llvm::json::Value(*rhoBefore) : llvm::json::Value(nullptr)},
      {"spearman_after",
       rhoAfter ? llvm::json::Value(*rhoAfter) : llvm::json::Value(nullptr)},
      {"params", std::move(fittedJSON)}};
  return r;
}
