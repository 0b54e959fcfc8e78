//===- Bench.h - amk-bench's cases, results and session ---------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// What one amk-bench case is (a GEMM bundle, of either manifest schema, at
// concrete sizes), what running it finds (correctness per trial, times), and
// the GPU state shared by all cases (stream, cuBLASLt, L2 flush buffer, the
// device's description, loaded bundles).
//
// How a case is judged (docs: ../shared/docs/TESTING.md 3(c), BENCH.md):
//   - fresh random inputs per trial, C poisoned with NaN before the launch
//     when beta = 0 (so an unwritten element is a NaN), guard bands around C
//     that must stay untouched;
//   - every element within |C - ref| <= 4 (u_in + sqrt(K) u_acc) (|A||B|)_ij
//     + u_out |ref| (plus alpha, beta, bias and activation terms: see
//     CheckParams in DeviceKernels.h); elements over it are
//     re-checked against the same bound with K for sqrt(K), and fail only if
//     over that too; NaN/Inf always fail;
//   - ||C - ref||_F / ||ref||_F <= 4 u_in + 2 u_out + (4 sqrt(K) + K/16) u_acc
//     (catches e.g. tf32 used where ieee fp32 was promised, which the
//     K-scaled elementwise bound alone lets through);
//   - a nonzero output when the reference is nonzero;
//   - the cuBLAS output must pass the same check, or the checker is suspect.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_BENCH_BENCH_H
#define AMK_BENCH_BENCH_H

#include "CublasReference.h"
#include "DeviceKernels.h"

#include "AMK/Runtime/Bundle.h"
#include "AMK/Runtime/DeviceInfo.h"
#include "AMK/Runtime/GemmProblem.h"
#include "AMK/Runtime/Json.h"
#include "AMK/Runtime/Launcher.h"
#include "AMK/Runtime/Status.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

/// Returns a failed Status from the enclosing function.
#define AMK_TRY(expr)                                                          \
  do {                                                                         \
    if (::amk::runtime::Status amkStatus = (expr); !amkStatus.ok())            \
      return amkStatus;                                                        \
  } while (false)

namespace amk::bench {

using runtime::Bundle;
using runtime::GemmProblem;
using runtime::JsonValue;
using runtime::Sizes;
using runtime::Status;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

struct Options {
  std::vector<std::string> manifests;
  std::vector<Sizes> sizes; ///< --sizes (B, M, N, K), in order given.
  std::string jsonPath;
  int iters = 100;
  int warmup = 10;
  int trials = 2;
  uint64_t seed = 1;
  double peakTflops = 0; ///< 0: from the device.
  size_t flushBytes = size_t(256) << 20;
  int device = 0;
  bool checkOnly = false;
  bool list = false;
  bool selfTest = false;
};

//===----------------------------------------------------------------------===//
// One GEMM at concrete sizes
//===----------------------------------------------------------------------===//

/// A GEMM problem with its sizes and operand layouts fixed: what the checker
/// and cuBLAS need, with or without a bundle.
struct GemmSpec {
  GemmProblem problem;
  GemmShape shape;
  ScalarType biasType = ScalarType::F32;
  /// The kernel's block tile M, N (0: the manifest does not say).
  int64_t tileM = 0, tileN = 0;

  /// The spec of GEMM bundle `bundle` at `sizes` (which resolveSizes
  /// accepted; sizes it lacks count as 0).
  static GemmSpec fromBundle(const Bundle &bundle, const Sizes &sizes);
  double flops() const;
  /// Bytes a kernel must move at least: A, B, bias, C (C twice if read).
  double minBytes() const;
};

/// The unit roundoffs of docs TESTING.md 3(c) and the Frobenius limit.
struct Tolerances {
  double uIn = 0, uAcc = 0, uOut = 0, outFloor = 0, frobLimit = 0;

  static Tolerances of(const GemmSpec &spec);
};

/// A cudaMalloc'ed buffer, freed on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  Status allocate(size_t bytes, const std::string &what);
  /// Frees the buffer (errors ignored: after a device reset the memory is
  /// already gone).
  void reset();
  void *get() const { return data; }
  size_t bytes() const { return size; }

private:
  void *data = nullptr;
  size_t size = 0;
};

/// The device memory of one GEMM: inputs, C with guard bands, the pre-launch
/// C (beta != 0), cuBLAS's C and the fp64 reference.
struct GemmBuffers {
  DeviceBuffer a, b, bias, c, cOld, cRef, z, absAB;
  size_t guardBytes = 0;

  Status allocate(const GemmSpec &spec, bool guards, bool withReference);
  void *cData() const { return static_cast<char *>(c.get()) + guardBytes; }
  size_t cBytes(const GemmSpec &spec) const;
};

/// The result of checking one output.
struct CheckResult {
  bool pass = false;
  CheckStats stats;
  double relFrob = 0, frobLimit = 0, outNorm = 0, refNorm = 0;
  bool guardChecked = false;
  unsigned long long guardBytesChanged = 0;
  ElementReport worst, firstBad;
  std::vector<std::string> failures;

  JsonValue toJson(const GemmShape &shape) const;
};

struct TimingStats {
  int iters = 0;
  double medianUs = 0, minUs = 0, meanUs = 0, maxUs = 0;

  static TimingStats of(std::vector<float> milliseconds);
  JsonValue toJson() const;
};

/// Everything one case produced.
struct CaseResult {
  std::string manifestPath, name, arch;
  GemmSpec spec;
  std::string status = "ERROR"; ///< PASS, FAIL or ERROR.
  std::string error;
  std::vector<std::string> reasons; ///< Why it failed.
  std::vector<std::string> warnings;
  bool stickyError = false; ///< The CUDA context is unusable afterwards.
  bool notRun = false;      ///< Skipped after another case's sticky error.
  bool hung = false;        ///< A launch never finished.

  /// Of the bundle's first kernel; localBytesPerThread is the most of any.
  runtime::KernelAttributes attrs;
  size_t kernels = 0;   ///< Kernels of the bundle.
  int variant = -1;     ///< The variant that ran (-1: none yet).
  bool fromPtx = false; ///< Any kernel loaded from its PTX.
  std::string cublasDescription;
  Tolerances tolerances;
  std::vector<CheckResult> amkTrials, cublasTrials;

  bool timed = false;
  int warmup = 0;
  size_t flushBytes = 0;
  TimingStats amkTime, cublasTime;
  double peakTflops = 0, hbmGbps = 0;
  std::string peakSource;
  /// The planner's prediction (manifest) for the kernels of the variant that
  /// ran, us.
  double predictedUs = 0;

  const CheckResult *worstAmk() const;
  const CheckResult *worstCublas() const;
  double amkTflops() const;
  double cublasTflops() const;
  double speed() const; ///< cuBLAS time / AMK time: > 1 means AMK faster.
  double rooflineUs() const;
  /// The evaluator cascade's verdict for a tuner: the stage reached
  /// (load, launch, check, time, done), a failure class and a detail.
  JsonValue traceJson() const;
  JsonValue toJson() const;
};

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

/// The GPU state shared by the cases. After a sticky error (e.g. an illegal
/// address) the process's CUDA context is unusable for good (CUDA offers no
/// recovery short of a new process), so amk-bench stops there.
class Session {
public:
  ~Session();
  Status init(const Options &options);

  cudaStream_t stream() const { return launchStream; }
  const CublasContext &cublas() const { return *cublasContext; }
  void *flushBuffer() const { return flush.get(); }
  void *scratch() const { return checkScratch.get(); }
  unsigned long long *counter() const {
    return static_cast<unsigned long long *>(counterBuffer.get());
  }
  /// The device benchmarks run on, as amk-device-info describes it (the
  /// sanity roofline's peaks); null when the driver could not say.
  const runtime::DeviceInfo *device() const {
    return haveDevice ? &deviceInfo : nullptr;
  }
  /// Why device() is null.
  const std::string &deviceError() const { return deviceQueryError; }
  /// The launcher of `bundle`, loaded once per session.
  Status launcherFor(const Bundle &bundle, runtime::BundleLauncher *&launcher);

private:
  cudaStream_t launchStream = nullptr;
  std::unique_ptr<CublasContext> cublasContext;
  DeviceBuffer flush, checkScratch, counterBuffer;
  runtime::DeviceInfo deviceInfo;
  bool haveDevice = false;
  std::string deviceQueryError;
  std::map<std::string, std::unique_ptr<runtime::BundleLauncher>> launchers;
};

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// "<call> failed: cudaErrorX (description)".
Status cudaStatus(cudaError_t err, const std::string &what);
/// Whether `err` leaves the context unusable.
bool isStickyError(cudaError_t err);

/// Fills the inputs (and the pre-launch C when beta != 0) from `seed` and
/// computes the fp64 reference.
Status prepareInputs(Session &session, const GemmSpec &spec,
                     GemmBuffers &buffers, uint64_t seed);
/// Fills C's guard bands and poisons C (NaN) or copies the pre-launch C.
Status prepareOutput(Session &session, const GemmSpec &spec,
                     const GemmBuffers &buffers, void *c, bool guards);
/// Checks output `c` against the reference in `buffers`.
Status checkResult(Session &session, const GemmSpec &spec,
                   const GemmBuffers &buffers, const void *c, bool guards,
                   CheckResult &result);

/// Runs one bundle at `sizes`: correctness trials, then timing.
CaseResult runCase(Session &session, const Options &options,
                   const Bundle &bundle, const Sizes &sizes, int caseIndex);

/// Built-in cases that test the checker and the cuBLAS mapping; returns the
/// number of unexpected outcomes.
int runSelfTest(Session &session, const Options &options);

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

/// "b,m,n" of a flat index into C.
std::string formatIndex(const GemmShape &shape, long long index);
/// One line per case while running.
void printCaseLine(const CaseResult &result, int index, int count);
/// The table of all cases.
void printTable(const std::vector<CaseResult> &results);
/// Prints the manifests (--list).
int listManifests(const Options &options);

} // namespace amk::bench

#endif // AMK_BENCH_BENCH_H
