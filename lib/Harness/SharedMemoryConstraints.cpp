//===- SharedMemoryConstraints.cpp - Race-check accesses as constraints ---===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// How the race check (SharedMemory.cpp) states an op instance in one
// Presburger system: a variable per iteration of each loop around it, index
// arithmetic translated exactly where it is affine or quasi-affine (+, -, *
// and / and % by constants, shifts, masks, xor of small values through their
// bits), anything else an unknown bounded by IntegerRangeAnalysis (one
// variable for both threads when it is uniform), the conditions of the
// enclosing scf.ifs, and the access's byte address in its root allocation.
//
//===----------------------------------------------------------------------===//

#include "SharedMemoryModel.h"
#include "SlotCounters.h"

#include "AMK/Analysis/Address.h"
#include "AMK/Analysis/LaunchIndex.h"
#include "AMK/Analysis/Uniformity.h"
#include "AMK/Harness/KernelSafety.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::smem;

//===----------------------------------------------------------------------===//
// Model
//===----------------------------------------------------------------------===//

Model::Model(Operation *kernel, const UniformityInfo &uniformity,
             const DataFlowSolver &solver, const MBarrierPhases &phases)
    : kernel(kernel), uniformity(uniformity), solver(solver), phases(phases) {
  if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
    if (DenseI32ArrayAttr size = func.getKnownBlockSizeAttr()) {
      for (auto [i, d] : llvm::enumerate(size.asArrayRef()))
        block[i] = d;
      blockKnown = true;
    }
}

std::optional<std::pair<int64_t, int64_t>> Model::range(Value v) const {
  std::optional<ConstantIntRanges> r = getIntegerRanges(solver, v);
  if (!r || r->smin().getSignificantBits() > 62 ||
      r->smax().getSignificantBits() > 62)
    return std::nullopt;
  return std::make_pair(r->smin().getSExtValue(), r->smax().getSExtValue());
}

const Model::Layout *Model::layout(MemRefType type) const {
  auto [it, inserted] = layouts.try_emplace(type);
  if (inserted) {
    Layout l;
    if (succeeded(type.getStridesAndOffset(l.strides, l.offset)))
      it->second = std::move(l);
  }
  return it->second ? &*it->second : nullptr;
}

Value Model::dimValue(Value memref, int64_t dim) const {
  if (!dims) {
    dims.emplace();
    // (One in no loop below the buffer's own scope: its leaf then names
    // the buffer's size in every iteration around the access.)
    kernel->walk([&](memref::DimOp op) {
      std::optional<int64_t> index = op.getConstantIndex();
      Region *scope = op.getSource().getParentRegion();
      bool inLoop = false;
      // (The checks may run on a detached copy of the kernel, whose
      // function has no parent region.)
      for (Operation *p = op->getParentOp();
           p && p->getParentRegion() && scope->isAncestor(p->getParentRegion());
           p = p->getParentOp())
        inLoop |= isa<scf::ForOp>(p);
      if (index && !inLoop)
        dims->try_emplace({op.getSource(), *index}, op.getResult());
    });
  }
  return dims->lookup({memref, dim});
}

bool Model::nonNegative(Value v) const {
  std::optional<ConstantIntRanges> r = getIntegerRanges(solver, v);
  return r && !r->smin().isNegative();
}

SmallVector<scf::ForOp> smem::enclosingLoops(Operation *op, Operation *kernel) {
  SmallVector<scf::ForOp> loops;
  if (op == kernel)
    return loops;
  for (Operation *p = op->getParentOp(); p && p != kernel; p = p->getParentOp())
    if (auto loop = dyn_cast<scf::ForOp>(p))
      loops.push_back(loop);
  std::reverse(loops.begin(), loops.end());
  return loops;
}

//===----------------------------------------------------------------------===//
// SystemBuilder
//===----------------------------------------------------------------------===//

Instance
SystemBuilder::instance(Operation *op, unsigned thread,
                        const llvm::DenseMap<Operation *, Lin> &fixed) {
  Instance in;
  in.op = op;
  in.thread = thread;
  for (scf::ForOp loop : enclosingLoops(op, model.kernel)) {
    if (auto it = fixed.find(loop); it != fixed.end()) {
      in.iteration[loop] = it->second;
      continue;
    }
    // Static bounds bound k, which keeps the integer search small.
    std::optional<int64_t> kmax;
    if (std::optional<Lin> trip = tripCount(loop))
      if (std::optional<int64_t> t = trip->asConstant())
        kmax = *t - 1;
    Lin k = Lin::var(sys.var(0, kmax));
    in.iteration[loop] = k;
    // lb + step * k < ub.
    if (std::optional<int64_t> step = getConstantIntValue(loop.getStep());
        step && *step > 0) {
      Lin lb = expr(loop.getLowerBound(), in);
      Lin ub = expr(loop.getUpperBound(), in);
      sys.ge0(ub - 1 - (lb + k * *step));
    }
  }
  return in;
}

unsigned SystemBuilder::leaf(Value v, const Instance &in, bool *created) {
  // The same value is one variable for both threads when it is uniform and
  // both are in the same iteration of every loop around its definition.
  std::vector<int64_t> key = contextKey(v, in);
  if (!model.uniformity.isDivergent(v, model.sharing))
    key[0] = -1;
  auto [it, inserted] =
      leaves.try_emplace({v.getAsOpaquePointer(), std::move(key)}, 0);
  if (created)
    *created = inserted;
  if (!inserted)
    return it->second;
  std::optional<std::pair<int64_t, int64_t>> r = model.range(v);
  unsigned var = sys.var(r ? std::optional(r->first) : std::nullopt,
                         r ? std::optional(r->second) : std::nullopt);
  it->second = var;
  if (std::optional<SlotCounters::Slot> slot =
          model.slots ? model.slots->getSlot(v) : std::nullopt) {
    // (Translating the indices may add leaves: `it` is not used past here.)
    SlotLeaf leaf{var,          slot->counter, in.thread, slot->element,
                  slot->amount, slot->shared,  {}};
    for (Value index : slot->op.getIndices())
      leaf.at.push_back(expr(index, in));
    slotLeaves.push_back(std::move(leaf));
  }
  return var;
}

/// Appends `l` to `key` with its terms merged and ordered by variable, so
/// that equal forms give equal keys: (variable, coefficient)..., constant.
static void appendCanonical(const Lin &l, std::vector<int64_t> &key) {
  std::map<unsigned, int64_t> sum;
  for (auto [v, c] : l.terms)
    sum[v] += c;
  for (auto [v, c] : sum)
    if (c != 0)
      key.insert(key.end(), {int64_t(v), c});
  key.push_back(l.constant);
}

/// The most set bits of a constant that `x ^ c` and `x & c` are modelled
/// by, bit by bit (each bit is two divisions in the system).
static constexpr int kMaxBitTerms = 4;

Lin SystemBuilder::divMod(const Lin &x, int64_t d, bool wantRemainder) {
  if (d == 1)
    return wantRemainder ? Lin::of(0) : x;
  // x a multiple of d: exact.
  bool multiple =
      x.valid && x.constant % d == 0 &&
      llvm::all_of(x.terms, [&](auto t) { return t.second % d == 0; });
  if (multiple) {
    Lin q = x;
    for (auto &[v, c] : q.terms)
      c /= d;
    q.constant /= d;
    return wantRemainder ? Lin::of(0) : q;
  }
  std::optional<std::pair<int64_t, int64_t>> range = sys.interval(x);
  // x in [0, d): q = 0, r = x.
  if (range && range->first >= 0 && range->second < d)
    return wantRemainder ? x : Lin::of(0);
  // x = d * q + r, 0 <= r < d (floor semantics; callers ensure x >= 0); one
  // q and r per x and d, so x / d and x % d share them.
  std::vector<int64_t> key;
  appendCanonical(x, key);
  auto [it, inserted] = divisions.try_emplace({key, d});
  if (inserted) {
    // Bounding q by x's interval keeps the integer search small.
    std::optional<int64_t> qlo, qhi;
    if (range) {
      qlo = llvm::divideFloorSigned(range->first, d);
      qhi = llvm::divideFloorSigned(range->second, d);
    }
    unsigned q = sys.var(qlo, qhi);
    unsigned r = sys.var(0, d - 1);
    sys.eq0(x - (Lin::var(q) * d + Lin::var(r)));
    it->second = {Lin::var(q), Lin::var(r)};
  }
  return wantRemainder ? it->second.second : it->second.first;
}

Lin SystemBuilder::threadDim(const Instance &in, int d) {
  if (model.block[d] == 1)
    return Lin::of(0);
  auto [it, inserted] = leaves.try_emplace(
      {nullptr, std::vector<int64_t>{int64_t(in.thread), d}}, 0);
  if (inserted) {
    it->second = sys.var(0, model.block[d] - 1);
    if (!model.blockKnown)
      sys.ge0(blockDim(d) - Lin::var(it->second) - 1);
  }
  return Lin::var(it->second);
}

Lin SystemBuilder::blockDim(int d) {
  if (model.blockKnown || model.block[d] == 1)
    return Lin::of(model.block[d]);
  // Unknown: one variable for every thread, up to the largest block.
  auto [it, inserted] =
      leaves.try_emplace({nullptr, std::vector<int64_t>{-1, d}}, 0);
  if (inserted)
    it->second = sys.var(1, model.block[d]);
  return Lin::var(it->second);
}

Lin SystemBuilder::blockId(const Instance &in, int d) {
  int64_t size = model.grid[d] > 0 ? model.grid[d] : kMaxGridDims[d];
  if (size == 1)
    return Lin::of(0);
  int64_t who = model.sharing == ThreadScope::Grid ? int64_t(in.thread) : -1;
  auto [it, inserted] =
      leaves.try_emplace({nullptr, std::vector<int64_t>{who, 3 + d}}, 0);
  if (inserted) {
    it->second = sys.var(0, size - 1);
    if (model.grid[d] <= 0)
      sys.ge0(gridDim(d) - Lin::var(it->second) - 1);
  }
  return Lin::var(it->second);
}

Lin SystemBuilder::gridDim(int d) {
  if (model.grid[d] > 0)
    return Lin::of(model.grid[d]);
  auto [it, inserted] =
      leaves.try_emplace({nullptr, std::vector<int64_t>{-1, 6 + d}}, 0);
  if (inserted)
    it->second = sys.var(1, kMaxGridDims[d]);
  return Lin::var(it->second);
}

Lin SystemBuilder::symbolicStepInduction(scf::ForOp loop, const Instance &in,
                                         int depth) {
  Value iv = loop.getInductionVar();
  bool created = false;
  Lin t = Lin::var(leaf(iv, in, &created));
  if (!created)
    return t;
  // iv = lb + step k with step >= 1 (scf.for's step is positive): lb <=
  // iv < ub, iv - lb >= k, and iv - lb = step k as a division with no
  // remainder, whose cases relate two instances' iterations (a grid-stride
  // loop: bid1 + G k1 = bid2 + G k2 with bids below G means bid1 = bid2).
  Lin lb = expr(loop.getLowerBound(), in, depth + 1);
  Lin ub = expr(loop.getUpperBound(), in, depth + 1);
  Lin step = expr(loop.getStep(), in, depth + 1);
  Lin k = in.iteration.lookup(loop);
  sys.ge0(step - 1);
  sys.ge0(t - lb - k);
  sys.ge0(ub - 1 - t);
  divs.push_back(
      DivTerm{loop.getStep(), in.thread, t - lb, step, k, Lin::of(0)});
  return t;
}

Lin SystemBuilder::symbolicDivMod(Operation *op, const Lin &x, Value divisor,
                                  const Instance &in, bool wantRemainder,
                                  int depth) {
  Lin d = expr(divisor, in, depth + 1);
  // One q and r per x and d (as divMod): x / d and x % d share them, and so
  // do two instances whose x and d are the same variables.
  // (Divisor 0 in the map's key: no constant division uses it.)
  std::vector<int64_t> key;
  appendCanonical(x, key);
  key.push_back(INT64_MIN);
  appendCanonical(d, key);
  auto [it, inserted] = divisions.try_emplace({key, 0});
  if (inserted) {
    std::optional<std::pair<int64_t, int64_t>> range = sys.interval(x);
    std::optional<int64_t> qhi;
    if (range)
      qhi = range->second;
    unsigned q = sys.var(0, qhi);
    unsigned r = sys.var(0, std::nullopt);
    sys.ge0(d - 1);
    sys.ge0(d - Lin::var(r) - 1);
    // q <= x and r <= x (d >= 1).
    sys.ge0(x - Lin::var(q));
    sys.ge0(x - Lin::var(r));
    it->second = {Lin::var(q), Lin::var(r)};
    divs.push_back(DivTerm{divisor, in.thread, x, d, Lin::var(q), Lin::var(r)});
  }
  Lin result = wantRemainder ? it->second.second : it->second.first;
  // What the range analysis knows of this op's result holds too.
  if (auto r = model.range(op->getResult(0))) {
    sys.ge0(result - r->first);
    sys.ge0(Lin::of(r->second) - result);
  }
  return result;
}

Lin SystemBuilder::choice(Operation *op, const Instance &in, int depth) {
  Value v = op->getResult(0);
  bool created = false;
  Lin m = Lin::var(leaf(v, in, &created));
  if (!created)
    return m;
  bool isMin = isa<arith::MinUIOp, arith::MinSIOp>(op);
  Lin a = expr(op->getOperand(0), in, depth + 1),
      b = expr(op->getOperand(1), in, depth + 1);
  sys.ge0(isMin ? a - m : m - a);
  sys.ge0(isMin ? b - m : m - b);
  choices.push_back(ChoiceTerm{m, a, b});
  return m;
}

Lin SystemBuilder::unsignedMin(Operation *op, Value x, Value size,
                               const Instance &in, int depth) {
  Value v = op->getResult(0);
  bool created = false;
  Lin m = Lin::var(leaf(v, in, &created));
  if (!created)
    return m;
  Lin a = expr(x, in, depth + 1), b = expr(size, in, depth + 1);
  SelectTerm term{m, a, b, {}, {}};
  term.ifTrue.push_back({a, false});
  term.ifTrue.push_back({b - a, false});
  selects.push_back(std::move(term));
  return m;
}

/// The truth of `cond` wherever `in` runs, when `in`'s op lies in a branch
/// of an scf.if on `cond` itself; nullopt otherwise. (Read by a select in a
/// region around `in`'s op, `cond` has the same value there.)
static std::optional<bool> truthAt(Value cond, Operation *user,
                                   const Instance &in, Operation *kernel) {
  if (!in.op || !user->getParentRegion()->isAncestor(in.op->getParentRegion()))
    return std::nullopt;
  for (Operation *child = in.op, *parent = child->getParentOp();
       parent && child != kernel;
       child = parent, parent = parent->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(parent);
        ifOp && ifOp.getCondition() == cond)
      return child->getParentRegion() == &ifOp.getThenRegion();
  return std::nullopt;
}

Lin SystemBuilder::select(arith::SelectOp op, const Instance &in, int depth) {
  // A clamp under the guard that makes it a no-op: no case to split.
  if (std::optional<bool> truth =
          truthAt(op.getCondition(), op, in, model.kernel))
    return expr(*truth ? op.getTrueValue() : op.getFalseValue(), in, depth + 1);
  Value v = op.getResult();
  bool created = false;
  Lin m = Lin::var(leaf(v, in, &created));
  if (!created)
    return m;
  SelectTerm term{m,
                  expr(op.getTrueValue(), in, depth + 1),
                  expr(op.getFalseValue(), in, depth + 1),
                  {},
                  {}};
  constraintsOf(op.getCondition(), true, in, term.ifTrue);
  constraintsOf(op.getCondition(), false, in, term.ifFalse);
  selects.push_back(std::move(term));
  return m;
}

Lin SystemBuilder::warpgroupOf(const Instance &in) {
  return divMod(threadId(in), 128, /*wantRemainder=*/false);
}

Lin SystemBuilder::warpOf(const Instance &in) {
  return divMod(threadId(in), 32, /*wantRemainder=*/false);
}

Lin SystemBuilder::threadId(const Instance &in) {
  return threadDim(in, 0) + threadDim(in, 1) * model.block[0] +
         threadDim(in, 2) * (model.block[0] * model.block[1]);
}

Lin SystemBuilder::expr(Value v, const Instance &in, int depth) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return Lin::of(*c);
  // One translation per value and instance context (thread, iterations of
  // the loops around its definition): shared sub-expressions share variables.
  auto key = std::make_pair(v.getAsOpaquePointer(), contextKey(v, in));
  if (auto it = exprs.find(key); it != exprs.end())
    return it->second;
  Lin result = translate(v, in, depth);
  exprs.emplace(std::move(key), result);
  return result;
}

std::vector<int64_t> SystemBuilder::contextKey(Value v, const Instance &in) {
  std::vector<int64_t> key;
  key.push_back(in.thread);
  Operation *scope = v.getParentRegion()->getParentOp();
  SmallVector<scf::ForOp> loops = enclosingLoops(scope, model.kernel);
  if (auto loop = dyn_cast<scf::ForOp>(scope))
    loops.push_back(loop);
  for (scf::ForOp loop : loops) {
    std::optional<unsigned> k = in.iteration.lookup(loop).asVar();
    key.push_back(k ? int64_t(*k) : -2 - int64_t(sys.var(0, std::nullopt)));
  }
  return key;
}

Lin SystemBuilder::translate(Value v, const Instance &in, int depth) {
  auto opaque = [&] {
    if (model.uniformity.isDivergent(v, model.sharing) &&
        !llvm::is_contained(inexact, v))
      inexact.push_back(v);
    return Lin::var(leaf(v, in));
  };
  if (depth > 64)
    return opaque();
  auto nonNegative = [&](Value x) { return model.nonNegative(x); };

  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (loop && arg == loop.getInductionVar()) {
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      if (step && in.iteration.count(loop))
        return expr(loop.getLowerBound(), in, depth + 1) +
               in.iteration.lookup(loop) * *step;
      if (!step && in.iteration.count(loop))
        return symbolicStepInduction(loop, in, depth);
    }
    return opaque();
  }

  Operation *op = v.getDefiningOp();
  if (std::optional<LaunchIndex> index = getLaunchIndex(op)) {
    switch (index->kind) {
    case LaunchIndex::Kind::ThreadId:
      return threadDim(in, index->dim);
    case LaunchIndex::Kind::BlockId:
      return blockId(in, index->dim);
    case LaunchIndex::Kind::BlockDim:
      return blockDim(index->dim);
    case LaunchIndex::Kind::GridDim:
      return gridDim(index->dim);
    }
  }
  if (isa<gpu::LaneIdOp, NVVM::LaneIdOp>(op)) {
    // The lane is the linear id's low bits only when the block size is
    // known (threadId's multipliers are the real ones).
    if (!model.blockKnown)
      return opaque();
    return divMod(threadId(in), 32, /*wantRemainder=*/true);
  }
  // One buffer's dimension is one value, however many ops read it.
  if (auto dim = dyn_cast<memref::DimOp>(op))
    if (std::optional<int64_t> index = dim.getConstantIndex())
      if (Value first = model.dimValue(dim.getSource(), *index); first != v)
        return expr(first, in, depth + 1);
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
          arith::ExtSIOp>(op))
    return expr(op->getOperand(0), in, depth + 1);
  if (isa<arith::AddIOp>(op))
    return expr(op->getOperand(0), in, depth + 1) +
           expr(op->getOperand(1), in, depth + 1);
  if (isa<arith::SubIOp>(op))
    return expr(op->getOperand(0), in, depth + 1) -
           expr(op->getOperand(1), in, depth + 1);
  if (isa<arith::MulIOp>(op)) {
    // A factor that translates to a constant (gpu.block_dim of a known
    // block) keeps the product linear: blockDim * gridDim, a grid-stride
    // loop's step.
    Lin x = expr(op->getOperand(0), in, depth + 1),
        y = expr(op->getOperand(1), in, depth + 1);
    if (std::optional<int64_t> c = y.asConstant())
      return x * *c;
    if (std::optional<int64_t> c = x.asConstant())
      return y * *c;
    return opaque();
  }
  if (isa<arith::ShLIOp>(op))
    if (std::optional<int64_t> c = getConstantIntValue(op->getOperand(1));
        c && *c >= 0 && *c < 62)
      return expr(op->getOperand(0), in, depth + 1) * (int64_t(1) << *c);
  // Division and remainder by a positive constant of a non-negative value.
  std::optional<int64_t> divisor;
  bool remainder = false;
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp,
          arith::FloorDivSIOp>(op)) {
    divisor = getConstantIntValue(op->getOperand(1));
    remainder = isa<arith::RemUIOp, arith::RemSIOp>(op);
  } else if (isa<arith::ShRUIOp, arith::ShRSIOp>(op)) {
    if (std::optional<int64_t> c = getConstantIntValue(op->getOperand(1));
        c && *c >= 0 && *c < 62)
      divisor = int64_t(1) << *c;
  } else if (isa<arith::AndIOp>(op)) {
    // x & (2^n - 1) == x % 2^n.
    if (std::optional<int64_t> c = getConstantIntValue(op->getOperand(1));
        c && *c > 0 && llvm::isPowerOf2_64(uint64_t(*c) + 1)) {
      divisor = *c + 1;
      remainder = true;
    }
  }
  if (divisor && *divisor > 0 && nonNegative(op->getOperand(0)))
    return divMod(expr(op->getOperand(0), in, depth + 1), *divisor, remainder);
  // By a non-negative value (every one of these agrees then); it is not 0
  // where the op runs, as dividing by 0 is undefined behaviour (Tiles per
  // row, ceil(n / 16), are 0 only when n is, and then no access happens).
  if (!divisor &&
      isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp,
          arith::FloorDivSIOp>(op) &&
      nonNegative(op->getOperand(0)) && nonNegative(op->getOperand(1)))
    return symbolicDivMod(op, expr(op->getOperand(0), in, depth + 1),
                          op->getOperand(1), in, remainder, depth);
  if (auto ceil = dyn_cast<arith::CeilDivUIOp>(op)) {
    if (std::optional<int64_t> d = getConstantIntValue(ceil.getRhs());
        d && *d > 0)
      return divMod(expr(ceil.getLhs(), in, depth + 1) + (*d - 1), *d, false);
    // ceil(x / d) = (x + d - 1) / d.
    if (nonNegative(ceil.getRhs()) && nonNegative(ceil.getLhs()))
      return symbolicDivMod(op,
                            expr(ceil.getLhs(), in, depth + 1) +
                                expr(ceil.getRhs(), in, depth + 1) - 1,
                            ceil.getRhs(), in, false, depth);
  }
  // A select of integers on one condition (not a vector of them).
  if (auto sel = dyn_cast<arith::SelectOp>(op);
      sel && sel.getCondition().getType().isInteger(1))
    return select(sel, in, depth);
  // min and max: signed, or unsigned of non-negative values.
  if (isa<arith::MinSIOp, arith::MaxSIOp>(op) ||
      (isa<arith::MinUIOp, arith::MaxUIOp>(op) &&
       nonNegative(op->getOperand(0)) && nonNegative(op->getOperand(1))))
    return choice(op, in, depth);
  // An unsigned min with one side non-negative (a size): the other side
  // where it lies in [0, the size], else the size (a negative value is a
  // huge unsigned one). A clamp `minui(i + 32, n)` whose sum the range
  // analysis cannot keep from wrapping.
  if (isa<arith::MinUIOp>(op))
    for (unsigned i = 0; i < 2; ++i)
      if (nonNegative(op->getOperand(1 - i)))
        return unsignedMin(op, op->getOperand(i), op->getOperand(1 - i), in,
                           depth);
  // x ^ c and x & c with c a constant of a few set bits and x >= 0: sums
  // over c's bits of x's bit b, (x / 2^b) mod 2 (exact; a bitonic network's
  // partner `tid ^ j` and direction `tid & k`).
  if (isa<arith::XOrIOp, arith::AndIOp>(op)) {
    for (unsigned side : {1u, 0u}) {
      std::optional<int64_t> c = getConstantIntValue(op->getOperand(side));
      Value x = op->getOperand(1 - side);
      if (!c || *c < 0 || *c >= (int64_t(1) << 30) ||
          llvm::popcount(uint64_t(*c)) > kMaxBitTerms || !nonNegative(x))
        continue;
      bool isXor = isa<arith::XOrIOp>(op);
      Lin value = expr(x, in, depth + 1);
      Lin sum = isXor ? value : Lin::of(0);
      for (int64_t b = 0; b < 30; ++b) {
        if (!((*c >> b) & 1))
          continue;
        int64_t weight = int64_t(1) << b;
        Lin bit = divMod(divMod(value, weight, false), 2, true);
        // x ^ 2^b flips the bit: + 2^b where it is 0, - 2^b where it is 1.
        sum =
            isXor ? sum + (Lin::of(1) - bit * 2) * weight : sum + bit * weight;
      }
      return sum;
    }
  }
  // x ^ y with 0 <= y < 2^n: the high bits of x stay and the low n bits are
  // some r in [0, 2^n). What races need of xor is that it is a bijection for
  // a fixed y; solve() adds that between the two threads' instances of the
  // same xor by cases (`xors`).
  if (isa<arith::XOrIOp>(op)) {
    Value a = op->getOperand(0), b = op->getOperand(1);
    std::optional<std::pair<int64_t, int64_t>> ra = model.range(a),
                                               rb = model.range(b);
    if (ra && rb && ra->first >= 0 && rb->first >= 0) {
      if (ra->second < rb->second)
        std::swap(a, b), std::swap(ra, rb);
      unsigned bits = llvm::Log2_64_Ceil(uint64_t(rb->second) + 1);
      if (bits < 30) {
        int64_t low = int64_t(1) << bits;
        Lin x = expr(a, in, depth + 1), y = expr(b, in, depth + 1);
        Lin high = divMod(x, low, false);
        Lin r = Lin::var(sys.var(0, low - 1));
        xors.push_back(XorTerm{v, in.thread, x - high * low, y, r});
        return high * low + r;
      }
    }
  }
  return opaque();
}

void SystemBuilder::condition(Value cond, bool truth, const Instance &in) {
  SmallVector<Constraint, 4> constraints;
  constraintsOf(cond, truth, in, constraints);
  for (const Constraint &k : constraints)
    k.equality ? sys.eq0(k.form) : sys.ge0(k.form);
}

void SystemBuilder::constraintsOf(Value cond, bool truth, const Instance &in,
                                  SmallVectorImpl<Constraint> &out) {
  if (auto andOp = cond.getDefiningOp<arith::AndIOp>()) {
    if (truth) {
      constraintsOf(andOp.getLhs(), true, in, out);
      constraintsOf(andOp.getRhs(), true, in, out);
    }
    return; // not (a and b) is a disjunction: dropped (sound).
  }
  if (auto orOp = cond.getDefiningOp<arith::OrIOp>()) {
    if (!truth) {
      constraintsOf(orOp.getLhs(), false, in, out);
      constraintsOf(orOp.getRhs(), false, in, out);
    }
    return;
  }
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp || !cmp.getLhs().getType().isIntOrIndex())
    return;
  using P = arith::CmpIPredicate;
  P pred =
      truth ? cmp.getPredicate() : arith::invertPredicate(cmp.getPredicate());
  bool isUnsigned =
      pred == P::ult || pred == P::ule || pred == P::ugt || pred == P::uge;
  if (isUnsigned) {
    // Unsigned order is the signed one for non-negative values.
    if (!model.nonNegative(cmp.getLhs()) || !model.nonNegative(cmp.getRhs()))
      return;
  }
  Lin lhs = expr(cmp.getLhs(), in), rhs = expr(cmp.getRhs(), in);
  switch (pred) {
  case P::slt:
  case P::ult:
    return out.push_back({rhs - lhs - 1, false});
  case P::sle:
  case P::ule:
    return out.push_back({rhs - lhs, false});
  case P::sgt:
  case P::ugt:
    return out.push_back({lhs - rhs - 1, false});
  case P::sge:
  case P::uge:
    return out.push_back({lhs - rhs, false});
  case P::eq:
    return out.push_back({lhs - rhs, true});
  case P::ne:
    return; // a disjunction: dropped.
  }
}

// Selects come first: the guard around a clamp refutes its other value at
// once. Then divisions: how two quotients compare refutes most systems
// alone (tiles of different groups), where a min/max's case rarely does
// (the grouped raster's 16 min/max cases before its divisions took 7x the
// systems).
SmallVector<SmallVector<Alternative, 2>, 4>
smem::getCaseSplits(const SystemBuilder &builder) {
  SmallVector<SmallVector<Alternative, 2>, 4> splits;
  for (const SystemBuilder::SelectTerm &t : builder.selects) {
    Alternative taken = {{t.m - t.a, true}}, notTaken = {{t.m - t.b, true}};
    taken.append(t.ifTrue.begin(), t.ifTrue.end());
    notTaken.append(t.ifFalse.begin(), t.ifFalse.end());
    splits.push_back({std::move(taken), std::move(notTaken)});
  }
  // Two divisions by one divisor value: x1 < x2 iff (q1, r1) < (q2, r2)
  // lexicographically, and then x2 - x1 >= d + r2 - r1 when q1 < q2.
  for (auto [i, t1] : llvm::enumerate(builder.divs))
    for (const SystemBuilder::DivTerm &t2 :
         llvm::drop_begin(builder.divs, i + 1)) {
      // (Between the two instances: within one, the axioms are rarely what
      // a proof needs, and each pair multiplies the cases.)
      if (t1.divisor != t2.divisor || t1.thread == t2.thread)
        continue;
      SmallVector<Alternative, 2> alts;
      bool sameD = (t1.d - t2.d).asConstant() == std::optional<int64_t>(0);
      if (!sameD) {
        alts.push_back({{t2.d - t1.d - 1, false}});
        alts.push_back({{t1.d - t2.d - 1, false}});
      }
      SystemBuilder::Constraint equalD{t1.d - t2.d, true};
      Lin dx = t2.x - t1.x, dq = t2.q - t1.q, dr = t2.r - t1.r;
      alts.push_back({equalD, {dq - 1, false}, {dx - dr - t1.d, false}});
      alts.push_back({equalD, {dq, true}, {dr - 1, false}, {dx - dr, true}});
      alts.push_back({equalD, {dx, true}, {dq, true}, {dr, true}});
      alts.push_back({equalD, {dq * -1 - 1, false}, {dr - dx - t1.d, false}});
      alts.push_back(
          {equalD, {dq, true}, {dr * -1 - 1, false}, {dx - dr, true}});
      splits.push_back(std::move(alts));
    }
  for (const SystemBuilder::ChoiceTerm &c : builder.choices)
    splits.push_back({{{c.m - c.a, true}}, {{c.m - c.b, true}}});
  splits.append(builder.orderSplits.begin(), builder.orderSplits.end());
  // Two executions take different slots of one counter element: the one
  // that lands first at least its amount below the other. Where an
  // element's indices vary, the elements differ or the slots do.
  using Distinct = SystemBuilder::Distinct;
  if (builder.distinct != Distinct::None)
    for (auto [i, a] : llvm::enumerate(builder.slotLeaves))
      for (const SystemBuilder::SlotLeaf &b :
           llvm::drop_begin(builder.slotLeaves, i + 1)) {
        if (a.counter != b.counter || a.thread == b.thread ||
            (builder.distinct != Distinct::Blocks && (a.shared || b.shared)))
          continue;
        Alternative aFirst = {{Lin::var(b.var) - Lin::var(a.var) - a.amount,
                               false}},
                    bFirst = {
                        {Lin::var(a.var) - Lin::var(b.var) - b.amount, false}};
        if (a.element && b.element) {
          if (*a.element == *b.element)
            splits.push_back({std::move(aFirst), std::move(bFirst)});
          continue;
        }
        SmallVector<Alternative, 2> alternatives;
        for (auto [x, y] : llvm::zip(a.at, b.at)) {
          alternatives.push_back({{x - y - 1, false}});
          alternatives.push_back({{y - x - 1, false}});
          aFirst.push_back({x - y, true});
          bFirst.push_back({x - y, true});
        }
        alternatives.push_back(std::move(aFirst));
        alternatives.push_back(std::move(bFirst));
        splits.push_back(std::move(alternatives));
      }
  return splits;
}

void SystemBuilder::addGuards(const Instance &in,
                              function_ref<bool(Value)> keep) {
  for (Operation *child = in.op, *parent = in.op->getParentOp();
       parent && child != model.kernel;
       child = parent, parent = parent->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(parent);
        ifOp && (!keep || keep(ifOp.getCondition())))
      condition(ifOp.getCondition(),
                child->getParentRegion() == &ifOp.getThenRegion(), in);
}

/// The subview that gives `memref` a dynamic offset through casts, whose
/// source has static strides (its offset then is the source's plus the
/// offsets times those strides), or null.
static memref::SubViewOp dynamicOffsetSubview(Value memref,
                                              const Model &model) {
  while (auto cast = memref.getDefiningOp<memref::CastOp>())
    memref = cast.getSource();
  auto subview = memref.getDefiningOp<memref::SubViewOp>();
  if (!subview)
    return nullptr;
  const Model::Layout *source = model.layout(subview.getSourceType());
  if (!source || llvm::any_of(source->strides, ShapedType::isDynamic))
    return nullptr;
  return subview;
}

/// Whether the element offset of `memref`'s layout is static or follows
/// from subviews of static strides (SystemBuilder::elementOffset).
static bool hasModelledOffset(Value memref, const Model &model) {
  for (int depth = 0; depth < 64; ++depth) {
    const Model::Layout *layout =
        model.layout(cast<MemRefType>(memref.getType()));
    if (!layout)
      return false;
    if (!ShapedType::isDynamic(layout->offset))
      return true;
    memref::SubViewOp subview = dynamicOffsetSubview(memref, model);
    if (!subview)
      return false;
    memref = subview.getSource();
  }
  return false;
}

Lin SystemBuilder::elementOffset(Value memref, const Instance &in) {
  int64_t offset = model.layout(cast<MemRefType>(memref.getType()))->offset;
  if (!ShapedType::isDynamic(offset))
    return Lin::of(offset);
  memref::SubViewOp subview = dynamicOffsetSubview(memref, model);
  const Model::Layout *source = model.layout(subview.getSourceType());
  Lin result = elementOffset(subview.getSource(), in);
  for (auto [at, stride] :
       llvm::zip(subview.getMixedOffsets(), source->strides)) {
    if (std::optional<int64_t> c = getConstantIntValue(at))
      result = result + Lin::of(*c) * stride;
    else
      result = result + expr(cast<Value>(at), in) * stride;
  }
  return result;
}

FailureOr<Value> smem::sharedRoot(const SharedAccess &a, const Model &model) {
  const Model::Layout *layout =
      model.layout(cast<MemRefType>(a.access.memref.getType()));
  if (!layout || !hasModelledOffset(a.access.memref, model) ||
      llvm::any_of(layout->strides, ShapedType::isDynamic))
    return failure();
  Value memref = a.access.memref;
  while (Operation *def = memref.getDefiningOp()) {
    if (isa<memref::ViewOp, memref::SubViewOp, memref::ReinterpretCastOp,
            memref::CastOp, memref::AssumeAlignmentOp>(def))
      memref = def->getOperand(0);
    else if (isa<gpu::DynamicSharedMemoryOp, memref::AllocOp, memref::AllocaOp,
                 memref::GetGlobalOp>(def))
      return memref;
    else
      return failure();
  }
  return memref;
}

FailureOr<std::pair<Value, Lin>> SystemBuilder::address(const SharedAccess &a,
                                                        const Instance &in) {
  FailureOr<Value> root = sharedRoot(a, model);
  if (failed(root))
    return failure();
  const Model::Layout *layout =
      model.layout(cast<MemRefType>(a.access.memref.getType()));
  Lin elements = elementOffset(a.access.memref, in);
  for (auto [index, stride] : llvm::zip(a.access.indices, layout->strides))
    elements = elements + expr(index, in) * stride;
  // (The warpgroup ops number warps by thread id x alone.)
  if (a.access.warpgroupStride)
    elements =
        elements + divMod(threadDim(in, 0), 128, /*wantRemainder=*/false) *
                       a.access.warpgroupStride;
  Lin bytes = elements * a.elementBytes;
  // Views add their byte shifts; subviews, reinterpret_casts and casts have
  // layouts that give offsets from the base allocation already.
  for (Value memref = a.access.memref; memref != *root;) {
    Operation *def = memref.getDefiningOp();
    if (auto view = dyn_cast<memref::ViewOp>(def))
      bytes = bytes + expr(view.getByteShift(), in);
    memref = def->getOperand(0);
  }
  return std::make_pair(*root, bytes);
}
