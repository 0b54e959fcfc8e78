//===- Bundle.h - Load and launch an exported AMK kernel --------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The runtime side of a kernel bundle (docs/BUNDLE.md): read the manifest,
// evaluate its launch grid for concrete sizes, build the kernel parameters of
// MLIR's memref calling convention, and load and launch the cubin through the
// CUDA driver API. Needs the CUDA toolkit only.
//
// The manifest half (Manifest, Bundle, evalSizeExpr, buildKernelParams) calls
// no CUDA function, so it is tested on machines without a GPU; Kernel (in
// Kernel.cpp) is the only part that talks to the driver.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_BUNDLE_H
#define AMK_RUNTIME_BUNDLE_H

#include "AMK/Runtime/Json.h"
#include "AMK/Runtime/Status.h"

#include <cuda.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace amk::runtime {

//===----------------------------------------------------------------------===//
// Manifest contents
//===----------------------------------------------------------------------===//

/// Element types a schema-1 manifest can name.
enum class ScalarType { F16, BF16, F32, F64 };

/// Parses "f16", "bf16", "f32" or "f64"; false for anything else.
bool parseScalarType(std::string_view text, ScalarType &type);
/// The manifest spelling of `type`, e.g. "bf16".
const char *toString(ScalarType type);
/// Bytes per element of `type`.
int64_t byteSize(ScalarType type);

/// How fp32 operands are multiplied: exactly ("ieee") or rounded to tf32.
enum class Precision { IEEE, TF32 };
/// The epilogue activation. GELU is the erf form,
/// gelu(x) = 0.5 x (1 + erf(x / sqrt 2)); SiLU is x / (1 + exp(-x)).
enum class Activation { None, ReLU, GELU, SiLU };

const char *toString(Precision precision);
const char *toString(Activation activation);

/// The values of the problem symbols for one launch: B (batch), M, N, K.
struct ProblemSizes {
  int64_t b = 1, m = 1, n = 1, k = 1;
};

/// The "problem" object of a GEMM manifest (family "gemm"):
/// C = act(alpha * op(A) op(B) + beta * C + bias[n]), row-major.
struct GemmProblem {
  /// The value of a size that is chosen at launch.
  static constexpr int64_t kDynamic = -1;

  std::string family;
  std::string signature;
  int64_t batch = 1, m = 0, n = 0, k = 0; ///< kDynamic when dynamic.
  ScalarType inType = ScalarType::F32;
  ScalarType accType = ScalarType::F32;
  ScalarType outType = ScalarType::F32;
  bool transposeA = false, transposeB = false;
  Precision precision = Precision::IEEE;
  double alpha = 1.0, beta = 0.0;
  bool bias = false;
  Activation activation = Activation::None;

  /// Whether any of batch, m, n, k is kDynamic.
  bool isDynamic() const;
};

/// The target description the kernel was planned for (`#amk.target` as
/// JSON): the fields of TargetFields.def plus the target's name.
struct TargetDesc {
  std::string name;
#define AMK_TARGET_INT(key, doc) int64_t key = 0;
#define AMK_TARGET_STR(key, doc) std::string key;
#include "AMK/Target/TargetFields.def"
};

/// One dimension of an argument's shape: a problem symbol ('B', 'M', 'N' or
/// 'K') or, when `symbol` is 0, the fixed `extent`.
struct ShapeDim {
  char symbol = 0;
  int64_t extent = 0;
};

/// One kernel argument of the manifest's "args" list. Schema 1 has memrefs
/// only (kind "memref").
struct ArgSpec {
  std::string name;
  std::string kind;
  ScalarType elem = ScalarType::F32;
  std::vector<ShapeDim> shape;

  /// The extents of the shape for concrete sizes.
  std::vector<int64_t> extents(const ProblemSizes &sizes) const;
  /// Row-major contiguous strides for `extents` (the last stride is 1).
  static std::vector<int64_t>
  contiguousStrides(const std::vector<int64_t> &extents);
};

/// A parsed schema-1 manifest (see docs/BUNDLE.md for each field).
struct Manifest {
  int64_t schema = 0;
  std::string name;
  std::string entry;
  std::string cubin; ///< File name, relative to the bundle directory.
  std::string ptx;   ///< File name, relative to the bundle directory.
  std::string arch;  ///< e.g. "sm_90a".
  TargetDesc target;
  GemmProblem problem;
  std::string config;
  std::array<int64_t, 3> block = {1, 1, 1};
  std::array<std::string, 3> grid;
  int64_t dynamicSmemBytes = 0;
  /// Whether C must be zero before the kernel runs (split-K kernels add
  /// their partial sums into it); the launcher zeroes it.
  bool zeroOutput = false;
  /// The block tile (M, N, K); zeros when the manifest does not say.
  std::array<int64_t, 3> tile = {0, 0, 0};
  /// The planner's predicted time, us (0: unknown).
  double predictedUs = 0;
  std::vector<ArgSpec> args;
  std::string verdictStatus; ///< "verdict"."status", e.g. "verified".
  JsonValue verdict;         ///< The whole "verdict" object, as written.
  std::string cacheKey;
};

//===----------------------------------------------------------------------===//
// Bundle
//===----------------------------------------------------------------------===//

/// A manifest together with the directory holding its cubin and PTX.
class Bundle {
public:
  /// Loads `<dir>/<name>.json`.
  static Status load(const std::string &dir, const std::string &name,
                     Bundle &out);
  /// Loads the manifest at `path`; the cubin and PTX are looked up next to
  /// it. Errors start with the path, then the line and column in the file
  /// where one is known.
  static Status loadManifest(const std::string &path, Bundle &out);
  /// Parses manifest `text`; `dir` is where the cubin and PTX live and
  /// `source` names the text in error messages.
  static Status parse(std::string_view text, const std::string &dir,
                      const std::string &source, Bundle &out);

  const Manifest &manifest() const { return data; }
  const std::string &directory() const { return dir; }
  /// The manifest's path (or the `source` given to parse()).
  const std::string &source() const { return sourceName; }
  std::string cubinPath() const;
  std::string ptxPath() const;
  /// Non-fatal findings, e.g. keys this runtime does not know.
  const std::vector<std::string> &warnings() const { return notes; }

  /// The sizes of a launch. For each of B, M, N, K the manifest's static
  /// size is used; a dynamic one is taken from `requested`. Fails when a
  /// dynamic size has no requested value (`requested` null), when a requested
  /// value disagrees with a static size, or when the argument shapes do not
  /// match the problem at these sizes.
  Status resolveSizes(const ProblemSizes *requested, ProblemSizes &out) const;

  /// Evaluates the three grid expressions for `sizes`; each must be >= 1.
  Status evalGrid(const ProblemSizes &sizes,
                  std::array<int64_t, 3> &grid) const;

  /// Checks that A, B, [bias], C have the shapes the problem implies at
  /// `sizes` (docs/BUNDLE.md "Argument ABI").
  Status checkArgShapes(const ProblemSizes &sizes) const;

  /// The index in manifest().args of the argument called `name`, or -1.
  int findArg(std::string_view name) const;

private:
  Manifest data;
  std::string dir;
  std::string sourceName;
  std::vector<std::string> notes;
};

//===----------------------------------------------------------------------===//
// Size expressions
//===----------------------------------------------------------------------===//

/// Evaluates an integer expression over B, M, N, K with + - * / and
/// parentheses, as used by the manifest's "grid". `/` is floor division.
/// Fails with the column of the problem on a syntax error, an unknown
/// symbol, division by zero or int64 overflow.
Status evalSizeExpr(std::string_view expr, const ProblemSizes &sizes,
                    int64_t &value);
/// Checks the syntax and symbols of `expr` without evaluating it.
Status checkSizeExpr(std::string_view expr);

//===----------------------------------------------------------------------===//
// Architecture compatibility
//===----------------------------------------------------------------------===//

/// A parsed "sm_XY[a|f]" architecture name.
struct ArchName {
  int major = 0, minor = 0;
  char suffix = 0; ///< 'a' (arch-specific), 'f' (family) or 0.

  static bool parse(std::string_view text, ArchName &out);
  /// "sm_" followed by major and minor (no suffix), e.g. "sm_90".
  std::string base() const;
};

/// Whether a cubin built for `arch` runs on a device of compute capability
/// `ccMajor.ccMinor`. Machine code runs only within its major version, on
/// the same or a later minor; "a" cubins only on exactly their version; "f"
/// cubins on later minors of the same major. The message says e.g.
/// "bundle built for sm_80, device is sm_90".
Status checkCubinCompatible(std::string_view arch, int ccMajor, int ccMinor);

/// Whether the driver can JIT-compile PTX written for `arch` on a device of
/// compute capability `ccMajor.ccMinor`: any later device, except that "a"
/// and "f" PTX only serves its own version / family.
bool isPtxCompatible(std::string_view arch, int ccMajor, int ccMinor);

//===----------------------------------------------------------------------===//
// Kernel parameters
//===----------------------------------------------------------------------===//

/// The parameters of one launch in MLIR's memref calling convention: per
/// memref of rank r, allocated pointer, aligned pointer, offset, r sizes and
/// r strides, all 8 bytes wide. Copyable; pointers() is rebuilt on demand so
/// that it always points into this object.
class KernelParams {
public:
  size_t size() const { return values.size(); }
  /// The raw 64-bit value of parameter `i` (a pointer or an i64).
  uint64_t value(size_t i) const { return values[i]; }
  void append(uint64_t v) { values.push_back(v); }
  /// The `void **` array that cuLaunchKernel takes.
  void **pointers();

private:
  std::vector<uint64_t> values;
  std::vector<void *> addresses;
};

/// Builds the parameters for `manifest.args` at `sizes`, with `buffers[i]`
/// the device pointer of argument i. Both pointers are that buffer, the
/// offset 0, the strides contiguous row-major.
Status buildKernelParams(const Manifest &manifest, const ProblemSizes &sizes,
                         const std::vector<CUdeviceptr> &buffers,
                         KernelParams &params);

//===----------------------------------------------------------------------===//
// Kernel (CUDA driver)
//===----------------------------------------------------------------------===//

/// What the driver reports about a loaded kernel function.
struct KernelAttributes {
  int numRegisters = 0;
  int staticSmemBytes = 0;
  int localBytesPerThread = 0; ///< Nonzero means register spills.
  int maxThreadsPerBlock = 0;  ///< Limited by the register count.
};

/// A bundle's kernel loaded into the current CUDA context.
class Kernel {
public:
  Kernel() = default;
  ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  Kernel(Kernel &&other) noexcept;
  Kernel &operator=(Kernel &&other) noexcept;

  /// Loads `bundle`'s cubin into the calling thread's current context (make
  /// one current first, e.g. with cudaSetDevice + cudaFree(0) or
  /// cuCtxSetCurrent). Checks the bundle's arch against the device; when the
  /// cubin cannot be used and the PTX can, JIT-compiles the PTX and records a
  /// warning. Raises the function's dynamic shared memory limit when the
  /// kernel needs more than the default 48 KiB.
  static Status load(const Bundle &bundle, Kernel &out);

  /// Launches on `stream` for `sizes`, with `buffers` in manifest argument
  /// order. Checks the grid against the device limits and the block against
  /// the function's limit first. Reports only launch errors; errors while the
  /// kernel runs surface at the next synchronization.
  Status launch(const ProblemSizes &sizes,
                const std::vector<CUdeviceptr> &buffers, CUstream stream) const;

  bool loaded() const { return module != nullptr; }
  bool loadedFromPtx() const { return fromPtx; }
  const KernelAttributes &attributes() const { return attrs; }
  /// Non-fatal findings while loading (PTX fallback, target mismatch).
  const std::vector<std::string> &warnings() const { return notes; }
  const Bundle &bundle() const { return source; }

private:
  void reset();

  Bundle source;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  bool fromPtx = false;
  KernelAttributes attrs;
  std::array<int64_t, 3> maxGrid = {0, 0, 0};
  std::vector<std::string> notes;
};

/// "<what> failed: CUDA_ERROR_X (description)" for a failed CUresult.
Status cudaDriverError(CUresult result, const std::string &what);

} // namespace amk::runtime

#endif // AMK_RUNTIME_BUNDLE_H
