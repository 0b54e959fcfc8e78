//===- Plan.cpp - Plan a kernel design for every problem ------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// `--amk-plan`: the agent. Each free problem op (and each upstream op a
// family imports, imported first) becomes an `amk.kernel` holding it, with
// the planner's best config and its ladder, through the problem's family.
// The decision logic lives in AMK/Planner/Planner.h so other tools can plan
// without the pass.
//
//===----------------------------------------------------------------------===//

#include "AMK/Planner/Planner.h"
#include "AMK/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/xxhash.h"

#include <cmath>

namespace mlir::amk {
#define GEN_PASS_DEF_AMKPLANPASS
#include "AMK/Transforms/Passes.h.inc"
} // namespace mlir::amk

using namespace mlir;
using namespace mlir::amk;

/// The kernel name for a problem signature: `?` becomes `D`, `.` becomes `p`,
/// anything else outside [A-Za-z0-9_] becomes `_`. A signature too long
/// for a kernel name (a graph of many steps) keeps its start and ends in a
/// hash of the whole, leaving room for a uniquing suffix.
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
  constexpr size_t kRoom = KernelOp::kMaxNameLength - 8;
  if (name.size() > kRoom) {
    std::string hash = llvm::utohexstr(llvm::xxh3_64bits(signature),
                                       /*LowerCase=*/true);
    name = name.substr(0, kRoom - hash.size() - 1) + "_" + hash;
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
static std::string describeSource(const PlanCandidate &c) {
  switch (c.source) {
  case CandidateSource::Model:
    return "";
  case CandidateSource::Measured:
    return "measured " + formatUs(c.measuredUs * 1000) + " us, model ";
  case CandidateSource::Nearby:
    return "measured " + formatUs(c.measuredUs * 1000) + " us on " +
           c.measuredOn + ", model ";
  }
  llvm_unreachable("unknown candidate source");
}

/// "12.3 us (compute ..., hbm ... us; 2 block(s)/SM limited by shared
/// memory, 128 regs/thread, 98304 B smem, 128 tiles)": the model's time,
/// its terms and the resources behind them.
static std::string describeCost(const PlanCandidate &c) {
  return llvm::formatv(
             "{0} us ({1}; {2} block(s)/SM limited by {3}, {4} "
             "regs/thread, {5} B smem{6})",
             formatUs(c.cost.totalNs), c.cost.terms, c.resources.blocksPerSM,
             c.resources.getOccupancyLimiter(), c.resources.regsPerThread,
             c.resources.dynamicSmemBytes,
             c.cost.notes.empty() ? std::string() : ", " + c.cost.notes)
      .str();
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

  LogicalResult initialize(MLIRContext *context) override {
    return initializeFamilies(context);
  }

  void runOnOperation() override;

private:
  LogicalResult planOne(ProblemOpInterface problem, const TargetSpec &target,
                        llvm::StringSet<> &names);
  void explainGivenConfig(KernelOp kernel, const TargetSpec &target);
  LogicalResult loadTuningDB(ModuleOp module);

  std::optional<TuningDB> db;
  /// This run's plans by problem identity.
  struct Planned {
    Plan plan;
    SmallVector<DispatchVariant, 1> dispatch;
  };
  llvm::StringMap<Planned> plans;
};
} // namespace

/// The explain remark of a plan: the winner, each rung with its cost terms
/// and resources, where the database helped, what was rejected and why.
static void explainPlan(KernelOp kernel, const Plan &plan,
                        const PlanCandidate &best) {
  InFlightDiagnostic diag = mlir::emitRemark(kernel.getLoc())
                            << "planned " << kernel.getSymName() << ": "
                            << best.config << ", predicted "
                            << formatUs(best.cost.totalNs) << " us ("
                            << plan.numCandidates << " candidates, "
                            << plan.numRejected << " rejected)";
  for (auto [i, c] : llvm::enumerate(plan.ladder))
    diag.attachNote() << llvm::formatv("ladder #{0}: {1}: {2}{3}", i + 1,
                                       attrToString(c.config),
                                       describeSource(c), describeCost(c));
  if (!plan.tuningSummary.empty())
    diag.attachNote() << "tuning database: " << plan.tuningSummary;
  diag.attachNote() << "rejected: "
                    << (plan.rejections.empty() ? std::string("none")
                                                : plan.summarizeRejections());
  for (const std::string &note : plan.notes)
    diag.attachNote() << note;
}

/// The explain remark of a kernel whose config was given: what the
/// planner predicts for it, or why it would not have planned it.
void AMKPlanPass::explainGivenConfig(KernelOp kernel,
                                     const TargetSpec &target) {
  ProblemOpInterface problem = kernel.getProblem();
  const KernelFamily *family =
      problem ? lookupFamily(problem, problem.getProblemFamily()) : nullptr;
  if (!family || kernel.getConfig().getProblemFamily() != family->getName())
    return; // the verifier reports a kernel without a problem of its family
  ConfigVerdict verdict = explainConfig(
      *family, problem, target, kernel.getConfig(), db ? &*db : nullptr);
  InFlightDiagnostic diag = mlir::emitRemark(kernel.getLoc());
  diag << "given config of " << kernel.getSymName() << ": ";
  if (!verdict.candidate) {
    diag << "the planner rejects it (" << verdict.rejectedBy
         << "): " << verdict.reason;
    return;
  }
  diag << "predicted " << describeCost(*verdict.candidate);
  if (!verdict.rejectedBy.empty())
    diag.attachNote() << "the planner's heuristics would prune it ("
                      << verdict.rejectedBy << "): " << verdict.reason;
}

LogicalResult AMKPlanPass::planOne(ProblemOpInterface problem,
                                   const TargetSpec &target,
                                   llvm::StringSet<> &names) {
  MLIRContext *ctx = &getContext();
  const KernelFamily *family =
      lookupFamily(problem, problem.getProblemFamily());
  if (!family)
    return failure();
  PlanOptions options;
  options.ladderSize = std::max<int64_t>(ladderSize, rung + 1);
  options.tuningDB = db ? &*db : nullptr;
  options.diverse = diverse;
  options.explore = explore;
  // Identical problems (the same op, attributes and operand types) are
  // planned once per run.
  auto [memo, isNew] = plans.try_emplace(getProblemIdentity(problem));
  if (isNew)
    memo->second.plan = planProblem(*family, problem, target, options);
  const Plan &plan = memo->second.plan;
  if (plan.ladder.empty())
    return problem->emitError()
           << "no " << family->getDisplayName() << " config fits target '"
           << target.name << "': " << plan.numCandidates
           << " candidates rejected ("
           << plan.summarizeRejections(/*withExamples=*/true) << ")";
  if (rung >= static_cast<int64_t>(plan.ladder.size()))
    return problem->emitError()
           << "rung " << rung << " requested but the ladder has only "
           << plan.ladder.size() << " rung(s)";

  // A unique kernel name.
  std::string base = sanitizeKernelName(problem.getProblemSignature());
  std::string name = base;
  for (int suffix = 1; names.contains(name); ++suffix)
    name = base + "_" + std::to_string(suffix);
  names.insert(name);

  SmallVector<Attribute> rungs;
  for (const PlanCandidate &c : plan.ladder)
    rungs.push_back(CandidateAttr::get(
        ctx, c.config, static_cast<int64_t>(std::llround(c.cost.totalNs))));

  OpBuilder builder(problem);
  const PlanCandidate &best = plan.ladder[rung];
  auto kernel = KernelOp::create(builder, problem->getLoc(), name, best.config,
                                 builder.getArrayAttr(rungs));
  Block *body = new Block();
  kernel.getBody().push_back(body);
  problem->moveBefore(body, body->end());
  // Kernels of their own for ranges of a dynamic size, picked at launch
  // (not for tuning rounds, which measure one config per bundle).
  SmallVector<DispatchVariant, 1> &dispatch = memo->second.dispatch;
  if (isNew && rung == 0 && !diverse && !explore)
    dispatch = planDispatch(*family, problem, target, options, best.config);
  if (!dispatch.empty()) {
    SmallVector<Attribute> entries;
    for (const DispatchVariant &v : dispatch) {
      SmallVector<NamedAttribute> fields = {
          builder.getNamedAttr("when",
                               builder.getStringAttr(v.bucket.getCondition())),
          builder.getNamedAttr("symbol",
                               builder.getStringAttr(v.bucket.symbol)),
          builder.getNamedAttr("up_to",
                               builder.getI64IntegerAttr(v.bucket.upTo)),
          builder.getNamedAttr("config", v.best.config),
          builder.getNamedAttr(
              "predicted_ns",
              builder.getI64IntegerAttr(std::llround(v.best.cost.totalNs)))};
      if (!v.bucket.aboveSymbol.empty()) {
        fields.push_back(builder.getNamedAttr(
            "above_symbol", builder.getStringAttr(v.bucket.aboveSymbol)));
        fields.push_back(builder.getNamedAttr(
            "above", builder.getI64IntegerAttr(v.bucket.above)));
      }
      entries.push_back(builder.getDictionaryAttr(fields));
    }
    kernel->setAttr(kDispatchAttrName, builder.getArrayAttr(entries));
  }
  if (explain) {
    explainPlan(kernel, plan, best);
    for (const DispatchVariant &v : dispatch)
      mlir::emitRemark(kernel.getLoc())
          << "dispatch " << kernel.getSymName() << " when "
          << v.bucket.getCondition() << ": " << v.best.config << ", predicted "
          << formatUs(v.best.cost.totalNs) << " us at " << v.bucket.symbol
          << " = " << v.bucket.upTo
          << " (the default config: " << formatUs(v.defaultNs) << " us)";
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
  plans.clear();
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

  // Upstream ops the families take enter as their problem ops.
  if (failed(importUpstreamOps(module, "not planned by AMK: ")))
    return signalPassFailure();

  llvm::StringSet<> names;
  SmallVector<ProblemOpInterface> problems;
  module.walk([&](Operation *op) {
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      names.insert(kernel.getSymName());
      if (explain)
        explainGivenConfig(kernel, spec);
    } else if (auto problem = dyn_cast<ProblemOpInterface>(op);
               problem && !op->getParentOfType<KernelOp>() &&
               !op->getParentOfType<ProblemOpInterface>()) {
      problems.push_back(problem);
    }
  });

  bool failedAny = false;
  for (ProblemOpInterface problem : problems)
    failedAny |= failed(planOne(problem, spec, names));
  if (failedAny)
    signalPassFailure();
}
