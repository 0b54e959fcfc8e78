//===- GlobalProtocolPoints.h - The protocol's signals and polls -*- C++
//-*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// What the files of the counter protocol share: its points (a signal, or a
// poll and its read) and the small matchers both the counts and the gates
// use. Private to the harness.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_GLOBALPROTOCOLPOINTS_H
#define AMK_LIB_HARNESS_GLOBALPROTOCOLPOINTS_H

#include "GlobalProtocol.h"
#include <optional>
#include <string>

namespace mlir::amk {

/// A signal, or a poll and its read.
struct GlobalProtocol::Point {
  // (Op handles' accessors are not const.)
  mutable memref::AtomicRMWOp access;
  mutable scf::WhileOp poll;
  Value threshold;
  int64_t amount = 0;
  BlockArgument counter;
  /// The op, or its ancestor through branches on the thread alone: the
  /// accesses ordered are in the anchor's block.
  Operation *anchor = nullptr;
  /// A signal releases the ops of the anchor's block before `limit`, a poll
  /// acquires those after it (null: none).
  Operation *limit = nullptr;
  /// A signal's nearer release, inside its anchor: the ops of
  /// `innerAnchor`'s block before `innerLimit`, a named barrier of every
  /// thread that runs that block (null: none).
  Operation *innerAnchor = nullptr, *innerLimit = nullptr;
  /// The threads of a block that run it.
  int64_t threads = 0;
  /// A poll's gpu-scope fence after it, a signal's before it, in its
  /// thread.
  Operation *fence = nullptr;
  /// A poll under branches that bound block ids from below (`if (z > 0)`):
  /// in the blocks that pass them (`guards`: dimension, first id) it
  /// acquires the ops of `guardedAnchor`'s block after `guardedLimit`.
  Operation *guardedAnchor = nullptr, *guardedLimit = nullptr;
  llvm::SmallVector<std::pair<int, int64_t>, 2> guards;
  /// The counter element, when its indices are constants.
  std::optional<llvm::SmallVector<int64_t, 2>> element;

  Operation *op() const {
    return poll ? poll.getOperation() : access.getOperation();
  }
};

namespace protocol {

/// A fence that, with a strong write or read of the same thread, makes a
/// release or acquire pattern between blocks: gpu or system scope.
bool isGpuFence(Operation *op);

/// The kernel argument `memref` is (null: a view or another buffer).
BlockArgument getKernelArgument(Value memref, Operation *kernel);

/// "kernel argument #N".
std::string describeArgument(BlockArgument arg);

/// `v` as a base plus a constant, through at most 8 additions and
/// subtractions of constants; nullopt where the constant overflows.
std::optional<std::pair<Value, int64_t>> splitConstantOffset(Value v);

/// The threads of a block that run `op` (linear ids), from the scf.ifs
/// around it: a condition of the thread alone keeps the threads that take
/// the branch `op` is in; a conjunct of a then-branch's condition that is in
/// `known` (true wherever `op` runs) keeps every thread. The threads that
/// may run it (`must` false) pass the other conditions uniform over the
/// block too; those that must (given `known`) pass no other, and no loop.
/// Null when a condition is neither, or a thread's value is not computed.
std::optional<std::vector<bool>>
getRunningThreads(Operation *op, const smem::Model &model,
                  smem::ThreadEvaluator &threads, llvm::ArrayRef<Value> known,
                  bool must);

/// The bits of a point's counter (index: 64).
inline unsigned getCounterBits(const GlobalProtocol::Point &p) {
  Type type = p.access.getType();
  return isa<IndexType>(type) ? 64 : type.getIntOrFloatBitWidth();
}

/// Whether a counter of `bits` holds the count `sum` (signed: a count at
/// the sign bit wraps).
inline bool holdsCount(unsigned bits, int64_t sum) {
  return bits >= 64 || sum < (int64_t(1) << (bits - 1));
}

} // namespace protocol
} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_GLOBALPROTOCOLPOINTS_H
