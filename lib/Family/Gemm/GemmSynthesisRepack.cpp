//===- GemmSynthesisRepack.cpp - B copied transposed for wgmma ------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// wgmma reads tf32 operands K-major only, and nvgpu's wgmma takes an M-major
// A only beside an N-major B (repacksOperand). Such an A stored [K, M], or a
// tf32 B stored [K, N], is copied as [M, K] ([N, K]) into a workspace before
// the product's kernel runs:
//
//   block (x, y, z) moves X[z][32 y .. +32][32 x .. +32] (X the operand)
//   warp w reads rows 32 y + w + 8 i of X (32 contiguous elements each)
//   into a shared tile padded by one element per row, then, after a
//   barrier, writes rows 32 x + w + 8 i of the copy (32 contiguous elements
//   each) from the tile's columns: no bank conflicts either way for 32-bit
//   elements.
//
// Rows that break TMA's 16-byte rule (padsRowsForTma): both operands are
// copied K-major with K padded by zeros to Kp (16 bytes); one stored K-major
// already is copied row by row (block (x, y, z) moves rows 32 x .. +32,
// columns 32 y .. +32 of the copy, zeros past K).
//
//===----------------------------------------------------------------------===//

#include "GemmSynthesis.h"
#include "GemmSynthesisBuilder.h"

#include "AMK/Family/KernelBuilding.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::amk;

gpu::GPUFuncOp mlir::amk::synthesizeGemmRepackKernel(gpu::GPUModuleOp module,
                                                     KernelOp kernel, bool isA,
                                                     StringRef name) {
  auto matmul = cast<MatmulOp>(kernel.getProblem().getOperation());
  GemmProblem problem = GemmProblem::get(matmul);
  unsigned operand = isA ? 0 : 1;
  SmallVector<Type> argTypes = {
      getKernelOperandType(
          problem, operand,
          cast<MemRefType>(matmul.getKernelOperands()[operand].getType())),
      getRepackedType(problem, isA)};
  gpu::GPUFuncOp func = createKernelFunc(module, kernel.getLoc(), name,
                                         argTypes, kRepackThreads);
  ImplicitLocOpBuilder b(kernel.getLoc(), func.getContext());
  b.setInsertionPointToStart(&func.getBody().front());
  gemm::IndexMath m{b};
  Value source = func.getArgument(0), packed = func.getArgument(1);
  if (problem.batched) {
    Value batch = gpu::BlockIdOp::create(b, gpu::Dimension::z);
    source = selectBatch(b, source, batch);
    packed = selectBatch(b, packed, batch);
  }
  auto dim = [&](Value memref, int64_t d) -> Value {
    auto type = cast<MemRefType>(memref.getType());
    return type.isDynamicDim(d) ? Value(memref::DimOp::create(b, memref, d))
                                : m.c(type.getDimSize(d));
  };
  // The operand's rows are K and its columns M or N (a transposed copy), or
  // the other way round (a copy that only pads K); the copy's rows are M or
  // N. Each guard takes the smaller of the operand's size and the copy's
  // (equal in every launch, but a dynamic size of the operand and the
  // copy's, sized from C, are two values to the bounds proof).
  bool transpose = isA ? problem.transposeA : !problem.transposeB;
  unsigned kDim = transpose ? 0 : 1;
  Value sizeK = m.min(dim(source, kDim), dim(packed, 1));
  Value sizeN = m.min(dim(source, 1 - kDim), dim(packed, 0));
  // The copy's K: padded with zeros past K where the rows break TMA's rule.
  bool pads = padsRowsForTma(problem);
  Value sizeKp = pads ? dim(packed, 1) : sizeK;

  constexpr int64_t tile = kRepackTile, rowsPerPass = kRepackThreads / 32;
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value lane = m.rem(tid, 32), warp = m.div(tid, 32);
  Value n0 = m.mul(gpu::BlockIdOp::create(b, gpu::Dimension::x), tile);
  Value k0 = m.mul(gpu::BlockIdOp::create(b, gpu::Dimension::y), tile);
  Value zero = pads ? Value(arith::ConstantOp::create(
                          b, problem.inType, b.getZeroAttr(problem.inType)))
                    : Value();
  // Element k of a row: the source's where k < K, else zero (where the
  // copy pads K; else every k the guards let through is below K).
  auto valueAt = [&](Value k, function_ref<Value()> load) -> Value {
    if (!pads)
      return load();
    auto ifOp = scf::IfOp::create(b, TypeRange{problem.inType}, m.lt(k, sizeK),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, load());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, zero);
    return ifOp.getResult(0);
  };
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                         workgroup));
  Value staged = memref::ViewOp::create(
      b,
      MemRefType::get({tile, tile + 1}, problem.inType, AffineMap(), workgroup),
      smem, m.c(0), ValueRange{});

  // Each element under its bounds' guard: edge tiles of any size.
  auto guarded = [&](Value row, Value rows, Value col, Value cols,
                     function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(
        b, m.andi(m.lt(row, rows), m.lt(col, cols)), /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  };
  if (!transpose) {
    for (int64_t i = 0; i < tile; i += rowsPerPass) {
      Value n = m.add(n0, m.add(warp, i)), k = m.add(k0, lane);
      guarded(n, sizeN, k, sizeKp, [&] {
        Value v = valueAt(k, [&] {
          return memref::LoadOp::create(b, source, ValueRange{n, k});
        });
        memref::StoreOp::create(b, v, packed, ValueRange{n, k});
      });
    }
    gpu::ReturnOp::create(b);
    return func;
  }
  for (int64_t i = 0; i < tile; i += rowsPerPass) {
    Value row = m.add(warp, i);
    Value k = m.add(k0, row), n = m.add(n0, lane);
    guarded(k, sizeK, n, sizeN, [&] {
      Value v = memref::LoadOp::create(b, source, ValueRange{k, n});
      memref::StoreOp::create(b, v, staged, ValueRange{row, lane});
    });
  }
  gpu::BarrierOp::create(b);
  for (int64_t i = 0; i < tile; i += rowsPerPass) {
    Value col = m.add(warp, i);
    Value n = m.add(n0, col), k = m.add(k0, lane);
    guarded(n, sizeN, k, sizeKp, [&] {
      Value v = valueAt(k, [&] {
        return memref::LoadOp::create(b, staged, ValueRange{lane, col});
      });
      memref::StoreOp::create(b, v, packed, ValueRange{n, k});
    });
  }
  gpu::ReturnOp::create(b);
  return func;
}
