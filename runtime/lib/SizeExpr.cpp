//===- SizeExpr.cpp - Size expressions and variant conditions -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// One recursive-descent parser for both kinds of expression:
//
//   or      := and ('||' and)*                    conditions only
//   and     := not ('&&' not)*
//   not     := '!' not | compare
//   compare := sum (('==' | '!=' | '<' | '<=' | '>' | '>=') sum)?
//   sum     := term (('+' | '-') term)*          size expressions start here
//   term    := factor (('*' | '/' | '%') factor)*
//   factor  := integer | symbol | 'align' '(' buffer ')' | '(' inner ')'
//
// where `inner` is `or` in a condition and `sum` in a size expression. Each
// value is typed (integer or truth value), so `M && 1` is an error rather than
// a guess. There is no unary minus: sizes are positive. The same pass checks
// (symbols and buffers known, types right) or evaluates (int64 arithmetic
// with overflow checks); operands that && and || skip are only checked, so
// `N > 0 && K / N > 2` never divides by zero.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Sizes.h"

#include <cctype>
#include <climits>

namespace amk::runtime {

namespace {

/// An integer or a truth value.
struct Value {
  bool isBool = false;
  int64_t number = 0;
  bool truth = false;

  static Value integer(int64_t v) { return {false, v, false}; }
  static Value boolean(bool v) { return {true, 0, v}; }
};

class ExprParser {
public:
  /// `sizes` gives the symbols (and, when `evaluating`, their values);
  /// `buffers` or `alignment` the buffers of align() (conditions only).
  ExprParser(std::string_view text, const Sizes &sizes, bool evaluating,
             bool condition)
      : text(text), sizes(sizes), evaluating(evaluating), condition(condition) {
  }

  const std::vector<std::string> *buffers = nullptr;
  const AlignmentOf *alignment = nullptr;

  Status run(Value &value) {
    skipSpaces();
    if (pos == text.size())
      return Status::error("empty expression");
    Status s = condition ? parseOr(value, 0) : parseSum(value, 0);
    if (!s.ok())
      return s;
    if (pos != text.size())
      return fail("unexpected '" + std::string(1, text[pos]) + "'");
    if (condition && !value.isBool)
      return Status::error("'" + std::string(text) +
                           "' is an integer, not a condition (compare it)");
    return Status::success();
  }

private:
  static constexpr int kMaxDepth = 64;

  std::string_view text;
  const Sizes &sizes;
  bool evaluating;
  bool condition;
  size_t pos = 0;

  Status failAt(size_t at, const std::string &message) const {
    return Status::error("column " + std::to_string(at + 1) + " of '" +
                         std::string(text) + "': " + message);
  }
  Status fail(const std::string &message) const { return failAt(pos, message); }

  void skipSpaces() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }

  /// Consumes `op` (one or two characters) when it is next.
  bool accept(std::string_view op) {
    if (text.substr(pos, op.size()) != op)
      return false;
    pos += op.size();
    skipSpaces();
    return true;
  }

  /// Fails unless `v` has the kind the operator at `at` needs.
  Status expectKind(const Value &v, bool wantBool, size_t at) const {
    if (v.isBool == wantBool)
      return Status::success();
    return failAt(at, wantBool ? "expected a condition, found an integer"
                               : "expected an integer, found a condition");
  }

  Status parseOr(Value &value, int depth);
  Status parseAnd(Value &value, int depth);
  Status parseNot(Value &value, int depth);
  Status parseCompare(Value &value, int depth);
  Status parseChain(Value &value, int depth, std::string_view ops,
                    Status (ExprParser::*operand)(Value &, int));
  Status parseSum(Value &value, int depth);
  Status parseTerm(Value &value, int depth);
  Status parseFactor(Value &value, int depth);
  Status parseNumber(Value &value);
  Status parseName(Value &value);
  Status parseAlign(Value &value);
  Status arithmetic(char op, size_t at, int64_t lhs, int64_t rhs,
                    int64_t &out) const;
};

/// Turns evaluation off, when `skip`, for the right operand of a
/// short-circuit operator whose left operand already decided: the operand is
/// then only checked.
class SkipScope {
public:
  SkipScope(bool &evaluating, bool skip)
      : evaluating(evaluating), saved(evaluating) {
    evaluating = evaluating && !skip;
  }
  ~SkipScope() { evaluating = saved; }

private:
  bool &evaluating;
  bool saved;
};

Status ExprParser::parseOr(Value &value, int depth) {
  if (Status s = parseAnd(value, depth); !s.ok())
    return s;
  while (true) {
    size_t at = pos;
    if (!accept("||"))
      return Status::success();
    if (Status s = expectKind(value, true, at); !s.ok())
      return s;
    Value rhs;
    {
      SkipScope scope(evaluating, value.truth);
      if (Status s = parseAnd(rhs, depth); !s.ok())
        return s;
    }
    if (Status s = expectKind(rhs, true, at); !s.ok())
      return s;
    value = Value::boolean(value.truth || rhs.truth);
  }
}

Status ExprParser::parseAnd(Value &value, int depth) {
  if (Status s = parseNot(value, depth); !s.ok())
    return s;
  while (true) {
    size_t at = pos;
    if (!accept("&&"))
      return Status::success();
    if (Status s = expectKind(value, true, at); !s.ok())
      return s;
    Value rhs;
    {
      SkipScope scope(evaluating, !value.truth);
      if (Status s = parseNot(rhs, depth); !s.ok())
        return s;
    }
    if (Status s = expectKind(rhs, true, at); !s.ok())
      return s;
    value = Value::boolean(value.truth && rhs.truth);
  }
}

Status ExprParser::parseNot(Value &value, int depth) {
  size_t at = pos;
  // "!=" is a comparison, not a negation.
  if (text.substr(pos, 2) == "!=" || !accept("!"))
    return parseCompare(value, depth);
  if (depth >= kMaxDepth)
    return failAt(at, "nested too deep (more than " +
                          std::to_string(kMaxDepth) + " levels)");
  if (Status s = parseNot(value, depth + 1); !s.ok())
    return s;
  if (Status s = expectKind(value, true, at); !s.ok())
    return s;
  value.truth = !value.truth;
  return Status::success();
}

Status ExprParser::parseCompare(Value &value, int depth) {
  if (Status s = parseSum(value, depth); !s.ok())
    return s;
  // Two-character operators first, so "<=" is not read as "<".
  static const char *const kOps[] = {"==", "!=", "<=", ">=", "<", ">"};
  size_t at = pos;
  const char *op = nullptr;
  for (const char *candidate : kOps)
    if (!op && accept(candidate))
      op = candidate;
  if (!op)
    return Status::success();
  if (Status s = expectKind(value, false, at); !s.ok())
    return s;
  Value rhs;
  if (Status s = parseSum(rhs, depth); !s.ok())
    return s;
  if (Status s = expectKind(rhs, false, at); !s.ok())
    return s;
  int64_t a = value.number, b = rhs.number;
  std::string_view o = op;
  value = Value::boolean(o == "=="   ? a == b
                         : o == "!=" ? a != b
                         : o == "<=" ? a <= b
                         : o == ">=" ? a >= b
                         : o == "<"  ? a < b
                                     : a > b);
  return Status::success();
}

/// A left-associative chain of `operand`s joined by the operators in
/// `ops`: the sums and terms of the grammar.
Status ExprParser::parseChain(Value &value, int depth, std::string_view ops,
                              Status (ExprParser::*operand)(Value &, int)) {
  if (Status s = (this->*operand)(value, depth); !s.ok())
    return s;
  while (pos < text.size() && ops.find(text[pos]) != std::string_view::npos) {
    size_t at = pos;
    char op = text[pos++];
    skipSpaces();
    Value rhs;
    if (Status s = (this->*operand)(rhs, depth); !s.ok())
      return s;
    for (const Value *v : {&value, &rhs})
      if (Status s = expectKind(*v, false, at); !s.ok())
        return s;
    if (Status s = arithmetic(op, at, value.number, rhs.number, value.number);
        !s.ok())
      return s;
  }
  return Status::success();
}

Status ExprParser::parseSum(Value &value, int depth) {
  return parseChain(value, depth, "+-", &ExprParser::parseTerm);
}

Status ExprParser::parseTerm(Value &value, int depth) {
  return parseChain(value, depth, "*/%", &ExprParser::parseFactor);
}

Status ExprParser::arithmetic(char op, size_t at, int64_t lhs, int64_t rhs,
                              int64_t &out) const {
  if (!evaluating) {
    out = 1;
    return Status::success();
  }
  bool overflow = false;
  switch (op) {
  case '+':
    overflow = __builtin_add_overflow(lhs, rhs, &out);
    break;
  case '-':
    overflow = __builtin_sub_overflow(lhs, rhs, &out);
    break;
  case '*':
    overflow = __builtin_mul_overflow(lhs, rhs, &out);
    break;
  default: {
    if (rhs == 0)
      return failAt(at, "division by zero");
    if (lhs == INT64_MIN && rhs == -1)
      return failAt(at, "integer overflow");
    // Floor division and a remainder with the divisor's sign: C++ truncates.
    int64_t quotient = lhs / rhs, remainder = lhs % rhs;
    if (remainder != 0 && ((remainder < 0) != (rhs < 0))) {
      --quotient;
      remainder += rhs;
    }
    out = op == '/' ? quotient : remainder;
  }
  }
  if (overflow)
    return failAt(at, "integer overflow");
  return Status::success();
}

Status ExprParser::parseFactor(Value &value, int depth) {
  if (pos == text.size())
    return fail("expected a number, a symbol or '(', found the end");
  char c = text[pos];
  Status s;
  if (c == '(') {
    if (depth >= kMaxDepth)
      return fail("parentheses nested too deep (more than " +
                  std::to_string(kMaxDepth) + " levels)");
    ++pos;
    skipSpaces();
    s = condition ? parseOr(value, depth + 1) : parseSum(value, depth + 1);
    if (s.ok() && (pos == text.size() || text[pos] != ')'))
      s = fail("expected ')'");
    if (s.ok())
      ++pos;
  } else if (std::isdigit(static_cast<unsigned char>(c))) {
    s = parseNumber(value);
  } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
    s = parseName(value);
  } else {
    s = fail("expected a number, a symbol or '(', found '" + std::string(1, c) +
             "'");
  }
  if (s.ok())
    skipSpaces();
  return s;
}

Status ExprParser::parseNumber(Value &value) {
  int64_t number = 0;
  while (pos < text.size() &&
         std::isdigit(static_cast<unsigned char>(text[pos]))) {
    if (__builtin_mul_overflow(number, 10, &number) ||
        __builtin_add_overflow(number, text[pos] - '0', &number))
      return fail("integer literal too large");
    ++pos;
  }
  value = Value::integer(number);
  return Status::success();
}

Status ExprParser::parseName(Value &value) {
  size_t start = pos;
  while (
      pos < text.size() &&
      (std::isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_'))
    ++pos;
  std::string_view name = text.substr(start, pos - start);
  size_t after = pos;
  skipSpaces();
  if (condition && name == "align" && pos < text.size() && text[pos] == '(')
    return parseAlign(value);
  pos = after;
  const int64_t *size = sizes.find(name);
  if (!size) {
    pos = start;
    return fail("unknown symbol '" + std::string(name) + "' (expected " +
                listNames(sizes.symbols()) + ")");
  }
  value = Value::integer(evaluating ? *size : 1);
  return Status::success();
}

Status ExprParser::parseAlign(Value &value) {
  ++pos; // '('
  skipSpaces();
  size_t start = pos;
  while (
      pos < text.size() &&
      (std::isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_'))
    ++pos;
  std::string name(text.substr(start, pos - start));
  if (name.empty())
    return fail("expected a buffer name in align()");
  skipSpaces();
  if (pos == text.size() || text[pos] != ')')
    return fail("expected ')' after align(" + name);
  ++pos;
  int64_t bytes = 1;
  bool known = false;
  if (buffers)
    for (const std::string &buffer : *buffers)
      known = known || buffer == name;
  if (alignment)
    known = (*alignment)(name, bytes);
  if (!known)
    return failAt(start, "align() of unknown buffer '" + name + "'");
  value = Value::integer(evaluating ? bytes : 1);
  return Status::success();
}

} // namespace

Status evalSizeExpr(std::string_view expr, const Sizes &sizes, int64_t &value) {
  Value result;
  Status s = ExprParser(expr, sizes, true, false).run(result);
  value = result.number;
  return s;
}

Status checkSizeExpr(std::string_view expr, const Sizes &declared) {
  Value ignored;
  return ExprParser(expr, declared, false, false).run(ignored);
}

Status evalCondition(std::string_view expr, const Sizes &sizes,
                     const AlignmentOf &alignment, bool &value) {
  ExprParser parser(expr, sizes, true, true);
  parser.alignment = &alignment;
  Value result;
  Status s = parser.run(result);
  value = result.truth;
  return s;
}

Status checkCondition(std::string_view expr, const Sizes &declared,
                      const std::vector<std::string> &buffers) {
  ExprParser parser(expr, declared, false, true);
  parser.buffers = &buffers;
  Value ignored;
  return parser.run(ignored);
}

} // namespace amk::runtime
