//===- Pipeline.h - The AMK pipeline in one flag ----------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_PIPELINE_H
#define AMK_TRANSFORMS_PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::amk {

/// Options of `--amk-pipeline`: the union of what its passes take.
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  PassOptions::Option<bool> formGraph{
      *this, "form-graph",
      llvm::cl::desc("make each function of several graph steps one "
                     "amk.graph first (--amk-form-graph)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("preset or .json target (default: the module's)")};
  PassOptions::Option<int64_t> ladderSize{
      *this, "ladder-size", llvm::cl::desc("runners-up kept per kernel"),
      llvm::cl::init(4)};
  PassOptions::Option<bool> explain{
      *this, "explain", llvm::cl::desc("remark on every planning decision"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> tuningDB{
      *this, "tuning-db",
      llvm::cl::desc("tuning database the planner consults (JSON lines)")};
  PassOptions::Option<std::string> verifyJson{
      *this, "verify-json",
      llvm::cl::desc("write the harness findings as JSON here ('-': stdout)")};
  PassOptions::Option<std::string> stopAt{*this, "stop-at",
                                          llvm::cl::desc("gpu, nvvm or binary"),
                                          llvm::cl::init("binary")};
  PassOptions::Option<std::string> bundleDir{
      *this, "bundle-dir", llvm::cl::desc("write kernel bundles here")};
  PassOptions::Option<bool> cache{*this, "cache",
                                  llvm::cl::desc("use the compile cache"),
                                  llvm::cl::init(true)};
  PassOptions::Option<std::string> cacheDir{
      *this, "cache-dir",
      llvm::cl::desc("compile cache directory (default: $AMK_CACHE_DIR, else "
                     "$XDG_CACHE_HOME/amk, else ~/.cache/amk)")};
  PassOptions::Option<std::string> cacheMaxSize{
      *this, "cache-max-size",
      llvm::cl::desc("prune the compile cache to this size (default 1G)")};
  PassOptions::Option<bool> cacheRemarks{
      *this, "cache-remarks",
      llvm::cl::desc("remark on every compile cache hit and miss"),
      llvm::cl::init(false)};
};

/// [form-graph ->] plan -> verify -> lower: `--amk-pipeline`.
void buildAMKPipeline(OpPassManager &pm, const PipelineOptions &options);

/// Registers `--amk-pipeline`.
void registerAMKPipeline();

} // namespace mlir::amk

#endif // AMK_TRANSFORMS_PIPELINE_H
