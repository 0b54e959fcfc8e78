//===- WarpAggregation.h - Warp-aggregated slot takes -----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// A warp-aggregated atomic (stream compaction as CUDA code writes it): one
// leader lane takes a run of slots for every lane whose predicate holds, and
// each such lane takes its place in the run by its rank among them.
//
//   mask = vote.sync ballot(0xffffffff, p)
//   if (lane == leader) first = atomic add c[i], popcount(mask)
//   first = shuffle idx first, leader
//   pos = first + popcount(mask & lanemask_lt)
//   if (p) { ... pos ... }
//
// with `leader` a constant lane or the lowest set bit of the mask. The runs
// of two takes are disjoint and each lane's place in its own run is its
// own, so the positions are those of every `p` lane taking a slot of one
// (SlotCounters): the checks' copy of the kernel says so.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_WARPAGGREGATION_H
#define AMK_LIB_HARNESS_WARPAGGREGATION_H

#include "mlir/IR/Operation.h"

namespace mlir::amk {

/// Whether `root` holds a warp-aggregated take of the form above.
bool hasWarpAggregatedTakes(Operation *root);

/// Rewrites each warp-aggregated take into a take of one slot per lane: at
/// the start of the `if (p)` branch, `pos = atomic add c[i], 1` (at the
/// leader's add's location); the leader's add is dropped (its branch yields
/// 0 to the shuffle). Exact for the checks: the positions are distinct per
/// lane and per take, and the counter grows by the same amount.
void rewriteWarpAggregatedTakes(Operation *root);

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_WARPAGGREGATION_H
