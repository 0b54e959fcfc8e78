//===- ThreadForms.h - Per-thread linear forms of addresses -----*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The coalescing check (Coalescing.cpp) evaluates each global address for
// every thread of a warp as a linear form over "atoms", values every thread
// shares (block ids, loop induction variables, dynamic sizes and strides,
// other uniform values), plus a constant.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_THREADFORMS_H
#define AMK_LIB_HARNESS_THREADFORMS_H

#include "AMK/Analysis/Address.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::amk {
class UniformityInfo;
} // namespace mlir::amk

namespace mlir::amk::coalescing {

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
std::optional<Form> normalized(Form f);
/// a + sign * b; nullopt on overflow.
std::optional<Form> add(const Form &a, const Form &b, int64_t sign = 1);
/// a * b; nullopt on overflow.
std::optional<Form> mul(const Form &a, const Form &b, Monomials &monomials);
/// "4 x (the dynamic size of dimension 1 of argument 0) + 16".
std::string describe(const Form &f, const Monomials &monomials);

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

} // namespace mlir::amk::coalescing

#endif // AMK_LIB_HARNESS_THREADFORMS_H
