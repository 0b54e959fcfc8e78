//===- Passes.h - AMK passes ------------------------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_PASSES_H
#define AMK_TRANSFORMS_PASSES_H

#include "AMK/Dialect/AMK/IR/AMKOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amk {

#define GEN_PASS_DECL
#include "AMK/Transforms/Passes.h.inc"

/// Attach `target` to `module` as its `amk.target`; reports an error at the
/// module's location and fails if `presetOrPath` does not resolve.
LogicalResult setModuleTarget(ModuleOp module, llvm::StringRef presetOrPath);

/// Rewrites one linalg matmul-family op (on buffers) into amk.matmul, as
/// `--amk-import-linalg` does. Returns the new op, or failure with the reason
/// in `whyNot` and the IR unchanged.
FailureOr<MatmulOp> importLinalgMatmul(RewriterBase &rewriter, Operation *op,
                                       std::string &whyNot);

#define GEN_PASS_REGISTRATION
#include "AMK/Transforms/Passes.h.inc"

} // namespace mlir::amk

#endif // AMK_TRANSFORMS_PASSES_H
