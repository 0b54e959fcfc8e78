//===- Bounds.cpp - Every memory access stays inside its buffer -----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// For every access (memref and vector loads and stores, nvgpu async copies
// and ldmatrix) and every dimension, prove 0 <= index and index + width <=
// extent, for all sizes:
//
//  1. ranges: upstream IntegerRangeAnalysis (thread ids bounded by
//     `known_block_size`, loop induction variables by their bounds) gives
//     index <= umax; enough against a static extent;
//  2. guards: an enclosing `scf.if` (or the condition of a `select` that
//     picks the index) asserting `index < extent`, where both sides are
//     compared symbolically: `memref.dim`, subview and reinterpret_cast sizes
//     are traced to the size they stand for, so a guard on `dim(%A, 1)`
//     covers an access of `%A` (or of a batch subview of it) for any `?`;
//  3. widths: a vector of w elements at a multiple of w under `index < E`,
//     with E a multiple of w; or at `x + c` under `x + c' < E` with c + w - 1
//     <= c'.
//
// Anything else is a finding: AMK-OOB when a range shows the index can
// leave the buffer, AMK-UNPROVABLE when the access itself is not modelled.
//
//===----------------------------------------------------------------------===//

#include "Bounds.h"

#include "BoundsProver.h"
#include "BoundsRelational.h"

#include "AMK/Analysis/Address.h"
#include "AMK/Harness/Harness.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::bounds;

//===----------------------------------------------------------------------===//
// Flat views of a matrix
//===----------------------------------------------------------------------===//

namespace {

/// An integer polynomial of degree <= 2 in named symbols: monomial (its
/// symbols, sorted) -> coefficient.
struct Polynomial {
  std::map<std::string, int64_t> terms;

  static Polynomial constant(int64_t c) {
    Polynomial p;
    if (c)
      p.terms[""] = c;
    return p;
  }
  static Polynomial symbol(char name) {
    Polynomial p;
    p.terms[std::string(1, name)] = 1;
    return p;
  }
  Polynomial operator+(const Polynomial &o) const {
    Polynomial r = *this;
    for (auto &[mono, c] : o.terms)
      if ((r.terms[mono] += c) == 0)
        r.terms.erase(mono);
    return r;
  }
  Polynomial operator*(const Polynomial &o) const {
    Polynomial r;
    for (auto &[a, ca] : terms)
      for (auto &[b, cb] : o.terms) {
        std::string mono = a + b;
        llvm::sort(mono);
        if ((r.terms[mono] += ca * cb) == 0)
          r.terms.erase(mono);
      }
    return r;
  }
  bool operator==(const Polynomial &o) const { return terms == o.terms; }
};

/// `v` as a polynomial of `symbol`'s leaves (constants, +, -, *), or nullopt
/// when a leaf has no symbol or the degree passes 2.
static std::optional<Polynomial>
toPolynomial(Value v, llvm::function_ref<std::optional<char>(Value)> symbol,
             int depth = 0) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return Polynomial::constant(c.getSExtValue());
  if (depth > 8)
    return std::nullopt;
  Operation *op = v.getDefiningOp();
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op)) {
    auto lhs = toPolynomial(op->getOperand(0), symbol, depth + 1);
    auto rhs = toPolynomial(op->getOperand(1), symbol, depth + 1);
    if (!lhs || !rhs)
      return std::nullopt;
    if (isa<arith::AddIOp>(op))
      return *lhs + *rhs;
    if (isa<arith::SubIOp>(op))
      return *lhs + *rhs * Polynomial::constant(-1);
    Polynomial product = *lhs * *rhs;
    for (auto &[mono, coefficient] : product.terms)
      if (mono.size() > 2)
        return std::nullopt;
    return product;
  }
  if (std::optional<char> name = symbol(v))
    return Polynomial::symbol(*name);
  return std::nullopt;
}

/// Whether `view` is a flat 1-D view of exactly the elements a rank-2
/// row-major matrix X spans in its buffer: offset 0, stride 1, size
/// `offset(X) + (size0(X) - 1) * stride0(X) + size1(X)` (X's last element
/// plus one), taken from X's type where static and from
/// `memref.extract_strided_metadata(X)` or `memref.dim` where not. Accesses
/// below that size are then inside X's allocation.
static bool isFlatViewOfMatrix(memref::ReinterpretCastOp view,
                               const BoundsProver &prover) {
  if (view.getType().getRank() != 1 ||
      getConstantIntValue(view.getMixedOffsets()[0]) != 0 ||
      getConstantIntValue(view.getMixedStrides()[0]) != 1)
    return false;
  // The matrix: the source itself, or the one whose base buffer it is.
  // (Either way the view starts at the buffer's base: a reinterpret_cast
  // drops its source's offset.)
  Value matrix = view.getSource();
  auto meta = matrix.getDefiningOp<memref::ExtractStridedMetadataOp>();
  if (meta)
    matrix = meta.getSource();
  // A result of the matrix's strided metadata (folding may have left the
  // view on the matrix itself, away from the metadata that sized it).
  auto metadataOf = [&](Value v) {
    auto op = v.getDefiningOp<memref::ExtractStridedMetadataOp>();
    return op && op.getSource() == matrix ? op : nullptr;
  };
  auto type = dyn_cast<MemRefType>(matrix.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || type.getRank() != 2 ||
      failed(type.getStridesAndOffset(strides, offset)) || strides[1] != 1)
    return false;

  OpFoldResult size = view.getMixedSizes()[0];
  if (type.hasStaticShape() && !ShapedType::isDynamic(offset) &&
      !ShapedType::isDynamic(strides[0]))
    return getConstantIntValue(size) ==
           offset + (type.getDimSize(0) - 1) * strides[0] + type.getDimSize(1);
  auto value = dyn_cast<Value>(size);
  if (!value)
    return false;
  // Compare polynomials in the matrix's symbols (O offset, R rows, C cols,
  // S row stride), so that however folding rearranged the size, it must be
  // O + (R - 1) * S + C.
  SymbolicSize rows = prover.sizeOf(matrix, 0), cols = prover.sizeOf(matrix, 1);
  bool identity = type.getLayout().isIdentity();
  auto symbol = [&](Value leaf) -> std::optional<char> {
    if (auto m = metadataOf(leaf)) {
      if (leaf == m.getOffset())
        return 'O';
      if (leaf == m.getStrides()[0])
        return identity ? 'C' : 'S';
    }
    SymbolicSize s = prover.valueSize(leaf);
    if (s.constant)
      return std::nullopt;
    if (s == rows)
      return 'R';
    if (s == cols)
      return 'C';
    return std::nullopt;
  };
  std::optional<Polynomial> actual = toPolynomial(value, symbol);
  if (!actual)
    return false;
  auto term = [](std::optional<int64_t> c, char name) {
    return c ? Polynomial::constant(*c) : Polynomial::symbol(name);
  };
  std::optional<int64_t> strideConstant;
  if (!ShapedType::isDynamic(strides[0]))
    strideConstant = strides[0];
  Polynomial expected =
      term(ShapedType::isDynamic(offset) ? std::nullopt
                                         : std::optional<int64_t>(offset),
           'O') +
      (term(rows.constant, 'R') + Polynomial::constant(-1)) *
          (identity && !strideConstant ? term(cols.constant, 'C')
                                       : term(strideConstant, 'S')) +
      term(cols.constant, 'C');
  return *actual == expected;
}

} // namespace

//===----------------------------------------------------------------------===//
// Memory accesses
//===----------------------------------------------------------------------===//

std::optional<int64_t>
mlir::amk::getTmaBoxElements(nvgpu::TmaAsyncLoadOp load) {
  MemRefType box = load.getTensorMapDescriptor().getType().getTensor();
  auto dst = cast<MemRefType>(load.getDst().getType());
  if (!box.hasStaticShape() || !dst.hasStaticShape() ||
      box.getElementType() != dst.getElementType() ||
      !memref::isStaticShapeAndContiguousRowMajor(dst))
    return std::nullopt;
  return box.getNumElements();
}

FailureOr<SmallVector<MemoryAccess>>
mlir::amk::getMemoryAccesses(Operation *op) {
  SmallVector<MemoryAccess> out;
  auto add = [&](Value memref, ValueRange indices, int64_t width,
                 StringRef what, bool write, bool async = false,
                 Value cond = {}) {
    out.push_back(MemoryAccess{op, memref, SmallVector<Value>(indices), width,
                               cond, what, write, async});
  };
  // A warp's wmma fragment: rows x cols elements at [.., i, j] (cols x rows
  // transposed), a row every leadDimension elements. Modelled when that is
  // the memref's own row pitch.
  auto addFragment = [&](Value memref, ValueRange indices,
                         gpu::MMAMatrixType matrix, int64_t lead,
                         bool transposed, bool write) -> LogicalResult {
    auto type = cast<MemRefType>(memref.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (type.getRank() < 2 ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1 || strides[strides.size() - 2] != lead)
      return failure();
    ArrayRef<int64_t> shape = matrix.getShape();
    add(memref, indices, transposed ? shape[0] : shape[1],
        write ? "wmma fragment store" : "wmma fragment load", write);
    out.back().rows = transposed ? shape[1] : shape[0];
    out.back().rowStride = lead;
    out.back().warpCollective = true;
    return success();
  };
  if (auto load = dyn_cast<memref::LoadOp>(op))
    add(load.getMemRef(), load.getIndices(), 1, "load", false);
  else if (auto store = dyn_cast<memref::StoreOp>(op))
    add(store.getMemRef(), store.getIndices(), 1, "store", true);
  else if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
    add(rmw.getMemref(), rmw.getIndices(), 1, "atomic read-modify-write", true);
  else if (auto load = dyn_cast<vector::LoadOp>(op)) {
    // An n-D vector spans several rows: not modelled (one width per access).
    if (load.getVectorType().getRank() != 1)
      return failure();
    add(load.getBase(), load.getIndices(),
        load.getVectorType().getShape().back(), "vector load", false);
  } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
    if (store.getVectorType().getRank() != 1)
      return failure();
    add(store.getBase(), store.getIndices(),
        store.getVectorType().getShape().back(), "vector store", true);
  } else if (isa<vector::TransferReadOp, vector::TransferWriteOp>(op)) {
    // A 1-D transfer along the last dimension without a mask operand: in
    // bounds, a vector load or store; out of bounds, the elements past the
    // dimension's end are not accessed (padding is read instead). Other
    // transfers are not modelled (n-D ones are unrolled to 1-D first:
    // Normalize.cpp).
    auto transfer = cast<VectorTransferOpInterface>(op);
    VectorType vector = transfer.getVectorType();
    if (!isa<MemRefType>(transfer.getBase().getType()) ||
        vector.getRank() != 1 || vector.isScalable() || transfer.getMask() ||
        !transfer.getPermutationMap().isMinorIdentity())
      return failure();
    bool write = isa<vector::TransferWriteOp>(op);
    add(transfer.getBase(), transfer.getIndices(), vector.getShape().back(),
        write ? "vector transfer write" : "vector transfer read", write);
    out.back().masked = !transfer.isDimInBounds(0);
  } else if (auto ld = dyn_cast<nvgpu::LdMatrixOp>(op)) {
    // Each lane supplies one 16-byte row address.
    int64_t bytes = elementBytes(
        cast<MemRefType>(ld.getSrcMemref().getType()).getElementType());
    if (!bytes || 16 % bytes)
      return failure();
    add(ld.getSrcMemref(), ld.getIndices(), 16 / bytes, "ldmatrix row", false);
  } else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
    int64_t dstElems = copy.getDstElements().getZExtValue();
    // The destination is written in full (zero-filled past srcElements).
    add(copy.getDst(), copy.getDstIndices(), dstElems, "cp.async destination",
        true, /*async=*/true);
    // The source reads srcElements (when given): `select(c, n, 0)` reads n
    // elements under c and nothing otherwise.
    Value srcElems = copy.getSrcElements();
    APInt n;
    if (!srcElems)
      add(copy.getSrc(), copy.getSrcIndices(), dstElems, "cp.async source",
          false);
    else if (matchPattern(srcElems, m_ConstantInt(&n))) {
      if (!n.isZero())
        add(copy.getSrc(), copy.getSrcIndices(), n.getSExtValue(),
            "cp.async source", false);
    } else if (auto sel = srcElems.getDefiningOp<arith::SelectOp>();
               sel && matchPattern(sel.getTrueValue(), m_ConstantInt(&n)) &&
               matchPattern(sel.getFalseValue(), m_Zero()))
      add(copy.getSrc(), copy.getSrcIndices(), n.getSExtValue(),
          "cp.async source", false, false, sel.getCondition());
    else
      return failure();
  } else if (auto tma = dyn_cast<nvgpu::TmaAsyncLoadOp>(op)) {
    // The box lands in the destination from its base, contiguously; the
    // global side is the tensor map's (out-of-bounds boxes zero-fill).
    // Multicast writes other blocks of the cluster: not modelled.
    std::optional<int64_t> box = getTmaBoxElements(tma);
    if (!box || tma.getMulticastMask())
      return failure();
    add(tma.getDst(), {}, *box, "TMA destination", true, /*async=*/true,
        tma.getPredicate());
    out.back().tma = true;
    out.back().wholeView = true;
  } else if (auto mma = dyn_cast<nvgpu::WarpgroupMmaOp>(op)) {
    // Each operand is a view of shared memory, named by the descriptor
    // generated from it: a static contiguous view, read whole, or a k-step
    // (a subview with unit inner stride) of one, which the swizzle spreads
    // over whole rows: the tile it is cut from counts as read.
    for (Value desc : {mma.getDescriptorA(), mma.getDescriptorB()}) {
      auto gen = desc.getDefiningOp<nvgpu::WarpgroupGenerateDescriptorOp>();
      Value view = gen ? gen.getTensor() : Value();
      while (auto cast = view ? view.getDefiningOp<memref::CastOp>() : nullptr)
        view = cast.getSource();
      if (auto sub = view ? view.getDefiningOp<memref::SubViewOp>() : nullptr;
          sub && sub.getType().hasStaticShape() &&
          !memref::isStaticShapeAndContiguousRowMajor(sub.getType()) &&
          llvm::all_of(sub.getStaticStrides(),
                       [](int64_t s) { return s == 1; }))
        view = sub.getSource();
      auto type = view ? dyn_cast<MemRefType>(view.getType()) : MemRefType();
      if (!type || !memref::isStaticShapeAndContiguousRowMajor(type))
        return failure();
      add(view, {}, type.getNumElements(), "wgmma operand", false,
          /*async=*/true);
      out.back().wgmma = true;
      out.back().wholeView = true;
    }
  } else if (auto store = dyn_cast<nvgpu::WarpgroupMmaStoreOp>(op)) {
    // Each thread stores its fragment of the M x N accumulator at rows
    // 16 w + lane / 4 (+ 8, + 64 i) of the view, w its warp in the block
    // (not in its warpgroup), columns below N: warpgroup g writes rows
    // [64 g, 64 g + M), taken whole (one interval over the row pitch).
    auto type = cast<MemRefType>(store.getDstMemref().getType());
    auto acc = store.getMatrixD().getType().getFragmented();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!type.hasStaticShape() || type.getRank() != 2 ||
        failed(type.getStridesAndOffset(strides, offset)) || strides[1] != 1 ||
        ShapedType::isDynamic(strides[0]) || acc.getRank() != 2)
      return failure();
    int64_t rows = acc.getDimSize(0), cols = acc.getDimSize(1);
    add(store.getDstMemref(), {}, (rows - 1) * strides[0] + cols,
        "warpgroup accumulator store", true);
    out.back().wholeView = true;
    out.back().warpgroupStride = 64 * strides[0];
    out.back().warpgroupCollective = true;
  } else if (auto load = dyn_cast<gpu::SubgroupMmaLoadMatrixOp>(op)) {
    if (failed(addFragment(load.getSrcMemref(), load.getIndices(),
                           cast<gpu::MMAMatrixType>(load.getRes().getType()),
                           load.getLeadDimension().getSExtValue(),
                           load.getTranspose().has_value(), false)))
      return failure();
  } else if (auto store = dyn_cast<gpu::SubgroupMmaStoreMatrixOp>(op)) {
    if (failed(addFragment(store.getDstMemref(), store.getIndices(),
                           store.getSrc().getType(),
                           store.getLeadDimension().getSExtValue(),
                           store.getTranspose().has_value(), true)))
      return failure();
  } else if (isa<nvgpu::WarpgroupGenerateDescriptorOp>(op)) {
    // A descriptor only names memory; the wgmma that takes it reads it.
  } else if (isa<memref::ViewOp, memref::SubViewOp, memref::ReinterpretCastOp,
                 memref::ExtractStridedMetadataOp, memref::DimOp,
                 gpu::DynamicSharedMemoryOp>(op)) {
    // Views: their extents are checked where they are used.
  } else if (auto iface = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &effect : effects)
      if (isa_and_nonnull<Value>(effect.getValue()) &&
          isa<BaseMemRefType>(effect.getValue().getType()))
        return failure();
  }
  return out;
}

/// {"min": lo, "max": hi}.
static llvm::json::Object rangeJSON(int64_t lo, int64_t hi) {
  return llvm::json::Object{{"min", lo}, {"max", hi}};
}

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

namespace {

using ReportFn = llvm::function_ref<void(StringRef, Operation *, const Twine &,
                                         int64_t, int64_t, llvm::json::Object)>;

/// The bounds check of one kernel.
class BoundsChecker {
public:
  BoundsChecker(Operation *kernel, const UniformityInfo &uniformity,
                const DataFlowSolver &solver, const MBarrierPhases &phases,
                ArrayRef<int64_t> launchGrid, ReportFn report)
      : kernel(kernel), prover(solver, launchGrid),
        relational(kernel, uniformity, solver, phases, launchGrid),
        report(report) {
    // The dynamic shared memory a launch provides, if the kernel says.
    if (auto attr = kernel->getAttrOfType<IntegerAttr>(kDynamicSmemAttrName))
      smemBytes = attr.getInt();
  }

  void run();

private:
  /// Conditions known true at `op`: enclosing scf.if then-branches.
  SmallVector<Value> guardsAt(Operation *op);
  /// Views into dynamic shared memory must fit in what the launch gives.
  void checkView(memref::ViewOp view);
  /// A subview must lie inside its source in every dimension: offset >= 0
  /// and offset + (size - 1) * stride < the source's size.
  void checkSubview(memref::SubViewOp subview);
  /// A cast to static sizes claims them: each must be at most the real
  /// one, proven by a guard when the source's is dynamic.
  void checkCast(memref::CastOp castOp);
  /// Every access `op` makes, in every dimension.
  void checkAccesses(Operation *op);
  /// An atomic update of an integer narrower than 32 bits is a 32-bit
  /// compare-and-swap loop on the aligned word around its element: that
  /// word must lie in the buffer too.
  void checkSubWordAtomic(memref::AtomicRMWOp op);
  /// Threads along x (known_block_size, else CUDA's most): the warps the
  /// warpgroup ops number by thread id x.
  int64_t blockThreads() {
    if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
      if (std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize())
        return std::max<int64_t>(1, (*known)[0]);
    return kMaxBlockDims[0];
  }

  /// The last warpgroup whose threads may run an op under `guards`: the
  /// block's last, unless a guard bounds thread id x below it.
  int64_t lastWarpgroup(ArrayRef<Value> guards) {
    int64_t last = (blockThreads() - 1) / 128;
    kernel->walk([&](Operation *op) {
      Value tid;
      if (auto id = dyn_cast<gpu::ThreadIdOp>(op);
          id && id.getDimension() == gpu::Dimension::x)
        tid = id;
      else if (isa<NVVM::ThreadIdXOp>(op))
        tid = op->getResult(0);
      std::string why;
      for (int64_t g = 0; tid && g < last; ++g)
        if (prover.proveInBounds(tid, 1, SymbolicSize::of(128 * (g + 1)),
                                 guards, why))
          last = g;
    });
    return last;
  }

  Operation *kernel;
  BoundsProver prover;
  RelationalBounds relational;
  ReportFn report;
  std::optional<int64_t> smemBytes;
};

} // namespace

/// Signed sums and products that stop at INT64_MIN/MAX, for sizes and
/// ranges of a report (a wrapped number would read as a small one).
static int64_t addSaturated(int64_t a, int64_t b) {
  int64_t r;
  return llvm::AddOverflow(a, b, r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}
static int64_t mulSaturated(int64_t a, int64_t b) {
  int64_t r;
  return llvm::MulOverflow(a, b, r)
             ? ((a < 0) != (b < 0) ? INT64_MIN : INT64_MAX)
             : r;
}

SmallVector<Value> BoundsChecker::guardsAt(Operation *op) {
  SmallVector<Value> guards;
  for (Operation *child = op, *parent = op->getParentOp();
       parent && child != kernel;
       child = parent, parent = parent->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(parent))
      if (child->getParentRegion() == &ifOp.getThenRegion())
        guards.push_back(ifOp.getCondition());
  return guards;
}

void BoundsChecker::checkView(memref::ViewOp view) {
  Operation *op = view;
  auto type = view.getType();
  if (!view.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>() ||
      !type.hasStaticShape()) {
    report(check::kUnprovable, op,
           "memref.view of anything but dynamic shared memory, or with a "
           "dynamic shape, is not modelled",
           0, 0, {});
    return;
  }
  std::optional<ConstantIntRanges> offset = prover.range(view.getByteShift());
  std::optional<int64_t> viewBytes = getStaticSizeInBytes(type);
  if (!viewBytes) {
    report(check::kOOB, op,
           llvm::formatv("shared-memory view of {0} holds more than 2^63 "
                         "bytes: it cannot fit in shared memory",
                         type),
           0, 0, {});
    return;
  }
  int64_t bytes = *viewBytes;
  if (offset && offset->smin().isNegative()) {
    int64_t lo = offset->smin().getSExtValue();
    llvm::json::Object details{{"bound", int64_t(0)}, {"unit", "bytes"}};
    details["range"] =
        rangeJSON(lo, llvm::checkedAdd(offset->smax().getSExtValue(), bytes - 1)
                          .value_or(INT64_MAX));
    report(check::kOOB, op,
           llvm::formatv("shared-memory view at a byte shift that can be "
                         "negative ({0}) starts before dynamic shared "
                         "memory",
                         lo),
           lo, 0, std::move(details));
  } else if (!smemBytes) {
    report(check::kUnprovable, op,
           llvm::Twine("dynamic shared memory without '") +
               kDynamicSmemAttrName + "' on the kernel: its size is unknown",
           0, 0, {});
  } else if (std::optional<int64_t> viewEnd =
                 offset ? llvm::checkedAdd(offset->smax().getSExtValue(), bytes)
                        : std::nullopt;
             !viewEnd || *viewEnd > *smemBytes) {
    int64_t end = viewEnd.value_or(INT64_MAX);
    llvm::json::Object details{{"bound", *smemBytes}, {"unit", "bytes"}};
    details["range"] = offset ? llvm::json::Value(rangeJSON(
                                    offset->smin().getSExtValue(), end - 1))
                              : llvm::json::Value(nullptr);
    report(check::kOOB, op,
           llvm::formatv("shared-memory view of {0} B at offset up to {1} "
                         "ends at {2} B, past the {3} B the launch provides",
                         bytes,
                         offset ? std::to_string(offset->smax().getSExtValue())
                                : "unknown",
                         printCount(end), *smemBytes),
           end, *smemBytes, std::move(details));
  }
}

void BoundsChecker::checkSubview(memref::SubViewOp subview) {
  Operation *op = subview;
  SmallVector<Value> guards = guardsAt(op);
  auto sourceType = subview.getSourceType();
  for (auto [dim, offset, size, stride] :
       llvm::enumerate(subview.getMixedOffsets(), subview.getMixedSizes(),
                       subview.getMixedStrides())) {
    std::optional<int64_t> n = getConstantIntValue(size),
                           step = getConstantIntValue(stride);
    if (n == 0)
      continue;
    SymbolicSize extent = prover.sizeOf(subview.getSource(), dim);
    std::optional<int64_t> at = getConstantIntValue(offset);
    // The whole dimension: offset 0, stride 1, the source's own size.
    if (at == 0 && step == 1 && extent.isKnown() &&
        prover.valueSize(size) == extent)
      continue;
    if (!n || !step || *step < 1 || !extent.isKnown()) {
      report(check::kUnprovable, op,
             llvm::formatv("subview of {0}: dimension {1} has a dynamic "
                           "size or stride, or a source size the bounds "
                           "check cannot trace, not matched to the "
                           "source's extent",
                           sourceType, dim),
             0, 0, {});
      continue;
    }
    // (n - 1) * step + 1 elements, and at + span: saturated, as no buffer
    // holds INT64_MAX elements.
    int64_t span = addSaturated(mulSaturated(*n - 1, *step), 1);
    int64_t end = at ? addSaturated(*at, span) : 0;
    std::string why;
    bool inside;
    if (at) {
      inside = *at >= 0 && end < INT64_MAX &&
               (extent.constant ? end <= *extent.constant
                                : prover.proveAtLeast(extent, end, guards));
      why = *at < 0 ? llvm::formatv("offset {0} is negative", *at).str()
                    : llvm::formatv("offset {0} + {1} elements exceeds "
                                    "{2}",
                                    *at, span,
                                    extent.constant
                                        ? std::to_string(*extent.constant)
                                        : std::string("the dynamic size"))
                          .str();
    } else {
      inside =
          prover.proveInBounds(cast<Value>(offset), span, extent, guards, why);
      why = "offset: " + why;
    }
    if (inside)
      continue;
    llvm::json::Object details{{"dimension", int64_t(dim)},
                               {"unit", "elements"}};
    details["bound"] = extent.constant ? llvm::json::Value(*extent.constant)
                                       : llvm::json::Value(nullptr);
    report(check::kOOB, op,
           llvm::formatv("subview of {0} ({1} elements in dimension {2}) "
                         "may reach past its source: {3}",
                         sourceType, span, dim, why),
           at ? end : -1, extent.constant ? *extent.constant : -1,
           std::move(details));
  }
}

void BoundsChecker::checkCast(memref::CastOp castOp) {
  Operation *op = castOp;
  auto from = dyn_cast<MemRefType>(castOp.getSource().getType());
  auto to = dyn_cast<MemRefType>(castOp.getType());
  if (!to)
    return; // to unranked: what casts it back is checked
  if (!from) {
    report(check::kUnprovable, op,
           llvm::formatv("memref.cast from an unranked memref to {0}: the "
                         "real sizes and layout are not known",
                         to),
           0, 0, {});
    return;
  }
  // A layout the cast makes static where the source's is dynamic (a row
  // stride, an offset) is a claim the bounds check cannot confirm.
  SmallVector<int64_t> fromStrides, toStrides;
  int64_t fromOffset, toOffset;
  if (succeeded(from.getStridesAndOffset(fromStrides, fromOffset)) &&
      succeeded(to.getStridesAndOffset(toStrides, toOffset))) {
    bool claims = ShapedType::isDynamic(fromOffset) &&
                  !ShapedType::isDynamic(toOffset);
    for (auto [x, y] : llvm::zip(fromStrides, toStrides))
      claims |= ShapedType::isDynamic(x) && !ShapedType::isDynamic(y);
    if (claims) {
      report(check::kUnprovable, op,
             llvm::formatv("memref.cast from {0} to {1} claims a static "
                           "stride or offset the source leaves dynamic",
                           from, to),
             0, 0, {});
      return;
    }
  }
  SmallVector<Value> guards = guardsAt(op);
  for (int64_t dim = 0; dim < to.getRank(); ++dim) {
    if (to.isDynamicDim(dim) || !from.isDynamicDim(dim))
      continue;
    int64_t claimed = to.getDimSize(dim);
    if (prover.proveAtLeast(prover.sizeOf(castOp.getSource(), dim), claimed,
                            guards))
      continue;
    report(check::kUnprovable, op,
           llvm::formatv("memref.cast claims size {0} for the dynamic "
                         "dimension {1} of {2}: no guard proves the real "
                         "size is at least that",
                         claimed, dim, from),
           0, 0, {});
  }
}

void BoundsChecker::checkAccesses(Operation *op) {
  FailureOr<SmallVector<MemoryAccess>> accesses = getMemoryAccesses(op);
  if (failed(accesses)) {
    report(check::kUnprovable, op,
           llvm::Twine("memory access by '") + op->getName().getStringRef() +
               "' is not modelled by the bounds check",
           0, 0, {});
    return;
  }
  if (accesses->empty())
    return;
  SmallVector<Value> guards = guardsAt(op);
  for (MemoryAccess &access : *accesses) {
    auto type = cast<MemRefType>(access.memref.getType());
    if (access.wholeView) {
      // The view is checked where it is made; the box must fit in it, the
      // last warpgroup's part too.
      int64_t elements = type.getNumElements();
      int64_t last = access.width,
              warpgroup = access.warpgroupStride ? lastWarpgroup(guards) : 0;
      if (access.warpgroupStride)
        last += access.warpgroupStride * warpgroup;
      if (last > elements)
        report(check::kOOB, op,
               access.warpgroupStride
                   ? llvm::formatv("{0}: warpgroup {1} of the block writes "
                                   "up to element {2} of {3} ({4} elements): "
                                   "warp w stores from row 16 w of the view",
                                   access.what, warpgroup, last - 1, type,
                                   elements)
                         .str()
                   : llvm::formatv("{0}: the box of {1} elements is larger "
                                   "than the {2} it lands in ({3} elements)",
                                   access.what, access.width, type, elements)
                         .str(),
               last, elements,
               llvm::json::Object{{"unit", "elements"}, {"bound", elements}});
      continue;
    }
    SmallVector<Value> localGuards(guards);
    if (access.condition)
      localGuards.push_back(access.condition);
    for (auto [dim, index] : llvm::enumerate(access.indices)) {
      bool last = dim + 1 == access.indices.size();
      int64_t width = last                               ? access.width
                      : dim + 2 == access.indices.size() ? access.rows
                                                         : 1;
      // Past the end of a masked dimension nothing is accessed.
      bool lowerOnly = last && access.masked;
      SymbolicSize size = prover.sizeOf(access.memref, dim);
      std::string why;
      if (!lowerOnly && !size.isKnown()) {
        report(check::kUnprovable, op,
               llvm::formatv("{0} of {1}: dimension {2} has a size the "
                             "bounds check cannot trace",
                             access.what, type, dim),
               0, 0, {});
        continue;
      }
      if (lowerOnly
              ? prover.proveNonNegative(index, localGuards, why)
              : prover.proveInBounds(index, width, size, localGuards, why))
        continue;
      if (relational.prove(access, index, width, size, lowerOnly))
        continue;
      std::optional<ConstantIntRanges> r = prover.range(index);
      int64_t found = r ? addSaturated(r->smax().getSExtValue(), width) : -1;
      // The elements the access may touch in this dimension, against the
      // extent (null when dynamic).
      llvm::json::Object details{{"dimension", int64_t(dim)},
                                 {"unit", "elements"}};
      details["range"] =
          r ? llvm::json::Value(
                  rangeJSON(r->smin().getSExtValue(),
                            addSaturated(r->smax().getSExtValue(), width - 1)))
            : llvm::json::Value(nullptr);
      details["bound"] = size.constant ? llvm::json::Value(*size.constant)
                                       : llvm::json::Value(nullptr);
      report(check::kOOB, op,
             llvm::formatv("{0} of {1} may leave the buffer in dimension "
                           "{2}: index{3}: {4}",
                           access.what, type, dim,
                           width > 1
                               ? llvm::formatv(" (+{0} elements)", width).str()
                               : std::string(),
                           why),
             found, size.constant ? *size.constant : -1, std::move(details));
    }
  }
}

void BoundsChecker::checkSubWordAtomic(memref::AtomicRMWOp op) {
  auto type = cast<MemRefType>(op.getMemref().getType());
  auto element = dyn_cast<IntegerType>(type.getElementType());
  if (!element || element.getWidth() >= 32)
    return;
  // Buffers start on 16 bytes (kernel arguments, shared allocations), so
  // the last element's word is inside when the buffer's bytes are a
  // multiple of 4.
  int64_t bytes = 0;
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      llvm::MulOverflow(type.getNumElements(),
                        int64_t(llvm::divideCeil(element.getWidth(), 8)),
                        bytes)) {
    report(check::kUnprovable, op,
           llvm::formatv("{0} updates an i{1} by a 32-bit compare-and-swap "
                         "of the aligned word around it; {2} has no static "
                         "size of whole words to hold that word",
                         describeOp(op), element.getWidth(), type),
           0, 0, {});
    return;
  }
  if (bytes % 4 == 0)
    return;
  int64_t word = llvm::alignTo(bytes, 4);
  report(check::kOOB, op,
         llvm::formatv("{0} updates an i{1} by a 32-bit compare-and-swap of "
                       "the aligned 4-byte word around it (sub-word atomics "
                       "are widened): {2} holds {3} bytes, so its last "
                       "element's word reaches {4} bytes past the buffer",
                       describeOp(op), element.getWidth(), type, bytes,
                       word - bytes),
         word, bytes, llvm::json::Object{{"unit", "bytes"}, {"bound", bytes}});
}

void BoundsChecker::run() {
  kernel->walk([&](Operation *op) {
    if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
      checkSubWordAtomic(rmw);
    if (auto view = dyn_cast<memref::ViewOp>(op))
      return checkView(view);
    // Reinterpreted views must not reach past their source's elements.
    if (auto cast = dyn_cast<memref::ReinterpretCastOp>(op)) {
      if (!isFlatViewOfMatrix(cast, prover))
        report(check::kUnprovable, op,
               "memref.reinterpret_cast other than a flat view of a "
               "row-major matrix's own elements is not modelled",
               0, 0, {});
      return;
    }
    if (auto subview = dyn_cast<memref::SubViewOp>(op))
      return checkSubview(subview);
    if (auto castOp = dyn_cast<memref::CastOp>(op))
      return checkCast(castOp);
    checkAccesses(op);
  });
}

void mlir::amk::checkKernelBounds(Operation *kernel,
                                  const UniformityInfo &uniformity,
                                  const DataFlowSolver &solver,
                                  const MBarrierPhases &phases,
                                  ArrayRef<int64_t> launchGrid,
                                  ReportFn report) {
  BoundsChecker(kernel, uniformity, solver, phases, launchGrid, report).run();
}
