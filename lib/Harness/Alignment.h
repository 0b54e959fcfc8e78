//===- Alignment.h - Alignment and coalescing of memory accesses -*- C++
//-*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_ALIGNMENT_H
#define AMK_LIB_HARNESS_ALIGNMENT_H

#include "AMK/Harness/KernelSafety.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
class DataFlowSolver;
} // namespace mlir

namespace mlir::amk {

class AddressModel;
class UniformityInfo;

/// Proves every multi-byte access of `kernel` aligned (AMK-MISALIGNED):
/// vector loads and stores, 1-D vector transfers, cp.async (source and
/// destination, to its 4/8/16-byte size), ldmatrix rows (16 bytes) and
/// scalar loads and stores, each to min(its width, 16) bytes, or to the
/// alignment it declares when larger. The byte address comes from
/// `addresses`; its known low bits from LLVM's KnownBits lattice over the
/// index arithmetic (exact under wrap-around), refined by the divisibility
/// the kernel checks in enclosing `scf.if`s and preceding `cf.assert`s
/// (`x % c == 0`, `x & m == 0`). Ops in `skip` (already reported as
/// unprovable) are not checked. Calls `report` with each finding (its `op`
/// left empty).
void checkKernelAlignment(Operation *kernel, const DataFlowSolver &solver,
                          AddressModel &addresses,
                          const llvm::DenseSet<Operation *> &skip,
                          llvm::function_ref<void(HarnessFinding)> report);

/// Warns about global loads and stores whose warps touch more than twice the
/// 32-byte sectors their bytes need (AMK-UNCOALESCED, severity warning):
/// the address of every thread of each warp of the `known_block_size` block
/// is evaluated as a linear form over values every thread shares (which
/// shift the warp as a whole), accesses the same thread makes to nearby
/// bytes in one loop iteration (unrolled element stores, neighbouring
/// fragments) are counted together, and the finding gives the byte stride
/// between adjacent threads. A heuristic that never fails verification:
/// accesses it cannot evaluate are not reported.
void checkKernelCoalescing(Operation *kernel, const UniformityInfo &uniformity,
                           AddressModel &addresses,
                           llvm::function_ref<void(HarnessFinding)> report);

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_ALIGNMENT_H
