//===- Plan.cpp - Plan a kernel design for every GEMM ---------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// `--amk-plan`: the agent. Each free `amk.matmul` (and each linalg matmul on
// buffers, imported first) becomes an `amk.kernel` holding it, with the
// planner's best config and its ladder. The decision logic lives in
// AMK/Analysis/GemmPlanner.h so other tools can plan without the pass.
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/GemmPlanner.h"
#include "AMK/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"

#include <cmath>

namespace mlir::amk {
#define GEN_PASS_DEF_AMKPLANPASS
#include "AMK/Transforms/Passes.h.inc"
} // namespace mlir::amk

using namespace mlir;
using namespace mlir::amk;

/// The kernel name for a problem signature: `?` becomes `D`, `.` becomes `p`,
/// anything else outside [A-Za-z0-9_] becomes `_`.
static std::string sanitizeKernelName(StringRef signature) {
  std::string name;
  for (char c : signature) {
    if (llvm::isAlnum(c) || c == '_')
      name.push_back(c);
    else if (c == '?')
      name.push_back('D');
    else if (c == '.')
      name.push_back('p');
    else
      name.push_back('_');
  }
  return name;
}

static std::string attrToString(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

static std::string formatUs(double ns) {
  return llvm::formatv("{0:f1}", ns / 1000.0).str();
}

/// "measured 812.3 us, model " for rungs from the tuning database.
static std::string describeSource(const GemmPlanCandidate &c) {
  switch (c.source) {
  case GemmCandidateSource::Model:
    return "";
  case GemmCandidateSource::Measured:
    return "measured " + formatUs(c.measuredUs * 1000) + " us, model ";
  case GemmCandidateSource::Nearby:
    return "measured " + formatUs(c.measuredUs * 1000) + " us on " +
           c.measuredOn + ", model ";
  }
  llvm_unreachable("unknown candidate source");
}

namespace {
struct AMKPlanPass : public amk::impl::AMKPlanPassBase<AMKPlanPass> {
  using Base::Base;

  /// Accept bare words: `explain` means `explain=true`, any other word
  /// without `=` is the target (`--amk-plan=h200`).
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    SmallVector<StringRef> words;
    options.split(words, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    std::string rewritten;
    for (StringRef word : words) {
      if (!rewritten.empty())
        rewritten += ' ';
      if (word == "explain")
        rewritten += "explain=true";
      else if (!word.contains('='))
        rewritten += ("target=" + word).str();
      else
        rewritten += word.str();
    }
    return Base::initializeOptions(rewritten, errorHandler);
  }

  void runOnOperation() override;

private:
  LogicalResult planOne(MatmulOp matmul, const TargetSpec &target,
                        llvm::StringSet<> &names);
  LogicalResult loadTuningDB(ModuleOp module);

  std::optional<TuningDB> db;
};
} // namespace

LogicalResult AMKPlanPass::planOne(MatmulOp matmul, const TargetSpec &target,
                                   llvm::StringSet<> &names) {
  MLIRContext *ctx = &getContext();
  GemmPlanOptions options;
  options.ladderSize = std::max<int64_t>(ladderSize, rung + 1);
  options.tuningDB = db ? &*db : nullptr;
  options.diverse = diverse;
  options.explore = explore;
  options.signature = matmul.getProblemSignature();
  GemmProblem problem = GemmProblem::get(matmul);
  GemmPlan plan = planGemm(ctx, problem, target, options);
  if (plan.ladder.empty())
    return matmul.emitError()
           << "no GEMM config fits target '" << target.name
           << "': " << plan.numCandidates << " candidates rejected ("
           << plan.summarizeRejections(/*withExamples=*/true) << ")";
  if (rung >= static_cast<int64_t>(plan.ladder.size()))
    return matmul.emitError()
           << "rung " << rung << " requested but the ladder has only "
           << plan.ladder.size() << " rung(s)";

  // A unique kernel name.
  std::string base = sanitizeKernelName(matmul.getProblemSignature());
  std::string name = base;
  for (int suffix = 1; names.contains(name); ++suffix)
    name = base + "_" + std::to_string(suffix);
  names.insert(name);

  SmallVector<Attribute> rungs;
  for (const GemmPlanCandidate &c : plan.ladder)
    rungs.push_back(
        CandidateAttr::get(ctx, cast<KernelConfigAttrInterface>(c.config),
                           static_cast<int64_t>(std::llround(c.cost.totalNs))));

  OpBuilder builder(matmul);
  const GemmPlanCandidate &best = plan.ladder[rung];
  auto kernel = KernelOp::create(builder, matmul.getLoc(), name,
                                 cast<KernelConfigAttrInterface>(best.config),
                                 builder.getArrayAttr(rungs));
  Block *body = new Block();
  kernel.getBody().push_back(body);
  matmul->moveBefore(body, body->end());

  if (explain) {
    InFlightDiagnostic diag =
        mlir::emitRemark(kernel.getLoc())
        << "planned " << name << ": " << best.config << ", predicted "
        << formatUs(best.cost.totalNs) << " us (" << plan.numCandidates
        << " candidates, " << plan.numRejected << " rejected)";
    for (auto [i, c] : llvm::enumerate(plan.ladder))
      diag.attachNote() << llvm::formatv(
          "ladder #{0}: {11}: {13}{1} us (compute {2}, hbm {3}, l2 {12}, feed "
          "{4}, smem {5} us; {6} block(s)/SM limited by {7}, {8} "
          "regs/thread, {9} B smem, {10} tiles)",
          i + 1, formatUs(c.cost.totalNs), formatUs(c.cost.computeNs),
          formatUs(c.cost.hbmNs), formatUs(c.cost.feedNs),
          formatUs(c.cost.smemNs), c.resources.blocksPerSM,
          c.resources.getOccupancyLimiter(), c.resources.regsPerThread,
          c.resources.dynamicSmemBytes, c.cost.tiles, attrToString(c.config),
          formatUs(c.cost.l2Ns), describeSource(c));
    if (!plan.tuningSummary.empty())
      diag.attachNote() << "tuning database: " << plan.tuningSummary;
    diag.attachNote() << "rejected: "
                      << (plan.rejections.empty() ? std::string("none")
                                                  : plan.summarizeRejections());
    if (plan.usedRepresentativeSizes)
      diag.attachNote() << "dynamic sizes planned as "
                        << options.cost.representativeSize
                        << " (a dynamic batch as 1)";
  }
  return success();
}

LogicalResult AMKPlanPass::loadTuningDB(ModuleOp module) {
  std::string path = tuningDB;
  if (path.empty())
    if (std::optional<std::string> env =
            llvm::sys::Process::GetEnv("AMK_TUNING_DB"))
      path = *env;
  if (path.empty())
    return success();
  db.emplace();
  if (llvm::Error error = db->load(path))
    return module.emitError() << llvm::toString(std::move(error));
  for (const TuningLoadIssue &issue : db->issues())
    module.emitWarning() << "tuning database " << issue.file << ":"
                         << issue.line << " skipped: " << issue.message;
  return success();
}

void AMKPlanPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (!target.empty() && failed(setModuleTarget(module, target)))
    return signalPassFailure();
  auto targetAttr =
      module->getAttrOfType<TargetAttr>(AMKDialect::kTargetAttrName);
  if (!targetAttr) {
    module.emitError() << "no #amk.target to plan for: use "
                          "--amk-plan=\"target=<preset>\" or run "
                          "--amk-target=<preset> first (presets: "
                       << listTargetPresetNames() << ")";
    return signalPassFailure();
  }
  const TargetSpec &spec = targetAttr.getSpec();
  if (failed(loadTuningDB(module)))
    return signalPassFailure();

  // linalg matmuls on buffers enter as amk.matmul.
  SmallVector<Operation *> linalgOps;
  module.walk([&](Operation *op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) &&
        !op->getParentOfType<KernelOp>())
      linalgOps.push_back(op);
  });
  IRRewriter rewriter(&getContext());
  for (Operation *op : linalgOps) {
    std::string whyNot;
    if (failed(importLinalgMatmul(rewriter, op, whyNot)))
      op->emitWarning("not planned by AMK: ") << whyNot;
  }

  llvm::StringSet<> names;
  SmallVector<MatmulOp> matmuls;
  module.walk([&](Operation *op) {
    if (auto kernel = dyn_cast<KernelOp>(op))
      names.insert(kernel.getSymName());
    else if (auto matmul = dyn_cast<MatmulOp>(op);
             matmul && !op->getParentOfType<KernelOp>())
      matmuls.push_back(matmul);
  });

  bool failedAny = false;
  for (MatmulOp matmul : matmuls)
    failedAny |= failed(planOne(matmul, spec, names));
  if (failedAny)
    signalPassFailure();
}
