//===- Uniformity.h - Thread-uniform and divergent values -------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Which values of a GPU kernel may differ between the threads of one group:
// the grid, the block, a warpgroup (128 threads) or a warp. Thread ids are divergent;
// block ids, block and grid sizes, kernel arguments and constants are
// uniform; an op's results are divergent if an operand is, and a structured
// op's results are divergent if its control (an scf.if condition, scf.for
// bounds, an scf.while condition) is. Within a warp or warpgroup, the group's
// index is uniform too: thread_id x divided by a multiple of the group's size
// (when the block's rows hold whole groups), thread_id y and z (when a row
// of the block does), the warp id within a warp; and so are results every
// thread of the group shares (gpu.subgroup_reduce within a warp,
// gpu.all_reduce everywhere). Loads of a uniform address are uniform (the
// race check, not this analysis, guards against a concurrent write). The
// analysis is a monotone fixpoint over structured control flow; kernels with
// unstructured control flow are not analysed (the harness reports them as
// unprovable).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_ANALYSIS_UNIFORMITY_H
#define AMK_ANALYSIS_UNIFORMITY_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseSet.h"

#include <array>
#include <optional>

namespace mlir::amk {

/// The group of threads a value is uniform over, or a collective needs.
/// Grid: every thread of the launch (block ids are divergent, and so is
/// every value read from memory, which another block may be writing).
/// Cluster: the blocks of one thread-block cluster (as Grid, but the
/// cluster's id, and a block id divided by a multiple of the kernel's
/// known_cluster_size, are uniform).
enum class ThreadScope { Grid, Cluster, Block, Warpgroup, Warp };

class UniformityInfo {
public:
  /// Analyses the regions of `kernel` (a gpu.func, whose known_block_size
  /// tells how warps tile the block, or any op with structured regions).
  explicit UniformityInfo(Operation *kernel);

  /// Whether `value` may differ between the threads of one `scope`.
  bool isDivergent(Value value, ThreadScope scope = ThreadScope::Block) const {
    return divergent[index(scope)].contains(value);
  }

  /// Whether the op that owns `region`-nested code decides by a value
  /// divergent over `scope` which threads run it (or how often).
  bool hasDivergentControl(Operation *regionOp,
                           ThreadScope scope = ThreadScope::Block) const;

  /// The innermost op enclosing `op` (up to the kernel) whose control is
  /// divergent over `scope`, or nullptr when every thread of each `scope`
  /// group reaches `op` the same number of times.
  Operation *getDivergentAncestor(Operation *op,
                                  ThreadScope scope = ThreadScope::Block) const;

private:
  static unsigned index(ThreadScope scope) { return unsigned(scope); }
  bool update(Operation *op, ThreadScope scope);
  bool isSource(Operation *op, ThreadScope scope) const;
  bool isGroupUniform(Operation *op, ThreadScope scope) const;

  Operation *kernel;
  /// known_block_size and known_cluster_size, when the kernel states them.
  std::optional<std::array<int64_t, 3>> block, cluster;
  llvm::DenseSet<Value> divergent[5];
};

} // namespace mlir::amk

#endif // AMK_ANALYSIS_UNIFORMITY_H
