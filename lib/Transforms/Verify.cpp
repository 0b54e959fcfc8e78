//===- Verify.cpp - Check planned kernels against the target --------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// `--amk-verify`: the harness's resource part. The checks themselves live in
// AMK/Harness/Harness.h, where the planner calls them too.
//
//===----------------------------------------------------------------------===//

#include "AMK/Harness/Harness.h"
#include "AMK/Harness/KernelSafety.h"
#include "AMK/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::amk {
#define GEN_PASS_DEF_AMKVERIFYPASS
#include "AMK/Transforms/Passes.h.inc"
} // namespace mlir::amk

using namespace mlir;
using namespace mlir::amk;

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
    module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return;
      ++kernels;
      if (succeeded(checkKernelSafety(func, spec ? &*spec : nullptr, findings)))
        ++verified;
    });

    // What the analyses cannot model is an error unless explicitly allowed;
    // warnings (AMK-UNCOALESCED) never fail the pass.
    bool failedAny = false;
    for (const HarnessFinding &f : findings) {
      if (!f.isError() || (allowUnprovable && f.check == check::kUnprovable)) {
        mlir::emitWarning(f.loc) << f.str();
      } else {
        mlir::emitError(f.loc) << f.str();
        failedAny = true;
      }
    }

    if (!json.empty()) {
      std::string text = harnessFindingsToJSON(findings, kernels, verified);
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
