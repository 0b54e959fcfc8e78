//===- Lower.cpp - The synthesizer: amk.kernel to GPU binaries ------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// amk.kernel (verified)
//   -> gpu.module { gpu.func } + gpu.launch_func       (stop-at=gpu)
//   -> NVVM/LLVM dialect inside the gpu.module         (stop-at=nvvm)
//   -> gpu.binary [cubin, PTX] (+ bundles on disk)     (stop-at=binary)
//
//===----------------------------------------------------------------------===//

#include "AMK/Transforms/Passes.h"

#include "AMK/Analysis/GemmModel.h"
#include "AMK/Analysis/GemmResources.h"
#include "AMK/Analysis/KernelSafety.h"
#include "AMK/Transforms/Bundle.h"
#include "GemmSynthesis.h"

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

namespace mlir::amk {
#define GEN_PASS_DEF_AMKLOWERPASS
#include "AMK/Transforms/Passes.h.inc"
} // namespace mlir::amk

using namespace mlir;
using namespace mlir::amk;

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

/// The CUDA toolkit ptxas comes from: the option, $CUDA_HOME, or the default.
static std::string getToolkitPath(StringRef option) {
  if (!option.empty())
    return option.str();
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    return *home;
  return "/usr/local/cuda";
}

/// The PTX ISA version an arch needs (ptxas in CUDA 13 takes up to 9.0).
static StringRef ptxFeaturesFor(const TargetSpec &target) {
  int64_t sm = target.getSmVersion();
  if (sm >= 120)
    return "+ptx87";
  if (sm >= 100)
    return "+ptx86";
  return "+ptx80";
}

/// The upstream lowering of a generated kernel module to the NVVM and LLVM
/// dialects (the device half of upstream's gpu-lower-to-nvvm-pipeline).
static void buildKernelToNVVMPipeline(OpPassManager &pm) {
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertGpuOpsToNVVMOps());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {

/// What the lowering learned about one kernel, for its bundle.
struct LoweredKernel : BundleKernel {
  gpu::GPUModuleOp module;
};

struct AMKLowerPass : public amk::impl::AMKLowerPassBase<AMKLowerPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerLoweringExtensions(registry);
    // The nested pipeline runs dynamically: its dialects load up front.
    OpPassManager pm(gpu::GPUModuleOp::getOperationName());
    buildKernelToNVVMPipeline(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override;

private:
  FailureOr<LoweredKernel> lowerKernel(KernelOp kernel);
  LogicalResult checkGenerated(LoweredKernel &k, const TargetSpec &t);
  LogicalResult lowerToNVVM(gpu::GPUModuleOp module, const TargetSpec &target);
  LogicalResult serialize(LoweredKernel &k, const TargetSpec &target);
};
} // namespace

FailureOr<LoweredKernel> AMKLowerPass::lowerKernel(KernelOp kernel) {
  ModuleOp module = getOperation();
  auto config = dyn_cast<GemmConfigAttr>(kernel.getConfig());
  if (!config)
    return kernel.emitOpError("has no synthesizer for config ")
           << kernel.getConfig();
  auto matmul = cast<MatmulOp>(kernel.getProblem().getOperation());

  LoweredKernel k;
  k.name = kernel.getSymName().str();
  k.config = kernel.getConfig();
  k.problem = GemmProblem::get(matmul);
  k.signature = matmul.getProblemSignature();
  k.threads = config.getThreads();
  k.smemBytes = getGemmSmemLayout(config, k.problem).totalBytes();
  k.estimatedRegs =
      getGemmResources(config, k.problem, lookupTarget(module).getSpec())
          .regsPerThread;
  k.grid = getGemmGridExprs(config);
  k.tile = {config.getBlockM(), config.getBlockN(), config.getBlockK()};
  // The prediction of the ladder rung holding this config.
  if (std::optional<ArrayAttr> ladder = kernel.getLadder())
    for (auto rung : ladder->getAsRange<CandidateAttr>())
      if (rung.getConfig() == kernel.getConfig()) {
        k.predictedUs = rung.getPredictedNs() / 1000.0;
        break;
      }
  k.argNames = {"A", "B"};
  if (matmul.getBias())
    k.argNames.push_back("bias");
  k.argNames.push_back("C");

  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  k.module = gpu::GPUModuleOp::create(b, kernel.getLoc(), k.name);
  FailureOr<gpu::GPUFuncOp> func =
      synthesizeGemmKernel(k.module, kernel, config, k.name);
  if (failed(func)) {
    k.module.erase();
    return failure();
  }
  // The harness's register estimate becomes the kernel's register budget
  // (.maxnreg), so what was verified is what ptxas must honor.
  (*func)->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                   b.getI32IntegerAttr(k.estimatedRegs));
  // What every launch provides, for the harness's shared-memory bounds.
  (*func)->setAttr(kDynamicSmemAttrName, b.getI64IntegerAttr(k.smemBytes));
  // Fold the synthesizer's index arithmetic before anything reads it.
  OpPassManager cleanup(gpu::GPUModuleOp::getOperationName());
  cleanup.addPass(createCanonicalizerPass());
  cleanup.addPass(createCSEPass());
  if (failed(runPipeline(cleanup, k.module)))
    return failure();

  // The launch, where the kernel was: grid from the (possibly dynamic) sizes.
  b.setInsertionPoint(kernel);
  Location loc = kernel.getLoc();
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto dim = [&](Value memref, int64_t d) -> Value {
    int64_t size = cast<MemRefType>(memref.getType()).getDimSize(d);
    if (!ShapedType::isDynamic(size))
      return idx(size);
    return memref::DimOp::create(b, loc, memref, d);
  };
  auto ceilDiv = [&](Value x, int64_t y) -> Value {
    return arith::CeilDivUIOp::create(b, loc, x, idx(y));
  };
  int64_t off = matmul.isBatched() ? 1 : 0;
  Value sizeM = dim(matmul.getC(), off), sizeN = dim(matmul.getC(), off + 1);
  Value gridX =
      arith::MulIOp::create(b, loc, ceilDiv(sizeM, config.getBlockM()),
                            ceilDiv(sizeN, config.getBlockN()));
  Value gridZ = matmul.isBatched() ? dim(matmul.getC(), 0) : idx(1);
  SmallVector<Value> args = {matmul.getA(), matmul.getB()};
  if (matmul.getBias())
    args.push_back(matmul.getBias());
  args.push_back(matmul.getC());
  Value smem =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), k.smemBytes);
  gpu::LaunchFuncOp::create(
      b, loc, *func, gpu::KernelDim3{gridX, idx(1), gridZ},
      gpu::KernelDim3{idx(k.threads), idx(1), idx(1)}, smem, args);
  kernel.erase();
  return k;
}

/// The harness on generated code: the kernel checks (launch resources,
/// structure, barriers, bounds) against the target. The config was verified;
/// this guards the synthesizer itself.
LogicalResult AMKLowerPass::checkGenerated(LoweredKernel &k,
                                           const TargetSpec &t) {
  SmallVector<HarnessFinding> findings;
  for (auto func : k.module.getOps<gpu::GPUFuncOp>()) {
    // The resource check needs the block size the synthesizer always sets.
    if (!func.getKnownBlockSizeAttr())
      return func.emitError("[AMK-UNPROVABLE] generated kernel has no "
                            "known_block_size");
    (void)checkKernelSafety(func, &t, findings);
  }
  for (const HarnessFinding &f : findings)
    mlir::emitError(f.loc) << "generated kernel rejected: " << f.str();
  return success(findings.empty());
}

LogicalResult AMKLowerPass::lowerToNVVM(gpu::GPUModuleOp module,
                                        const TargetSpec &target) {
  MLIRContext *ctx = module.getContext();
  module.setTargetsAttr(ArrayAttr::get(
      ctx, {NVVM::NVVMTargetAttr::get(ctx, optLevel, "nvptx64-nvidia-cuda",
                                      target.arch, ptxFeaturesFor(target))}));
  OpPassManager pm(gpu::GPUModuleOp::getOperationName());
  buildKernelToNVVMPipeline(pm);
  return runPipeline(pm, module);
}

LogicalResult AMKLowerPass::serialize(LoweredKernel &k,
                                      const TargetSpec &target) {
  gpu::GPUModuleOp module = k.module;
  auto nvvmTarget = cast<gpu::TargetAttrInterface>(module.getTargetsAttr()[0]);
  std::string toolkit = getToolkitPath(toolkitPath);
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

  MLIRContext *ctx = module.getContext();
  auto object = [&](gpu::CompilationTarget format, ArrayRef<char> bytes) {
    return gpu::ObjectAttr::get(
        ctx, nvvmTarget, format,
        StringAttr::get(ctx, StringRef(bytes.data(), bytes.size())), nullptr,
        nullptr);
  };
  OpBuilder b(module);
  // The cubin first: the default offloading handler loads the first object.
  gpu::BinaryOp::create(
      b, module.getLoc(), module.getName(), nullptr,
      ArrayRef<Attribute>{object(gpu::CompilationTarget::Binary, *cubin),
                          object(gpu::CompilationTarget::Assembly, *ptx)});
  if (!bundleDir.empty()) {
    k.flags = (llvm::Twine("O") + llvm::Twine(optLevel.getValue()) + " " +
               ptxFeaturesFor(target))
                  .str();
    k.toolkit = toolkit;
    if (failed(writeBundle(
            bundleDir, k, target, StringRef(cubin->data(), cubin->size()),
            StringRef(ptx->data(), ptx->size()), module.getLoc())))
      return failure();
  }
  module.erase();
  return success();
}

void AMKLowerPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (stopAt != "gpu" && stopAt != "nvvm" && stopAt != "binary") {
    module.emitError("--amk-lower: stop-at must be gpu, nvvm or binary, not '")
        << stopAt << "'";
    return signalPassFailure();
  }
  SmallVector<KernelOp> kernels;
  module.walk([&](KernelOp kernel) { kernels.push_back(kernel); });
  if (kernels.empty())
    return markAllAnalysesPreserved();

  TargetAttr targetAttr = lookupTarget(module);
  if (!targetAttr) {
    module.emitError("[AMK-NO-TARGET] the module has no #amk.target; use "
                     "--amk-target=<preset>|<file.json>");
    return signalPassFailure();
  }
  const TargetSpec &target = targetAttr.getSpec();
  // Nothing unverified is emitted.
  for (KernelOp kernel : kernels) {
    if (!kernel->hasAttr(AMKDialect::kVerifiedAttrName)) {
      kernel.emitOpError("has not been verified against the target; run "
                         "--amk-verify before --amk-lower");
      return signalPassFailure();
    }
  }
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(&getContext()));

  std::vector<LoweredKernel> lowered;
  for (KernelOp kernel : kernels) {
    FailureOr<LoweredKernel> k = lowerKernel(kernel);
    if (failed(k) || failed(checkGenerated(*k, target)))
      return signalPassFailure();
    lowered.push_back(std::move(*k));
  }
  if (stopAt == "gpu")
    return;
  for (LoweredKernel &k : lowered)
    if (failed(lowerToNVVM(k.module, target)))
      return signalPassFailure();
  if (stopAt == "nvvm")
    return;
  for (LoweredKernel &k : lowered)
    if (failed(serialize(k, target)))
      return signalPassFailure();
}
