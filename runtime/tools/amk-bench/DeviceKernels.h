//===- DeviceKernels.h - amk-bench's own GPU kernels ------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The GPU work amk-bench does around the kernel under test: random inputs,
// NaN poison, an fp64 reference GEMM, the elementwise correctness check, and
// the epilogue that completes cuBLAS's output when cuBLAS has no fused form.
// Plain C++ declarations, so host-only files can call them.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_BENCH_DEVICEKERNELS_H
#define AMK_BENCH_DEVICEKERNELS_H

#include "AMK/Runtime/GemmProblem.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace amk::bench {

using runtime::Activation;
using runtime::ScalarType;

/// A (possibly batched) row-major GEMM as laid out in memory:
/// A is [B][M][K] ([B][K][M] transposed), B is [B][K][N] ([B][N][K]
/// transposed), C is [B][M][N], bias is [N] or [B][N].
struct GemmShape {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool transposeA = false, transposeB = false;
  bool biasPerBatch = false;

  int64_t sizeA() const { return batch * m * k; }
  int64_t sizeB() const { return batch * k * n; }
  int64_t sizeC() const { return batch * m * n; }
  int64_t sizeBias() const { return biasPerBatch ? batch * n : n; }
};

/// Fills `count` elements with values uniform in [-1, 1), a counter-based
/// hash of (seed, index) rounded to `type`: the same seed gives the same
/// values, a different seed unrelated ones.
void fillUniform(void *data, ScalarType type, int64_t count, uint64_t seed,
                 cudaStream_t stream);

/// Fills `count` elements with a quiet NaN of `type`.
void fillNaN(void *data, ScalarType type, int64_t count, cudaStream_t stream);

/// Counts the bytes in [data, data + bytes) that differ from `pattern`
/// (used to find writes into the guard bands around an output).
cudaError_t countBytesNot(const void *data, size_t bytes, uint8_t pattern,
                          unsigned long long *deviceCount, cudaStream_t stream);

/// z = op(A) op(B) and absAB = |op(A)| |op(B)| in fp64 (both [B][M][N]),
/// reading A and B in their storage type `inType`.
cudaError_t referenceGemm(const void *a, const void *b, ScalarType inType,
                          const GemmShape &shape, double *z, double *absAB,
                          cudaStream_t stream);

/// The epilogue and tolerance of one check. The reference is
///   ref = act(alpha * z + beta * cOld + bias[n])
/// and an element passes when
///   |C - ref| <= L * (|alpha| * 4 * (uIn + f(K) * uAcc) * absAB + e) +
///                uOut * |ref| + outFloor
/// with f(K) = sqrt(K) for the primary bound and K for the re-check
/// (docs TESTING.md 3(c)); L is the activation's Lipschitz bound (1 for
/// none/relu, 1.13 for gelu, 1.10 for silu) and
/// e = 2 * max(uAcc, uOut) * (|alpha z| + |beta cOld| + |bias|) the rounding
/// of the epilogue, which may round partial sums to the output type as
/// cuBLASLt's fused epilogue does (0 without beta and bias). outFloor is half
/// the smallest subnormal of the output type, for results that round into the
/// subnormal range.
struct CheckParams {
  double alpha = 1.0, beta = 0.0;
  Activation activation = Activation::None;
  const void *cOld = nullptr; ///< C before the launch, when beta != 0.
  const void *bias = nullptr; ///< Null without bias.
  ScalarType outType = ScalarType::F32;
  ScalarType biasType = ScalarType::F32;
  double uIn = 0, uAcc = 0, uOut = 0, outFloor = 0;
  int64_t k = 1;
  /// The kernel's block tile (0: unknown): failures are also counted on the
  /// last, partial tile row and column, to tell edge bugs from others.
  int64_t tileM = 0, tileN = 0;
};

/// What the check of one output found.
struct CheckStats {
  unsigned long long elements = 0;
  unsigned long long nonfinite = 0; ///< NaN or Inf: never passes.
  unsigned long long overSqrtK = 0; ///< Over the sqrt(K) bound.
  unsigned long long overK = 0;     ///< Over the K bound too: failures.
  double maxAbsErr = 0;
  double maxErrOverTol = 0; ///< Max |C - ref| / sqrt(K) bound.
  double sumSqErr = 0, sumSqRef = 0, sumSqOut = 0;
  /// Failures (nonfinite or over the K bound) in a partial tile: a row at
  /// or past the last multiple of tileM, or such a column.
  unsigned long long badInPartialTiles = 0;
  long long worstIndex = -1;    ///< Element with maxErrOverTol.
  long long firstBadIndex = -1; ///< First failing element, if any.
};

/// One element, described for a failure report.
struct ElementReport {
  long long index = -1;
  double value = 0, ref = 0, err = 0, tolSqrtK = 0, tolK = 0;
};

/// Checks `c` ([B][M][N] of params.outType) against the fp64 reference.
/// `scratch` is device memory from allocCheckScratch(). Synchronizes
/// `stream`.
cudaError_t checkOutput(const void *c, const GemmShape &shape, const double *z,
                        const double *absAB, const CheckParams &params,
                        void *scratch, cudaStream_t stream, CheckStats &stats);

/// Evaluates element `index` of `c` the way checkOutput does.
cudaError_t describeElement(const void *c, const GemmShape &shape,
                            const double *z, const double *absAB,
                            const CheckParams &params, long long index,
                            void *scratch, cudaStream_t stream,
                            ElementReport &report);

/// Device memory checkOutput and describeElement need.
size_t checkScratchBytes();

/// c = act(d + beta * c + bias[n]) in fp32, rounded to `outType`: the
/// epilogue for a cuBLAS GEMM written to the fp32 buffer `d` (alpha already
/// applied), for epilogues cuBLASLt cannot fuse (gelu in the erf form, silu).
cudaError_t applyEpilogue(const float *d, void *c, ScalarType outType,
                          const GemmShape &shape, double beta, const void *bias,
                          ScalarType biasType, Activation activation,
                          cudaStream_t stream);

/// Adds `delta` to element `index` of `c` (self-test: a planted error).
cudaError_t perturbElement(void *c, ScalarType type, long long index,
                           double delta, cudaStream_t stream);

} // namespace amk::bench

#endif // AMK_BENCH_DEVICEKERNELS_H
