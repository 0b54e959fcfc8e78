//===- Alignment.cpp - Every access is aligned to its width ---------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// AMK-MISALIGNED. An access of w bytes needs an address that is a multiple
// of min(w, 16) (ld/st.v2/.v4, cp.async, ldmatrix rows), or of the alignment
// it declares when that is larger (the lowering emits it as is). The address
// is root + shift + elemBytes * (offset + sum index_i * stride_i) (Address.h);
// its low bits are computed with LLVM's KnownBits over the index arithmetic,
// which is exact modulo 2^64, so no overflow can make a proof wrong:
//
//  - roots: global kernel arguments 256-byte aligned (cudaMalloc), dynamic
//    shared memory 16, attributions, allocations and globals by their
//    declared alignment, else by their element;
//  - constants, and values IntegerRangeAnalysis pins to one constant;
//  - + - * shifts, div/rem, and/or/xor, min/max, casts, select, affine.apply;
//    scf.for induction variables as lb + step * k; scf.if results as what
//    both branches yield;
//  - `memref.dim` and strided-metadata values as the layout part they stand
//    for, so that a guard on `dim %A, 1` speaks about the row stride of %A;
//  - guards: `x % c == 0` and `x & m == 0` (or `x == c`) asserted by an
//    enclosing scf.if or a preceding cf.assert make the bits known.
//
// An address whose required low bits are all known and not zero is
// misaligned; one whose bits are not known enough is not provably aligned.
// Both are errors, with the part of the address that is to blame.
//
//===----------------------------------------------------------------------===//

#include "Alignment.h"
#include "AMK/Analysis/Address.h"
#include "AMK/Harness/KernelSafety.h"
#include "Bounds.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/KnownBits.h"

#include <map>

using namespace mlir;
using namespace mlir::amk;
using llvm::KnownBits;

namespace {

/// Bits of an integer or index type (index: 64), 0 for anything else.
static unsigned bitsOf(Type type) {
  if (type.isIndex())
    return 64;
  if (type.isSignlessInteger() || type.isUnsignedInteger() ||
      type.isSignedInteger())
    return type.getIntOrFloatBitWidth();
  return 0;
}

/// Known bits of index values at one access.
class BitsEvaluator {
public:
  BitsEvaluator(const DataFlowSolver &solver, AddressModel &addresses)
      : solver(solver), addresses(addresses) {}

  /// What guards at the access assert, by the factor they speak about.
  using Facts = std::map<AddressFactor, KnownBits>;

  /// Sets the facts of the next access (results cached without facts are
  /// reused only while there are none).
  void setFacts(Facts next) {
    facts = std::move(next);
    local.clear();
  }

  KnownBits value(Value v);
  KnownBits factor(const AddressFactor &f);
  KnownBits term(const AddressTerm &t);
  KnownBits poly(const AddressPoly &p);
  /// The factor a guard on `v` speaks about: the layout part a `memref.dim`
  /// or strided-metadata value stands for, else the value itself.
  AddressFactor keyOf(Value v);

private:
  KnownBits compute(Value v, unsigned width);
  KnownBits affine(AffineExpr e, ValueRange dims, ValueRange symbols);

  const DataFlowSolver &solver;
  AddressModel &addresses;
  Facts facts;
  llvm::DenseMap<Value, KnownBits> shared, local;
};

AddressFactor BitsEvaluator::keyOf(Value v) {
  if (std::optional<AddressPoly> meta = addresses.metadata(v))
    if (meta->valid && meta->terms.size() == 1 &&
        meta->terms[0].coefficient == 1 && meta->terms[0].factors.size() == 1)
      return meta->terms[0].factors[0];
  return AddressFactor::of(v);
}

KnownBits BitsEvaluator::factor(const AddressFactor &f) {
  if (f.kind == AddressFactor::Kind::Value)
    return value(f.value).zextOrTrunc(64);
  KnownBits known(64);
  if (auto it = facts.find(f); it != facts.end())
    known = it->second;
  return known;
}

KnownBits BitsEvaluator::term(const AddressTerm &t) {
  KnownBits r = KnownBits::makeConstant(APInt(64, uint64_t(t.coefficient)));
  for (const AddressFactor &f : t.factors)
    r = KnownBits::mul(r, factor(f));
  return r;
}

KnownBits BitsEvaluator::poly(const AddressPoly &p) {
  KnownBits r = KnownBits::makeConstant(APInt(64, 0));
  if (!p.valid)
    return KnownBits(64);
  for (const AddressTerm &t : p.terms)
    r = KnownBits::add(r, term(t));
  return r;
}

KnownBits BitsEvaluator::value(Value v) {
  unsigned width = bitsOf(v.getType());
  if (!width)
    return KnownBits(64);
  auto &cache = facts.empty() ? shared : local;
  if (auto it = cache.find(v); it != cache.end())
    return it->second;
  KnownBits known = compute(v, width);
  if (!facts.empty())
    if (auto it = facts.find(keyOf(v)); it != facts.end()) {
      KnownBits refined = known.unionWith(it->second.zextOrTrunc(width));
      // A guard that contradicts what is known holds nowhere: keep what is
      // known rather than proving anything from it.
      if (!refined.hasConflict())
        known = refined;
    }
  cache[v] = known;
  return known;
}

KnownBits BitsEvaluator::affine(AffineExpr e, ValueRange dims,
                                ValueRange symbols) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return KnownBits::makeConstant(APInt(64, uint64_t(c.getValue())));
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return value(dims[d.getPosition()]).zextOrTrunc(64);
  if (auto s = dyn_cast<AffineSymbolExpr>(e))
    return value(symbols[s.getPosition()]).zextOrTrunc(64);
  auto bin = cast<AffineBinaryOpExpr>(e);
  KnownBits l = affine(bin.getLHS(), dims, symbols);
  KnownBits r = affine(bin.getRHS(), dims, symbols);
  std::optional<int64_t> c;
  if (auto rc = dyn_cast<AffineConstantExpr>(bin.getRHS()))
    c = rc.getValue();
  bool powerOf2 = c && *c > 0 && llvm::isPowerOf2_64(uint64_t(*c));
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return KnownBits::add(l, r);
  case AffineExprKind::Mul:
    return KnownBits::mul(l, r);
  case AffineExprKind::Mod:
    // Floor mod by 2^k keeps the low k bits, whatever the sign.
    if (powerOf2)
      return l & KnownBits::makeConstant(APInt(64, uint64_t(*c - 1)));
    return KnownBits(64);
  case AffineExprKind::FloorDiv:
    if (powerOf2)
      return KnownBits::ashr(
          l, KnownBits::makeConstant(APInt(64, llvm::Log2_64(*c))));
    return KnownBits(64);
  default:
    return KnownBits(64);
  }
}

KnownBits BitsEvaluator::compute(Value v, unsigned width) {
  KnownBits unknown(width);
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return KnownBits::makeConstant(c.zextOrTrunc(width));
  if (std::optional<ConstantIntRanges> r = getIntegerRanges(solver, v)) {
    if (r->smin() == r->smax())
      return KnownBits::makeConstant(r->smin().sextOrTrunc(width));
  }
  if (std::optional<AddressPoly> meta = addresses.metadata(v))
    return poly(*meta).zextOrTrunc(width);

  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // lb + step * k.
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (loop && arg == loop.getInductionVar() && bitsOf(arg.getType())) {
      KnownBits k(width);
      KnownBits step = value(loop.getStep()).zextOrTrunc(width);
      return KnownBits::add(value(loop.getLowerBound()).zextOrTrunc(width),
                            KnownBits::mul(step, k));
    }
    return unknown;
  }

  Operation *op = v.getDefiningOp();
  auto operand = [&](unsigned i) {
    return value(op->getOperand(i)).zextOrTrunc(width);
  };
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    if (ifOp.getElseRegion().empty())
      return unknown;
    unsigned i = cast<OpResult>(v).getResultNumber();
    return value(ifOp.thenYield().getOperand(i))
        .zextOrTrunc(width)
        .intersectWith(
            value(ifOp.elseYield().getOperand(i)).zextOrTrunc(width));
  }
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineMap map = apply.getAffineMap();
    return affine(map.getResult(0), apply.getDimOperands(),
                  apply.getSymbolOperands())
        .zextOrTrunc(width);
  }
  if (isa<arith::AddIOp>(op))
    return KnownBits::add(operand(0), operand(1));
  if (auto sub = dyn_cast<arith::SubIOp>(op)) {
    // x - (x & m) is x & ~m (the subtracted bits are set in x: no borrow),
    // and x - x % 2^k is x - (x & (2^k - 1)).
    Operation *low = sub.getRhs().getDefiningOp();
    APInt m;
    if (isa_and_nonnull<arith::RemUIOp, arith::AndIOp>(low) &&
        low->getOperand(0) == sub.getLhs() &&
        matchPattern(low->getOperand(1), m_ConstantInt(&m))) {
      APInt mask = m.zextOrTrunc(width);
      bool exact = isa<arith::AndIOp>(low);
      if (!exact && mask.isPowerOf2()) {
        mask -= 1;
        exact = true;
      }
      if (exact)
        return operand(0) & KnownBits::makeConstant(~mask);
    }
    return KnownBits::sub(operand(0), operand(1));
  }
  if (isa<arith::MulIOp>(op))
    return KnownBits::mul(operand(0), operand(1));
  if (isa<arith::ShLIOp>(op))
    return KnownBits::shl(operand(0), operand(1));
  if (isa<arith::ShRUIOp>(op))
    return KnownBits::lshr(operand(0), operand(1));
  if (isa<arith::ShRSIOp>(op))
    return KnownBits::ashr(operand(0), operand(1));
  if (isa<arith::DivUIOp>(op))
    return KnownBits::udiv(operand(0), operand(1));
  if (isa<arith::DivSIOp>(op))
    return KnownBits::sdiv(operand(0), operand(1));
  if (isa<arith::RemUIOp>(op))
    return KnownBits::urem(operand(0), operand(1));
  if (isa<arith::RemSIOp>(op))
    return KnownBits::srem(operand(0), operand(1));
  if (isa<arith::AndIOp>(op))
    return operand(0) & operand(1);
  if (isa<arith::OrIOp>(op))
    return operand(0) | operand(1);
  if (isa<arith::XOrIOp>(op))
    return operand(0) ^ operand(1);
  if (isa<arith::MinUIOp>(op))
    return KnownBits::umin(operand(0), operand(1));
  if (isa<arith::MaxUIOp>(op))
    return KnownBits::umax(operand(0), operand(1));
  if (isa<arith::MinSIOp>(op))
    return KnownBits::smin(operand(0), operand(1));
  if (isa<arith::MaxSIOp>(op))
    return KnownBits::smax(operand(0), operand(1));
  if (auto sel = dyn_cast<arith::SelectOp>(op))
    return value(sel.getTrueValue())
        .zextOrTrunc(width)
        .intersectWith(value(sel.getFalseValue()).zextOrTrunc(width));
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(op)) {
    KnownBits x = value(op->getOperand(0));
    return x.getBitWidth() == 0 ? unknown : x.sextOrTrunc(width);
  }
  if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op)) {
    KnownBits x = value(op->getOperand(0));
    return x.getBitWidth() == 0 ? unknown : x.zextOrTrunc(width);
  }
  return unknown;
}

/// Adds what `cond` (== `truth`) says about divisibility to `facts`.
static void addFacts(Value cond, bool truth, BitsEvaluator &bits,
                     BitsEvaluator::Facts &facts, int depth = 0) {
  if (depth > 16)
    return;
  Operation *op = cond.getDefiningOp();
  APInt c;
  if (auto andOp = dyn_cast_or_null<arith::AndIOp>(op)) {
    if (truth) {
      addFacts(andOp.getLhs(), true, bits, facts, depth + 1);
      addFacts(andOp.getRhs(), true, bits, facts, depth + 1);
    }
    return;
  }
  if (auto orOp = dyn_cast_or_null<arith::OrIOp>(op)) {
    if (!truth) {
      addFacts(orOp.getLhs(), false, bits, facts, depth + 1);
      addFacts(orOp.getRhs(), false, bits, facts, depth + 1);
    }
    return;
  }
  if (auto xorOp = dyn_cast_or_null<arith::XOrIOp>(op)) {
    // not(x) is x xor true.
    if (matchPattern(xorOp.getRhs(), m_ConstantInt(&c)) && c.isAllOnes())
      addFacts(xorOp.getLhs(), !truth, bits, facts, depth + 1);
    return;
  }
  auto cmp = dyn_cast_or_null<arith::CmpIOp>(op);
  if (!cmp)
    return;
  bool equal = cmp.getPredicate() == arith::CmpIPredicate::eq;
  if (!equal && cmp.getPredicate() != arith::CmpIPredicate::ne)
    return;
  if (equal != truth)
    return; // x != c says nothing about bits.
  Value x = cmp.getLhs(), other = cmp.getRhs();
  if (matchPattern(x, m_ConstantInt(&c)))
    std::swap(x, other);
  if (!matchPattern(other, m_ConstantInt(&c)))
    return;
  auto learn = [&](Value of, KnownBits known) {
    unsigned width = bitsOf(of.getType());
    if (!width)
      return;
    AddressFactor key = bits.keyOf(of);
    known = known.zextOrTrunc(width);
    if (auto it = facts.find(key); it != facts.end()) {
      KnownBits both = it->second.zextOrTrunc(width).unionWith(known);
      if (!both.hasConflict())
        it->second = both;
      return;
    }
    facts.emplace(key, known);
  };
  unsigned width = bitsOf(x.getType());
  if (!width)
    return;
  Operation *def = x.getDefiningOp();
  APInt m;
  if (c.isZero() && isa_and_nonnull<arith::RemUIOp, arith::RemSIOp>(def) &&
      matchPattern(def->getOperand(1), m_ConstantInt(&m)) && !m.isZero()) {
    // y % m == 0: m divides y, so do m's factors of two.
    unsigned zeros = m.countr_zero();
    KnownBits known(width);
    known.Zero.setLowBits(std::min(zeros, width));
    learn(def->getOperand(0), known);
    return;
  }
  if (c.isZero() && isa_and_nonnull<arith::AndIOp>(def) &&
      matchPattern(def->getOperand(1), m_ConstantInt(&m))) {
    KnownBits known(width);
    known.Zero = m.zextOrTrunc(width);
    learn(def->getOperand(0), known);
    return;
  }
  learn(x, KnownBits::makeConstant(c.zextOrTrunc(width)));
}

/// What the kernel asserts at `op`: enclosing scf.if conditions and
/// cf.asserts before it in its block and every enclosing one.
static BitsEvaluator::Facts
factsAt(Operation *op, Operation *kernel, BitsEvaluator &bits,
        const llvm::DenseMap<Block *, SmallVector<cf::AssertOp>> &asserts) {
  BitsEvaluator::Facts facts;
  for (Operation *child = op; child && child != kernel;
       child = child->getParentOp()) {
    for (cf::AssertOp assertOp : asserts.lookup(child->getBlock()))
      if (assertOp->isBeforeInBlock(child))
        addFacts(assertOp.getArg(), true, bits, facts);
    Operation *parent = child->getParentOp();
    if (auto ifOp = dyn_cast_or_null<scf::IfOp>(parent))
      addFacts(ifOp.getCondition(),
               child->getParentRegion() == &ifOp.getThenRegion(), bits, facts);
  }
  return facts;
}

/// One access to check: its memref and indices, bytes, required alignment.
struct Aligned {
  Value memref;
  SmallVector<Value> indices;
  int64_t bytes, required;
  std::string what;
  /// When set, the address may also lie this many bytes (a power of two,
  /// in 16-byte steps) past a multiple of `required`: a wgmma operand
  /// starts in the first row of its swizzle pattern.
  int64_t withinRow = 0;

  /// The address bits that must be zero.
  APInt zeroMask() const {
    APInt mask = APInt::getLowBitsSet(64, llvm::Log2_64(uint64_t(required)));
    if (withinRow)
      mask &= ~APInt::getBitsSet(64, 4, llvm::Log2_64(uint64_t(withinRow)));
    return mask;
  }
  std::string requirement() const {
    if (withinRow)
      return llvm::formatv("to start 16-byte aligned in the first {0} B past "
                           "a multiple of {1} B",
                           withinRow, required)
          .str();
    return llvm::formatv("{0}-byte alignment", required).str();
  }
};

/// The accesses of `op` that need more than byte alignment.
static SmallVector<Aligned> alignedAccesses(Operation *op) {
  SmallVector<Aligned> out;
  auto elemBytes = [](Value memref) -> int64_t {
    Type e = cast<MemRefType>(memref.getType()).getElementType();
    if (e.isIndex())
      return 8;
    return e.isIntOrFloat() ? e.getIntOrFloatBitWidth() / 8 : 0;
  };
  if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
    // cp.async moves 4, 8 or 16 bytes; both addresses must be aligned to
    // that size, even when it reads nothing (src elements 0).
    int64_t bytes =
        copy.getDstElements().getZExtValue() * elemBytes(copy.getDst());
    if (bytes <= 1)
      return out;
    out.push_back(Aligned{copy.getSrc(),
                          SmallVector<Value>(copy.getSrcIndices()), bytes,
                          bytes, "cp.async source"});
    out.push_back(Aligned{copy.getDst(),
                          SmallVector<Value>(copy.getDstIndices()), bytes,
                          bytes, "cp.async destination"});
    return out;
  }
  if (auto tma = dyn_cast<nvgpu::TmaAsyncLoadOp>(op)) {
    // The bulk tensor copy writes shared memory from a 128-byte aligned
    // address (PTX ISA, cp.async.bulk.tensor).
    std::optional<int64_t> box = getTmaBoxElements(tma);
    if (box)
      out.push_back(Aligned{tma.getDst(),
                            {},
                            *box * elemBytes(tma.getDst()),
                            128,
                            "TMA destination"});
    return out;
  }
  if (auto mma = dyn_cast<nvgpu::WarpgroupMmaOp>(op)) {
    // A descriptor holds its matrix's address in 16-byte units and no base
    // offset (nvgpu generates none): a swizzled matrix starts in the first
    // row of its pattern (8 rows of the swizzle's width), where the
    // hardware's XOR agrees with the copy engine's; a k-step further along
    // that row is fine.
    for (Value desc : {mma.getDescriptorA(), mma.getDescriptorB()}) {
      auto gen = desc.getDefiningOp<nvgpu::WarpgroupGenerateDescriptorOp>();
      if (!gen)
        continue; // the bounds check reports it
      int64_t row = 0;
      switch (gen.getTensorMap().getType().getSwizzle()) {
      case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B:
        row = 32;
        break;
      case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B:
        row = 64;
        break;
      case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B:
        row = 128;
        break;
      case nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE:
        break;
      }
      auto type = cast<MemRefType>(gen.getTensor().getType());
      out.push_back(Aligned{gen.getTensor(),
                            {},
                            type.getNumElements() * elemBytes(gen.getTensor()),
                            row ? 8 * row : 16,
                            "wgmma operand",
                            row});
    }
    return out;
  }
  FailureOr<SmallVector<MemoryAccess>> accesses = getMemoryAccesses(op);
  if (failed(accesses))
    return out; // the bounds check reports it
  // What the op declares is what the lowering emits.
  std::optional<uint64_t> declared;
  if (auto load = dyn_cast<memref::LoadOp>(op))
    declared = load.getAlignment();
  else if (auto store = dyn_cast<memref::StoreOp>(op))
    declared = store.getAlignment();
  else if (auto load = dyn_cast<vector::LoadOp>(op))
    declared = load.getAlignment();
  else if (auto store = dyn_cast<vector::StoreOp>(op))
    declared = store.getAlignment();
  for (MemoryAccess &a : *accesses) {
    int64_t e = elemBytes(a.memref);
    // A masked transfer lowers to a masked load or store aligned to its
    // element only; a wmma fragment's address rule is not modelled.
    if (!e || a.masked || a.warpCollective)
      continue;
    int64_t bytes = a.width * e;
    int64_t required =
        std::max<int64_t>(naturalAlignment(bytes), declared.value_or(1));
    if (required <= 1)
      continue;
    out.push_back(Aligned{a.memref, a.indices, bytes, required, a.what.str()});
  }
  return out;
}

} // namespace

void mlir::amk::checkKernelAlignment(
    Operation *kernel, const DataFlowSolver &solver, AddressModel &addresses,
    const llvm::DenseSet<Operation *> &skip,
    llvm::function_ref<void(HarnessFinding)> report) {
  BitsEvaluator bits(solver, addresses);
  auto finding = [&](Operation *op, const Twine &message, int64_t proven,
                     int64_t required, std::optional<int64_t> residue,
                     int64_t bytes) {
    HarnessFinding f{check::kMisaligned.str(),
                     op->getLoc(),
                     "",
                     message.str(),
                     proven,
                     required};
    llvm::json::Object alignment{{"required", required}, {"proven", proven}};
    alignment["residue"] =
        residue ? llvm::json::Value(*residue) : llvm::json::Value(nullptr);
    f.details["alignment"] = std::move(alignment);
    f.details["bytes"] = bytes;
    report(std::move(f));
  };
  // The asserts of each block, found once (an access's facts are those
  // before it in its block and its parents').
  llvm::DenseMap<Block *, SmallVector<cf::AssertOp>> asserts;
  kernel->walk([&](cf::AssertOp op) { asserts[op->getBlock()].push_back(op); });
  kernel->walk([&](Operation *op) {
    if (skip.contains(op))
      return;
    SmallVector<Aligned> accesses = alignedAccesses(op);
    if (accesses.empty())
      return;
    bits.setFacts(factsAt(op, kernel, bits, asserts));
    for (const Aligned &a : accesses) {
      auto type = cast<MemRefType>(a.memref.getType());
      std::string whyNot;
      FailureOr<AccessAddress> address =
          addresses.address(a.memref, a.indices, whyNot);
      if (failed(address)) {
        finding(op,
                llvm::formatv("{0} of {1} ({2} B) needs {3}, which cannot be "
                              "proved: {4}",
                              a.what, type, a.bytes, a.requirement(), whyNot),
                1, a.required, std::nullopt, a.bytes);
        continue;
      }
      const MemRefLayout &layout = *address->layout;
      KnownBits root(64);
      root.Zero.setLowBits(llvm::countr_zero(uint64_t(layout.rootAlign)));
      KnownBits total = KnownBits::add(root, bits.poly(address->bytes));
      unsigned need = llvm::Log2_64(uint64_t(a.required));
      unsigned zeros = std::min(total.countMinTrailingZeros(), 62u);
      APInt mask = a.zeroMask();
      if ((total.Zero & mask) == mask)
        continue;
      int64_t proven = int64_t(1) << zeros;
      if (((total.Zero | total.One) & mask) == mask) {
        APInt lowMask = APInt::getLowBitsSet(64, need);
        int64_t residue = int64_t((total.One & lowMask).getZExtValue());
        finding(op,
                llvm::formatv("{0} of {1} ({2} B) is misaligned: its address "
                              "is {3} mod {4}, and it needs {5}",
                              a.what, type, a.bytes, residue, a.required,
                              a.requirement()),
                proven, a.required, residue, a.bytes);
        continue;
      }
      // Blame the base or the weakest part of the address.
      std::string blame;
      if (layout.rootAlign < a.required) {
        blame = "its base is " + layout.rootWhy;
      } else {
        unsigned weakest = 64;
        for (const AddressTerm &t : address->bytes.terms) {
          unsigned tz = bits.term(t).countMinTrailingZeros();
          if (tz >= weakest || tz >= need)
            continue;
          weakest = tz;
          std::string parts = llvm::formatv("{0}", t.coefficient).str();
          for (const AddressFactor &f : t.factors)
            parts += " x (" + f.str() + ")";
          blame = llvm::formatv("the term {0} B is only known to be a "
                                "multiple of {1} B",
                                parts, int64_t(1) << std::min(tz, 62u))
                      .str();
        }
      }
      finding(op,
              llvm::formatv("{0} of {1} ({2} B) needs {3}, but its address is "
                            "only provably a multiple of {4} B{5}{6}",
                            a.what, type, a.bytes, a.requirement(), proven,
                            blame.empty() ? "" : ": ", blame),
              proven, a.required, std::nullopt, a.bytes);
    }
  });
}
