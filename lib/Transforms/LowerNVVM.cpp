//===- LowerNVVM.cpp - Generated kernels to NVVM and gpu.binary -----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The device half of the lowering: the extensions its conversions and
// translations need, the NVVM target and the upstream pipeline a generated
// kernel module goes through (stop-at=nvvm), and the one compilation by LLVM
// and ptxas into its gpu.binary (stop-at=binary).
//
//===----------------------------------------------------------------------===//

#include "Lower.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::lower;

void mlir::amk::registerLoweringExtensions(DialectRegistry &registry) {
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

std::string mlir::amk::lower::getToolkitPath(StringRef option) {
  if (!option.empty())
    return option.str();
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    return *home;
  return "/usr/local/cuda";
}

std::string mlir::amk::lower::ptxFeaturesFor(const TargetSpec &target) {
  // The arch table's row says which ISA is emitted; a target passed
  // validation, so it has one.
  const ArchInfo *info = target.getArchInfo();
  return info ? info->getPtxFeatures() : "+ptx80";
}

NVVM::NVVMTargetAttr mlir::amk::lower::getNVVMTarget(MLIRContext *ctx,
                                                     int optLevel,
                                                     const TargetSpec &target) {
  return NVVM::NVVMTargetAttr::get(ctx, optLevel, "nvptx64-nvidia-cuda",
                                   target.arch, ptxFeaturesFor(target));
}

void mlir::amk::lower::buildKernelToNVVMPipeline(OpPassManager &pm) {
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertGpuOpsToNVVMOps());
  // NVVM ops without an intrinsic (mbarrier waits, wgmma, TMA) become
  // inline PTX.
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::amk::lower::createBinary(OpBuilder &b, Location loc, StringRef name,
                                    Attribute target, StringRef cubin,
                                    StringRef ptx) {
  MLIRContext *ctx = b.getContext();
  auto object = [&](gpu::CompilationTarget format, StringRef bytes) {
    return gpu::ObjectAttr::get(ctx, target, format,
                                StringAttr::get(ctx, bytes), nullptr, nullptr);
  };
  gpu::BinaryOp::create(
      b, loc, name, nullptr,
      ArrayRef<Attribute>{object(gpu::CompilationTarget::Binary, cubin),
                          object(gpu::CompilationTarget::Assembly, ptx)});
}

FailureOr<KernelBinary>
mlir::amk::lower::emitKernelBinary(gpu::GPUModuleOp module, StringRef toolkit,
                                   const TargetSpec &target) {
  auto nvvmTarget = cast<gpu::TargetAttrInterface>(module.getTargetsAttr()[0]);
  // One compilation: LLVM emits the PTX (kept through the ISA callback),
  // ptxas assembles it into the cubin.
  std::optional<SmallVector<char, 0>> ptx;
  auto keepPtx = [&](StringRef isa) { ptx.emplace(isa.begin(), isa.end()); };
  gpu::TargetOptions options(toolkit, {}, "", "",
                             gpu::CompilationTarget::Binary, {}, {}, {}, {},
                             keepPtx);
  std::optional<SmallVector<char, 0>> cubin =
      nvvmTarget.serializeToObject(module, options);
  if (!ptx)
    return module.emitError("failed to generate PTX for ") << target.arch;
  if (!cubin)
    return module.emitError("ptxas failed to assemble the kernel for ")
           << target.arch << " (toolkit '" << toolkit << "')";

  OpBuilder b(module);
  createBinary(b, module.getLoc(), module.getName(), nvvmTarget,
               StringRef(cubin->data(), cubin->size()),
               StringRef(ptx->data(), ptx->size()));
  return KernelBinary{std::move(*cubin), std::move(*ptx)};
}
