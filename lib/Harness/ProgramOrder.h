//===- ProgramOrder.h - Ops before others in a thread and a block -*- C++
//-*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Program order of structured control (scf), as the checks that follow a
// value from one thread to the others ask it: which op runs first, and
// whether a block barrier lies between them.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_PROGRAMORDER_H
#define AMK_LIB_HARNESS_PROGRAMORDER_H

#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Operation.h"
#include <tuple>

namespace mlir::amk {

/// The innermost block that holds `a` (or an ancestor) and an ancestor of
/// `b`, with both ancestors; nulls when none is below `kernel`.
std::tuple<Block *, Operation *, Operation *>
getCommonBlock(Operation *a, Operation *b, Operation *kernel);

/// Whether `from` precedes `to` in program order (in a block that holds
/// ancestors of both, neither containing the other).
bool precedes(Operation *from, Operation *to, Operation *kernel);

/// Whether a block barrier (an op `isBarrier` accepts: one that orders
/// every thread that runs its block) runs after `from` and before `to`: in
/// the block that holds both (between their ancestors), or in a block on
/// the way down to `to` (before its ancestor there).
bool barrierBetween(
    Operation *from, Operation *to, Operation *kernel,
    llvm::function_ref<bool(Operation *)> isBarrier = isBlockBarrier);

/// Whether `memref` lives in a block's shared memory.
bool isWorkgroupMemory(Value memref);

/// The loads that read what `store` alone wrote to a block's shared memory
/// (a value one thread shares with the block): the store's buffer is a
/// workgroup attribution of the kernel or an allocation, used by no view
/// and no other op than loads and this store, and each load, at the same
/// constant indices, runs after a block barrier (`isBarrier`) that follows
/// the store.
SmallVector<memref::LoadOp> getSharedLoads(
    memref::StoreOp store, Operation *kernel,
    llvm::function_ref<bool(Operation *)> isBarrier = isBlockBarrier);

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_PROGRAMORDER_H
