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

#include "amk-tune.h"

#include "AMK/Family/Family.h"

#include "llvm/Support/InitLLVM.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::tune;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

// The subcommands and every option in one file: an option names its
// subcommands, which must be constructed first.
namespace mlir::amk::tune {

static cl::SubCommand buildCmd("build", "Plan and compile N candidates per "
                                        "problem into bundles");
static cl::SubCommand ingestCmd("ingest", "Record GPU results in the tuning "
                                          "database, reflect, calibrate");
static cl::SubCommand mergeCmd("merge", "Merge tuning databases");
static cl::SubCommand loopCmd("loop", "Rounds of build, run (a GPU runner on "
                                      "this machine) and ingest until "
                                      "convergence or the budget");

cl::list<std::string> buildInputs(cl::Positional, cl::OneOrMore,
                                  cl::desc("<problems.mlir>..."),
                                  cl::sub(buildCmd), cl::sub(loopCmd));
cl::opt<std::string> targetName("target", cl::Required,
                                cl::desc("preset or target JSON"),
                                cl::sub(buildCmd), cl::sub(loopCmd));
cl::opt<int64_t> candidates("candidates", cl::init(6),
                            cl::desc("candidates per problem"),
                            cl::sub(buildCmd), cl::sub(loopCmd));
cl::opt<std::string> outDir("o", cl::Required, cl::desc("output directory"),
                            cl::sub(buildCmd), cl::sub(loopCmd));
static cl::opt<bool> exploreOption(
    "explore", cl::init(false),
    cl::desc("a tuning round: the measured best plus only configs not yet "
             "measured (needs -tuning-db)"),
    cl::sub(buildCmd));
cl::opt<unsigned> jobs("j", cl::init(0),
                       cl::desc("compile jobs (0: all cores)"),
                       cl::sub(buildCmd), cl::sub(loopCmd));
cl::opt<bool> showProgress("progress", cl::init(true),
                           cl::desc("show a progress bar"), cl::sub(buildCmd),
                           cl::sub(ingestCmd), cl::sub(loopCmd));

static cl::opt<std::string> ingestDir(cl::Positional, cl::Required,
                                      cl::desc("<build dir>"),
                                      cl::sub(ingestCmd));
static cl::list<std::string>
    resultOptions(cl::Positional, cl::OneOrMore,
                  cl::desc("<amk-bench results.json>..."), cl::sub(ingestCmd));

cl::opt<std::string> tuningDBPath("tuning-db",
                                  cl::desc("tuning database (JSON lines)"),
                                  cl::sub(buildCmd), cl::sub(ingestCmd),
                                  cl::sub(loopCmd));

cl::opt<int> rounds("rounds", cl::init(3),
                    cl::desc("rounds at most (the first without "
                             "-explore)"),
                    cl::sub(loopCmd));
cl::opt<double> budgetSeconds("budget-s", cl::init(600),
                              cl::desc("no new round after this many "
                                       "seconds"),
                              cl::sub(loopCmd));
cl::opt<std::string>
    runnerPath("runner", cl::init("amk-bench"),
               cl::desc("the GPU runner, called as <runner> "
                        "[-runner-arg...] --json <out> --iters <n> --trials 1 "
                        "<manifest>..."),
               cl::sub(loopCmd));
cl::list<std::string> runnerArgs("runner-arg",
                                 cl::desc("argument before the others"),
                                 cl::sub(loopCmd));
cl::opt<int> runnerIters("iters", cl::init(30),
                         cl::desc("timed iterations per candidate"),
                         cl::sub(loopCmd));

cl::list<std::string> mergeInputs(cl::Positional, cl::OneOrMore,
                                  cl::desc("<db.jsonl>..."), cl::sub(mergeCmd));
cl::opt<std::string> mergeOutput("o", cl::Required, cl::desc("merged database"),
                                 cl::sub(mergeCmd));

} // namespace mlir::amk::tune

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
