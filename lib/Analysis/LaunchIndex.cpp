//===- LaunchIndex.cpp - Thread and block ids, block and grid sizes -------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/LaunchIndex.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::amk;

std::optional<LaunchIndex> mlir::amk::getLaunchIndex(Operation *op) {
  using Kind = LaunchIndex::Kind;
  using Result = std::optional<LaunchIndex>;
  auto of = [](Kind kind, int dim) { return Result(LaunchIndex{kind, dim}); };
  auto gpuDim = [](auto op) { return int(op.getDimension()); };
  if (!op)
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case([&](gpu::ThreadIdOp o) { return of(Kind::ThreadId, gpuDim(o)); })
      .Case([&](gpu::BlockIdOp o) { return of(Kind::BlockId, gpuDim(o)); })
      .Case([&](gpu::BlockDimOp o) { return of(Kind::BlockDim, gpuDim(o)); })
      .Case([&](gpu::GridDimOp o) { return of(Kind::GridDim, gpuDim(o)); })
      .Case([&](NVVM::ThreadIdXOp) { return of(Kind::ThreadId, 0); })
      .Case([&](NVVM::ThreadIdYOp) { return of(Kind::ThreadId, 1); })
      .Case([&](NVVM::ThreadIdZOp) { return of(Kind::ThreadId, 2); })
      .Case([&](NVVM::BlockIdXOp) { return of(Kind::BlockId, 0); })
      .Case([&](NVVM::BlockIdYOp) { return of(Kind::BlockId, 1); })
      .Case([&](NVVM::BlockIdZOp) { return of(Kind::BlockId, 2); })
      .Case([&](NVVM::BlockDimXOp) { return of(Kind::BlockDim, 0); })
      .Case([&](NVVM::BlockDimYOp) { return of(Kind::BlockDim, 1); })
      .Case([&](NVVM::BlockDimZOp) { return of(Kind::BlockDim, 2); })
      .Case([&](NVVM::GridDimXOp) { return of(Kind::GridDim, 0); })
      .Case([&](NVVM::GridDimYOp) { return of(Kind::GridDim, 1); })
      .Case([&](NVVM::GridDimZOp) { return of(Kind::GridDim, 2); })
      .Default([](Operation *) { return Result(); });
}
