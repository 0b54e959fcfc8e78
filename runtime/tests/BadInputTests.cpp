//===- BadInputTests.cpp - Bad manifests are clear errors -----------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Every kind of bad schema-2 input (docs/BUNDLE.md): an error naming the
// manifest (with line and column), the field and the entry, never a crash.
// Most cases are Inputs/gemm-v2.json with one thing broken.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "AMK/Runtime/GemmProblem.h"

#include <array>
#include <string>

using namespace amk::runtime;
using namespace amk::runtime::test;

namespace {

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

TEST(BadInput, KeptZeroIsForWorkspace) {
  // A workspace buffer the launches keep zeroed reads; an argument is the
  // caller's, and refused.
  std::string text = replaced(gemmText(), "[4, \"B\", \"M\", \"N\"]}",
                              "[4, \"B\", \"M\", \"N\"], \"kept_zero\": true}");
  Bundle bundle;
  ASSERT_TRUE(parseInInputs(text, bundle).ok());
  EXPECT_TRUE(bundle.manifest().workspace[0].keptZero);
  text = replaced(gemmText(), "\"shape\": [\"B\", \"M\", \"K\"]",
                  "\"shape\": [\"B\", \"M\", \"K\"], \"kept_zero\": true");
  EXPECT_EQ(manifestError(text),
            positionOf(text, "true}") +
                "args[0].kept_zero: only a workspace buffer is kept zeroed");
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
