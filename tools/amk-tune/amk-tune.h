//===- amk-tune.h - What amk-tune's subcommands share -----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The command line (amk-tune.cpp) and the helpers (Support.cpp) of amk-tune's
// subcommands: build (Build.cpp), ingest (Ingest.cpp), loop (Loop.cpp) and
// merge (Merge.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TOOLS_AMK_TUNE_AMK_TUNE_H
#define AMK_TOOLS_AMK_TUNE_AMK_TUNE_H

#include "AMK/Tuning/TuningDB.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"

#include <atomic>
#include <mutex>
#include <string>

namespace mlir::amk::tune {

/// The schema of DIR/build.json.
inline constexpr int64_t kBuildSchema = 1;

//===----------------------------------------------------------------------===//
// Command line (amk-tune.cpp)
//===----------------------------------------------------------------------===//

// build and loop.
extern llvm::cl::list<std::string> buildInputs;
extern llvm::cl::opt<std::string> targetName;
extern llvm::cl::opt<int64_t> candidates;
extern llvm::cl::opt<std::string> outDir;
extern llvm::cl::opt<unsigned> jobs;
extern llvm::cl::opt<bool> showProgress;
extern llvm::cl::opt<std::string> tuningDBPath;
// loop.
extern llvm::cl::opt<int> rounds;
extern llvm::cl::opt<double> budgetSeconds;
extern llvm::cl::opt<std::string> runnerPath;
extern llvm::cl::list<std::string> runnerArgs;
extern llvm::cl::opt<int> runnerIters;
// merge.
extern llvm::cl::list<std::string> mergeInputs;
extern llvm::cl::opt<std::string> mergeOutput;

//===----------------------------------------------------------------------===//
// Helpers (Support.cpp)
//===----------------------------------------------------------------------===//

/// Prints `message` as an error; returns the exit code 1.
int fail(const llvm::Twine &message);

/// A one-line progress bar on stderr: "[=====     ] 12/40 label".
class Progress {
public:
  Progress(llvm::StringRef label, size_t total)
      : label(label.str()), total(total) {}
  void step();

private:
  std::string label;
  size_t total;
  std::atomic<size_t> count{0};
  std::mutex mutex;
};

/// The dialects and extensions the pipeline needs.
void registerDialects(DialectRegistry &registry);
/// Loads the database at `path` (none when empty), warning about what it
/// skipped.
llvm::Error loadDB(TuningDB &db, llvm::StringRef path);
llvm::Expected<llvm::json::Value> readJSON(llvm::StringRef path);
llvm::Error writeJSON(llvm::StringRef path, llvm::json::Value value);

//===----------------------------------------------------------------------===//
// Subcommands
//===----------------------------------------------------------------------===//

/// Plans and compiles every problem's candidates into `buildDir`;
/// `newCandidates` (if given) counts those not measured before.
int runBuild(llvm::StringRef buildDir, bool explore,
             size_t *newCandidates = nullptr);
/// Records the results of a build's candidates, reflects and calibrates.
int runIngest(llvm::StringRef ingestDir,
              llvm::ArrayRef<std::string> resultFiles);
/// Rounds of build, the GPU runner and ingest on this machine.
int runLoop();
/// Merges databases into a new one.
int runMerge();

} // namespace mlir::amk::tune

#endif // AMK_TOOLS_AMK_TUNE_AMK_TUNE_H
