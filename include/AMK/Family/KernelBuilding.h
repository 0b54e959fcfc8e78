//===- KernelBuilding.h - Pieces every synthesizer builds -------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// What the families' synthesizers share: the empty kernel function, the
// view of one batch of an operand, the guard that keeps blocks inside
// every operand's dynamic batch, and the counter protocol between blocks.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_KERNELBUILDING_H
#define AMK_FAMILY_KERNELBUILDING_H

#include "AMK/Dialect/AMK/IR/AMKAttrs.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::amk {

/// An empty `gpu.func @name` (a kernel, `threads` x 1 x 1 as its known
/// block size) at the end of `module`, taking `argTypes`.
gpu::GPUFuncOp createKernelFunc(gpu::GPUModuleOp module, Location loc,
                                StringRef name, TypeRange argTypes,
                                int64_t threads);

/// `source[batch]`: the operand without its leading batch dimension.
Value selectBatch(ImplicitLocOpBuilder &b, Value source, Value batch);

/// Whether `batch` is inside the batch of every operand whose batch is
/// dynamic (null when none is). Blocks outside do nothing; the guard is
/// also what proves their batch views in bounds.
Value getBatchGuard(ImplicitLocOpBuilder &b, ValueRange operands, Value batch);

/// `activation` of the f32 value `x` (the epilogues' activations).
Value buildActivation(ImplicitLocOpBuilder &b, Activation activation, Value x);

/// The counter protocol between blocks (the harness proves it:
/// AMK-GLOBAL-SYNC). A signal: a block barrier (the block's writes are
/// done), then the thread where `leader` holds fences at gpu scope and adds
/// 1 to the i32 `counters[index]` (release).
void buildSignal(ImplicitLocOpBuilder &b, Value leader, Value counters,
                 ValueRange index);

/// An arrival at a gate (the last block to arrive): a signal whose count,
/// after a second fence (acquire), tells the leader whether its block is
/// the one that completes `arrivals` adds to `counters[index]`; it stores
/// that into the i1 shared-memory `flag`, which the block reads after a
/// barrier. Returns the flag as read: true in the last block to arrive.
/// With `threads` (> 0), the barriers are named barrier 1 of that many
/// threads (the leader's: a warp-specialized kernel's consumers) instead
/// of the block's.
Value buildLastArrival(ImplicitLocOpBuilder &b, Value leader, Value counters,
                       ValueRange index, int64_t arrivals, Value flag,
                       int64_t threads = 0);

/// A wait: the thread where `leader` spins on an atomic read of
/// `counters[index]` until it reaches the i32 `threshold`, then fences at
/// gpu scope (acquire); a block barrier brings the acquire to the block.
void buildWait(ImplicitLocOpBuilder &b, Value leader, Value counters,
               ValueRange index, Value threshold);

} // namespace mlir::amk

#endif // AMK_FAMILY_KERNELBUILDING_H
