//===- TuningDBLoad.cpp - Tuning records validated and loaded -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// TuningDB::load: each line of a database parsed (its depth bounded first),
// read as a record (TuningRecord.cpp) and validated against its signature
// and sane ranges; the lines dropped are counted per reason, one warning per
// file.
//
//===----------------------------------------------------------------------===//

#include "AMK/Tuning/TuningDB.h"

#include "AMK/Target/JSONDepth.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <array>
#include <cstdio>
#include <limits>

using namespace mlir::amk;
using llvm::json::Object;
using llvm::json::Value;

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

namespace {
/// Why a line was dropped, for the per-file counts.
enum class DropReason {
  NotJSON,
  TooDeep,
  OtherSchema,
  Malformed,
  Contradictory,
  OutOfRange,
};
constexpr size_t kNumDropReasons = 6;

llvm::StringRef describe(DropReason reason) {
  switch (reason) {
  case DropReason::NotJSON:
    return "not JSON";
  case DropReason::TooDeep:
    return "nested too deeply";
  case DropReason::OtherSchema:
    return "of another schema";
  case DropReason::Malformed:
    return "malformed";
  case DropReason::Contradictory:
    return "that contradict their signature or themselves";
  case DropReason::OutOfRange:
    return "with values out of range";
  }
  llvm_unreachable("unknown drop reason");
}

/// A rejected record: why, and the reason's class.
struct Rejection {
  DropReason reason;
  std::string message;
};
} // namespace

/// Dynamic sizes: -1 in records of the first releases and GEMM problem JSON,
/// ShapedType::kDynamic (INT64_MIN) where a family wrote its sizes.
static bool isDynamicSize(int64_t size) {
  return size == -1 || size == std::numeric_limits<int64_t>::min();
}

static std::string sizeText(int64_t size) {
  return isDynamicSize(size) ? "?" : std::to_string(size);
}

/// Whether the sizes of `p` are in range and the ones its signature spells.
/// The signature's size tokens are those of KernelFamily::getComparableKey
/// (digits, `x` and `?`), matched to the sizes as a multiset: a size the
/// signature does not spell must be 1 (an unbatched GEMM's B).
static std::optional<Rejection> checkSizes(const TuningProblem &p) {
  std::vector<std::pair<std::string, int64_t>> sizes;
  for (const auto &entry : p.sizes)
    sizes.emplace_back(entry.getKey().str(), entry.getValue());
  llvm::sort(sizes);
  for (const auto &[name, size] : sizes)
    if (!isDynamicSize(size) && (size < 1 || size > kMaxTuningSize))
      return Rejection{DropReason::OutOfRange,
                       llvm::formatv("size {0} = {1} is outside 1..{2}", name,
                                     size, kMaxTuningSize)};

  llvm::SmallVector<llvm::StringRef> tokens, spelled;
  llvm::StringRef(p.signature).split(tokens, '_');
  for (llvm::StringRef token : tokens) {
    bool isSizes = !token.empty() && llvm::all_of(token, [](char c) {
      return llvm::isDigit(c) || c == 'x' || c == '?';
    });
    if (isSizes && llvm::any_of(token, [](char c) { return c != 'x'; }))
      token.split(spelled, 'x', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  }
  if (spelled.empty())
    return std::nullopt;
  std::vector<bool> used(sizes.size(), false);
  auto list = [&] {
    std::string text;
    for (const auto &[name, size] : sizes)
      text += (text.empty() ? "" : ", ") + name + " = " + sizeText(size);
    return text;
  };
  for (llvm::StringRef s : spelled) {
    int64_t value = 0;
    bool dynamic = s == "?";
    if (!dynamic && s.getAsInteger(10, value))
      return Rejection{DropReason::Contradictory,
                       llvm::formatv("signature '{0}' has an unreadable size "
                                     "'{1}'",
                                     p.signature, s)};
    bool found = false;
    for (size_t i = 0; i < sizes.size() && !found; ++i)
      if (!used[i] &&
          (dynamic ? isDynamicSize(sizes[i].second) : sizes[i].second == value))
        used[i] = found = true;
    if (!found)
      return Rejection{DropReason::Contradictory,
                       llvm::formatv("signature '{0}' has size {1}, which none "
                                     "of the sizes ({2}) is",
                                     p.signature, s, list())};
  }
  for (size_t i = 0; i < sizes.size(); ++i)
    if (!used[i] && sizes[i].second != 1)
      return Rejection{DropReason::Contradictory,
                       llvm::formatv("size {0} = {1} is not in signature '{2}'",
                                     sizes[i].first, sizeText(sizes[i].second),
                                     p.signature)};
  return std::nullopt;
}

/// A number for a message: 1e+300, not 300 digits.
static std::string num(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

static std::optional<Rejection> checkRecord(const TuningRecord &r) {
  auto outOfRange = [](const llvm::Twine &message) {
    return Rejection{DropReason::OutOfRange, message.str()};
  };
  if (r.target.empty())
    return Rejection{DropReason::Malformed, "empty target"};
  switch (r.kind) {
  case TuningRecordKind::Measurement: {
    if (r.problem.signature.empty())
      return Rejection{DropReason::Malformed, "empty problem signature"};
    if (std::optional<Rejection> bad = checkSizes(r.problem))
      return bad;
    if (r.timeUs < 0 || r.timeUs > kMaxTuningTimeUs ||
        (r.passed() && r.timeUs < kMinTuningTimeUs))
      return outOfRange(llvm::formatv(
          "time_us = {0} is outside [{1}, {2}]{3}", num(r.timeUs),
          num(r.passed() ? kMinTuningTimeUs : 0), num(kMaxTuningTimeUs),
          r.passed() ? " for a passing measurement" : ""));
    for (auto [key, value] :
         {std::pair<llvm::StringRef, double>{"ref_us", r.refUs},
          {"predicted_us", r.predictedUs}})
      if (value < 0 || value > kMaxTuningTimeUs)
        return outOfRange(llvm::formatv("{0} = {1} is outside [0, {2}]", key,
                                        num(value), num(kMaxTuningTimeUs)));
    // A runner that found the kernel correct did not fail it: such a record
    // would ban a correct config for good. (The class is optional.)
    if (!r.passed() && r.failure == "ok")
      return Rejection{DropReason::Contradictory,
                       "a failed measurement with failure class '" + r.failure +
                           "'"};
    return std::nullopt;
  }
  case TuningRecordKind::Repair:
    if (r.scope.empty())
      return Rejection{DropReason::Malformed, "empty repair scope"};
    // A bound of 0 would drop every config of the scope.
    if ((r.rule == "max-smem" || r.rule == "max-accumulators") &&
        (r.value < 1 || r.value > kMaxTuningSize))
      return outOfRange(llvm::formatv("repair '{0}' value = {1} is outside "
                                      "1..{2}",
                                      r.rule, r.value, kMaxTuningSize));
    return std::nullopt;
  case TuningRecordKind::Calibration: {
    std::vector<std::pair<std::string, double>> params;
    for (const auto &entry : r.params)
      params.emplace_back(entry.getKey().str(), entry.getValue());
    llvm::sort(params);
    for (const auto &[name, value] : params) {
      if (!(value >= kMinCalibratedValue && value <= kMaxCalibratedValue))
        return outOfRange(llvm::formatv(
            "calibration parameter '{0}' = {1} is outside [{2}, {3}]", name,
            num(value), num(kMinCalibratedValue), num(kMaxCalibratedValue)));
      if (llvm::StringRef(name).ends_with("efficiency") && value > 1)
        return outOfRange(llvm::formatv(
            "calibration parameter '{0}' = {1}: an efficiency is at most 1",
            name, num(value)));
    }
    return std::nullopt;
  }
  }
  llvm_unreachable("unknown record kind");
}

std::string mlir::amk::validateTuningRecord(const TuningRecord &record) {
  std::optional<Rejection> bad = checkRecord(record);
  return bad ? bad->message : "";
}

llvm::Error TuningDB::load(llvm::StringRef path) {
  if (!llvm::sys::fs::exists(path))
    return llvm::Error::success();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return llvm::createStringError(file.getError(),
                                   "cannot read tuning database '" + path +
                                       "': " + file.getError().message());
  llvm::SmallVector<llvm::StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  // Per reason: how many lines, and the first of them.
  struct Count {
    unsigned lines = 0;
    TuningLoadIssue first;
  };
  std::array<Count, kNumDropReasons> counts;
  unsigned total = 0, droppedHere = 0;
  for (auto [index, line] : llvm::enumerate(lines)) {
    line = line.trim();
    if (line.empty() || line.starts_with("#"))
      continue;
    ++total;
    auto drop = [&, index = index](DropReason reason,
                                   const std::string &message) {
      TuningLoadIssue issue{path.str(), unsigned(index + 1), message};
      Count &count = counts[static_cast<size_t>(reason)];
      if (count.lines++ == 0)
        count.first = issue;
      dropped.push_back(std::move(issue));
      ++droppedHere;
    };
    // The parser recurses per level: bound the depth before it runs.
    if (std::optional<JSONNestingError> deep = findExcessiveJSONNesting(line)) {
      drop(DropReason::TooDeep, deep->message());
      continue;
    }
    llvm::Expected<Value> json = parseJSON(line);
    if (!json) {
      drop(DropReason::NotJSON, llvm::toString(json.takeError()));
      continue;
    }
    const Object *object = json->getAsObject();
    std::optional<int64_t> schema =
        object ? object->getInteger("schema") : std::nullopt;
    llvm::Expected<TuningRecord> record = TuningRecord::fromJSON(*json);
    if (!record) {
      bool otherSchema = schema && *schema != kTuningSchemaVersion;
      drop(otherSchema ? DropReason::OtherSchema : DropReason::Malformed,
           llvm::toString(record.takeError()));
      continue;
    }
    if (std::optional<Rejection> bad = checkRecord(*record)) {
      drop(bad->reason, bad->message);
      continue;
    }
    records.push_back(std::move(*record));
  }
  if (droppedHere == 0)
    return llvm::Error::success();

  // One issue for the file: a database with a thousand bad lines is one
  // warning, not a thousand.
  std::string message =
      llvm::formatv("{0} of {1} record(s):", droppedHere, total).str();
  unsigned firstLine = 0;
  bool firstReason = true;
  for (size_t i = 0; i < kNumDropReasons; ++i) {
    const Count &count = counts[i];
    if (count.lines == 0)
      continue;
    message +=
        llvm::formatv("{0} {1} {2} ({3}line {4}: {5})", firstReason ? "" : ";",
                      count.lines, describe(static_cast<DropReason>(i)),
                      count.lines > 1 ? "first at " : "", count.first.line,
                      count.first.message)
            .str();
    firstReason = false;
    if (firstLine == 0 || count.first.line < firstLine)
      firstLine = count.first.line;
  }
  loadIssues.push_back({path.str(), firstLine, std::move(message)});
  return llvm::Error::success();
}
