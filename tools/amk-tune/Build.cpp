//===- Build.cpp - amk-tune build: candidates compiled into bundles -------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Plans a ladder of N candidates per problem (diverse tiles; the tuning
// database consulted), compiles every candidate through plan/verify/lower
// on an LLVM thread pool, writes one bundle each and DIR/build.json.
//
//===----------------------------------------------------------------------===//

#include "amk-tune.h"

#include "AMK/Dialect/AMK/IR/AMKDialect.h"
#include "AMK/Family/Family.h"
#include "AMK/Planner/Planner.h"
#include "AMK/Target/TargetSpec.h"
#include "AMK/Transforms/Passes.h"
#include "AMK/Version.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ScopedPrinter.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <chrono>

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::tune;
namespace json = llvm::json;

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

/// Plans every problem of the inputs to list its candidates as `tasks`;
/// each compile task re-plans the same way (deterministic) and takes its
/// rung. `problemIndex` counts the problems. Returns the exit code on
/// failure, else 0.
static int planCandidates(const TargetSpec &target, const TuningDB &db,
                          bool explore, const DialectRegistry &registry,
                          std::vector<BuildTask> &tasks,
                          unsigned &problemIndex) {
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
      Plan plan = planProblem(*family, problem, target, options);
      if (plan.ladder.empty()) {
        problem->emitError()
            << "no " << family->getDisplayName() << " config fits target '"
            << target.name << "' (" << plan.summarizeRejections() << ")";
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
  return 0;
}

/// The build index's entry of one candidate.
static json::Object getTaskJSON(const BuildTask &t) {
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
  return o;
}

/// The -target option as ingest can resolve it again: a preset's name, or a
/// target file's absolute path (a device's name is neither).
static std::string getTargetOption() {
  if (lookupTargetPreset(targetName))
    return targetName;
  SmallString<128> path(targetName);
  (void)llvm::sys::fs::make_absolute(path);
  return std::string(path);
}

int tune::runBuild(llvm::StringRef buildDir, bool explore,
                   size_t *newCandidates) {
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

  std::vector<BuildTask> tasks;
  unsigned problemIndex = 0;
  if (int rc =
          planCandidates(*target, db, explore, registry, tasks, problemIndex))
    return rc;

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
    list.push_back(getTaskJSON(t));
  }
  SmallString<128> path(buildDir);
  llvm::sys::path::append(path, "build.json");
  json::Object root{{"schema", kBuildSchema},
                    {"target", getTargetIdentity(*target)},
                    {"target_name", getTargetOption()},
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
