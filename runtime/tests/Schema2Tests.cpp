//===- Schema2Tests.cpp - Schema-2 manifests and launch plans -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Schema-2 bundles (docs/BUNDLE.md): several kernels, workspace, variants with
// conditions, steps ordered by `after`; choosing a variant and planning a
// launch; and every kind of bad input, each of which must be an error naming
// the manifest, the field and the entry. Inputs/gemm-v2.json is the bundle
// most tests start from (its cubins are placeholder files: nothing here
// loads them).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "AMK/Runtime/GemmProblem.h"
#include "AMK/Runtime/LaunchPlan.h"

#include <algorithm>
#include <string>

using namespace amk::runtime;
using namespace amk::runtime::test;

namespace {

std::string gemmText() { return inputText("gemm-v2.json"); }

Bundle loadGemm() {
  Bundle bundle;
  Status s = Bundle::loadManifest(inputPath("gemm-v2.json"), bundle);
  EXPECT_TRUE(s.ok());
  if (!s.ok())
    std::printf("%s\n", s.message().c_str());
  return bundle;
}

/// "test.json:<line>:<col>: " of byte `at` of `text`.
std::string positionAt(const std::string &text, size_t at) {
  int line =
      1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
  size_t lineStart = text.rfind('\n', at);
  size_t column = at - (lineStart == std::string::npos ? 0 : lineStart + 1);
  return "test.json:" + std::to_string(line) + ":" +
         std::to_string(column + 1) + ": ";
}

/// The same where `needle` starts in `text`.
std::string positionOf(const std::string &text, const std::string &needle) {
  size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos);
  return positionAt(text, at == std::string::npos ? 0 : at);
}

/// The plan of the GEMM bundle at B=1, M=`m` with A at `a`.
LaunchPlan planGemm(const Bundle &bundle, int64_t m, CUdeviceptr a) {
  Sizes asked = gemmSizes(1, m, 4096, 4096), sizes;
  EXPECT_TRUE(bundle.resolveSizes(&asked, sizes).ok());
  LaunchPlan plan;
  Status s = planLaunch(bundle, sizes, {a, 0x200000, 0x300000}, plan);
  EXPECT_TRUE(s.ok());
  if (!s.ok())
    std::printf("%s\n", s.message().c_str());
  return plan;
}

StepSpec step(const std::string &id, const std::vector<std::string> &after) {
  StepSpec s;
  s.id = id;
  s.kernel = "k";
  s.after = after;
  return s;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

TEST(Schema2, ReadsKernelsVariantsAndSteps) {
  Bundle bundle = loadGemm();
  const Manifest &m = bundle.manifest();
  EXPECT_EQ(m.schema, int64_t(2));
  EXPECT_EQ(m.family, std::string("gemm"));
  EXPECT_EQ(m.flags, std::string("O3 +ptx80"));
  EXPECT_EQ(m.sizes.toString(), std::string("B=? M=? N=4096 K=4096"));
  EXPECT_TRUE(m.isDynamic());
  ASSERT_EQ(m.args.size(), size_t(3));
  ASSERT_EQ(m.workspace.size(), size_t(1));
  EXPECT_EQ(m.workspace[0].name, std::string("partials"));
  ASSERT_EQ(m.workspace[0].shape.size(), size_t(4));
  EXPECT_EQ(m.workspace[0].shape[0].extent, int64_t(4));
  EXPECT_EQ(m.workspace[0].shape[2].symbol, std::string("M"));
  EXPECT_EQ(m.findBuffer("partials"), 3);

  ASSERT_EQ(m.kernels.size(), size_t(3));
  const KernelSpec &main = m.kernels[0], &partial = m.kernels[1];
  EXPECT_EQ(main.entry, std::string("gemm_main"));
  EXPECT_EQ(main.estimatedRegsPerThread, int64_t(128));
  EXPECT_EQ(main.tile[1], int64_t(128));
  EXPECT_EQ(main.predictedUs, 12.5);
  EXPECT_EQ(main.verdictStatus, std::string("verified"));
  EXPECT_EQ(partial.grid[1], std::string("4"));
  EXPECT_EQ(partial.params[2], std::string("partials"));
  EXPECT_EQ(partial.predictedUs, 0.0); // Optional fields default.
  EXPECT_TRUE(partial.config.empty());
  EXPECT_EQ(bundle.cubinPath(2),
            std::string(AMK_RUNTIME_TEST_INPUTS) + "/v2_reduce.cubin");

  ASSERT_EQ(m.variants.size(), size_t(3));
  EXPECT_TRUE(contains(m.variants[0].when, "align(A) >= 16"));
  EXPECT_TRUE(m.variants[2].when.empty());
  // Listed r (after p), p (after z), z: they run z, p, r.
  const VariantSpec &split = m.variants[1];
  ASSERT_EQ(split.order.size(), size_t(3));
  EXPECT_EQ(split.order[0], size_t(2));
  EXPECT_EQ(split.order[1], size_t(1));
  EXPECT_EQ(split.order[2], size_t(0));
  EXPECT_TRUE(split.steps[2].kind == StepSpec::Kind::Zero);
  EXPECT_TRUE(bundle.warnings().empty());

  GemmProblem problem;
  ASSERT_TRUE(readGemmProblem(bundle, problem).ok());
  EXPECT_TRUE(problem.batched);
  EXPECT_TRUE(problem.outType == ScalarType::F32);
}

TEST(Schema2, LoadsAFamilyTheRuntimeHasNoChecksFor) {
  Bundle bundle;
  ASSERT_TRUE(Bundle::loadManifest(inputPath("softmax-v2.json"), bundle).ok());
  EXPECT_EQ(bundle.manifest().family, std::string("rowsoftmax"));
  Sizes asked{{"ROWS", 7}}, sizes;
  ASSERT_TRUE(bundle.resolveSizes(&asked, sizes).ok());
  EXPECT_EQ(sizes.toString(), std::string("ROWS=7 COLS=1024"));
  LaunchPlan plan;
  ASSERT_TRUE(planLaunch(bundle, sizes, {0x1000, 0x2000}, plan).ok());
  ASSERT_EQ(plan.steps.size(), size_t(1));
  EXPECT_EQ(plan.steps[0].grid[0], int64_t(7));
  // It is not a GEMM.
  GemmProblem problem;
  EXPECT_TRUE(contains(readGemmProblem(bundle, problem).message(),
                       "problem.family: expected \"gemm\""));
}

TEST(Schema2, WarnsAboutUnknownKeysAndUnverifiedKernels) {
  std::string text = replaced(gemmText(), "\"cache_key\": \"k-main\",",
                              "\"cache_key\": \"k-main\", \"extra\": 1,");
  text = replaced(text, "{\"id\": \"z\", \"zero\": \"partials\"}",
                  "{\"id\": \"z\", \"zero\": \"partials\", \"why\": 2}");
  text = replaced(text, "\"verdict\": {\"status\": \"verified\", \"checks\"",
                  "\"verdict\": {\"status\": \"unchecked\", \"checks\"");
  Bundle bundle;
  ASSERT_TRUE(parseInInputs(text, bundle).ok());
  ASSERT_EQ(bundle.warnings().size(), size_t(3));
  EXPECT_TRUE(contains(bundle.warnings()[0],
                       "unknown key 'kernels[0] ('main').extra'"));
  EXPECT_TRUE(contains(bundle.warnings()[1],
                       "unknown key 'variants[1].steps[2] ('z').why'"));
  EXPECT_TRUE(contains(bundle.warnings()[2], "kernel 'main''s verdict is "
                                             "'unchecked'"));
}

//===----------------------------------------------------------------------===//
// Launch plans
//===----------------------------------------------------------------------===//

TEST(Plan, PicksTheFirstVariantWhoseConditionHolds) {
  Bundle bundle = loadGemm();
  // Large M, A 16-byte aligned: the main kernel alone.
  LaunchPlan plan = planGemm(bundle, 256, 0x100000);
  EXPECT_EQ(plan.variant, size_t(0));
  ASSERT_EQ(plan.steps.size(), size_t(1));
  EXPECT_EQ(plan.steps[0].kernel, size_t(0));
  EXPECT_EQ(plan.steps[0].grid[0], int64_t(2 * 32));
  // A only 8-byte aligned: the fallback, which zeroes C first.
  plan = planGemm(bundle, 256, 0x100008);
  EXPECT_EQ(plan.variant, size_t(2));
  ASSERT_EQ(plan.steps.size(), size_t(2));
  EXPECT_TRUE(plan.steps[0].kind == StepSpec::Kind::Zero);
  EXPECT_EQ(plan.steps[0].buffer, size_t(2)); // C
  EXPECT_EQ(plan.steps[0].bytes, int64_t(256 * 4096 * 4));
  EXPECT_TRUE(plan.steps[1].kind == StepSpec::Kind::Kernel);
  // Small M, whatever the alignment: split into the workspace, reduce.
  plan = planGemm(bundle, 64, 0x100002);
  EXPECT_EQ(plan.variant, size_t(1));
  ASSERT_EQ(plan.steps.size(), size_t(3));
  EXPECT_EQ(plan.steps[0].buffer, size_t(3)); // partials
  EXPECT_EQ(plan.steps[0].bytes, int64_t(4) * 64 * 4096 * 4);
  EXPECT_EQ(plan.steps[1].kernel, size_t(1));
  EXPECT_EQ(plan.steps[1].grid[1], int64_t(4));
  EXPECT_EQ(plan.steps[2].kernel, size_t(2));
  EXPECT_EQ(plan.steps[2].grid[0], int64_t(64 * 4096 / 256));
  ASSERT_EQ(plan.workspaceBytes.size(), size_t(1));
  EXPECT_EQ(plan.workspaceBytes[0], int64_t(4) * 64 * 4096 * 4);
}

TEST(Plan, SaysWhichConditionsWereFalse) {
  Bundle bundle;
  ASSERT_TRUE(parseInInputs(replaced(gemmText(), "{\"steps\": [{\"id\": \"z\"",
                                     "{\"when\": \"B > 1\", \"steps\": "
                                     "[{\"id\": \"z\""),
                            bundle)
                  .ok());
  Sizes asked = gemmSizes(1, 256, 4096, 4096), sizes;
  ASSERT_TRUE(bundle.resolveSizes(&asked, sizes).ok());
  size_t variant;
  Status s = selectVariant(bundle, sizes, {0x100001, 0x2000, 0x3000}, variant);
  EXPECT_EQ(s.message(),
            std::string("no variant of bundle "
                        "'gemm_DxDx4096x4096_bf16_f32_f32_nn' applies at B=1 "
                        "M=256 N=4096 K=4096 (false; variants[0]: 'K % 8 == 0 "
                        "&& N % 8 == 0 && align(A) >= 16 && M > 64'; "
                        "variants[1]: 'M <= 64'; variants[2]: 'B > 1')"));
  EXPECT_TRUE(contains(selectVariant(bundle, sizes, {0x1}, variant).message(),
                       "takes 3 arguments, got 1 buffers"));
}

TEST(Plan, BuildsParamsOfWorkspaceBuffers) {
  Bundle bundle = loadGemm();
  const Manifest &m = bundle.manifest();
  Sizes sizes = gemmSizes(2, 64, 4096, 4096);
  BufferBindings buffers;
  buffers.args = {0xa000, 0xb000, 0xc000};
  buffers.workspace = {0xd000};
  KernelParams params;
  ASSERT_TRUE(buildKernelParams(m, m.kernels[1], sizes, buffers, params).ok());
  // A [B, M, K] and B [B, K, N]: 9 each; partials [4, B, M, N]: 11.
  ASSERT_EQ(params.size(), size_t(9 + 9 + 11));
  const uint64_t partials[] = {0xd000, 0xd000,        0,         4,    2, 64,
                               4096,   2 * 64 * 4096, 64 * 4096, 4096, 1};
  for (size_t i = 0; i < 11; ++i)
    EXPECT_EQ(params.value(18 + i), partials[i]);
  buffers.workspace.clear();
  EXPECT_TRUE(contains(
      buildKernelParams(m, m.kernels[1], sizes, buffers, params).message(),
      "has 1 workspace buffers, got 0"));
  buffers.workspace = {0};
  EXPECT_TRUE(contains(
      buildKernelParams(m, m.kernels[1], sizes, buffers, params).message(),
      "null device pointer for workspace partials"));
}

TEST(Plan, AddressAlignment) {
  EXPECT_EQ(addressAlignment(0x100000), int64_t(256));
  EXPECT_EQ(addressAlignment(0x100), int64_t(256));
  EXPECT_EQ(addressAlignment(0x180), int64_t(128));
  EXPECT_EQ(addressAlignment(0x108), int64_t(8));
  EXPECT_EQ(addressAlignment(0x102), int64_t(2));
  EXPECT_EQ(addressAlignment(0x101), int64_t(1));
}

//===----------------------------------------------------------------------===//
// Step order
//===----------------------------------------------------------------------===//

TEST(Order, FollowsAfterAndThenTheListedOrder) {
  std::vector<size_t> order;
  // b waits for d; the others keep their places.
  ASSERT_TRUE(orderSteps({step("a", {}), step("b", {"d"}), step("c", {}),
                          step("d", {})},
                         order)
                  .ok());
  EXPECT_EQ(order, (std::vector<size_t>{0, 2, 3, 1}));
  // A diamond listed backwards.
  ASSERT_TRUE(orderSteps({step("join", {"l", "r"}), step("r", {"top"}),
                          step("l", {"top"}), step("top", {})},
                         order)
                  .ok());
  EXPECT_EQ(order, (std::vector<size_t>{3, 1, 2, 0}));
  // Steps without ids run where listed.
  ASSERT_TRUE(orderSteps({step("", {"x"}), step("x", {})}, order).ok());
  EXPECT_EQ(order, (std::vector<size_t>{1, 0}));
}

TEST(Order, ReportsCyclesAndUnknownSteps) {
  std::vector<size_t> order;
  EXPECT_EQ(orderSteps({step("a", {"b"}), step("b", {"a"})}, order).message(),
            std::string("the steps' 'after' lists form a cycle: 'a' -> 'b' "
                        "-> 'a'"));
  EXPECT_EQ(orderSteps({step("x", {}), step("s", {"s"})}, order).message(),
            std::string("the steps' 'after' lists form a cycle: 's' -> 's'"));
  // The cycle is reported, not the step that only waits for it.
  EXPECT_TRUE(contains(
      orderSteps({step("w", {"p"}), step("p", {"q"}), step("q", {"p"})}, order)
          .message(),
      "'p' -> 'q' -> 'p'"));
  EXPECT_EQ(orderSteps({step("a", {"nope"})}, order).message(),
            std::string("step 'a': 'after' names no step 'nope'"));
}

//===----------------------------------------------------------------------===//
// Conditions
//===----------------------------------------------------------------------===//

TEST(Conditions, Evaluate) {
  Sizes sizes = gemmSizes(2, 100, 64, 24);
  AlignmentOf alignment = [](std::string_view name, int64_t &bytes) {
    bytes = name == "A" ? 16 : 4;
    return name == "A" || name == "C";
  };
  auto holds = [&](const char *expr) {
    bool value = false;
    Status s = evalCondition(expr, sizes, alignment, value);
    EXPECT_TRUE(s.ok());
    if (!s.ok())
      std::printf("%s: %s\n", expr, s.message().c_str());
    return value;
  };
  EXPECT_TRUE(holds("K % 8 == 0 && N % 8 == 0"));
  EXPECT_FALSE(holds("M % 8 == 0"));
  EXPECT_TRUE(holds("align(A) >= 16 && align(C) < 16"));
  EXPECT_TRUE(holds("align( A ) == 16"));
  EXPECT_TRUE(holds("M > 64 || K / 0 > 1"));         // Never divides by zero.
  EXPECT_FALSE(holds("M < 64 && K / 0 > 1"));        // Nor here.
  EXPECT_TRUE(holds("M < 64 && B == 2 || N == 64")); // && binds tighter.
  EXPECT_FALSE(holds("M < 64 && (B == 2 || N == 64)"));
  EXPECT_TRUE(holds("!(M < 64)"));
  EXPECT_TRUE(holds("!!(B != 3)"));
  EXPECT_TRUE(holds("B * M * N * K >= 307200 && B <= 2 && M - 100 == 0"));
  EXPECT_TRUE(holds("(1 - 8) % 3 == 2")); // Rounds down, like '/'.
}

TEST(Conditions, RejectsBadConditions) {
  Sizes sizes = gemmSizes(1, 1, 1, 1);
  std::vector<std::string> buffers = {"A", "B", "C"};
  auto error = [&](const char *expr) {
    Status s = checkCondition(expr, sizes, buffers);
    EXPECT_FALSE(s.ok());
    return s.message();
  };
  EXPECT_EQ(error("M"), std::string("'M' is an integer, not a condition "
                                    "(compare it)"));
  EXPECT_EQ(error("M && K > 1"),
            std::string("column 3 of 'M && K > 1': expected a condition, "
                        "found an integer"));
  EXPECT_EQ(error("(M > 1) + 1 > 0"),
            std::string("column 9 of '(M > 1) + 1 > 0': expected an integer, "
                        "found a condition"));
  EXPECT_EQ(error("align(D) >= 16"),
            std::string("column 7 of 'align(D) >= 16': align() of unknown "
                        "buffer 'D'"));
  EXPECT_TRUE(contains(error("Q > 1"), "unknown symbol 'Q' (expected B, M, "
                                       "N or K)"));
  EXPECT_TRUE(contains(error("M > 1 > 0"), "unexpected '>'"));
  EXPECT_TRUE(contains(error("M = 1"), "unexpected '='"));
  EXPECT_TRUE(contains(error("M > "), "found the end"));
  EXPECT_TRUE(contains(error(std::string(100, '!').append("(M > 1)").c_str()),
                       "nested too deep"));
  // Sizes have no comparisons.
  EXPECT_TRUE(
      contains(checkSizeExpr("M > 1", sizes).message(), "unexpected '>'"));
  bool value;
  AlignmentOf none = [](std::string_view, int64_t &) { return false; };
  EXPECT_TRUE(contains(evalCondition("M * 9223372036854775807 > 1",
                                     gemmSizes(1, 2, 1, 1), none, value)
                           .message(),
                       "integer overflow"));
  EXPECT_TRUE(
      contains(evalCondition("M % (K - 1) == 0", sizes, none, value).message(),
               "division by zero"));
}

//===----------------------------------------------------------------------===//
// Bad input: each an error naming the manifest, the field and the entry
//===----------------------------------------------------------------------===//

TEST(BadInput, StepNamesAnUnknownKernel) {
  std::string text =
      replaced(gemmText(), "{\"kernel\": \"main\"}", "{\"kernel\": \"mian\"}");
  EXPECT_EQ(manifestError(text),
            positionOf(text, "\"mian\"") +
                "variants[0].steps[0].kernel: unknown kernel 'mian' (kernels: "
                "main, partial and reduce)");
}

TEST(BadInput, KernelCubinIsMissing) {
  std::string text =
      replaced(gemmText(), "\"v2_reduce.cubin\"", "\"v2_gone.cubin\"");
  EXPECT_EQ(manifestError(text),
            positionOf(text, "\"v2_gone.cubin\"") +
                "kernels[2] ('reduce').cubin: no cubin 'v2_gone.cubin' in '" +
                AMK_RUNTIME_TEST_INPUTS + "'");
}

TEST(BadInput, UnknownSizeSymbolInAGrid) {
  std::string text = replaced(gemmText(), "\"4\", \"B\"", "\"S\", \"B\"");
  EXPECT_EQ(manifestError(text),
            positionOf(text, "\"S\"") +
                "kernels[1] ('partial').grid[1]: column 1 of 'S': unknown "
                "symbol 'S' (expected B, M, N or K)");
}

TEST(BadInput, UnknownSizeSymbolInAShape) {
  std::string text = replaced(gemmText(), "[4, \"B\", \"M\", \"N\"]",
                              "[4, \"B\", \"Q\", \"N\"]");
  EXPECT_EQ(manifestError(text),
            positionOf(text, "\"Q\"") +
                "workspace[0].shape[2]: unknown symbol 'Q' (expected B, M, N, "
                "K or an integer)");
}

TEST(BadInput, UnknownSymbolOrBufferInACondition) {
  std::string text = replaced(gemmText(), "\"M <= 64\"", "\"R <= 64\"");
  EXPECT_EQ(manifestError(text),
            positionOf(text, "\"R <= 64\"") +
                "variants[1].when: column 1 of 'R <= 64': unknown symbol 'R' "
                "(expected B, M, N or K)");
  text = replaced(gemmText(), "align(A)", "align(X)");
  EXPECT_TRUE(contains(manifestError(text),
                       "variants[0].when: column 35 of 'K % 8 == 0 && N % 8 "
                       "== 0 && align(X) >= 16 && M > 64': align() of unknown "
                       "buffer 'X'"));
  text = replaced(gemmText(), "\"M <= 64\"", "\"M + 64\"");
  EXPECT_TRUE(contains(manifestError(text), "variants[1].when: 'M + 64' is an "
                                            "integer, not a condition"));
}

TEST(BadInput, DuplicateKernelName) {
  std::string text =
      replaced(gemmText(), "\"name\": \"reduce\"", "\"name\": \"main\"");
  size_t first = text.find("\"name\": \"main\"");
  size_t second = text.find("\"name\": \"main\"", first + 1);
  EXPECT_EQ(manifestError(text),
            positionAt(text, second + 8) +
                "kernels[2].name: duplicate kernel name 'main' (also "
                "kernels[0])");
}

TEST(BadInput, DuplicateBufferName) {
  std::string text =
      replaced(gemmText(), "\"name\": \"partials\"", "\"name\": \"C\"");
  EXPECT_EQ(manifestError(text),
            positionOf(text, "\"C\", \"elem\": \"f32\", \"shape\": [4") +
                "workspace[0].name: duplicate buffer name 'C' (also args[2])");
}

TEST(BadInput, DuplicateStepId) {
  std::string text = replaced(gemmText(), "{\"id\": \"k\"", "{\"id\": \"z\"");
  EXPECT_EQ(manifestError(text),
            positionOf(text, "\"z\", \"kernel\": \"main\"") +
                "variants[2].steps[1].id: duplicate step id 'z' (also "
                "variants[2].steps[0])");
}

TEST(BadInput, AfterNamesNoStep) {
  std::string text =
      replaced(gemmText(), "\"after\": [\"p\"]", "\"after\": [\"q\"]");
  EXPECT_EQ(manifestError(text),
            positionOf(text, "\"q\"") +
                "variants[1].steps[0] ('r').after[0]: no step 'q' in this "
                "variant (ids: r, p and z)");
}

TEST(BadInput, CycleInTheLaunchSequence) {
  std::string text =
      replaced(gemmText(), "{\"id\": \"z\", \"zero\": \"partials\"}",
               "{\"id\": \"z\", \"zero\": \"partials\", \"after\": [\"r\"]}");
  EXPECT_EQ(manifestError(text),
            positionOf(text, "[{\"id\": \"r\"") +
                "variants[1].steps: the steps' 'after' lists form a cycle: "
                "'r' -> 'p' -> 'z' -> 'r'");
}

TEST(BadInput, StepOrParamNamesAnUnknownBuffer) {
  std::string text =
      replaced(gemmText(), "\"zero\": \"partials\"", "\"zero\": \"partial\"");
  EXPECT_TRUE(contains(manifestError(text),
                       "variants[1].steps[2] ('z').zero: unknown buffer "
                       "'partial' (buffers: A, B, C and partials)"));
  text = replaced(gemmText(), "\"params\": [\"partials\", \"C\"]",
                  "\"params\": [\"partials\", \"D\"]");
  EXPECT_TRUE(contains(manifestError(text),
                       "kernels[2] ('reduce').params[1]: unknown buffer 'D'"));
}

TEST(BadInput, MalformedSteps) {
  std::string text = replaced(gemmText(), "{\"kernel\": \"main\"}",
                              "{\"kernel\": \"main\", \"zero\": \"C\"}");
  EXPECT_TRUE(contains(manifestError(text), "variants[0].steps[0]: has both "
                                            "\"kernel\" and \"zero\""));
  text = replaced(gemmText(), "{\"kernel\": \"main\"}", "{\"id\": \"m\"}");
  EXPECT_TRUE(contains(manifestError(text), "variants[0].steps[0] ('m'): "
                                            "expected \"kernel\" or \"zero\""));
  text = replaced(gemmText(), "[{\"kernel\": \"main\"}]", "[]");
  EXPECT_TRUE(contains(manifestError(text),
                       "variants[0].steps: a variant needs a step"));
  text = replaced(gemmText(), "\"after\": [\"p\"]", "\"after\": \"p\"");
  EXPECT_TRUE(contains(manifestError(text), "variants[1].steps[0] ('r')."
                                            "after: expected array, found "
                                            "string"));
}

TEST(BadInput, MalformedJson) {
  std::string text = gemmText();
  EXPECT_TRUE(
      contains(manifestError(text.substr(0, text.size() / 2)), "test.json:"));
  std::string comma =
      replaced(text, "\"flags\": \"O3 +ptx80\",", "\"flags\": \"O3 +ptx80\",,");
  EXPECT_EQ(manifestError(comma), positionOf(comma, ",\n  \"verdict\"") +
                                      "expected a string key, found ','");
  EXPECT_EQ(manifestError("{\"schema\": 2, \"name\": }"),
            std::string("test.json:1:23: expected a JSON value, found '}'"));
}

TEST(BadInput, AbsurdlyDeepNesting) {
  // On line 3, 100000 levels: the reader stops at 256, naming the line.
  std::string deep =
      "{\n  \"schema\": 2,\n  \"flags\": " + std::string(100000, '[') +
      std::string(100000, ']') + "\n}";
  EXPECT_EQ(manifestError(deep),
            std::string("test.json:3:267: nesting deeper than 256"));
  std::string text =
      replaced(gemmText(), "\"flags\": \"O3 +ptx80\"",
               "\"flags\": " + std::string(257, '[') + std::string(257, ']'));
  EXPECT_TRUE(contains(manifestError(text), "nesting deeper than 256"));
}

TEST(BadInput, HugeNumbersAndOverflow) {
  // Not an int64.
  std::string text = replaced(gemmText(), "\"N\": 4096", "\"N\": 1e400");
  EXPECT_TRUE(contains(manifestError(text), "is out of range"));
  text = replaced(gemmText(), "\"N\": 4096", "\"N\": 99999999999999999999");
  EXPECT_TRUE(contains(manifestError(text), "sizes.N: expected an integer, "
                                            "found a non-integer number"));
  text =
      replaced(gemmText(), "\"4\", \"B\"", "\"99999999999999999999\", \"B\"");
  EXPECT_TRUE(contains(manifestError(text), "kernels[1] ('partial').grid[1]: "
                                            "column 19 of "
                                            "'99999999999999999999': integer "
                                            "literal too large"));
  // int64 sizes whose buffers or grids overflow: errors at the launch's
  // sizes, not wrapped values.
  Bundle bundle;
  ASSERT_TRUE(
      parseInInputs(replaced(inputText("softmax-v2.json"), "\"COLS\": 1024",
                             "\"COLS\": 9223372036854775807"),
                    bundle)
          .ok());
  Sizes asked{{"ROWS", 2}}, sizes;
  EXPECT_EQ(bundle.resolveSizes(&asked, sizes).message(),
            std::string("buffer 'x' at ROWS=2 COLS=9223372036854775807 has "
                        "more than 2^63 bytes"));
  ASSERT_TRUE(parseInInputs(replaced(inputText("softmax-v2.json"),
                                     "[\"ROWS\", \"1\", \"1\"]",
                                     "[\"ROWS * COLS * 4096 * 4096 * 4096\", "
                                     "\"1\", \"1\"]"),
                            bundle)
                  .ok());
  std::array<int64_t, 3> grid;
  EXPECT_TRUE(contains(
      bundle.evalGrid(Sizes{{"ROWS", 1 << 20}, {"COLS", 1024}}, grid).message(),
      "grid x: column "));
  EXPECT_TRUE(contains(
      bundle.evalGrid(Sizes{{"ROWS", 1 << 20}, {"COLS", 1024}}, grid).message(),
      "integer overflow"));
  EXPECT_TRUE(contains(
      bundle.evalGrid(Sizes{{"ROWS", 1}, {"COLS", 1024}}, grid).message(),
      "outside 1..2^32-1"));
}

TEST(BadInput, SizesAndFamilyDisagreeWithTheProblem) {
  std::string text = replaced(gemmText(), "\"N\": 4096", "\"N\": 2048");
  EXPECT_TRUE(
      contains(manifestError(text), "sizes: N is 2048, the problem says 4096"));
  text = replaced(gemmText(), "\"K\": 4096}", "\"K\": 4096, \"S\": 2}");
  EXPECT_TRUE(contains(manifestError(text),
                       "sizes: the gemm family's sizes are B, M, N and K, the "
                       "manifest's B, M, N, K and S"));
  text = replaced(gemmText(), "\"family\": \"gemm\",\n  \"arch\"",
                  "\"family\": \"conv\",\n  \"arch\"");
  EXPECT_TRUE(contains(manifestError(text),
                       "problem.family: 'gemm' differs from the manifest's "
                       "family 'conv'"));
  text = replaced(gemmText(), "\"M\": -1", "\"M-1\": 3");
  EXPECT_TRUE(contains(manifestError(text), "sizes.M-1: 'M-1' is not a "
                                            "symbol"));
  text = replaced(gemmText(), "\"M\": -1", "\"M\": 0");
  EXPECT_TRUE(contains(manifestError(text), "sizes.M: must be positive, or -1 "
                                            "when dynamic (got 0)"));
}

TEST(BadInput, EmptyKernelsOrVariants) {
  std::string text = gemmText();
  size_t start = text.find("\"kernels\": [");
  size_t end = text.find("\"variants\"");
  std::string noKernels =
      text.substr(0, start) + "\"kernels\": [],\n  " + text.substr(end);
  EXPECT_TRUE(
      contains(manifestError(noKernels), "kernels: a bundle needs a kernel"));
  start = text.find("\"variants\": [");
  end = text.find("\"flags\"");
  std::string noVariants =
      text.substr(0, start) + "\"variants\": [],\n  " + text.substr(end);
  EXPECT_TRUE(contains(manifestError(noVariants),
                       "variants: a bundle needs a variant"));
}

TEST(BadInput, LaunchSizesTheBundleDoesNotDeclare) {
  Bundle bundle = loadGemm();
  Sizes asked = gemmSizes(1, 8, 4096, 4096), sizes;
  asked.set("Q", 3);
  EXPECT_EQ(bundle.resolveSizes(&asked, sizes).message(),
            std::string("bundle 'gemm_DxDx4096x4096_bf16_f32_f32_nn' has no "
                        "size 'Q' (its sizes: B, M, N and K)"));
  Sizes partial{{"B", 1}};
  EXPECT_TRUE(contains(bundle.resolveSizes(&partial, sizes).message(),
                       "has a dynamic M: give the sizes to run"));
}

} // namespace
