//===- Bundle.cpp - Bundle manifests, grids and kernel parameters ---------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Everything about a bundle that needs no GPU: reading the manifest
// (docs/BUNDLE.md, schema 1), evaluating its grid expressions, checking
// architectures and building the memref parameter array. Calls no CUDA
// function (the driver half is Kernel.cpp), so the tests of this file run on
// machines without a driver.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Bundle.h"

#include <cctype>
#include <climits>
#include <cstring>

namespace amk::runtime {

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

bool parseScalarType(std::string_view text, ScalarType &type) {
  static const std::pair<const char *, ScalarType> kTypes[] = {
      {"f16", ScalarType::F16},
      {"bf16", ScalarType::BF16},
      {"f32", ScalarType::F32},
      {"f64", ScalarType::F64}};
  for (const auto &entry : kTypes)
    if (text == entry.first) {
      type = entry.second;
      return true;
    }
  return false;
}

const char *toString(ScalarType type) {
  switch (type) {
  case ScalarType::F16:
    return "f16";
  case ScalarType::BF16:
    return "bf16";
  case ScalarType::F32:
    return "f32";
  case ScalarType::F64:
    return "f64";
  }
  return "?";
}

int64_t byteSize(ScalarType type) {
  switch (type) {
  case ScalarType::F16:
  case ScalarType::BF16:
    return 2;
  case ScalarType::F32:
    return 4;
  case ScalarType::F64:
    return 8;
  }
  return 0;
}

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

bool GemmProblem::isDynamic() const {
  return batch == kDynamic || m == kDynamic || n == kDynamic || k == kDynamic;
}

static int64_t symbolValue(char symbol, const ProblemSizes &sizes) {
  switch (symbol) {
  case 'B':
    return sizes.b;
  case 'M':
    return sizes.m;
  case 'N':
    return sizes.n;
  default:
    return sizes.k;
  }
}

std::vector<int64_t> ArgSpec::extents(const ProblemSizes &sizes) const {
  std::vector<int64_t> result;
  for (const ShapeDim &dim : shape)
    result.push_back(dim.symbol ? symbolValue(dim.symbol, sizes) : dim.extent);
  return result;
}

std::vector<int64_t>
ArgSpec::contiguousStrides(const std::vector<int64_t> &extents) {
  std::vector<int64_t> strides(extents.size(), 1);
  for (size_t i = extents.size(); i-- > 1;)
    strides[i - 1] = strides[i] * extents[i];
  return strides;
}

//===----------------------------------------------------------------------===//
// Size expressions
//===----------------------------------------------------------------------===//

namespace {

/// Recursive descent over
///   expr   := term (('+' | '-') term)*
///   term   := factor (('*' | '/') factor)*
///   factor := integer | 'B' | 'M' | 'N' | 'K' | '(' expr ')'
/// There is no unary minus: grid sizes are built from positive sizes. With
/// `sizes` null only the syntax and the symbols are checked.
class ExprEvaluator {
public:
  ExprEvaluator(std::string_view text, const ProblemSizes *sizes)
      : text(text), sizes(sizes) {}

  Status run(int64_t &value) {
    skipSpaces();
    if (pos == text.size())
      return Status::error("empty expression");
    if (Status s = parseExpr(value, 0); !s.ok())
      return s;
    if (pos != text.size())
      return fail("unexpected '" + std::string(1, text[pos]) + "'");
    return Status::success();
  }

private:
  static constexpr int kMaxDepth = 64;

  std::string_view text;
  const ProblemSizes *sizes;
  size_t pos = 0;

  Status fail(const std::string &message) const {
    return Status::error("column " + std::to_string(pos + 1) + " of '" +
                         std::string(text) + "': " + message);
  }

  void skipSpaces() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }

  Status apply(char op, int64_t lhs, int64_t rhs, int64_t &out) const {
    if (!sizes) {
      out = 1;
      return Status::success();
    }
    bool overflow = false;
    switch (op) {
    case '+':
      overflow = __builtin_add_overflow(lhs, rhs, &out);
      break;
    case '-':
      overflow = __builtin_sub_overflow(lhs, rhs, &out);
      break;
    case '*':
      overflow = __builtin_mul_overflow(lhs, rhs, &out);
      break;
    default:
      if (rhs == 0)
        return fail("division by zero");
      if (lhs == INT64_MIN && rhs == -1)
        return fail("integer overflow");
      // Floor division: C++ truncates toward zero.
      out = lhs / rhs;
      if ((lhs % rhs != 0) && ((lhs < 0) != (rhs < 0)))
        --out;
    }
    if (overflow)
      return fail("integer overflow");
    return Status::success();
  }

  Status parseExpr(int64_t &value, int depth) {
    if (Status s = parseTerm(value, depth); !s.ok())
      return s;
    while (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
      char op = text[pos++];
      skipSpaces();
      int64_t rhs;
      if (Status s = parseTerm(rhs, depth); !s.ok())
        return s;
      if (Status s = apply(op, value, rhs, value); !s.ok())
        return s;
    }
    return Status::success();
  }

  Status parseTerm(int64_t &value, int depth) {
    if (Status s = parseFactor(value, depth); !s.ok())
      return s;
    while (pos < text.size() && (text[pos] == '*' || text[pos] == '/')) {
      char op = text[pos++];
      skipSpaces();
      int64_t rhs;
      if (Status s = parseFactor(rhs, depth); !s.ok())
        return s;
      if (Status s = apply(op, value, rhs, value); !s.ok())
        return s;
    }
    return Status::success();
  }

  Status parseFactor(int64_t &value, int depth) {
    if (pos == text.size())
      return fail("expected a number, a symbol or '(', found the end");
    char c = text[pos];
    if (c == '(') {
      if (depth >= kMaxDepth)
        return fail("parentheses nested too deep");
      ++pos;
      skipSpaces();
      if (Status s = parseExpr(value, depth + 1); !s.ok())
        return s;
      if (pos == text.size() || text[pos] != ')')
        return fail("expected ')'");
      ++pos;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      value = 0;
      while (pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[pos]))) {
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, text[pos] - '0', &value))
          return fail("integer literal too large");
        ++pos;
      }
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos;
      while (pos < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[pos])) ||
              text[pos] == '_'))
        ++pos;
      std::string_view name = text.substr(start, pos - start);
      if (name.size() != 1 || !std::strchr("BMNK", name[0])) {
        pos = start;
        return fail("unknown symbol '" + std::string(name) +
                    "' (expected B, M, N or K)");
      }
      value = sizes ? symbolValue(name[0], *sizes) : 1;
    } else {
      return fail("expected a number, a symbol or '(', found '" +
                  std::string(1, c) + "'");
    }
    skipSpaces();
    return Status::success();
  }
};

} // namespace

Status evalSizeExpr(std::string_view expr, const ProblemSizes &sizes,
                    int64_t &value) {
  return ExprEvaluator(expr, &sizes).run(value);
}

Status checkSizeExpr(std::string_view expr) {
  int64_t ignored;
  return ExprEvaluator(expr, nullptr).run(ignored);
}

//===----------------------------------------------------------------------===//
// Manifest reading
//===----------------------------------------------------------------------===//

namespace {

/// Reads typed fields out of the manifest's JSON, producing errors of the
/// form "<source>:<line>:<col>: <field path>: <what is wrong>".
class ManifestReader {
public:
  ManifestReader(const std::string &source, std::vector<std::string> &notes)
      : source(source), notes(notes) {}

  Status error(const JsonValue &at, const std::string &path,
               const std::string &message) const {
    std::string where = source;
    if (at.line() > 0)
      where +=
          ":" + std::to_string(at.line()) + ":" + std::to_string(at.column());
    return Status::error(where + ": " + (path.empty() ? "" : path + ": ") +
                         message);
  }

  static std::string join(const std::string &path, const std::string &key) {
    return path.empty() ? key : path + "." + key;
  }

  /// The required member `key` of `object`.
  Status member(const JsonValue &object, const std::string &path,
                const char *key, const JsonValue *&out) const {
    out = object.find(key);
    if (!out)
      return error(object, path, std::string("missing key '") + key + "'");
    return Status::success();
  }

  Status expectKind(const JsonValue &value, const std::string &path,
                    JsonValue::Kind kind) const {
    if (value.kind() == kind)
      return Status::success();
    return error(value, path,
                 std::string("expected ") + JsonValue::kindName(kind) +
                     ", found " + JsonValue::kindName(value.kind()));
  }

  Status getObject(const JsonValue &object, const std::string &path,
                   const char *key, const JsonValue *&out) const {
    if (Status s = member(object, path, key, out); !s.ok())
      return s;
    return expectKind(*out, join(path, key), JsonValue::Kind::Object);
  }

  Status getArray(const JsonValue &object, const std::string &path,
                  const char *key, const JsonValue *&out) const {
    if (Status s = member(object, path, key, out); !s.ok())
      return s;
    return expectKind(*out, join(path, key), JsonValue::Kind::Array);
  }

  Status getString(const JsonValue &object, const std::string &path,
                   const char *key, std::string &out,
                   bool allowEmpty = false) const {
    const JsonValue *v;
    if (Status s = member(object, path, key, v); !s.ok())
      return s;
    if (Status s = expectKind(*v, join(path, key), JsonValue::Kind::String);
        !s.ok())
      return s;
    if (!allowEmpty && v->getString().empty())
      return error(*v, join(path, key), "must not be empty");
    out = v->getString();
    return Status::success();
  }

  Status getInt(const JsonValue &object, const std::string &path,
                const char *key, int64_t &out) const {
    const JsonValue *v;
    if (Status s = member(object, path, key, v); !s.ok())
      return s;
    return toInt(*v, join(path, key), out);
  }

  Status toInt(const JsonValue &v, const std::string &path,
               int64_t &out) const {
    if (!v.isInteger())
      return error(v, path,
                   std::string("expected an integer, found ") +
                       (v.isNumber() ? "a non-integer number"
                                     : JsonValue::kindName(v.kind())));
    out = v.getInt();
    return Status::success();
  }

  Status getNumber(const JsonValue &object, const std::string &path,
                   const char *key, double &out) const {
    const JsonValue *v;
    if (Status s = member(object, path, key, v); !s.ok())
      return s;
    if (Status s = expectKind(*v, join(path, key), JsonValue::Kind::Number);
        !s.ok())
      return s;
    out = v->getDouble();
    return Status::success();
  }

  Status getBool(const JsonValue &object, const std::string &path,
                 const char *key, bool &out) const {
    const JsonValue *v;
    if (Status s = member(object, path, key, v); !s.ok())
      return s;
    if (Status s = expectKind(*v, join(path, key), JsonValue::Kind::Bool);
        !s.ok())
      return s;
    out = v->getBool();
    return Status::success();
  }

  Status getType(const JsonValue &object, const std::string &path,
                 const char *key, ScalarType &out) const {
    std::string text;
    if (Status s = getString(object, path, key, text); !s.ok())
      return s;
    if (!parseScalarType(text, out))
      return error(*object.find(key), join(path, key),
                   "unsupported element type '" + text +
                       "' (expected f16, bf16, f32 or f64)");
    return Status::success();
  }

  /// Records a warning for each member of `object` not in `known`: a newer
  /// writer may add keys, and silently dropping one could hide a mismatch.
  void noteUnknownKeys(const JsonValue &object, const std::string &path,
                       const std::vector<std::string> &known) {
    for (const JsonValue::Member &member : object.getObject()) {
      bool found = false;
      for (const std::string &key : known)
        found = found || member.first == key;
      if (!found)
        notes.push_back(source + ": unknown key '" + join(path, member.first) +
                        "' ignored");
    }
  }

private:
  const std::string &source;
  std::vector<std::string> &notes;
};

Status readTarget(ManifestReader &reader, const JsonValue &json,
                  TargetDesc &target) {
  const std::string path = "target";
  if (Status s = reader.getString(json, path, "name", target.name); !s.ok())
    return s;
  Status status;
  // "info" is provenance that amk-device-info writes; the runtime needs none.
  std::vector<std::string> known = {"name", "info"};
#define AMK_TARGET_INT(key, doc)                                               \
  known.push_back(#key);                                                       \
  if (status.ok())                                                             \
    status = reader.getInt(json, path, #key, target.key);
#define AMK_TARGET_STR(key, doc)                                               \
  known.push_back(#key);                                                       \
  if (status.ok())                                                             \
    status = reader.getString(json, path, #key, target.key);
#include "AMK/Target/TargetFields.def"
  reader.noteUnknownKeys(json, path, known);
  return status;
}

Status readProblemSize(const ManifestReader &reader, const JsonValue &problem,
                       const char *key, int64_t &out) {
  if (Status s = reader.getInt(problem, "problem", key, out); !s.ok())
    return s;
  if (out < 1 && out != GemmProblem::kDynamic)
    return reader.error(*problem.find(key), std::string("problem.") + key,
                        "must be positive, or -1 when dynamic (got " +
                            std::to_string(out) + ")");
  return Status::success();
}

Status readEnums(const ManifestReader &reader, const JsonValue &json,
                 GemmProblem &problem) {
  std::string precision, activation;
  if (Status s = reader.getString(json, "problem", "precision", precision);
      !s.ok())
    return s;
  if (precision == "ieee")
    problem.precision = Precision::IEEE;
  else if (precision == "tf32")
    problem.precision = Precision::TF32;
  else
    return reader.error(*json.find("precision"), "problem.precision",
                        "expected \"ieee\" or \"tf32\", found \"" + precision +
                            "\"");
  if (problem.precision == Precision::TF32 && problem.inType != ScalarType::F32)
    return reader.error(*json.find("precision"), "problem.precision",
                        "tf32 needs in_type f32 (found " +
                            std::string(toString(problem.inType)) + ")");
  if (Status s = reader.getString(json, "problem", "activation", activation);
      !s.ok())
    return s;
  static const std::pair<const char *, Activation> kActivations[] = {
      {"none", Activation::None},
      {"relu", Activation::ReLU},
      {"gelu", Activation::GELU},
      {"silu", Activation::SiLU}};
  for (const auto &entry : kActivations)
    if (activation == entry.first) {
      problem.activation = entry.second;
      return Status::success();
    }
  return reader.error(*json.find("activation"), "problem.activation",
                      "expected \"none\", \"relu\", \"gelu\" or \"silu\", "
                      "found \"" +
                          activation + "\"");
}

Status readProblem(ManifestReader &reader, const JsonValue &json,
                   GemmProblem &problem) {
  const std::string path = "problem";
  if (Status s = reader.getString(json, path, "family", problem.family);
      !s.ok())
    return s;
  if (problem.family != "gemm")
    return reader.error(*json.find("family"), "problem.family",
                        "unsupported problem family '" + problem.family +
                            "' (schema 1 defines \"gemm\")");
  Status s = reader.getString(json, path, "signature", problem.signature);
  for (auto [key, field] : {std::pair{"batch", &problem.batch},
                            {"m", &problem.m},
                            {"n", &problem.n},
                            {"k", &problem.k}})
    if (s.ok())
      s = readProblemSize(reader, json, key, *field);
  for (auto [key, field] : {std::pair{"in_type", &problem.inType},
                            {"acc_type", &problem.accType},
                            {"out_type", &problem.outType}})
    if (s.ok())
      s = reader.getType(json, path, key, *field);
  for (auto [key, field] : {std::pair{"transpose_a", &problem.transposeA},
                            {"transpose_b", &problem.transposeB},
                            {"bias", &problem.bias}})
    if (s.ok())
      s = reader.getBool(json, path, key, *field);
  if (s.ok())
    s = reader.getNumber(json, path, "alpha", problem.alpha);
  if (s.ok())
    s = reader.getNumber(json, path, "beta", problem.beta);
  if (s.ok())
    s = readEnums(reader, json, problem);
  reader.noteUnknownKeys(json, path,
                         {"family", "signature", "batch", "m", "n", "k",
                          "in_type", "acc_type", "out_type", "transpose_a",
                          "transpose_b", "precision", "alpha", "beta", "bias",
                          "activation"});
  return s;
}

Status readDim(const ManifestReader &reader, const JsonValue &v,
               const std::string &path, ShapeDim &dim) {
  if (v.isString()) {
    const std::string &name = v.getString();
    if (name.size() != 1 || !std::strchr("BMNK", name[0]))
      return reader.error(v, path,
                          "unknown symbol '" + name +
                              "' (expected B, M, N, K or an integer)");
    dim.symbol = name[0];
    return Status::success();
  }
  if (Status s = reader.toInt(v, path, dim.extent); !s.ok())
    return s;
  if (dim.extent < 1)
    return reader.error(v, path, "extent must be positive");
  return Status::success();
}

Status readArg(ManifestReader &reader, const JsonValue &json,
               const std::string &path, ArgSpec &arg) {
  if (Status s = reader.expectKind(json, path, JsonValue::Kind::Object);
      !s.ok())
    return s;
  Status s = reader.getString(json, path, "name", arg.name);
  if (s.ok())
    s = reader.getString(json, path, "kind", arg.kind);
  if (s.ok() && arg.kind != "memref")
    s = reader.error(*json.find("kind"), path + ".kind",
                     "unsupported argument kind '" + arg.kind +
                         "' (schema 1 defines \"memref\")");
  if (s.ok())
    s = reader.getType(json, path, "elem", arg.elem);
  const JsonValue *shape = nullptr;
  if (s.ok())
    s = reader.getArray(json, path, "shape", shape);
  if (!s.ok())
    return s;
  for (size_t i = 0; i < shape->getArray().size(); ++i) {
    arg.shape.emplace_back();
    if (Status d = readDim(reader, shape->getArray()[i],
                           path + ".shape[" + std::to_string(i) + "]",
                           arg.shape.back());
        !d.ok())
      return d;
  }
  reader.noteUnknownKeys(json, path, {"name", "kind", "elem", "shape"});
  return Status::success();
}

Status readArgs(ManifestReader &reader, const JsonValue &json,
                std::vector<ArgSpec> &args) {
  const JsonValue *list;
  if (Status s = reader.getArray(json, "", "args", list); !s.ok())
    return s;
  for (size_t i = 0; i < list->getArray().size(); ++i) {
    args.emplace_back();
    if (Status s = readArg(reader, list->getArray()[i],
                           "args[" + std::to_string(i) + "]", args.back());
        !s.ok())
      return s;
  }
  return Status::success();
}

Status readLaunch(const ManifestReader &reader, const JsonValue &json,
                  Manifest &m) {
  const JsonValue *block, *grid;
  if (Status s = reader.getArray(json, "", "block", block); !s.ok())
    return s;
  if (block->getArray().size() != 3)
    return reader.error(*block, "block", "expected 3 entries");
  for (int i = 0; i < 3; ++i) {
    const JsonValue &v = block->getArray()[i];
    std::string path = "block[" + std::to_string(i) + "]";
    if (Status s = reader.toInt(v, path, m.block[i]); !s.ok())
      return s;
    if (m.block[i] < 1 || m.block[i] > INT_MAX)
      return reader.error(v, path, "must be a positive 32-bit integer");
  }
  if (Status s = reader.getArray(json, "", "grid", grid); !s.ok())
    return s;
  if (grid->getArray().size() != 3)
    return reader.error(*grid, "grid", "expected 3 entries");
  for (int i = 0; i < 3; ++i) {
    const JsonValue &v = grid->getArray()[i];
    std::string path = "grid[" + std::to_string(i) + "]";
    if (Status s = reader.expectKind(v, path, JsonValue::Kind::String); !s.ok())
      return s;
    if (Status s = checkSizeExpr(v.getString()); !s.ok())
      return reader.error(v, path, s.message());
    m.grid[i] = v.getString();
  }
  if (Status s =
          reader.getInt(json, "", "dynamic_smem_bytes", m.dynamicSmemBytes);
      !s.ok())
    return s;
  if (m.dynamicSmemBytes < 0 || m.dynamicSmemBytes > INT_MAX)
    return reader.error(*json.find("dynamic_smem_bytes"), "dynamic_smem_bytes",
                        "must be between 0 and 2^31-1");
  // Optional (older manifests lack it): false.
  if (const JsonValue *zero = json.find("zero_output")) {
    if (Status s =
            reader.expectKind(*zero, "zero_output", JsonValue::Kind::Bool);
        !s.ok())
      return s;
    m.zeroOutput = zero->getBool();
  }
  // Optional: what the tuner reads (older manifests lack them).
  if (const JsonValue *tile = json.find("tile")) {
    if (Status s = reader.expectKind(*tile, "tile", JsonValue::Kind::Array);
        !s.ok())
      return s;
    if (tile->getArray().size() != 3)
      return reader.error(*tile, "tile", "expected 3 entries");
    for (int i = 0; i < 3; ++i) {
      std::string path = "tile[" + std::to_string(i) + "]";
      if (Status s = reader.toInt(tile->getArray()[i], path, m.tile[i]);
          !s.ok())
        return s;
      if (m.tile[i] < 0)
        return reader.error(tile->getArray()[i], path, "must not be negative");
    }
  }
  if (json.find("predicted_us"))
    if (Status s = reader.getNumber(json, "", "predicted_us", m.predictedUs);
        !s.ok())
      return s;
  return Status::success();
}

Status readVerdict(const ManifestReader &reader, const JsonValue &json,
                   Manifest &m) {
  const JsonValue *verdict, *checks;
  if (Status s = reader.getObject(json, "", "verdict", verdict); !s.ok())
    return s;
  if (Status s =
          reader.getString(*verdict, "verdict", "status", m.verdictStatus);
      !s.ok())
    return s;
  if (Status s = reader.getArray(*verdict, "verdict", "checks", checks);
      !s.ok())
    return s;
  m.verdict = *verdict;
  return Status::success();
}

Status readSchema(const ManifestReader &reader, const JsonValue &json,
                  Manifest &m) {
  if (Status s = reader.getInt(json, "", "schema", m.schema); !s.ok())
    return s;
  if (m.schema != 1)
    return reader.error(*json.find("schema"), "schema",
                        "unsupported manifest schema " +
                            std::to_string(m.schema) +
                            " (this runtime reads schema 1)");
  return Status::success();
}

Status readManifest(ManifestReader &reader, const JsonValue &json,
                    Manifest &m) {
  if (Status s = reader.expectKind(json, "", JsonValue::Kind::Object); !s.ok())
    return s;
  // The schema first: a newer manifest may lack keys that schema 1 needs,
  // and its version is the useful thing to report.
  if (Status s = readSchema(reader, json, m); !s.ok())
    return s;
  Status s;
  for (auto [key, field] : {std::pair{"name", &m.name},
                            {"entry", &m.entry},
                            {"cubin", &m.cubin},
                            {"ptx", &m.ptx},
                            {"arch", &m.arch}})
    if (s.ok())
      s = reader.getString(json, "", key, *field);
  ArchName arch;
  if (s.ok() && !ArchName::parse(m.arch, arch))
    s = reader.error(*json.find("arch"), "arch",
                     "expected sm_<major><minor>[a|f], found '" + m.arch + "'");
  const JsonValue *target = nullptr, *problem = nullptr;
  if (s.ok())
    s = reader.getObject(json, "", "target", target);
  if (s.ok())
    s = readTarget(reader, *target, m.target);
  if (s.ok())
    s = reader.getObject(json, "", "problem", problem);
  if (s.ok())
    s = readProblem(reader, *problem, m.problem);
  if (s.ok())
    s = reader.getString(json, "", "config", m.config);
  if (s.ok())
    s = readLaunch(reader, json, m);
  if (s.ok())
    s = readArgs(reader, json, m.args);
  if (s.ok())
    s = readVerdict(reader, json, m);
  if (s.ok())
    s = reader.getString(json, "", "cache_key", m.cacheKey);
  if (s.ok())
    reader.noteUnknownKeys(json, "",
                           {"schema",      "name",
                            "entry",       "cubin",
                            "ptx",         "arch",
                            "target",      "problem",
                            "config",      "block",
                            "grid",        "dynamic_smem_bytes",
                            "zero_output", "estimated_regs_per_thread",
                            "tile",        "predicted_us",
                            "args",        "verdict",
                            "flags",       "cache_key"});
  return s;
}

/// The operand list docs/BUNDLE.md fixes: A, B, bias (when the problem has
/// one), C, with A and B in in_type and C in out_type.
Status checkArgList(const ManifestReader &reader, const JsonValue &json,
                    const Manifest &m) {
  std::vector<std::string> expected = {"A", "B"};
  if (m.problem.bias)
    expected.push_back("bias");
  expected.push_back("C");
  std::string got;
  for (const ArgSpec &arg : m.args)
    got += (got.empty() ? "" : ", ") + arg.name;
  bool same = m.args.size() == expected.size();
  for (size_t i = 0; same && i < expected.size(); ++i)
    same = m.args[i].name == expected[i];
  const JsonValue &at = *json.find("args");
  if (!same) {
    std::string want;
    for (const std::string &name : expected)
      want += (want.empty() ? "" : ", ") + name;
    return reader.error(at, "args",
                        "expected arguments " + want + ", found " +
                            (got.empty() ? "none" : got));
  }
  for (const ArgSpec &arg : m.args) {
    ScalarType want = arg.name == "C" ? m.problem.outType : m.problem.inType;
    if (arg.name != "bias" && arg.elem != want)
      return reader.error(at, "args",
                          "argument " + arg.name + " has elem " +
                              toString(arg.elem) + ", the problem says " +
                              toString(want));
  }
  return Status::success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Bundle
//===----------------------------------------------------------------------===//

Status Bundle::load(const std::string &dir, const std::string &name,
                    Bundle &out) {
  std::string base = dir.empty() ? "." : dir;
  return loadManifest(base + "/" + name + ".json", out);
}

Status Bundle::loadManifest(const std::string &path, Bundle &out) {
  std::string text;
  if (Status s = readFile(path, text); !s.ok())
    return s;
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (dir.empty())
    dir = "/";
  return parse(text, dir, path, out);
}

Status Bundle::parse(std::string_view text, const std::string &dir,
                     const std::string &source, Bundle &out) {
  out = Bundle();
  out.dir = dir;
  out.sourceName = source;
  JsonValue json;
  // The JSON error starts with "<line>:<col>: ", so this reads
  // "<file>:<line>:<col>: ..." like every other manifest error.
  if (Status s = parseJson(text, json); !s.ok())
    return Status::error(source + ":" + s.message());
  ManifestReader reader(source, out.notes);
  if (Status s = readManifest(reader, json, out.data); !s.ok())
    return s;
  if (Status s = checkArgList(reader, json, out.data); !s.ok())
    return s;
  if (!out.data.problem.isDynamic()) {
    const GemmProblem &p = out.data.problem;
    ProblemSizes sizes{p.batch, p.m, p.n, p.k};
    if (Status s = out.checkArgShapes(sizes); !s.ok())
      return s.withContext(source);
  }
  if (out.data.verdictStatus != "verified")
    out.notes.push_back(source + ": the manifest's verdict is '" +
                        out.data.verdictStatus + "', not 'verified'");
  return Status::success();
}

std::string Bundle::cubinPath() const { return dir + "/" + data.cubin; }

std::string Bundle::ptxPath() const { return dir + "/" + data.ptx; }

int Bundle::findArg(std::string_view name) const {
  for (size_t i = 0; i < data.args.size(); ++i)
    if (data.args[i].name == name)
      return static_cast<int>(i);
  return -1;
}

Status Bundle::resolveSizes(const ProblemSizes *requested,
                            ProblemSizes &out) const {
  const GemmProblem &p = data.problem;
  const std::pair<const char *, std::pair<int64_t, int64_t>> dims[] = {
      {"B", {p.batch, requested ? requested->b : 0}},
      {"M", {p.m, requested ? requested->m : 0}},
      {"N", {p.n, requested ? requested->n : 0}},
      {"K", {p.k, requested ? requested->k : 0}}};
  int64_t values[4];
  for (int i = 0; i < 4; ++i) {
    auto [symbol, pair] = dims[i];
    auto [fixed, asked] = pair;
    if (fixed != GemmProblem::kDynamic) {
      if (requested && asked != fixed)
        return Status::error(
            std::string("bundle '") + data.name + "' is built for " + symbol +
            "=" + std::to_string(fixed) + ", not " + std::to_string(asked));
      values[i] = fixed;
    } else if (!requested) {
      return Status::error(std::string("bundle '") + data.name +
                           "' has a "
                           "dynamic " +
                           symbol + ": give the sizes to run");
    } else if (asked < 1) {
      return Status::error(std::string(symbol) + " must be positive (got " +
                           std::to_string(asked) + ")");
    } else {
      values[i] = asked;
    }
  }
  out = ProblemSizes{values[0], values[1], values[2], values[3]};
  return checkArgShapes(out);
}

Status Bundle::evalGrid(const ProblemSizes &sizes,
                        std::array<int64_t, 3> &grid) const {
  static const char *const kAxes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (Status s = evalSizeExpr(data.grid[i], sizes, grid[i]); !s.ok())
      return s.withContext(std::string("grid ") + kAxes[i]);
    if (grid[i] < 1 || grid[i] > UINT_MAX)
      return Status::error(std::string("grid ") + kAxes[i] + " '" +
                           data.grid[i] + "' evaluates to " +
                           std::to_string(grid[i]) + ", outside 1..2^32-1");
  }
  return Status::success();
}

static std::string formatExtents(const std::vector<int64_t> &extents) {
  std::string text = "[";
  for (size_t i = 0; i < extents.size(); ++i)
    text += (i ? ", " : "") + std::to_string(extents[i]);
  return text + "]";
}

Status Bundle::checkArgShapes(const ProblemSizes &s) const {
  const GemmProblem &p = data.problem;
  for (const ArgSpec &arg : data.args) {
    std::vector<int64_t> want;
    if (arg.name == "A")
      want = p.transposeA ? std::vector<int64_t>{s.k, s.m}
                          : std::vector<int64_t>{s.m, s.k};
    else if (arg.name == "B")
      want = p.transposeB ? std::vector<int64_t>{s.n, s.k}
                          : std::vector<int64_t>{s.k, s.n};
    else if (arg.name == "C")
      want = {s.m, s.n};
    else
      want = {s.n};
    std::vector<int64_t> got = arg.extents(s);
    // A leading batch dimension is required for A, B and C of a batched
    // problem and optional for bias (one bias row per batch, or one shared).
    bool batched = p.batch != 1 || got.size() == want.size() + 1;
    if (arg.name != "bias" ? batched : got.size() == want.size() + 1)
      want.insert(want.begin(), s.b);
    if (got != want)
      return Status::error(
          "argument " + arg.name + " has shape " + formatExtents(got) +
          " at B=" + std::to_string(s.b) + " M=" + std::to_string(s.m) +
          " N=" + std::to_string(s.n) + " K=" + std::to_string(s.k) +
          ", the problem implies " + formatExtents(want));
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Architectures
//===----------------------------------------------------------------------===//

bool ArchName::parse(std::string_view text, ArchName &out) {
  if (text.substr(0, 3) != "sm_")
    return false;
  std::string_view rest = text.substr(3);
  char suffix = 0;
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    suffix = rest.back();
    rest.remove_suffix(1);
  }
  // The last digit is the minor version: sm_90 -> 9.0, sm_100 -> 10.0.
  if (rest.size() < 2 || rest.size() > 4)
    return false;
  for (char c : rest)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  out.major = std::stoi(std::string(rest.substr(0, rest.size() - 1)));
  out.minor = rest.back() - '0';
  out.suffix = suffix;
  return out.major > 0;
}

std::string ArchName::base() const {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

Status checkCubinCompatible(std::string_view arch, int ccMajor, int ccMinor) {
  ArchName name;
  if (!ArchName::parse(arch, name))
    return Status::error("unknown architecture '" + std::string(arch) + "'");
  std::string device =
      "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor);
  std::string prefix =
      "bundle built for " + std::string(arch) + ", device is " + device;
  if (name.major != ccMajor)
    return Status::error(prefix + ": a cubin runs only on devices of its own "
                                  "major version");
  if (name.suffix == 'a' && name.minor != ccMinor)
    return Status::error(prefix + ": an arch-specific ('a') cubin runs only "
                                  "on exactly that version");
  if (name.minor > ccMinor)
    return Status::error(prefix + ": the device is older than the cubin");
  return Status::success();
}

bool isPtxCompatible(std::string_view arch, int ccMajor, int ccMinor) {
  ArchName name;
  if (!ArchName::parse(arch, name))
    return false;
  if (name.suffix == 'a')
    return name.major == ccMajor && name.minor == ccMinor;
  if (name.suffix == 'f')
    return name.major == ccMajor && name.minor <= ccMinor;
  return name.major < ccMajor ||
         (name.major == ccMajor && name.minor <= ccMinor);
}

//===----------------------------------------------------------------------===//
// Kernel parameters
//===----------------------------------------------------------------------===//

void **KernelParams::pointers() {
  addresses.resize(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    addresses[i] = &values[i];
  return addresses.data();
}

Status buildKernelParams(const Manifest &manifest, const ProblemSizes &sizes,
                         const std::vector<CUdeviceptr> &buffers,
                         KernelParams &params) {
  if (buffers.size() != manifest.args.size())
    return Status::error("kernel '" + manifest.entry + "' takes " +
                         std::to_string(manifest.args.size()) +
                         " arguments, got " + std::to_string(buffers.size()) +
                         " buffers");
  params = KernelParams();
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i] == 0)
      return Status::error("null device pointer for argument " +
                           manifest.args[i].name);
    std::vector<int64_t> extents = manifest.args[i].extents(sizes);
    std::vector<int64_t> strides = ArgSpec::contiguousStrides(extents);
    params.append(buffers[i]); // allocated pointer
    params.append(buffers[i]); // aligned pointer
    params.append(0);          // offset
    for (int64_t extent : extents)
      params.append(static_cast<uint64_t>(extent));
    for (int64_t stride : strides)
      params.append(static_cast<uint64_t>(stride));
  }
  return Status::success();
}

} // namespace amk::runtime
