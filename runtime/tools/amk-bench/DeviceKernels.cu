//===- DeviceKernels.cu - amk-bench's own GPU kernels ---------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Built with -fmad=false (see CMakeLists.txt): the check evaluates each
// element twice (once to find the largest error, once to find where it is)
// and must get bit-identical results both times, which contraction choices
// could break. The reference GEMM writes its fused multiply-adds explicitly.
//
//===----------------------------------------------------------------------===//

#include "DeviceKernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace amk::bench {

namespace {

//===----------------------------------------------------------------------===//
// Element access
//===----------------------------------------------------------------------===//

__device__ __forceinline__ double toDouble(float v) { return v; }
__device__ __forceinline__ double toDouble(__half v) { return __half2float(v); }
__device__ __forceinline__ double toDouble(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

/// Element `i` of an array of `type`, exactly (every type widens to double).
__device__ double loadAsDouble(const void *p, ScalarType type, int64_t i) {
  switch (type) {
  case ScalarType::F16:
    return toDouble(static_cast<const __half *>(p)[i]);
  case ScalarType::BF16:
    return toDouble(static_cast<const __nv_bfloat16 *>(p)[i]);
  case ScalarType::F32:
    return static_cast<const float *>(p)[i];
  case ScalarType::F64:
    return static_cast<const double *>(p)[i];
  case ScalarType::I32:
    return static_cast<const int *>(p)[i];
  }
  return 0;
}

/// Stores `v` into element `i`, rounding to nearest even.
__device__ void storeRounded(void *p, ScalarType type, int64_t i, double v) {
  switch (type) {
  case ScalarType::F16:
    static_cast<__half *>(p)[i] = __double2half(v);
    return;
  case ScalarType::BF16:
    static_cast<__nv_bfloat16 *>(p)[i] = __double2bfloat16(v);
    return;
  case ScalarType::F32:
    static_cast<float *>(p)[i] = __double2float_rn(v);
    return;
  case ScalarType::F64:
    static_cast<double *>(p)[i] = v;
    return;
  case ScalarType::I32:
    static_cast<int *>(p)[i] = __double2int_rn(v);
    return;
  }
}

/// A grid for a grid-stride loop over `count` elements.
unsigned gridFor(int64_t count, int threads) {
  int64_t blocks = (count + threads - 1) / threads;
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, 8192));
}

//===----------------------------------------------------------------------===//
// Fills
//===----------------------------------------------------------------------===//

/// SplitMix64's finalizer: a good 64-bit hash of a counter.
__device__ __forceinline__ uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

__global__ void fillUniformKernel(void *data, ScalarType type, int64_t count,
                                  uint64_t seed) {
  uint64_t key = mix(seed);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    uint64_t bits = mix(key + static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ULL);
    // 24 random bits -> a multiple of 2^-23 in [-1, 1), exact in fp32.
    double v = (static_cast<double>(bits >> 40) - 8388608.0) / 8388608.0;
    storeRounded(data, type, i, v);
  }
}

__global__ void fillNaNKernel(void *data, ScalarType type, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    switch (type) {
    case ScalarType::F16:
      static_cast<uint16_t *>(data)[i] = 0x7e00;
      break;
    case ScalarType::BF16:
      static_cast<uint16_t *>(data)[i] = 0x7fc0;
      break;
    case ScalarType::F32:
      static_cast<uint32_t *>(data)[i] = 0x7fc00000u;
      break;
    case ScalarType::F64:
      static_cast<uint64_t *>(data)[i] = 0x7ff8000000000000ULL;
      break;
    case ScalarType::I32: // no NaN: the most negative value
      static_cast<uint32_t *>(data)[i] = 0x80000000u;
      break;
    }
  }
}

__global__ void countBytesNotKernel(const uint8_t *data, size_t bytes,
                                    uint8_t pattern,
                                    unsigned long long *count) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < bytes;
       i += size_t(gridDim.x) * blockDim.x)
    mine += data[i] != pattern;
  for (int offset = 16; offset > 0; offset /= 2)
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if ((threadIdx.x & 31) == 0 && mine)
    atomicAdd(count, mine);
}

//===----------------------------------------------------------------------===//
// fp64 reference GEMM
//===----------------------------------------------------------------------===//

constexpr int kRefTileM = 64, kRefTileN = 64, kRefTileK = 16;
constexpr int kRefThreads = 256; // 16 x 16, each thread 4 x 4 outputs.

/// One 64x64 tile of z = op(A) op(B) and absAB = |op(A)| |op(B)| per block,
/// batch in grid z. Plain shared-memory tiling: correctness and clarity
/// matter here, not speed.
template <class T>
__global__ void __launch_bounds__(kRefThreads)
    referenceGemmKernel(const T *a, const T *b, GemmShape s, double *z,
                        double *absAB) {
  __shared__ double tileA[kRefTileK][kRefTileM + 1];
  __shared__ double tileB[kRefTileK][kRefTileN + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t m0 = int64_t(blockIdx.y) * kRefTileM;
  const int64_t n0 = int64_t(blockIdx.x) * kRefTileN;
  const T *batchA = a + int64_t(blockIdx.z) * s.m * s.k;
  const T *batchB = b + int64_t(blockIdx.z) * s.k * s.n;
  double acc[4][4] = {}, absAcc[4][4] = {};

  for (int64_t k0 = 0; k0 < s.k; k0 += kRefTileK) {
    for (int i = threadIdx.x; i < kRefTileM * kRefTileK; i += kRefThreads) {
      // Walk the contiguous dimension fastest for coalesced loads.
      int mm = s.transposeA ? i % kRefTileM : i / kRefTileK;
      int kk = s.transposeA ? i / kRefTileM : i % kRefTileK;
      int64_t m = m0 + mm, k = k0 + kk;
      double v = 0;
      if (m < s.m && k < s.k)
        v = toDouble(batchA[s.transposeA ? k * s.m + m : m * s.k + k]);
      tileA[kk][mm] = v;
    }
    for (int i = threadIdx.x; i < kRefTileN * kRefTileK; i += kRefThreads) {
      int nn = s.transposeB ? i / kRefTileK : i % kRefTileN;
      int kk = s.transposeB ? i % kRefTileK : i / kRefTileN;
      int64_t n = n0 + nn, k = k0 + kk;
      double v = 0;
      if (n < s.n && k < s.k)
        v = toDouble(batchB[s.transposeB ? n * s.k + k : k * s.n + n]);
      tileB[kk][nn] = v;
    }
    __syncthreads();
    for (int kk = 0; kk < kRefTileK; ++kk) {
      double av[4], bv[4];
      for (int i = 0; i < 4; ++i) {
        av[i] = tileA[kk][ty + 16 * i];
        bv[i] = tileB[kk][tx + 16 * i];
      }
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          acc[i][j] = fma(av[i], bv[j], acc[i][j]);
          absAcc[i][j] = fma(fabs(av[i]), fabs(bv[j]), absAcc[i][j]);
        }
    }
    __syncthreads();
  }

  int64_t batchOffset = int64_t(blockIdx.z) * s.m * s.n;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      int64_t m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m < s.m && n < s.n) {
        z[batchOffset + m * s.n + n] = acc[i][j];
        absAB[batchOffset + m * s.n + n] = absAcc[i][j];
      }
    }
}

//===----------------------------------------------------------------------===//
// Check
//===----------------------------------------------------------------------===//

/// The epilogue activation, in the precision of `T`: double for the
/// reference, float for finishing cuBLAS's output. GELU is the erf form.
template <typename T> __device__ T activate(T x, Activation activation) {
  switch (activation) {
  case Activation::None:
    return x;
  case Activation::ReLU:
    return x > T(0) ? x : T(0);
  case Activation::GELU:
    return T(0.5) * x * (T(1) + erf(x * T(M_SQRT1_2)));
  case Activation::SiLU:
    return x / (T(1) + exp(-x));
  }
  return x;
}

/// Max |act'|: how much an activation can magnify an error before it.
__device__ double lipschitz(Activation activation) {
  switch (activation) {
  case Activation::GELU:
    return 1.13; // max gelu' = 1.1289 at x = 2.42
  case Activation::SiLU:
    return 1.10; // max silu' = 1.0998 at x = 2.40
  default:
    return 1.0;
  }
}

struct Evaluation {
  double value, ref, err, tolSqrtK, tolK;
  bool finite;
};

/// Evaluates element `i` of `c`; the formula is documented at CheckParams.
__device__ Evaluation evaluate(const void *c, int64_t i, const GemmShape &s,
                               const double *z, const double *absAB,
                               const CheckParams &p) {
  Evaluation e;
  e.value = loadAsDouble(c, p.outType, i);
  e.finite = isfinite(e.value);
  double zi = z[i];
  double cOld = p.cOld ? loadAsDouble(p.cOld, p.outType, i) : 0.0;
  double bias = 0;
  if (p.bias) {
    int64_t n = i % s.n, batch = i / (s.m * s.n);
    bias =
        loadAsDouble(p.bias, p.biasType, s.biasPerBatch ? batch * s.n + n : n);
  }
  double pre = p.alpha * zi + p.beta * cOld + bias;
  e.ref = activate<double>(pre, p.activation);
  // The epilogue may round its partial sums to the output type (cuBLASLt's
  // fused bias/beta epilogue does for 16-bit C), which matters when the
  // terms cancel.
  double epilogue = 0;
  if (p.cOld || p.bias)
    epilogue = 2 * fmax(p.uAcc, p.uOut) *
               (fabs(p.alpha * zi) + fabs(p.beta * cOld) + fabs(bias));
  double scaled = fabs(p.alpha) * 4 * absAB[i];
  double lip = lipschitz(p.activation);
  double out = p.uOut * fabs(e.ref) + p.outFloor;
  double k = static_cast<double>(p.k);
  e.tolSqrtK = lip * (scaled * (p.uIn + sqrt(k) * p.uAcc) + epilogue) + out;
  e.tolK = lip * (scaled * (p.uIn + k * p.uAcc) + epilogue) + out;
  e.err = fabs(e.value - e.ref);
  return e;
}

/// Device-side accumulators of one check. Maxima of non-negative doubles are
/// kept as their bit patterns, which order the same way as the values.
struct CheckAccum {
  unsigned long long elements, nonfinite, overSqrtK, overK, badEdge;
  unsigned long long maxErrBits, maxRatioBits;
  unsigned long long firstBad, worst; // ~0 when none.
  double sumSqErr, sumSqRef, sumSqOut;
  ElementReport report;
};

template <class T> __device__ T warpSum(T v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

template <class T> __device__ T warpMax(T v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v = max(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

template <class T> __device__ T warpMin(T v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v = min(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

__global__ void checkKernel(const void *c, GemmShape s, int64_t count,
                            const double *z, const double *absAB, CheckParams p,
                            CheckAccum *acc) {
  unsigned long long elements = 0, nonfinite = 0, overSqrtK = 0, overK = 0;
  unsigned long long badEdge = 0;
  unsigned long long maxErr = 0, maxRatio = 0, firstBad = ~0ULL;
  // Rows and columns from here on lie in a partial tile.
  int64_t fullRows =
      p.tileM > 0 && s.m % p.tileM ? s.m / p.tileM * p.tileM : s.m;
  int64_t fullCols =
      p.tileN > 0 && s.n % p.tileN ? s.n / p.tileN * p.tileN : s.n;
  double sumSqErr = 0, sumSqRef = 0, sumSqOut = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    Evaluation e = evaluate(c, i, s, z, absAB, p);
    ++elements;
    sumSqRef += e.ref * e.ref;
    bool bad = !e.finite || e.err > e.tolK;
    if (!e.finite) {
      ++nonfinite;
    } else {
      sumSqErr += e.err * e.err;
      sumSqOut += e.value * e.value;
      overSqrtK += e.err > e.tolSqrtK;
      maxErr = max(maxErr, (unsigned long long)__double_as_longlong(e.err));
      maxRatio =
          max(maxRatio,
              (unsigned long long)__double_as_longlong(e.err / e.tolSqrtK));
    }
    overK += bad && e.finite;
    if (bad) {
      firstBad = min(firstBad, static_cast<unsigned long long>(i));
      badEdge += (i / s.n) % s.m >= fullRows || i % s.n >= fullCols;
    }
  }
  elements = warpSum(elements);
  nonfinite = warpSum(nonfinite);
  overSqrtK = warpSum(overSqrtK);
  overK = warpSum(overK);
  badEdge = warpSum(badEdge);
  maxErr = warpMax(maxErr);
  maxRatio = warpMax(maxRatio);
  firstBad = warpMin(firstBad);
  sumSqErr = warpSum(sumSqErr);
  sumSqRef = warpSum(sumSqRef);
  sumSqOut = warpSum(sumSqOut);
  if ((threadIdx.x & 31) != 0)
    return;
  atomicAdd(&acc->elements, elements);
  atomicAdd(&acc->nonfinite, nonfinite);
  atomicAdd(&acc->overSqrtK, overSqrtK);
  atomicAdd(&acc->overK, overK);
  atomicAdd(&acc->badEdge, badEdge);
  atomicMax(&acc->maxErrBits, maxErr);
  atomicMax(&acc->maxRatioBits, maxRatio);
  atomicMin(&acc->firstBad, firstBad);
  atomicAdd(&acc->sumSqErr, sumSqErr);
  atomicAdd(&acc->sumSqRef, sumSqRef);
  atomicAdd(&acc->sumSqOut, sumSqOut);
}

/// Finds the first element whose error ratio is the maximum found.
__global__ void locateWorstKernel(const void *c, GemmShape s, int64_t count,
                                  const double *z, const double *absAB,
                                  CheckParams p, CheckAccum *acc) {
  const unsigned long long target = acc->maxRatioBits;
  unsigned long long found = ~0ULL;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    Evaluation e = evaluate(c, i, s, z, absAB, p);
    if (e.finite &&
        (unsigned long long)__double_as_longlong(e.err / e.tolSqrtK) == target)
      found = min(found, static_cast<unsigned long long>(i));
  }
  found = warpMin(found);
  if ((threadIdx.x & 31) == 0 && found != ~0ULL)
    atomicMin(&acc->worst, found);
}

__global__ void describeKernel(const void *c, GemmShape s, const double *z,
                               const double *absAB, CheckParams p,
                               long long index, CheckAccum *acc) {
  Evaluation e = evaluate(c, index, s, z, absAB, p);
  acc->report = {index, e.value, e.ref, e.err, e.tolSqrtK, e.tolK};
}

//===----------------------------------------------------------------------===//
// Epilogue for cuBLAS
//===----------------------------------------------------------------------===//

__global__ void epilogueKernel(const float *d, void *c, ScalarType outType,
                               GemmShape s, int64_t count, float beta,
                               const void *bias, ScalarType biasType,
                               Activation activation) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    float v = d[i];
    if (beta != 0)
      v += beta * static_cast<float>(loadAsDouble(c, outType, i));
    if (bias) {
      int64_t n = i % s.n, batch = i / (s.m * s.n);
      v += static_cast<float>(
          loadAsDouble(bias, biasType, s.biasPerBatch ? batch * s.n + n : n));
    }
    storeRounded(c, outType, i, activate<float>(v, activation));
  }
}

__global__ void perturbKernel(void *c, ScalarType type, long long index,
                              double delta) {
  storeRounded(c, type, index, loadAsDouble(c, type, index) + delta);
}

} // namespace

//===----------------------------------------------------------------------===//
// Host entry points
//===----------------------------------------------------------------------===//

void fillUniform(void *data, ScalarType type, int64_t count, uint64_t seed,
                 cudaStream_t stream) {
  fillUniformKernel<<<gridFor(count, 256), 256, 0, stream>>>(data, type, count,
                                                             seed);
}

void fillNaN(void *data, ScalarType type, int64_t count, cudaStream_t stream) {
  fillNaNKernel<<<gridFor(count, 256), 256, 0, stream>>>(data, type, count);
}

cudaError_t countBytesNot(const void *data, size_t bytes, uint8_t pattern,
                          unsigned long long *deviceCount,
                          cudaStream_t stream) {
  cudaError_t err =
      cudaMemsetAsync(deviceCount, 0, sizeof(*deviceCount), stream);
  if (err != cudaSuccess || bytes == 0)
    return err;
  countBytesNotKernel<<<gridFor(static_cast<int64_t>(bytes), 256), 256, 0,
                        stream>>>(static_cast<const uint8_t *>(data), bytes,
                                  pattern, deviceCount);
  return cudaGetLastError();
}

cudaError_t referenceGemm(const void *a, const void *b, ScalarType inType,
                          const GemmShape &shape, double *z, double *absAB,
                          cudaStream_t stream) {
  int64_t gridY = (shape.m + kRefTileM - 1) / kRefTileM;
  if (gridY > 65535 || shape.batch > 65535)
    return cudaErrorInvalidConfiguration;
  dim3 grid(static_cast<unsigned>((shape.n + kRefTileN - 1) / kRefTileN),
            static_cast<unsigned>(gridY), static_cast<unsigned>(shape.batch));
  switch (inType) {
  case ScalarType::F16:
    referenceGemmKernel<<<grid, kRefThreads, 0, stream>>>(
        static_cast<const __half *>(a), static_cast<const __half *>(b), shape,
        z, absAB);
    break;
  case ScalarType::BF16:
    referenceGemmKernel<<<grid, kRefThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16 *>(a),
        static_cast<const __nv_bfloat16 *>(b), shape, z, absAB);
    break;
  case ScalarType::F32:
    referenceGemmKernel<<<grid, kRefThreads, 0, stream>>>(
        static_cast<const float *>(a), static_cast<const float *>(b), shape, z,
        absAB);
    break;
  case ScalarType::F64:
  case ScalarType::I32:
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

size_t checkScratchBytes() { return sizeof(CheckAccum); }

cudaError_t checkOutput(const void *c, const GemmShape &shape, const double *z,
                        const double *absAB, const CheckParams &params,
                        void *scratch, cudaStream_t stream, CheckStats &stats) {
  CheckAccum init = {};
  init.firstBad = init.worst = ~0ULL;
  auto *acc = static_cast<CheckAccum *>(scratch);
  cudaError_t err =
      cudaMemcpyAsync(acc, &init, sizeof(init), cudaMemcpyHostToDevice, stream);
  if (err != cudaSuccess)
    return err;
  unsigned grid = gridFor(shape.sizeC(), 256);
  checkKernel<<<grid, 256, 0, stream>>>(c, shape, shape.sizeC(), z, absAB,
                                        params, acc);
  locateWorstKernel<<<grid, 256, 0, stream>>>(c, shape, shape.sizeC(), z, absAB,
                                              params, acc);
  CheckAccum result;
  if ((err = cudaGetLastError()) != cudaSuccess ||
      (err = cudaMemcpyAsync(&result, acc, sizeof(result),
                             cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
      (err = cudaStreamSynchronize(stream)) != cudaSuccess)
    return err;
  stats = CheckStats();
  stats.elements = result.elements;
  stats.nonfinite = result.nonfinite;
  stats.overSqrtK = result.overSqrtK;
  stats.overK = result.overK;
  stats.badInPartialTiles = result.badEdge;
  std::memcpy(&stats.maxAbsErr, &result.maxErrBits, sizeof(double));
  std::memcpy(&stats.maxErrOverTol, &result.maxRatioBits, sizeof(double));
  stats.sumSqErr = result.sumSqErr;
  stats.sumSqRef = result.sumSqRef;
  stats.sumSqOut = result.sumSqOut;
  stats.worstIndex = result.worst == ~0ULL ? -1 : (long long)result.worst;
  stats.firstBadIndex =
      result.firstBad == ~0ULL ? -1 : (long long)result.firstBad;
  return cudaSuccess;
}

cudaError_t describeElement(const void *c, const GemmShape &shape,
                            const double *z, const double *absAB,
                            const CheckParams &params, long long index,
                            void *scratch, cudaStream_t stream,
                            ElementReport &report) {
  auto *acc = static_cast<CheckAccum *>(scratch);
  describeKernel<<<1, 1, 0, stream>>>(c, shape, z, absAB, params, index, acc);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(&report, &acc->report, sizeof(report),
                          cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(stream);
  return err;
}

cudaError_t applyEpilogue(const float *d, void *c, ScalarType outType,
                          const GemmShape &shape, double beta, const void *bias,
                          ScalarType biasType, Activation activation,
                          cudaStream_t stream) {
  epilogueKernel<<<gridFor(shape.sizeC(), 256), 256, 0, stream>>>(
      d, c, outType, shape, shape.sizeC(), static_cast<float>(beta), bias,
      biasType, activation);
  return cudaGetLastError();
}

cudaError_t perturbElement(void *c, ScalarType type, long long index,
                           double delta, cudaStream_t stream) {
  perturbKernel<<<1, 1, 0, stream>>>(c, type, index, delta);
  return cudaGetLastError();
}

} // namespace amk::bench
