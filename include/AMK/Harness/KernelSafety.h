//===- KernelSafety.h - The harness on GPU kernels --------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The harness's checks on a lowered kernel (a `gpu.func`, AMK-generated or
// hand-written), conservative: a false alarm is acceptable, a missed bug is
// not, and what the analyses cannot model is reported, never accepted.
//
//   AMK-UNPROVABLE         unstructured control flow, calls, ops the harness
//                          does not model
//   AMK-BARRIER-DIVERGENT  a barrier that not every thread of the block
//                          reaches (under thread-dependent control)
//   AMK-OOB                a memory access that may leave its buffer, for
//                          the kernel's sizes or (dynamic sizes) any sizes
//   AMK-SMEM-RACE          two threads of a block touch the same shared bytes,
//                          one writing, with no barrier between them
//   AMK-ASYNC-UNWAITED     shared memory an async copy (cp.async) may still
//                          be writing is read or written: no wait_group
//                          retires its group (same thread) or no barrier
//                          follows that wait (other threads)
//   AMK-MISALIGNED         an access of w bytes (vector, cp.async, ldmatrix
//                          row, scalar) whose address is not provably a
//                          multiple of min(w, 16) (or of the alignment it
//                          declares)
//   AMK-UNCOALESCED        (a warning: the kernel is still accepted) a global
//                          access whose warps touch more than twice the
//                          32-byte sectors they need; the finding gives the
//                          byte stride between adjacent threads
//
// Also modelled: mbarrier phases and transaction counts (AMK-MBARRIER-*),
// TMA loads and wgmma operands in flight (AMK-ASYNC-UNWAITED, races across
// the async proxy); docs/ARCHITECTURE.md lists what is not.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_HARNESS_KERNELSAFETY_H
#define AMK_HARNESS_KERNELSAFETY_H

#include "AMK/Analysis/Uniformity.h"
#include "AMK/Harness/Harness.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"

namespace mlir {
class DataFlowSolver;
} // namespace mlir

namespace mlir::amk {

/// The dynamic shared memory (bytes) every launch of a kernel provides; the
/// bounds check needs it for views into `gpu.dynamic_shared_memory`.
/// `--amk-lower` sets it on the kernels it generates.
inline constexpr llvm::StringLiteral kDynamicSmemAttrName =
    "amk.dynamic_smem_bytes";

/// A gpu.func the runtime may launch while the kernel before it on its stream
/// still runs (programmatic dependent launch): it sees that kernel's writes
/// only after `nvvm.griddepcontrol wait`, which the harness checks comes
/// before any memory access.
inline constexpr llvm::StringLiteral kDependentLaunchAttrName =
    "amk.dependent_launch";

/// A gpu.func's requirement on the alignment (bytes) of its dynamic shared
/// memory, beyond the 16 bytes the NVVM lowering gives it: the harness
/// proves alignment from it, and `--amk-lower` raises the alignment of the
/// lowered buffer to it.
inline constexpr llvm::StringLiteral kDynamicSmemAlignAttrName =
    "amk.dynamic_smem_align";

/// "'scf.if' at line 12": how findings name an op.
std::string describeOp(Operation *op);

/// Whether `op` is the wait of a cluster barrier whose arrive (with its
/// default release semantics) comes right before it: every thread of the
/// cluster's blocks meets there, and what each did before arriving is
/// visible to all after the wait, so it also orders its own block as a
/// block barrier does. (A split barrier, with work between its arrive and
/// its wait, is not modelled: the structure check reports it.)
bool isClusterBarrier(Operation *op);

/// Whether every thread of the block waits at `op` (a block barrier, or a
/// cluster barrier, which also orders its own block). A named barrier of
/// fewer threads than the block (`bar.sync id, count`) orders only the
/// threads that reach it, so it is none; neither is one whose count is not
/// a constant or whose block size is not known.
bool isBlockBarrier(Operation *op);

/// The threads a convergent op needs together: the block for barriers and
/// block reductions, a warpgroup for wgmma, a warp for shuffles, votes,
/// warp reductions and the warp-wide matrix ops, the cluster for cluster
/// barriers; none for other ops.
std::optional<ThreadScope> getConvergenceScope(Operation *op);

/// Runs the integer range analysis every check of a kernel reads: upstream's,
/// with thread ids and block dimensions bounded by known_block_size (else by
/// CUDA's limits) and integer llvm.mlir.constant ops known.
LogicalResult runKernelRangeAnalysis(DataFlowSolver &solver, Operation *kernel);

/// The ranges the analysis run by `solver` gives `v`, or std::nullopt when
/// it reached no conclusion about it.
std::optional<ConstantIntRanges> getIntegerRanges(const DataFlowSolver &solver,
                                                  Value v);

/// Bytes of static shared memory a kernel allocates (workgroup attributions,
/// workgroup allocs, shared globals it uses), with the padding their
/// alignments may add; failure (each cause reported) when one has no static
/// size.
FailureOr<int64_t> getStaticSharedMemory(
    Operation *kernel,
    llvm::function_ref<void(Operation *, const llvm::Twine &)> unprovable);

/// Where the harness spent its time on one kernel: wall milliseconds per
/// phase, in the order they ran.
struct KernelCheckTime {
  std::string kernel;
  llvm::SmallVector<std::pair<std::string, double>, 4> phases;
  double totalMs() const;
  /// "12.3 ms (structure 0.1, convergence 0.2, ...)".
  std::string str() const;
};

/// Runs every kernel check on `kernel` (a gpu.func), appending findings;
/// with a target, also its launch resources (threads from
/// `known_block_size`, shared memory from `amk.dynamic_smem_bytes` plus the
/// static allocations, the grid from `known_grid_size`). With `time`, also
/// records how long each phase took. A gpu.func with branch graphs or n-D
/// vector accesses is checked as a detached copy rewritten to scf and 1-D
/// vectors, which needs the affine, arith, scf, ub and vector dialects
/// loaded (the verify pass depends on them); findings name the original
/// ops' locations.
/// Returns success iff no error was appended (warnings may be).
LogicalResult checkKernelSafety(Operation *kernel, const TargetSpec *target,
                                llvm::SmallVectorImpl<HarnessFinding> &findings,
                                KernelCheckTime *time = nullptr);

} // namespace mlir::amk

#endif // AMK_HARNESS_KERNELSAFETY_H
