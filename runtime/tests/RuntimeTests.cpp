//===- RuntimeTests.cpp - Tests of the AMK runtime that need no GPU -------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Covers the JSON reader, schema-1 manifests (docs/BUNDLE.md), grid
// expression evaluation, architecture compatibility and the memref parameter
// array; Schema2Tests.cpp covers schema 2 and launch plans. Nothing here
// calls the CUDA driver, so the tests run on machines without a GPU (and
// link without libcuda).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "AMK/Runtime/GemmProblem.h"

#include <algorithm>
#include <string>

using namespace amk::runtime;
using namespace amk::runtime::test;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string samplePath() { return inputPath("sample.json"); }

std::string sampleText() { return inputText("sample.json"); }

/// The sample manifest with top-level member `key` removed.
std::string sampleWithout(const std::string &key) {
  JsonValue json;
  EXPECT_TRUE(parseJson(sampleText(), json).ok());
  JsonValue pruned = JsonValue::object();
  for (const JsonValue::Member &member : json.getObject())
    if (member.first != key)
      pruned.set(member.first, member.second);
  return toJsonString(pruned);
}

Status parseManifest(const std::string &text, Bundle &bundle) {
  return Bundle::parse(text, "/bundles", "test.json", bundle);
}

/// The message of parsing `text` as JSON, which must fail.
std::string jsonError(const std::string &text) {
  JsonValue value;
  Status status = parseJson(text, value);
  EXPECT_FALSE(status.ok());
  return status.message();
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

TEST(Json, ParsesAllKinds) {
  JsonValue v;
  Status s = parseJson(R"({"n": null, "t": true, "f": false, "i": -42,
    "d": 2.5e-3, "s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "a": [1, [], {}]})",
                       v);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(v.isObject());
  EXPECT_TRUE(v.find("n")->isNull());
  EXPECT_TRUE(v.find("t")->getBool());
  EXPECT_TRUE(v.find("f")->isBool());
  EXPECT_FALSE(v.find("f")->getBool());
  EXPECT_TRUE(v.find("i")->isInteger());
  EXPECT_EQ(v.find("i")->getInt(), int64_t(-42));
  EXPECT_FALSE(v.find("d")->isInteger());
  EXPECT_EQ(v.find("d")->getDouble(), 2.5e-3);
  EXPECT_EQ(v.find("s")->getString(),
            std::string("x\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80"));
  EXPECT_EQ(v.find("a")->getArray().size(), size_t(3));
  EXPECT_TRUE(v.find("a")->getArray()[1].isArray());
  EXPECT_TRUE(v.find("a")->getArray()[2].isObject());
  EXPECT_TRUE(v.find("missing") == nullptr);
}

TEST(Json, Numbers) {
  JsonValue v;
  ASSERT_TRUE(parseJson("[4096, 4096.0, 4e3, -0, 9223372036854775807, "
                        "9223372036854775808]",
                        v)
                  .ok());
  const JsonValue::Array &a = v.getArray();
  EXPECT_TRUE(a[0].isInteger());
  EXPECT_FALSE(a[1].isInteger()); // A fraction makes it a double.
  EXPECT_FALSE(a[2].isInteger()); // So does an exponent.
  EXPECT_EQ(a[2].getDouble(), 4000.0);
  EXPECT_TRUE(a[3].isInteger());
  EXPECT_EQ(a[4].getInt(), int64_t(9223372036854775807));
  EXPECT_FALSE(a[5].isInteger()); // Beyond int64_t: a double only.
  EXPECT_TRUE(a[5].isNumber());
}

TEST(Json, RecordsPositions) {
  JsonValue v;
  ASSERT_TRUE(parseJson("{\n  \"a\": [1,\n    true]\n}", v).ok());
  const JsonValue &a = *v.find("a");
  EXPECT_EQ(a.line(), 2);
  EXPECT_EQ(a.column(), 8);
  EXPECT_EQ(a.getArray()[1].line(), 3);
  EXPECT_EQ(a.getArray()[1].column(), 5);
}

TEST(Json, ErrorsCarryLineAndColumn) {
  EXPECT_EQ(jsonError("{\"a\": 1,}"),
            std::string("1:9: expected a string key, found '}'"));
  EXPECT_EQ(jsonError("[1, 2,\n 3 4]"),
            std::string("2:4: expected ',' or ']' after an array element, "
                        "found '4'"));
  EXPECT_EQ(jsonError("{\"a\" 1}"),
            std::string("1:6: expected ':' after an object key, found '1'"));
  EXPECT_EQ(jsonError("\n\n  \"abc"), std::string("3:3: unterminated string"));
  EXPECT_EQ(jsonError(""),
            std::string("1:1: expected a JSON value, found the end of the "
                        "input"));
  EXPECT_EQ(jsonError("{} x"),
            std::string("1:4: unexpected 'x' after the JSON value"));
}

TEST(Json, RejectsNonStandardInput) {
  EXPECT_TRUE(contains(jsonError("[01]"), "1:3: leading zeros"));
  EXPECT_TRUE(contains(jsonError("[+1]"), "1:2: expected a JSON value"));
  EXPECT_TRUE(contains(jsonError("[1.]"), "1:4: expected a digit after '.'"));
  EXPECT_TRUE(contains(jsonError("[1e]"), "expected a digit in the exponent"));
  EXPECT_TRUE(contains(jsonError("[NaN]"), "1:2: expected a JSON value"));
  EXPECT_TRUE(contains(jsonError("[1e999]"), "1:2: number 1e999 is out of"));
  EXPECT_TRUE(contains(jsonError("['a']"), "1:2: expected a JSON value"));
  EXPECT_TRUE(contains(jsonError("// c\n{}"), "1:1: expected a JSON value"));
  EXPECT_TRUE(contains(jsonError("[tru]"), "1:2: expected a JSON value"));
  EXPECT_TRUE(contains(jsonError("\"a\tb\""), "1:3: unescaped control"));
  EXPECT_TRUE(contains(jsonError("\"\\x\""), "1:3: invalid escape '\\x'"));
  EXPECT_TRUE(contains(jsonError("\"\\u12\""), "expected 4 hex digits"));
  EXPECT_TRUE(contains(jsonError("\"\\ud800\""), "high surrogate"));
  EXPECT_TRUE(contains(jsonError("\"\\udc00\""), "unpaired low surrogate"));
  EXPECT_TRUE(
      contains(jsonError("{\"a\": 1,\n \"a\": 2}"), "2:2: duplicate key 'a'"));
  EXPECT_TRUE(contains(jsonError(std::string(300, '[')), "nesting deeper"));
}

TEST(Json, WritesWhatItReads) {
  const std::string text =
      R"({"a":[1,2.5,"x\n\u0001"],"b":{"c":null,"d":true},"e":-7})";
  JsonValue v;
  ASSERT_TRUE(parseJson(text, v).ok());
  EXPECT_EQ(toJsonString(v, 0), text);
  JsonValue again;
  ASSERT_TRUE(parseJson(toJsonString(v, 2), again).ok());
  EXPECT_EQ(toJsonString(again, 0), text);
  JsonValue nan = JsonValue::number(0.0 / 0.0);
  EXPECT_EQ(toJsonString(nan), std::string("null"));
  EXPECT_EQ(toJsonString(JsonValue::number(0.1)), std::string("0.1"));
}

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

TEST(Manifest, LoadsTheSample) {
  Bundle bundle;
  Status s = Bundle::loadManifest(samplePath(), bundle);
  ASSERT_TRUE(s.ok());
  const Manifest &m = bundle.manifest();
  EXPECT_EQ(m.schema, int64_t(1));
  EXPECT_EQ(m.name, std::string("gemm_4096x4096x4096_bf16_f32_bf16_nn"));
  EXPECT_EQ(m.family, std::string("gemm"));
  EXPECT_EQ(m.signature, std::string("gemm_4096x4096x4096_bf16_f32_bf16_nn"));
  EXPECT_EQ(m.arch, std::string("sm_90a"));
  EXPECT_EQ(m.target.name, std::string("NVIDIA H200"));
  EXPECT_EQ(m.target.sm_count, int64_t(132));
  EXPECT_EQ(m.target.bf16_gflops, int64_t(1070531));
  GemmProblem problem;
  ASSERT_TRUE(readGemmProblem(bundle, problem).ok());
  EXPECT_EQ(problem.m, int64_t(4096));
  EXPECT_TRUE(problem.inType == ScalarType::BF16);
  EXPECT_TRUE(problem.outType == ScalarType::BF16);
  EXPECT_TRUE(problem.activation == Activation::GELU);
  EXPECT_TRUE(problem.bias);
  EXPECT_FALSE(problem.batched); // Absent: derived from batch 1.
  EXPECT_FALSE(problem.isDynamic());
  EXPECT_FALSE(m.isDynamic());
  EXPECT_EQ(m.sizes.toString(), std::string("B=1 M=4096 N=4096 K=4096"));
  // One kernel, named after the manifest, taking every argument.
  ASSERT_EQ(m.kernels.size(), size_t(1));
  const KernelSpec &k = m.kernels[0];
  EXPECT_EQ(k.name, m.name);
  EXPECT_EQ(k.entry, std::string("gemm_4096x4096x4096_bf16_f32_bf16_nn"));
  EXPECT_EQ(k.block[0], int64_t(128));
  EXPECT_EQ(k.grid[0], std::string("((M+127)/128)*((N+127)/128)"));
  EXPECT_EQ(k.dynamicSmemBytes, int64_t(65536));
  EXPECT_EQ(k.cacheKey, std::string("3f2a9c0e5b7d41a8"));
  ASSERT_EQ(k.params.size(), size_t(4));
  EXPECT_EQ(k.params[3], std::string("C"));
  // One variant, always, of the one kernel.
  ASSERT_EQ(m.variants.size(), size_t(1));
  EXPECT_TRUE(m.variants[0].when.empty());
  ASSERT_EQ(m.variants[0].steps.size(), size_t(1));
  EXPECT_EQ(m.variants[0].steps[0].kernel, m.name);
  EXPECT_TRUE(m.workspace.empty());
  ASSERT_EQ(m.args.size(), size_t(4));
  EXPECT_EQ(m.args[2].name, std::string("bias"));
  EXPECT_EQ(m.verdictStatus, std::string("verified"));
  EXPECT_EQ(bundle.cubinPath(), std::string(AMK_RUNTIME_TEST_INPUTS) +
                                    "/gemm_4096x4096x4096_bf16_f32_bf16_nn"
                                    ".cubin");
  EXPECT_TRUE(bundle.warnings().empty());

  Bundle byName;
  EXPECT_TRUE(Bundle::load(AMK_RUNTIME_TEST_INPUTS, "sample", byName).ok());
}

TEST(Manifest, ZeroOutputIsOptional) {
  Bundle bundle;
  ASSERT_TRUE(parseManifest(sampleText(), bundle).ok());
  EXPECT_EQ(bundle.manifest().variants[0].steps.size(), size_t(1));
  // Split-K bundles ask the launcher to zero C first: a zero step of C, then
  // the kernel after it.
  std::string split = replaced(sampleText(), "\"dynamic_smem_bytes\": 65536,",
                               "\"dynamic_smem_bytes\": 65536, "
                               "\"zero_output\": true,");
  ASSERT_TRUE(parseManifest(split, bundle).ok());
  const VariantSpec &variant = bundle.manifest().variants[0];
  ASSERT_EQ(variant.steps.size(), size_t(2));
  EXPECT_TRUE(variant.steps[0].kind == StepSpec::Kind::Zero);
  EXPECT_EQ(variant.steps[0].buffer, std::string("C"));
  EXPECT_TRUE(variant.steps[1].kind == StepSpec::Kind::Kernel);
  ASSERT_EQ(variant.order.size(), size_t(2));
  EXPECT_EQ(variant.order[0], size_t(0));
  EXPECT_TRUE(bundle.warnings().empty());
  Status s = parseManifest(
      replaced(split, "\"zero_output\": true", "\"zero_output\": 1"), bundle);
  EXPECT_TRUE(contains(s.message(), "zero_output: expected"));
}

TEST(Manifest, RejectsOtherSchemas) {
  Bundle bundle;
  Status s = parseManifest(
      replaced(sampleText(), "\"schema\": 1", "\"schema\": 3"), bundle);
  EXPECT_EQ(s.message(), std::string("test.json:2:13: schema: unsupported "
                                     "manifest schema 3 (this runtime reads "
                                     "schemas 1 and 2)"));
  // A newer file is reported as such even when its keys differ.
  s = parseManifest(R"({"schema": 3, "kernels": []})", bundle);
  EXPECT_TRUE(contains(s.message(), "unsupported manifest schema 3"));
}

TEST(Manifest, RejectsMissingKeys) {
  for (const char *key :
       {"name", "entry", "cubin", "ptx", "arch", "target", "problem", "config",
        "block", "grid", "dynamic_smem_bytes", "args", "verdict",
        "cache_key"}) {
    Bundle bundle;
    Status s = parseManifest(sampleWithout(key), bundle);
    EXPECT_EQ(s.message(),
              std::string("test.json:1:1: missing key '") + key + "'");
  }
  Bundle bundle;
  Status s = parseManifest(replaced(sampleText(), "\"k\": 4096,", ""), bundle);
  EXPECT_TRUE(contains(s.message(), "problem: missing key 'k'"));
  s = parseManifest(replaced(sampleText(), "\"l2_bytes\": 62914560,", ""),
                    bundle);
  EXPECT_TRUE(contains(s.message(), "target: missing key 'l2_bytes'"));
}

TEST(Manifest, RejectsWrongTypesAtTheirPosition) {
  std::string text = replaced(sampleText(), "\"m\": 4096", "\"m\": \"4096\"");
  size_t at = text.find("\"4096\"");
  int line =
      1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
  int column = static_cast<int>(at - text.rfind('\n', at));
  Bundle bundle;
  Status s = parseManifest(text, bundle);
  EXPECT_EQ(s.message(), "test.json:" + std::to_string(line) + ":" +
                             std::to_string(column) +
                             ": problem.m: expected an integer, found string");
  s = parseManifest(replaced(sampleText(), "\"k\": 4096", "\"k\": 4096.5"),
                    bundle);
  EXPECT_TRUE(contains(s.message(), "problem.k: expected an integer, found a "
                                    "non-integer number"));
  s = parseManifest(
      replaced(sampleText(), "\"in_type\": \"bf16\"", "\"in_type\": \"fp8\""),
      bundle);
  EXPECT_TRUE(contains(s.message(), "unsupported element type 'fp8'"));
  s = parseManifest(replaced(sampleText(), "\"gelu\"", "\"tanh\""), bundle);
  EXPECT_TRUE(contains(s.message(), "problem.activation: expected"));
  s = parseManifest(replaced(sampleText(), "\"sm_90a\"", "\"compute_90\""),
                    bundle);
  EXPECT_TRUE(contains(s.message(), "arch: expected sm_<major><minor>"));
  s = parseManifest(replaced(sampleText(), "\"m\": 4096", "\"m\": 0"), bundle);
  EXPECT_TRUE(contains(s.message(), "problem.m: must be positive"));
}

TEST(Manifest, ChecksArguments) {
  Bundle bundle;
  // The operand order is fixed: A, B, bias, C.
  Status s = parseManifest(
      replaced(
          sampleText(),
          R"({"name": "bias", "kind": "memref", "elem": "bf16", "shape": ["N"]},)",
          ""),
      bundle);
  EXPECT_TRUE(contains(s.message(), "expected arguments A, B, bias, C, "
                                    "found A, B, C"));
  s = parseManifest(replaced(sampleText(), R"("shape": ["M", "K"])",
                             R"("shape": ["M", "N", "K"])"),
                    bundle);
  EXPECT_TRUE(contains(s.message(), "argument A has shape [4096, 4096, 4096]"));
  s = parseManifest(replaced(sampleText(), R"("shape": ["M", "K"])",
                             R"("shape": ["M", "Q"])"),
                    bundle);
  EXPECT_TRUE(contains(s.message(), "args[0].shape[1]: unknown symbol 'Q'"));
  s = parseManifest(
      replaced(sampleText(), R"("kind": "memref")", R"("kind": "scalar")"),
      bundle);
  EXPECT_TRUE(contains(s.message(), "unsupported argument kind 'scalar'"));
  s = parseManifest(
      replaced(sampleText(),
               R"({"name": "A", "kind": "memref", "elem": "bf16")",
               R"({"name": "A", "kind": "memref", "elem": "f32")"),
      bundle);
  EXPECT_TRUE(contains(s.message(), "argument A has elem f32, the problem "
                                    "says bf16"));
}

TEST(Manifest, RejectsBadGridExpressions) {
  Bundle bundle;
  Status s = parseManifest(
      replaced(sampleText(), "\"1\", \"B\"", "\"1\", \"B*S\""), bundle);
  EXPECT_TRUE(contains(s.message(), "grid[2]: column 3 of 'B*S': unknown "
                                    "symbol 'S'"));
  s = parseManifest(replaced(sampleText(), "\"1\", \"B\"", "\"1\", \"(B\""),
                    bundle);
  EXPECT_TRUE(contains(s.message(), "grid[2]: column 3 of '(B': expected ')'"));
}

TEST(Manifest, WarnsAboutUnknownKeysAndVerdicts) {
  Bundle bundle;
  std::string text =
      replaced(sampleText(), "\"cache_key\"", "\"extra\": 1, \"cache_key\"");
  text =
      replaced(text, "\"status\": \"verified\"", "\"status\": \"unchecked\"");
  ASSERT_TRUE(parseManifest(text, bundle).ok());
  ASSERT_EQ(bundle.warnings().size(), size_t(2));
  EXPECT_TRUE(contains(bundle.warnings()[0], "unknown key 'extra'"));
  EXPECT_TRUE(contains(bundle.warnings()[1], "verdict is 'unchecked'"));
}

TEST(Manifest, ReportsFileAndJsonErrors) {
  Bundle bundle;
  Status s = Bundle::loadManifest("/nonexistent/x.json", bundle);
  EXPECT_TRUE(contains(s.message(), "cannot open '/nonexistent/x.json'"));
  s = parseManifest("{\"schema\": 1,,}", bundle);
  EXPECT_EQ(s.message(),
            std::string("test.json:1:14: expected a string key, found ','"));
  s = parseManifest("[]", bundle);
  EXPECT_EQ(s.message(), std::string("test.json:1:1: expected object, found "
                                     "array"));
}

//===----------------------------------------------------------------------===//
// Sizes and grids
//===----------------------------------------------------------------------===//

TEST(Sizes, EvaluatesGridExpressions) {
  Sizes sizes = gemmSizes(3, 4096, 1000, 77);
  auto eval = [&](const char *expr) {
    int64_t value = -999;
    Status s = evalSizeExpr(expr, sizes, value);
    EXPECT_TRUE(s.ok());
    return value;
  };
  EXPECT_EQ(eval("((M+127)/128)*((N+127)/128)"), int64_t(32 * 8));
  EXPECT_EQ(eval("B"), int64_t(3));
  EXPECT_EQ(eval("1"), int64_t(1));
  EXPECT_EQ(eval(" B * 2 "), int64_t(6));
  EXPECT_EQ(eval("2+3*4"), int64_t(14));
  EXPECT_EQ(eval("(2+3)*4"), int64_t(20));
  EXPECT_EQ(eval("10-4-3"), int64_t(3)); // Left associative.
  EXPECT_EQ(eval("64/4/2"), int64_t(8));
  EXPECT_EQ(eval("K/10"), int64_t(7));     // Rounds down.
  EXPECT_EQ(eval("(1-8)/2"), int64_t(-4)); // Floor, not truncation.
}

TEST(Sizes, RejectsBadExpressions) {
  Sizes sizes = gemmSizes(1, 1, 1, 1);
  int64_t value;
  auto error = [&](const char *expr) {
    Status s = evalSizeExpr(expr, sizes, value);
    EXPECT_FALSE(s.ok());
    return s.message();
  };
  EXPECT_EQ(error("M+"), std::string("column 3 of 'M+': expected a number, a "
                                     "symbol or '(', found the end"));
  EXPECT_EQ(error("M*/2"), std::string("column 3 of 'M*/2': expected a "
                                       "number, a symbol or '(', found '/'"));
  EXPECT_EQ(error("X+1"), std::string("column 1 of 'X+1': unknown symbol 'X' "
                                      "(expected B, M, N or K)"));
  EXPECT_EQ(error("MN"), std::string("column 1 of 'MN': unknown symbol 'MN' "
                                     "(expected B, M, N or K)"));
  EXPECT_EQ(error("(M"), std::string("column 3 of '(M': expected ')'"));
  EXPECT_EQ(error("M)"), std::string("column 2 of 'M)': unexpected ')'"));
  EXPECT_EQ(error(""), std::string("empty expression"));
  EXPECT_EQ(error("-M"), std::string("column 1 of '-M': expected a number, a "
                                     "symbol or '(', found '-'"));
  EXPECT_TRUE(contains(error("M/(N-1)"), "division by zero"));
  EXPECT_TRUE(contains(error("9223372036854775807+1"), "integer overflow"));
  EXPECT_TRUE(contains(error("99999999999999999999"), "literal too large"));
  EXPECT_TRUE(checkSizeExpr("M/(N-1)", sizes).ok()); // Syntax only.
  EXPECT_FALSE(checkSizeExpr("M/(N-1", sizes).ok());
}

TEST(Sizes, ResolvesStaticAndDynamicBundles) {
  Bundle bundle;
  ASSERT_TRUE(Bundle::loadManifest(samplePath(), bundle).ok());
  Sizes sizes;
  ASSERT_TRUE(bundle.resolveSizes(nullptr, sizes).ok());
  EXPECT_EQ(sizes.get("M"), int64_t(4096));
  std::array<int64_t, 3> grid;
  ASSERT_TRUE(bundle.evalGrid(sizes, grid).ok());
  EXPECT_EQ(grid[0], int64_t(1024));
  EXPECT_EQ(grid[1], int64_t(1));
  EXPECT_EQ(grid[2], int64_t(1));
  Sizes other = gemmSizes(1, 4096, 4096, 100);
  EXPECT_EQ(bundle.resolveSizes(&other, sizes).message(),
            std::string("bundle 'gemm_4096x4096x4096_bf16_f32_bf16_nn' is "
                        "built for K=4096, not 100"));

  // Dynamic M and batch: the sizes come from the launch; A, B and C then
  // carry the leading batch dimension.
  std::string text = replaced(sampleText(), "\"batch\": 1, \"m\": 4096",
                              "\"batch\": -1, \"m\": -1");
  text = replaced(text, R"(["M", "K"])", R"(["B", "M", "K"])");
  text = replaced(text, R"(["K", "N"])", R"(["B", "K", "N"])");
  text = replaced(text, R"(["M", "N"])", R"(["B", "M", "N"])");
  Bundle dynamic;
  ASSERT_TRUE(parseManifest(text, dynamic).ok());
  EXPECT_TRUE(dynamic.manifest().isDynamic());
  EXPECT_TRUE(contains(dynamic.resolveSizes(nullptr, sizes).message(),
                       "has a dynamic B: give the sizes"));
  Sizes asked = gemmSizes(2, 300, 4096, 4096);
  ASSERT_TRUE(dynamic.resolveSizes(&asked, sizes).ok());
  EXPECT_EQ(sizes.get("B"), int64_t(2));
  EXPECT_EQ(sizes.get("M"), int64_t(300));
  ASSERT_TRUE(dynamic.evalGrid(sizes, grid).ok());
  EXPECT_EQ(grid[0], int64_t(3 * 32));
  EXPECT_EQ(grid[2], int64_t(2));
  // Batched operands without the leading B are rejected at the launch sizes.
  Bundle unbatched;
  ASSERT_TRUE(
      parseManifest(replaced(text, R"(["B", "M", "K"])", R"(["M", "K"])"),
                    unbatched)
          .ok());
  EXPECT_TRUE(contains(unbatched.resolveSizes(&asked, sizes).message(),
                       "argument A has shape [300, 4096]"));
}

//===----------------------------------------------------------------------===//
// Architectures
//===----------------------------------------------------------------------===//

TEST(Arch, ParsesNames) {
  ArchName name;
  ASSERT_TRUE(ArchName::parse("sm_90a", name));
  EXPECT_EQ(name.major, 9);
  EXPECT_EQ(name.minor, 0);
  EXPECT_EQ(name.suffix, 'a');
  ASSERT_TRUE(ArchName::parse("sm_100f", name));
  EXPECT_EQ(name.major, 10);
  EXPECT_EQ(name.base(), std::string("sm_100"));
  EXPECT_FALSE(ArchName::parse("sm_9", name));
  EXPECT_FALSE(ArchName::parse("compute_90", name));
  EXPECT_FALSE(ArchName::parse("sm_90x", name));
}

TEST(Arch, CubinCompatibility) {
  EXPECT_TRUE(checkCubinCompatible("sm_90a", 9, 0).ok());
  EXPECT_TRUE(checkCubinCompatible("sm_90", 9, 0).ok());
  EXPECT_TRUE(checkCubinCompatible("sm_86", 8, 9).ok());
  EXPECT_TRUE(checkCubinCompatible("sm_100f", 10, 3).ok());
  EXPECT_EQ(checkCubinCompatible("sm_80", 9, 0).message(),
            std::string("bundle built for sm_80, device is sm_90: a cubin "
                        "runs only on devices of its own major version"));
  EXPECT_TRUE(contains(checkCubinCompatible("sm_90a", 10, 0).message(),
                       "bundle built for sm_90a, device is sm_100"));
  EXPECT_TRUE(contains(checkCubinCompatible("sm_89", 8, 6).message(),
                       "the device is older than the cubin"));
  EXPECT_TRUE(contains(checkCubinCompatible("sm_100a", 10, 3).message(),
                       "arch-specific"));
  EXPECT_TRUE(isPtxCompatible("sm_80", 9, 0));
  EXPECT_TRUE(isPtxCompatible("sm_90a", 9, 0));
  EXPECT_FALSE(isPtxCompatible("sm_90a", 10, 0));
  EXPECT_FALSE(isPtxCompatible("sm_90", 8, 9));
}

//===----------------------------------------------------------------------===//
// Kernel parameters
//===----------------------------------------------------------------------===//

TEST(Params, Rank2MemrefsExpandToSevenEach) {
  Bundle bundle;
  std::string text =
      replaced(sampleText(), "\"bias\": true", "\"bias\": false");
  text = replaced(
      text,
      R"({"name": "bias", "kind": "memref", "elem": "bf16", "shape": ["N"]},)",
      "");
  ASSERT_TRUE(parseManifest(text, bundle).ok());
  Sizes sizes = gemmSizes(1, 4096, 4096, 4096);
  std::vector<CUdeviceptr> buffers = {0x1000, 0x2000, 0x3000};
  KernelParams params;
  ASSERT_TRUE(
      buildKernelParams(bundle.manifest(), sizes, buffers, params).ok());
  ASSERT_EQ(params.size(), size_t(3 * 7));
  // A: allocated, aligned, offset, sizes [M, K], strides [K, 1].
  const uint64_t a[] = {0x1000, 0x1000, 0, 4096, 4096, 4096, 1};
  for (size_t i = 0; i < 7; ++i)
    EXPECT_EQ(params.value(i), a[i]);
  EXPECT_EQ(params.value(7), uint64_t(0x2000));
  EXPECT_EQ(params.value(14), uint64_t(0x3000));
  void **pointers = params.pointers();
  EXPECT_EQ(*static_cast<uint64_t *>(pointers[3]), uint64_t(4096));
  // A copy points into its own storage.
  KernelParams copy = params;
  EXPECT_TRUE(copy.pointers()[0] != pointers[0]);
  EXPECT_EQ(*static_cast<uint64_t *>(copy.pointers()[14]), uint64_t(0x3000));
}

TEST(Params, Rank3AndRank1Memrefs) {
  // Dynamic batched problem with transposed A: A is [B, K, M].
  std::string text = replaced(sampleText(), "\"batch\": 1, \"m\": 4096",
                              "\"batch\": -1, \"m\": -1");
  text = replaced(text, "\"transpose_a\": false", "\"transpose_a\": true");
  text = replaced(text, R"(["M", "K"])", R"(["B", "K", "M"])");
  text = replaced(text, R"(["K", "N"])", R"(["B", "K", "N"])");
  text = replaced(text, R"(["M", "N"])", R"(["B", "M", "N"])");
  Bundle bundle;
  ASSERT_TRUE(parseManifest(text, bundle).ok());
  Sizes asked = gemmSizes(5, 33, 4096, 4096), sizes;
  ASSERT_TRUE(bundle.resolveSizes(&asked, sizes).ok());
  std::vector<CUdeviceptr> buffers = {0xa0, 0xb0, 0xc0, 0xd0};
  KernelParams params;
  ASSERT_TRUE(
      buildKernelParams(bundle.manifest(), sizes, buffers, params).ok());
  ASSERT_EQ(params.size(), size_t(9 + 9 + 5 + 9));
  const uint64_t a[] = {0xa0, 0xa0, 0, 5, 4096, 33, 4096 * 33, 33, 1};
  for (size_t i = 0; i < 9; ++i)
    EXPECT_EQ(params.value(i), a[i]);
  // bias: [N], stride 1.
  const uint64_t bias[] = {0xc0, 0xc0, 0, 4096, 1};
  for (size_t i = 0; i < 5; ++i)
    EXPECT_EQ(params.value(18 + i), bias[i]);
  // C: [B, M, N].
  EXPECT_EQ(params.value(23), uint64_t(0xd0));
  EXPECT_EQ(params.value(26), uint64_t(5));
  EXPECT_EQ(params.value(29), uint64_t(33 * 4096));

  std::vector<CUdeviceptr> tooFew = {0xa0, 0xb0};
  EXPECT_TRUE(contains(
      buildKernelParams(bundle.manifest(), sizes, tooFew, params).message(),
      "takes 4 arguments, got 2 buffers"));
  std::vector<CUdeviceptr> withNull = {0xa0, 0, 0xc0, 0xd0};
  EXPECT_TRUE(contains(
      buildKernelParams(bundle.manifest(), sizes, withNull, params).message(),
      "null device pointer for argument B"));
}

} // namespace

#ifndef AMK_USE_GTEST
int main() { return minitest::runAll(); }
#endif
