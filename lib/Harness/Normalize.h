//===- Normalize.h - The kernel the checks analyse --------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_NORMALIZE_H
#define AMK_LIB_HARNESS_NORMALIZE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::amk {

/// The kernel checks model structured control flow (scf.for, scf.if) and
/// 1-D vector accesses. For a kernel written otherwise this returns a
/// detached copy rewritten into that form by exact lowerings, upstream's
/// where there is one: branch graphs lifted to scf (CFG-to-SCF; a diamond
/// becomes an scf.if whose condition guards its arms), n-D vector transfers
/// unrolled to guarded 1-D ones (VectorToSCF), n-D vector loads and stores
/// split into rows, affine.apply as arith, counted and strided while loops
/// as scf.for, a triangular nest of while loops (a bitonic network) unrolled
/// with its constants folded (pure arith ops only: no access is folded or
/// dropped). Two rewrites are not exact but sound for the checks: a work
/// queue's loop becomes one run of its body (each run takes a slot of its
/// own; Normalize.cpp's rewriteWorkQueue), and a warp-aggregated atomic
/// becomes a slot take per lane (WarpAggregation.h). Every op keeps its
/// location, so each finding names the original access. Null when `func`
/// needs none of it, or a rewrite failed (the checks then report what they
/// cannot model in the original).
OwningOpRef<gpu::GPUFuncOp> normalizeForChecks(gpu::GPUFuncOp func);

/// The unit attribute on a copy in which loops were unrolled (a triangular
/// nest of while loops, Normalize.cpp): its findings repeat per copy.
constexpr llvm::StringLiteral kUnrolledAttrName = "amk.unrolled";

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_NORMALIZE_H
