//===- FamilyTest.cpp - The registry and the occupancy model --------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Family.h"
#include "AMK/Dialect/AMK/IR/AMKOps.h"
#include "AMK/Family/Gemm/GemmFamily.h"
#include "AMK/Family/RowReduce/RowReduceModel.h"
#include "AMK/Family/SilentEmitter.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amk;

namespace {
TEST(FamilyRegistry, RegistersOnceAndRefusesADuplicate) {
  ASSERT_FALSE(static_cast<bool>(registerAllFamilies()));
  // Idempotent.
  ASSERT_FALSE(static_cast<bool>(registerAllFamilies()));
  const KernelFamily *gemm = lookupFamily("gemm");
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->getDisplayName(), "GEMM");
  EXPECT_EQ(lookupFamily("no-such-family"), nullptr);

  llvm::Error again = registerFamily(createGemmFamily());
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(llvm::toString(std::move(again)),
            "family 'gemm' is registered twice");
  // The first registration stands.
  EXPECT_EQ(lookupFamily("gemm"), gemm);
  // Every family, in registration order.
  EXPECT_EQ(listFamilyNames(), "gemm, row_reduce, graph");
  const KernelFamily *rows = lookupFamily("row_reduce");
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->getDisplayName(), "row-wise");
  const KernelFamily *graph = lookupFamily("graph");
  ASSERT_TRUE(graph);
  EXPECT_EQ(graph->getDisplayName(), "megakernel");
}

TEST(FamilyRegistry, ComparableKeyDropsSizeTokens) {
  ASSERT_FALSE(static_cast<bool>(registerAllFamilies()));
  const KernelFamily *gemm = lookupFamily("gemm");
  llvm::json::Object unbatched{{"batched", false}}, batched{{"batched", true}};
  EXPECT_EQ(
      gemm->getComparableKey("gemm_4096x4096x4096_bf16_f32_bf16_nn", unbatched),
      "gemm_bf16_f32_bf16_nn");
  EXPECT_EQ(
      gemm->getComparableKey("gemm_?x64x32_f32_f32_f32_nt_bias", unbatched),
      "gemm_f32_f32_f32_nt_bias");
  EXPECT_EQ(gemm->getComparableKey("gemm_8x64x64x64_f16_f32_f16_nn", batched),
            "gemm_b_f16_f32_f16_nn");
}

TEST(Occupancy, FollowsTheTightestLimit) {
  TargetSpec target = *lookupTargetPreset("h200");
  KernelResources r;
  r.threadsPerBlock = 256;
  r.block = {256, 1, 1};
  r.dynamicSmemBytes = 100 * 1024;
  r.regsPerThread = 128;
  computeOccupancy(r, target);
  EXPECT_EQ(r.warpsPerBlock, 8);
  EXPECT_EQ(r.regsPerWarp, 128 * 32);
  // 228 KiB per SM hold two 100 KiB blocks (plus the 1 KiB reservation).
  EXPECT_EQ(r.blocksPerSMBySmem, 2);
  EXPECT_EQ(r.blocksPerSMByRegs, 2); // 64K registers / (128 x 256)
  EXPECT_EQ(r.blocksPerSM, 2);
  EXPECT_TRUE(r.needsSmemOptIn);

  r.regsPerThread = 300; // past the 255 a thread may hold
  computeOccupancy(r, target);
  EXPECT_EQ(r.blocksPerSMByRegs, 0);
  EXPECT_EQ(r.blocksPerSM, 0);
  EXPECT_EQ(r.getOccupancyLimiter(), "registers");
}

// The row-wise problem's JSON (RowReduceProblemFields.def) reads back as
// written, and a missing or malformed field is a failure, not a default.
TEST(RowReduceFamily, ProblemJSONRoundTrips) {
  MLIRContext context;
  Builder b(&context);
  RowProblem p;
  p.kind = RowOp::layer_norm;
  p.batch = 3;
  p.m = ShapedType::kDynamic;
  p.n = 4096;
  p.batched = true;
  p.inType = b.getBF16Type();
  p.outType = b.getF32Type();
  p.weight = p.bias = true;
  p.eps = 1e-6;
  llvm::json::Object json = p.toJSON();
  EXPECT_EQ(json.getInteger("m"), -1);
  EXPECT_EQ(json.getString("kind"), "layer_norm");
  FailureOr<RowProblem> back = RowProblem::fromJSON(&context, json);
  ASSERT_TRUE(succeeded(back));
  EXPECT_EQ(back->kind, RowOp::layer_norm);
  EXPECT_EQ(back->batch, 3);
  EXPECT_TRUE(ShapedType::isDynamic(back->m));
  EXPECT_EQ(back->n, 4096);
  EXPECT_TRUE(back->inType.isBF16());
  EXPECT_TRUE(back->outType.isF32());
  EXPECT_TRUE(back->weight && back->bias && back->batched);
  EXPECT_EQ(back->eps, 1e-6);

  for (const char *key : {"kind", "n", "in_type", "eps", "bias"}) {
    llvm::json::Object broken = json;
    broken.erase(key);
    EXPECT_TRUE(failed(RowProblem::fromJSON(&context, broken))) << key;
  }
  llvm::json::Object badKind = json;
  badKind["kind"] = "median";
  EXPECT_TRUE(failed(RowProblem::fromJSON(&context, badKind)));
  llvm::json::Object badSize = json;
  badSize["n"] = 0;
  EXPECT_TRUE(failed(RowProblem::fromJSON(&context, badSize)));
}
} // namespace

/// Planners ask attribute verifiers through the silent emitter: the
/// verifier gets a live diagnostic to stream its reason into (an inactive
/// one is an assertion failure), and nothing reaches the caller's context.
TEST(SilentEmitter, HandsOutLiveDiagnosticsThatReachNoHandler) {
  MLIRContext context;
  context.loadDialect<AMKDialect>();
  int reported = 0;
  ScopedDiagnosticHandler count(&context, [&](Diagnostic &) {
    ++reported;
    return success();
  });
  InFlightDiagnostic diag = getSilentEmitter()();
  ASSERT_NE(diag.getUnderlyingDiagnostic(), nullptr);
  diag << "streamed" << 42;
  diag.report();
  // A refused config is null and says nothing; an accepted one is built.
  auto row = [&](int64_t threadsPerRow) {
    return RowConfigAttr::getChecked(
        getSilentEmitter(), &context, threadsPerRow, int64_t(1), int64_t(4),
        int64_t(1), int64_t(0), RowCache::registers, int64_t(1));
  };
  EXPECT_FALSE(row(3));
  EXPECT_TRUE(row(32));
  EXPECT_EQ(reported, 0);
}
