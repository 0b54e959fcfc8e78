//===- Registration.h - What amk-opt registers ------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The dialects, passes and families of amk-opt, in one place, so that every
// driver of AMK's pipeline (amk-opt, the amk-fuzz fuzz target) parses and
// runs exactly the same thing.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TOOLS_AMK_OPT_REGISTRATION_H
#define AMK_TOOLS_AMK_OPT_REGISTRATION_H

#include "AMK/Dialect/AMK/IR/AMKDialect.h"
#include "AMK/Family/Family.h"
#include "AMK/Transforms/Passes.h"
#include "AMK/Transforms/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::amk::tools {

/// AMK's input (amk, linalg on memrefs) and the lowered kernels the harness
/// checks and the tests write by hand (gpu, scf, vector, nvgpu, nvvm, ...),
/// with the lowering's extensions.
inline void registerAMKOptDialects(DialectRegistry &registry) {
  registry.insert<AMKDialect, arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect,
                  nvgpu::NVGPUDialect, scf::SCFDialect,
                  vector::VectorDialect>();
  registerLoweringExtensions(registry);
}

/// The problem families the passes plan, verify and lower, and the passes
/// and pipeline a pipeline string may name. Once per process.
inline llvm::Error registerAMKOptPassesAndFamilies() {
  if (llvm::Error error = registerAllFamilies())
    return error;
  registerAMKPasses();
  registerAMKPipeline();
  registerCanonicalizerPass();
  registerCSEPass();
  return llvm::Error::success();
}

} // namespace mlir::amk::tools

#endif // AMK_TOOLS_AMK_OPT_REGISTRATION_H
