//===- Coalescing.cpp - Warps read and write global memory in few sectors -===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// AMK-UNCOALESCED (a warning). A warp's global access is served in 32-byte
// sectors; it is coalesced when the sectors it touches are about the bytes
// it needs. For every thread of the block the address of each global access
// is a linear form over "atoms", values every thread shares (block ids,
// loop induction variables, dynamic sizes and strides, other uniform
// values), plus a constant:
//
//  - atoms whose coefficient is the same for every lane of a warp shift the
//    warp as a whole and do not change how many sectors it touches;
//  - atoms whose coefficient varies (a thread id times a dynamic row stride)
//    stand for large values: such lanes land in different sectors;
//  - thread-dependent arithmetic is evaluated per thread; a select or min
//    mixing thread and shared values (the masks and clamps of edge tiles)
//    is taken on its main path (the selected value, the thread's index).
//
// Accesses of one loop iteration (or of the kernel outside loops) that
// differ only by a constant, thread for thread, form a group: the unrolled
// element stores of a row, or neighbouring fragments, fill each other's
// sectors. A group whose warp touches more than twice the sectors its bytes
// need is reported at its first access, with the byte stride between
// adjacent threads. Accesses the evaluation cannot follow are not reported:
// this is a heuristic about performance, not a proof.
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/Address.h"
#include "Alignment.h"
#include "Bounds.h"

#include "AMK/Analysis/Uniformity.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::amk;

namespace {

using Monomial = SmallVector<AddressFactor, 2>;

/// Products of atoms, each interned once per kernel.
class Monomials {
public:
  unsigned atom(const AddressFactor &a) { return intern(Monomial{a}); }
  unsigned product(unsigned a, unsigned b) {
    auto key = std::make_pair(std::min(a, b), std::max(a, b));
    if (auto it = products.find(key); it != products.end())
      return it->second;
    Monomial m = all[a];
    m.append(all[b].begin(), all[b].end());
    llvm::sort(m);
    return products[key] = intern(std::move(m));
  }
  const Monomial &get(unsigned id) const { return all[id]; }

private:
  unsigned intern(Monomial m) {
    auto [it, inserted] = ids.try_emplace(m, all.size());
    if (inserted)
      all.push_back(std::move(m));
    return it->second;
  }

  std::map<Monomial, unsigned, bool (*)(const Monomial &, const Monomial &)>
      ids{[](const Monomial &a, const Monomial &b) {
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(),
                                            b.end());
      }};
  std::vector<Monomial> all;
  std::map<std::pair<unsigned, unsigned>, unsigned> products;
};

/// sum(coefficient * monomial) + constant for one thread, terms sorted by
/// monomial id.
struct Form {
  SmallVector<std::pair<unsigned, int64_t>, 2> terms;
  int64_t constant = 0;

  static Form of(int64_t c) {
    Form f;
    f.constant = c;
    return f;
  }
  static Form monomial(unsigned id) {
    Form f;
    f.terms.push_back({id, 1});
    return f;
  }
  bool pure() const { return terms.empty(); }
};

/// Merges equal monomials and drops zero terms; nullopt on overflow.
static std::optional<Form> normalized(Form f) {
  llvm::sort(f.terms);
  Form out;
  out.constant = f.constant;
  for (auto [m, c] : f.terms) {
    if (!out.terms.empty() && out.terms.back().first == m) {
      if (llvm::AddOverflow(out.terms.back().second, c,
                            out.terms.back().second))
        return std::nullopt;
      continue;
    }
    out.terms.push_back({m, c});
  }
  llvm::erase_if(out.terms, [](const auto &t) { return t.second == 0; });
  return out;
}

static std::optional<Form> add(const Form &a, const Form &b, int64_t sign = 1) {
  Form r = a;
  int64_t bc;
  if (llvm::MulOverflow(b.constant, sign, bc) ||
      llvm::AddOverflow(r.constant, bc, r.constant))
    return std::nullopt;
  if (b.pure())
    return r;
  for (auto [m, c] : b.terms) {
    int64_t s;
    if (llvm::MulOverflow(c, sign, s))
      return std::nullopt;
    r.terms.push_back({m, s});
  }
  return normalized(std::move(r));
}

static std::optional<Form> mul(const Form &a, const Form &b,
                               Monomials &monomials) {
  Form r;
  if (llvm::MulOverflow(a.constant, b.constant, r.constant))
    return std::nullopt;
  auto scaled = [&](const Form &x, int64_t k) -> bool {
    for (auto [m, c] : x.terms) {
      int64_t s;
      if (llvm::MulOverflow(c, k, s))
        return false;
      r.terms.push_back({m, s});
    }
    return true;
  };
  if (!scaled(a, b.constant) || !scaled(b, a.constant))
    return std::nullopt;
  for (auto [ma, ca] : a.terms)
    for (auto [mb, cb] : b.terms) {
      int64_t c;
      if (llvm::MulOverflow(ca, cb, c))
        return std::nullopt;
      r.terms.push_back({monomials.product(ma, mb), c});
    }
  return normalized(std::move(r));
}

/// "4 x (the dynamic size of dimension 1 of argument 0) + 16".
static std::string describe(const Form &f, const Monomials &monomials) {
  std::string s;
  for (auto [m, c] : f.terms) {
    if (!s.empty())
      s += " + ";
    s += llvm::formatv("{0}", c).str();
    for (const AddressFactor &a : monomials.get(m))
      s += " x (" + a.str() + ")";
  }
  if (f.constant || s.empty())
    s += (s.empty() ? "" : " + ") + llvm::formatv("{0}", f.constant).str();
  return s;
}

/// Per-thread linear forms of index values.
class ThreadForms {
public:
  ThreadForms(const UniformityInfo &uniformity, AddressModel &addresses,
              ArrayRef<int64_t> block)
      : uniformity(uniformity), addresses(addresses),
        block(block.begin(), block.end()) {}

  void setThread(int64_t linear) {
    tid[0] = linear % block[0];
    tid[1] = linear / block[0] % block[1];
    tid[2] = linear / (block[0] * block[1]);
    lane = linear % 32;
    perThread.clear();
  }

  std::optional<Form> value(Value v, int depth = 0);
  std::optional<Form> poly(const AddressPoly &p, int depth = 0);
  Monomials monomials;

private:
  std::optional<Form> uniform(Value v, int depth);
  std::optional<Form> divergent(Value v, int depth);
  std::optional<Form> factor(const AddressFactor &f, int depth) {
    if (f.kind == AddressFactor::Kind::Value)
      return value(f.value, depth + 1);
    return Form::monomial(monomials.atom(f));
  }
  Form atom(Value v) {
    return Form::monomial(monomials.atom(AddressFactor::of(v)));
  }

  const UniformityInfo &uniformity;
  AddressModel &addresses;
  SmallVector<int64_t, 3> block;
  int64_t tid[3] = {0, 0, 0}, lane = 0;
  llvm::DenseMap<Value, std::optional<Form>> shared, perThread;
};

std::optional<Form> ThreadForms::poly(const AddressPoly &p, int depth) {
  if (!p.valid)
    return std::nullopt;
  // Accumulated unnormalized, normalized once: most terms are constants for
  // a given thread.
  Form sum;
  for (const AddressTerm &t : p.terms) {
    Form term = Form::of(t.coefficient);
    for (const AddressFactor &f : t.factors) {
      std::optional<Form> x = factor(f, depth);
      if (!x)
        return std::nullopt;
      if (term.pure() && x->pure()) {
        if (llvm::MulOverflow(term.constant, x->constant, term.constant))
          return std::nullopt;
        continue;
      }
      std::optional<Form> product = mul(term, *x, monomials);
      if (!product)
        return std::nullopt;
      term = std::move(*product);
    }
    if (llvm::AddOverflow(sum.constant, term.constant, sum.constant))
      return std::nullopt;
    sum.terms.append(term.terms.begin(), term.terms.end());
  }
  if (sum.terms.size() > 1)
    return normalized(std::move(sum));
  return sum;
}

std::optional<Form> ThreadForms::value(Value v, int depth) {
  if (depth > 64)
    return std::nullopt;
  bool isUniform = !uniformity.isDivergent(v);
  auto &cache = isUniform ? shared : perThread;
  if (auto it = cache.find(v); it != cache.end())
    return it->second;
  std::optional<Form> r;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    r = Form::of(c.getSExtValue());
  else if (std::optional<AddressPoly> meta = addresses.metadata(v))
    r = poly(*meta, depth + 1);
  else
    r = isUniform ? uniform(v, depth) : divergent(v, depth);
  cache[v] = r;
  return r;
}

/// A value every thread shares: expanded while linear in shared operands
/// (so `k0` and `k0 + 8` share the atom `k0`), else an atom.
std::optional<Form> ThreadForms::uniform(Value v, int depth) {
  Operation *op = v.getDefiningOp();
  if (auto dim = dyn_cast_or_null<gpu::BlockDimOp>(op))
    return Form::of(block[int(dim.getDimension())]);
  if (isa_and_nonnull<NVVM::BlockDimXOp, NVVM::BlockDimYOp, NVVM::BlockDimZOp>(
          op))
    return Form::of(block[isa<NVVM::BlockDimXOp>(op)   ? 0
                          : isa<NVVM::BlockDimYOp>(op) ? 1
                                                       : 2]);
  bool linear = isa_and_nonnull<arith::AddIOp, arith::SubIOp, arith::MulIOp,
                                arith::IndexCastOp, arith::IndexCastUIOp,
                                arith::ExtSIOp, arith::ExtUIOp>(op) &&
                llvm::none_of(op->getOperands(), [&](Value x) {
                  return uniformity.isDivergent(x);
                });
  if (!linear)
    return atom(v);
  SmallVector<Form, 2> x;
  for (Value operand : op->getOperands()) {
    std::optional<Form> f = value(operand, depth + 1);
    if (!f)
      return atom(v);
    x.push_back(std::move(*f));
  }
  std::optional<Form> r;
  if (isa<arith::AddIOp>(op))
    r = add(x[0], x[1]);
  else if (isa<arith::SubIOp>(op))
    r = add(x[0], x[1], -1);
  else if (isa<arith::MulIOp>(op))
    r = mul(x[0], x[1], monomials);
  else
    r = x[0];
  return r ? r : atom(v);
}

/// A thread-dependent value: evaluated for the current thread.
std::optional<Form> ThreadForms::divergent(Value v, int depth) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt; // loop-carried or region values
  if (auto t = dyn_cast<gpu::ThreadIdOp>(op))
    return Form::of(tid[int(t.getDimension())]);
  if (isa<NVVM::ThreadIdXOp>(op))
    return Form::of(tid[0]);
  if (isa<NVVM::ThreadIdYOp>(op))
    return Form::of(tid[1]);
  if (isa<NVVM::ThreadIdZOp>(op))
    return Form::of(tid[2]);
  if (isa<gpu::LaneIdOp, NVVM::LaneIdOp>(op))
    return Form::of(lane);
  if (op->getNumResults() != 1 || !isa<arith::ArithDialect>(op->getDialect()))
    return std::nullopt;
  SmallVector<std::optional<Form>, 3> x;
  for (Value operand : op->getOperands())
    x.push_back(value(operand, depth + 1));
  auto known = [&](unsigned i) { return x[i].has_value(); };
  // Linear ops keep the atoms.
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op)) {
    if (!known(0) || !known(1))
      return std::nullopt;
    if (isa<arith::AddIOp>(op))
      return add(*x[0], *x[1]);
    if (isa<arith::SubIOp>(op))
      return add(*x[0], *x[1], -1);
    return mul(*x[0], *x[1], monomials);
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(op) &&
      known(0) && !x[0]->pure())
    return x[0];
  // Everything known for this thread: evaluate.
  if (llvm::all_of(
          x, [](const std::optional<Form> &f) { return f && f->pure(); })) {
    SmallVector<int64_t, 3> values;
    for (const std::optional<Form> &f : x)
      values.push_back(f->constant);
    if (std::optional<int64_t> r = evaluateIntegerOp(op, values))
      return Form::of(*r);
    return std::nullopt;
  }
  // Masks and clamps: the main path.
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    if (known(0) && x[0]->pure())
      return x[0]->constant ? x[1] : x[2];
    return x[1];
  }
  if (isa<arith::MinUIOp, arith::MinSIOp, arith::MaxUIOp, arith::MaxSIOp>(op)) {
    bool d0 = uniformity.isDivergent(op->getOperand(0)),
         d1 = uniformity.isDivergent(op->getOperand(1));
    if (d0 != d1)
      return d0 ? x[0] : x[1];
  }
  return std::nullopt;
}

/// One global access and its address for every thread.
struct GlobalAccess {
  Operation *op;
  MemoryAccess access;
  const MemRefLayout *layout;
  AddressPoly bytes;
  int64_t width; // bytes
  Operation *scope;
  SmallVector<std::pair<Value, bool>> guards;
  std::vector<std::optional<Form>> forms;
  std::vector<bool> active;
};

/// The byte intervals one warp's lanes touch, per group member.
struct WarpFootprint {
  int64_t sectors = 0, bytes = 0;
};

static WarpFootprint footprint(ArrayRef<std::pair<int64_t, int64_t>> spans) {
  WarpFootprint fp;
  SmallVector<int64_t> sectors;
  for (auto [start, width] : spans)
    for (int64_t s = llvm::divideFloorSigned(start, 32),
                 e = llvm::divideFloorSigned(start + width - 1, 32);
         s <= e; ++s)
      sectors.push_back(s);
  llvm::sort(sectors);
  fp.sectors = std::unique(sectors.begin(), sectors.end()) - sectors.begin();
  SmallVector<std::pair<int64_t, int64_t>> sorted(spans.begin(), spans.end());
  llvm::sort(sorted);
  int64_t end = INT64_MIN;
  for (auto [start, width] : sorted) {
    int64_t stop = start + width;
    if (stop <= end)
      continue;
    fp.bytes += stop - std::max(start, end);
    end = stop;
  }
  return fp;
}

} // namespace

void mlir::amk::checkKernelCoalescing(
    Operation *kernel, const UniformityInfo &uniformity,
    AddressModel &addresses, llvm::function_ref<void(HarnessFinding)> report) {
  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  DenseI32ArrayAttr blockAttr = func ? func.getKnownBlockSizeAttr() : nullptr;
  if (!blockAttr)
    return;
  SmallVector<int64_t, 3> block(blockAttr.asArrayRef().begin(),
                                blockAttr.asArrayRef().end());
  int64_t threads = block[0] * block[1] * block[2];
  if (threads <= 0 || threads > 1024)
    return;

  // The global accesses whose address the model traces.
  std::vector<GlobalAccess> accesses;
  kernel->walk([&](Operation *op) {
    FailureOr<SmallVector<MemoryAccess>> list = getMemoryAccesses(op);
    if (failed(list))
      return;
    for (MemoryAccess &a : *list) {
      auto type = cast<MemRefType>(a.memref.getType());
      if (!isGlobalMemRef(type))
        continue;
      std::string whyNot;
      FailureOr<AccessAddress> address =
          addresses.address(a.memref, a.indices, whyNot);
      if (failed(address))
        continue;
      GlobalAccess g{op,
                     a,
                     address->layout,
                     address->bytes,
                     a.width * address->layout->elemBytes,
                     kernel,
                     {},
                     {},
                     {}};
      for (Operation *child = op, *parent = op->getParentOp();
           parent && child != kernel;
           child = parent, parent = parent->getParentOp()) {
        if (g.scope == kernel && isa<scf::ForOp, scf::WhileOp>(parent))
          g.scope = parent;
        if (auto ifOp = dyn_cast<scf::IfOp>(parent))
          g.guards.push_back({ifOp.getCondition(), child->getParentRegion() ==
                                                       &ifOp.getThenRegion()});
      }
      if (a.condition)
        g.guards.push_back({a.condition, true});
      accesses.push_back(std::move(g));
    }
  });
  if (accesses.empty())
    return;

  // The threads of the first and the last warp: GEMM-like kernels give
  // every warp the same pattern shifted, and a kernel that specializes
  // warps usually gives the odd role to the first or the last one.
  int64_t warps = llvm::divideCeil(threads, 32);
  SmallVector<int64_t, 2> warpIds = {0};
  if (warps > 1)
    warpIds.push_back(warps - 1);
  ThreadForms forms(uniformity, addresses, block);
  for (GlobalAccess &g : accesses) {
    g.forms.resize(threads);
    g.active.resize(threads);
  }
  for (int64_t w : warpIds) {
    for (int64_t t = w * 32; t < std::min(threads, w * 32 + 32); ++t) {
      forms.setThread(t);
      for (GlobalAccess &g : accesses) {
        bool active = true;
        for (auto [cond, truth] : g.guards) {
          std::optional<Form> c = forms.value(cond);
          if (c && c->pure())
            active = active && ((c->constant != 0) == truth);
        }
        g.active[t] = active;
        if (active)
          g.forms[t] = forms.poly(g.bytes);
      }
    }
  }
  llvm::erase_if(accesses, [&](const GlobalAccess &g) {
    bool any = false;
    for (int64_t t = 0; t < threads; ++t) {
      if (g.active[t] && !g.forms[t])
        return true;
      any |= g.active[t] && g.forms[t];
    }
    return !any;
  });

  // Groups: same buffer, direction and loop iteration, the same forms up to
  // one constant (warp 0 decides).
  std::map<std::vector<int64_t>, SmallVector<size_t>> groups;
  std::vector<const std::vector<int64_t> *> order;
  for (auto [i, g] : llvm::enumerate(accesses)) {
    std::vector<int64_t> key = {
        int64_t(
            reinterpret_cast<uintptr_t>(g.layout->root.getAsOpaquePointer())),
        g.access.write, int64_t(reinterpret_cast<uintptr_t>(g.scope)), g.width};
    std::optional<int64_t> base;
    for (int64_t t = 0; t < std::min<int64_t>(threads, 32); ++t) {
      key.push_back(-1); // lane separator
      if (!g.active[t])
        continue;
      const Form &f = *g.forms[t];
      if (!base)
        base = f.constant;
      key.push_back(f.constant - *base);
      for (auto [m, c] : f.terms)
        key.insert(key.end(), {int64_t(m), c});
    }
    auto [it, inserted] = groups.try_emplace(std::move(key));
    if (inserted)
      order.push_back(&it->first);
    it->second.push_back(i);
  }

  for (const std::vector<int64_t> *key : order) {
    const SmallVector<size_t> &members = groups[*key];
    const GlobalAccess &first = accesses[members.front()];
    for (int64_t w : warpIds) {
      int64_t lo = w * 32, hi = std::min(threads, lo + 32);
      // Monomials whose coefficient varies over the warp's lanes stand for
      // large values; the others shift the warp as a whole.
      std::set<unsigned> monomials;
      for (size_t m : members)
        for (int64_t t = lo; t < hi; ++t)
          if (accesses[m].active[t])
            for (const auto &term : accesses[m].forms[t]->terms)
              monomials.insert(term.first);
      llvm::DenseMap<unsigned, int64_t> large;
      for (unsigned mono : monomials) {
        std::optional<int64_t> seen;
        bool varies = false;
        for (size_t m : members)
          for (int64_t t = lo; t < hi && !varies; ++t) {
            if (!accesses[m].active[t])
              continue;
            int64_t c = 0;
            for (const auto &term : accesses[m].forms[t]->terms)
              if (term.first == mono)
                c = term.second;
            varies = seen && *seen != c;
            seen = c;
          }
        if (varies)
          large[mono] = int64_t(large.size() + 1) << 24;
      }
      SmallVector<std::pair<int64_t, int64_t>> spans;
      bool overflow = false;
      auto concrete = [&](const Form &f) {
        int64_t a = f.constant;
        for (auto [mono, c] : f.terms)
          if (auto it = large.find(mono); it != large.end()) {
            int64_t p;
            overflow |= llvm::MulOverflow(c, it->second, p) ||
                        llvm::AddOverflow(a, p, a);
          }
        return a;
      };
      for (size_t m : members)
        for (int64_t t = lo; t < hi; ++t)
          if (accesses[m].active[t])
            spans.push_back(
                {concrete(*accesses[m].forms[t]), accesses[m].width});
      if (overflow || spans.empty())
        continue;
      WarpFootprint fp = footprint(spans);
      int64_t ideal = llvm::divideCeil(fp.bytes, 32);
      if (fp.sectors <= 2 * ideal)
        continue;

      // The stride between the first two adjacent active lanes of the
      // first access.
      std::optional<Form> stride;
      for (int64_t t = lo; t + 1 < hi && !stride; ++t)
        if (first.active[t] && first.active[t + 1] &&
            (block[0] == 1 || (t % block[0]) + 1 < block[0]))
          stride = add(*first.forms[t + 1], *first.forms[t], -1);
      int64_t elemBytes = first.layout->elemBytes;
      llvm::json::Object strideJson;
      std::string strideText;
      if (stride && stride->pure()) {
        strideText = llvm::formatv("{0} B", stride->constant).str();
        strideJson["bytes"] = stride->constant;
        if (stride->constant % elemBytes == 0) {
          strideText +=
              llvm::formatv(" ({0} elements)", stride->constant / elemBytes)
                  .str();
          strideJson["elements"] = stride->constant / elemBytes;
        } else {
          strideJson["elements"] = nullptr;
        }
      } else if (stride) {
        strideText = describe(*stride, forms.monomials) + " B";
        strideJson["bytes"] = nullptr;
        strideJson["elements"] = nullptr;
        strideJson["expr"] = describe(*stride, forms.monomials);
      } else {
        strideText = "an unknown number of bytes";
        strideJson["bytes"] = nullptr;
        strideJson["elements"] = nullptr;
      }
      auto type = cast<MemRefType>(first.access.memref.getType());
      std::string message =
          llvm::formatv("global {0} of {1} is uncoalesced: adjacent threads "
                        "access addresses {2} apart, so warp {3} touches {4} "
                        "sectors of 32 B for the {5} B it {6} ({7} would do)",
                        first.access.what, type, strideText, w, fp.sectors,
                        fp.bytes, first.access.write ? "writes" : "reads",
                        ideal)
              .str();
      if (members.size() > 1)
        message += llvm::formatv(", counting {0} accesses that fill each "
                                 "other's sectors",
                                 members.size())
                       .str();
      HarnessFinding f{check::kUncoalesced.str(),
                       first.op->getLoc(),
                       "",
                       message,
                       fp.sectors,
                       ideal};
      f.severity = HarnessFinding::Severity::Warning;
      f.details["stride"] = std::move(strideJson);
      f.details["sectors"] = fp.sectors;
      f.details["idealSectors"] = ideal;
      f.details["warp"] = w;
      f.details["accesses"] = int64_t(members.size());
      report(std::move(f));
      break; // one warp is enough
    }
  }
}
