//===- ThreadForms.cpp - Per-thread linear forms of addresses -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "ThreadForms.h"

#include "AMK/Analysis/Uniformity.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::coalescing;

//===----------------------------------------------------------------------===//
// Forms
//===----------------------------------------------------------------------===//

std::optional<Form> coalescing::normalized(Form f) {
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

std::optional<Form> coalescing::add(const Form &a, const Form &b,
                                    int64_t sign) {
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

std::optional<Form> coalescing::mul(const Form &a, const Form &b,
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

std::string coalescing::describe(const Form &f, const Monomials &monomials) {
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

//===----------------------------------------------------------------------===//
// ThreadForms
//===----------------------------------------------------------------------===//

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
