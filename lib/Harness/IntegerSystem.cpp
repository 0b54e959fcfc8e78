//===- IntegerSystem.cpp - Presburger systems of the race check -----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "IntegerSystem.h"

#include <cassert>
#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::amk::smem;
using presburger::IntegerPolyhedron;
using presburger::PresburgerSpace;
using presburger::VarKind;

namespace {

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
    for (int round = 0; round < kMaxRounds; ++round) {
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
      if (!substituted && !*changed && !eliminateUnitVariable())
        return std::nullopt;
    }
    return std::nullopt;
  }

  unsigned n;
  std::vector<std::vector<int64_t>> eqs, ineqs;

private:
  /// Rounds of tightening, substitution and elimination before the rows
  /// are left to the exact search.
  static constexpr int kMaxRounds = 32;
  /// Pairs of bounds an eliminated variable may combine into new rows.
  static constexpr size_t kMaxEliminationPairs = 16;

  /// Eliminates one variable that no equality holds and whose every
  /// inequality coefficient is +1 or -1 (Fourier-Motzkin on it is exact
  /// over the integers then: its lower and upper bounds are integers, so a
  /// real point between them is an integer one). Each pair of a lower and
  /// an upper bound becomes their sum; a variable bounded on one side only
  /// takes its rows with it. Tightening the sums then finds what only the
  /// integers forbid (two lanes 512 apart within 511 of each other).
  bool eliminateUnitVariable() {
    for (unsigned j = 0; j < n; ++j) {
      if (llvm::any_of(eqs, [&](const auto &row) { return row[j] != 0; }))
        continue;
      SmallVector<size_t> lower, upper;
      bool unit = true;
      for (auto [i, row] : llvm::enumerate(ineqs)) {
        if (row[j] == 1)
          lower.push_back(i);
        else if (row[j] == -1)
          upper.push_back(i);
        else
          unit &= row[j] == 0;
      }
      if (!unit || lower.size() + upper.size() == 0 ||
          lower.size() * upper.size() > kMaxEliminationPairs)
        continue;
      std::vector<std::vector<int64_t>> next;
      for (size_t l : lower)
        for (size_t u : upper) {
          std::vector<int64_t> sum(ineqs[l]);
          if (!subtract(sum, ineqs[u], -1))
            return false;
          next.push_back(std::move(sum));
        }
      for (auto [i, row] : llvm::enumerate(ineqs))
        if (row[j] == 0)
          next.push_back(std::move(row));
      ineqs = std::move(next);
      return true;
    }
    return false;
  }

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
        // (Or-ed: a true constant row after a false one must not clear it.)
        contradiction |= equality ? c != 0 : c < 0;
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
        x = x == INT64_MIN ? x : -x; // (-INT64_MIN overflows)
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

} // namespace

//===----------------------------------------------------------------------===//
// System
//===----------------------------------------------------------------------===//

unsigned System::var(std::optional<int64_t> lo, std::optional<int64_t> hi) {
  // A bound as large as the index type's is no bound a proof needs (the
  // structure refutes races, not the edges of int64), and its magnitude
  // sends the exact search into arbitrary precision: dropped, which only
  // adds points.
  auto tame = [](std::optional<int64_t> b) {
    return b && std::abs(*b) <= kMaxVarBound ? b : std::nullopt;
  };
  lo = tame(lo);
  hi = tame(hi);
  unsigned id = bounds.size();
  bounds.push_back({lo, hi});
  if (lo)
    ge0(Lin::var(id) - *lo);
  if (hi)
    ge0(Lin::of(*hi) - Lin::var(id));
  return id;
}

std::optional<Lin> System::canonical(const Lin &e) {
  if (!e.valid)
    return std::nullopt;
  Lin out = Lin::of(e.constant);
  for (auto [var, c] : e.terms) {
    unsigned v = var;
    auto *it = llvm::find_if(out.terms, [&](auto &t) { return t.first == v; });
    if (it == out.terms.end())
      out.terms.push_back({v, c});
    else if (llvm::AddOverflow(it->second, c, it->second))
      return std::nullopt;
  }
  llvm::erase_if(out.terms, [](auto &t) { return t.second == 0; });
  return out;
}

void System::ge0(const Lin &e) {
  if (std::optional<Lin> row = canonical(e))
    inequalities.push_back(std::move(*row));
}

void System::eq0(const Lin &e) {
  if (std::optional<Lin> row = canonical(e))
    equalities.push_back(std::move(*row));
}

std::vector<std::vector<int64_t>> System::dense(ArrayRef<Lin> rows) const {
  unsigned n = getNumVars();
  std::vector<std::vector<int64_t>> out;
  out.reserve(rows.size());
  for (const Lin &row : rows) {
    std::vector<int64_t> &r = out.emplace_back(n + 1, 0);
    for (auto [v, c] : row.terms)
      r[v] = c;
    r[n] = row.constant;
  }
  return out;
}

std::optional<std::pair<int64_t, int64_t>>
System::interval(const Lin &e) const {
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

std::optional<SmallVector<int64_t>> System::sample() const {
  SmallVector<int64_t> point;
  // Nothing left to choose: the constraints are constants.
  if (getNumVars() == 0) {
    for (const Lin &row : inequalities)
      if (row.constant < 0)
        return std::nullopt;
    for (const Lin &row : equalities)
      if (row.constant != 0)
        return std::nullopt;
    return point;
  }
  // Most systems are integer-empty but rationally feasible (ring stages:
  // k mod S against (k + S - 1) mod S), where generalized basis reduction
  // is slow; a cheaper proof of emptiness usually exists.
  if (provablyEmpty())
    return std::nullopt;
  unsigned budget = kMaxCaseSystems;
  if (emptyByCases(kCaseDepth, budget))
    return std::nullopt;
  IntegerPolyhedron poly(PresburgerSpace::getSetSpace(getNumVars()));
  for (const std::vector<int64_t> &row : dense(equalities))
    poly.addEquality(row);
  for (const std::vector<int64_t> &row : dense(inequalities))
    poly.addInequality(row);
  auto exact = poly.findIntegerSample();
  if (!exact)
    return std::nullopt;
  for (const auto &x : *exact)
    point.push_back(int64_t(x));
  return point;
}

int64_t System::eval(const Lin &e, ArrayRef<int64_t> values) {
  int64_t r = e.constant;
  for (auto [v, c] : e.terms) {
    // Every form evaluated is built before its system is copied, so each
    // variable has a value; never read past them if one is not.
    assert(v < values.size() && "form has a variable the system lacks");
    r += c * (v < values.size() ? values[v] : 0);
  }
  return r;
}

bool System::emptyByCases(unsigned depth, unsigned &budget) const {
  // The variable of fewest values (at most kMaxCaseValues).
  std::optional<unsigned> best;
  int64_t fewest = kMaxCaseValues + 1;
  for (auto [v, b] : llvm::enumerate(bounds)) {
    if (!b.first || !b.second || *b.second - *b.first + 1 >= fewest ||
        *b.second == *b.first)
      continue;
    best = v;
    fewest = *b.second - *b.first + 1;
  }
  if (!best)
    return false;
  for (int64_t value = *bounds[*best].first; value <= *bounds[*best].second;
       ++value) {
    if (budget == 0)
      return false;
    --budget;
    System c = *this;
    c.bounds[*best] = {value, value};
    c.eq0(Lin::var(*best) - value);
    if (!c.provablyEmpty() &&
        (depth <= 1 || !c.emptyByCases(depth - 1, budget)))
      return false;
  }
  return true;
}

bool System::provablyEmpty() const {
  unsigned n = getNumVars();
  Reducer r(n);
  r.eqs = dense(equalities);
  r.ineqs = dense(inequalities);
  if (std::optional<bool> empty = r.reduce())
    return *empty;
  IntegerPolyhedron rest(PresburgerSpace::getSetSpace(n));
  for (const std::vector<int64_t> &row : r.eqs)
    rest.addEquality(row);
  for (const std::vector<int64_t> &row : r.ineqs)
    rest.addInequality(row);
  return rest.isEmpty();
}
