//===- Address.cpp - Where a memory access's bytes lie --------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/Address.h"

#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::amk;

//===----------------------------------------------------------------------===//
// Polynomials
//===----------------------------------------------------------------------===//

bool AddressFactor::operator<(const AddressFactor &o) const {
  if (kind != o.kind)
    return kind < o.kind;
  if (value != o.value)
    return value.getAsOpaquePointer() < o.value.getAsOpaquePointer();
  return dim < o.dim;
}

/// "argument 2", or how findings name the op that defines `v`.
static std::string describeValue(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto func = dyn_cast_or_null<gpu::GPUFuncOp>(parent)) {
      unsigned n = arg.getArgNumber();
      if (n < func.getNumArguments())
        return llvm::formatv("argument {0}", n).str();
      return llvm::formatv("attribution {0}", n - func.getNumArguments()).str();
    }
    if (auto loop = dyn_cast_or_null<scf::ForOp>(parent);
        loop && arg == loop.getInductionVar())
      return "the induction variable of " + describeOp(loop);
    return "an argument of " +
           (parent ? describeOp(parent) : std::string("a block"));
  }
  return describeOp(v.getDefiningOp());
}

std::string AddressFactor::str() const {
  switch (kind) {
  case Kind::Value:
    return describeValue(value);
  case Kind::Size:
    return llvm::formatv("the dynamic size of dimension {0} of {1}", dim,
                         describeValue(value))
        .str();
  case Kind::Stride:
    return llvm::formatv("the dynamic stride of dimension {0} of {1}", dim,
                         describeValue(value))
        .str();
  case Kind::Offset:
    return "the dynamic offset of " + describeValue(value);
  }
  return "";
}

/// Sorts each term's factors, merges equal terms and drops zero ones.
static AddressPoly normalize(AddressPoly p) {
  if (!p.valid)
    return p;
  for (AddressTerm &t : p.terms)
    llvm::sort(t.factors);
  llvm::sort(p.terms, [](const AddressTerm &a, const AddressTerm &b) {
    return std::lexicographical_compare(a.factors.begin(), a.factors.end(),
                                        b.factors.begin(), b.factors.end());
  });
  AddressPoly out;
  for (AddressTerm &t : p.terms) {
    if (!out.terms.empty() && out.terms.back().factors == t.factors) {
      if (llvm::AddOverflow(out.terms.back().coefficient, t.coefficient,
                            out.terms.back().coefficient))
        out.valid = false;
      continue;
    }
    out.terms.push_back(std::move(t));
  }
  llvm::erase_if(out.terms,
                 [](const AddressTerm &t) { return t.coefficient == 0; });
  return out;
}

AddressPoly AddressPoly::constant(int64_t c) {
  AddressPoly p;
  if (c != 0)
    p.terms.push_back(AddressTerm{c, {}});
  return p;
}

AddressPoly AddressPoly::of(AddressFactor f) {
  AddressPoly p;
  p.terms.push_back(AddressTerm{1, {f}});
  return p;
}

AddressPoly AddressPoly::of(OpFoldResult r) {
  if (auto attr = dyn_cast<Attribute>(r))
    return constant(cast<IntegerAttr>(attr).getInt());
  Value v = cast<Value>(r);
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return constant(c.getSExtValue());
  return of(AddressFactor::of(v));
}

AddressPoly AddressPoly::operator+(const AddressPoly &o) const {
  AddressPoly r = *this;
  r.valid &= o.valid;
  r.terms.append(o.terms.begin(), o.terms.end());
  return normalize(std::move(r));
}

AddressPoly AddressPoly::operator*(const AddressPoly &o) const {
  AddressPoly r;
  r.valid = valid && o.valid;
  for (const AddressTerm &a : terms)
    for (const AddressTerm &b : o.terms) {
      AddressTerm t;
      if (llvm::MulOverflow(a.coefficient, b.coefficient, t.coefficient))
        r.valid = false;
      t.factors.append(a.factors.begin(), a.factors.end());
      t.factors.append(b.factors.begin(), b.factors.end());
      r.terms.push_back(std::move(t));
    }
  return normalize(std::move(r));
}

AddressPoly AddressPoly::operator*(int64_t c) const {
  return *this * constant(c);
}

std::optional<int64_t> AddressPoly::asConstant() const {
  if (!valid)
    return std::nullopt;
  if (terms.empty())
    return 0;
  if (terms.size() == 1 && terms[0].factors.empty())
    return terms[0].coefficient;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Memory spaces and sizes
//===----------------------------------------------------------------------===//

bool mlir::amk::isWorkgroupMemRef(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  if (!memref)
    return false;
  Attribute space = memref.getMemorySpace();
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Workgroup;
  if (auto intSpace = dyn_cast_or_null<IntegerAttr>(space))
    return intSpace.getInt() == 3;
  return false;
}

bool mlir::amk::isGlobalMemRef(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  if (!memref)
    return false;
  Attribute space = memref.getMemorySpace();
  if (!space)
    return true;
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Global;
  if (auto intSpace = dyn_cast<IntegerAttr>(space))
    return intSpace.getInt() == 0 || intSpace.getInt() == 1;
  return false;
}

int64_t mlir::amk::naturalAlignment(int64_t bytes) {
  if (bytes <= 0)
    return 1;
  return std::min<int64_t>(int64_t(1) << llvm::countr_zero(uint64_t(bytes)),
                           16);
}

int64_t mlir::amk::elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  // (An integer narrower than a byte, a bool say, takes a byte in memory:
  // LLVM's allocation size, by which the lowering steps through memrefs.)
  if (type.isInteger() && type.getIntOrFloatBitWidth() < 8)
    return 1;
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth() % 8 ? 0
                                            : type.getIntOrFloatBitWidth() / 8;
  if (auto vec = dyn_cast<VectorType>(type); vec && vec.hasStaticShape()) {
    std::optional<int64_t> bytes = elementBytes(vec.getElementType());
    for (int64_t extent : vec.getShape())
      if (bytes)
        bytes = llvm::checkedMul(*bytes, extent);
    return bytes.value_or(0);
  }
  return 0;
}

std::optional<int64_t> mlir::amk::getStaticSizeInBytes(MemRefType type) {
  int64_t elem = elementBytes(type.getElementType());
  if (!type.hasStaticShape() || !elem)
    return std::nullopt;
  std::optional<int64_t> bytes = elem;
  for (int64_t extent : type.getShape())
    if (bytes)
      bytes = llvm::checkedMul(*bytes, extent);
  return bytes;
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

/// Sizes, strides and offset of `type` for a memref rooted at `root`:
/// static ones as constants, dynamic ones as the root's layout factors (an
/// identity layout's strides are products of its sizes).
static LogicalResult layoutFromType(MemRefType type, Value root,
                                    ArrayRef<AddressPoly> dynamicSizes,
                                    MemRefLayout &l, std::string &whyNot) {
  l.sizes.clear();
  unsigned nextDynamic = 0;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
    if (!type.isDynamicDim(d))
      l.sizes.push_back(AddressPoly::constant(type.getDimSize(d)));
    else if (nextDynamic < dynamicSizes.size())
      l.sizes.push_back(dynamicSizes[nextDynamic++]);
    else
      l.sizes.push_back(AddressPoly::of(
          AddressFactor::layout(AddressFactor::Kind::Size, root, d)));
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset))) {
    whyNot = llvm::formatv("the layout of {0} is not strided", type).str();
    return failure();
  }
  bool identity = type.getLayout().isIdentity();
  l.strides.assign(type.getRank(), AddressPoly());
  AddressPoly suffix = AddressPoly::constant(1);
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    if (!ShapedType::isDynamic(strides[d]))
      l.strides[d] = AddressPoly::constant(strides[d]);
    else if (identity)
      l.strides[d] = suffix;
    else
      l.strides[d] = AddressPoly::of(
          AddressFactor::layout(AddressFactor::Kind::Stride, root, d));
    suffix = suffix * l.sizes[d];
  }
  l.offset = ShapedType::isDynamic(offset)
                 ? AddressPoly::of(AddressFactor::layout(
                       AddressFactor::Kind::Offset, root, 0))
                 : AddressPoly::constant(offset);
  return success();
}

/// The `llvm.align` of an attribution, or 0.
static int64_t attributionAlign(Attribute attr) {
  if (auto align = dyn_cast_or_null<IntegerAttr>(attr))
    return align.getInt() > 0 ? align.getInt() : 0;
  return 0;
}

FailureOr<const MemRefLayout *> AddressModel::layout(Value memref,
                                                     std::string &whyNot) {
  if (auto it = layouts.find(memref); it != layouts.end())
    return it->second.get();
  if (auto it = failures.find(memref); it != failures.end()) {
    whyNot = it->second;
    return failure();
  }
  FailureOr<MemRefLayout> l = compute(memref, whyNot);
  if (failed(l)) {
    failures[memref] = whyNot;
    return failure();
  }
  auto owned = std::make_unique<MemRefLayout>(std::move(*l));
  const MemRefLayout *result = owned.get();
  layouts[memref] = std::move(owned);
  return result;
}

/// A view keeps its source's allocation and what is known of its alignment.
static void inheritRoot(MemRefLayout &view, const MemRefLayout &source) {
  view.root = source.root;
  view.rootAlign = source.rootAlign;
  view.rootWhy = source.rootWhy;
}

/// The layout of a kernel argument: a buffer, or a workgroup or private
/// attribution.
static FailureOr<MemRefLayout> argumentLayout(Value memref, MemRefType type,
                                              MemRefLayout l, int64_t natural,
                                              std::string &whyNot) {
  auto arg = cast<BlockArgument>(memref);
  auto func = dyn_cast_or_null<gpu::GPUFuncOp>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getBody().front()) {
    whyNot = "a memref block argument that is not the kernel's";
    return failure();
  }
  l.root = memref;
  l.shift = AddressPoly();
  if (failed(layoutFromType(type, memref, {}, l, whyNot)))
    return failure();
  StringRef alignName = LLVM::LLVMDialect::getAlignAttrName();
  auto workgroup = func.getWorkgroupAttributions();
  auto priv = func.getPrivateAttributions();
  if (auto it = llvm::find(workgroup, arg); it != workgroup.end()) {
    int64_t align = attributionAlign(
        func.getWorkgroupAttributionAttr(it - workgroup.begin(), alignName));
    l.rootAlign = std::max(align, natural);
    l.rootWhy = align ? llvm::formatv("a workgroup attribution with {0} = "
                                      "{1}",
                                      alignName, align)
                            .str()
                      : llvm::formatv("a workgroup attribution without {0}, "
                                      "aligned to its element ({1} B) only",
                                      alignName, natural)
                            .str();
  } else if (auto it = llvm::find(priv, arg); it != priv.end()) {
    int64_t align = attributionAlign(
        func.getPrivateAttributionAttr(it - priv.begin(), alignName));
    l.rootAlign = std::max(align, natural);
    l.rootWhy = "a private attribution";
  } else if (isGlobalMemRef(type)) {
    // cudaMalloc (and every CUDA allocator) returns 256-byte aligned
    // memory; the descriptor's offset is accounted for separately.
    l.rootAlign = 256;
    l.rootWhy = "a kernel argument (its allocation assumed 256-byte "
                "aligned, as cudaMalloc guarantees)";
  } else {
    l.rootAlign = natural;
    l.rootWhy = llvm::formatv("a kernel argument outside global memory, "
                              "aligned to its element ({0} B) only",
                              natural)
                    .str();
  }
  return l;
}

/// The layout of an allocation: dynamic shared memory, an alloc or alloca,
/// a global.
static FailureOr<MemRefLayout> allocationLayout(Operation *def, Value memref,
                                                MemRefType type, MemRefLayout l,
                                                int64_t natural,
                                                std::string &whyNot) {
  if (auto smem = dyn_cast<gpu::DynamicSharedMemoryOp>(def)) {
    l.root = memref;
    if (failed(layoutFromType(type, memref, {}, l, whyNot)))
      return failure();
    // The GPU-to-NVVM lowering declares the dynamic shared memory array
    // 16-byte aligned; `--amk-lower` raises that to what a generated kernel
    // declares it needs.
    l.rootAlign = 16;
    l.rootWhy = "dynamic shared memory (16-byte aligned)";
    if (auto func = smem->getParentOfType<gpu::GPUFuncOp>())
      if (auto align =
              func->getAttrOfType<IntegerAttr>(kDynamicSmemAlignAttrName);
          align && align.getInt() > 16 && llvm::isPowerOf2_64(align.getInt())) {
        l.rootAlign = align.getInt();
        l.rootWhy = llvm::formatv("dynamic shared memory ({0}-byte aligned by "
                                  "the kernel's {1})",
                                  l.rootAlign, kDynamicSmemAlignAttrName)
                        .str();
      }
    return l;
  }
  if (isa<memref::AllocOp, memref::AllocaOp>(def)) {
    std::optional<uint64_t> align;
    SmallVector<AddressPoly, 4> dynamicSizes;
    if (auto alloc = dyn_cast<memref::AllocOp>(def)) {
      align = alloc.getAlignment();
      for (Value v : alloc.getDynamicSizes())
        dynamicSizes.push_back(AddressPoly::of(AddressFactor::of(v)));
    } else {
      auto alloca = cast<memref::AllocaOp>(def);
      align = alloca.getAlignment();
      for (Value v : alloca.getDynamicSizes())
        dynamicSizes.push_back(AddressPoly::of(AddressFactor::of(v)));
    }
    l.root = memref;
    if (failed(layoutFromType(type, memref, dynamicSizes, l, whyNot)))
      return failure();
    l.rootAlign = std::max<int64_t>(align.value_or(0), natural);
    l.rootWhy =
        align ? llvm::formatv("an allocation with alignment {0}", *align).str()
              : "an allocation without alignment, aligned to its "
                "element only";
    return l;
  }
  if (auto get = dyn_cast<memref::GetGlobalOp>(def)) {
    l.root = memref;
    if (failed(layoutFromType(type, memref, {}, l, whyNot)))
      return failure();
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        def, get.getNameAttr());
    std::optional<uint64_t> align =
        global ? global.getAlignment() : std::nullopt;
    l.rootAlign = std::max<int64_t>(align.value_or(0), natural);
    l.rootWhy = align
                    ? llvm::formatv("a global with alignment {0}", *align).str()
                    : "a global without alignment, aligned to its element "
                      "only";
    return l;
  }
  llvm_unreachable("not an allocation");
}

/// The layout of a view of the memref it is made from: view, subview,
/// reinterpret_cast, cast, assume_alignment, or the base buffer of strided
/// metadata.
static FailureOr<MemRefLayout> viewLayout(AddressModel &model, Operation *def,
                                          Value memref, MemRefType type,
                                          MemRefLayout l, std::string &whyNot) {
  auto source = [&](Value v) -> FailureOr<const MemRefLayout *> {
    return model.layout(v, whyNot);
  };
  if (auto view = dyn_cast<memref::ViewOp>(def)) {
    FailureOr<const MemRefLayout *> src = source(view.getSource());
    if (failed(src))
      return failure();
    inheritRoot(l, **src);
    // The view starts at the source's first byte plus the shift, with an
    // identity layout.
    l.shift = (*src)->shift + (*src)->offset * (*src)->elemBytes +
              AddressPoly::of(OpFoldResult(view.getByteShift()));
    SmallVector<AddressPoly, 4> dynamicSizes;
    for (Value v : view.getSizes())
      dynamicSizes.push_back(AddressPoly::of(OpFoldResult(v)));
    if (failed(layoutFromType(type, memref, dynamicSizes, l, whyNot)))
      return failure();
    l.offset = AddressPoly();
    return l;
  }
  if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
    FailureOr<const MemRefLayout *> src = source(subview.getSource());
    if (failed(src))
      return failure();
    const MemRefLayout &s = **src;
    inheritRoot(l, s);
    l.shift = s.shift;
    l.offset = s.offset;
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    SmallVector<OpFoldResult> offsets = subview.getMixedOffsets(),
                              sizes = subview.getMixedSizes(),
                              steps = subview.getMixedStrides();
    if (offsets.size() != s.strides.size()) {
      whyNot = "a subview whose rank differs from its source's";
      return failure();
    }
    for (unsigned d = 0; d < offsets.size(); ++d) {
      l.offset = l.offset + AddressPoly::of(offsets[d]) * s.strides[d];
      if (dropped.test(d))
        continue;
      l.strides.push_back(s.strides[d] * AddressPoly::of(steps[d]));
      l.sizes.push_back(AddressPoly::of(sizes[d]));
    }
    return l;
  }
  if (auto cast = dyn_cast<memref::ReinterpretCastOp>(def)) {
    FailureOr<const MemRefLayout *> src = source(cast.getSource());
    if (failed(src))
      return failure();
    // Same base pointer as the source; its offset is replaced.
    inheritRoot(l, **src);
    l.shift = (*src)->shift;
    l.offset = AddressPoly::of(cast.getMixedOffsets()[0]);
    for (OpFoldResult s : cast.getMixedSizes())
      l.sizes.push_back(AddressPoly::of(s));
    for (OpFoldResult s : cast.getMixedStrides())
      l.strides.push_back(AddressPoly::of(s));
    return l;
  }
  if (auto cast = dyn_cast<memref::CastOp>(def)) {
    FailureOr<const MemRefLayout *> src = source(cast.getSource());
    if (failed(src))
      return failure();
    return **src;
  }
  if (auto assume = dyn_cast<memref::AssumeAlignmentOp>(def)) {
    FailureOr<const MemRefLayout *> src = source(assume.getMemref());
    if (failed(src))
      return failure();
    MemRefLayout l = **src;
    // A fact about the buffer's first element. Taken only where that is the
    // root's own pointer (no view shift, offset 0), where the op's two
    // readings (aligned base pointer, or pointer to element 0) agree.
    int64_t align = int64_t(1) << llvm::countr_zero(assume.getAlignment());
    if (l.shift.asConstant() == 0 && l.offset.asConstant() == 0 &&
        align > l.rootAlign) {
      l.rootAlign = align;
      l.rootWhy =
          llvm::formatv("memref.assume_alignment {0} on {1}", align, l.rootWhy)
              .str();
    }
    return l;
  }
  if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(def)) {
    // The base buffer: rank 0, the source's pointer, offset 0.
    FailureOr<const MemRefLayout *> src = source(meta.getSource());
    if (failed(src))
      return failure();
    inheritRoot(l, **src);
    l.shift = (*src)->shift;
    l.offset = AddressPoly();
    return l;
  }
  whyNot = "a memref made by " + describeOp(def) +
           ", a view the address model does not know";
  return failure();
}

FailureOr<MemRefLayout> AddressModel::compute(Value memref,
                                              std::string &whyNot) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type) {
    whyNot = "an unranked memref";
    return failure();
  }
  MemRefLayout l;
  l.elemBytes = elementBytes(type.getElementType());
  l.workgroup = isWorkgroupMemRef(type);
  if (!l.elemBytes) {
    whyNot = llvm::formatv("elements of {0} have no byte size",
                           type.getElementType())
                 .str();
    return failure();
  }
  int64_t natural = naturalAlignment(l.elemBytes);
  Operation *def = memref.getDefiningOp();
  if (!def)
    return argumentLayout(memref, type, l, natural, whyNot);
  if (isa<gpu::DynamicSharedMemoryOp, memref::AllocOp, memref::AllocaOp,
          memref::GetGlobalOp>(def))
    return allocationLayout(def, memref, type, l, natural, whyNot);
  return viewLayout(*this, def, memref, type, l, whyNot);
}

FailureOr<AccessAddress> AddressModel::address(Value memref, ValueRange indices,
                                               std::string &whyNot) {
  FailureOr<const MemRefLayout *> l = layout(memref, whyNot);
  if (failed(l))
    return failure();
  // No indices: the view's base (a whole-view access such as a TMA box).
  if (!indices.empty() && indices.size() != (*l)->strides.size()) {
    whyNot = "an access whose index count differs from its memref's rank";
    return failure();
  }
  AddressPoly elements = (*l)->offset;
  for (auto [index, stride] : llvm::zip(indices, (*l)->strides))
    elements = elements + AddressPoly::of(OpFoldResult(index)) * stride;
  AccessAddress a{*l, (*l)->shift + elements * (*l)->elemBytes};
  if (!a.bytes.valid) {
    whyNot = "its address overflows 64 bits";
    return failure();
  }
  return a;
}

std::optional<AddressPoly> AddressModel::metadata(Value v) {
  std::string whyNot;
  if (auto dim = v.getDefiningOp<memref::DimOp>()) {
    std::optional<int64_t> index = dim.getConstantIndex();
    FailureOr<const MemRefLayout *> l = layout(dim.getSource(), whyNot);
    if (!index || failed(l) || *index < 0 ||
        *index >= int64_t((*l)->sizes.size()))
      return std::nullopt;
    return (*l)->sizes[*index];
  }
  if (auto meta = v.getDefiningOp<memref::ExtractStridedMetadataOp>()) {
    FailureOr<const MemRefLayout *> l = layout(meta.getSource(), whyNot);
    if (failed(l))
      return std::nullopt;
    if (v == meta.getOffset())
      return (*l)->offset;
    for (auto [i, size] : llvm::enumerate(meta.getSizes()))
      if (size == v && i < (*l)->sizes.size())
        return (*l)->sizes[i];
    for (auto [i, stride] : llvm::enumerate(meta.getStrides()))
      if (stride == v && i < (*l)->strides.size())
        return (*l)->strides[i];
  }
  return std::nullopt;
}
