//===- GemmProblem.h - The GEMM family's problem ----------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The "problem" object of a manifest of family "gemm":
// C = act(alpha * op(A) op(B) + beta * C + bias[n]), row-major. Its fields
// and JSON keys come from include/AMK/Family/Gemm/GemmProblemFields.def, the
// list the compiler writes them from, so both sides name them alike.
//
// The generic manifest reader calls checkGemmManifest (operands A, B,
// [bias], C with the problem's types) when a bundle of this family loads and
// checkGemmArgShapes when it resolves a launch's sizes; amk-bench reads the
// problem for its reference and cuBLAS.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_GEMMPROBLEM_H
#define AMK_RUNTIME_GEMMPROBLEM_H

#include "AMK/Runtime/Json.h"
#include "AMK/Runtime/Manifest.h"
#include "AMK/Runtime/ScalarType.h"
#include "AMK/Runtime/Sizes.h"
#include "AMK/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace amk::runtime {

class Bundle;

/// How fp32 operands are multiplied: exactly ("ieee") or rounded to tf32.
enum class Precision { IEEE, TF32 };
/// The epilogue activation. GELU is the erf form,
/// gelu(x) = 0.5 x (1 + erf(x / sqrt 2)); SiLU is x / (1 + exp(-x)).
enum class Activation { None, ReLU, GELU, SiLU };

const char *toString(Precision precision);
const char *toString(Activation activation);

/// The C++ type of each kind of GemmProblemFields.def.
namespace gemm_field {
using Size = int64_t;
using Bool = bool;
using Float = double;
using Type = ScalarType;
using Precision = runtime::Precision;
using Activation = runtime::Activation;
} // namespace gemm_field

/// A GEMM problem: family and signature, then the fields of
/// GemmProblemFields.def under their member names.
struct GemmProblem {
  /// The value of a size that is chosen at launch.
  static constexpr int64_t kDynamic = kDynamicSize;

  std::string family = "gemm";
  std::string signature;
#define AMK_GEMM_FIELD(Kind, key, member, doc) gemm_field::Kind member{};
#include "AMK/Family/Gemm/GemmProblemFields.def"

  /// One batch, alpha 1, f32 throughout; every other field zero or false.
  GemmProblem();

  /// Whether any of batch, m, n, k is kDynamic.
  bool isDynamic() const;
};

/// The GEMM family's size symbols in order: B, M, N, K.
extern const char *const kGemmSizeSymbols[4];

/// Sizes B, M, N, K with these values.
Sizes gemmSizes(int64_t b, int64_t m, int64_t n, int64_t k);
/// The problem's batch, m, n, k as sizes B, M, N, K.
Sizes gemmSizes(const GemmProblem &problem);

/// Reads a "problem" object. `source` names the manifest in errors, which
/// read "<source>:<line>:<col>: problem.<key>: ...". Keys the .def does not
/// list are reported in `notes` when given. "batched" may be absent (older
/// manifests): then it is whether the batch is other than 1 (dynamic
/// included).
Status readGemmProblem(const JsonValue &json, const std::string &source,
                       GemmProblem &problem,
                       std::vector<std::string> *notes = nullptr);
/// The problem of a bundle of family "gemm" (which loaded, so it reads).
Status readGemmProblem(const Bundle &bundle, GemmProblem &problem);
/// The problem as a manifest's "problem" object.
JsonValue toJson(const GemmProblem &problem);

/// The GEMM checks of a manifest of family "gemm" when it loads: the
/// problem reads; the sizes are B, M, N, K at the problem's values; the
/// arguments are A, B, bias (when the problem has one), C, A and B in
/// in_type and C in out_type. (Bundle::parse then resolves a static
/// problem's sizes, which checks its operands' shapes.)
/// `json` is the manifest as parsed (for the positions in errors); `notes`
/// receives the problem's unknown keys.
Status checkGemmManifest(const Manifest &manifest, const JsonValue &json,
                         const std::string &source,
                         std::vector<std::string> &notes);

/// Checks that A, B, [bias], C have the shapes `problem` implies at `sizes`
/// (docs/BUNDLE.md "Argument ABI"): A [M, K] ([K, M] transposed), B [K, N]
/// ([N, K]), C [M, N], bias [N]; a leading B on A, B and C when batched
/// (optional when the batch is 1), and optionally on bias.
Status checkGemmArgShapes(const Manifest &manifest, const GemmProblem &problem,
                          const Sizes &sizes);

} // namespace amk::runtime

#endif // AMK_RUNTIME_GEMMPROBLEM_H
