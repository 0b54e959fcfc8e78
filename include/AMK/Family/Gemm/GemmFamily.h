//===- GemmFamily.h - The GEMM family ---------------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// `amk.matmul` (and linalg.matmul / linalg.batch_matmul on buffers) planned
// as `#amk.gemm_config` kernels: simt for f32, mma.sync tensor cores for
// f16/bf16/tf32, split-K for grids that leave the SMs idle.
//
// The candidate space (GemmPlanner.cpp): block, warp and thread tiles,
// stages and swizzle of the math paths the synthesizer has for the element
// type; the load vector width is the largest that divides the contiguous
// extents of A and B and fits 16 bytes. Heuristics drop block tiles far
// larger than the problem (a tile side above the next power of two of the
// size, beyond the smallest tile enumerated); ties of the cost model
// (GemmCostModel.h) prefer tile sides that are multiples of 32, then fewer
// splits, less shared memory, fewer threads, no swizzle. Dynamic sizes are
// planned for GemmCostParams::representativeSize (4096; a dynamic batch
// counts as 1); legality is still checked on the real problem.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_GEMM_GEMMFAMILY_H
#define AMK_FAMILY_GEMM_GEMMFAMILY_H

#include "AMK/Family/Family.h"
#include "AMK/Family/Gemm/GemmCostModel.h"

namespace mlir::amk {

/// The GEMM family (registered by registerAllFamilies).
std::unique_ptr<KernelFamily> createGemmFamily();

/// The model of `problem` on `target` with the cost constants `params`;
/// dynamic sizes are planned at `planningSizes` (symbols B, M, N, K), else
/// at the representative size.
std::unique_ptr<ProblemModel>
createGemmProblemModel(MLIRContext *context, const GemmProblem &problem,
                       const TargetSpec &target, const GemmCostParams &params,
                       const PlanningSizes &planningSizes = {});

/// Dynamic M at or below this gets a kernel of its own (decode-like
/// products, which the representative size plans badly).
constexpr int64_t kGemmSmallMBucket = 64;

/// Accumulators each thread of `config` holds (what spills grow with).
int64_t getAccumulatorsPerThread(GemmConfigAttr config);

/// The cost-model constants a calibration may refit, by name.
void forEachCalibratedParam(
    GemmCostParams &params,
    llvm::function_ref<void(llvm::StringRef, double &)> fn);

/// Replaces linalg.matmul / linalg.batch_matmul on buffers by amk.matmul:
/// transposes from `indexing_maps`, beta = 1 unless a zero fill of C
/// precedes it (which is then erased). On failure `op` stays and `whyNot`
/// says why.
LogicalResult importLinalgMatmul(RewriterBase &rewriter, Operation *op,
                                 std::string &whyNot);

} // namespace mlir::amk

#endif // AMK_FAMILY_GEMM_GEMMFAMILY_H
