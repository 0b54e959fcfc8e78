//===- BoundsRelational.cpp - Bounds from one integer system --------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The bounds check's second way to a proof, for the accesses its intervals
// and guard matching leave open: one integer system per question, over the
// index as the race checks translate it (floordiv and mod as local
// variables, a loop's iterations, select, min and max by cases), under the
// conditions of every branch around the access, with the size as the same
// variable the guards compare with. `index < 0` and `index + width > size`
// must each be infeasible: `if (i < n) b[n - 1 - i]` is proven here.
//
// The system computes over the integers, the kernel in 64 bits: it is asked
// only where no operation of the index's arithmetic can wrap (each sum,
// difference, product and shift computes without overflow at every bound
// of its operands' ranges, each cast keeps its value).
//
//===----------------------------------------------------------------------===//

#include "BoundsRelational.h"

#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::smem;
using namespace mlir::amk::bounds;

namespace {
/// Systems one question may take (each case of a select or min/max is one).
constexpr unsigned kMaxSystems = 64;
} // namespace

RelationalBounds::RelationalBounds(Operation *kernel,
                                   const UniformityInfo &uniformity,
                                   const DataFlowSolver &solver,
                                   const MBarrierPhases &phases,
                                   ArrayRef<int64_t> launchGrid)
    : model(kernel, uniformity, solver, phases) {
  for (auto [d, size] : llvm::enumerate(launchGrid))
    if (d < 3)
      model.grid[d] = size;
}

/// Whether `op` (add, sub, mul or shl of index or integer values) cannot
/// wrap for any operands in `l` and `r`: its result is monotone in each
/// operand (a product, in each sign), so the extremes come from the
/// bounds, each computed with overflow checks, at the result's width.
static bool noSignedWrap(Operation *op, const ConstantIntRanges &l,
                         const ConstantIntRanges &r) {
  unsigned width = l.smin().getBitWidth();
  if (width > 64 || r.smin().getBitWidth() != width)
    return false;
  APInt lo[2] = {l.smin(), l.smax()}, ro[2] = {r.smin(), r.smax()};
  for (const APInt &x : lo)
    for (const APInt &y : ro) {
      bool overflow = false;
      if (isa<arith::AddIOp>(op))
        (void)x.sadd_ov(y, overflow);
      else if (isa<arith::SubIOp>(op))
        (void)x.ssub_ov(y, overflow);
      else if (isa<arith::MulIOp>(op))
        (void)x.smul_ov(y, overflow);
      else if (y.isNegative() || y.uge(width))
        overflow = true;
      else
        (void)x.sshl_ov(y, overflow);
      if (overflow)
        return false;
    }
  return true;
}

bool RelationalBounds::fitsWithoutWrap(Value v, int depth) {
  if (depth > 64)
    return false;
  if (auto it = exact.find(v); it != exact.end())
    return it->second;
  auto signedRange = [&](Value x) -> std::optional<ConstantIntRanges> {
    return getIntegerRanges(model.solver, x);
  };
  bool fits = true;
  Operation *op = v.getDefiningOp();
  if (op &&
      isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::ShLIOp>(op)) {
    // Every combination of the operands' bounds computes without overflow:
    // then no pair of values in those ranges wraps, and the 64-bit result
    // is the integer one.
    std::optional<ConstantIntRanges> l = signedRange(op->getOperand(0)),
                                     r = signedRange(op->getOperand(1));
    fits = l && r && noSignedWrap(op, *l, *r);
  } else if (op && isa<arith::IndexCastOp, arith::IndexCastUIOp,
                       arith::TruncIOp, arith::ExtUIOp, arith::ExtSIOp>(op)) {
    // Taken as the same integer: it must fit the result, and a zero
    // extension must not see a negative value.
    std::optional<ConstantIntRanges> r = signedRange(op->getOperand(0));
    unsigned to = ConstantIntRanges::getStorageBitwidth(v.getType());
    bool zeroExtends = isa<arith::IndexCastUIOp, arith::ExtUIOp>(op);
    fits = r && r->smin().getSignificantBits() <= to &&
           r->smax().getSignificantBits() <= to &&
           !(zeroExtends && r->smin().isNegative());
  }
  // The arithmetic the system translates below must not wrap either.
  if (fits && op && isa<arith::ArithDialect>(op->getDialect()))
    for (Value operand : op->getOperands())
      if (operand.getType().isIntOrIndex() &&
          !fitsWithoutWrap(operand, depth + 1)) {
        fits = false;
        break;
      }
  // A loop's induction variable is lb + step * k.
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
        loop && arg == loop.getInductionVar())
      fits = fitsWithoutWrap(loop.getLowerBound(), depth + 1);
  exact[v] = fits;
  return fits;
}

bool RelationalBounds::infeasible(System s,
                                  ArrayRef<SmallVector<Alternative, 2>> splits,
                                  unsigned next, unsigned &systems) {
  if (++systems > kMaxSystems)
    return false;
  if (s.provablyEmpty())
    return true;
  if (next == splits.size())
    return !s.sample();
  for (const Alternative &alternative : splits[next]) {
    System c = s;
    for (const SystemBuilder::Constraint &k : alternative)
      k.equality ? c.eq0(k.form) : c.ge0(k.form);
    if (!infeasible(std::move(c), splits, next + 1, systems))
      return false;
  }
  return true;
}

std::optional<Lin> RelationalBounds::sizeOf(SystemBuilder &builder,
                                            const Instance &in,
                                            const SymbolicSize &size) {
  if (size.constant)
    return Lin::of(*size.constant);
  if (size.value)
    return fitsWithoutWrap(size.value, 0)
               ? std::optional(builder.expr(size.value, in))
               : std::nullopt;
  if (!size.memref)
    return std::nullopt;
  // A buffer's dimension: the value a memref.dim of it gives (the guards
  // compare with one), else a size no guard names.
  Value dim = model.dimValue(size.memref, size.dim);
  if (dim)
    return builder.expr(dim, in);
  return Lin::var(builder.sys.var(0, std::nullopt));
}

bool RelationalBounds::refuteAll(
    Operation *at, Value condition,
    function_ref<std::optional<SmallVector<Lin, 2>>(SystemBuilder &,
                                                    const Instance &)>
        forms) {
  // Each loop around `at` runs lb + step k below ub: those bounds too must
  // be what the system computes.
  for (scf::ForOp loop : enclosingLoops(at, model.kernel))
    if (!fitsWithoutWrap(loop.getLowerBound(), 0) ||
        !fitsWithoutWrap(loop.getUpperBound(), 0))
      return false;
  SystemBuilder builder(model);
  llvm::DenseMap<Operation *, Lin> none;
  Instance in = builder.instance(at, 0, none);
  // The branches around `at`, each as its condition says where its
  // arithmetic cannot wrap (a condition left out only loses precision).
  builder.addGuards(in, [&](Value cond) { return fitsWithoutWrap(cond, 0); });
  if (condition && fitsWithoutWrap(condition, 0))
    builder.condition(condition, true, in);
  std::optional<SmallVector<Lin, 2>> violations = forms(builder, in);
  if (!violations)
    return false;
  // The cases of each select and min/max the values or guards went through.
  SmallVector<SmallVector<Alternative, 2>, 4> splits = getCaseSplits(builder);
  return llvm::all_of(*violations, [&](const Lin &violation) {
    System s = builder.sys;
    s.ge0(violation);
    unsigned systems = 0;
    return infeasible(std::move(s), splits, 0, systems);
  });
}

bool RelationalBounds::prove(const MemoryAccess &access, Value index,
                             int64_t width, const SymbolicSize &size,
                             bool lowerOnly) {
  if (!fitsWithoutWrap(index, 0))
    return false;
  return refuteAll(access.op, access.condition,
                   [&](SystemBuilder &builder, const Instance &in)
                       -> std::optional<SmallVector<Lin, 2>> {
                     Lin x = builder.expr(index, in);
                     // index <= -1; index + width - 1 >= size.
                     SmallVector<Lin, 2> violations = {x * -1 - 1};
                     if (lowerOnly)
                       return violations;
                     std::optional<Lin> bound = sizeOf(builder, in, size);
                     if (!bound)
                       return std::nullopt;
                     violations.push_back(x + (width - 1) - *bound);
                     return violations;
                   });
}

bool RelationalBounds::proveWithin(Operation *at, Value v, int64_t lo,
                                   int64_t hi) {
  if (!fitsWithoutWrap(v, 0) || lo == INT64_MIN || hi == INT64_MAX)
    return false;
  return refuteAll(at, {}, [&](SystemBuilder &builder, const Instance &in) {
    Lin x = builder.expr(v, in);
    // v <= lo - 1; v >= hi + 1.
    return std::optional<SmallVector<Lin, 2>>(
        {x * -1 + (lo - 1), x - (hi + 1)});
  });
}
