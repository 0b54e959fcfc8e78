//===- GemmProblemTests.cpp - The GEMM family's problem and checks --------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// GemmProblem's codec (generated from GemmProblemFields.def), the derived
// `batched` of older manifests, and a schema-1 bundle planned like any other.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "AMK/Runtime/GemmProblem.h"
#include "AMK/Runtime/LaunchPlan.h"

#include <string>
#include <vector>

using namespace amk::runtime;
using namespace amk::runtime::test;

namespace {

const JsonValue &sampleProblem(JsonValue &root) {
  EXPECT_TRUE(parseJson(inputText("sample.json"), root).ok());
  return *root.find("problem");
}

TEST(GemmProblem, CodecFollowsTheFieldList) {
  JsonValue root;
  GemmProblem problem;
  ASSERT_TRUE(readGemmProblem(sampleProblem(root), "s.json", problem).ok());
  EXPECT_EQ(problem.k, int64_t(4096));
  EXPECT_EQ(problem.alpha, 1.0);
  EXPECT_TRUE(problem.accType == ScalarType::F32);
  // Written back: family, signature, then the .def's keys in its order.
  JsonValue json = toJson(problem);
  std::vector<std::string> keys;
  for (const JsonValue::Member &member : json.getObject())
    keys.push_back(member.first);
  std::vector<std::string> want = {"family", "signature"};
#define AMK_GEMM_FIELD(Kind, key, member, doc) want.push_back(#key);
#include "AMK/Family/Gemm/GemmProblemFields.def"
  EXPECT_EQ(keys, want);
  // And read again, the same problem.
  GemmProblem again;
  ASSERT_TRUE(readGemmProblem(json, "t.json", again).ok());
  EXPECT_EQ(toJsonString(toJson(again)), toJsonString(json));
}

TEST(GemmProblem, BatchedIsDerivedWhenAbsent) {
  JsonValue root;
  JsonValue problem = sampleProblem(root);
  GemmProblem p;
  ASSERT_TRUE(readGemmProblem(problem, "s.json", p).ok());
  EXPECT_FALSE(p.batched); // batch 1
  problem.set("batch", JsonValue::integer(-1));
  ASSERT_TRUE(readGemmProblem(problem, "s.json", p).ok());
  EXPECT_TRUE(p.batched); // dynamic
  problem.set("batch", JsonValue::integer(1));
  problem.set("batched", JsonValue::boolean(true));
  ASSERT_TRUE(readGemmProblem(problem, "s.json", p).ok());
  EXPECT_TRUE(p.batched); // as written
  problem.set("batched", JsonValue::integer(1));
  EXPECT_TRUE(contains(readGemmProblem(problem, "s.json", p).message(),
                       "problem.batched: expected bool, found number"));
}

TEST(GemmProblem, ReportsBadFieldsAndUnknownKeys) {
  JsonValue root;
  JsonValue problem = sampleProblem(root);
  problem.set("precision", JsonValue::string("tf32"));
  GemmProblem p;
  EXPECT_TRUE(contains(readGemmProblem(problem, "s.json", p).message(),
                       "problem.precision: tf32 needs in_type f32 (found "
                       "bf16)"));
  problem.set("precision", JsonValue::string("fast"));
  EXPECT_TRUE(contains(readGemmProblem(problem, "s.json", p).message(),
                       "expected \"ieee\" or \"tf32\", found \"fast\""));
  problem = sampleProblem(root);
  problem.set("layout", JsonValue::string("nn"));
  std::vector<std::string> notes;
  ASSERT_TRUE(readGemmProblem(problem, "s.json", p, &notes).ok());
  ASSERT_EQ(notes.size(), size_t(1));
  EXPECT_TRUE(contains(notes[0], "unknown key 'problem.layout' ignored"));
}

TEST(GemmProblem, ABatchedProblemNeedsBatchedOperands) {
  std::string text = replaced(inputText("sample.json"), "\"bias\": true,",
                              "\"bias\": true, \"batched\": true,");
  Bundle bundle;
  Status s = Bundle::parse(text, "/bundles", "test.json", bundle);
  EXPECT_TRUE(contains(s.message(), "argument A has shape [4096, 4096] at "
                                    "B=1 M=4096 N=4096 K=4096, the problem "
                                    "implies [1, 4096, 4096]"));
}

TEST(GemmProblem, SchemaOneSplitKPlansAZeroStepOfC) {
  std::string text =
      replaced(inputText("sample.json"), "\"dynamic_smem_bytes\": 65536,",
               "\"dynamic_smem_bytes\": 65536, "
               "\"zero_output\": true,");
  Bundle bundle;
  ASSERT_TRUE(Bundle::parse(text, "/bundles", "test.json", bundle).ok());
  Sizes sizes;
  ASSERT_TRUE(bundle.resolveSizes(nullptr, sizes).ok());
  LaunchPlan plan;
  ASSERT_TRUE(planLaunch(bundle, sizes,
                         {1ull << 40, 2ull << 40, 3ull << 40, 4ull << 40}, plan)
                  .ok());
  ASSERT_EQ(plan.steps.size(), size_t(2));
  EXPECT_TRUE(plan.steps[0].kind == StepSpec::Kind::Zero);
  EXPECT_EQ(plan.steps[0].buffer, size_t(3)); // C
  EXPECT_EQ(plan.steps[0].bytes, int64_t(4096) * 4096 * 2);
  EXPECT_TRUE(plan.steps[1].kind == StepSpec::Kind::Kernel);
  EXPECT_EQ(plan.steps[1].grid[0], int64_t(1024));
  EXPECT_TRUE(plan.workspaceBytes.empty());
}

} // namespace
