//===- ProgramOrder.cpp - Ops before others in a thread and a block -------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "ProgramOrder.h"

#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::amk;

std::tuple<Block *, Operation *, Operation *>
mlir::amk::getCommonBlock(Operation *a, Operation *b, Operation *kernel) {
  for (Operation *t = b; t && t != kernel; t = t->getParentOp())
    if (Operation *at = t->getBlock()->findAncestorOpInBlock(*a))
      return {t->getBlock(), at, t};
  return {nullptr, nullptr, nullptr};
}

bool mlir::amk::precedes(Operation *from, Operation *to, Operation *kernel) {
  auto [block, a, b] = getCommonBlock(from, to, kernel);
  return block && a != b && a->isBeforeInBlock(b);
}

bool mlir::amk::barrierBetween(Operation *from, Operation *to,
                               Operation *kernel,
                               function_ref<bool(Operation *)> isBarrier) {
  auto [common, a, b] = getCommonBlock(from, to, kernel);
  if (!common || a == b || !a->isBeforeInBlock(b))
    return false;
  for (Operation *t = to; t; t = t->getParentOp()) {
    Operation *stop = t->getBlock() == common ? a : nullptr;
    for (Operation *o = t->getPrevNode(); o && o != stop; o = o->getPrevNode())
      if (isBarrier(o))
        return true;
    if (t->getBlock() == common)
      return false;
  }
  return false;
}

SmallVector<memref::LoadOp>
mlir::amk::getSharedLoads(memref::StoreOp store, Operation *kernel,
                          function_ref<bool(Operation *)> isBarrier) {
  Value buffer = store.getMemref();
  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  bool own =
      func && (llvm::is_contained(func.getWorkgroupAttributions(), buffer) ||
               buffer.getDefiningOp<memref::AllocaOp>() ||
               buffer.getDefiningOp<memref::AllocOp>());
  std::optional<SmallVector<int64_t>> at =
      getConstantIntValues(getAsOpFoldResult(store.getIndices()));
  bool onlyStore = at && llvm::all_of(buffer.getUsers(), [&](Operation *o) {
                     return o == store || (isa<memref::LoadOp>(o) &&
                                           o->getOperand(0) == buffer);
                   });
  SmallVector<memref::LoadOp> loads;
  if (!own || !onlyStore || !isWorkgroupMemory(buffer))
    return loads;
  for (Operation *o : buffer.getUsers())
    if (auto load = dyn_cast<memref::LoadOp>(o);
        load &&
        getConstantIntValues(getAsOpFoldResult(load.getIndices())) == at &&
        barrierBetween(store, load, kernel, isBarrier))
      loads.push_back(load);
  return loads;
}

bool mlir::amk::isWorkgroupMemory(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  auto space =
      type ? dyn_cast_if_present<gpu::AddressSpaceAttr>(type.getMemorySpace())
           : gpu::AddressSpaceAttr();
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}
