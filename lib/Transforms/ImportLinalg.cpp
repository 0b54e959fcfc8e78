//===- ImportLinalg.cpp - Upstream ops into the families' problem ops -----===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// `--amk-import-linalg`: every upstream op a family imports (GEMM:
// linalg.matmul and linalg.batch_matmul on buffers) becomes that family's
// problem op; what a family declines stays, with a warning saying why.
//
//===----------------------------------------------------------------------===//

#include "AMK/Transforms/Passes.h"

#include "AMK/Family/Family.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::amk {
#define GEN_PASS_DEF_AMKIMPORTLINALGPASS
#include "AMK/Transforms/Passes.h.inc"
} // namespace mlir::amk

using namespace mlir;
using namespace mlir::amk;

LogicalResult mlir::amk::initializeFamilies(MLIRContext *context) {
  if (llvm::Error error = registerAllFamilies()) {
    emitError(UnknownLoc::get(context)) << llvm::toString(std::move(error));
    return failure();
  }
  return success();
}

LogicalResult mlir::amk::importUpstreamOps(Operation *root,
                                           StringRef warningPrefix) {
  SmallVector<std::pair<Operation *, const KernelFamily *>> candidates;
  root->walk([&](Operation *op) {
    if (op->getParentOfType<KernelOp>())
      return;
    for (const KernelFamily *family : getFamilies())
      if (family->canImport(op)) {
        candidates.push_back({op, family});
        break;
      }
  });
  IRRewriter rewriter(root->getContext());
  bool refused = false;
  for (auto [op, family] : candidates) {
    ImportDecline why;
    if (succeeded(family->importOp(rewriter, op, why)))
      continue;
    if (why.isError) {
      op->emitError("the ") << family->getDisplayName()
                            << " family cannot compute this op: " << why.reason;
      refused = true;
    } else {
      op->emitWarning(warningPrefix) << why.reason;
    }
  }
  return failure(refused);
}

namespace {
struct AMKImportLinalgPass
    : public amk::impl::AMKImportLinalgPassBase<AMKImportLinalgPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    return initializeFamilies(context);
  }

  void runOnOperation() override {
    if (failed(importUpstreamOps(getOperation(), "not imported into AMK: ")))
      signalPassFailure();
  }
};
} // namespace
