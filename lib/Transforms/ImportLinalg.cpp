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

void mlir::amk::importUpstreamOps(Operation *root, StringRef warningPrefix) {
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
  for (auto [op, family] : candidates) {
    std::string whyNot;
    if (failed(family->importOp(rewriter, op, whyNot)))
      op->emitWarning(warningPrefix) << whyNot;
  }
}

namespace {
struct AMKImportLinalgPass
    : public amk::impl::AMKImportLinalgPassBase<AMKImportLinalgPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    return initializeFamilies(context);
  }

  void runOnOperation() override {
    importUpstreamOps(getOperation(), "not imported into AMK: ");
  }
};
} // namespace
