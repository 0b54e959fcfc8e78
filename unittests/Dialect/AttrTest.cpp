//===- AttrTest.cpp - AMK attributes through the C++ API ------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Dialect/AMK/IR/AMKOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amk;

namespace {

class AMKAttrTest : public ::testing::Test {
protected:
  AMKAttrTest() { context.loadDialect<AMKDialect>(); }

  std::string print(Attribute attr) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << attr;
    return s;
  }

  MLIRContext context;
};

/// Every preset prints in its short form and parses back to itself, and a
/// changed field survives the round trip.
TEST_F(AMKAttrTest, TargetRoundTrip) {
  for (const TargetSpec &preset : getTargetPresets()) {
    auto attr = TargetAttr::get(&context, preset);
    EXPECT_EQ(print(attr), "#amk.target<\"" + preset.name + "\">");
    EXPECT_EQ(parseAttribute(print(attr), &context), attr);

    TargetSpec changed = preset;
    changed.sm_count = 7;
    auto changedAttr = TargetAttr::get(&context, changed);
    EXPECT_NE(print(changedAttr).find("sm_count = 7"), std::string::npos);
    EXPECT_EQ(parseAttribute(print(changedAttr), &context), changedAttr);

    changed.name = "custom";
    auto customAttr = TargetAttr::get(&context, changed);
    EXPECT_EQ(parseAttribute(print(customAttr), &context), customAttr);
  }
}

TEST_F(AMKAttrTest, GemmConfigVerifier) {
  ScopedDiagnosticHandler silence(&context, [](Diagnostic &) {});
  auto emit = [&] { return emitError(UnknownLoc::get(&context)); };
  EXPECT_TRUE(GemmConfigAttr::getChecked(emit, &context, {128, 128, 32},
                                         {64, 64}, MathInst::mma_sync,
                                         {16, 8, 16}, {}, 3, 8, 128, 1, 1,
                                         SplitReduce::atomic));
  // 4 warps of 64x64 need 128 threads, not 256.
  EXPECT_FALSE(GemmConfigAttr::getChecked(emit, &context, {128, 128, 32},
                                          {64, 64}, MathInst::mma_sync,
                                          {16, 8, 16}, {}, 3, 8, 256, 1, 1,
                                          SplitReduce::atomic));
  // simt: 32x64 warp tile over 32 threads is a 8x8 thread tile.
  auto simt =
      GemmConfigAttr::getChecked(emit, &context, {128, 128, 8}, {32, 64},
                                 MathInst::simt, {}, {8, 8}, 2, 4, 256, 1, 1,
                                 SplitReduce::atomic);
  ASSERT_TRUE(simt);
  EXPECT_EQ(simt.getNumComputeWarps(), 8);
  EXPECT_EQ(cast<KernelConfigAttrInterface>(simt).getThreadsPerBlock(), 256);
  // wgmma: two warpgroups plus a producer warpgroup.
  auto wgmma = GemmConfigAttr::getChecked(emit, &context, {128, 256, 64},
                                          {64, 256}, MathInst::wgmma,
                                          {64, 256, 16}, {}, 4, 8, 384, 1, 1,
                                          SplitReduce::atomic);
  ASSERT_TRUE(wgmma);
  EXPECT_EQ(wgmma.getNumComputeWarps(), 8);
  // A workspace reduction needs splits to reduce.
  EXPECT_FALSE(GemmConfigAttr::getChecked(emit, &context, {128, 128, 32},
                                          {64, 64}, MathInst::mma_sync,
                                          {16, 8, 16}, {}, 3, 8, 128, 1, 1,
                                          SplitReduce::workspace));
  EXPECT_TRUE(GemmConfigAttr::getChecked(emit, &context, {128, 128, 32},
                                         {64, 64}, MathInst::mma_sync,
                                         {16, 8, 16}, {}, 3, 8, 128, 1, 4,
                                         SplitReduce::workspace));
}

} // namespace
