//===- Verify.cpp - Check planned kernels against the target --------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// `--amk-verify`: the harness on every kernel of the module: planned
// amk.kernels (resources against the target; the checks live in
// AMK/Harness/Harness.h, where the planner calls them too), gpu.func
// kernels (KernelSafety.h), and kernels still inside gpu.launch, which are
// outlined on a copy by upstream's gpu-kernel-outlining and checked there
// (findings keep the original ops' locations).
//
//===----------------------------------------------------------------------===//

#include "AMK/Harness/Harness.h"
#include "AMK/Harness/KernelSafety.h"
#include "AMK/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::amk {
#define GEN_PASS_DEF_AMKVERIFYPASS
#include "AMK/Transforms/Passes.h.inc"
} // namespace mlir::amk

using namespace mlir;
using namespace mlir::amk;

/// The spellings of known sizes that are not the gpu.func's (inherent)
/// known_block_size and known_grid_size: said, not silently ignored.
static void warnForeignKnownSizes(gpu::GPUFuncOp func) {
  for (StringRef name : {"gpu.known_block_size", "gpu.known_grid_size",
                         "nvvm.reqntid", "nvvm.maxntid"})
    if (func->getDiscardableAttr(name))
      func.emitWarning("'")
          << name
          << "' is not the gpu.func's known_block_size/known_grid_size: the "
             "harness does not read it (thread and block ids are bounded "
             "only by the inherent attributes)";
}

/// Checks the kernels still inside gpu.launch: upstream's sinking and
/// outlining on a copy of `module` make each a gpu.func (with known sizes
/// where the launch's are constant), and the copy's new kernels are
/// checked.
static LogicalResult
checkLaunchBodies(ModuleOp module, const TargetSpec *target,
                  SmallVectorImpl<HarnessFinding> &findings, int64_t &kernels,
                  int64_t &verified, SmallVectorImpl<KernelCheckTime> *times) {
  if (!module.walk([](gpu::LaunchOp) { return WalkResult::interrupt(); })
           .wasInterrupted())
    return success();
  llvm::StringSet<> existing;
  module.walk([&](gpu::GPUFuncOp func) {
    existing.insert(SymbolTable::getSymbolName(func->getParentOp()).str() +
                    "::" + func.getName().str());
  });
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  // Constants and index computations move into the launch first, as
  // upstream's pipeline does, so the outlined kernel still sees them.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  if (failed(pm.run(*copy)))
    return module.emitError("[AMK-UNPROVABLE] the kernels inside gpu.launch "
                            "could not be outlined, so none was checked");
  copy->walk([&](gpu::GPUFuncOp func) {
    std::string key = SymbolTable::getSymbolName(func->getParentOp()).str() +
                      "::" + func.getName().str();
    if (!func.isKernel() || existing.contains(key))
      return;
    ++kernels;
    KernelCheckTime time;
    if (succeeded(
            checkKernelSafety(func, target, findings, times ? &time : nullptr)))
      ++verified;
    if (times)
      times->push_back(std::move(time));
  });
  return success();
}

namespace {
struct AMKVerifyPass : public amk::impl::AMKVerifyPassBase<AMKVerifyPass> {
  using Base::Base;

  /// `--amk-verify=json` (a bare word) writes JSON to stdout.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (options.trim() == "json")
      return Base::initializeOptions("json=-", errorHandler);
    return Base::initializeOptions(options, errorHandler);
  }

  LogicalResult initialize(MLIRContext *context) override {
    return initializeFamilies(context);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto targetAttr =
        module->getAttrOfType<TargetAttr>(AMKDialect::kTargetAttrName);
    SmallVector<HarnessFinding> findings;
    int64_t kernels = 0, verified = 0;
    module.walk([&](KernelOp kernel) {
      ++kernels;
      size_t before = findings.size();
      if (!targetAttr)
        findings.push_back(HarnessFinding{
            check::kNoTarget.str(), kernel.getLoc(), kernel.getSymName().str(),
            "module has no #amk.target to verify against: run "
            "--amk-target=<preset> first (presets: " +
                listTargetPresetNames() + ")",
            0, 0});
      else
        (void)verifyKernelResources(kernel, targetAttr.getSpec(), findings);
      if (findings.size() == before) {
        ++verified;
        kernel->setAttr(AMKDialect::kVerifiedAttrName,
                        UnitAttr::get(&getContext()));
      } else {
        kernel->removeAttr(AMKDialect::kVerifiedAttrName);
      }
    });

    // Lowered kernels (generated or hand-written): the kernel checks.
    std::optional<TargetSpec> spec;
    if (targetAttr)
      spec = targetAttr.getSpec();
    SmallVector<KernelCheckTime, 4> times;
    module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return;
      ++kernels;
      warnForeignKnownSizes(func);
      KernelCheckTime t;
      if (succeeded(checkKernelSafety(func, spec ? &*spec : nullptr, findings,
                                      time ? &t : nullptr)))
        ++verified;
      if (time) {
        mlir::emitRemark(func.getLoc())
            << "harness time of " << t.kernel << ": " << t.str();
        times.push_back(std::move(t));
      }
    });
    size_t outlined = times.size();
    if (failed(checkLaunchBodies(module, spec ? &*spec : nullptr, findings,
                                 kernels, verified, time ? &times : nullptr)))
      return signalPassFailure();
    for (const KernelCheckTime &t : llvm::drop_begin(times, outlined))
      mlir::emitRemark(module.getLoc())
          << "harness time of " << t.kernel << " (in gpu.launch): " << t.str();

    // What the analyses cannot model is an error unless explicitly allowed
    // (then a warning, in the JSON too); warnings (AMK-UNCOALESCED) never
    // fail the pass.
    bool failedAny = false;
    for (HarnessFinding &f : findings) {
      if (allowUnprovable && f.check == check::kUnprovable)
        f.severity = HarnessFinding::Severity::Warning;
      if (!f.isError()) {
        mlir::emitWarning(f.loc) << f.str();
      } else {
        mlir::emitError(f.loc) << f.str();
        failedAny = true;
      }
    }

    if (!json.empty()) {
      std::string text = harnessFindingsToJSON(findings, kernels, verified,
                                               time ? &times : nullptr);
      if (json == "-") {
        llvm::outs() << text << "\n";
        llvm::outs().flush();
      } else {
        std::error_code ec;
        llvm::raw_fd_ostream os(json, ec, llvm::sys::fs::OF_Text);
        if (ec) {
          module.emitError()
              << "cannot write '" << json << "': " << ec.message();
          return signalPassFailure();
        }
        os << text << "\n";
      }
    }
    markAllAnalysesPreserved();
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
