//===- TuningDB.cpp - Measured configs, repairs and calibrations ----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Tuning/TuningDB.h"

#include "AMK/Target/JSONDepth.h"
#include "AMK/Target/TargetSpec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

using namespace mlir::amk;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

std::string mlir::amk::getTargetIdentity(const TargetSpec &target) {
  std::array<uint8_t, 32> hash = llvm::SHA256::hash(
      llvm::arrayRefFromStringRef(llvm::StringRef(targetToJSON(target))));
  return target.name + ":" + target.arch + ":" +
         llvm::toHex(llvm::ArrayRef(hash).take_front(8), /*LowerCase=*/true);
}

std::string mlir::amk::getTodayDate() {
  std::time_t now = std::time(nullptr);
  std::tm utc;
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof(text), "%Y-%m-%d", &utc);
  return text;
}

static llvm::StringRef kindName(TuningRecordKind kind) {
  switch (kind) {
  case TuningRecordKind::Measurement:
    return "measurement";
  case TuningRecordKind::Repair:
    return "repair";
  case TuningRecordKind::Calibration:
    return "calibration";
  }
  llvm_unreachable("unknown record kind");
}

Value mlir::amk::toJSON(const TuningProblem &p) {
  Object sizes;
  for (const auto &entry : p.sizes)
    sizes[entry.getKey()] = entry.getValue();
  return Object{{"signature", p.signature},
                {"family", p.family},
                {"sizes", std::move(sizes)},
                {"details", Object(p.details)}};
}

Value TuningRecord::toJSON() const {
  Object o{{"schema", kTuningSchemaVersion},
           {"kind", kindName(kind)},
           {"target", target},
           {"date", date},
           {"amk_version", amkVersion}};
  switch (kind) {
  case TuningRecordKind::Measurement:
    o["problem"] = mlir::amk::toJSON(problem);
    o["config"] = config;
    o["time_us"] = timeUs;
    o["ref_us"] = refUs;
    o["predicted_us"] = predictedUs;
    o["verdict"] = verdict;
    if (!failure.empty())
      o["failure"] = failure;
    break;
  case TuningRecordKind::Repair:
    o["rule"] = rule;
    o["scope"] = scope;
    o["value"] = value;
    if (!config.empty())
      o["config"] = config;
    o["reason"] = reason;
    break;
  case TuningRecordKind::Calibration: {
    Object p;
    for (const auto &entry : params)
      p[entry.getKey()] = entry.getValue();
    o["params"] = std::move(p);
    o["spearman_before"] = spearmanBefore;
    o["spearman_after"] = spearmanAfter;
    break;
  }
  }
  return o;
}

namespace {
/// Reads typed fields of one JSON object, remembering the first error.
class FieldReader {
public:
  explicit FieldReader(const Object &object) : object(object) {}

  void str(llvm::StringRef key, std::string &out, bool required = true) {
    if (const Value *v = find(key, required)) {
      if (std::optional<llvm::StringRef> s = v->getAsString())
        out = s->str();
      else
        fail(key, "a string");
    }
  }
  void num(llvm::StringRef key, double &out, bool required = true) {
    if (const Value *v = find(key, required)) {
      if (std::optional<double> d = v->getAsNumber(); d && std::isfinite(*d))
        out = *d;
      else
        fail(key, "a finite number");
    }
  }
  void integer(llvm::StringRef key, int64_t &out, bool required = true) {
    if (const Value *v = find(key, required)) {
      if (std::optional<int64_t> i = v->getAsInteger())
        out = *i;
      else
        fail(key, "an integer");
    }
  }
  const Object *obj(llvm::StringRef key, bool required = true) {
    if (const Value *v = find(key, required)) {
      if (const Object *o = v->getAsObject())
        return o;
      fail(key, "an object");
    }
    return nullptr;
  }
  llvm::Error takeError() {
    if (error.empty())
      return llvm::Error::success();
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  }

private:
  const Value *find(llvm::StringRef key, bool required) {
    const Value *v = object.get(key);
    if (!v && required && error.empty())
      error = ("missing field '" + key + "'").str();
    return v;
  }
  void fail(llvm::StringRef key, llvm::StringRef what) {
    if (error.empty())
      error = ("field '" + key + "' must be " + what).str();
  }

  const Object &object;
  std::string error;
};
} // namespace

llvm::Expected<TuningProblem>
mlir::amk::parseTuningProblem(const Value &value) {
  const Object *o = value.getAsObject();
  if (!o)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "a problem must be a JSON object");
  TuningProblem p;
  FieldReader read(*o);
  read.str("signature", p.signature);
  read.str("family", p.family);
  if (const Object *sizes = o->getObject("sizes")) {
    for (const auto &[name, size] : *sizes) {
      std::optional<int64_t> v = size.getAsInteger();
      if (!v)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "field 'sizes' must map names to "
                                       "integers");
      p.sizes[name.str()] = *v;
    }
  } else {
    // The first schema's GEMM sizes.
    for (auto [key, symbol] :
         {std::pair<llvm::StringRef, llvm::StringRef>{"batch", "B"},
          {"m", "M"},
          {"n", "N"},
          {"k", "K"}}) {
      int64_t v = 0;
      read.integer(key, v);
      p.sizes[symbol] = v;
    }
  }
  if (const Object *d = read.obj("details", /*required=*/false))
    p.details = *d;
  if (llvm::Error e = read.takeError())
    return std::move(e);
  return p;
}

llvm::Expected<TuningRecord> TuningRecord::fromJSON(const Value &value) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  const Object *o = value.getAsObject();
  if (!o)
    return error("a record must be a JSON object");
  std::optional<int64_t> schema = o->getInteger("schema");
  if (!schema)
    return error("missing integer field 'schema'");
  if (*schema != kTuningSchemaVersion)
    return error(llvm::formatv("schema {0}, this AMK reads schema {1}", *schema,
                               kTuningSchemaVersion));
  TuningRecord r;
  FieldReader read(*o);
  std::string kind;
  read.str("kind", kind);
  read.str("target", r.target);
  read.str("date", r.date, /*required=*/false);
  read.str("amk_version", r.amkVersion, /*required=*/false);
  if (kind == "measurement") {
    r.kind = TuningRecordKind::Measurement;
    if (read.obj("problem")) {
      llvm::Expected<TuningProblem> problem =
          parseTuningProblem(*o->get("problem"));
      if (!problem)
        return error("problem: " + llvm::toString(problem.takeError()));
      r.problem = std::move(*problem);
    }
    read.str("config", r.config);
    read.num("time_us", r.timeUs);
    read.num("ref_us", r.refUs, /*required=*/false);
    read.num("predicted_us", r.predictedUs, /*required=*/false);
    read.str("verdict", r.verdict);
    read.str("failure", r.failure, /*required=*/false);
    if (llvm::Error e = read.takeError())
      return std::move(e);
    if (r.verdict != "pass" && r.verdict != "fail")
      return error("verdict must be 'pass' or 'fail', not '" + r.verdict + "'");
    if (r.passed() && r.timeUs <= 0)
      return error("a passing measurement needs time_us > 0");
    return r;
  }
  if (kind == "repair") {
    r.kind = TuningRecordKind::Repair;
    read.str("rule", r.rule);
    read.str("scope", r.scope);
    read.integer("value", r.value, /*required=*/false);
    read.str("config", r.config, /*required=*/false);
    read.str("reason", r.reason, /*required=*/false);
    if (llvm::Error e = read.takeError())
      return std::move(e);
    return r;
  }
  if (kind == "calibration") {
    r.kind = TuningRecordKind::Calibration;
    if (const Object *p = read.obj("params"))
      for (const auto &[key, v] : *p) {
        std::optional<double> d = v.getAsNumber();
        if (!d || !std::isfinite(*d) || *d <= 0)
          return error("calibration parameter '" + key.str() +
                       "' must be a positive number");
        r.params[key.str()] = *d;
      }
    read.num("spearman_before", r.spearmanBefore, /*required=*/false);
    read.num("spearman_after", r.spearmanAfter, /*required=*/false);
    if (llvm::Error e = read.takeError())
      return std::move(e);
    return r;
  }
  if (llvm::Error e = read.takeError())
    return std::move(e);
  return error("unknown record kind '" + kind + "'");
}

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
    llvm::Expected<Value> json = llvm::json::parse(line);
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

llvm::Error TuningDB::append(llvm::StringRef path,
                             llvm::ArrayRef<TuningRecord> newRecords) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const TuningRecord &r : newRecords)
    os << r.toJSON() << "\n";
  int fd;
  if (std::error_code ec = llvm::sys::fs::openFileForWrite(
          path, fd, llvm::sys::fs::CD_OpenAlways, llvm::sys::fs::OF_Append))
    return llvm::createStringError(ec, "cannot open tuning database '" + path +
                                           "' for writing: " + ec.message());
  llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
  if (std::error_code ec = llvm::sys::fs::lockFile(fd))
    return llvm::createStringError(ec, "cannot lock tuning database '" + path +
                                           "': " + ec.message());
  out << text;
  out.flush();
  (void)llvm::sys::fs::unlockFile(fd);
  if (out.has_error()) {
    std::error_code ec = out.error();
    out.clear_error();
    return llvm::createStringError(ec, "cannot write tuning database '" + path +
                                           "': " + ec.message());
  }
  for (const TuningRecord &r : newRecords)
    records.push_back(r);
  return llvm::Error::success();
}

std::vector<const TuningRecord *>
TuningDB::exact(llvm::StringRef target, llvm::StringRef signature) const {
  std::vector<const TuningRecord *> found;
  for (const TuningRecord &r : records)
    if (r.kind == TuningRecordKind::Measurement && r.passed() &&
        r.target == target && r.problem.signature == signature)
      found.push_back(&r);
  llvm::stable_sort(found, [](const TuningRecord *a, const TuningRecord *b) {
    return a->timeUs < b->timeUs;
  });
  return found;
}

std::vector<const TuningRecord *>
TuningDB::failures(llvm::StringRef target, llvm::StringRef signature) const {
  std::vector<const TuningRecord *> found;
  for (const TuningRecord &r : records)
    if (r.kind == TuningRecordKind::Measurement && !r.passed() &&
        r.target == target && r.problem.signature == signature)
      found.push_back(&r);
  return found;
}

double mlir::amk::getProblemLogDistance(const TuningProblem &a,
                                        const TuningProblem &b) {
  auto term = [](int64_t x, int64_t y) {
    return std::fabs(std::log(double(std::max<int64_t>(x, 1)) /
                              double(std::max<int64_t>(y, 1))));
  };
  // Over the symbols of either problem; one the other lacks counts as 1.
  double sum = 0;
  for (const auto &entry : a.sizes)
    sum += term(entry.getValue(), b.getSize(entry.getKey()));
  for (const auto &entry : b.sizes)
    if (!a.sizes.contains(entry.getKey()))
      sum += term(1, entry.getValue());
  return sum;
}

std::vector<const TuningRecord *>
TuningDB::nearby(llvm::StringRef target, const TuningProblem &problem,
                 double maxLogDistance) const {
  // The best record per config, then nearest first.
  llvm::StringMap<std::pair<double, const TuningRecord *>> best;
  for (const TuningRecord &r : records) {
    if (r.kind != TuningRecordKind::Measurement || !r.passed() ||
        r.target != target || r.problem.family != problem.family ||
        r.problem.signature == problem.signature)
      continue;
    double d = getProblemLogDistance(r.problem, problem);
    if (d > maxLogDistance)
      continue;
    auto [it, inserted] = best.try_emplace(r.config, d, &r);
    if (!inserted &&
        (d < it->second.first ||
         (d == it->second.first && r.timeUs < it->second.second->timeUs)))
      it->second = {d, &r};
  }
  std::vector<std::pair<double, const TuningRecord *>> sorted;
  for (const auto &entry : best)
    sorted.push_back(entry.getValue());
  llvm::sort(sorted, [](const auto &a, const auto &b) {
    if (a.first != b.first)
      return a.first < b.first;
    if (a.second->timeUs != b.second->timeUs)
      return a.second->timeUs < b.second->timeUs;
    return a.second->config < b.second->config;
  });
  std::vector<const TuningRecord *> found;
  for (const auto &entry : sorted)
    found.push_back(entry.second);
  return found;
}

std::vector<const TuningRecord *>
TuningDB::repairs(llvm::StringRef target, const TuningProblem &problem) const {
  std::vector<const TuningRecord *> found;
  for (const TuningRecord &r : records)
    if (r.kind == TuningRecordKind::Repair && r.target == target &&
        (r.scope == "*" || r.scope == problem.family ||
         r.scope == problem.signature))
      found.push_back(&r);
  return found;
}

const TuningRecord *TuningDB::calibration(llvm::StringRef target) const {
  const TuningRecord *latest = nullptr;
  for (const TuningRecord &r : records)
    if (r.kind == TuningRecordKind::Calibration && r.target == target)
      latest = &r; // Later lines win.
  return latest;
}

/// Ranks 1..n, ties getting the mean of their ranks.
static std::vector<double> ranks(llvm::ArrayRef<double> values) {
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order,
                    [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> rank(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
      ++j;
    double mean = (double(i) + double(j)) / 2 + 1;
    for (size_t t = i; t <= j; ++t)
      rank[order[t]] = mean;
    i = j + 1;
  }
  return rank;
}

std::optional<double> mlir::amk::getSpearman(llvm::ArrayRef<double> a,
                                             llvm::ArrayRef<double> b) {
  if (a.size() != b.size() || a.size() < 2)
    return std::nullopt;
  std::vector<double> ra = ranks(a), rb = ranks(b);
  // Pearson correlation of the ranks (exact with ties).
  double n = double(a.size()), ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ma += ra[i] / n;
    mb += rb[i] / n;
  }
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa == 0 || sbb == 0)
    return std::nullopt;
  return sab / std::sqrt(saa * sbb);
}
