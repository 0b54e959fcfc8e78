//===- EvaluateInteger.cpp - Integer ops on concrete values ---------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/Address.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::amk;

/// Bits of an integer or index type (index: 64).
static unsigned bitsOf(Type type) {
  type = getElementTypeOrSelf(type);
  return type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
}

std::optional<int64_t> mlir::amk::evaluateIntegerOp(Operation *op,
                                                    ArrayRef<int64_t> x) {
  if (op->getNumResults() != 1 ||
      !getElementTypeOrSelf(op->getResult(0).getType()).isIntOrIndex() ||
      x.size() != op->getNumOperands())
    return std::nullopt;
  auto u = [&](unsigned i) { return uint64_t(x[i]); };
  unsigned width = bitsOf(op->getResult(0).getType());
  auto wrap = [&](uint64_t r) -> int64_t {
    if (width >= 64)
      return int64_t(r);
    return llvm::SignExtend64(r, width);
  };
  auto unsignedOf = [&](unsigned i) {
    return width >= 64 ? u(i) : u(i) & ((uint64_t(1) << width) - 1);
  };
  if (isa<arith::AddIOp>(op))
    return wrap(u(0) + u(1));
  if (isa<arith::SubIOp>(op))
    return wrap(u(0) - u(1));
  if (isa<arith::MulIOp>(op))
    return wrap(u(0) * u(1));
  if (isa<arith::AndIOp>(op))
    return wrap(u(0) & u(1));
  if (isa<arith::OrIOp>(op))
    return wrap(u(0) | u(1));
  if (isa<arith::XOrIOp>(op))
    return wrap(u(0) ^ u(1));
  if (isa<arith::ShLIOp>(op))
    return x[1] < 0 || x[1] >= 64 ? std::nullopt
                                  : std::optional(wrap(u(0) << x[1]));
  if (isa<arith::ShRUIOp>(op))
    return x[1] < 0 || x[1] >= 64 ? std::nullopt
                                  : std::optional(wrap(unsignedOf(0) >> x[1]));
  if (isa<arith::ShRSIOp>(op))
    return x[1] < 0 || x[1] >= 64 ? std::nullopt : std::optional(x[0] >> x[1]);
  if (isa<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(op)) {
    if (unsignedOf(1) == 0)
      return std::nullopt;
    uint64_t a = unsignedOf(0), b = unsignedOf(1);
    if (isa<arith::DivUIOp>(op))
      return wrap(a / b);
    if (isa<arith::RemUIOp>(op))
      return wrap(a % b);
    return wrap(a / b + (a % b != 0));
  }
  if (isa<arith::DivSIOp, arith::RemSIOp, arith::FloorDivSIOp>(op)) {
    if (x[1] == 0 || (x[1] == -1 && x[0] == INT64_MIN))
      return std::nullopt;
    if (isa<arith::DivSIOp>(op))
      return x[0] / x[1];
    if (isa<arith::RemSIOp>(op))
      return x[0] % x[1];
    return llvm::divideFloorSigned(x[0], x[1]);
  }
  if (isa<arith::MinSIOp>(op))
    return std::min(x[0], x[1]);
  if (isa<arith::MaxSIOp>(op))
    return std::max(x[0], x[1]);
  if (isa<arith::MinUIOp>(op))
    return unsignedOf(0) < unsignedOf(1) ? x[0] : x[1];
  if (isa<arith::MaxUIOp>(op))
    return unsignedOf(0) > unsignedOf(1) ? x[0] : x[1];
  if (isa<arith::SelectOp>(op))
    return x[0] ? x[1] : x[2];
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(op))
    return wrap(u(0));
  if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op)) {
    unsigned from = bitsOf(op->getOperand(0).getType());
    return from >= 64 ? x[0] : int64_t(u(0) & ((uint64_t(1) << from) - 1));
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    unsigned from = bitsOf(cmp.getLhs().getType());
    uint64_t mask = from >= 64 ? ~uint64_t(0) : (uint64_t(1) << from) - 1;
    uint64_t a = u(0) & mask, b = u(1) & mask;
    switch (cmp.getPredicate()) {
    case P::eq:
      return a == b;
    case P::ne:
      return a != b;
    case P::slt:
      return x[0] < x[1];
    case P::sle:
      return x[0] <= x[1];
    case P::sgt:
      return x[0] > x[1];
    case P::sge:
      return x[0] >= x[1];
    case P::ult:
      return a < b;
    case P::ule:
      return a <= b;
    case P::ugt:
      return a > b;
    case P::uge:
      return a >= b;
    }
  }
  return std::nullopt;
}

std::optional<int64_t> mlir::amk::evaluateInteger(
    Value v, llvm::function_ref<std::optional<int64_t>(Value)> leaf,
    int maxDepth) {
  if (std::optional<int64_t> known = leaf(v))
    return known;
  Operation *op = v.getDefiningOp();
  if (!op || maxDepth <= 0)
    return std::nullopt;
  SmallVector<int64_t, 3> operands;
  for (Value operand : op->getOperands()) {
    std::optional<int64_t> x = evaluateInteger(operand, leaf, maxDepth - 1);
    if (!x)
      return std::nullopt;
    operands.push_back(*x);
  }
  return evaluateIntegerOp(op, operands);
}

arith::CmpIPredicate mlir::amk::swapCmpIOperands(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::slt:
    return P::sgt;
  case P::sgt:
    return P::slt;
  case P::sle:
    return P::sge;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ugt:
    return P::ult;
  case P::ule:
    return P::uge;
  case P::uge:
    return P::ule;
  case P::eq:
  case P::ne:
    return pred;
  }
  return pred;
}
