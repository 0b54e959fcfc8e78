//===- LowerLaunch.cpp - The host-side launch of a lowered kernel ---------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// What replaces an amk.kernel on the host side: its operands cast to the
// types the kernels take (sizes checked where a cast fixes them), then per
// dispatch entry what it zeroes, its workspace and its kernels'
// gpu.launch_func, the entry chosen by the dynamic size it dispatches on.
//
//===----------------------------------------------------------------------===//

#include "Lower.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;

/// The operands as the kernels take them: sizes that one operand's type
/// leaves dynamic and another's fixes are checked, then cast to.
static SmallVector<Value> castOperands(OpBuilder &b, Location loc,
                                       ProblemOpInterface problem,
                                       ArrayRef<LaunchArg> kernelArgs) {
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<Value> args;
  for (auto [operand, arg] :
       llvm::zip_equal(problem.getKernelOperands(), kernelArgs)) {
    auto type = cast<MemRefType>(operand.getType());
    if (arg.kernelType != type) {
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d) || arg.kernelType.isDynamicDim(d))
          continue;
        Value agrees =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                  memref::DimOp::create(b, loc, operand, d),
                                  idx(arg.kernelType.getDimSize(d)));
        cf::AssertOp::create(b, loc, agrees,
                             llvm::formatv("{0}: size {1} of {2} must be {3}",
                                           problem->getName(), d, arg.name,
                                           arg.kernelType.getDimSize(d))
                                 .str());
      }
      operand = memref::CastOp::create(b, loc, arg.kernelType, operand);
    }
    args.push_back(operand);
  }
  return args;
}

/// The value of size `name` for a launch on `args`: its static value, or the
/// dimension of the argument holding it as the kernel takes it.
static OpFoldResult getSymbolValue(OpBuilder &b, Location loc,
                                   const KernelLaunch &launch,
                                   ArrayRef<Value> args, StringRef name) {
  const SizeSymbol *symbol = launch.findSymbol(name);
  assert(symbol && "names a symbol the family does not declare");
  if (!symbol->arg)
    return b.getIndexAttr(symbol->value);
  Value arg = args[*symbol->arg];
  int64_t size = cast<MemRefType>(arg.getType()).getDimSize(symbol->dim);
  if (!ShapedType::isDynamic(size))
    return b.getIndexAttr(size);
  return memref::DimOp::create(b, loc, arg, symbol->dim).getResult();
}

/// The tensor map `map` of `buffer`, encoded on the host by upstream's
/// runtime wrappers (nvgpu.tma.create.descriptor), as the pointer the
/// kernel takes.
static Value createTensorMap(OpBuilder &b, Location loc,
                             const TensorMapParam &map, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto unranked =
      UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace());
  Value source = memref::CastOp::create(b, loc, unranked, buffer);
  // The box outermost first, as the descriptor's shared-memory tile.
  SmallVector<int64_t> shape(llvm::reverse(map.box));
  SmallVector<Value> box;
  for (int64_t extent : shape)
    box.push_back(arith::ConstantIndexOp::create(b, loc, extent));
  auto swizzle =
      map.swizzleBytes == 128  ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
      : map.swizzleBytes == 64 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_64B
      : map.swizzleBytes == 32 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_32B
                               : nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE;
  auto tile = MemRefType::get(
      shape, type.getElementType(), AffineMap(),
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup));
  auto descriptorType = nvgpu::TensorMapDescriptorType::get(
      b.getContext(), tile, swizzle, nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  Value descriptor =
      nvgpu::TmaCreateDescriptorOp::create(b, loc, descriptorType, source, box);
  return UnrealizedConversionCastOp::create(
             b, loc, LLVM::LLVMPointerType::get(b.getContext()), descriptor)
      .getResult(0);
}

/// One entry's launch: what it zeroes, its workspace, then its kernels in
/// order, each on its grid; the workspace is freed after the last.
static void emitEntryLaunch(OpBuilder &b, Location loc, StringRef module,
                            const BundleEntry &entry, ArrayRef<Value> args) {
  const KernelLaunch &launch = entry.launch;
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto symbolValue = [&](StringRef name) {
    return getSymbolValue(b, loc, launch, args, name);
  };
  SmallVector<Value> buffers(args);
  for (const WorkspaceBuffer &w : launch.workspace) {
    SmallVector<Value> dynamicSizes;
    for (auto [d, extent] : llvm::enumerate(w.shape))
      if (w.kernelType.isDynamicDim(d))
        dynamicSizes.push_back(extent.materialize(b, loc, symbolValue));
    buffers.push_back(gpu::AllocOp::create(b, loc, w.kernelType, Type(),
                                           ValueRange{}, dynamicSizes,
                                           ValueRange{}, /*hostShared=*/false)
                          .getMemref());
  }
  // Arguments and workspace buffers (counters) the kernels expect zeroed;
  // here the workspace is allocated anew, so also what the launches keep
  // zeroed.
  SmallVector<std::string> zeroed(launch.zeroed);
  for (const WorkspaceBuffer &w : launch.workspace)
    if (w.keptZero)
      zeroed.push_back(w.name);
  for (const std::string &name : zeroed) {
    std::optional<unsigned> index = launch.findBuffer(name);
    assert(index && *index < buffers.size() && "zeroes no buffer it has");
    Value buffer = buffers[*index];
    Type elem = cast<MemRefType>(buffer.getType()).getElementType();
    gpu::MemsetOp::create(b, loc, TypeRange{}, ValueRange{}, buffer,
                          arith::ConstantOp::create(
                              b, loc, cast<TypedAttr>(b.getZeroAttr(elem))));
  }
  for (const LaunchKernel &kernel : launch.kernels) {
    std::array<Value, 3> grid;
    for (int i = 0; i < 3; ++i)
      grid[i] = kernel.grid[i].materialize(b, loc, symbolValue);
    SmallVector<Value> params;
    for (const std::string &name : kernel.params) {
      if (const TensorMapParam *map = kernel.findTensorMap(name)) {
        std::optional<unsigned> buffer = launch.findBuffer(map->buffer);
        assert(buffer && "a tensor map describes no buffer of the launch");
        params.push_back(createTensorMap(b, loc, *map, buffers[*buffer]));
        continue;
      }
      std::optional<unsigned> buffer = launch.findBuffer(name);
      assert(buffer && "a parameter names no buffer of the launch");
      params.push_back(buffers[*buffer]);
    }
    Value smem = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                              kernel.dynamicSmemBytes);
    auto symbol = SymbolRefAttr::get(
        b.getContext(), module,
        {FlatSymbolRefAttr::get(b.getContext(), entry.entry + kernel.suffix)});
    gpu::LaunchFuncOp::create(
        b, loc, symbol, gpu::KernelDim3{grid[0], grid[1], grid[2]},
        gpu::KernelDim3{idx(kernel.block[0]), idx(kernel.block[1]),
                        idx(kernel.block[2])},
        smem, params);
  }
  for (Value workspace : ArrayRef(buffers).drop_front(args.size()))
    gpu::DeallocOp::create(b, loc, TypeRange{}, ValueRange{}, workspace);
}

void mlir::amk::lower::emitKernelLaunch(KernelOp kernel,
                                        const BundleKernel &k) {
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  SmallVector<Value> args =
      castOperands(b, loc, kernel.getProblem(), k.entries.back().launch.args);
  for (const BundleEntry &entry : k.entries) {
    if (!entry.bucket) {
      emitEntryLaunch(b, loc, k.name, entry, args);
      break;
    }
    auto compare = [&](StringRef symbol, arith::CmpIPredicate predicate,
                       int64_t bound) -> Value {
      OpFoldResult size = getSymbolValue(b, loc, entry.launch, args, symbol);
      return arith::CmpIOp::create(
          b, loc, predicate, getValueOrCreateConstantIndexOp(b, loc, size),
          arith::ConstantIndexOp::create(b, loc, bound));
    };
    Value fits = compare(entry.bucket->symbol, arith::CmpIPredicate::ule,
                         entry.bucket->upTo);
    if (!entry.bucket->aboveSymbol.empty())
      fits = arith::AndIOp::create(b, loc, fits,
                                   compare(entry.bucket->aboveSymbol,
                                           arith::CmpIPredicate::ugt,
                                           entry.bucket->above));
    auto ifOp = scf::IfOp::create(b, loc, fits, /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifOp.thenBlock());
    emitEntryLaunch(b, loc, k.name, entry, args);
    b.setInsertionPointToStart(ifOp.elseBlock());
  }
  kernel.erase();
}
