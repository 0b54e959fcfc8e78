//===- TuningDB.h - Measured configs, repairs and calibrations --*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The tuning database: what `amk-tune` learned on real GPUs, as JSON lines
// (docs/TUNING.md). Each line is one record:
//
//   measurement  target identity + problem -> config, measured and reference
//                time, predicted time, correctness verdict, failure class;
//   repair       a rule the reflector derived from a failure (too much
//                shared memory, spills, wrong edges) that the planner obeys;
//   calibration  cost-model constants fitted to the measurements of a target.
//
// Every record carries the target identity (name, arch and a hash of the
// whole target description): a record for another target never applies.
// Files merge by concatenation; loading skips malformed lines, lines of
// another schema version and records that fail validateTuningRecord (sizes
// that contradict the signature, absurd times or constants), so one bad
// line loses nothing else; each file's drops are reported once, with counts.
// Appends take an exclusive lock on the file, so concurrent writers do not
// interleave lines.
//
// This library depends on LLVM Support only; the planner interprets configs
// and problems (GemmPlanner.h).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TUNING_TUNINGDB_H
#define AMK_TUNING_TUNINGDB_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::amk {

struct TargetSpec;

/// The schema of every record line.
constexpr int64_t kTuningSchemaVersion = 1;

/// "h200:sm_90a:<16 hex digits of SHA-256 over the target JSON>".
std::string getTargetIdentity(const TargetSpec &target);

/// The problem a record is about, in the terms of the problem signature.
struct TuningProblem {
  /// The full signature (`gemm_4096x4096x4096_f16_f32_f16_nn`).
  std::string signature;
  /// The signature without sizes: records of one family are comparable.
  std::string family;
  /// The family's size symbols (GEMM: B, M, N, K) and their values.
  llvm::StringMap<int64_t> sizes;
  /// The problem as its family writes it (Family.h problemToJSON, with
  /// "family" naming the problem family): what a planner needs to rebuild it.
  llvm::json::Object details;

  /// The size `name`, or 1 when the problem has no such symbol.
  int64_t getSize(llvm::StringRef name) const {
    auto it = sizes.find(name);
    return it == sizes.end() ? 1 : it->second;
  }
};

/// The JSON form of a problem (signature, family, sizes, details), as
/// records and amk-tune's build index write it. Records of the first
/// releases kept GEMM sizes as batch, m, n, k: they read as B, M, N, K.
llvm::json::Value toJSON(const TuningProblem &problem);
llvm::Expected<TuningProblem>
parseTuningProblem(const llvm::json::Value &value);

enum class TuningRecordKind { Measurement, Repair, Calibration };

struct TuningRecord {
  TuningRecordKind kind = TuningRecordKind::Measurement;
  std::string target;
  std::string date;
  std::string amkVersion;

  // Measurement.
  TuningProblem problem;
  /// The config attribute, as MLIR prints it.
  std::string config;
  double timeUs = 0, refUs = 0, predictedUs = 0;
  /// "pass" or "fail".
  std::string verdict;
  /// The failure class when the verdict is "fail" (see docs/TUNING.md).
  std::string failure;

  // Repair: a rule name, its scope (a family, one problem's signature, or
  // "*": every problem of the target), a value and the config it was
  // derived from.
  std::string rule;
  std::string scope;
  int64_t value = 0;
  std::string reason;

  // Calibration: parameter name -> value, and the ranking quality.
  llvm::StringMap<double> params;
  double spearmanBefore = 0, spearmanAfter = 0;

  bool passed() const { return verdict == "pass"; }
  llvm::json::Value toJSON() const;
  static llvm::Expected<TuningRecord> fromJSON(const llvm::json::Value &value);
};

/// A problem found while loading: "file:line: message".
struct TuningLoadIssue {
  std::string file;
  unsigned line = 0;
  std::string message;
};

/// The largest size a record may give a problem dimension: 2^40 elements
/// (2 TiB of bf16) is past every real buffer, and keeps products of sizes
/// far from overflowing.
constexpr int64_t kMaxTuningSize = int64_t(1) << 40;
/// The longest plausible kernel time, us (100 s).
constexpr double kMaxTuningTimeUs = 1e8;
/// The shortest plausible measured kernel time, us (1 ns).
constexpr double kMinTuningTimeUs = 1e-3;
/// Every cost-model constant a calibration may set lies in this range (all
/// of AMK's, within the 4x of their defaults that calibrate() allows, lie
/// in [0.01, 20000]); the planner checks the 4x bound itself
/// (checkCalibration in Calibrate.h).
constexpr double kMinCalibratedValue = 1e-3, kMaxCalibratedValue = 1e5;

/// Why `record` must not be used ("" when it may): a problem whose sizes are
/// not those its signature spells (each size 1..kMaxTuningSize, or dynamic
/// where the signature has `?`), a time outside [kMinTuningTimeUs,
/// kMaxTuningTimeUs] for a passing measurement or negative for any, a failed
/// measurement whose failure class is "ok", a calibrated
/// constant outside [kMinCalibratedValue, kMaxCalibratedValue] (or an
/// efficiency above 1), a repair with an empty scope or a bound below 1.
std::string validateTuningRecord(const TuningRecord &record);

class TuningDB {
public:
  /// Loads `path`; a missing file is an empty database. Malformed lines,
  /// lines nested deeper than kMaxJSONDepth, lines of another schema and
  /// records validateTuningRecord rejects are skipped: listed in
  /// droppedLines(), and summarized by one entry of issues() for the file.
  /// Fails only when the file exists but cannot be read.
  llvm::Error load(llvm::StringRef path);

  /// Appends `records` to `path` (creating it) under an exclusive file lock,
  /// one line each, and adds them to this database.
  llvm::Error append(llvm::StringRef path,
                     llvm::ArrayRef<TuningRecord> records);

  void add(TuningRecord record) { records.push_back(std::move(record)); }

  llvm::ArrayRef<TuningRecord> all() const { return records; }
  /// One entry per file that had lines dropped: the first such line, and
  /// a message with the counts by reason ("3 of 120 records: 1 not JSON
  /// (line 2), 2 with sizes that contradict their signature (first at line
  /// 7: ...)"). What tools warn about.
  llvm::ArrayRef<TuningLoadIssue> issues() const { return loadIssues; }
  /// Every dropped line with its own reason.
  llvm::ArrayRef<TuningLoadIssue> droppedLines() const { return dropped; }

  /// Passing measurements of exactly this problem on this target, fastest
  /// first.
  std::vector<const TuningRecord *> exact(llvm::StringRef target,
                                          llvm::StringRef signature) const;

  /// Failed measurements of this problem on this target.
  std::vector<const TuningRecord *> failures(llvm::StringRef target,
                                             llvm::StringRef signature) const;

  /// Passing measurements of the same family on this target for other sizes
  /// within `maxLogDistance` (sum over the sizes of |ln(a/b)|),
  /// nearest first, at most one per config (its best).
  std::vector<const TuningRecord *> nearby(llvm::StringRef target,
                                           const TuningProblem &problem,
                                           double maxLogDistance) const;

  /// Repair rules for this target whose scope is this problem, its family
  /// or everything.
  std::vector<const TuningRecord *> repairs(llvm::StringRef target,
                                            const TuningProblem &problem) const;

  /// The latest calibration for this target, if any.
  const TuningRecord *calibration(llvm::StringRef target) const;

private:
  std::vector<TuningRecord> records;
  std::vector<TuningLoadIssue> loadIssues;
  std::vector<TuningLoadIssue> dropped;
};

/// |ln(a/b)| summed over the sizes of two problems.
double getProblemLogDistance(const TuningProblem &a, const TuningProblem &b);

/// Spearman rank correlation of two equally long series (ties get their
/// mean rank); nullopt for fewer than two points or a constant series.
std::optional<double> getSpearman(llvm::ArrayRef<double> a,
                                  llvm::ArrayRef<double> b);

/// Today's date, YYYY-MM-DD (UTC).
std::string getTodayDate();

} // namespace mlir::amk

#endif // AMK_TUNING_TUNINGDB_H
