//===- Ingest.cpp - amk-tune ingest: measurements, repairs, calibration ---===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Turns every candidate's result into a measurement record, lets the
// reflector map failures to repair rules, refits each family's cost model
// (calibration record, Spearman rank correlation before and after) and
// writes DIR/ingest.json for the report.
//
//===----------------------------------------------------------------------===//

#include "amk-tune.h"

#include "AMK/Dialect/AMK/IR/AMKDialect.h"
#include "AMK/Family/Family.h"
#include "AMK/Target/TargetSpec.h"
#include "AMK/Tuning/Calibrate.h"
#include "AMK/Tuning/Reflect.h"
#include "AMK/Version.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <map>

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::tune;
namespace json = llvm::json;

using Outcome = TuningOutcome;

/// The results of amk-bench files, by manifest path.
static llvm::Error readResults(llvm::ArrayRef<std::string> resultFiles,
                               llvm::StringMap<const json::Object *> &byPath,
                               std::vector<json::Value> &storage) {
  for (const std::string &file : resultFiles) {
    llvm::Expected<json::Value> value = readJSON(file);
    if (!value)
      return value.takeError();
    storage.push_back(std::move(*value));
  }
  for (const json::Value &value : storage) {
    const json::Object *root = value.getAsObject();
    const json::Array *cases = root ? root->getArray("cases") : nullptr;
    if (!cases)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "a results file has no 'cases' array "
                                     "(is it amk-bench --json output?)");
    for (const json::Value &c : *cases)
      if (const json::Object *o = c.getAsObject())
        if (std::optional<llvm::StringRef> m = o->getString("manifest"))
          byPath[*m] = o;
  }
  return llvm::Error::success();
}

/// The result for `manifest` (relative to the build dir): amk-bench ran it
/// from wherever the build dir was copied, so paths match by suffix.
static const json::Object *
findResult(const llvm::StringMap<const json::Object *> &byPath,
           llvm::StringRef manifest) {
  for (const auto &entry : byPath) {
    llvm::StringRef path = entry.getKey();
    if (path == manifest || (path.ends_with(manifest) &&
                             path.drop_back(manifest.size()).ends_with("/")))
      return entry.getValue();
  }
  return nullptr;
}

static double getNumber(const json::Object *o,
                        std::initializer_list<llvm::StringRef> path) {
  const json::Object *at = o;
  for (auto it = path.begin(); at && it != path.end(); ++it) {
    if (std::next(it) == path.end())
      return at->getNumber(*it).value_or(0);
    at = at->getObject(*it);
  }
  return 0;
}

/// The family of a tuning record's problem: the one its details name, else
/// the first token of its signature (records of the first releases).
static const KernelFamily *getRecordFamily(const TuningProblem &problem) {
  std::optional<llvm::StringRef> name = problem.details.getString("family");
  return lookupFamily(
      name ? *name : llvm::StringRef(problem.signature).split('_').first);
}

/// The calibration point of a passing measurement, if its family still
/// models the problem and config.
static std::optional<CalibrationPoint>
getCalibrationPoint(const TuningRecord &r, const TargetSpec &target,
                    MLIRContext &context) {
  const KernelFamily *family = getRecordFamily(r.problem);
  if (!family)
    return std::nullopt;
  auto config = llvm::dyn_cast_if_present<KernelConfigAttrInterface>(
      parseAttribute(r.config, &context));
  FailureOr<std::unique_ptr<ProblemModel>> model =
      family->getModel(&context, r.problem.details, target);
  if (!config || failed(model) || (*model)->hasDynamicSizes())
    return std::nullopt;
  FailureOr<KernelResources> resources = (*model)->getResources(config);
  if (failed(resources))
    return std::nullopt;
  llvm::json::Object details = r.problem.details;
  CalibrationPoint p;
  p.predictUs = [family, config, details, resources = *resources, &target,
                 &context](const llvm::StringMap<double> &params) {
    CostOverrides overrides;
    for (const auto &entry : params)
      overrides[entry.getKey()] = entry.getValue();
    FailureOr<std::unique_ptr<ProblemModel>> m =
        family->getModel(&context, details, target, overrides);
    return (*m)->predict(config, resources).totalNs / 1000;
  };
  p.measuredUs = r.timeUs;
  p.group = r.problem.signature;
  return p;
}

/// The calibratable constants of the family of the first point's record.
static SmallVector<CalibrationParam>
getCalibrationParams(const KernelFamily &family) {
  SmallVector<CalibrationParam> params;
  for (const auto &[name, value] : family.getCostParams())
    params.push_back({name, value});
  return params;
}

/// The useful work of a record's problem (0 when its family is unknown).
static double getWork(const TuningProblem &problem) {
  const KernelFamily *family = getRecordFamily(problem);
  return family ? family->getWork(problem.details) : 0;
}

/// What amk-bench measured of a candidate it ran (`r`, its result).
static void readMeasurement(const json::Object *r, Outcome &o) {
  o.measured = true;
  o.status = r->getString("status").value_or("ERROR").str();
  if (const json::Object *trace = r->getObject("trace")) {
    o.failureClass = trace->getString("class").value_or("").str();
    o.detail = trace->getString("detail").value_or("").str();
    if (const json::Array *flags = trace->getArray("flags"))
      for (const json::Value &f : *flags)
        if (std::optional<llvm::StringRef> s = f.getAsString())
          o.flags.push_back(s->str());
  } else {
    o.failureClass = o.status == "PASS" ? "ok" : "unclassified";
    o.detail = r->getString("error").value_or("").str();
  }
  o.timeUs = getNumber(r, {"timing", "amk", "median_us"});
  o.refUs = getNumber(r, {"timing", "cublas", "median_us"});
  o.peakTflops = getNumber(r, {"timing", "peak_tflops"});
  o.rooflineUs = getNumber(r, {"timing", "roofline_us"});
  o.localBytes = getNumber(r, {"kernel", "local_bytes_per_thread"});
}

/// The shared memory the manifest asked for (for the smem rule): the most
/// any kernel asks for (schema 2 lists them in "kernels").
static void readManifestSmem(llvm::StringRef ingestDir, Outcome &o) {
  SmallString<128> m(ingestDir);
  llvm::sys::path::append(m, o.manifest);
  if (llvm::Expected<json::Value> manifest = readJSON(m)) {
    if (const json::Object *mo = manifest->getAsObject()) {
      o.smemBytes = mo->getInteger("dynamic_smem_bytes").value_or(0);
      if (const json::Array *kernels = mo->getArray("kernels"))
        for (const json::Value &k : *kernels)
          if (const json::Object *ko = k.getAsObject())
            o.smemBytes = std::max<int64_t>(
                o.smemBytes, ko->getInteger("dynamic_smem_bytes").value_or(0));
    }
  } else {
    llvm::consumeError(manifest.takeError());
  }
}

/// Candidate `c` of the build index at `buildPath` as an outcome, with its
/// result from `results`. Returns the exit code on failure, else 0.
static int readOutcome(const json::Object *c, llvm::StringRef buildPath,
                       llvm::StringRef ingestDir,
                       const llvm::StringMap<const json::Object *> &results,
                       MLIRContext &context, Outcome &o) {
  o.id = c->getString("id").value_or("").str();
  o.config = c->getString("config").value_or("").str();
  o.manifest = c->getString("manifest").value_or("").str();
  o.predictedUs = c->getNumber("predicted_us").value_or(0);
  const json::Value *problem = c->get("problem");
  llvm::Expected<TuningProblem> parsed =
      problem
          ? parseTuningProblem(*problem)
          : llvm::createStringError(llvm::inconvertibleErrorCode(), "missing");
  if (!parsed)
    return fail(buildPath + ": candidate '" + o.id + "' has no problem (" +
                llvm::toString(parsed.takeError()) + ")");
  o.problem = std::move(*parsed);
  const json::Object *r =
      o.manifest.empty() ? nullptr : findResult(results, o.manifest);
  if (c->getString("status") != std::optional<llvm::StringRef>("ok")) {
    o.status = "COMPILE-ERROR";
  } else if (!r) {
    o.status = "missing";
  } else if (r->getBoolean("not_run").value_or(false)) {
    o.status = "not-run";
  } else {
    readMeasurement(r, o);
  }
  if (!o.manifest.empty())
    readManifestSmem(ingestDir, o);
  // A bundle that did not load (another arch, a missing file) or a
  // reference that disagrees with itself says nothing about the config.
  if (o.failureClass == "load-error" || o.failureClass == "reference-suspect") {
    llvm::WithColor::warning(llvm::errs(), "amk-tune")
        << o.id << " not recorded (" << o.failureClass << "): " << o.detail
        << "\n";
    o.measured = false;
  }
  // What spill repairs bound.
  if (const KernelFamily *family = getRecordFamily(o.problem))
    if (auto config = llvm::dyn_cast_if_present<KernelConfigAttrInterface>(
            parseAttribute(o.config, &context)))
      o.registerPressure = family->getRegisterPressure(config);
  return 0;
}

/// Fits each family's cost model to its own passing measurements of this
/// target, old (`db`) and new (`records`); one record (`calibration`) holds
/// every family's constants. Returns the report.
static json::Object
calibrateFamilies(const TuningDB &db, llvm::ArrayRef<TuningRecord> records,
                  llvm::StringRef identity, const TargetSpec &target,
                  MLIRContext &context,
                  std::optional<TuningRecord> &calibration) {
  TuningDB all = db;
  for (const TuningRecord &r : records)
    all.add(r);
  // Each family's cost model is fitted to its own measurements; one record
  // holds every family's constants.
  std::map<std::string, std::vector<CalibrationPoint>> pointsByFamily;
  for (const TuningRecord &r : all.all()) {
    if (r.kind != TuningRecordKind::Measurement || !r.passed() ||
        r.target != identity)
      continue;
    if (std::optional<CalibrationPoint> p =
            getCalibrationPoint(r, target, context))
      pointsByFamily[getRecordFamily(r.problem)->getName().str()].push_back(
          std::move(*p));
  }
  json::Object calibrationReport;
  for (auto &[name, points] : pointsByFamily) {
    // Too few measurements would fit noise.
    if (points.size() < kMinCalibrationPoints) {
      calibrationReport[name] = json::Object{
          {"skipped", llvm::formatv("{0} measurements, calibration needs {1}",
                                    points.size(), kMinCalibrationPoints)
                          .str()}};
      continue;
    }
    json::Object report;
    TuningRecord fitted = calibrate(
        points, getCalibrationParams(*lookupFamily(name)), identity, report);
    calibrationReport[name] = std::move(report);
    if (!calibration)
      calibration = std::move(fitted);
    else
      for (const auto &entry : fitted.params)
        calibration->params[entry.getKey()] = entry.getValue();
  }
  if (pointsByFamily.empty())
    calibrationReport["skipped"] =
        llvm::formatv("0 measurements, calibration needs {0}",
                      kMinCalibrationPoints)
            .str();
  return calibrationReport;
}

/// Writes `ingestPath`, the report's input, and prints each problem's
/// best candidate; `passed` counts the candidates that passed. Returns the
/// exit code on failure, else 0.
static int writeSummary(llvm::StringRef ingestPath, llvm::StringRef identity,
                        llvm::StringRef targetName,
                        llvm::ArrayRef<Outcome> outcomes,
                        llvm::ArrayRef<TuningRecord> rules,
                        llvm::ArrayRef<std::string> harnessGaps,
                        json::Object calibrationReport, size_t &passed) {
  json::Array rows;
  std::map<std::string, std::vector<const Outcome *>> byProblem;
  for (const Outcome &o : outcomes) {
    passed += o.status == "PASS";
    byProblem[o.problem.signature].push_back(&o);
    json::Array flags;
    for (const std::string &f : o.flags)
      flags.push_back(f);
    rows.push_back(json::Object{{"id", o.id},
                                {"signature", o.problem.signature},
                                {"config", o.config},
                                {"status", o.status},
                                {"class", o.failureClass},
                                {"detail", o.detail},
                                {"flags", std::move(flags)},
                                {"predicted_us", o.predictedUs},
                                {"time_us", o.timeUs},
                                {"ref_us", o.refUs},
                                {"flops", getWork(o.problem)}});
  }
  json::Array best;
  for (auto &[signature, list] : byProblem) {
    const Outcome *rung0 = list.front(), *fastest = nullptr;
    for (const Outcome *o : list)
      if (o->status == "PASS" && o->timeUs > 0 &&
          (!fastest || o->timeUs < fastest->timeUs))
        fastest = o;
    json::Object b{
        {"signature", signature},          {"plan_id", rung0->id},
        {"plan_status", rung0->status},    {"plan_us", rung0->timeUs},
        {"ref_us", rung0->refUs},          {"peak_tflops", rung0->peakTflops},
        {"roofline_us", rung0->rooflineUs}};
    if (fastest) {
      llvm::outs() << llvm::formatv("best {0}: {1} {2:f1} us (plan {3}: {4}, "
                                    "{5:f1} us) {6}\n",
                                    signature, fastest->id, fastest->timeUs,
                                    rung0->id, rung0->status, rung0->timeUs,
                                    fastest->config);
      b["best_id"] = fastest->id;
      b["best_config"] = fastest->config;
      b["best_us"] = fastest->timeUs;
    }
    best.push_back(std::move(b));
  }
  json::Array ruleList, gaps;
  for (const TuningRecord &r : rules)
    ruleList.push_back(r.toJSON());
  for (const std::string &g : harnessGaps)
    gaps.push_back(g);
  json::Object summary{{"target", identity},
                       {"target_name", targetName},
                       {"date", getTodayDate()},
                       {"candidates", std::move(rows)},
                       {"problems", std::move(best)},
                       {"repairs", std::move(ruleList)},
                       {"harness_gaps", std::move(gaps)},
                       {"calibration", std::move(calibrationReport)}};
  if (llvm::Error e = writeJSON(ingestPath, std::move(summary)))
    return fail(llvm::toString(std::move(e)));
  return 0;
}

int tune::runIngest(llvm::StringRef ingestDir,
                    llvm::ArrayRef<std::string> resultFiles) {
  SmallString<128> buildPath(ingestDir);
  llvm::sys::path::append(buildPath, "build.json");
  llvm::Expected<json::Value> build = readJSON(buildPath);
  if (!build)
    return fail(llvm::toString(build.takeError()));
  const json::Object *root = build->getAsObject();
  std::optional<int64_t> schema =
      root ? root->getInteger("schema") : std::nullopt;
  if (!schema || *schema != kBuildSchema)
    return fail(buildPath + ": not an amk-tune build index of schema " +
                llvm::Twine(kBuildSchema));
  std::string identity = root->getString("target").value_or("").str();
  std::string targetName = root->getString("target_name").value_or("").str();
  llvm::Expected<TargetSpec> target = resolveTarget(targetName);
  if (!target)
    return fail(llvm::toString(target.takeError()));
  if (getTargetIdentity(*target) != identity)
    return fail("the build was for target '" + identity + "', which '" +
                targetName + "' no longer describes: rebuild");

  DialectRegistry registry;
  registerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::StringMap<const json::Object *> results;
  std::vector<json::Value> storage;
  if (llvm::Error e = readResults(resultFiles, results, storage))
    return fail(llvm::toString(std::move(e)));

  TuningDB db;
  if (llvm::Error e = loadDB(db, tuningDBPath))
    return fail(llvm::toString(std::move(e)));

  // Every candidate: its outcome and a measurement record.
  std::vector<Outcome> outcomes;
  std::vector<TuningRecord> records;
  const json::Array *list = root->getArray("candidates");
  if (!list)
    return fail(buildPath + ": no 'candidates'");
  for (const json::Value &v : *list) {
    const json::Object *c = v.getAsObject();
    if (!c)
      continue;
    Outcome o;
    if (int rc = readOutcome(c, buildPath, ingestDir, results, context, o))
      return rc;
    if (std::optional<TuningRecord> rec = getMeasurement(o, identity))
      records.push_back(std::move(*rec));
    outcomes.push_back(std::move(o));
  }

  std::vector<std::string> harnessGaps;
  std::vector<TuningRecord> rules = reflect(outcomes, identity, harnessGaps);

  // Calibration over every passing measurement of this target, old and new.
  std::optional<TuningRecord> calibration;
  json::Object calibrationReport =
      calibrateFamilies(db, records, identity, *target, context, calibration);
  std::vector<TuningRecord> toAppend = records;
  toAppend.insert(toAppend.end(), rules.begin(), rules.end());
  if (calibration)
    toAppend.push_back(std::move(*calibration));
  if (!tuningDBPath.empty())
    if (llvm::Error e = db.append(tuningDBPath, toAppend))
      return fail(llvm::toString(std::move(e)));

  SmallString<128> ingestPath(ingestDir);
  llvm::sys::path::append(ingestPath, "ingest.json");
  size_t passed = 0;
  if (int rc = writeSummary(ingestPath, identity, targetName, outcomes, rules,
                            harnessGaps, std::move(calibrationReport), passed))
    return rc;
  llvm::outs() << llvm::formatv(
      "ingested {0} candidates ({1} measured, {2} passed), {3} repair "
      "rule(s), {4} harness gap(s); {5} record(s) appended to {6}; summary: "
      "{7}\n",
      outcomes.size(), records.size(), passed, rules.size(), harnessGaps.size(),
      tuningDBPath.empty() ? 0 : toAppend.size(),
      tuningDBPath.empty() ? std::string("(no database)")
                           : tuningDBPath.getValue(),
      ingestPath);
  return 0;
}
