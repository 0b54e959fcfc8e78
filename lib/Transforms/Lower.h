//===- Lower.h - The parts of the lowering ----------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// What the lowering pass (Lower.cpp) takes from its two other parts: the
// host-side launch of a kernel's entries (LowerLaunch.cpp), and the NVVM
// target, the device pipeline and the gpu.binary (LowerNVVM.cpp). Internal
// to the transforms.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_TRANSFORMS_LOWER_H
#define AMK_LIB_TRANSFORMS_LOWER_H

#include "AMK/Bundle/Bundle.h"
#include "AMK/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

namespace mlir::amk::lower {

//===----------------------------------------------------------------------===//
// The launch (LowerLaunch.cpp)
//===----------------------------------------------------------------------===//

/// The launch, where the kernel was: operands cast to the types the kernels
/// take, then the first entry whose range holds the sizes (an scf.if per
/// dispatch variant). It names the kernels `@name::@entry`, which the
/// generated module or the cached gpu.binary provides. Erases `kernel`.
void emitKernelLaunch(KernelOp kernel, const BundleKernel &k);

//===----------------------------------------------------------------------===//
// NVVM and the binary (LowerNVVM.cpp)
//===----------------------------------------------------------------------===//

/// The CUDA toolkit ptxas comes from: the option, $CUDA_HOME, or the default.
std::string getToolkitPath(StringRef option);

/// The PTX ISA version an arch needs (ptxas in CUDA 13 takes up to 9.0).
std::string ptxFeaturesFor(const TargetSpec &target);

/// The NVVM target every kernel module (and so every gpu.object) carries.
NVVM::NVVMTargetAttr getNVVMTarget(MLIRContext *ctx, int optLevel,
                                   const TargetSpec &target);

/// The upstream lowering of a generated kernel module to the NVVM and LLVM
/// dialects (the device half of upstream's gpu-lower-to-nvvm-pipeline).
void buildKernelToNVVMPipeline(OpPassManager &pm);

/// The gpu.binary: the cubin first, since the default offloading handler
/// loads the first object, then the PTX.
void createBinary(OpBuilder &b, Location loc, StringRef name, Attribute target,
                  StringRef cubin, StringRef ptx);

/// A kernel module's code, as ptxas and LLVM made it.
struct KernelBinary {
  SmallVector<char, 0> cubin, ptx;

  StringRef getCubin() const { return StringRef(cubin.data(), cubin.size()); }
  StringRef getPtx() const { return StringRef(ptx.data(), ptx.size()); }
};

/// Compiles `module` (lowered to NVVM, with its NVVM target) with the
/// toolkit at `toolkit` and puts its gpu.binary before it; emits the error
/// on the module when LLVM or ptxas fails.
FailureOr<KernelBinary> emitKernelBinary(gpu::GPUModuleOp module,
                                         StringRef toolkit,
                                         const TargetSpec &target);

} // namespace mlir::amk::lower

#endif // AMK_LIB_TRANSFORMS_LOWER_H
