//===- ImportLinalg.cpp - Upstream ops into the families' problem ops -----===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// `--amk-import-linalg`: every upstream op a family imports (GEMM:
// linalg.matmul and linalg.batch_matmul on buffers) becomes that family's
// problem op; what a family declines stays, with a warning saying why, and
// so does every other linalg op.
//
//===----------------------------------------------------------------------===//

#include "AMK/Transforms/Passes.h"

#include "AMK/Family/Family.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"

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

/// An op inside a planned kernel or inside a problem (a graph's steps) is
/// that op's to compute: neither imported nor left behind.
static bool isInsideProblem(Operation *op) {
  return op->getParentOfType<KernelOp>() ||
         op->getParentOfType<ProblemOpInterface>();
}

LogicalResult mlir::amk::importUpstreamOps(Operation *root,
                                           StringRef warningPrefix, bool warn) {
  SmallVector<std::pair<Operation *, const KernelFamily *>> candidates;
  root->walk([&](Operation *op) {
    if (isInsideProblem(op))
      return;
    for (const KernelFamily *family : getFamilies())
      if (family->canImport(op)) {
        candidates.push_back({op, family});
        break;
      }
  });
  // An imported problem op is verified before anything plans it: its
  // operands may break a bound the upstream op does not have (a buffer
  // over kMaxOperandBytes).
  struct Collector : RewriterBase::Listener {
    SmallVector<Operation *> problems;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      if (isa<ProblemOpInterface>(op))
        problems.push_back(op);
    }
  } created;
  IRRewriter rewriter(root->getContext(), &created);
  bool refused = false;
  llvm::SmallPtrSet<Operation *, 8> declined;
  for (auto [op, family] : candidates) {
    ImportDecline why;
    created.problems.clear();
    if (succeeded(family->importOp(rewriter, op, why))) {
      refused |= llvm::any_of(created.problems,
                              [](Operation *p) { return failed(verify(p)); });
      continue;
    }
    if (why.isError) {
      op->emitError("the ") << family->getDisplayName()
                            << " family cannot compute this op: " << why.reason;
      refused = true;
    } else if (warn) {
      op->emitWarning(warningPrefix) << why.reason;
    }
    declined.insert(op);
  }
  // Every other linalg op stays, and says so: a linalg.generic that computes
  // a product is not silently left to run on the host. (After an error the
  // pass fails: that is said already.)
  if (refused || !warn)
    return failure(refused);
  root->walk([&](linalg::LinalgOp op) {
    if (!declined.contains(op) && !isInsideProblem(op))
      op->emitWarning(warningPrefix)
          << "no AMK family takes '" << op->getName() << "'";
  });
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
