//===- Sizes.h - Size symbols and the expressions over them -----*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// A bundle's sizes are named by its family (GEMM: B, M, N, K); the runtime
// knows them only as identifiers that the manifest declares. Grid extents,
// buffer shapes and variant conditions are expressions over them
// (docs/BUNDLE.md): integers with + - * / % and parentheses, and for
// conditions also comparisons, && || ! and align(<buffer>).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_SIZES_H
#define AMK_RUNTIME_SIZES_H

#include "AMK/Runtime/Status.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amk::runtime {

/// The value of a declared size that each launch chooses.
constexpr int64_t kDynamicSize = -1;

/// Values of size symbols, in the order they were first set (the order a
/// manifest declares them, so messages list them that way).
class Sizes {
public:
  using Entry = std::pair<std::string, int64_t>;

  Sizes() = default;
  Sizes(std::initializer_list<Entry> entries);

  /// Sets `symbol` (appending it if new).
  void set(std::string_view symbol, int64_t value);
  /// The value of `symbol`, or null when it has none.
  const int64_t *find(std::string_view symbol) const;
  bool contains(std::string_view symbol) const {
    return find(symbol) != nullptr;
  }
  /// The value of `symbol`, or `otherwise` when it has none.
  int64_t get(std::string_view symbol, int64_t otherwise = 0) const;

  const std::vector<Entry> &entries() const { return values; }
  size_t size() const { return values.size(); }
  bool empty() const { return values.empty(); }
  /// The symbols, in order.
  std::vector<std::string> symbols() const;
  /// "B=1 M=4096 N=?" (? for kDynamicSize).
  std::string toString() const;

  bool operator==(const Sizes &other) const { return values == other.values; }
  bool operator!=(const Sizes &other) const { return !(*this == other); }

private:
  std::vector<Entry> values;
};

/// Whether `name` is a size symbol's spelling: [A-Za-z_][A-Za-z0-9_]*.
bool isSizeSymbol(std::string_view name);

/// "B, M, N or K": `names` as a list for a message.
std::string listNames(const std::vector<std::string> &names,
                      const char *last = "or");

//===----------------------------------------------------------------------===//
// Size expressions
//===----------------------------------------------------------------------===//

/// Evaluates an integer expression over the symbols of `sizes` with
/// + - * / % and parentheses, as used by grids. `/` and `%` round down.
/// Fails with the column of the problem on a syntax error, an unknown
/// symbol, division by zero or int64 overflow.
Status evalSizeExpr(std::string_view expr, const Sizes &sizes, int64_t &value);

/// Checks the syntax of `expr` and that it names only symbols of `declared`
/// (whose values are not used), without evaluating it.
Status checkSizeExpr(std::string_view expr, const Sizes &declared);

//===----------------------------------------------------------------------===//
// Conditions
//===----------------------------------------------------------------------===//

/// The byte alignment of buffer `name` for align(); false when there is no
/// such buffer.
using AlignmentOf = std::function<bool(std::string_view name, int64_t &)>;

/// Evaluates a variant condition: size expressions compared with
/// == != < <= > >=, combined with && || ! (short-circuit) and parentheses;
/// align(<buffer>) is `alignment`'s value for the buffer.
Status evalCondition(std::string_view expr, const Sizes &sizes,
                     const AlignmentOf &alignment, bool &value);

/// Checks a condition's syntax and types, and that it names only symbols of
/// `declared` and buffers of `buffers`.
Status checkCondition(std::string_view expr, const Sizes &declared,
                      const std::vector<std::string> &buffers);

} // namespace amk::runtime

#endif // AMK_RUNTIME_SIZES_H
