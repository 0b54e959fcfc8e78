//===- BoundsRelational.h - Bounds from one integer system ------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_BOUNDSRELATIONAL_H
#define AMK_LIB_HARNESS_BOUNDSRELATIONAL_H

#include "BoundsProver.h"
#include "SharedMemoryModel.h"

namespace mlir::amk::bounds {

/// Proves an index inside its size from one integer system over the index
/// expression, the conditions of the branches around the access and the
/// size (BoundsRelational.cpp): where the intervals and guard matching of
/// BoundsProver do not reach.
class RelationalBounds {
public:
  RelationalBounds(Operation *kernel, const UniformityInfo &uniformity,
                   const DataFlowSolver &solver, const MBarrierPhases &phases,
                   ArrayRef<int64_t> launchGrid);

  /// Whether `index` >= 0 and, unless `lowerOnly`, `index` + `width` <=
  /// `size` hold wherever `access` runs, in every launch.
  bool prove(const MemoryAccess &access, Value index, int64_t width,
             const SymbolicSize &size, bool lowerOnly);

  /// Whether `lo` <= `v` <= `hi` holds wherever `at` runs, in every launch
  /// (a shift's amount, say, where its loops relate it to their bounds).
  bool proveWithin(Operation *at, Value v, int64_t lo, int64_t hi);

private:
  /// Whether each of `violations` (forms over `v`'s system at `at`,
  /// each >= 0 where it is violated) is infeasible: built by `forms`
  /// from the builder and the instance; false when a value may wrap.
  bool
  refuteAll(Operation *at, Value condition,
            llvm::function_ref<std::optional<llvm::SmallVector<smem::Lin, 2>>(
                smem::SystemBuilder &, const smem::Instance &)>
                forms);
  /// Whether `v` and the arithmetic the system translates below it stay
  /// within 62 bits (so no 64-bit operation wraps).
  bool fitsWithoutWrap(Value v, int depth);
  /// Whether no case of `splits` from `next` on leaves `s` a point.
  bool infeasible(smem::System s,
                  ArrayRef<SmallVector<smem::Alternative, 2>> splits,
                  unsigned next, unsigned &systems);
  std::optional<smem::Lin> sizeOf(smem::SystemBuilder &builder,
                                  const smem::Instance &in,
                                  const SymbolicSize &size);

  smem::Model model;
  llvm::DenseMap<Value, bool> exact;
};

} // namespace mlir::amk::bounds

#endif // AMK_LIB_HARNESS_BOUNDSRELATIONAL_H
