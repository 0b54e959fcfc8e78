//===- Bounds.h - The harness's memory bounds check -------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_BOUNDS_H
#define AMK_LIB_HARNESS_BOUNDS_H

#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir {
class DataFlowSolver;
} // namespace mlir

namespace mlir::amk {

class UniformityInfo;
struct MBarrierPhases;

/// The largest block every CUDA architecture allows, per dimension: what a
/// thread index or block dimension is bounded by when the kernel does not
/// say.
inline constexpr int64_t kMaxBlockDims[3] = {1024, 1024, 64};
/// The largest grid, per dimension: what bounds a block id when the
/// kernel's grid is not known.
inline constexpr int64_t kMaxGridDims[3] = {2147483647, 65535, 65535};

/// One memory access an op makes: a memref, its indices, the elements it
/// touches along the last dimension, and a condition under which it happens
/// (null: always).
struct MemoryAccess {
  Operation *op;
  Value memref;
  llvm::SmallVector<Value> indices;
  int64_t width;
  Value condition;
  StringRef what;
  bool write = false;
  /// Completes later (cp.async): see SharedMemory.h.
  bool async = false;
  /// Completes with a phase of the mbarrier the op names (a TMA load), not
  /// with an async group; async too.
  bool tma = false;
  /// Reads an operand of a wgmma (async too): in flight until a wgmma wait
  /// retires its group.
  bool wgmma = false;
  /// Covers `width` contiguous elements from its memref's base (`indices`
  /// empty), plus `warpgroupStride` per warpgroup: a TMA box, a wgmma
  /// operand, a warpgroup's accumulator store (its rows).
  bool wholeView = false;
  /// Elements past the base where warpgroup g's part starts, times g
  /// (nvgpu.warpgroup.mma.store: warp w writes from row 16 w of the view).
  int64_t warpgroupStride = 0;
  /// Made by the threads of one warpgroup together, each writing its own
  /// part (nvgpu.warpgroup.mma.store): the same instance in two threads of
  /// one warpgroup touches different bytes.
  bool warpgroupCollective = false;
  /// Touches only the elements of its `width` that lie before the end of
  /// the last dimension (a vector transfer with in_bounds = false): that
  /// index must not be negative, but may run past the size.
  bool masked = false;
  /// Rows it covers along the second-to-last dimension, from its index
  /// there, each `width` wide (a wmma fragment), `rowStride` elements apart
  /// in memory (static: the memref's own pitch).
  int64_t rows = 1;
  int64_t rowStride = 0;
  /// Made by the lanes of one warp together (a wmma fragment): the same
  /// instance in two lanes of a warp is one access.
  bool warpCollective = false;
};

/// Whether the access is an atomic update: two of them never race (each is
/// whole, in any order).
inline bool isAtomicAccess(const MemoryAccess &access) {
  return isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(access.op);
}

/// The positive constant an atomic add adds (`memref.atomic_rmw addi c`,
/// c > 0: a counter's signal, a slot's take); nullopt for any other update.
inline std::optional<int64_t> getPositiveAdd(memref::AtomicRMWOp rmw) {
  std::optional<int64_t> amount = getConstantIntValue(rmw.getValue());
  if (rmw.getKind() != arith::AtomicRMWKind::addi || !amount || *amount <= 0)
    return std::nullopt;
  return amount;
}

/// The elements from an access's first to its last, inclusive of the gaps
/// between its rows.
inline int64_t getSpanElements(const MemoryAccess &access) {
  return (access.rows - 1) * access.rowStride + access.width;
}

/// The elements of a TMA load's box (its descriptor's tensor shape), when
/// its destination is a static, contiguous view of the box's element type,
/// which the box fills from its base.
std::optional<int64_t> getTmaBoxElements(nvgpu::TmaAsyncLoadOp load);

/// The accesses `op` makes, or failure if it touches memory in a way the
/// harness does not model.
FailureOr<llvm::SmallVector<MemoryAccess>> getMemoryAccesses(Operation *op);

/// Proves every memory access of `kernel` inside its buffer, with the
/// integer ranges `solver` computed (IntegerRangeAnalysis on `kernel`), and
/// where those do not reach, one integer system per access (relational:
/// BoundsRelational.h);
/// calls `report` (check id, op, message, found, limit, details for JSON)
/// for each access it cannot.
/// `launchGrid` (empty: unknown): the grid every launch of the kernel uses,
/// bounding its block ids.
void checkKernelBounds(
    Operation *kernel, const UniformityInfo &uniformity,
    const DataFlowSolver &solver, const MBarrierPhases &phases,
    llvm::ArrayRef<int64_t> launchGrid,
    llvm::function_ref<void(StringRef, Operation *, const Twine &, int64_t,
                            int64_t, llvm::json::Object)>
        report);

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_BOUNDS_H
