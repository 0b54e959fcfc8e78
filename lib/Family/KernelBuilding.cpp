//===- KernelBuilding.cpp - Pieces every synthesizer builds ---------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/KernelBuilding.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amk;

gpu::GPUFuncOp mlir::amk::createKernelFunc(gpu::GPUModuleOp module,
                                           Location loc, StringRef name,
                                           TypeRange argTypes,
                                           int64_t threads) {
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(builder, loc, name,
                                     builder.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                builder.getUnitAttr());
  func.setKnownBlockSizeAttr(
      builder.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  return func;
}

Value mlir::amk::selectBatch(ImplicitLocOpBuilder &b, Value source,
                             Value batch) {
  auto type = cast<MemRefType>(source.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[0] = batch;
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
  for (int64_t d = 1; d < rank; ++d)
    sizes.push_back(memref::getMixedSize(b, b.getLoc(), source, d));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto resultType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, cast<MemRefType>(resultType), source,
                                   offsets, sizes, strides);
}

Value mlir::amk::getBatchGuard(ImplicitLocOpBuilder &b, ValueRange operands,
                               Value batch) {
  Value inBatch;
  for (Value operand : operands) {
    if (!cast<MemRefType>(operand.getType()).isDynamicDim(0))
      continue;
    Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, batch,
                                         memref::DimOp::create(b, operand, 0));
    inBatch = inBatch ? arith::AndIOp::create(b, inBatch, inside) : inside;
  }
  return inBatch;
}

Value mlir::amk::buildActivation(ImplicitLocOpBuilder &b, Activation activation,
                                 Value x) {
  auto f32 = [&](double v) -> Value {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  };
  switch (activation) {
  case Activation::none:
    return x;
  case Activation::relu:
    return arith::MaximumFOp::create(b, x, f32(0.0));
  case Activation::gelu: {
    // The exact (erf) form: 0.5 x (1 + erf(x / sqrt(2))).
    Value erf =
        math::ErfOp::create(b, arith::MulFOp::create(b, x, f32(M_SQRT1_2)));
    Value half = arith::MulFOp::create(b, x, f32(0.5));
    return arith::MulFOp::create(b, half,
                                 arith::AddFOp::create(b, erf, f32(1.0)));
  }
  case Activation::silu: {
    // x * sigmoid(x) = x / (1 + exp(-x)).
    Value e = math::ExpOp::create(b, arith::NegFOp::create(b, x));
    return arith::DivFOp::create(b, x, arith::AddFOp::create(b, e, f32(1.0)));
  }
  }
  llvm_unreachable("unknown activation");
}

void mlir::amk::buildSignal(ImplicitLocOpBuilder &b, Value leader,
                            Value counters, ValueRange index) {
  gpu::BarrierOp::create(b);
  auto ifOp = scf::IfOp::create(b, leader, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
  memref::AtomicRMWOp::create(
      b, arith::AtomicRMWKind::addi,
      arith::ConstantIntOp::create(b, b.getI32Type(), 1), counters, index);
}

Value mlir::amk::buildLastArrival(ImplicitLocOpBuilder &b, Value leader,
                                  Value counters, ValueRange index,
                                  int64_t arrivals, Value flag,
                                  int64_t threads) {
  Value zero = arith::ConstantIndexOp::create(b, 0);
  auto barrier = [&] {
    if (threads == 0) {
      gpu::BarrierOp::create(b);
      return;
    }
    auto i32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, b.getI32Type(), v);
    };
    NVVM::BarrierOp::create(b, TypeRange{}, i32(1), i32(threads),
                            /*reductionOp=*/nullptr,
                            /*reductionPredicate=*/Value());
  };
  barrier();
  {
    auto ifOp = scf::IfOp::create(b, leader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
    Value before = memref::AtomicRMWOp::create(
        b, arith::AtomicRMWKind::addi,
        arith::ConstantIntOp::create(b, b.getI32Type(), 1), counters, index);
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
    Value last = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq, before,
        arith::ConstantIntOp::create(b, b.getI32Type(), arrivals - 1));
    memref::StoreOp::create(b, last, flag, ValueRange{zero});
  }
  barrier();
  return memref::LoadOp::create(b, flag, ValueRange{zero});
}

void mlir::amk::buildWait(ImplicitLocOpBuilder &b, Value leader, Value counters,
                          ValueRange index, Value threshold) {
  {
    auto ifOp = scf::IfOp::create(b, leader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    auto spin = scf::WhileOp::create(b, TypeRange{}, ValueRange{});
    b.setInsertionPointToStart(&spin.getBefore().emplaceBlock());
    Value seen = memref::AtomicRMWOp::create(
        b, arith::AtomicRMWKind::addi,
        arith::ConstantIntOp::create(b, b.getI32Type(), 0), counters, index);
    scf::ConditionOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, seen, threshold),
        ValueRange{});
    b.setInsertionPointToStart(&spin.getAfter().emplaceBlock());
    scf::YieldOp::create(b);
    b.setInsertionPointAfter(spin);
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
  }
  gpu::BarrierOp::create(b);
}
