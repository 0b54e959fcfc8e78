//===- TuningRecord.cpp - Tuning records to and from JSON -----------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// What a record carries and how one line of the database reads and writes:
// the target's identity, the date, problems and records as JSON (the
// fields' types only; TuningDBLoad.cpp validates what they say).
//
//===----------------------------------------------------------------------===//

#include "AMK/Tuning/TuningDB.h"

#include "AMK/Target/TargetSpec.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"

#include <array>
#include <cmath>
#include <ctime>

using namespace mlir::amk;
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
