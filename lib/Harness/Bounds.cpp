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

#include "AMK/Analysis/Address.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::amk;

namespace {

/// What a size stands for: a constant, an SSA value (a dynamic size given
/// to a view), or a dynamic dimension of a kernel argument.
struct SymbolicSize {
  std::optional<int64_t> constant;
  Value value;
  Value memref;
  unsigned dim = 0;

  static SymbolicSize of(int64_t c) { return {c, {}, {}, 0}; }
  static SymbolicSize of(Value v) { return {std::nullopt, v, {}, 0}; }
  static SymbolicSize dimOf(Value memref, unsigned dim) {
    return {std::nullopt, {}, memref, dim};
  }
  static SymbolicSize unknown() { return {std::nullopt, {}, {}, 0}; }

  bool isKnown() const { return constant || value || memref; }
  bool operator==(const SymbolicSize &o) const {
    if (constant || o.constant)
      return constant == o.constant;
    if (value || o.value)
      return value == o.value;
    return memref && memref == o.memref && dim == o.dim;
  }
};

class BoundsProver {
public:
  BoundsProver(const DataFlowSolver &solver, ArrayRef<int64_t> launchGrid)
      : solver(solver), launchGrid(launchGrid) {}

  /// Signed range of an index, or nullopt when unknown. A block id is also
  /// below the grid every launch of the kernel in its module uses.
  std::optional<ConstantIntRanges> range(Value v) const {
    auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
    if (!lattice || lattice->getValue().isUninitialized())
      return std::nullopt;
    ConstantIntRanges r = lattice->getValue().getValue();
    if (std::optional<int> d = blockIdDim(v);
        d && *d < int(launchGrid.size()) && launchGrid[*d] > 0) {
      unsigned width = r.smax().getBitWidth();
      APInt hi(width, launchGrid[*d] - 1);
      if (r.smax().sgt(hi) || r.smin().isNegative())
        r = ConstantIntRanges::fromSigned(APInt::getZero(width), hi);
    }
    return r;
  }

  /// The size dimension `dim` of `memref` stands for.
  SymbolicSize sizeOf(Value memref, unsigned dim) const {
    auto type = cast<MemRefType>(memref.getType());
    if (!type.isDynamicDim(dim))
      return SymbolicSize::of(type.getDimSize(dim));
    if (auto subview = memref.getDefiningOp<memref::SubViewOp>()) {
      // Map the result dimension to the source's through dropped unit dims.
      llvm::SmallBitVector dropped = subview.getDroppedDims();
      SmallVector<OpFoldResult> sizes = subview.getMixedSizes();
      unsigned seen = 0;
      for (auto [i, size] : llvm::enumerate(sizes)) {
        if (dropped.test(i))
          continue;
        if (seen++ == dim)
          return valueSize(size);
      }
    }
    if (auto cast = memref.getDefiningOp<memref::ReinterpretCastOp>())
      return valueSize(cast.getMixedSizes()[dim]);
    // Casts and alignment assumptions keep the real sizes.
    if (auto cast = memref.getDefiningOp<memref::CastOp>())
      return sizeOf(cast.getSource(), dim);
    if (auto assume = memref.getDefiningOp<memref::AssumeAlignmentOp>())
      return sizeOf(assume.getMemref(), dim);
    // A kernel argument's own dimension; anything else is untraceable.
    if (isa<BlockArgument>(memref))
      return SymbolicSize::dimOf(memref, dim);
    return SymbolicSize::unknown();
  }

  /// What an index-typed bound value stands for.
  SymbolicSize valueSize(OpFoldResult size) const {
    if (auto attr = dyn_cast<Attribute>(size))
      return SymbolicSize::of(cast<IntegerAttr>(attr).getInt());
    Value v = cast<Value>(size);
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return SymbolicSize::of(c.getSExtValue());
    if (auto dim = v.getDefiningOp<memref::DimOp>())
      if (std::optional<int64_t> index = dim.getConstantIndex())
        return sizeOf(dim.getSource(), *index);
    // Sizes from strided metadata, and an identity layout's row pitch.
    if (auto meta = v.getDefiningOp<memref::ExtractStridedMetadataOp>()) {
      Value source = meta.getSource();
      auto type = cast<MemRefType>(source.getType());
      for (auto [i, size] : llvm::enumerate(meta.getSizes()))
        if (size == v)
          return sizeOf(source, i);
      if (type.getLayout().isIdentity() && type.getRank() == 2 &&
          v == meta.getStrides()[0])
        return sizeOf(source, 1);
    }
    return SymbolicSize::of(v);
  }

  /// Proves `lo >= 0` and `v + width <= size` under `guards` (conditions
  /// known true at the access).
  bool proveInBounds(Value v, int64_t width, SymbolicSize size,
                     ArrayRef<Value> guards, std::string &why) const {
    std::optional<ConstantIntRanges> r = range(v);
    if (!r) {
      why = "its range is unknown";
      return false;
    }
    if (!nonNegative(v, guards, 0)) {
      why = llvm::formatv("it can be negative ({0})", r->smin().getSExtValue());
      return false;
    }
    if (proveBelow(v, width, size, guards, 0))
      return true;
    why =
        size.constant
            ? llvm::formatv("its range [{0}, {1}] + {2} exceeds {3}",
                            r->smin().getSExtValue(), r->smax().getSExtValue(),
                            width, *size.constant)
                  .str()
            : llvm::formatv("its range [{0}, {1}] is not guarded by the "
                            "dynamic size it indexes",
                            r->smin().getSExtValue(), r->smax().getSExtValue())
                  .str();
    return false;
  }

  /// Proves `size >= c` under `guards`: a constant, every size's minimum 1,
  /// or a guard comparing the size with a constant.
  bool proveAtLeast(SymbolicSize size, int64_t c,
                    ArrayRef<Value> guards) const {
    if (c <= 1 || (size.constant && *size.constant >= c))
      return true;
    using P = arith::CmpIPredicate;
    for (Value guard : guards) {
      SmallVector<Value> parts;
      conjuncts(guard, parts);
      for (Value part : parts) {
        auto cmp = part.getDefiningOp<arith::CmpIOp>();
        APInt k;
        if (!cmp)
          continue;
        // size >= k or size > k, in either operand order.
        P pred = cmp.getPredicate();
        Value other;
        if (valueSize(cmp.getLhs()) == size) {
          other = cmp.getRhs();
        } else if (valueSize(cmp.getRhs()) == size) {
          other = cmp.getLhs();
          // k op size is size op' k, op' the swapped comparison.
          pred = pred == P::slt   ? P::sgt
                 : pred == P::sle ? P::sge
                 : pred == P::ult ? P::ugt
                 : pred == P::ule ? P::uge
                 : pred == P::sgt ? P::slt
                 : pred == P::sge ? P::sle
                 : pred == P::ugt ? P::ult
                 : pred == P::uge ? P::ule
                                  : pred;
        } else {
          continue;
        }
        if (!matchPattern(other, m_ConstantInt(&k)) || k.isNegative())
          continue;
        int64_t bound = k.getSExtValue();
        if (((pred == P::sge || pred == P::uge || pred == P::eq) &&
             bound >= c) ||
            ((pred == P::sgt || pred == P::ugt) && bound + 1 >= c))
          return true;
      }
    }
    return false;
  }

private:
  /// The largest power-of-two divisor known for `v` (1 when unknown).
  int64_t divisor(Value v, int depth = 0) const {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return c.isZero() ? int64_t(1) << 30 : std::abs(c.getSExtValue());
    if (depth > 8)
      return 1;
    Operation *op = v.getDefiningOp();
    if (auto mul = dyn_cast_or_null<arith::MulIOp>(op))
      return divisor(mul.getLhs(), depth + 1) *
             divisor(mul.getRhs(), depth + 1);
    if (auto add = dyn_cast_or_null<arith::AddIOp>(op))
      return std::gcd(divisor(add.getLhs(), depth + 1),
                      divisor(add.getRhs(), depth + 1));
    if (auto sel = dyn_cast_or_null<arith::SelectOp>(op))
      return std::gcd(divisor(sel.getTrueValue(), depth + 1),
                      divisor(sel.getFalseValue(), depth + 1));
    // Low zero bits survive xor; x mod c keeps the common divisor (and is 0
    // when c divides x).
    if (auto xorOp = dyn_cast_or_null<arith::XOrIOp>(op))
      return std::gcd(divisor(xorOp.getLhs(), depth + 1),
                      divisor(xorOp.getRhs(), depth + 1));
    APInt modulus;
    if (auto rem = dyn_cast_or_null<arith::RemUIOp>(op);
        rem && matchPattern(rem.getRhs(), m_ConstantInt(&modulus))) {
      int64_t d = divisor(rem.getLhs(), depth + 1);
      return d % modulus.getSExtValue() == 0
                 ? int64_t(1) << 30
                 : std::gcd(d, modulus.getSExtValue());
    }
    return 1;
  }

  /// Proves v >= 0: by its range, or by an unsigned guard `v < size`, or
  /// through selects and unsigned minima.
  bool nonNegative(Value v, ArrayRef<Value> guards, int depth) const {
    if (std::optional<ConstantIntRanges> r = range(v))
      if (!r->smin().isNegative())
        return true;
    if (depth > 8)
      return false;
    for (Value guard : guards) {
      SmallVector<Value> parts;
      conjuncts(guard, parts);
      for (Value part : parts)
        if (auto cmp = part.getDefiningOp<arith::CmpIOp>())
          if (cmp.getPredicate() == arith::CmpIPredicate::ult &&
              cmp.getLhs() == v)
            return true;
    }
    Operation *op = v.getDefiningOp();
    if (auto sel = dyn_cast_or_null<arith::SelectOp>(op)) {
      SmallVector<Value> withCond(guards.begin(), guards.end());
      withCond.push_back(sel.getCondition());
      return nonNegative(sel.getTrueValue(), withCond, depth + 1) &&
             nonNegative(sel.getFalseValue(), guards, depth + 1);
    }
    if (isa_and_nonnull<arith::MinUIOp>(op))
      return nonNegative(op->getOperand(0), guards, depth + 1) ||
             nonNegative(op->getOperand(1), guards, depth + 1);
    // A memref's offset: the position of its first element in its buffer
    // (every memref the kernel forms is checked to lie inside its source;
    // arguments are assumed valid).
    if (auto meta = dyn_cast_or_null<memref::ExtractStridedMetadataOp>(op);
        meta && v == meta.getOffset())
      return true;
    APInt c;
    // x + c with c >= 0 (x is below some size, far from wrapping).
    if (auto add = dyn_cast_or_null<arith::AddIOp>(op);
        add && matchPattern(add.getRhs(), m_ConstantInt(&c)) && !c.isNegative())
      return nonNegative(add.getLhs(), guards, depth + 1);
    // x * c with 0 <= c < 2^20: x is below some size (under 2^40 elements
    // on any GPU), so the product cannot reach 2^63.
    if (auto mul = dyn_cast_or_null<arith::MulIOp>(op);
        mul && matchPattern(mul.getRhs(), m_ConstantInt(&c)) &&
        !c.isNegative() && c.getSExtValue() < (int64_t(1) << 20))
      return nonNegative(mul.getLhs(), guards, depth + 1);
    // size - 1 (every size is at least 1).
    if (auto sub = dyn_cast_or_null<arith::SubIOp>(op);
        sub && isSize(sub.getLhs()) &&
        matchPattern(sub.getRhs(), m_ConstantInt(&c)) && c.getSExtValue() <= 1)
      return true;
    return false;
  }

  /// Whether `v` is the size of a buffer: a `memref.dim`, a size from
  /// strided metadata, or a dynamic size a view or reinterpret_cast is made
  /// with.
  static bool isSize(Value v) {
    if (v.getDefiningOp<memref::DimOp>())
      return true;
    if (auto meta = v.getDefiningOp<memref::ExtractStridedMetadataOp>())
      return llvm::is_contained(meta.getSizes(), v);
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      auto cast = dyn_cast<memref::ReinterpretCastOp>(user);
      return cast && llvm::is_contained(cast.getSizes(), v);
    });
  }

  /// `x + c` as (x, c).
  static std::pair<Value, int64_t> splitConstant(Value v) {
    if (auto add = v.getDefiningOp<arith::AddIOp>()) {
      APInt c;
      if (matchPattern(add.getRhs(), m_ConstantInt(&c)))
        return {add.getLhs(), c.getSExtValue()};
      if (matchPattern(add.getLhs(), m_ConstantInt(&c)))
        return {add.getRhs(), c.getSExtValue()};
    }
    return {v, 0};
  }

  /// Whether a guard asserts `x % c == 0` for an `x` standing for `size`
  /// and a multiple c of `width`.
  bool guardedMultiple(const SymbolicSize &size, int64_t width,
                       ArrayRef<Value> guards) const {
    for (Value guard : guards) {
      SmallVector<Value> parts;
      conjuncts(guard, parts);
      for (Value part : parts) {
        auto cmp = part.getDefiningOp<arith::CmpIOp>();
        if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
          continue;
        for (auto [lhs, rhs] : {std::pair(cmp.getLhs(), cmp.getRhs()),
                                std::pair(cmp.getRhs(), cmp.getLhs())}) {
          auto rem = lhs.getDefiningOp<arith::RemUIOp>();
          APInt modulus;
          if (rem && matchPattern(rhs, m_Zero()) &&
              matchPattern(rem.getRhs(), m_ConstantInt(&modulus)) &&
              modulus.getSExtValue() % width == 0 &&
              valueSize(rem.getLhs()) == size)
            return true;
        }
      }
    }
    return false;
  }

  /// The conjuncts of a condition (`andi` trees).
  static void conjuncts(Value cond, SmallVectorImpl<Value> &out) {
    if (auto andOp = cond.getDefiningOp<arith::AndIOp>()) {
      conjuncts(andOp.getLhs(), out);
      conjuncts(andOp.getRhs(), out);
      return;
    }
    out.push_back(cond);
  }

  bool proveBelow(Value v, int64_t width, SymbolicSize size,
                  ArrayRef<Value> guards, int depth) const {
    if (depth > 8)
      return false;
    // 1. Ranges against a static size.
    if (size.constant) {
      if (std::optional<ConstantIntRanges> r = range(v)) {
        int64_t max = r->smax().getSExtValue();
        // An index that is a multiple of the width, below a size that is
        // one too, is at most size - width.
        if (width > 1 && divisor(v) % width == 0 && *size.constant % width == 0)
          max = max / width * width;
        if (max + width <= *size.constant)
          return true;
      }
    }
    // Every size is at least 1 (the verifier rejects static zero sizes; the
    // runtime rejects dynamic ones): element 0 is always in bounds, and so
    // are the first `width` elements of a size that is a multiple of width.
    if (std::optional<ConstantIntRanges> r = range(v)) {
      if (r->smax().getSExtValue() + width <= 1)
        return true;
      if (r->smax().getSExtValue() <= 0 && !size.constant &&
          guardedMultiple(size, width, guards))
        return true;
    }
    // 2/3. A guard `x + c' < size` covering `v = x + c` and its width.
    auto [base, offset] = splitConstant(v);
    for (Value guard : guards) {
      SmallVector<Value> parts;
      conjuncts(guard, parts);
      for (Value part : parts) {
        auto cmp = part.getDefiningOp<arith::CmpIOp>();
        if (!cmp || (cmp.getPredicate() != arith::CmpIPredicate::ult &&
                     cmp.getPredicate() != arith::CmpIPredicate::slt))
          continue;
        SymbolicSize guardSize = valueSize(cmp.getRhs());
        auto [gBase, gOffset] = splitConstant(cmp.getLhs());
        if (gBase != base)
          continue;
        // The guard's bound: the size itself, or a constant no larger.
        int64_t slack = 0;
        if (guardSize.constant && size.constant &&
            *guardSize.constant <= *size.constant)
          slack = *size.constant - *guardSize.constant;
        else if (!(guardSize == size))
          continue;
        // base + gOffset < bound, so base + gOffset + 1 + slack <= size.
        if (offset + width - 1 <= gOffset + slack)
          return true;
        // A vector at a multiple of its width below a bound that is a
        // multiple of it (statically, or by a guard) ends at the bound at
        // most.
        if (offset == gOffset && divisor(v) % width == 0 &&
            (guardSize.constant ? *guardSize.constant % width == 0
                                : guardedMultiple(guardSize, width, guards)))
          return true;
      }
    }
    Operation *op = v.getDefiningOp();
    // A select proves both ways: the true value under its condition.
    if (auto sel = dyn_cast_or_null<arith::SelectOp>(op)) {
      SmallVector<Value> withCond(guards.begin(), guards.end());
      withCond.push_back(sel.getCondition());
      return proveBelow(sel.getTrueValue(), width, size, withCond, depth + 1) &&
             proveBelow(sel.getFalseValue(), width, size, guards, depth + 1);
    }
    // min(x, y) is below the size if either is.
    if (isa_and_nonnull<arith::MinUIOp, arith::MinSIOp>(op))
      return proveBelow(op->getOperand(0), width, size, guards, depth + 1) ||
             proveBelow(op->getOperand(1), width, size, guards, depth + 1);
    // size - k, for k >= width (sizes are at least 1 by contract).
    if (auto sub = dyn_cast_or_null<arith::SubIOp>(op)) {
      APInt k;
      if (valueSize(sub.getLhs()) == size &&
          matchPattern(sub.getRhs(), m_ConstantInt(&k)) &&
          k.getSExtValue() >= width)
        return true;
    }
    return false;
  }

  static std::optional<int> blockIdDim(Value v) {
    Operation *op = v.getDefiningOp();
    if (auto id = dyn_cast_or_null<gpu::BlockIdOp>(op))
      return int(id.getDimension());
    if (isa_and_nonnull<NVVM::BlockIdXOp>(op))
      return 0;
    if (isa_and_nonnull<NVVM::BlockIdYOp>(op))
      return 1;
    if (isa_and_nonnull<NVVM::BlockIdZOp>(op))
      return 2;
    return std::nullopt;
  }

  const DataFlowSolver &solver;
  ArrayRef<int64_t> launchGrid;
};

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
  auto constant = [](OpFoldResult r) -> std::optional<int64_t> {
    if (auto attr = dyn_cast<Attribute>(r))
      return cast<IntegerAttr>(attr).getInt();
    APInt c;
    if (matchPattern(cast<Value>(r), m_ConstantInt(&c)))
      return c.getSExtValue();
    return std::nullopt;
  };
  if (view.getType().getRank() != 1 ||
      constant(view.getMixedOffsets()[0]) != 0 ||
      constant(view.getMixedStrides()[0]) != 1)
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
    return constant(size) ==
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

FailureOr<SmallVector<MemoryAccess>>
mlir::amk::getMemoryAccesses(Operation *op) {
  SmallVector<MemoryAccess> out;
  auto add = [&](Value memref, ValueRange indices, int64_t width,
                 StringRef what, bool write, bool async = false,
                 Value cond = {}) {
    out.push_back(MemoryAccess{op, memref, SmallVector<Value>(indices), width,
                               cond, what, write, async});
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
    // A 1-D transfer along the last dimension, in bounds and unmasked, is a
    // vector load or store; other transfers are not modelled.
    auto transfer = cast<VectorTransferOpInterface>(op);
    VectorType vector = transfer.getVectorType();
    if (!isa<MemRefType>(transfer.getBase().getType()) ||
        vector.getRank() != 1 || vector.isScalable() || transfer.getMask() ||
        !transfer.getPermutationMap().isMinorIdentity() ||
        !transfer.isDimInBounds(0))
      return failure();
    bool write = isa<vector::TransferWriteOp>(op);
    add(transfer.getBase(), transfer.getIndices(), vector.getShape().back(),
        write ? "vector transfer write" : "vector transfer read", write);
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

void mlir::amk::checkKernelBounds(
    Operation *kernel, const DataFlowSolver &solver,
    ArrayRef<int64_t> launchGrid,
    llvm::function_ref<void(StringRef, Operation *, const Twine &, int64_t,
                            int64_t, llvm::json::Object)>
        report) {
  BoundsProver prover(solver, launchGrid);
  // Conditions known true at `op`: enclosing scf.if then-branches.
  auto guardsAt = [&](Operation *op) {
    SmallVector<Value> guards;
    for (Operation *child = op, *parent = op->getParentOp();
         parent && child != kernel;
         child = parent, parent = parent->getParentOp())
      if (auto ifOp = dyn_cast<scf::IfOp>(parent))
        if (child->getParentRegion() == &ifOp.getThenRegion())
          guards.push_back(ifOp.getCondition());
    return guards;
  };
  auto constant = [](OpFoldResult r) -> std::optional<int64_t> {
    if (auto attr = dyn_cast<Attribute>(r))
      return cast<IntegerAttr>(attr).getInt();
    APInt c;
    if (matchPattern(cast<Value>(r), m_ConstantInt(&c)))
      return c.getSExtValue();
    return std::nullopt;
  };
  // The dynamic shared memory a launch provides, if the kernel says.
  std::optional<int64_t> smemBytes;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(kDynamicSmemAttrName))
    smemBytes = attr.getInt();

  kernel->walk([&](Operation *op) {
    // Views into dynamic shared memory must fit in what the launch gives.
    if (auto view = dyn_cast<memref::ViewOp>(op)) {
      auto type = view.getType();
      if (!view.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>() ||
          !type.hasStaticShape()) {
        report(check::kUnprovable, op,
               "memref.view of anything but dynamic shared memory, or with a "
               "dynamic shape, is not modelled",
               0, 0, {});
        return;
      }
      std::optional<ConstantIntRanges> offset =
          prover.range(view.getByteShift());
      int64_t bytes =
          type.getNumElements() * elementBytes(type.getElementType());
      if (offset && offset->smin().isNegative()) {
        int64_t lo = offset->smin().getSExtValue();
        llvm::json::Object details{{"bound", int64_t(0)}, {"unit", "bytes"}};
        details["range"] =
            rangeJSON(lo, offset->smax().getSExtValue() + bytes - 1);
        report(check::kOOB, op,
               llvm::formatv("shared-memory view at a byte shift that can be "
                             "negative ({0}) starts before dynamic shared "
                             "memory",
                             lo),
               lo, 0, std::move(details));
      } else if (!smemBytes) {
        report(check::kUnprovable, op,
               llvm::Twine("dynamic shared memory without '") +
                   kDynamicSmemAttrName +
                   "' on the kernel: its size is unknown",
               0, 0, {});
      } else if (!offset ||
                 offset->smax().getSExtValue() + bytes > *smemBytes) {
        int64_t end = offset ? offset->smax().getSExtValue() + bytes : -1;
        llvm::json::Object details{{"bound", *smemBytes}, {"unit", "bytes"}};
        details["range"] = offset ? llvm::json::Value(rangeJSON(
                                        offset->smin().getSExtValue(), end - 1))
                                  : llvm::json::Value(nullptr);
        report(
            check::kOOB, op,
            llvm::formatv("shared-memory view of {0} B at offset up to {1} "
                          "ends at {2} B, past the {3} B the launch provides",
                          bytes, offset ? offset->smax().getSExtValue() : -1,
                          end, *smemBytes),
            end, *smemBytes, std::move(details));
      }
      return;
    }
    // Reinterpreted views must not reach past their source's elements.
    if (auto cast = dyn_cast<memref::ReinterpretCastOp>(op)) {
      if (!isFlatViewOfMatrix(cast, prover))
        report(check::kUnprovable, op,
               "memref.reinterpret_cast other than a flat view of a "
               "row-major matrix's own elements is not modelled",
               0, 0, {});
      return;
    }
    // A subview must lie inside its source in every dimension: offset >= 0
    // and offset + (size - 1) * stride < the source's size.
    if (auto subview = dyn_cast<memref::SubViewOp>(op)) {
      SmallVector<Value> guards = guardsAt(op);
      auto sourceType = subview.getSourceType();
      for (auto [dim, offset, size, stride] :
           llvm::enumerate(subview.getMixedOffsets(), subview.getMixedSizes(),
                           subview.getMixedStrides())) {
        std::optional<int64_t> n = constant(size), step = constant(stride);
        if (n == 0)
          continue;
        SymbolicSize extent = prover.sizeOf(subview.getSource(), dim);
        std::optional<int64_t> at = constant(offset);
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
        int64_t span = (*n - 1) * *step + 1;
        std::string why;
        bool inside;
        if (at) {
          inside = *at >= 0 &&
                   (extent.constant
                        ? *at + span <= *extent.constant
                        : prover.proveAtLeast(extent, *at + span, guards));
          why = *at < 0 ? llvm::formatv("offset {0} is negative", *at).str()
                        : llvm::formatv("offset {0} + {1} elements exceeds "
                                        "{2}",
                                        *at, span,
                                        extent.constant
                                            ? std::to_string(*extent.constant)
                                            : std::string("the dynamic size"))
                              .str();
        } else {
          inside = prover.proveInBounds(cast<Value>(offset), span, extent,
                                        guards, why);
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
               at ? *at + span : -1, extent.constant ? *extent.constant : -1,
               std::move(details));
      }
      return;
    }
    // A cast to static sizes claims them: each must be at most the real
    // one, proven by a guard when the source's is dynamic.
    if (auto castOp = dyn_cast<memref::CastOp>(op)) {
      auto from = dyn_cast<MemRefType>(castOp.getSource().getType());
      auto to = dyn_cast<MemRefType>(castOp.getType());
      if (!from || !to)
        return;
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
      return;
    }
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
      SmallVector<Value> localGuards(guards);
      if (access.condition)
        localGuards.push_back(access.condition);
      for (auto [dim, index] : llvm::enumerate(access.indices)) {
        bool last = dim + 1 == access.indices.size();
        int64_t width = last ? access.width : 1;
        SymbolicSize size = prover.sizeOf(access.memref, dim);
        std::string why;
        if (!size.isKnown()) {
          report(check::kUnprovable, op,
                 llvm::formatv("{0} of {1}: dimension {2} has a size the "
                               "bounds check cannot trace",
                               access.what, type, dim),
                 0, 0, {});
          continue;
        }
        if (prover.proveInBounds(index, width, size, localGuards, why))
          continue;
        std::optional<ConstantIntRanges> r = prover.range(index);
        int64_t found = r ? r->smax().getSExtValue() + width : -1;
        // The elements the access may touch in this dimension, against the
        // extent (null when dynamic).
        llvm::json::Object details{{"dimension", int64_t(dim)},
                                   {"unit", "elements"}};
        details["range"] = r ? llvm::json::Value(rangeJSON(
                                   r->smin().getSExtValue(),
                                   r->smax().getSExtValue() + width - 1))
                             : llvm::json::Value(nullptr);
        details["bound"] = size.constant ? llvm::json::Value(*size.constant)
                                         : llvm::json::Value(nullptr);
        report(check::kOOB, op,
               llvm::formatv(
                   "{0} of {1} may leave the buffer in dimension "
                   "{2}: index{3} {4}",
                   access.what, type, dim,
                   width > 1 ? llvm::formatv(" (+{0} elements)", width).str()
                             : std::string(),
                   why),
               found, size.constant ? *size.constant : -1, std::move(details));
      }
    }
  });
}
