//===- amk-tune.cpp - Build, ingest, reflect: the tuning loop -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The MLIR side of the tuning loop (docs/TUNING.md). The GPU side is
// `amk-bench` (no MLIR), so builder and runner can sit on different machines:
//
//   amk-tune build  -target=h200 -candidates=6 -o DIR problems.mlir...
//       plans a ladder of N candidates per amk.matmul (diverse tiles; the
//       tuning database consulted), compiles every candidate through
//       plan/verify/lower on an LLVM thread pool, writes one bundle each and
//       DIR/build.json.
//   amk-bench --json DIR/results.json DIR/bundles/*/*.json     (on the GPU)
//   amk-tune ingest DIR DIR/results.json -tuning-db=tuning.jsonl
//       turns every candidate's result into a measurement record, lets the
//       reflector map failures to repair rules, refits the cost model
//       (calibration record, Spearman rank correlation before and after) and
//       writes DIR/ingest.json for the report.
//   amk-tune merge -o all.jsonl a.jsonl b.jsonl
//       merges databases (keeps every valid record once).
//   amk-tune loop -target=h200 -tuning-db=tuning.jsonl -o DIR problems.mlir
//       where the GPU is on this machine: rounds of build, amk-bench and
//       ingest (later rounds with -explore) until no config is left to try,
//       -rounds or -budget-s.
//
// The next `build` with the same database re-plans with the measurements,
// repairs and calibration: a round of sequential scaling.
//
//===----------------------------------------------------------------------===//

#include "AMK/Dialect/AMK/IR/AMKDialect.h"
#include "AMK/Family/Family.h"
#include "AMK/Planner/Planner.h"
#include "AMK/Target/TargetSpec.h"
#include "AMK/Transforms/Passes.h"
#include "AMK/Tuning/Calibrate.h"
#include "AMK/Tuning/Reflect.h"
#include "AMK/Tuning/TuningDB.h"
#include "AMK/Version.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ScopedPrinter.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>

using namespace mlir;
using namespace mlir::amk;
namespace cl = llvm::cl;
namespace json = llvm::json;

static constexpr int64_t kBuildSchema = 1;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static cl::SubCommand buildCmd("build", "Plan and compile N candidates per "
                                        "problem into bundles");
static cl::SubCommand ingestCmd("ingest", "Record GPU results in the tuning "
                                          "database, reflect, calibrate");
static cl::SubCommand mergeCmd("merge", "Merge tuning databases");
static cl::SubCommand loopCmd("loop", "Rounds of build, run (a GPU runner on "
                                      "this machine) and ingest until "
                                      "convergence or the budget");

static cl::list<std::string> buildInputs(cl::Positional, cl::OneOrMore,
                                         cl::desc("<problems.mlir>..."),
                                         cl::sub(buildCmd), cl::sub(loopCmd));
static cl::opt<std::string> targetName("target", cl::Required,
                                       cl::desc("preset or target JSON"),
                                       cl::sub(buildCmd), cl::sub(loopCmd));
static cl::opt<int64_t> candidates("candidates", cl::init(6),
                                   cl::desc("candidates per problem"),
                                   cl::sub(buildCmd), cl::sub(loopCmd));
static cl::opt<std::string> outDir("o", cl::Required,
                                   cl::desc("output directory"),
                                   cl::sub(buildCmd), cl::sub(loopCmd));
static cl::opt<bool> exploreOption(
    "explore", cl::init(false),
    cl::desc("a tuning round: the measured best plus only configs not yet "
             "measured (needs -tuning-db)"),
    cl::sub(buildCmd));
static cl::opt<unsigned> jobs("j", cl::init(0),
                              cl::desc("compile jobs (0: all cores)"),
                              cl::sub(buildCmd), cl::sub(loopCmd));
static cl::opt<bool> showProgress("progress", cl::init(true),
                                  cl::desc("show a progress bar"),
                                  cl::sub(buildCmd), cl::sub(ingestCmd),
                                  cl::sub(loopCmd));

static cl::opt<std::string> ingestDir(cl::Positional, cl::Required,
                                      cl::desc("<build dir>"),
                                      cl::sub(ingestCmd));
static cl::list<std::string>
    resultOptions(cl::Positional, cl::OneOrMore,
                  cl::desc("<amk-bench results.json>..."), cl::sub(ingestCmd));

static cl::opt<std::string>
    tuningDBPath("tuning-db", cl::desc("tuning database (JSON lines)"),
                 cl::sub(buildCmd), cl::sub(ingestCmd), cl::sub(loopCmd));

static cl::opt<int> rounds("rounds", cl::init(3),
                           cl::desc("rounds at most (the first without "
                                    "-explore)"),
                           cl::sub(loopCmd));
static cl::opt<double> budgetSeconds("budget-s", cl::init(600),
                                     cl::desc("no new round after this many "
                                              "seconds"),
                                     cl::sub(loopCmd));
static cl::opt<std::string>
    runnerPath("runner", cl::init("amk-bench"),
               cl::desc("the GPU runner, called as <runner> "
                        "[-runner-arg...] --json <out> --iters <n> --trials 1 "
                        "<manifest>..."),
               cl::sub(loopCmd));
static cl::list<std::string> runnerArgs("runner-arg",
                                        cl::desc("argument before the others"),
                                        cl::sub(loopCmd));
static cl::opt<int> runnerIters("iters", cl::init(30),
                                cl::desc("timed iterations per candidate"),
                                cl::sub(loopCmd));

static cl::list<std::string> mergeInputs(cl::Positional, cl::OneOrMore,
                                         cl::desc("<db.jsonl>..."),
                                         cl::sub(mergeCmd));
static cl::opt<std::string> mergeOutput("o", cl::Required,
                                        cl::desc("merged database"),
                                        cl::sub(mergeCmd));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "amk-tune") << message << "\n";
  return 1;
}

/// A one-line progress bar on stderr: "[=====     ] 12/40 label".
class Progress {
public:
  Progress(llvm::StringRef label, size_t total)
      : label(label.str()), total(total) {}
  void step() {
    size_t done = ++count;
    if (!showProgress)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    size_t width = 30, filled = total ? width * done / total : width;
    llvm::errs() << "\r[" << std::string(filled, '=')
                 << std::string(width - filled, ' ') << "] " << done << "/"
                 << total << " " << label;
    if (done == total)
      llvm::errs() << "\n";
  }

private:
  std::string label;
  size_t total;
  std::atomic<size_t> count{0};
  std::mutex mutex;
};

static void registerDialects(DialectRegistry &registry) {
  registry.insert<AMKDialect, arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect,
                  scf::SCFDialect, vector::VectorDialect>();
  registerLoweringExtensions(registry);
}

static llvm::Error loadDB(TuningDB &db, llvm::StringRef path) {
  if (path.empty())
    return llvm::Error::success();
  if (llvm::Error e = db.load(path))
    return e;
  for (const TuningLoadIssue &issue : db.issues())
    llvm::WithColor::warning(llvm::errs(), "amk-tune")
        << issue.file << ":" << issue.line << " skipped: " << issue.message
        << "\n";
  return llvm::Error::success();
}

static llvm::Expected<json::Value> readJSON(llvm::StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return llvm::createStringError(file.getError(),
                                   "cannot read '" + path +
                                       "': " + file.getError().message());
  llvm::Expected<json::Value> value = json::parse((*file)->getBuffer());
  if (!value)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "'" + path + "' is not JSON: " + llvm::toString(value.takeError()));
  return value;
}

static llvm::Error writeJSON(llvm::StringRef path, json::Value value) {
  std::string error;
  auto out = openOutputFile(path, &error);
  if (!out)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  out->os() << llvm::formatv("{0:2}", value) << "\n";
  out->keep();
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// build
//===----------------------------------------------------------------------===//

namespace {
/// One candidate to compile: problem `problem` (the index of its amk.matmul
/// in `file`) planned with rung `rung`.
struct BuildTask {
  std::string file;
  unsigned problem = 0;
  int64_t rung = 0;
  TuningProblem tuning;
  std::string config, source;
  double predictedUs = 0, measuredUs = 0;
  std::string id;
  // Results.
  bool ok = false;
  double compileMs = 0;
  std::string diagnostics, manifest;
};
} // namespace

/// Parses `file` in `context`, or reports why not into `diagnostics`.
static OwningOpRef<ModuleOp> parseProblems(llvm::StringRef file,
                                           MLIRContext &context,
                                           llvm::SourceMgr &sourceMgr) {
  std::string error;
  auto buffer = openInputFile(file, &error);
  if (!buffer) {
    emitError(UnknownLoc::get(&context)) << error;
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

/// The problem ops outside kernels, in order.
static SmallVector<ProblemOpInterface> freeProblems(ModuleOp module) {
  SmallVector<ProblemOpInterface> problems;
  module.walk([&](ProblemOpInterface op) {
    if (!op->getParentOfType<KernelOp>())
      problems.push_back(op);
  });
  return problems;
}

/// Compiles one candidate into DIR/bundles/<id>/ in a context of its own.
static void compileCandidate(BuildTask &task, const DialectRegistry &registry,
                             llvm::StringRef target, llvm::StringRef dir,
                             bool explore) {
  auto start = std::chrono::steady_clock::now();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagOS);
  OwningOpRef<ModuleOp> module = parseProblems(task.file, context, sourceMgr);
  bool ok = false;
  if (module) {
    // Only this candidate's problem stays.
    for (auto [i, problem] : llvm::enumerate(freeProblems(*module)))
      if (i != task.problem)
        problem->erase();
    SmallString<128> bundleDir(dir);
    llvm::sys::path::append(bundleDir, "bundles", task.id);
    PassManager pm(&context);
    AMKPlanPassOptions plan;
    plan.target = target.str();
    plan.ladderSize = candidates;
    plan.diverse = true;
    plan.explore = explore;
    plan.rung = task.rung;
    plan.tuningDB = tuningDBPath;
    pm.addPass(createAMKPlanPass(plan));
    pm.addPass(createAMKVerifyPass());
    AMKLowerPassOptions lower;
    lower.bundleDir = std::string(bundleDir);
    pm.addPass(createAMKLowerPass(lower));
    ok = succeeded(pm.run(*module));
    if (ok) {
      std::error_code ec;
      for (llvm::sys::fs::directory_iterator it(bundleDir, ec), end;
           it != end && !ec; it.increment(ec))
        if (llvm::sys::path::extension(it->path()) == ".json") {
          SmallString<128> rel("bundles");
          llvm::sys::path::append(rel, task.id,
                                  llvm::sys::path::filename(it->path()));
          task.manifest = std::string(rel);
        }
      ok = !task.manifest.empty();
    }
  }
  task.ok = ok;
  task.diagnostics = diagnostics;
  task.compileMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count();
}

static int runBuild(llvm::StringRef buildDir, bool explore,
                    size_t *newCandidates = nullptr) {
  llvm::Expected<TargetSpec> target = resolveTarget(targetName);
  if (!target)
    return fail(llvm::toString(target.takeError()));
  if (candidates < 1)
    return fail("-candidates must be at least 1");
  TuningDB db;
  if (llvm::Error e = loadDB(db, tuningDBPath))
    return fail(llvm::toString(std::move(e)));
  if (std::error_code ec = llvm::sys::fs::create_directories(buildDir))
    return fail("cannot create '" + buildDir + "': " + ec.message());
  if (explore && tuningDBPath.empty())
    return fail("-explore needs -tuning-db");

  DialectRegistry registry;
  registerDialects(registry);

  // Plan every problem here to list its candidates; each compile task
  // re-plans the same way (deterministic) and takes its rung.
  std::vector<BuildTask> tasks;
  unsigned problemIndex = 0;
  for (const std::string &file : buildInputs) {
    MLIRContext context(registry);
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    OwningOpRef<ModuleOp> module = parseProblems(file, context, sourceMgr);
    if (!module)
      return fail("cannot parse '" + file + "'");
    for (auto [i, problem] : llvm::enumerate(freeProblems(*module))) {
      const KernelFamily *family =
          lookupFamily(problem, problem.getProblemFamily());
      if (!family)
        return 1;
      PlanOptions options;
      options.ladderSize = candidates;
      options.diverse = true;
      options.explore = explore;
      options.tuningDB = tuningDBPath.empty() ? nullptr : &db;
      Plan plan = planProblem(*family, problem, *target, options);
      if (plan.ladder.empty()) {
        problem->emitError()
            << "no " << family->getDisplayName() << " config fits target '"
            << target->name << "' (" << plan.summarizeRejections() << ")";
        return 1;
      }
      for (auto [rung, c] : llvm::enumerate(plan.ladder)) {
        BuildTask &task = tasks.emplace_back();
        task.file = file;
        task.problem = i;
        task.rung = rung;
        task.tuning = getTuningProblem(*family, problem);
        task.config = llvm::to_string(c.config);
        task.source = stringifyCandidateSource(c.source).str();
        task.predictedUs = c.cost.totalNs / 1000;
        task.measuredUs = c.measuredUs;
        task.id = llvm::formatv("p{0}-r{1}", problemIndex, rung).str();
      }
      ++problemIndex;
    }
  }

  Progress progress("candidates compiled", tasks.size());
  {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(jobs));
    for (BuildTask &task : tasks)
      pool.async([&] {
        compileCandidate(task, registry, targetName, buildDir, explore);
        progress.step();
      });
    pool.wait();
  }

  json::Array list;
  size_t failures = 0;
  std::vector<double> times;
  for (const BuildTask &t : tasks) {
    failures += !t.ok;
    times.push_back(t.compileMs);
    json::Object o{{"id", t.id},
                   {"problem", toJSON(t.tuning)},
                   {"rung", t.rung},
                   {"config", t.config},
                   {"source", t.source},
                   {"predicted_us", t.predictedUs},
                   {"compile_ms", t.compileMs},
                   {"status", t.ok ? "ok" : "error"}};
    if (t.measuredUs > 0)
      o["db_measured_us"] = t.measuredUs;
    if (t.ok)
      o["manifest"] = t.manifest;
    if (!t.diagnostics.empty())
      o["diagnostics"] = t.diagnostics;
    list.push_back(std::move(o));
  }
  SmallString<128> path(buildDir);
  llvm::sys::path::append(path, "build.json");
  json::Object root{{"schema", kBuildSchema},
                    {"target", getTargetIdentity(*target)},
                    {"target_name", target->name},
                    {"candidates_per_problem", int64_t(candidates)},
                    {"tuning_db", tuningDBPath},
                    {"date", getTodayDate()},
                    {"candidates", std::move(list)}};
  if (llvm::Error e = writeJSON(path, std::move(root)))
    return fail(llvm::toString(std::move(e)));
  if (newCandidates)
    *newCandidates = llvm::count_if(
        tasks, [](const BuildTask &t) { return t.source != "measured"; });
  llvm::sort(times);
  llvm::outs() << llvm::formatv(
      "built {0} candidates of {1} problems for {2} ({3} failed); compile "
      "median {4:f0} ms, max {5:f0} ms; index: {6}\n",
      tasks.size(), problemIndex, target->name, failures,
      times.empty() ? 0.0 : times[times.size() / 2],
      times.empty() ? 0.0 : times.back(), path);
  for (const BuildTask &t : tasks)
    if (!t.ok)
      llvm::errs() << t.id << " (" << t.tuning.signature << ", " << t.config
                   << "):\n"
                   << t.diagnostics;
  return failures ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// ingest: measurements, the reflector, calibration
//===----------------------------------------------------------------------===//

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

static int runIngest(llvm::StringRef ingestDir,
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
    return fail("the build was for target '" + identity +
                "', which this AMK's preset '" + targetName +
                "' no longer matches: rebuild");

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
    o.id = c->getString("id").value_or("").str();
    o.config = c->getString("config").value_or("").str();
    o.manifest = c->getString("manifest").value_or("").str();
    o.predictedUs = c->getNumber("predicted_us").value_or(0);
    const json::Value *problem = c->get("problem");
    llvm::Expected<TuningProblem> parsed =
        problem ? parseTuningProblem(*problem)
                : llvm::createStringError(llvm::inconvertibleErrorCode(),
                                          "missing");
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
      o.localBytes = getNumber(r, {"kernel", "local_bytes_per_thread"});
    }
    // The shared memory the manifest asked for (for the smem rule).
    if (!o.manifest.empty()) {
      SmallString<128> m(ingestDir);
      llvm::sys::path::append(m, o.manifest);
      if (llvm::Expected<json::Value> manifest = readJSON(m)) {
        // The most any kernel asks for (schema 2 lists them in "kernels").
        if (const json::Object *mo = manifest->getAsObject()) {
          o.smemBytes = mo->getInteger("dynamic_smem_bytes").value_or(0);
          if (const json::Array *kernels = mo->getArray("kernels"))
            for (const json::Value &k : *kernels)
              if (const json::Object *ko = k.getAsObject())
                o.smemBytes = std::max<int64_t>(
                    o.smemBytes,
                    ko->getInteger("dynamic_smem_bytes").value_or(0));
        }
      } else {
        llvm::consumeError(manifest.takeError());
      }
    }
    // A bundle that did not load (another arch, a missing file) or a
    // reference that disagrees with itself says nothing about the config.
    if (o.failureClass == "load-error" ||
        o.failureClass == "reference-suspect") {
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
    if (std::optional<TuningRecord> rec = getMeasurement(o, identity))
      records.push_back(std::move(*rec));
    outcomes.push_back(std::move(o));
  }

  std::vector<std::string> harnessGaps;
  std::vector<TuningRecord> rules = reflect(outcomes, identity, harnessGaps);

  // Calibration over every passing measurement of this target, old and new.
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
            getCalibrationPoint(r, *target, context))
      pointsByFamily[getRecordFamily(r.problem)->getName().str()].push_back(
          std::move(*p));
  }
  json::Object calibrationReport;
  std::vector<TuningRecord> toAppend = records;
  toAppend.insert(toAppend.end(), rules.begin(), rules.end());
  std::optional<TuningRecord> calibration;
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
  if (calibration)
    toAppend.push_back(std::move(*calibration));
  if (!tuningDBPath.empty())
    if (llvm::Error e = db.append(tuningDBPath, toAppend))
      return fail(llvm::toString(std::move(e)));

  // The report's input.
  json::Array rows;
  std::map<std::string, std::vector<const Outcome *>> byProblem;
  size_t passed = 0;
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
        {"signature", signature},       {"plan_id", rung0->id},
        {"plan_status", rung0->status}, {"plan_us", rung0->timeUs},
        {"ref_us", rung0->refUs},       {"peak_tflops", rung0->peakTflops}};
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
  SmallString<128> ingestPath(ingestDir);
  llvm::sys::path::append(ingestPath, "ingest.json");
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

//===----------------------------------------------------------------------===//
// loop: builder and runner on one machine
//===----------------------------------------------------------------------===//

/// Runs the GPU runner on every compiled candidate of `dir`.
static int runRunner(llvm::StringRef dir, llvm::StringRef results) {
  llvm::ErrorOr<std::string> runner = llvm::sys::findProgramByName(runnerPath);
  if (!runner)
    return fail("cannot find the runner '" + runnerPath +
                "' (build the runtime, or pass -runner=<path>)");
  SmallString<128> index(dir);
  llvm::sys::path::append(index, "build.json");
  llvm::Expected<json::Value> build = readJSON(index);
  if (!build)
    return fail(llvm::toString(build.takeError()));
  std::vector<std::string> args = {*runner};
  args.insert(args.end(), runnerArgs.begin(), runnerArgs.end());
  args.insert(args.end(), {"--json", results.str(), "--iters",
                           std::to_string(runnerIters), "--trials", "1"});
  if (const json::Object *o = build->getAsObject())
    if (const json::Array *list = o->getArray("candidates"))
      for (const json::Value &v : *list)
        if (const json::Object *c = v.getAsObject())
          if (std::optional<llvm::StringRef> m = c->getString("manifest")) {
            SmallString<128> path(dir);
            llvm::sys::path::append(path, *m);
            args.push_back(std::string(path));
          }
  SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(*runner, argRefs, std::nullopt, {}, 0, 0,
                                     &error);
  // amk-bench exits non-zero when a candidate fails; its results still count.
  if (rc < 0 || !llvm::sys::fs::exists(results))
    return fail("the runner failed" + (error.empty() ? "" : ": " + error));
  return 0;
}

static int runLoop() {
  if (tuningDBPath.empty())
    return fail("loop needs -tuning-db");
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  for (int round = 1; round <= rounds; ++round) {
    if (round > 1 && elapsed() > budgetSeconds) {
      llvm::outs() << "budget of " << budgetSeconds << " s spent after "
                   << round - 1 << " round(s)\n";
      return 0;
    }
    SmallString<128> dir(outDir);
    llvm::sys::path::append(dir, "r" + std::to_string(round));
    llvm::outs() << "== round " << round << "\n";
    size_t fresh = 0;
    if (int rc = runBuild(dir, /*explore=*/round > 1, &fresh))
      return rc;
    if (round > 1 && fresh == 0) {
      llvm::outs() << "converged: no config left to try after " << round - 1
                   << " round(s)\n";
      return 0;
    }
    SmallString<128> results(dir);
    llvm::sys::path::append(results, "results.json");
    if (int rc = runRunner(dir, results))
      return rc;
    if (int rc = runIngest(dir, {std::string(results)}))
      return rc;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// merge
//===----------------------------------------------------------------------===//

static int runMerge() {
  TuningDB merged;
  llvm::StringSet<> seen;
  std::vector<TuningRecord> unique;
  for (const std::string &input : mergeInputs) {
    if (!llvm::sys::fs::exists(input))
      return fail("no such database: '" + input + "'");
    TuningDB db;
    if (llvm::Error e = loadDB(db, input))
      return fail(llvm::toString(std::move(e)));
    for (const TuningRecord &r : db.all()) {
      std::string line;
      llvm::raw_string_ostream os(line);
      os << r.toJSON();
      if (seen.insert(line).second)
        unique.push_back(r);
    }
  }
  if (llvm::sys::fs::exists(mergeOutput))
    return fail("'" + mergeOutput + "' exists; merge writes a new database");
  if (llvm::Error e = merged.append(mergeOutput, unique))
    return fail(llvm::toString(std::move(e)));
  llvm::outs() << "merged " << unique.size() << " record(s) into "
               << mergeOutput << "\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "AMK's tuning loop: build candidates, ingest GPU results, merge "
          "databases (docs/TUNING.md)\n"))
    return 1;
  if (llvm::Error error = registerAllFamilies())
    return fail(llvm::toString(std::move(error)));
  if (buildCmd)
    return runBuild(outDir, exploreOption);
  if (ingestCmd)
    return runIngest(ingestDir, resultOptions);
  if (loopCmd)
    return runLoop();
  if (mergeCmd)
    return runMerge();
  return fail("a subcommand is required: build, ingest or merge (--help)");
}
