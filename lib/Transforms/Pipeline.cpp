//===- Pipeline.cpp - The AMK pipeline in one flag ------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Transforms/Pipeline.h"

#include "AMK/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amk;

void mlir::amk::buildAMKPipeline(OpPassManager &pm,
                                 const PipelineOptions &options) {
  // Planning sets the target (when given), imports linalg matmuls and writes
  // the descriptors; the harness checks them; the synthesizer emits code and
  // re-checks what it generated.
  if (options.formGraph)
    pm.addPass(createAMKFormGraphPass());
  AMKPlanPassOptions plan;
  plan.target = options.target;
  plan.ladderSize = options.ladderSize;
  plan.explain = options.explain;
  plan.tuningDB = options.tuningDB;
  pm.addPass(createAMKPlanPass(plan));
  AMKVerifyPassOptions verify;
  verify.json = options.verifyJson;
  pm.addPass(createAMKVerifyPass(verify));
  AMKLowerPassOptions lower;
  lower.stopAt = options.stopAt;
  lower.bundleDir = options.bundleDir;
  lower.cache = options.cache;
  lower.cacheDir = options.cacheDir;
  lower.cacheMaxSize = options.cacheMaxSize;
  lower.cacheRemarks = options.cacheRemarks;
  pm.addPass(createAMKLowerPass(lower));
}

void mlir::amk::registerAMKPipeline() {
  PassPipelineRegistration<PipelineOptions>(
      "amk-pipeline",
      "Plan, verify and lower every problem to GPU binaries (and bundles)",
      buildAMKPipeline);
}
