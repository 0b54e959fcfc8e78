//===- Loop.cpp - amk-tune loop: build, run and ingest on one machine -----===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Where the GPU is on this machine: rounds of build, the GPU runner
// (amk-bench) and ingest, later rounds with -explore, until no config is left
// to try, -rounds or -budget-s.
//
//===----------------------------------------------------------------------===//

#include "amk-tune.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <chrono>

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::tune;
namespace json = llvm::json;

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

int tune::runLoop() {
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
