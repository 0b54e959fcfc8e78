//===- NamedBarriers.h - Barriers of some of a block's threads --*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// `nvvm.barrier id = %i number_of_threads = %n` (PTX `bar.sync i, n`) with n
// below the block's size completes when n threads have arrived at hardware
// barrier i: the consumer warpgroups of a warp-specialized kernel sync among
// themselves so, while the producer runs on. Such a barrier is safe only
// when the threads that reach it under each id are exactly n whole warps,
// and no other barrier of other threads uses the id; then it orders the
// threads of that group, and only them, like a block barrier.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_NAMEDBARRIERS_H
#define AMK_LIB_HARNESS_NAMEDBARRIERS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::amk {

class UniformityInfo;

class NamedBarriers {
public:
  /// The threads (linear ids first .. last of the block) that complete the
  /// barriers of one id together.
  struct Group {
    int64_t id, first, last;
  };

  NamedBarriers() = default;
  /// Checks every named barrier of fewer threads than `kernel`'s block:
  /// its count a constant multiple of 32, the threads that reach it (under
  /// conditions of the thread id alone) whole warps, as many per id as it
  /// declares, and the same threads for every barrier of that id
  /// (AMK-BARRIER-DIVERGENT; AMK-UNPROVABLE where the block's size, the
  /// count, the id or a condition is not known per thread).
  NamedBarriers(
      Operation *kernel, const UniformityInfo &uniformity,
      llvm::function_ref<void(StringRef, Operation *, const Twine &)> report);

  /// Whether `op` is a named barrier of fewer threads than the block, checked
  /// here instead of as a barrier every thread reaches.
  bool isPartial(Operation *op) const { return partial.contains(op); }
  /// The groups whose barriers passed every check and whose threads are
  /// one run of linear ids: their barriers order them.
  ArrayRef<Group> groups() const { return ordering; }
  /// Whether `op` is a barrier of `group` (for the group's threads).
  bool isEvent(Operation *op, const Group &group) const {
    auto it = idsOf.find(op);
    return it != idsOf.end() && llvm::is_contained(it->second, group.id);
  }
  /// Whether `op` orders every thread that runs its block: a block
  /// barrier, or a barrier of one ordering group, which is every thread
  /// that reaches it. (A null `named`: block barriers alone.)
  static bool ordersItsBlock(const NamedBarriers *named, Operation *op);

private:
  llvm::DenseSet<Operation *> partial, wholeGroup;
  SmallVector<Group> ordering;
  /// The ordering groups' ids each of their barriers runs under.
  llvm::DenseMap<Operation *, SmallVector<int64_t, 2>> idsOf;
};

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_NAMEDBARRIERS_H
