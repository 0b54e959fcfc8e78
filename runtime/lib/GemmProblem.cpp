//===- GemmProblem.cpp - The GEMM family's problem and checks -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The JSON codec of GemmProblem is generated from GemmProblemFields.def: one
// readField/fieldJson overload per kind of field, called once per field by
// the X-macro, so a field added to the .def is read and written here without
// further code (or fails to compile if its kind is new).
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/GemmProblem.h"
#include "AMK/Runtime/Bundle.h"

#include "ManifestReader.h"

#include <cstring>

namespace amk::runtime {

const char *toString(Precision precision) {
  return precision == Precision::TF32 ? "tf32" : "ieee";
}

const char *toString(Activation activation) {
  switch (activation) {
  case Activation::None:
    return "none";
  case Activation::ReLU:
    return "relu";
  case Activation::GELU:
    return "gelu";
  case Activation::SiLU:
    return "silu";
  }
  return "?";
}

GemmProblem::GemmProblem() {
  batch = 1;
  alpha = 1.0;
  inType = accType = outType = ScalarType::F32;
}

bool GemmProblem::isDynamic() const {
  return batch == kDynamic || m == kDynamic || n == kDynamic || k == kDynamic;
}

const char *const kGemmSizeSymbols[4] = {"B", "M", "N", "K"};

Sizes gemmSizes(int64_t b, int64_t m, int64_t n, int64_t k) {
  return Sizes{{"B", b}, {"M", m}, {"N", n}, {"K", k}};
}

Sizes gemmSizes(const GemmProblem &p) {
  return gemmSizes(p.batch, p.m, p.n, p.k);
}

//===----------------------------------------------------------------------===//
// The codec, per kind of field
//===----------------------------------------------------------------------===//

namespace {

const std::string kPath = "problem";

template <class Enum> struct Spelling {
  const char *text;
  Enum value;
};
const Spelling<Precision> kPrecisions[] = {{"ieee", Precision::IEEE},
                                           {"tf32", Precision::TF32}};
const Spelling<Activation> kActivations[] = {{"none", Activation::None},
                                             {"relu", Activation::ReLU},
                                             {"gelu", Activation::GELU},
                                             {"silu", Activation::SiLU}};

template <class Enum, size_t N>
Status readEnum(const ManifestReader &reader, const JsonValue &json,
                const char *key, const Spelling<Enum> (&spellings)[N],
                Enum &out) {
  std::string text;
  if (Status s = reader.getString(json, kPath, key, text); !s.ok())
    return s;
  std::vector<std::string> quoted;
  for (const Spelling<Enum> &spelling : spellings) {
    if (text == spelling.text) {
      out = spelling.value;
      return Status::success();
    }
    quoted.push_back(std::string("\"") + spelling.text + "\"");
  }
  return reader.error(*json.find(key), ManifestReader::join(kPath, key),
                      "expected " + listNames(quoted) + ", found \"" + text +
                          "\"");
}

// Size: a positive integer, or -1 when chosen at launch.
Status readField(const ManifestReader &reader, const JsonValue &json,
                 const char *key, int64_t &out) {
  if (Status s = reader.getInt(json, kPath, key, out); !s.ok())
    return s;
  if (out < 1 && out != GemmProblem::kDynamic)
    return reader.error(*json.find(key), ManifestReader::join(kPath, key),
                        "must be positive, or -1 when dynamic (got " +
                            std::to_string(out) + ")");
  return Status::success();
}
Status readField(const ManifestReader &reader, const JsonValue &json,
                 const char *key, bool &out) {
  return reader.getBool(json, kPath, key, out);
}
Status readField(const ManifestReader &reader, const JsonValue &json,
                 const char *key, double &out) {
  return reader.getNumber(json, kPath, key, out);
}
Status readField(const ManifestReader &reader, const JsonValue &json,
                 const char *key, ScalarType &out) {
  return reader.getType(json, kPath, key, out);
}
Status readField(const ManifestReader &reader, const JsonValue &json,
                 const char *key, Precision &out) {
  return readEnum(reader, json, key, kPrecisions, out);
}
Status readField(const ManifestReader &reader, const JsonValue &json,
                 const char *key, Activation &out) {
  return readEnum(reader, json, key, kActivations, out);
}

JsonValue fieldJson(int64_t v) { return JsonValue::integer(v); }
JsonValue fieldJson(bool v) { return JsonValue::boolean(v); }
JsonValue fieldJson(double v) { return JsonValue::number(v); }
JsonValue fieldJson(ScalarType v) { return JsonValue::string(toString(v)); }
JsonValue fieldJson(Precision v) { return JsonValue::string(toString(v)); }
JsonValue fieldJson(Activation v) { return JsonValue::string(toString(v)); }

/// Keys an older writer may leave out.
bool isOptionalKey(const char *key) { return std::strcmp(key, "batched") == 0; }

Status readFields(const ManifestReader &reader, const JsonValue &json,
                  GemmProblem &problem) {
  Status s;
#define AMK_GEMM_FIELD(Kind, key, member, doc)                                 \
  if (s.ok() && (json.find(#key) || !isOptionalKey(#key)))                     \
    s = readField(reader, json, #key, problem.member);
#include "AMK/Family/Gemm/GemmProblemFields.def"
  if (!s.ok())
    return s;
  // What the runtime assumed before manifests said it.
  if (!json.find("batched"))
    problem.batched = problem.batch != 1;
  for (auto [key, type] : {std::pair<const char *, ScalarType>{
                               "in_type", problem.inType},
                           {"acc_type", problem.accType},
                           {"out_type", problem.outType}})
    if (type == ScalarType::I32)
      return reader.error(*json.find(key), std::string("problem.") + key,
                          "a GEMM computes in floating point, not i32");
  if (problem.precision == Precision::TF32 && problem.inType != ScalarType::F32)
    return reader.error(*json.find("precision"), "problem.precision",
                        "tf32 needs in_type f32 (found " +
                            std::string(toString(problem.inType)) + ")");
  return Status::success();
}

} // namespace

Status readGemmProblem(const JsonValue &json, const std::string &source,
                       GemmProblem &problem, std::vector<std::string> *notes) {
  std::vector<std::string> ignored;
  ManifestReader reader(source, notes ? *notes : ignored);
  problem = GemmProblem();
  if (Status s = reader.expectKind(json, kPath, JsonValue::Kind::Object);
      !s.ok())
    return s;
  if (Status s = reader.getString(json, kPath, "family", problem.family);
      !s.ok())
    return s;
  if (problem.family != "gemm")
    return reader.error(*json.find("family"), "problem.family",
                        "expected \"gemm\", found \"" + problem.family + "\"");
  if (Status s = reader.getString(json, kPath, "signature", problem.signature);
      !s.ok())
    return s;
  if (Status s = readFields(reader, json, problem); !s.ok())
    return s;
  std::vector<std::string> known = {"family", "signature"};
#define AMK_GEMM_FIELD(Kind, key, member, doc) known.push_back(#key);
#include "AMK/Family/Gemm/GemmProblemFields.def"
  reader.noteUnknownKeys(json, kPath, known);
  return Status::success();
}

Status readGemmProblem(const Bundle &bundle, GemmProblem &problem) {
  return readGemmProblem(bundle.manifest().problem, bundle.source(), problem);
}

JsonValue toJson(const GemmProblem &problem) {
  JsonValue json = JsonValue::object();
  json.set("family", JsonValue::string(problem.family));
  json.set("signature", JsonValue::string(problem.signature));
#define AMK_GEMM_FIELD(Kind, key, member, doc)                                 \
  json.set(#key, fieldJson(problem.member));
#include "AMK/Family/Gemm/GemmProblemFields.def"
  return json;
}

//===----------------------------------------------------------------------===//
// Manifest checks
//===----------------------------------------------------------------------===//

namespace {

/// The declared sizes are B, M, N, K, at the problem's values.
Status checkSizes(const ManifestReader &reader, const Manifest &m,
                  const GemmProblem &p) {
  Sizes want = gemmSizes(p);
  std::vector<std::string> wantNames = want.symbols();
  bool same = m.sizes.size() == want.size();
  for (const std::string &symbol : wantNames)
    same = same && m.sizes.contains(symbol);
  if (!same)
    return reader.error(m.problem, "sizes",
                        "the gemm family's sizes are " +
                            listNames(wantNames, "and") + ", the manifest's " +
                            listNames(m.sizes.symbols(), "and"));
  for (const auto &[symbol, value] : want.entries())
    if (m.sizes.get(symbol) != value)
      return reader.error(m.problem, "sizes",
                          symbol + " is " +
                              std::to_string(m.sizes.get(symbol)) +
                              ", the problem says " + std::to_string(value));
  return Status::success();
}

/// The operand list docs/BUNDLE.md fixes: A, B, bias (when the problem has
/// one), C, with A and B in in_type and C in out_type.
Status checkArgList(const ManifestReader &reader, const JsonValue &at,
                    const Manifest &m, const GemmProblem &p) {
  std::vector<std::string> expected = {"A", "B"};
  if (p.bias)
    expected.push_back("bias");
  expected.push_back("C");
  std::vector<std::string> got;
  for (const ArgSpec &arg : m.args)
    got.push_back(arg.name);
  if (got != expected) {
    auto list = [](const std::vector<std::string> &names) {
      std::string text;
      for (const std::string &name : names)
        text += (text.empty() ? "" : ", ") + name;
      return text.empty() ? std::string("none") : text;
    };
    return reader.error(at, "args",
                        "expected arguments " + list(expected) + ", found " +
                            list(got));
  }
  for (const ArgSpec &arg : m.args) {
    ScalarType want = arg.name == "C" ? p.outType : p.inType;
    if (arg.name != "bias" && arg.elem != want)
      return reader.error(at, "args",
                          "argument " + arg.name + " has elem " +
                              toString(arg.elem) + ", the problem says " +
                              toString(want));
  }
  return Status::success();
}

std::string formatExtents(const std::vector<int64_t> &extents) {
  std::string text = "[";
  for (size_t i = 0; i < extents.size(); ++i)
    text += (i ? ", " : "") + std::to_string(extents[i]);
  return text + "]";
}

} // namespace

Status checkGemmManifest(const Manifest &m, const JsonValue &json,
                         const std::string &source,
                         std::vector<std::string> &notes) {
  ManifestReader reader(source, notes);
  GemmProblem problem;
  if (Status s = readGemmProblem(m.problem, source, problem, &notes); !s.ok())
    return s;
  if (Status s = checkSizes(reader, m, problem); !s.ok())
    return s;
  const JsonValue *args = json.find("args");
  return checkArgList(reader, args ? *args : json, m, problem);
}

Status checkGemmArgShapes(const Manifest &m, const GemmProblem &p,
                          const Sizes &sizes) {
  int64_t b = sizes.get("B"), mm = sizes.get("M"), n = sizes.get("N"),
          k = sizes.get("K");
  for (const ArgSpec &arg : m.args) {
    std::vector<int64_t> want;
    if (arg.name == "A")
      want = p.transposeA ? std::vector<int64_t>{k, mm}
                          : std::vector<int64_t>{mm, k};
    else if (arg.name == "B")
      want = p.transposeB ? std::vector<int64_t>{n, k}
                          : std::vector<int64_t>{k, n};
    else if (arg.name == "C")
      want = {mm, n};
    else
      want = {n};
    std::vector<int64_t> got = arg.extents(sizes);
    // A leading batch dimension is required for A, B and C of a batched
    // problem, optional for them at batch 1 and optional for bias (one bias
    // row per batch, or one shared).
    bool lead = got.size() == want.size() + 1;
    if (arg.name != "bias" ? p.batched || lead : lead)
      want.insert(want.begin(), b);
    if (got != want)
      return Status::error(
          "argument " + arg.name + " has shape " + formatExtents(got) +
          " at B=" + std::to_string(b) + " M=" + std::to_string(mm) +
          " N=" + std::to_string(n) + " K=" + std::to_string(k) +
          ", the problem implies " + formatExtents(want));
  }
  return Status::success();
}

} // namespace amk::runtime
