//===- SizeExpr.cpp - Integer expressions over size symbols ---------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/SizeExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::amk;

struct SizeExpr::Node {
  Kind kind;
  int64_t value = 0; // Constant; the divisor of CeilDiv.
  std::string name;  // Symbol.
  std::shared_ptr<const Node> lhs, rhs;
};

SizeExpr SizeExpr::constant(int64_t value) {
  return SizeExpr(
      std::make_shared<Node>(Node{Kind::Constant, value, "", {}, {}}));
}

SizeExpr SizeExpr::symbol(StringRef name) {
  return SizeExpr(
      std::make_shared<Node>(Node{Kind::Symbol, 0, name.str(), {}, {}}));
}

namespace mlir::amk {
SizeExpr operator+(const SizeExpr &lhs, const SizeExpr &rhs) {
  return SizeExpr(std::make_shared<SizeExpr::Node>(
      SizeExpr::Node{SizeExpr::Kind::Add, 0, "", lhs.node, rhs.node}));
}

SizeExpr operator*(const SizeExpr &lhs, const SizeExpr &rhs) {
  return SizeExpr(std::make_shared<SizeExpr::Node>(
      SizeExpr::Node{SizeExpr::Kind::Mul, 0, "", lhs.node, rhs.node}));
}
} // namespace mlir::amk

SizeExpr SizeExpr::ceilDiv(const SizeExpr &lhs, int64_t divisor) {
  assert(divisor >= 1 && "ceilDiv by a non-positive divisor");
  return SizeExpr(std::make_shared<Node>(
      Node{Kind::CeilDiv, divisor, "", lhs.node, nullptr}));
}

SizeExpr::Kind SizeExpr::getKind() const { return node->kind; }

std::optional<int64_t> SizeExpr::getConstant() const {
  if (node->kind != Kind::Constant)
    return std::nullopt;
  return node->value;
}

std::string SizeExpr::str() const {
  // Operands of `*` are parenthesized unless they are atoms.
  auto factor = [](const SizeExpr &e) {
    std::string s = e.str();
    Kind k = e.getKind();
    return k == Kind::Constant || k == Kind::Symbol || k == Kind::Mul
               ? s
               : "(" + s + ")";
  };
  switch (node->kind) {
  case Kind::Constant:
    return std::to_string(node->value);
  case Kind::Symbol:
    return node->name;
  case Kind::Add:
    return SizeExpr(node->lhs).str() + "+" + SizeExpr(node->rhs).str();
  case Kind::Mul:
    return factor(SizeExpr(node->lhs)) + "*" + factor(SizeExpr(node->rhs));
  case Kind::CeilDiv: {
    std::string x = SizeExpr(node->lhs).str();
    if (node->value == 1)
      return x;
    return "(" + x + "+" + std::to_string(node->value - 1) + ")/" +
           std::to_string(node->value);
  }
  }
  llvm_unreachable("unknown size expression kind");
}

std::optional<int64_t> SizeExpr::evaluate(
    function_ref<std::optional<int64_t>(StringRef)> lookup) const {
  switch (node->kind) {
  case Kind::Constant:
    return node->value;
  case Kind::Symbol:
    return lookup(node->name);
  case Kind::Add:
  case Kind::Mul: {
    std::optional<int64_t> l = SizeExpr(node->lhs).evaluate(lookup);
    std::optional<int64_t> r = SizeExpr(node->rhs).evaluate(lookup);
    if (!l || !r)
      return std::nullopt;
    return node->kind == Kind::Add ? llvm::checkedAdd(*l, *r)
                                   : llvm::checkedMul(*l, *r);
  }
  case Kind::CeilDiv: {
    std::optional<int64_t> x = SizeExpr(node->lhs).evaluate(lookup);
    if (!x || *x < 0)
      return std::nullopt;
    return llvm::divideCeil(static_cast<uint64_t>(*x),
                            static_cast<uint64_t>(node->value));
  }
  }
  llvm_unreachable("unknown size expression kind");
}

Value SizeExpr::materialize(
    OpBuilder &b, Location loc,
    function_ref<OpFoldResult(StringRef)> symbolValue) const {
  return getValueOrCreateConstantIndexOp(b, loc, fold(b, loc, symbolValue));
}

OpFoldResult
SizeExpr::fold(OpBuilder &b, Location loc,
               function_ref<OpFoldResult(StringRef)> symbolValue) const {
  auto value = [&](OpFoldResult r) {
    return getValueOrCreateConstantIndexOp(b, loc, r);
  };
  switch (node->kind) {
  case Kind::Constant:
    return b.getIndexAttr(node->value);
  case Kind::Symbol:
    return symbolValue(node->name);
  case Kind::Add:
  case Kind::Mul: {
    OpFoldResult l = SizeExpr(node->lhs).fold(b, loc, symbolValue);
    OpFoldResult r = SizeExpr(node->rhs).fold(b, loc, symbolValue);
    std::optional<int64_t> cl = getConstantIntValue(l),
                           cr = getConstantIntValue(r);
    if (cl && cr) {
      std::optional<int64_t> folded = node->kind == Kind::Add
                                          ? llvm::checkedAdd(*cl, *cr)
                                          : llvm::checkedMul(*cl, *cr);
      if (folded)
        return b.getIndexAttr(*folded);
    }
    if (node->kind == Kind::Add)
      return arith::AddIOp::create(b, loc, value(l), value(r)).getResult();
    return arith::MulIOp::create(b, loc, value(l), value(r)).getResult();
  }
  case Kind::CeilDiv: {
    OpFoldResult x = SizeExpr(node->lhs).fold(b, loc, symbolValue);
    if (node->value == 1)
      return x;
    if (std::optional<int64_t> c = getConstantIntValue(x); c && *c >= 0)
      return b.getIndexAttr(llvm::divideCeil(
          static_cast<uint64_t>(*c), static_cast<uint64_t>(node->value)));
    return arith::CeilDivUIOp::create(
               b, loc, value(x),
               arith::ConstantIndexOp::create(b, loc, node->value))
        .getResult();
  }
  }
  llvm_unreachable("unknown size expression kind");
}
