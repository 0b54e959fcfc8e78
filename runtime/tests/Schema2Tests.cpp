//===- Schema2Tests.cpp - Schema-2 manifests and launch plans -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Schema-2 bundles (docs/BUNDLE.md): several kernels, workspace, variants with
// conditions, steps ordered by `after`; choosing a variant and planning a
// launch; conditions. BadInputTests.cpp has the bad manifests.
// Inputs/gemm-v2.json is the bundle most tests start from (its cubins are
// placeholder files: nothing here loads them).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "AMK/Runtime/GemmProblem.h"
#include "AMK/Runtime/LaunchPlan.h"
#include "AMK/Runtime/TensorMap.h"

#include <algorithm>
#include <string>

using namespace amk::runtime;
using namespace amk::runtime::test;

namespace {

/// The plan of the GEMM bundle at B=1, M=`m` with A at `a`.
LaunchPlan planGemm(const Bundle &bundle, int64_t m, CUdeviceptr a) {
  Sizes asked = gemmSizes(1, m, 4096, 4096), sizes;
  EXPECT_TRUE(bundle.resolveSizes(&asked, sizes).ok());
  LaunchPlan plan;
  Status s = planLaunch(bundle, sizes, {a, 1ull << 40, 2ull << 40}, plan);
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
  EXPECT_FALSE(m.workspace[0].keptZero);
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
  ASSERT_TRUE(planLaunch(bundle, sizes, {1ull << 40, 2ull << 40}, plan).ok());
  ASSERT_EQ(plan.steps.size(), size_t(1));
  EXPECT_EQ(plan.steps[0].grid[0], int64_t(7));
  // It is not a GEMM.
  GemmProblem problem;
  EXPECT_TRUE(contains(readGemmProblem(bundle, problem).message(),
                       "problem.family: expected \"gemm\""));
}

TEST(Schema2, RefusesAWrittenBufferThatOverlapsAnother) {
  // Buffers of the GEMM bundle at B=1, M=64: A and B 64x4096 and 4096x4096
  // bf16, C 64x4096 f32.
  auto plan = [](const std::string &text, std::vector<CUdeviceptr> args) {
    Bundle bundle;
    EXPECT_TRUE(parseInInputs(text, bundle).ok());
    Sizes asked = gemmSizes(1, 64, 4096, 4096), sizes;
    EXPECT_TRUE(bundle.resolveSizes(&asked, sizes).ok());
    LaunchPlan p;
    return planLaunch(bundle, sizes, args, p);
  };
  const CUdeviceptr a = 1ull << 40, b = 2ull << 40;
  // Without "written", any argument may be written: no overlap at all.
  EXPECT_TRUE(plan(gemmText(), {a, b, 3ull << 40}).ok());
  EXPECT_TRUE(contains(plan(gemmText(), {a, a, 3ull << 40}).message(),
                       "buffer 'A', which the kernel writes, overlaps buffer "
                       "'B' of bundle"));
  // With it, inputs may share memory; the output may not touch them.
  std::string text = replaced(gemmText(), "\"shape\": [\"B\", \"M\", \"K\"]}",
                              "\"shape\": [\"B\", \"M\", \"K\"], "
                              "\"written\": false}");
  text = replaced(text, "\"shape\": [\"B\", \"K\", \"N\"]}",
                  "\"shape\": [\"B\", \"K\", \"N\"], \"written\": false}");
  EXPECT_TRUE(plan(text, {a, a, 3ull << 40}).ok());
  // C starts on A's last byte; then on the byte after A (64x4096 bf16).
  const CUdeviceptr aEnd = a + 64 * 4096 * 2;
  EXPECT_TRUE(contains(plan(text, {a, b, aEnd - 1}).message(),
                       "buffer 'C', which the kernel writes, overlaps buffer "
                       "'A'"));
  EXPECT_TRUE(plan(text, {a, b, aEnd}).ok());
  // A below C, ending inside it.
  EXPECT_FALSE(plan(text, {b - 16, 0x1000, b}).ok());
  // The key has a type.
  EXPECT_TRUE(contains(
      manifestError(replaced(text, "\"written\": false", "\"written\": 0")),
      "written"));
}

/// A boolean kernel key: false unless the manifest states it, true where it
/// does, and a manifest error where its value is `notBool`.
void expectKernelFlag(const std::string &key, bool KernelSpec::*flag,
                      const std::string &notBool) {
  EXPECT_FALSE(loadGemm().manifest().kernels[0].*flag);
  std::string stated = "\"" + key + "\": true";
  std::string text = replaced(gemmText(), "\"cache_key\": \"k-main\",",
                              "\"cache_key\": \"k-main\", " + stated + ",");
  Bundle bundle;
  ASSERT_TRUE(parseInInputs(text, bundle).ok());
  EXPECT_TRUE(bundle.manifest().kernels[0].*flag);
  EXPECT_TRUE(bundle.warnings().empty());
  // The key has a type.
  EXPECT_TRUE(contains(
      manifestError(replaced(text, stated, "\"" + key + "\": " + notBool)),
      key));
}

TEST(Schema2, ReadsCooperativeKernels) {
  // A kernel is not cooperative unless the manifest says so.
  expectKernelFlag("cooperative", &KernelSpec::cooperative, "1");
}

TEST(Schema2, ReadsProgrammaticKernels) {
  // A kernel waits for the one before it only where the manifest says so.
  expectKernelFlag("programmatic", &KernelSpec::programmatic, "\"yes\"");
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

/// The GEMM bundle whose main kernel also takes a tensor map of A.
std::string withTensorMap(const std::string &map) {
  return replaced(gemmText(), "\"params\": [\"A\", \"B\", \"C\"],",
                  "\"tensor_maps\": [" + map +
                      "], \"params\": [\"A\", \"B\", \"C\", "
                      "\"A_tma\"],");
}

TEST(Schema2, ReadsTensorMaps) {
  Bundle bundle;
  ASSERT_TRUE(parseInInputs(withTensorMap("{\"name\": \"A_tma\", "
                                          "\"buffer\": \"A\", \"box\": "
                                          "[64, 128, 1], \"swizzle_bytes\": "
                                          "128}"),
                            bundle)
                  .ok());
  const KernelSpec &main = bundle.manifest().kernels[0];
  ASSERT_EQ(main.tensorMaps.size(), size_t(1));
  EXPECT_EQ(main.tensorMaps[0].buffer, std::string("A"));
  EXPECT_EQ(main.tensorMaps[0].box[1], int64_t(128));
  EXPECT_EQ(main.tensorMaps[0].swizzleBytes, int64_t(128));
  EXPECT_EQ(main.findTensorMap("A_tma"), 0);
  EXPECT_EQ(main.params.back(), std::string("A_tma"));
  EXPECT_TRUE(bundle.warnings().empty());

  // A tensor map parameter is one pointer, the map's device copy; none
  // encoded is an error, not a null parameter.
  const Manifest &m = bundle.manifest();
  BufferBindings buffers;
  buffers.args = {0xa000, 0xb000, 0xc000};
  buffers.workspace = {0xd000};
  KernelParams params;
  Sizes sizes = gemmSizes(2, 64, 4096, 4096);
  ASSERT_TRUE(
      buildKernelParams(m, m.kernels[0], sizes, buffers, params, {0xe000})
          .ok());
  ASSERT_EQ(params.size(), size_t(3 * 9 + 1)); // A, B, C [B, ., .]; the map
  EXPECT_EQ(params.value(27), uint64_t(0xe000));
  EXPECT_TRUE(contains(
      buildKernelParams(m, m.kernels[0], sizes, buffers, params).message(),
      "takes tensor map 'A_tma', which was not encoded"));
}

TEST(TensorMaps, GeometryOfABuffer) {
  BufferSpec a;
  a.name = "A";
  a.elem = ScalarType::BF16;
  a.shape = {ShapeDim{"B", 0}, ShapeDim{"M", 0}, ShapeDim{"K", 0}};
  TensorMapSpec map{"A_tma", "A", {64, 128, 1}, 128};
  Sizes sizes = gemmSizes(3, 1000, 256, 4096);
  TensorMapGeometry g;
  ASSERT_TRUE(getTensorMapGeometry(map, a, sizes, 0x10000, g).ok());
  // Innermost first: K, M, B; pitches of a row and of a batch.
  EXPECT_EQ(g.rank, 3u);
  EXPECT_EQ(g.dims[0], 4096u);
  EXPECT_EQ(g.dims[1], 1000u);
  EXPECT_EQ(g.dims[2], 3u);
  EXPECT_EQ(g.strides[0], 4096u * 2);
  EXPECT_EQ(g.strides[1], 4096u * 1000 * 2);
  EXPECT_EQ(g.box[1], 128u);
  // TMA's rules, with the reason.
  EXPECT_TRUE(
      contains(getTensorMapGeometry(map, a, sizes, 0x10008, g).message(),
               "TMA needs a 16-byte aligned buffer"));
  EXPECT_TRUE(contains(
      getTensorMapGeometry(map, a, gemmSizes(3, 1000, 256, 4095), 0x10000, g)
          .message(),
      "its rows are 8190 bytes apart; TMA needs a multiple "
      "of 16"));
  map.box = {64, 128};
  EXPECT_TRUE(
      contains(getTensorMapGeometry(map, a, sizes, 0x10000, g).message(),
               "needs a box per dimension"));
}

TEST(Schema2, RefusesBadTensorMaps) {
  auto error = [](const std::string &map) {
    return manifestError(withTensorMap(map));
  };
  const std::string head = "{\"name\": \"A_tma\", \"buffer\": ";
  EXPECT_TRUE(contains(error(head + "\"D\", \"box\": [64, 128, 1], "
                                    "\"swizzle_bytes\": 128}"),
                       "unknown buffer 'D'"));
  EXPECT_TRUE(contains(error(head + "\"A\", \"box\": [64, 128], "
                                    "\"swizzle_bytes\": 128}"),
                       "needs one extent per dimension of 'A' (3"));
  EXPECT_TRUE(contains(error(head + "\"A\", \"box\": [64, 512, 1], "
                                    "\"swizzle_bytes\": 128}"),
                       "a box extent is in [1, 256], got 512"));
  EXPECT_TRUE(contains(error(head + "\"A\", \"box\": [64, 128, 1], "
                                    "\"swizzle_bytes\": 48}"),
                       "a swizzle spans 0, 32, 64 or 128 bytes"));
  // 128 bf16 are 256 bytes: more than one swizzle row.
  EXPECT_TRUE(contains(error(head + "\"A\", \"box\": [128, 128, 1], "
                                    "\"swizzle_bytes\": 128}"),
                       "the box's rows are 256 bytes"));
  EXPECT_TRUE(contains(error("{\"name\": \"C\", \"buffer\": \"A\", "
                             "\"box\": [64, 128, 1], \"swizzle_bytes\": "
                             "128}"),
                       "tensor map name 'C' is already a buffer's"));
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

} // namespace
