//===- SharedMemory.cpp - Races and async-copy ordering on shared memory --===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Every question is asked as a Presburger system (upstream
// `presburger::IntegerPolyhedron`) whose emptiness proves the kernel safe:
//
//  - An access is a byte interval [addr, addr + width) of its root allocation
//    (dynamic shared memory, a workgroup attribution, a workgroup alloc or
//    global). Index arithmetic is translated exactly where it is affine or
//    quasi-affine (+, -, * and / and % by constants, shifts, masks, xor of
//    small values through their bits); anything else is an unknown bounded by
//    IntegerRangeAnalysis, shared by the two threads when the uniformity
//    analysis says it is the same for every thread.
//  - An op instance is an op and the iteration k of every scf.for around it.
//    The number of barriers, and of async-group commits, a thread has passed
//    before an instance is affine in the k's and the trip counts: barriers
//    and commits must run a known number of times per loop iteration.
//  - AMK-SMEM-RACE: two instances, threads t1 != t2, at least one a plain
//    write, the same barrier count (no barrier between them), overlapping
//    bytes.
//  - AMK-ASYNC-UNWAITED: an async copy's bytes are in flight from the copy
//    until a `wait_group N` retires its group (the copy is in group c, the
//    number of commits before it; `wait_group N` after C commits retires the
//    groups below C - N), and for other threads until a barrier follows that
//    wait. An access to them by the same thread before the wait, or by another
//    thread before the barrier after it, is reported. The wait and barrier
//    taken are the latest ones before the access (earlier ones retire less),
//    found per structured path: the same block, the previous loop iteration,
//    or before the loop.
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"

#include "AMK/Analysis/Address.h"
#include "AMK/Analysis/Uniformity.h"
#include "Bounds.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <deque>
#include <map>
#include <memory>
#include <numeric>

using namespace mlir;
using namespace mlir::amk;
using presburger::IntegerPolyhedron;
using presburger::PresburgerSpace;
using presburger::VarKind;

namespace {

//===----------------------------------------------------------------------===//
// Affine expressions over the variables of one system
//===----------------------------------------------------------------------===//

/// sum(coeff * var) + constant; `valid` is false after an overflow.
struct Lin {
  llvm::SmallVector<std::pair<unsigned, int64_t>, 4> terms;
  int64_t constant = 0;
  bool valid = true;

  static Lin of(int64_t c) {
    Lin l;
    l.constant = c;
    return l;
  }
  static Lin var(unsigned v) {
    Lin l;
    l.terms.push_back({v, 1});
    return l;
  }
  Lin operator+(const Lin &o) const {
    Lin r = *this;
    r.valid &= o.valid;
    r.terms.append(o.terms.begin(), o.terms.end());
    r.valid &= !llvm::AddOverflow(constant, o.constant, r.constant);
    return r;
  }
  Lin operator*(int64_t f) const {
    Lin r = *this;
    for (auto &[v, c] : r.terms)
      r.valid &= !llvm::MulOverflow(c, f, c);
    r.valid &= !llvm::MulOverflow(constant, f, r.constant);
    return r;
  }
  Lin operator-(const Lin &o) const { return *this + o * -1; }
  Lin operator+(int64_t c) const { return *this + of(c); }
  Lin operator-(int64_t c) const { return *this + of(-c); }
  /// The constant, when no variable has a non-zero coefficient.
  std::optional<int64_t> asConstant() const {
    llvm::SmallDenseMap<unsigned, int64_t> sum;
    for (auto [v, c] : terms)
      sum[v] += c;
    for (auto [v, c] : sum)
      if (c != 0)
        return std::nullopt;
    return constant;
  }
  /// The variable, when this is exactly one variable.
  std::optional<unsigned> asVar() const {
    if (terms.size() == 1 && terms[0].second == 1 && constant == 0)
      return terms[0].first;
    return std::nullopt;
  }
};

/// Integer-exact simplification of a conjunction of rows (coefficients, then
/// the constant; `= 0` or `>= 0`), each step keeping exactly the integer
/// points: inequalities divided by the gcd g of their coefficients (a.x + c
/// >= 0 iff a/g.x + floor(c/g) >= 0), opposite pairs whose constants cancel
/// made equalities (or a contradiction when they cross), equalities whose
/// coefficients' gcd does not divide the constant refuted (GCD test), and
/// variables with a unit coefficient in an equality substituted away (a
/// unimodular change). Tightening turns |12288 (r1 - r2)| < 12288 into r1 =
/// r2, which the GCD test on the ring-stage divisions then refutes: systems
/// generalized basis reduction needs milliseconds for.
struct Reducer {
  explicit Reducer(unsigned n) : n(n) {}

  /// true: no integer point; false: gave up (an overflow); nullopt: the
  /// rows are reduced and hold the same integer points.
  std::optional<bool> reduce() {
    for (int round = 0; round < 8; ++round) {
      std::optional<bool> changed = tighten();
      if (!changed)
        return true;
      bool substituted = false;
      for (size_t i = 0; i < eqs.size();) {
        unsigned j = 0;
        while (j < n && eqs[i][j] != 1 && eqs[i][j] != -1)
          ++j;
        if (j == n) {
          ++i;
          continue;
        }
        int64_t a = eqs[i][j];
        std::vector<int64_t> eq = std::move(eqs[i]);
        eqs.erase(eqs.begin() + i);
        for (auto *rows : {&eqs, &ineqs})
          for (std::vector<int64_t> &row : *rows)
            if (row[j] != 0 && !subtract(row, eq, row[j] * a))
              return false;
        substituted = true;
      }
      if (!substituted && !*changed)
        return std::nullopt;
    }
    return std::nullopt;
  }

  unsigned n;
  std::vector<std::vector<int64_t>> eqs, ineqs;

private:
  /// row -= f * eq.
  static bool subtract(std::vector<int64_t> &row,
                       const std::vector<int64_t> &eq, int64_t f) {
    for (size_t k = 0; k < row.size(); ++k) {
      int64_t p;
      if (llvm::MulOverflow(f, eq[k], p) ||
          llvm::SubOverflow(row[k], p, row[k]))
        return false;
    }
    return true;
  }

  /// Divides every row by the gcd of its coefficients; nullopt when a row
  /// is a contradiction, else whether inequalities became equalities.
  std::optional<bool> tighten() {
    auto normalize = [&](std::vector<int64_t> &row, bool equality,
                         bool &contradiction) -> bool {
      int64_t g = 0;
      for (unsigned j = 0; j < n; ++j) {
        if (row[j] == INT64_MIN)
          return true; // left as it is
        g = std::gcd(g, row[j]);
      }
      int64_t &c = row[n];
      if (g == 0) {
        contradiction = equality ? c != 0 : c < 0;
        return false; // constant: true or false, dropped either way
      }
      if (equality && c % g != 0) {
        contradiction = true;
        return false;
      }
      for (unsigned j = 0; j < n; ++j)
        row[j] /= g;
      c = equality ? c / g : llvm::divideFloorSigned(c, g);
      return true;
    };
    bool contradiction = false;
    for (bool equality : {true, false}) {
      llvm::erase_if(equality ? eqs : ineqs, [&](std::vector<int64_t> &row) {
        return !normalize(row, equality, contradiction);
      });
      if (contradiction)
        return std::nullopt;
    }
    // The tightest constant per coefficient vector; opposite pairs.
    std::map<std::vector<int64_t>, int64_t> tightest;
    for (std::vector<int64_t> &row : ineqs) {
      int64_t c = row.back();
      row.pop_back();
      auto [it, inserted] = tightest.try_emplace(std::move(row), c);
      if (!inserted)
        it->second = std::min(it->second, c);
    }
    ineqs.clear();
    bool changed = false;
    for (auto &[a, c] : tightest) {
      std::vector<int64_t> neg(a);
      bool negatable = true;
      for (int64_t &x : neg) {
        negatable &= x != INT64_MIN;
        x = -x;
      }
      std::vector<int64_t> row(a);
      row.push_back(c);
      auto it = negatable ? tightest.find(neg) : tightest.end();
      int64_t width;
      if (it == tightest.end() || llvm::AddOverflow(c, it->second, width)) {
        ineqs.push_back(std::move(row));
        continue;
      }
      // a.x + c >= 0 and -a.x + c' >= 0: -c <= a.x <= c'.
      if (width < 0)
        return std::nullopt;
      if (width > 0) {
        ineqs.push_back(std::move(row));
      } else if (a < neg) { // one equality per pair
        eqs.push_back(std::move(row));
        changed = true;
      }
    }
    return changed;
  }
};

/// One conjunction of constraints; empty means the question's answer is no.
class System {
public:
  unsigned var(std::optional<int64_t> lo, std::optional<int64_t> hi) {
    unsigned id = poly.appendVar(VarKind::SetDim);
    bounds.push_back({lo, hi});
    if (lo)
      ge0(Lin::var(id) - *lo);
    if (hi)
      ge0(Lin::of(*hi) - Lin::var(id));
    return id;
  }
  void ge0(const Lin &e) {
    if (std::optional<SmallVector<int64_t>> r = row(e))
      poly.addInequality(*r);
  }
  void eq0(const Lin &e) {
    if (std::optional<SmallVector<int64_t>> r = row(e))
      poly.addEquality(*r);
  }
  /// The interval of `e` by the variables' own bounds (nullopt: unbounded).
  std::optional<std::pair<int64_t, int64_t>> interval(const Lin &e) const {
    int64_t lo = e.constant, hi = e.constant;
    for (auto [v, c] : e.terms) {
      auto [vlo, vhi] = bounds[v];
      if (!vlo || !vhi)
        return std::nullopt;
      int64_t a, b;
      if (llvm::MulOverflow(*vlo, c, a) || llvm::MulOverflow(*vhi, c, b) ||
          llvm::AddOverflow(lo, std::min(a, b), lo) ||
          llvm::AddOverflow(hi, std::max(a, b), hi))
        return std::nullopt;
    }
    return std::make_pair(lo, hi);
  }
  /// An integer point satisfying the constraints, if any: upstream's exact
  /// search (generalized basis reduction).
  std::optional<SmallVector<int64_t>> sample() const {
    SmallVector<int64_t> point;
    // Nothing left to choose: the constraints are constants.
    if (poly.getNumVars() == 0) {
      for (unsigned i = 0, e = poly.getNumInequalities(); i < e; ++i)
        if (poly.atIneq(i, 0) < 0)
          return std::nullopt;
      for (unsigned i = 0, e = poly.getNumEqualities(); i < e; ++i)
        if (poly.atEq(i, 0) != 0)
          return std::nullopt;
      return point;
    }
    // Most systems are integer-empty but rationally feasible (ring stages:
    // k mod S against (k + S - 1) mod S), where generalized basis reduction
    // is slow; a cheaper proof of emptiness usually exists.
    if (provablyEmpty())
      return std::nullopt;
    auto exact = poly.findIntegerSample();
    if (!exact)
      return std::nullopt;
    for (const auto &x : *exact)
      point.push_back(int64_t(x));
    return point;
  }
  bool isEmpty() const { return !sample(); }
  static int64_t eval(const Lin &e, ArrayRef<int64_t> values) {
    int64_t r = e.constant;
    for (auto [v, c] : e.terms)
      r += c * values[v];
    return r;
  }

private:
  /// A sound, incomplete emptiness test; every step keeps the integer
  /// points exactly (`Reducer`), then upstream's Fourier-Motzkin with GCD
  /// tests (`isEmpty`) on what is left.
  bool provablyEmpty() const {
    unsigned n = poly.getNumVars();
    Reducer r(n);
    for (unsigned i = 0, e = poly.getNumEqualities(); i < e; ++i)
      r.eqs.push_back(rowOf(poly.getEquality(i)));
    for (unsigned i = 0, e = poly.getNumInequalities(); i < e; ++i)
      r.ineqs.push_back(rowOf(poly.getInequality(i)));
    if (std::optional<bool> empty = r.reduce())
      return *empty;
    IntegerPolyhedron rest(PresburgerSpace::getSetSpace(n));
    for (const std::vector<int64_t> &row : r.eqs)
      rest.addEquality(row);
    for (const std::vector<int64_t> &row : r.ineqs)
      rest.addInequality(row);
    return rest.isEmpty();
  }

  static std::vector<int64_t> rowOf(ArrayRef<DynamicAPInt> row) {
    std::vector<int64_t> out;
    for (const DynamicAPInt &x : row)
      out.push_back(int64_t(x));
    return out;
  }

  std::optional<SmallVector<int64_t>> row(const Lin &e) {
    if (!e.valid) {
      // Dropping a constraint only adds solutions: still sound.
      return std::nullopt;
    }
    SmallVector<int64_t> r(poly.getNumVars() + 1, 0);
    for (auto [v, c] : e.terms)
      r[v] += c;
    r.back() = e.constant;
    return r;
  }

  IntegerPolyhedron poly{PresburgerSpace::getSetSpace(0)};
  SmallVector<std::pair<std::optional<int64_t>, std::optional<int64_t>>> bounds;
};

//===----------------------------------------------------------------------===//
// Synchronization events
//===----------------------------------------------------------------------===//

enum class Event { Barrier, Commit, Wait };

static bool isEvent(Event kind, Operation *op) {
  switch (kind) {
  case Event::Barrier:
    return isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::BarrierOp>(op);
  case Event::Commit:
    return isa<nvgpu::DeviceAsyncCreateGroupOp>(op);
  case Event::Wait:
    return isa<nvgpu::DeviceAsyncWaitOp>(op);
  }
  return false;
}

static StringRef eventName(Event kind) {
  switch (kind) {
  case Event::Barrier:
    return "barriers";
  case Event::Commit:
    return "async-group commits";
  case Event::Wait:
    return "async waits";
  }
  return "";
}

static int64_t waitGroups(Operation *wait) {
  std::optional<uint32_t> n =
      cast<nvgpu::DeviceAsyncWaitOp>(wait).getNumGroups();
  return n ? *n : 0;
}

/// A shared-memory access of the kernel.
struct SharedAccess {
  MemoryAccess access;
  int64_t elementBytes;
  unsigned index;
};

/// An op instance: the iteration of each enclosing scf.for.
struct Instance {
  Operation *op = nullptr;
  unsigned thread = 0;
  llvm::DenseMap<Operation *, Lin> iteration;
};

/// The latest event of a kind before an instance, on one structured path
/// (`op` null: none), valid under `conditions` (each >= 0 or == 0).
struct Latest {
  Operation *op = nullptr;
  Instance instance;
  SmallVector<Lin> atLeastZero, equalZero;
};

class Model;

/// Builds one system: variables, translated expressions, counts.
class Builder {
public:
  Builder(const Model &model) : model(model) {}

  System sys;
  /// The low bits of an xor: r = x ^ y for x, y < 2^n, in thread `thread`.
  struct XorTerm {
    Value value;
    unsigned thread;
    Lin x, y, r;
  };
  std::vector<XorTerm> xors;
  /// Why a count or address could not be modelled (empty: fine).
  std::string whyNot;

  Instance instance(Operation *op, unsigned thread,
                    const llvm::DenseMap<Operation *, Lin> &fixed);
  Lin expr(Value v, const Instance &in, int depth = 0);
  void addGuards(const Instance &in);
  void condition(Value cond, bool truth, const Instance &in);
  Lin threadId(const Instance &in);
  Lin threadDim(const Instance &in, int d);
  std::optional<Lin> count(Event kind, Operation *op, const Instance &in);
  std::optional<int64_t> prefix(Event kind, Operation *op);
  void latest(Event kind, Operation *op, const Instance &in,
              std::vector<Latest> &out);
  FailureOr<std::pair<Value, Lin>> address(const SharedAccess &a,
                                           const Instance &in);

private:
  unsigned leaf(Value v, const Instance &in);
  std::vector<int64_t> contextKey(Value v, const Instance &in);
  Lin translate(Value v, const Instance &in, int depth);
  std::optional<Lin> tripCount(scf::ForOp loop);
  std::optional<Lin> total(Event kind, Operation *op);
  std::optional<Lin> computeTotal(Event kind, Operation *op);
  std::optional<int64_t> bodyTotal(Event kind, scf::ForOp loop);
  /// The events a block runs, when a constant.
  std::optional<int64_t> blockTotal(Event kind, Block &block);
  bool unconditional(Event kind, Block &body);
  Lin divMod(const Lin &x, int64_t d, bool wantRemainder);
  bool scanBack(Event kind, Operation *from, Block *block, Instance in,
                Latest conditions, std::vector<Latest> &out);

  const Model &model;
  std::map<std::pair<const void *, std::vector<int64_t>>, unsigned> leaves;
  llvm::DenseMap<Operation *, Lin> trips;
  std::map<std::pair<const void *, std::vector<int64_t>>, Lin> exprs;
  std::map<std::pair<std::vector<int64_t>, int64_t>, std::pair<Lin, Lin>>
      divisions;
};

/// Per-kernel facts shared by every system.
class Model {
public:
  Model(Operation *kernel, const UniformityInfo &uniformity,
        const DataFlowSolver &solver)
      : kernel(kernel), uniformity(uniformity), solver(solver) {
    if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
      if (DenseI32ArrayAttr size = func.getKnownBlockSizeAttr())
        for (auto [i, d] : llvm::enumerate(size.asArrayRef()))
          block[i] = d;
  }

  std::optional<std::pair<int64_t, int64_t>> range(Value v) const {
    auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
    if (!lattice || lattice->getValue().isUninitialized())
      return std::nullopt;
    const ConstantIntRanges &r = lattice->getValue().getValue();
    if (r.smin().getSignificantBits() > 62 ||
        r.smax().getSignificantBits() > 62)
      return std::nullopt;
    return std::make_pair(r.smin().getSExtValue(), r.smax().getSExtValue());
  }

  /// Whether `v` is never negative: by its signed minimum, however large
  /// its maximum (an induction variable up to a dynamic bound is).
  bool nonNegative(Value v) const {
    auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
    return lattice && !lattice->getValue().isUninitialized() &&
           !lattice->getValue().getValue().smin().isNegative();
  }

  bool contains(Event kind, Operation *op) const {
    auto [it, inserted] = containsCache[int(kind)].try_emplace(op, false);
    if (inserted)
      it->second = op->walk([&](Operation *inner) {
                       return isEvent(kind, inner) ? WalkResult::interrupt()
                                                   : WalkResult::advance();
                     }).wasInterrupted();
    return it->second;
  }

  Operation *kernel;
  const UniformityInfo &uniformity;
  const DataFlowSolver &solver;
  int64_t block[3] = {1024, 1024, 64};
  mutable llvm::DenseMap<Operation *, bool> containsCache[3];
  /// Event counts of ops that do not depend on symbolic trip counts.
  mutable llvm::DenseMap<Operation *, int64_t> constantTotals[3];
  /// The events the ops before an op in its block run, when a constant.
  mutable llvm::DenseMap<Operation *, std::optional<int64_t>> prefixTotals[3];
};

//===----------------------------------------------------------------------===//
// Builder
//===----------------------------------------------------------------------===//

static SmallVector<scf::ForOp> enclosingLoops(Operation *op,
                                              Operation *kernel) {
  SmallVector<scf::ForOp> loops;
  if (op == kernel)
    return loops;
  for (Operation *p = op->getParentOp(); p && p != kernel; p = p->getParentOp())
    if (auto loop = dyn_cast<scf::ForOp>(p))
      loops.push_back(loop);
  std::reverse(loops.begin(), loops.end());
  return loops;
}

static std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

Instance Builder::instance(Operation *op, unsigned thread,
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
    if (std::optional<int64_t> step = constantOf(loop.getStep());
        step && *step > 0) {
      Lin lb = expr(loop.getLowerBound(), in);
      Lin ub = expr(loop.getUpperBound(), in);
      sys.ge0(ub - 1 - (lb + k * *step));
    }
  }
  return in;
}

unsigned Builder::leaf(Value v, const Instance &in) {
  // The same value is one variable for both threads when it is uniform and
  // both are in the same iteration of every loop around its definition.
  std::vector<int64_t> key = contextKey(v, in);
  if (!model.uniformity.isDivergent(v))
    key[0] = -1;
  auto [it, inserted] =
      leaves.try_emplace({v.getAsOpaquePointer(), std::move(key)}, 0);
  if (inserted) {
    std::optional<std::pair<int64_t, int64_t>> r = model.range(v);
    it->second = sys.var(r ? std::optional(r->first) : std::nullopt,
                         r ? std::optional(r->second) : std::nullopt);
  }
  return it->second;
}

Lin Builder::divMod(const Lin &x, int64_t d, bool wantRemainder) {
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
  std::map<unsigned, int64_t> sum;
  for (auto [v, c] : x.terms)
    sum[v] += c;
  std::vector<int64_t> key;
  for (auto [v, c] : sum)
    if (c != 0)
      key.insert(key.end(), {int64_t(v), c});
  key.push_back(x.constant);
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

Lin Builder::threadDim(const Instance &in, int d) {
  if (model.block[d] == 1)
    return Lin::of(0);
  auto [it, inserted] = leaves.try_emplace(
      {nullptr, std::vector<int64_t>{int64_t(in.thread), d}}, 0);
  if (inserted)
    it->second = sys.var(0, model.block[d] - 1);
  return Lin::var(it->second);
}

Lin Builder::threadId(const Instance &in) {
  return threadDim(in, 0) + threadDim(in, 1) * model.block[0] +
         threadDim(in, 2) * (model.block[0] * model.block[1]);
}

Lin Builder::expr(Value v, const Instance &in, int depth) {
  if (std::optional<int64_t> c = constantOf(v))
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

std::vector<int64_t> Builder::contextKey(Value v, const Instance &in) {
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

Lin Builder::translate(Value v, const Instance &in, int depth) {
  auto opaque = [&] { return Lin::var(leaf(v, in)); };
  if (depth > 64)
    return opaque();
  auto nonNegative = [&](Value x) { return model.nonNegative(x); };

  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (loop && arg == loop.getInductionVar()) {
      std::optional<int64_t> step = constantOf(loop.getStep());
      if (step && in.iteration.count(loop))
        return expr(loop.getLowerBound(), in, depth + 1) +
               in.iteration.lookup(loop) * *step;
    }
    return opaque();
  }

  Operation *op = v.getDefiningOp();
  auto dimIndex = [](gpu::Dimension d) { return int(d); };
  if (auto tid = dyn_cast<gpu::ThreadIdOp>(op))
    return threadDim(in, dimIndex(tid.getDimension()));
  if (isa<NVVM::ThreadIdXOp, NVVM::ThreadIdYOp, NVVM::ThreadIdZOp>(op))
    return threadDim(in, isa<NVVM::ThreadIdXOp>(op)   ? 0
                         : isa<NVVM::ThreadIdYOp>(op) ? 1
                                                      : 2);
  if (isa<gpu::LaneIdOp, NVVM::LaneIdOp>(op))
    return divMod(threadId(in), 32, /*wantRemainder=*/true);
  if (auto bdim = dyn_cast<gpu::BlockDimOp>(op))
    return Lin::of(model.block[dimIndex(bdim.getDimension())]);
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
    if (std::optional<int64_t> c = constantOf(op->getOperand(1)))
      return expr(op->getOperand(0), in, depth + 1) * *c;
    if (std::optional<int64_t> c = constantOf(op->getOperand(0)))
      return expr(op->getOperand(1), in, depth + 1) * *c;
    return opaque();
  }
  if (isa<arith::ShLIOp>(op))
    if (std::optional<int64_t> c = constantOf(op->getOperand(1));
        c && *c >= 0 && *c < 62)
      return expr(op->getOperand(0), in, depth + 1) * (int64_t(1) << *c);
  // Division and remainder by a positive constant of a non-negative value.
  std::optional<int64_t> divisor;
  bool remainder = false;
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp,
          arith::FloorDivSIOp>(op)) {
    divisor = constantOf(op->getOperand(1));
    remainder = isa<arith::RemUIOp, arith::RemSIOp>(op);
  } else if (isa<arith::ShRUIOp, arith::ShRSIOp>(op)) {
    if (std::optional<int64_t> c = constantOf(op->getOperand(1));
        c && *c >= 0 && *c < 62)
      divisor = int64_t(1) << *c;
  } else if (isa<arith::AndIOp>(op)) {
    // x & (2^n - 1) == x % 2^n.
    if (std::optional<int64_t> c = constantOf(op->getOperand(1));
        c && *c > 0 && llvm::isPowerOf2_64(uint64_t(*c) + 1)) {
      divisor = *c + 1;
      remainder = true;
    }
  }
  if (divisor && *divisor > 0 && nonNegative(op->getOperand(0)))
    return divMod(expr(op->getOperand(0), in, depth + 1), *divisor, remainder);
  if (auto ceil = dyn_cast<arith::CeilDivUIOp>(op))
    if (std::optional<int64_t> d = constantOf(ceil.getRhs()); d && *d > 0)
      return divMod(expr(ceil.getLhs(), in, depth + 1) + (*d - 1), *d, false);
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

void Builder::condition(Value cond, bool truth, const Instance &in) {
  if (auto andOp = cond.getDefiningOp<arith::AndIOp>()) {
    if (truth) {
      condition(andOp.getLhs(), true, in);
      condition(andOp.getRhs(), true, in);
    }
    return; // not (a and b) is a disjunction: dropped (sound).
  }
  if (auto orOp = cond.getDefiningOp<arith::OrIOp>()) {
    if (!truth) {
      condition(orOp.getLhs(), false, in);
      condition(orOp.getRhs(), false, in);
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
    auto r1 = model.range(cmp.getLhs()), r2 = model.range(cmp.getRhs());
    if (!r1 || !r2 || r1->first < 0 || r2->first < 0)
      return;
  }
  Lin lhs = expr(cmp.getLhs(), in), rhs = expr(cmp.getRhs(), in);
  switch (pred) {
  case P::slt:
  case P::ult:
    return sys.ge0(rhs - lhs - 1);
  case P::sle:
  case P::ule:
    return sys.ge0(rhs - lhs);
  case P::sgt:
  case P::ugt:
    return sys.ge0(lhs - rhs - 1);
  case P::sge:
  case P::uge:
    return sys.ge0(lhs - rhs);
  case P::eq:
    return sys.eq0(lhs - rhs);
  case P::ne:
    return; // a disjunction: dropped.
  }
}

void Builder::addGuards(const Instance &in) {
  for (Operation *child = in.op, *parent = in.op->getParentOp();
       parent && child != model.kernel;
       child = parent, parent = parent->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(parent))
      condition(ifOp.getCondition(),
                child->getParentRegion() == &ifOp.getThenRegion(), in);
}

std::optional<Lin> Builder::tripCount(scf::ForOp loop) {
  if (auto it = trips.find(loop); it != trips.end())
    return it->second;
  std::optional<int64_t> lb = constantOf(loop.getLowerBound()),
                         ub = constantOf(loop.getUpperBound()),
                         step = constantOf(loop.getStep());
  if (lb && ub && step && *step > 0) {
    Lin t = Lin::of(*ub > *lb ? llvm::divideCeil(*ub - *lb, *step) : 0);
    return trips[loop] = t;
  }
  // A symbolic trip count: the same for every thread (the loop syncs, so
  // its bounds are uniform) and defined outside every loop.
  for (Value bound : {loop.getLowerBound(), loop.getUpperBound()})
    if (model.uniformity.isDivergent(bound) ||
        !enclosingLoops(bound.getParentRegion()->getParentOp(), model.kernel)
             .empty() ||
        isa<scf::ForOp>(bound.getParentRegion()->getParentOp()))
      return std::nullopt;
  Lin t = Lin::var(sys.var(0, std::nullopt));
  if (step && *step > 0) {
    Instance none;
    none.op = loop;
    Lin span =
        expr(loop.getUpperBound(), none) - expr(loop.getLowerBound(), none);
    sys.ge0(t * *step - span);
  }
  return trips[loop] = t;
}

std::optional<int64_t> Builder::bodyTotal(Event kind, scf::ForOp loop) {
  return blockTotal(kind, *loop.getBody());
}

std::optional<int64_t> Builder::blockTotal(Event kind, Block &block) {
  int64_t sum = 0;
  for (Operation &op : block) {
    std::optional<Lin> t = total(kind, &op);
    std::optional<int64_t> c = t ? t->asConstant() : std::nullopt;
    if (!c)
      return std::nullopt;
    sum += *c;
  }
  return sum;
}

std::optional<Lin> Builder::total(Event kind, Operation *op) {
  if (isEvent(kind, op))
    return Lin::of(1);
  if (!model.contains(kind, op))
    return Lin::of(0);
  auto &known = model.constantTotals[int(kind)];
  if (auto it = known.find(op); it != known.end())
    return Lin::of(it->second);
  std::optional<Lin> result = computeTotal(kind, op);
  if (result)
    if (std::optional<int64_t> c = result->asConstant())
      known[op] = *c;
  return result;
}

std::optional<Lin> Builder::computeTotal(Event kind, Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::optional<int64_t> body = bodyTotal(kind, loop);
    std::optional<Lin> trip = tripCount(loop);
    if (!body || !trip)
      return std::nullopt;
    return *trip * *body;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    auto regionTotal = [&](Region &r) -> std::optional<int64_t> {
      return r.empty() ? 0 : blockTotal(kind, r.front());
    };
    std::optional<int64_t> a = regionTotal(ifOp.getThenRegion()),
                           b = regionTotal(ifOp.getElseRegion());
    if (a && b && *a == *b)
      return Lin::of(*a);
  }
  return std::nullopt;
}

std::optional<int64_t> Builder::prefix(Event kind, Operation *op) {
  auto &known = model.prefixTotals[int(kind)];
  if (auto it = known.find(op); it != known.end())
    return it->second;
  // One pass over the block fills every op's prefix; a scratch builder keeps
  // symbolic trip counts met on the way out of this system.
  Builder scratch(model);
  std::optional<int64_t> running = 0;
  for (Operation &o : *op->getBlock()) {
    known[&o] = running;
    if (!running)
      continue;
    std::optional<Lin> t = scratch.total(kind, &o);
    std::optional<int64_t> c = t ? t->asConstant() : std::nullopt;
    if (c && !llvm::AddOverflow(*running, *c, *running))
      continue;
    running = std::nullopt;
  }
  return known.lookup(op);
}

std::optional<Lin> Builder::count(Event kind, Operation *op,
                                  const Instance &in) {
  Lin sum;
  for (Operation *cur = op;;) {
    std::optional<int64_t> before = prefix(kind, cur);
    if (before)
      sum = sum + *before;
    for (Operation *prev = before ? nullptr : cur->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      std::optional<Lin> t = total(kind, prev);
      if (!t) {
        whyNot = llvm::formatv("the {0} in '{1}' do not run a known number "
                               "of times",
                               eventName(kind), prev->getName())
                     .str();
        return std::nullopt;
      }
      sum = sum + *t;
    }
    Operation *parent = cur->getParentOp();
    if (!parent || parent == model.kernel)
      return sum;
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      std::optional<int64_t> body = bodyTotal(kind, loop);
      if (!body) {
        whyNot = llvm::formatv("the {0} in a loop iteration do not run a "
                               "known number of times",
                               eventName(kind))
                     .str();
        return std::nullopt;
      }
      sum = sum + in.iteration.lookup(loop) * *body;
    } else if (!isa<scf::IfOp>(parent)) {
      whyNot = llvm::formatv("'{0}' around an access is not modelled",
                             parent->getName())
                   .str();
      return std::nullopt;
    }
    cur = parent;
  }
}

/// Whether every iteration of a loop with this body runs an event of `kind`
/// at its top level (or in a nested loop that runs and does).
bool Builder::unconditional(Event kind, Block &body) {
  for (Operation &op : body) {
    if (isEvent(kind, &op))
      return true;
    if (auto loop = dyn_cast<scf::ForOp>(&op)) {
      std::optional<Lin> trip = tripCount(loop);
      std::optional<int64_t> c = trip ? trip->asConstant() : std::nullopt;
      if (c && *c >= 1 && unconditional(kind, *loop.getBody()))
        return true;
    }
  }
  return false;
}

/// Scans `block` backwards from `from` (exclusive; null: the end) for the
/// latest event; returns whether the scan is complete (an event found on
/// every case it split into).
bool Builder::scanBack(Event kind, Operation *from, Block *block, Instance in,
                       Latest conditions, std::vector<Latest> &out) {
  Operation *prev = from ? from->getPrevNode() : &block->back();
  for (; prev; prev = prev->getPrevNode()) {
    if (isEvent(kind, prev)) {
      conditions.op = prev;
      in.op = prev;
      conditions.instance = in;
      out.push_back(conditions);
      return true;
    }
    auto loop = dyn_cast<scf::ForOp>(prev);
    if (!loop || !model.contains(kind, loop) ||
        !unconditional(kind, *loop.getBody()))
      continue; // conditional events are skipped: earlier retire less.
    std::optional<Lin> trip = tripCount(loop);
    if (!trip)
      continue;
    // The loop ran (its last iteration has the latest event) ...
    Latest ran = conditions;
    ran.atLeastZero.push_back(*trip - 1);
    Instance inner = in;
    inner.iteration[loop] = *trip - 1;
    scanBack(kind, nullptr, loop.getBody(), inner, ran, out);
    // ... or did not.
    std::optional<int64_t> c = trip->asConstant();
    if (c && *c >= 1)
      return true;
    if (c)
      continue;
    conditions.equalZero.push_back(*trip);
  }
  return false;
}

void Builder::latest(Event kind, Operation *op, const Instance &in,
                     std::vector<Latest> &out) {
  Latest conditions;
  Instance ctx = in;
  for (Operation *cur = op;;) {
    if (scanBack(kind, cur, cur->getBlock(), ctx, conditions, out))
      return;
    Operation *parent = cur->getParentOp();
    if (!parent || parent == model.kernel) {
      conditions.op = nullptr;
      out.push_back(conditions);
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(parent);
        loop && unconditional(kind, *loop.getBody())) {
      // The previous iteration's last event ...
      Lin k = ctx.iteration.lookup(loop);
      Latest previous = conditions;
      previous.atLeastZero.push_back(k - 1);
      Instance before = ctx;
      before.iteration[loop] = k - 1;
      scanBack(kind, nullptr, loop.getBody(), before, previous, out);
      // ... or, in the first iteration, one before the loop.
      conditions.equalZero.push_back(k);
    }
    cur = parent;
  }
}

/// The allocation a shared access's view chain starts at (a workgroup
/// attribution when the chain ends at a block argument), or failure when
/// the access's layout or a view in the chain is not modelled.
static FailureOr<Value> sharedRoot(const SharedAccess &a) {
  auto type = cast<MemRefType>(a.access.memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
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

FailureOr<std::pair<Value, Lin>> Builder::address(const SharedAccess &a,
                                                  const Instance &in) {
  FailureOr<Value> root = sharedRoot(a);
  if (failed(root))
    return failure();
  auto type = cast<MemRefType>(a.access.memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  Lin elements = Lin::of(offset);
  for (auto [index, stride] : llvm::zip(a.access.indices, strides))
    elements = elements + expr(index, in) * stride;
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

//===----------------------------------------------------------------------===//
// The checks
//===----------------------------------------------------------------------===//

enum class Question {
  /// Two threads, a plain write and any plain access, no barrier between.
  Race,
  /// An async copy in flight, read or written by another thread.
  AsyncOtherThread,
  /// An async copy in flight, read or written by its own thread.
  AsyncSameThread,
  /// Either of the two, relaxed (any threads, not visible to them): a cheap
  /// screen, as both imply it.
  AsyncAnyThread,
};

enum class Threads { Distinct, Same, Any };

/// An address (or guard) split into a part every thread of the block
/// shares and a part that depends on the thread id alone, evaluated for
/// every thread: then two threads' accesses overlap only if the difference
/// of the shared parts is one of finitely many thread differences, and the
/// Presburger systems need no thread variables at all.
struct Separated {
  /// bytes = sum(coefficient * uniform value) + constant + perThread[t].
  SmallVector<std::pair<Value, int64_t>> uniform;
  int64_t constant = 0;
  std::vector<int64_t> perThread;
  /// Threads whose thread-only guards hold.
  std::vector<bool> active;
  /// Guards that do not depend on the thread (condition, truth).
  SmallVector<std::pair<Value, bool>> guards;
};

/// Accesses of one kind (async or not, write or not) in one block between
/// the same two synchronization ops, with the same uniform address part:
/// they share every count, so one system answers for all of them, and their
/// thread parts (with the constants) become one set of byte intervals.
struct Group {
  const SharedAccess *representative;
  SmallVector<const SharedAccess *> members;
  SmallVector<std::pair<Value, int64_t>> uniform;
  SmallVector<std::pair<Value, bool>> guards;
  struct Item {
    int64_t offset, width;
    int32_t thread, member;
  };
  /// Sorted by offset.
  std::vector<Item> items;
  int64_t maxWidth = 0;
};

/// Evaluates thread-only index arithmetic for every thread of the block.
class ThreadEvaluator {
public:
  ThreadEvaluator(const Model &model) : model(model) {}

  /// Whether `v` is a function of the thread id and constants alone.
  bool isThreadOnly(Value v, int depth = 0) {
    if (auto it = threadOnly.find(v); it != threadOnly.end())
      return it->second;
    bool result = false;
    if (Operation *op = v.getDefiningOp(); op && depth < 64) {
      if (isa<gpu::ThreadIdOp, NVVM::ThreadIdXOp, NVVM::ThreadIdYOp,
              NVVM::ThreadIdZOp, gpu::LaneIdOp, NVVM::LaneIdOp, gpu::BlockDimOp,
              arith::ConstantOp>(op))
        result = true;
      else if (isa<arith::ArithDialect>(op->getDialect()) &&
               op->getNumResults() == 1 &&
               op->getResult(0).getType().isIntOrIndex())
        result = llvm::all_of(op->getOperands(), [&](Value operand) {
          return isThreadOnly(operand, depth + 1);
        });
    }
    return threadOnly[v] = result;
  }

  /// The value for every thread of the block (linear thread order), or
  /// null when some thread divides by zero or the value uses an op the
  /// evaluator does not know (the caller then falls back to the full
  /// system). Computed once per value for all threads, so the accesses that
  /// share index arithmetic share its evaluation.
  const std::vector<int64_t> *values(Value v) {
    if (auto it = all.find(v); it != all.end())
      return it->second.get();
    std::unique_ptr<std::vector<int64_t>> r = compute(v);
    const std::vector<int64_t> *result = r.get();
    all[v] = std::move(r);
    return result;
  }

private:
  std::unique_ptr<std::vector<int64_t>> compute(Value v) {
    int64_t count = model.block[0] * model.block[1] * model.block[2];
    auto out = std::make_unique<std::vector<int64_t>>(count);
    std::vector<int64_t> &x = *out;
    auto perThread = [&](auto f) {
      for (int64_t t = 0; t < count; ++t)
        x[t] = f(t);
      return std::move(out);
    };
    if (std::optional<int64_t> c = constantOf(v))
      return perThread([&](int64_t) { return *c; });
    Operation *op = v.getDefiningOp();
    int64_t bx = model.block[0], by = model.block[1];
    auto dim = [&](int d) {
      return perThread([&](int64_t t) {
        return d == 0 ? t % bx : d == 1 ? t / bx % by : t / (bx * by);
      });
    };
    if (auto t = dyn_cast<gpu::ThreadIdOp>(op))
      return dim(int(t.getDimension()));
    if (isa<NVVM::ThreadIdXOp>(op))
      return dim(0);
    if (isa<NVVM::ThreadIdYOp>(op))
      return dim(1);
    if (isa<NVVM::ThreadIdZOp>(op))
      return dim(2);
    if (isa<gpu::LaneIdOp, NVVM::LaneIdOp>(op))
      return perThread([](int64_t t) { return t % 32; });
    if (auto d = dyn_cast<gpu::BlockDimOp>(op))
      return perThread(
          [&](int64_t) { return model.block[int(d.getDimension())]; });
    SmallVector<const std::vector<int64_t> *, 3> operands;
    for (Value operand : op->getOperands()) {
      const std::vector<int64_t> *e = values(operand);
      if (!e)
        return nullptr;
      operands.push_back(e);
    }
    SmallVector<int64_t, 3> args(operands.size());
    for (int64_t t = 0; t < count; ++t) {
      for (auto [i, e] : llvm::enumerate(operands))
        args[i] = (*e)[t];
      std::optional<int64_t> r = evaluateIntegerOp(op, args);
      if (!r)
        return nullptr;
      x[t] = *r;
    }
    return out;
  }

  const Model &model;
  llvm::DenseMap<Value, bool> threadOnly;
  llvm::DenseMap<Value, std::unique_ptr<std::vector<int64_t>>> all;
};

class Checker {
public:
  Checker(
      Operation *kernel, const UniformityInfo &uniformity,
      const DataFlowSolver &solver,
      llvm::function_ref<void(StringRef, Operation *, const Twine &)> report)
      : model(kernel, uniformity, solver), threads(model), report(report) {}

  void run();

private:
  /// What the checks compare: a group (thread-separated) or one access.
  struct Unit {
    const SharedAccess *access;
    const Group *group = nullptr;
  };
  /// A solution: the two accesses and a witness.
  struct Hit {
    Operation *a = nullptr, *b = nullptr;
    std::string witness;
  };
  /// Whether the question has a solution.
  bool ask(Question q, const Unit &a, const Unit &b, Hit &hit);
  bool solve(Question q, const Unit &a, const Unit &b,
             const llvm::DenseMap<Operation *, int> &relation, Hit &hit);
  bool check(const Unit &a, const Unit &b);
  std::optional<Separated> separate(const SharedAccess &a);
  bool splitTerm(Value v, int64_t coefficient, Separated &out,
                 SmallVectorImpl<std::pair<Value, int64_t>> &threadTerms,
                 int depth);

  Model model;
  ThreadEvaluator threads;
  llvm::function_ref<void(StringRef, Operation *, const Twine &)> report;
  bool unprovable = false;
  llvm::DenseSet<Operation *> reported;
};

/// "threads 3 and 35, byte 140" (or "thread 3, byte 140").
static std::string witnessText(bool sameThread, int64_t t1, int64_t t2,
                               int64_t byte) {
  if (sameThread)
    return llvm::formatv("thread {0}, byte {1}", t1, byte).str();
  return llvm::formatv("threads {0} and {1}, byte {2}", t1, t2, byte).str();
}

bool Checker::splitTerm(Value v, int64_t coefficient, Separated &out,
                        SmallVectorImpl<std::pair<Value, int64_t>> &threadTerms,
                        int depth) {
  if (std::optional<int64_t> c = constantOf(v)) {
    out.constant += coefficient * *c;
    return true;
  }
  if (!model.uniformity.isDivergent(v)) {
    out.uniform.push_back({v, coefficient});
    return true;
  }
  if (threads.isThreadOnly(v)) {
    threadTerms.push_back({v, coefficient});
    return true;
  }
  if (depth > 32)
    return false;
  Operation *op = v.getDefiningOp();
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op))
    return splitTerm(op->getOperand(0), coefficient, out, threadTerms,
                     depth + 1) &&
           splitTerm(op->getOperand(1),
                     isa<arith::SubIOp>(op) ? -coefficient : coefficient, out,
                     threadTerms, depth + 1);
  if (isa_and_nonnull<arith::MulIOp>(op))
    for (unsigned i = 0; i < 2; ++i)
      if (std::optional<int64_t> c = constantOf(op->getOperand(i)))
        return splitTerm(op->getOperand(1 - i), coefficient * *c, out,
                         threadTerms, depth + 1);
  if (isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp>(op))
    return splitTerm(op->getOperand(0), coefficient, out, threadTerms,
                     depth + 1);
  return false;
}

std::optional<Separated> Checker::separate(const SharedAccess &a) {
  int64_t count = model.block[0] * model.block[1] * model.block[2];
  if (count > 1024)
    return std::nullopt;
  auto type = cast<MemRefType>(a.access.memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  Separated out;
  SmallVector<std::pair<Value, int64_t>> threadTerms;
  out.constant = offset * a.elementBytes;
  for (auto [index, stride] : llvm::zip(a.access.indices, strides))
    if (!splitTerm(index, stride * a.elementBytes, out, threadTerms, 0))
      return std::nullopt;
  for (Value m = a.access.memref; Operation *def = m.getDefiningOp();) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      if (!splitTerm(view.getByteShift(), 1, out, threadTerms, 0))
        return std::nullopt;
      m = view.getSource();
    } else if (isa<memref::SubViewOp, memref::ReinterpretCastOp, memref::CastOp,
                   memref::AssumeAlignmentOp>(def)) {
      m = def->getOperand(0);
    } else {
      break;
    }
  }
  // Guards: thread-only ones mask threads, uniform ones go to the system;
  // a guard that mixes both needs the full system.
  SmallVector<std::pair<Value, bool>> threadGuards;
  for (Operation *child = a.access.op, *parent = child->getParentOp();
       parent && child != model.kernel;
       child = parent, parent = parent->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(parent);
    if (!ifOp)
      continue;
    bool truth = child->getParentRegion() == &ifOp.getThenRegion();
    SmallVector<Value> parts{ifOp.getCondition()};
    if (truth) {
      for (unsigned i = 0; i < parts.size();) {
        if (auto andOp = parts[i].getDefiningOp<arith::AndIOp>()) {
          parts[i] = andOp.getLhs();
          parts.push_back(andOp.getRhs());
        } else {
          ++i;
        }
      }
    }
    for (Value part : parts) {
      if (!model.uniformity.isDivergent(part))
        out.guards.push_back({part, truth});
      else if (threads.isThreadOnly(part))
        threadGuards.push_back({part, truth});
      else
        return std::nullopt;
    }
  }
  out.perThread.assign(count, 0);
  out.active.assign(count, true);
  for (auto [v, c] : threadTerms) {
    const std::vector<int64_t> *x = threads.values(v);
    if (!x)
      return std::nullopt;
    for (int64_t t = 0; t < count; ++t)
      out.perThread[t] += c * (*x)[t];
  }
  for (auto [cond, truth] : threadGuards) {
    const std::vector<int64_t> *x = threads.values(cond);
    if (!x)
      return std::nullopt;
    for (int64_t t = 0; t < count; ++t)
      out.active[t] = out.active[t] && (bool((*x)[t] & 1) == truth);
  }
  return out;
}

/// The deltas (a's uniform address part minus b's) at which some items
/// can overlap: [min b - max a end, max b end - min a]; empty when no
/// thread runs one of them.
static std::pair<int64_t, int64_t> badDeltas(const Group &a, const Group &b) {
  if (a.items.empty() || b.items.empty())
    return {1, 0};
  int64_t aEnd = INT64_MIN, bEnd = INT64_MIN;
  for (const Group::Item &i : a.items)
    aEnd = std::max(aEnd, i.offset + i.width - 1);
  for (const Group::Item &i : b.items)
    bEnd = std::max(bEnd, i.offset + i.width - 1);
  return {b.items.front().offset - aEnd, bEnd - a.items.front().offset};
}

/// The first two overlapping items of threads t1 != t2, t1 == t2, or any,
/// at a delta of the uniform parts.
static std::optional<std::pair<const Group::Item *, const Group::Item *>>
itemPair(const Group &a, const Group &b, int64_t delta, Threads threads) {
  for (const Group::Item &x : a.items) {
    // b's offset in [x + delta - (b width - 1), x + delta + x width - 1].
    int64_t lo = x.offset + delta - (b.maxWidth - 1),
            hi = x.offset + delta + x.width - 1;
    auto it =
        llvm::lower_bound(b.items, lo, [](const Group::Item &i, int64_t v) {
          return i.offset < v;
        });
    for (; it != b.items.end() && it->offset <= hi; ++it) {
      if (it->offset + it->width - 1 < x.offset + delta)
        continue;
      if (threads == Threads::Any ||
          (threads == Threads::Same) == (it->thread == x.thread))
        return std::make_pair(&x, &*it);
    }
  }
  return std::nullopt;
}

/// Whether x and y lie in the two branches of one scf.if whose condition is
/// uniform and which runs once per block (in no loop): every thread of the
/// block takes the same branch, so the two never both run. (Kernels
/// versioned on their sizes have a whole body in each branch.)
static bool inExclusiveBranches(Operation *x, Operation *y,
                                const Model &model) {
  Operation *common = x->getParentOp();
  while (common && common != model.kernel && !common->isAncestor(y))
    common = common->getParentOp();
  auto ifOp = dyn_cast_or_null<scf::IfOp>(common);
  if (!ifOp || model.uniformity.isDivergent(ifOp.getCondition()))
    return false;
  if (ifOp.getThenRegion().isAncestor(x->getParentRegion()) ==
      ifOp.getThenRegion().isAncestor(y->getParentRegion()))
    return false;
  for (Operation *p = ifOp->getParentOp(); p && p != model.kernel;
       p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      return false;
  return true;
}

bool Checker::solve(Question q, const Unit &ua, const Unit &ub,
                    const llvm::DenseMap<Operation *, int> &relation,
                    Hit &hit) {
  const SharedAccess &a = *ua.access, &b = *ub.access;
  if (inExclusiveBranches(a.access.op, b.access.op, model))
    return false;
  std::string &witness = hit.witness;
  hit.a = a.access.op;
  hit.b = b.access.op;
  bool sameThread = q == Question::AsyncSameThread;
  Threads threadsOf = sameThread                      ? Threads::Same
                      : q == Question::AsyncAnyThread ? Threads::Any
                                                      : Threads::Distinct;
  const Group *groupA = ua.group, *groupB = ub.group;
  bool fast = groupA && groupB;
  // The systems to ask, per thread order (the full system only).
  for (unsigned order = 0;
       order < (fast || threadsOf != Threads::Distinct ? 1u : 2u); ++order) {
    Builder builder(model);
    System &sys = builder.sys;
    Instance ia =
        builder.instance(a.access.op, 0, llvm::DenseMap<Operation *, Lin>());
    // The loops around both: the same iteration (relation 0), or b's earlier
    // (-1) or later (+1) at the outermost loop where they differ.
    llvm::DenseMap<Operation *, Lin> fixed;
    for (auto [loop, rel] : relation)
      if (rel == 0)
        fixed[loop] = ia.iteration.lookup(loop);
    Instance ib = builder.instance(b.access.op, sameThread ? 0 : 1, fixed);
    for (auto [loop, rel] : relation) {
      Lin ka = ia.iteration.lookup(loop), kb = ib.iteration.lookup(loop);
      if (rel < 0)
        sys.ge0(ka - kb - 1);
      else if (rel > 0)
        sys.ge0(kb - ka - 1);
    }
    int64_t wa = a.access.width * a.elementBytes,
            wb = b.access.width * b.elementBytes;
    // The overlap, as constraints (full system) or as delta = the uniform
    // part of a's address minus b's (thread-separated).
    Lin addrA, addrB, delta;
    if (fast) {
      Lin uA = Lin::of(0), uB = Lin::of(0);
      for (auto [v, c] : groupA->uniform)
        uA = uA + builder.expr(v, ia) * c;
      for (auto [v, c] : groupB->uniform)
        uB = uB + builder.expr(v, ib) * c;
      for (auto [cond, truth] : groupA->guards)
        builder.condition(cond, truth, ia);
      for (auto [cond, truth] : groupB->guards)
        builder.condition(cond, truth, ib);
      delta = uA - uB;
      addrA = uA;
      addrB = uB;
      // Cheap first: a delta no items can meet, whatever the timing.
      if (std::optional<int64_t> d = delta.asConstant()) {
        if (!itemPair(*groupA, *groupB, *d, threadsOf))
          return false;
      } else if (auto range = sys.interval(delta)) {
        auto [lo, hi] = badDeltas(*groupA, *groupB);
        if (range->second < lo || range->first > hi)
          return false;
      }
    } else {
      builder.addGuards(ia);
      builder.addGuards(ib);
      if (threadsOf == Threads::Distinct) {
        Lin ta = builder.threadId(ia), tb = builder.threadId(ib);
        sys.ge0(order == 0 ? tb - ta - 1 : ta - tb - 1);
      }
      addrA = builder.address(a, ia)->second;
      addrB = builder.address(b, ib)->second;
      // Intervals first: most pairs touch disjoint slices.
      auto ra = sys.interval(addrA), rb = sys.interval(addrB);
      if (ra && rb &&
          (ra->second + wa <= rb->first || rb->second + wb <= ra->first))
        continue;
      sys.ge0(addrA + (wa - 1) - addrB);
      sys.ge0(addrB + (wb - 1) - addrA);
    }

    auto counts = [&](Event kind, const Instance &in) -> std::optional<Lin> {
      std::optional<Lin> c = builder.count(kind, in.op, in);
      if (!c && !unprovable) {
        unprovable = true;
        report(check::kUnprovable, in.op,
               "cannot order shared-memory accesses: " + builder.whyNot);
      }
      return c;
    };
    std::optional<Lin> barA = counts(Event::Barrier, ia),
                       barB = counts(Event::Barrier, ib);
    if (!barA || !barB)
      return false;

    // The cases to try: each a set of extra constraints.
    std::vector<System> cases;
    if (q == Question::Race) {
      sys.eq0(*barA - *barB);
      cases.push_back(sys);
    } else {
      std::optional<Lin> comA = counts(Event::Commit, ia);
      if (!comA)
        return false;
      sys.ge0(*barB - *barA);
      auto notRetired = [&](System &s, const Latest &wait) -> bool {
        if (!wait.op)
          return true;
        std::optional<Lin> comW = counts(Event::Commit, wait.instance);
        if (!comW)
          return false;
        // Retired iff c(a) + N + 1 <= c(wait).
        s.ge0(*comA + waitGroups(wait.op) - *comW);
        return true;
      };
      auto withConditions = [](System s, const Latest &l) {
        for (const Lin &e : l.atLeastZero)
          s.ge0(e);
        for (const Lin &e : l.equalZero)
          s.eq0(e);
        return s;
      };
      if (sameThread) {
        std::optional<Lin> comB = counts(Event::Commit, ib);
        if (!comB)
          return false;
        sys.ge0(*comB - *comA);
        std::vector<Latest> waits;
        builder.latest(Event::Wait, ib.op, ib, waits);
        for (const Latest &w : waits) {
          System s = withConditions(sys, w);
          if (notRetired(s, w))
            cases.push_back(s);
        }
      } else {
        std::vector<Latest> barriers;
        builder.latest(Event::Barrier, ib.op, ib, barriers);
        for (const Latest &bar : barriers) {
          System s = withConditions(sys, bar);
          if (!bar.op) {
            cases.push_back(s);
            continue;
          }
          std::vector<Latest> waits;
          builder.latest(Event::Wait, bar.op, bar.instance, waits);
          for (const Latest &w : waits) {
            System s2 = withConditions(s, w);
            if (notRetired(s2, w))
              cases.push_back(s2);
          }
        }
      }
    }

    if (fast) {
      // Thread differences b[t2] - a[t1] that can overlap lie in
      // [min b - max a, max b - min a]; delta must be within (wa, wb) of
      // one. Enumerate delta's feasible values there, each with one solve.
      auto [badLo, badHi] = badDeltas(*groupA, *groupB);
      if (badLo > badHi)
        return false; // no thread runs one of them
      auto found = [&](const SmallVector<int64_t> &point, int64_t d) {
        auto pair = itemPair(*groupA, *groupB, d, threadsOf);
        if (!pair)
          return false;
        auto [x, y] = *pair;
        hit.a = groupA->members[x->member]->access.op;
        hit.b = groupB->members[y->member]->access.op;
        int64_t byte = std::max(System::eval(addrA, point) + x->offset,
                                System::eval(addrB, point) + y->offset);
        witness =
            witnessText(threadsOf == Threads::Same, x->thread, y->thread, byte);
        return true;
      };
      for (System &c : cases) {
        // A constant delta: the threads decide, the system only whether
        // the instances exist.
        if (std::optional<int64_t> d = delta.asConstant()) {
          if (!itemPair(*groupA, *groupB, *d, threadsOf))
            continue;
          if (std::optional<SmallVector<int64_t>> point = c.sample())
            if (found(*point, *d))
              return true;
          continue;
        }
        unsigned solves = 0;
        // Depth-first over [lo, hi]: a sample, then both sides of it.
        SmallVector<std::pair<int64_t, int64_t>> ranges{{badLo, badHi}};
        while (!ranges.empty()) {
          auto [lo, hi] = ranges.pop_back_val();
          if (lo > hi)
            continue;
          if (++solves > 256) {
            // Too many values: ask whether any is feasible at all.
            System any = c;
            any.ge0(delta - lo);
            any.ge0(Lin::of(hi) - delta);
            if (!any.isEmpty()) {
              witness = "many address offsets";
              return true;
            }
            continue;
          }
          System s = c;
          s.ge0(delta - lo);
          s.ge0(Lin::of(hi) - delta);
          std::optional<SmallVector<int64_t>> point = s.sample();
          if (!point)
            continue;
          int64_t d = System::eval(delta, *point);
          if (found(*point, d))
            return true;
          ranges.push_back({lo, d - 1});
          ranges.push_back({d + 1, hi});
        }
      }
      continue;
    }

    // Xor is a bijection for a fixed y: for the same xor in the two threads,
    // either the y's differ, or x1 = x2 and r1 = r2, or x1 != x2 and r1 != r2.
    for (const Builder::XorTerm &x1 : builder.xors) {
      for (const Builder::XorTerm &x2 : builder.xors) {
        if (x1.value != x2.value || x1.thread >= x2.thread || cases.size() > 64)
          continue;
        std::vector<System> split;
        for (const System &c : cases) {
          System lt = c, gt = c;
          lt.ge0(x2.y - x1.y - 1);
          gt.ge0(x1.y - x2.y - 1);
          split.push_back(lt);
          split.push_back(gt);
          System same = c;
          same.eq0(x1.y - x2.y);
          System equal = same;
          equal.eq0(x1.x - x2.x);
          equal.eq0(x1.r - x2.r);
          split.push_back(equal);
          for (int dx : {-1, 1})
            for (int dr : {-1, 1}) {
              System differ = same;
              differ.ge0((x2.x - x1.x) * dx - 1);
              differ.ge0((x2.r - x1.r) * dr - 1);
              split.push_back(differ);
            }
        }
        cases = std::move(split);
      }
    }
    for (System &s : cases) {
      std::optional<SmallVector<int64_t>> sample = s.sample();
      if (!sample)
        continue;
      int64_t ta = System::eval(builder.threadId(ia), *sample);
      int64_t tb = System::eval(builder.threadId(ib), *sample);
      int64_t byte =
          std::max(System::eval(addrA, *sample), System::eval(addrB, *sample));
      witness = witnessText(sameThread, ta, tb, byte);
      return true;
    }
  }
  return false;
}

bool Checker::ask(Question q, const Unit &ua, const Unit &ub, Hit &hit) {
  const SharedAccess &a = *ua.access, &b = *ub.access;
  // Partition the iterations of the loops around both: the same iteration of
  // every loop, or the same down to one loop where b's is earlier or later.
  SmallVector<scf::ForOp> la = enclosingLoops(a.access.op, model.kernel),
                          lb = enclosingLoops(b.access.op, model.kernel);
  SmallVector<scf::ForOp> common;
  for (auto [x, y] : llvm::zip(la, lb)) {
    if (x != y)
      break;
    common.push_back(x);
  }
  for (int split = -1; split < int(common.size()); ++split) {
    for (int dir : {-1, 1}) {
      if (split < 0 && dir > 0)
        continue;
      llvm::DenseMap<Operation *, int> relation;
      for (auto [i, loop] : llvm::enumerate(common)) {
        if (split >= 0 && int(i) > split)
          break;
        relation[loop] = int(i) == split ? dir : 0;
      }
      // The very same instance of one op in one thread is no conflict.
      if (q == Question::AsyncSameThread && split < 0 && ua.group == ub.group &&
          a.access.op == b.access.op)
        continue;
      if (solve(q, ua, ub, relation, hit))
        return true;
      if (unprovable)
        return false;
    }
  }
  return false;
}

bool Checker::check(const Unit &a, const Unit &b) {
  Hit hit;
  bool sameUnit = a.access == b.access && a.group == b.group;
  if (a.access->access.async) {
    // The relaxed screen first; then which thread it is.
    bool screened = sameUnit || ask(Question::AsyncAnyThread, a, b, hit);
    Question q = Question::AsyncOtherThread;
    bool found = screened && ask(q, a, b, hit);
    if (screened && !found && !unprovable && !sameUnit) {
      q = Question::AsyncSameThread;
      found = ask(q, a, b, hit);
    }
    if (!found)
      return false;
    reported.insert(hit.b);
    report(check::kAsyncUnwaited, hit.b,
           llvm::formatv("{0} touches shared memory that the async copy ({1}) "
                         "may still be writing: {2} ({3})",
                         describeOp(hit.b), describeOp(hit.a),
                         q == Question::AsyncSameThread
                             ? "no wait_group retires the copy's group first"
                             : "no barrier after a wait_group that retires "
                               "the copy's group orders it",
                         hit.witness));
    return true;
  }
  if (!ask(Question::Race, a, b, hit))
    return false;
  reported.insert(hit.b);
  report(check::kSmemRace, hit.b,
         llvm::formatv("{0} races with the {1}: no barrier between them "
                       "({2}, {3})",
                       describeOp(hit.b),
                       hit.a == hit.b ? "same access in another thread"
                                      : describeOp(hit.a),
                       isa<memref::StoreOp, vector::StoreOp>(hit.b)
                           ? "write-write"
                           : "write-read",
                       hit.witness));
  return true;
}

void Checker::run() {
  std::deque<SharedAccess> accesses;
  model.kernel->walk([&](Operation *op) {
    FailureOr<SmallVector<MemoryAccess>> list = getMemoryAccesses(op);
    if (failed(list))
      return; // the bounds check reports it.
    for (MemoryAccess &access : *list) {
      auto type = cast<MemRefType>(access.memref.getType());
      if (!isWorkgroupMemRef(type))
        continue;
      accesses.push_back(SharedAccess{access,
                                      elementBytes(type.getElementType()),
                                      unsigned(accesses.size())});
    }
  });
  if (llvm::none_of(accesses,
                    [](const SharedAccess &a) { return a.access.write; }))
    return;

  // Every address must be modelled; thread-separable ones are grouped, in
  // the order they first appear (the keys hold pointers: ordering by them
  // would make which op of a racing pair is reported vary between runs).
  llvm::MapVector<std::string, Group, std::map<std::string, unsigned>> groups;
  std::vector<Unit> units;
  llvm::DenseMap<Operation *, int64_t> segment;
  for (SharedAccess &a : accesses) {
    FailureOr<Value> root = sharedRoot(a);
    if (failed(root)) {
      report(check::kUnprovable, a.access.op,
             "the shared-memory address of this " + a.access.what +
                 " is not modelled (a view chain with dynamic strides or "
                 "offsets, or an unknown allocation)");
      return;
    }
    std::optional<Separated> sep = separate(a);
    if (!sep) {
      units.push_back(Unit{&a});
      continue;
    }
    // The segment: synchronization ops before it in its block.
    Block *block = a.access.op->getBlock();
    if (!segment.count(a.access.op)) {
      int64_t n = 0;
      for (Operation &op : *block) {
        segment[&op] = n;
        if (model.contains(Event::Barrier, &op) ||
            model.contains(Event::Commit, &op) ||
            model.contains(Event::Wait, &op))
          ++n;
      }
    }
    std::string key;
    llvm::raw_string_ostream os(key);
    os << block << '/' << segment[a.access.op] << '/' << a.access.async << '/'
       << a.access.write << '/' << root->getAsOpaquePointer();
    for (auto [v, c] : sep->uniform)
      os << '/' << v.getAsOpaquePointer() << '*' << c;
    Group &g = groups[key];
    if (!g.representative) {
      g.representative = &a;
      g.uniform = sep->uniform;
      g.guards = sep->guards;
    }
    int32_t member = g.members.size();
    g.members.push_back(&a);
    int64_t width = a.access.width * a.elementBytes;
    g.maxWidth = std::max(g.maxWidth, width);
    for (size_t t = 0; t < sep->perThread.size(); ++t)
      if (sep->active[t])
        g.items.push_back(Group::Item{sep->perThread[t] + sep->constant, width,
                                      int32_t(t), member});
  }
  for (auto &[key, g] : groups) {
    llvm::sort(g.items, [](const Group::Item &x, const Group::Item &y) {
      return x.offset < y.offset;
    });
    units.push_back(Unit{g.representative, &g});
  }

  // Every pair with a write: groups against groups, single accesses one by
  // one (against each member of a group).
  auto expand = [](const Unit &u) {
    SmallVector<Unit> out;
    if (!u.group)
      out.push_back(u);
    else
      for (const SharedAccess *m : u.group->members)
        out.push_back(Unit{m});
    return out;
  };
  for (size_t i = 0; i < units.size(); ++i) {
    const Unit &a = units[i];
    if (!a.access->access.write)
      continue;
    for (size_t j = 0; j < units.size(); ++j) {
      const Unit &b = units[j];
      // Two plain writes: one order is enough.
      if (!a.access->access.async && b.access->access.write &&
          !b.access->access.async && j < i)
        continue;
      if (!a.access->access.async && b.access->access.async)
        continue; // asked from the copy's side
      if (a.group && b.group) {
        check(a, b);
      } else {
        for (const Unit &x : expand(a))
          for (const Unit &y : expand(b))
            if (!reported.contains(y.access->access.op) && check(x, y))
              break;
      }
      if (unprovable)
        return;
    }
  }
}

} // namespace

void mlir::amk::checkSharedMemory(
    Operation *kernel, const UniformityInfo &uniformity,
    const DataFlowSolver &solver,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report) {
  Checker(kernel, uniformity, solver, report).run();
}
