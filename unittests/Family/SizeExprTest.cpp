//===- SizeExprTest.cpp - Size expressions: spelling, value, IR -----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/SizeExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "gtest/gtest.h"

#include <limits>

using namespace mlir;
using namespace mlir::amk;

namespace {
SizeExpr gemmGridX() {
  return SizeExpr::ceilDiv(SizeExpr::symbol("M"), 128) *
         SizeExpr::ceilDiv(SizeExpr::symbol("N"), 64);
}

std::optional<int64_t> sizesMN(StringRef name) {
  if (name == "M")
    return 1000;
  if (name == "N")
    return 65;
  return std::nullopt;
}

TEST(SizeExpr, SpellsTheManifestSyntax) {
  EXPECT_EQ(gemmGridX().str(), "((M+127)/128)*((N+63)/64)");
  EXPECT_EQ((SizeExpr::symbol("B") * SizeExpr::constant(4)).str(), "B*4");
  EXPECT_EQ(SizeExpr::ceilDiv(SizeExpr::symbol("K"), 1).str(), "K");
  EXPECT_EQ((SizeExpr::symbol("M") + SizeExpr::constant(2)).str(), "M+2");
  EXPECT_EQ(
      ((SizeExpr::symbol("M") + SizeExpr::constant(2)) * SizeExpr::symbol("N"))
          .str(),
      "(M+2)*N");
}

TEST(SizeExpr, EvaluatesWithCheckedArithmetic) {
  EXPECT_EQ(gemmGridX().evaluate(sizesMN), 8 * 2);
  // An unknown symbol, or a product past int64, has no value.
  EXPECT_EQ(SizeExpr::symbol("K").evaluate(sizesMN), std::nullopt);
  SizeExpr big = SizeExpr::constant(std::numeric_limits<int64_t>::max() / 2) *
                 SizeExpr::constant(3);
  EXPECT_EQ(big.evaluate(sizesMN), std::nullopt);
  SizeExpr sum = SizeExpr::constant(std::numeric_limits<int64_t>::max()) +
                 SizeExpr::constant(1);
  EXPECT_EQ(sum.evaluate(sizesMN), std::nullopt);
}

TEST(SizeExpr, MaterializesFoldingStaticParts) {
  MLIRContext context;
  context.loadDialect<arith::ArithDialect, func::FuncDialect>();
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, "f",
                                   b.getFunctionType({b.getIndexType()}, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  Value n = entry->getArgument(0);

  // All static: one constant, no arithmetic.
  auto staticSizes = [&](StringRef name) -> OpFoldResult {
    return b.getIndexAttr(*sizesMN(name));
  };
  Value all = gemmGridX().materialize(b, loc, staticSizes);
  EXPECT_EQ(getConstantIntValue(all), std::optional<int64_t>(16));

  // N dynamic: ceildiv and a product remain, M's part folds.
  auto dynamicN = [&](StringRef name) -> OpFoldResult {
    if (name == "N")
      return n;
    return b.getIndexAttr(1000);
  };
  Value x = gemmGridX().materialize(b, loc, dynamicN);
  auto mul = x.getDefiningOp<arith::MulIOp>();
  ASSERT_TRUE(mul);
  EXPECT_EQ(getConstantIntValue(mul.getLhs()), std::optional<int64_t>(8));
  EXPECT_TRUE(mul.getRhs().getDefiningOp<arith::CeilDivUIOp>());
}
} // namespace
