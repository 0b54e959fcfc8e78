//===- GemmSynthesis.h - GEMM kernels from a gemm config --------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The GEMM synthesizer: turns an `amk.kernel` with a `#amk.gemm_config` into a
// `gpu.func` over upstream dialects (arith, scf, memref, vector, gpu, nvgpu and
// a few nvvm ops). Internal to AMKTransforms.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_FAMILY_GEMM_GEMMSYNTHESIS_H
#define AMK_LIB_FAMILY_GEMM_GEMMSYNTHESIS_H

#include "AMK/Family/Gemm/GemmModel.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::amk {

/// Builds `gpu.func @name` inside `module`, taking the matmul's operands (A,
/// B, optional bias, C) as memref arguments of the same types (and the
/// workspace with split_reduce = workspace), with `known_block_size` set. The
/// kernel is launched on the grid of getGemmGrid() with
/// getGemmSmemLayout(...).totalBytes() of dynamic shared memory. Fails (with a
/// diagnostic at `kernel`) if checkGemmLowerable() rejects the config.
FailureOr<gpu::GPUFuncOp> synthesizeGemmKernel(gpu::GPUModuleOp module,
                                               KernelOp kernel,
                                               GemmConfigAttr config,
                                               StringRef name);

/// Builds `gpu.func @name`, the second kernel of a split_reduce = workspace
/// config: it takes (workspace, [bias], C), sums the partial tiles in split
/// order and applies the epilogue (kSplitReduceThreads threads per block,
/// getSplitReduceVector() elements each, grid z the batch).
gpu::GPUFuncOp synthesizeGemmSplitReduceKernel(gpu::GPUModuleOp module,
                                               KernelOp kernel,
                                               GemmConfigAttr config,
                                               StringRef name);

/// Builds `gpu.func @name`, a kernel that runs first in a config that
/// repacks operand A (`isA`) or B (repacksOperand): it takes (the operand,
/// its K-major workspace) and copies the operand transposed, a
/// kRepackTile-square tile per block (grid x over M or N, y over K, z the
/// batch).
gpu::GPUFuncOp synthesizeGemmRepackKernel(gpu::GPUModuleOp module,
                                          KernelOp kernel, bool isA,
                                          StringRef name);

} // namespace mlir::amk

#endif // AMK_LIB_FAMILY_GEMM_GEMMSYNTHESIS_H
