//===- LaunchIndex.h - Thread and block ids, block and grid sizes -*- C++
//-*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The gpu and nvvm dialects each spell the launch's indices and sizes (a
// thread id, a block id, the block's and the grid's size, per dimension);
// the analyses read them through one function.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_ANALYSIS_LAUNCHINDEX_H
#define AMK_ANALYSIS_LAUNCHINDEX_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::amk {

/// What a gpu or nvvm special-register op reads, and in which dimension.
struct LaunchIndex {
  enum class Kind { ThreadId, BlockId, BlockDim, GridDim };
  Kind kind;
  /// 0, 1 or 2 (x, y, z).
  int dim;
};

/// The launch index `op` reads (gpu.thread_id/block_id/block_dim/grid_dim
/// or their nvvm.read.ptx.sreg forms); std::nullopt for any other op
/// (lane ids and cluster ids included).
std::optional<LaunchIndex> getLaunchIndex(Operation *op);

} // namespace mlir::amk

#endif // AMK_ANALYSIS_LAUNCHINDEX_H
