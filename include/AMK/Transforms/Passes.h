//===- Passes.h - AMK passes ------------------------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_PASSES_H
#define AMK_TRANSFORMS_PASSES_H

#include "AMK/Dialect/AMK/IR/AMKOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amk {

#define GEN_PASS_DECL
#include "AMK/Transforms/Passes.h.inc"

/// Attach `target` to `module` as its `amk.target`; reports an error at the
/// module's location and fails if `presetOrPath` does not resolve.
LogicalResult setModuleTarget(ModuleOp module, llvm::StringRef presetOrPath);

/// Replaces every upstream op under `root` (outside kernels) that a family
/// imports by that family's problem op, as `--amk-import-linalg` does; an op
/// a family declines stays and gets a warning, `warningPrefix` + the reason
/// (none when `warn` is false: a later import says it), or an error (then
/// this fails) when the family refuses it.
LogicalResult importUpstreamOps(Operation *root, llvm::StringRef warningPrefix,
                                bool warn = true);

/// Registers every AMK family once per process (registerAllFamilies); the
/// passes that reach families call it from their initialize() hook, so a
/// tool that only registers the passes works too. Reports an error in
/// `context` and fails when registration does.
LogicalResult initializeFamilies(MLIRContext *context);

/// Registers what `--amk-lower` needs beyond its dialects: the LLVM
/// conversion interfaces of the dialects it lowers, the NVVM target and the
/// LLVM IR translations. Tools that run the pass from a pipeline string
/// should call this on their registry.
void registerLoweringExtensions(DialectRegistry &registry);

#define GEN_PASS_REGISTRATION
#include "AMK/Transforms/Passes.h.inc"

} // namespace mlir::amk

#endif // AMK_TRANSFORMS_PASSES_H
