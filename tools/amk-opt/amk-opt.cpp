//===- amk-opt.cpp - The AMK optimizer driver -----------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with only what AMK pipelines parse and run: the amk dialect and
// passes, and the upstream dialects of AMK's input and output.
//
//===----------------------------------------------------------------------===//

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
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/WithColor.h"

int main(int argc, char **argv) {
  // The problem families the passes plan, verify and lower.
  if (llvm::Error error = mlir::amk::registerAllFamilies()) {
    llvm::WithColor::error(llvm::errs(), "amk-opt")
        << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  mlir::DialectRegistry registry;
  // AMK's input (amk, linalg on memrefs) and the lowered kernels the harness
  // checks and the tests write by hand (gpu, scf, vector, nvgpu, nvvm, ...).
  registry.insert<mlir::amk::AMKDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::NVVM::NVVMDialect,
                  mlir::nvgpu::NVGPUDialect, mlir::scf::SCFDialect,
                  mlir::vector::VectorDialect>();
  mlir::amk::registerLoweringExtensions(registry);
  mlir::amk::registerAMKPasses();
  mlir::amk::registerAMKPipeline();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "AMK optimizer driver\n", registry));
}
