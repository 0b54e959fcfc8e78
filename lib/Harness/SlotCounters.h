//===- SlotCounters.h - Counters that hand out slots ------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Stream compaction, queue appends, binning: a thread takes a slot with
// `slot = atomic add c[0], 1` and writes `out[slot]`. The counts one counter
// element returns are all distinct when only adds of positive constants
// touch it and they cannot wrap, so two such writes never meet; when the
// launch zeroes the counter (`amk.counter`), the slots also lie below the
// sum of every add the launch can make.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_SLOTCOUNTERS_H
#define AMK_LIB_HARNESS_SLOTCOUNTERS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>

namespace mlir::amk {

class SlotCounters {
public:
  /// The slot counters of `kernel` (a gpu.func; its known block and grid
  /// sizes bound the adds).
  explicit SlotCounters(Operation *kernel);

  /// The slot `v` is (through value-preserving casts): its counter (an id),
  /// its element (an id, when its indices are constants), the op that took
  /// it and the amount that op adds. Of two executions that take slots of
  /// one element, the one that lands first takes the lower, at least its
  /// amount below the other's. Nullopt for any other value.
  struct Slot {
    unsigned counter;
    std::optional<unsigned> element;
    memref::AtomicRMWOp op;
    int64_t amount;
    /// A block's reservation read back from shared memory: in its own
    /// block it is the storing thread's slot.
    bool shared = false;
  };
  std::optional<Slot> getSlot(Value v) const;

  /// Whether `rmw` takes slots of a counter whose every op does so (an add
  /// of a positive constant), whatever its count.
  static bool isSlotAdd(memref::AtomicRMWOp rmw, Operation *kernel);

  /// The attribute the checks' copy of a kernel (normalizeForChecks) puts
  /// on the add that takes a work queue's next slot, with the queue's
  /// bound n (`while (t < n)`): of such adds at most n return a slot below
  /// n, and one per run of the loop the slot that ends it.
  static constexpr llvm::StringLiteral kWorkQueueBound = "amk.work_queue_bound";

  /// The values the slot op `op` can return: [0, sum of the launch's adds
  /// to its element (to the counter, where some op's element varies) - its
  /// own add], when the counter starts at zero and the adds are counted.
  std::optional<std::pair<int64_t, int64_t>> getRange(Operation *op) const;

private:
  /// A slot one thread stores into shared memory, once in every block,
  /// read back after a barrier (a block's reservation): the loads are that
  /// slot too.
  void addBroadcasts(Operation *kernel, ArrayRef<int64_t> block);

  llvm::DenseMap<Operation *, Slot> slotOf;
  llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> ranges;
};

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_SLOTCOUNTERS_H
