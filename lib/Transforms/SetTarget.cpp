//===- SetTarget.cpp - Attach the module's #amk.target --------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Transforms/Passes.h"

namespace mlir::amk {
#define GEN_PASS_DEF_AMKSETTARGETPASS
#include "AMK/Transforms/Passes.h.inc"
} // namespace mlir::amk

using namespace mlir;
using namespace mlir::amk;

LogicalResult mlir::amk::setModuleTarget(ModuleOp module,
                                         StringRef presetOrPath) {
  if (presetOrPath.empty())
    return mlir::emitError(module.getLoc(),
                           "no target given: use --amk-target=<preset> or "
                           "--amk-target=<file.json> (presets: ")
           << listTargetPresetNames() << ")";
  llvm::Expected<TargetSpec> spec = resolveTarget(presetOrPath);
  if (!spec)
    return mlir::emitError(module.getLoc(), llvm::toString(spec.takeError()));
  auto target = TargetAttr::getChecked([&] { return module.emitError(); },
                                       module.getContext(), *spec);
  if (!target)
    return failure();
  module->setAttr(AMKDialect::kTargetAttrName, target);
  return success();
}

namespace {
struct AMKSetTargetPass
    : public amk::impl::AMKSetTargetPassBase<AMKSetTargetPass> {
  using Base::Base;

  /// `--amk-target=h200` hands this pass the option string "h200": read a
  /// bare value as `target=<value>`, so the short form works on the command
  /// line and in pipelines alike.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    StringRef trimmed = options.trim();
    if (!trimmed.empty() && !trimmed.contains('='))
      return Base::initializeOptions(("target=" + trimmed).str(), errorHandler);
    return Base::initializeOptions(options, errorHandler);
  }

  void runOnOperation() override {
    if (failed(setModuleTarget(getOperation(), target)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
