//===- BoundsProver.cpp - Index bounds proofs of the bounds check ---------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "BoundsProver.h"

#include "AMK/Analysis/Address.h"
#include "AMK/Analysis/DimIndex.h"
#include "AMK/Analysis/LaunchIndex.h"
#include "AMK/Harness/KernelSafety.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

#include <numeric>

using namespace mlir;
using namespace mlir::amk::bounds;

/// `x * c` or `c * x` with a constant c: (x, c).
static std::optional<std::pair<Value, int64_t>> matchScaled(Value v) {
  auto mul = v.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (auto [x, k] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())})
    if (std::optional<int64_t> c = getConstantIntValue(k))
      return std::pair(x, *c);
  return std::nullopt;
}

/// The range of `a*x - a*d*(x floordiv d)`, which is `a*(x mod d)`, in
/// [0, a*(d-1)] for x >= 0 and a, d > 0 (lane arithmetic that intervals
/// alone bound far too loosely: 2*tid - 8*(tid/4) looks like it can be
/// negative).
std::optional<std::pair<int64_t, int64_t>>
BoundsProver::modIdentityRange(Value v) const {
  auto sub = v.getDefiningOp<arith::SubIOp>();
  if (!sub)
    return std::nullopt;
  auto lhs = matchScaled(sub.getLhs()), rhs = matchScaled(sub.getRhs());
  if (!lhs || !rhs || lhs->second <= 0)
    return std::nullopt;
  Operation *div = rhs->first.getDefiningOp();
  if (!isa_and_nonnull<arith::DivUIOp, arith::FloorDivSIOp>(div) ||
      div->getOperand(0) != lhs->first)
    return std::nullopt;
  std::optional<int64_t> d = getConstantIntValue(div->getOperand(1));
  std::optional<int64_t> ad =
      d && *d > 0 ? llvm::checkedMul(lhs->second, *d) : std::nullopt;
  std::optional<int64_t> hi =
      d ? llvm::checkedMul(lhs->second, *d - 1) : std::nullopt;
  std::optional<ConstantIntRanges> x = range(lhs->first);
  if (!ad || *ad != rhs->second || !hi || !x || x->smin().isNegative())
    return std::nullopt;
  return std::pair<int64_t, int64_t>(0, *hi);
}

std::optional<ConstantIntRanges> BoundsProver::range(Value v) const {
  std::optional<ConstantIntRanges> known = getIntegerRanges(solver, v);
  if (!known)
    return std::nullopt;
  ConstantIntRanges r = *known;
  if (std::optional<std::pair<int64_t, int64_t>> mod = modIdentityRange(v)) {
    unsigned width = r.smax().getBitWidth();
    r = ConstantIntRanges::fromSigned(APInt(width, mod->first, true),
                                      APInt(width, mod->second, true));
  }
  if (std::optional<int> d = blockIdDim(v);
      d && *d < int(launchGrid.size()) && launchGrid[*d] > 0) {
    unsigned width = r.smax().getBitWidth();
    APInt hi(width, launchGrid[*d] - 1);
    if (r.smax().sgt(hi) || r.smin().isNegative())
      r = ConstantIntRanges::fromSigned(APInt::getZero(width), hi);
  }
  return r;
}

SymbolicSize BoundsProver::sizeOf(Value memref, unsigned dim) const {
  // A dimension the memref does not have (dim -1 of a rank-1 memref, any of
  // an unranked one) has no size to prove anything with.
  if (!isDimensionOf(memref, dim))
    return SymbolicSize::unknown();
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

SymbolicSize BoundsProver::valueSize(OpFoldResult size) const {
  if (auto attr = dyn_cast<Attribute>(size))
    return SymbolicSize::of(cast<IntegerAttr>(attr).getInt());
  Value v = cast<Value>(size);
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return SymbolicSize::of(c.getSExtValue());
  if (auto dim = v.getDefiningOp<memref::DimOp>())
    if (std::optional<unsigned> index = getDimIndex(dim))
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

bool BoundsProver::proveNonNegative(Value v, ArrayRef<Value> guards,
                                    std::string &why) const {
  std::optional<ConstantIntRanges> r = range(v);
  if (!r) {
    why = "its range is unknown";
    return false;
  }
  if (nonNegative(v, guards, 0))
    return true;
  why = llvm::formatv("it can be negative ({0})", r->smin().getSExtValue());
  return false;
}

bool BoundsProver::proveInBounds(Value v, int64_t width, SymbolicSize size,
                                 ArrayRef<Value> guards,
                                 std::string &why) const {
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
  why = size.constant
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

bool BoundsProver::proveAtLeast(SymbolicSize size, int64_t c,
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
        pred = swapCmpIOperands(pred);
      } else {
        continue;
      }
      if (!matchPattern(other, m_ConstantInt(&k)) || k.isNegative())
        continue;
      int64_t bound = k.getSExtValue();
      if (((pred == P::sge || pred == P::uge || pred == P::eq) && bound >= c) ||
          ((pred == P::sgt || pred == P::ugt) && bound + 1 >= c))
        return true;
    }
  }
  return false;
}

static bool isUnsignedCompare(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  return pred == P::ult || pred == P::ule || pred == P::ugt || pred == P::uge;
}

/// The largest power of two dividing d (d != 0): what survives arithmetic
/// modulo 2^64, where a divisor such as 3 does not.
static int64_t powerOfTwoPart(int64_t d) {
  uint64_t u = uint64_t(d);
  return u == 0 ? int64_t(1) << 30
                : int64_t(std::min<uint64_t>(u & -u, 1u << 30));
}

// Every case below yields a power of two (constants are reduced to theirs,
// and gcds and capped products of powers of two are powers of two).
int64_t BoundsProver::divisor(Value v, int depth) const {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.isZero() ? int64_t(1) << 30 : powerOfTwoPart(c.getSExtValue());
  if (depth > 8)
    return 1;
  Operation *op = v.getDefiningOp();
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(op))
    return std::min(divisor(mul.getLhs(), depth + 1) *
                        divisor(mul.getRhs(), depth + 1),
                    int64_t(1) << 30);
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
  // (x mod 0 is undefined: no divisor.)
  if (auto rem = dyn_cast_or_null<arith::RemUIOp>(op);
      rem && matchPattern(rem.getRhs(), m_ConstantInt(&modulus)) &&
      !modulus.isZero() && modulus.isSignedIntN(63)) {
    int64_t d = divisor(rem.getLhs(), depth + 1);
    return d % modulus.getSExtValue() == 0
               ? int64_t(1) << 30
               : std::gcd(d, modulus.getSExtValue());
  }
  return 1;
}

static std::optional<std::pair<Value, Value>> lessThan(arith::CmpIOp cmp);

bool BoundsProver::sideCannotWrap(Value x, int64_t c, bool isUnsigned,
                                  ArrayRef<Value> guards) const {
  if (std::optional<ConstantIntRanges> r = range(x)) {
    int64_t lo, hi;
    if (!llvm::AddOverflow(r->smin().getSExtValue(), c, lo) &&
        !llvm::AddOverflow(r->smax().getSExtValue(), c, hi))
      return true;
  }
  // Unsigned: x + c lands in [0, n) by wrapping only from a negative x
  // and c > 0 (with |c| < 2^32 and n < 2^63).
  bool small = c > -(int64_t(1) << 32) && c < (int64_t(1) << 32);
  if (!small)
    return false;
  if (isUnsigned)
    return c < 0 || nonNegative(x, guards, 0);
  if (c < 0)
    return nonNegative(x, guards, 0);
  // A size or a memref's offset: below 2^62, as no buffer holds that many
  // elements.
  auto meta = x.getDefiningOp<memref::ExtractStridedMetadataOp>();
  if (isSize(x) || (meta && x == meta.getOffset()))
    return true;
  // Signed, c > 0: x in [0, size) for a dynamic size, and no buffer holds
  // 2^62 elements, so x + c < 2^63.
  if (!nonNegative(x, guards, 0))
    return false;
  return anyGuardLess(guards, [&](arith::CmpIOp, Value lhs, Value rhs) {
    return lhs == x && isSize(rhs);
  });
}

bool BoundsProver::anyGuardLess(
    ArrayRef<Value> guards,
    llvm::function_ref<bool(arith::CmpIOp, Value, Value)> accept) {
  for (Value guard : guards) {
    SmallVector<Value> parts;
    conjuncts(guard, parts);
    for (Value part : parts)
      if (auto cmp = part.getDefiningOp<arith::CmpIOp>())
        if (std::optional<std::pair<Value, Value>> less = lessThan(cmp);
            less && accept(cmp, less->first, less->second))
          return true;
  }
  return false;
}

bool BoundsProver::rangeAtMost(Value v, int64_t max) const {
  std::optional<ConstantIntRanges> r = range(v);
  return r && r->smax().getSExtValue() <= max;
}

bool BoundsProver::rangeAtLeast(Value v, int64_t min) const {
  std::optional<ConstantIntRanges> r = range(v);
  return r && r->smin().getSExtValue() >= min;
}

bool BoundsProver::nonNegative(Value v, ArrayRef<Value> guards,
                               int depth) const {
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
        // v <u b with b >= 0 as signed (a size, or by its range) puts v
        // in [0, b).
        if (cmp.getPredicate() == arith::CmpIPredicate::ult &&
            cmp.getLhs() == v &&
            (isSize(cmp.getRhs()) || rangeAtLeast(cmp.getRhs(), 0)))
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
  // x + c with c >= 0, where x + c cannot pass INT64_MAX (by x's range,
  // or x below a size).
  if (auto add = dyn_cast_or_null<arith::AddIOp>(op);
      add && matchPattern(add.getRhs(), m_ConstantInt(&c)) && !c.isNegative() &&
      c.isSignedIntN(63) &&
      sideCannotWrap(add.getLhs(), c.getSExtValue(), /*isUnsigned=*/false,
                     guards))
    return nonNegative(add.getLhs(), guards, depth + 1);
  // x + y with both non-negative, where the sum cannot pass INT64_MAX
  // (each at most half of it by its range).
  if (auto add = dyn_cast_or_null<arith::AddIOp>(op);
      add && rangeAtMost(add.getLhs(), INT64_MAX / 2) &&
      rangeAtMost(add.getRhs(), INT64_MAX / 2) &&
      nonNegative(add.getLhs(), guards, depth + 1) &&
      nonNegative(add.getRhs(), guards, depth + 1))
    return true;
  // A sum of multiples of values each bounded below (by a guard or its
  // range), where nothing wraps.
  if (std::optional<std::pair<int64_t, int64_t>> b =
          linearBounds(v, guards, depth + 1);
      b && b->first >= 0)
    return true;
  // x - k (or x + -k) under a guard x >= k.
  if (auto [base, offset] = splitConstant(v);
      base != v && offset < 0 && guardedAtLeast(base, -offset, guards, depth))
    return true;
  // (s - c) - y with c in {0, 1}, s >= 0, y >= 0 and a guard y < s (the
  // reverse index n - 1 - i under i < n): s - y >= 1.
  if (auto sub = dyn_cast_or_null<arith::SubIOp>(op)) {
    auto [size, k] = splitConstant(sub.getLhs());
    Value s = size, y = sub.getRhs();
    if ((k == 0 || k == -1) && (isSize(s) || rangeAtLeast(s, 0)) &&
        nonNegative(y, guards, depth + 1) &&
        anyGuardLess(guards, [&](arith::CmpIOp, Value lhs, Value rhs) {
          return lhs == y && rhs == s;
        }))
      return true;
  }
  // x * c with c > 0, where x * c cannot pass INT64_MAX.
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(op);
      mul && matchPattern(mul.getRhs(), m_ConstantInt(&c)) &&
      c.isStrictlyPositive() &&
      rangeAtMost(mul.getLhs(), INT64_MAX / c.getSExtValue()))
    return nonNegative(mul.getLhs(), guards, depth + 1);
  // size - 1 or size - 0 (every size is at least 1).
  if (auto sub = dyn_cast_or_null<arith::SubIOp>(op);
      sub && isSize(sub.getLhs()) &&
      matchPattern(sub.getRhs(), m_ConstantInt(&c)) && !c.isNegative() &&
      c.getSExtValue() <= 1)
    return true;
  return false;
}

bool BoundsProver::isSize(Value v) {
  // Only the size of a dimension the memref has: any other is undefined.
  if (auto dim = v.getDefiningOp<memref::DimOp>())
    return getDimIndex(dim).has_value();
  if (auto meta = v.getDefiningOp<memref::ExtractStridedMetadataOp>())
    return llvm::is_contained(meta.getSizes(), v);
  return llvm::any_of(v.getUsers(), [&](Operation *user) {
    auto cast = dyn_cast<memref::ReinterpretCastOp>(user);
    return cast && llvm::is_contained(cast.getSizes(), v);
  });
}

std::pair<Value, int64_t> BoundsProver::splitConstant(Value v) {
  APInt c;
  if (auto add = v.getDefiningOp<arith::AddIOp>()) {
    if (matchPattern(add.getRhs(), m_ConstantInt(&c)))
      return {add.getLhs(), c.getSExtValue()};
    if (matchPattern(add.getLhs(), m_ConstantInt(&c)))
      return {add.getRhs(), c.getSExtValue()};
  }
  if (auto sub = v.getDefiningOp<arith::SubIOp>();
      sub && matchPattern(sub.getRhs(), m_ConstantInt(&c)) &&
      c.getSExtValue() > INT64_MIN)
    return {sub.getLhs(), -c.getSExtValue()};
  return {v, 0};
}

/// `pred` with its operands swapped (`a < b` is `b > a`).
/// Calls `visit(pred, c)` for each conjunct of `guards` that compares `x`
/// with a constant c, the predicate turned so that x is on its left
/// (`c < x` as `x > c`); stops where `visit` returns true.
static void
visitConstantCompares(Value x, ArrayRef<Value> guards,
                      function_ref<bool(arith::CmpIPredicate, int64_t)> visit) {
  for (Value guard : guards) {
    SmallVector<Value> parts;
    conjuncts(guard, parts);
    for (Value part : parts) {
      auto cmp = part.getDefiningOp<arith::CmpIOp>();
      if (!cmp)
        continue;
      arith::CmpIPredicate pred = cmp.getPredicate();
      std::optional<int64_t> c;
      if (cmp.getLhs() == x) {
        c = getConstantIntValue(cmp.getRhs());
      } else if (cmp.getRhs() == x) {
        c = getConstantIntValue(cmp.getLhs());
        pred = amk::swapCmpIOperands(pred);
      }
      if (c && visit(pred, *c))
        return;
    }
  }
}

bool BoundsProver::guardedAtLeast(Value x, int64_t k, ArrayRef<Value> guards,
                                  int depth) const {
  bool found = false;
  visitConstantCompares(x, guards, [&](arith::CmpIPredicate pred, int64_t c) {
    using P = arith::CmpIPredicate;
    bool strict = pred == P::sgt || pred == P::ugt;
    bool lower = strict || pred == P::sge || pred == P::uge;
    // Unsigned guards bound x from below only when x is not negative.
    bool isUnsigned = pred == P::ugt || pred == P::uge;
    found = lower && (!isUnsigned || nonNegative(x, guards, depth + 1)) &&
            (strict ? c >= k - 1 : c >= k);
    return found;
  });
  return found;
}

std::optional<int64_t> BoundsProver::guardedLowerBound(Value x,
                                                       ArrayRef<Value> guards,
                                                       int depth) const {
  std::optional<int64_t> best;
  // Whether x >= 0, asked once (unsigned guards need it).
  std::optional<bool> xNonNegative;
  auto isNonNegative = [&] {
    if (!xNonNegative)
      xNonNegative = nonNegative(x, guards, depth + 1);
    return *xNonNegative;
  };
  visitConstantCompares(x, guards, [&](arith::CmpIPredicate pred, int64_t c) {
    using P = arith::CmpIPredicate;
    bool strict = pred == P::sgt || pred == P::ugt;
    bool lower = strict || pred == P::sge || pred == P::uge;
    bool isUnsigned = pred == P::ugt || pred == P::uge;
    if (!lower || (strict && c == INT64_MAX) ||
        (isUnsigned && (c < 0 || !isNonNegative())))
      return false;
    int64_t k = strict ? c + 1 : c;
    best = best ? std::max(*best, k) : k;
    return false;
  });
  return best;
}

std::optional<int64_t>
BoundsProver::guardedUpperBound(Value x, ArrayRef<Value> guards) const {
  std::optional<int64_t> best;
  visitConstantCompares(x, guards, [&](arith::CmpIPredicate pred, int64_t c) {
    using P = arith::CmpIPredicate;
    bool strict = pred == P::slt || pred == P::ult;
    bool upper = strict || pred == P::sle || pred == P::ule;
    // `x <u c` with c >= 0 puts x in [0, c) as a signed number too.
    bool isUnsigned = pred == P::ult || pred == P::ule;
    if (!upper || (strict && c == INT64_MIN) || (isUnsigned && c < 0))
      return false;
    int64_t k = strict ? c - 1 : c;
    best = best ? std::min(*best, k) : k;
    return false;
  });
  return best;
}

std::optional<std::pair<int64_t, int64_t>>
BoundsProver::linearBounds(Value v, ArrayRef<Value> guards, int depth) const {
  // v = constant + sum of coefficient * leaf, and v's exact integer range
  // from its leaves' (no node of the sum may pass int64).
  struct Interval {
    int64_t lo, hi;
  };
  struct Leaf {
    Value value;
    int64_t scale;
    Interval range;
  };
  SmallVector<Leaf> leaves;
  int64_t constant = 0;
  std::function<std::optional<Interval>(Value, int64_t, int)> walk =
      [&](Value x, int64_t scale, int level) -> std::optional<Interval> {
    if (std::optional<int64_t> c = getConstantIntValue(x)) {
      int64_t scaled;
      if (llvm::MulOverflow(*c, scale, scaled) ||
          llvm::AddOverflow(constant, scaled, constant))
        return std::nullopt;
      return Interval{*c, *c};
    }
    Operation *op = x.getDefiningOp();
    auto combine = [&](Value a, Value b,
                       int64_t sign) -> std::optional<Interval> {
      int64_t scaled;
      if (llvm::MulOverflow(scale, sign, scaled))
        return std::nullopt;
      std::optional<Interval> ia = walk(a, scale, level + 1),
                              ib = walk(b, scaled, level + 1);
      Interval r;
      if (!ia || !ib ||
          (sign > 0 ? llvm::AddOverflow(ia->lo, ib->lo, r.lo) ||
                          llvm::AddOverflow(ia->hi, ib->hi, r.hi)
                    : llvm::SubOverflow(ia->lo, ib->hi, r.lo) ||
                          llvm::SubOverflow(ia->hi, ib->lo, r.hi)))
        return std::nullopt;
      return r;
    };
    if (level < 8 && isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op))
      return combine(op->getOperand(0), op->getOperand(1),
                     isa<arith::AddIOp>(op) ? 1 : -1);
    if (auto mul = dyn_cast_or_null<arith::MulIOp>(op); mul && level < 8) {
      for (unsigned i = 0; i < 2; ++i) {
        std::optional<int64_t> c = getConstantIntValue(mul->getOperand(i));
        int64_t scaled, a, b;
        if (!c || llvm::MulOverflow(scale, *c, scaled))
          continue;
        std::optional<Interval> in =
            walk(mul->getOperand(1 - i), scaled, level + 1);
        if (!in || llvm::MulOverflow(in->lo, *c, a) ||
            llvm::MulOverflow(in->hi, *c, b))
          return std::nullopt;
        return Interval{std::min(a, b), std::max(a, b)};
      }
    }
    std::optional<ConstantIntRanges> r = range(x);
    if (!r)
      return std::nullopt;
    Interval own{r->smin().getSExtValue(), r->smax().getSExtValue()};
    leaves.push_back({x, scale, own});
    return own;
  };
  if (!walk(v, 1, 0))
    return std::nullopt;
  int64_t low = constant, high = constant;
  for (const auto &[x, scale, own] : leaves) {
    int64_t lo = own.lo, hi = own.hi;
    if (std::optional<int64_t> g = guardedLowerBound(x, guards, depth))
      lo = std::max(lo, *g);
    if (std::optional<int64_t> g = guardedUpperBound(x, guards))
      hi = std::min(hi, *g);
    if (lo > hi)
      return std::nullopt; // (guards no thread passes: not this rule's case)
    int64_t below, above;
    if (llvm::MulOverflow(scale, scale > 0 ? lo : hi, below) ||
        llvm::MulOverflow(scale, scale > 0 ? hi : lo, above) ||
        llvm::AddOverflow(low, below, low) ||
        llvm::AddOverflow(high, above, high))
      return std::nullopt;
  }
  return std::make_pair(low, high);
}

bool BoundsProver::guardedMultiple(const SymbolicSize &size, int64_t width,
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

void mlir::amk::bounds::conjuncts(Value cond, SmallVectorImpl<Value> &out) {
  if (auto andOp = cond.getDefiningOp<arith::AndIOp>()) {
    conjuncts(andOp.getLhs(), out);
    conjuncts(andOp.getRhs(), out);
    return;
  }
  out.push_back(cond);
}

/// `a < b` as (a, b), however `cmp` says it (`a < b` or `b > a`, signed or
/// unsigned: either bounds a from above by b).
static std::optional<std::pair<Value, Value>> lessThan(arith::CmpIOp cmp) {
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::ult:
  case arith::CmpIPredicate::slt:
    return std::make_pair(cmp.getLhs(), cmp.getRhs());
  case arith::CmpIPredicate::ugt:
  case arith::CmpIPredicate::sgt:
    return std::make_pair(cmp.getRhs(), cmp.getLhs());
  default:
    return std::nullopt;
  }
}

/// at + width <= bound, false when the sum overflows (an index whose range
/// reaches INT64_MAX is not below anything).
static bool endsBy(int64_t at, int64_t width, int64_t bound) {
  int64_t end;
  return !llvm::AddOverflow(at, width, end) && end <= bound;
}

bool BoundsProver::proveBelow(Value v, int64_t width, SymbolicSize size,
                              ArrayRef<Value> guards, int depth) const {
  if (depth > 8 || (size.constant && *size.constant < 1))
    return false; // (nothing is inside a static size 0)
  // 1. Ranges against a static size (and a sum of multiples of values, each
  // bounded by its range or a guard).
  if (size.constant)
    if (std::optional<std::pair<int64_t, int64_t>> b =
            linearBounds(v, guards, depth + 1);
        b && endsBy(b->second, width, *size.constant))
      return true;
  if (size.constant) {
    if (std::optional<ConstantIntRanges> r = range(v)) {
      int64_t max = r->smax().getSExtValue();
      // An index that is a multiple of the width, below a size that is
      // one too, is at most size - width.
      if (width > 1 && divisor(v) % width == 0 && *size.constant % width == 0)
        max = max / width * width;
      if (endsBy(max, width, *size.constant))
        return true;
    }
  }
  // Every size is at least 1 (the verifier rejects static zero sizes; the
  // runtime rejects dynamic ones): element 0 is always in bounds, and so
  // are the first `width` elements of a size that is a multiple of width.
  if (std::optional<ConstantIntRanges> r = range(v)) {
    if (endsBy(r->smax().getSExtValue(), width, 1))
      return true;
    if (r->smax().getSExtValue() <= 0 && !size.constant &&
        guardedMultiple(size, width, guards))
      return true;
  }
  // 2/3. A guard `x + c' < size` covering `v = x + c` and its width.
  Value base;
  int64_t offset;
  std::tie(base, offset) = splitConstant(v);
  auto belowBound = [&](Value lhs, Value bound, bool isUnsigned) {
    auto [gBase, gOffset] = splitConstant(lhs);
    if (gBase != base)
      return false;
    // x + c' must be the integer it stands for (a guard whose side wraps
    // says nothing of x).
    if (gOffset != 0 && !sideCannotWrap(gBase, gOffset, isUnsigned, guards))
      return false;
    // `x < min(a, b)` bounds x by each of a and b: for a min of the
    // compare's signedness, or of operands that are both non-negative.
    SmallVector<Value> bounds = {bound};
    for (size_t i = 0; i < bounds.size() && i < 16; ++i) {
      Operation *min = bounds[i].getDefiningOp();
      if (!isa_and_nonnull<arith::MinUIOp, arith::MinSIOp>(min))
        continue;
      bool matches = isa<arith::MinUIOp>(min) == isUnsigned ||
                     llvm::all_of(min->getOperands(),
                                  [&](Value x) { return rangeAtLeast(x, 0); });
      if (matches)
        bounds.append(min->getOperands().begin(), min->getOperands().end());
    }
    // x < y - c with c >= 0, signed (y - c a size less a constant cannot
    // wrap): x + c < y.
    int64_t extra = 0;
    if (!isUnsigned && bounds.size() == 1) {
      auto [y, k] = splitConstant(bound);
      if (y != bound && k < 0 && k > -(int64_t(1) << 32) && isSize(y)) {
        bounds = {y};
        extra = -k;
      }
    }
    for (Value bound : bounds) {
      SymbolicSize guardSize = valueSize(bound);
      // The guard's bound: the size itself, or a constant no larger.
      int64_t slack = 0;
      if (guardSize.constant && size.constant &&
          *guardSize.constant <= *size.constant)
        slack = *size.constant - *guardSize.constant;
      else if (!(guardSize == size))
        continue;
      // base + gOffset + extra < bound, so base + gOffset + extra + 1 +
      // slack <= size.
      int64_t limit;
      if (!llvm::AddOverflow(gOffset, slack, limit) &&
          !llvm::AddOverflow(limit, extra, limit) &&
          endsBy(offset, width - 1, limit))
        return true;
      // A vector at a multiple of its width below a bound that is a
      // multiple of it (statically, or by a guard) ends at the bound at
      // most.
      if (offset == gOffset && divisor(v) % width == 0 &&
          (guardSize.constant ? *guardSize.constant % width == 0
                              : guardedMultiple(guardSize, width, guards)))
        return true;
    }
    return false;
  };
  if (anyGuardLess(guards, [&](arith::CmpIOp cmp, Value lhs, Value rhs) {
        return belowBound(lhs, rhs, isUnsignedCompare(cmp.getPredicate()));
      }))
    return true;
  // v = x + c against a size x + c' (a view made with that size).
  if (size.value) {
    auto [sizeBase, sizeOffset] = splitConstant(size.value);
    if (sizeBase == base && endsBy(offset, width, sizeOffset))
      return true;
  }
  // A loop's induction variable is below the loop's upper bound (of any
  // step: a grid-stride loop's is the grid's size).
  if (auto iv = dyn_cast<BlockArgument>(base))
    if (auto loop = dyn_cast<scf::ForOp>(iv.getOwner()->getParentOp());
        loop && iv == loop.getInductionVar() &&
        belowBound(iv, loop.getUpperBound(), loop.getUnsignedCmp()))
      return true;
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
  // x - y with x, y >= 0 is at most x.
  if (auto sub = dyn_cast_or_null<arith::SubIOp>(op);
      sub && !matchPattern(sub.getRhs(), m_Constant()) &&
      nonNegative(sub.getRhs(), guards, 0) &&
      nonNegative(sub.getLhs(), guards, 0) &&
      proveBelow(sub.getLhs(), width, size, guards, depth + 1))
    return true;
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

std::optional<int> BoundsProver::blockIdDim(Value v) {
  std::optional<LaunchIndex> index = getLaunchIndex(v.getDefiningOp());
  if (!index || index->kind != LaunchIndex::Kind::BlockId)
    return std::nullopt;
  return index->dim;
}
