//===- TestKernels.cu - Hand-written bundle kernels for amk-bench tests ---===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Naive GEMM kernels with MLIR's memref calling convention, compiled to
// cubins and wrapped in manifests (Inputs/*.json.in) so that amk-bench can be
// tested end to end on a GPU without MLIR: correct kernels must PASS, kernels
// with planted bugs must FAIL (or ERROR), each for the reason planted.
//
// Every kernel takes rank-3 memrefs A [B][M][K] (or [B][K][M]),
// B [B][K][N] (or [B][N][K]), optionally bias [N], and C [B][M][N]: per
// memref, allocated and aligned pointers, offset, 3 sizes, 3 strides. One
// thread computes one element of C; grid x covers M*N, grid z the batch.
//
//===----------------------------------------------------------------------===//

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace {

__device__ float load(const float *p, int64_t i) { return p[i]; }
__device__ float load(const __half *p, int64_t i) { return __half2float(p[i]); }
__device__ float load(const __nv_bfloat16 *p, int64_t i) {
  return __bfloat162float(p[i]);
}
__device__ void store(float *p, int64_t i, float v) { p[i] = v; }
__device__ void store(__half *p, int64_t i, float v) {
  p[i] = __float2half_rn(v);
}
__device__ void store(__nv_bfloat16 *p, int64_t i, float v) {
  p[i] = __float2bfloat16_rn(v);
}

/// Rounds to tf32 (10 mantissa bits), as a tensor core would read it.
__device__ float toTf32(float v) {
  uint32_t bits = __float_as_uint(v);
  bits = (bits + 0x1000u) & 0xffffe000u;
  return __uint_as_float(bits);
}

enum Bug {
  kNone,
  kDropKTail,    ///< Skips the last K % 16 products.
  kSkipLastRow,  ///< Never writes row M-1.
  kTf32Inputs,   ///< Rounds fp32 inputs to tf32 (the manifest says ieee).
  kOobWrite,     ///< Also writes one element past the end of C.
  kIllegalWrite, ///< Writes through a null pointer.
};

enum Act { kActNone, kActRelu, kActGelu, kActSilu };

struct Epilogue {
  float alpha, beta;
  Act act;
};

__device__ float activate(float x, Act act) {
  switch (act) {
  case kActRelu:
    return x > 0 ? x : 0;
  case kActGelu:
    return 0.5f * x * (1.0f + erff(x * 0.70710678118f));
  case kActSilu:
    return x / (1.0f + expf(-x));
  default:
    return x;
  }
}

/// The body shared by all kernels. `smem` is the dynamic shared memory the
/// manifest asks for; touching its last byte makes a launch without enough
/// of it fail, which tests the runtime's MAX_DYNAMIC_SHARED_SIZE_BYTES.
template <class TIn, class TOut, bool TA, bool TB, Bug bug>
__device__ void gemm(const TIn *a, const TIn *b, const TOut *bias, TOut *c,
                     int64_t batch, int64_t m, int64_t n, int64_t k, Epilogue e,
                     int64_t smemBytes) {
  extern __shared__ unsigned char smem[];
  if (smemBytes > 0) {
    smem[smemBytes - 1 - threadIdx.x] = 1; // One byte per thread: no race.
    __syncthreads();
  }
  int64_t index = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  int64_t z = blockIdx.z;
  if (index >= m * n || z >= batch)
    return;
  int64_t row = index / n, col = index % n;
  if (bug == kSkipLastRow && row == m - 1)
    return;
  const TIn *ab = a + z * m * k, *bb = b + z * k * n;
  int64_t kEnd = bug == kDropKTail ? k - k % 16 : k;
  float acc = 0;
  for (int64_t kk = 0; kk < kEnd; ++kk) {
    float av = load(ab, TA ? kk * m + row : row * k + kk);
    float bv = load(bb, TB ? col * k + kk : kk * n + col);
    if (bug == kTf32Inputs) {
      av = toTf32(av);
      bv = toTf32(bv);
    }
    acc = fmaf(av, bv, acc);
  }
  int64_t out = z * m * n + index;
  float v = e.alpha * acc;
  if (e.beta != 0)
    v += e.beta * load(c, out);
  if (bias)
    v += load(bias, col);
  store(c, out, activate(v, e.act));
  if (bug == kOobWrite && index == m * n - 1 && z == batch - 1)
    store(c, out + 1, 0.0f);
  // Through a volatile pointer made from an integer, so that the compiler
  // cannot treat the store as undefined and drop it.
  if (bug == kIllegalWrite && index == 0)
    *reinterpret_cast<volatile float *>(static_cast<uintptr_t>(0x100)) = 1;
}

} // namespace

// The memref ABI: (allocated, aligned, offset, sizes..., strides...).
#define MEMREF3(T, name)                                                       \
  T *name##Alloc, T *name, int64_t name##Off, int64_t name##S0,                \
      int64_t name##S1, int64_t name##S2, int64_t name##T0, int64_t name##T1,  \
      int64_t name##T2
#define MEMREF1(T, name)                                                       \
  T *name##Alloc, T *name, int64_t name##Off, int64_t name##S0, int64_t name##T0

// K is the contiguous dimension of A unless A is transposed.
#define K_OF(TA) ((TA) ? AS1 : AS2)

#define DEFINE_KERNEL(NAME, TIN, TOUT, TA, TB, BUG, ALPHA, BETA, ACT, SMEM)    \
  extern "C" __global__ void NAME(MEMREF3(const TIN, A),                       \
                                  MEMREF3(const TIN, B), MEMREF3(TOUT, C)) {   \
    gemm<TIN, TOUT, TA, TB, BUG>(A, B, nullptr, C, CS0, CS1, CS2, K_OF(TA),    \
                                 Epilogue{ALPHA, BETA, ACT}, SMEM);            \
  }

#define DEFINE_BIAS_KERNEL(NAME, TIN, TOUT, TA, TB, BUG, ALPHA, BETA, ACT)     \
  extern "C" __global__ void NAME(                                             \
      MEMREF3(const TIN, A), MEMREF3(const TIN, B), MEMREF1(const TOUT, bias), \
      MEMREF3(TOUT, C)) {                                                      \
    gemm<TIN, TOUT, TA, TB, BUG>(A, B, bias, C, CS0, CS1, CS2, K_OF(TA),       \
                                 Epilogue{ALPHA, BETA, ACT}, 0);               \
  }

// Correct kernels.
DEFINE_KERNEL(t_f32_nn, float, float, false, false, kNone, 1.0f, 0.0f, kActNone,
              65536)
DEFINE_KERNEL(t_f32_tn_beta, float, float, true, false, kNone, 0.5f, 0.75f,
              kActNone, 0)
DEFINE_BIAS_KERNEL(t_bf16_nt_bias_gelu, __nv_bfloat16, __nv_bfloat16, false,
                   true, kNone, 1.0f, 0.0f, kActGelu)
DEFINE_BIAS_KERNEL(t_f16_tt_bias_silu, __half, float, true, true, kNone, 1.0f,
                   0.0f, kActSilu)
DEFINE_KERNEL(t_f16_nn, __half, __half, false, false, kNone, 1.0f, 0.0f,
              kActNone, 0)
DEFINE_BIAS_KERNEL(t_bf16_nn_bias_relu, __nv_bfloat16, float, false, false,
                   kNone, 1.0f, 0.0f, kActRelu)

// Planted bugs.
DEFINE_KERNEL(t_f32_drop_ktail, float, float, false, false, kDropKTail, 1.0f,
              0.0f, kActNone, 0)
DEFINE_KERNEL(t_f32_skip_last_row, float, float, false, false, kSkipLastRow,
              1.0f, 0.0f, kActNone, 0)
DEFINE_KERNEL(t_f32_tf32_as_ieee, float, float, false, false, kTf32Inputs, 1.0f,
              0.0f, kActNone, 0)
DEFINE_KERNEL(t_f32_oob_write, float, float, false, false, kOobWrite, 1.0f,
              0.0f, kActNone, 0)
DEFINE_KERNEL(t_f32_illegal_write, float, float, false, false, kIllegalWrite,
              1.0f, 0.0f, kActNone, 0)

// The second kernel of the schema-2 test bundle (staged-v2.json.in): copies
// the GEMM's result from the workspace into C.
extern "C" __global__ void t_copy_f32(MEMREF3(const float, S),
                                      MEMREF3(float, D)) {
  int64_t index = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (index < DS0 * DS1 * DS2)
    D[index] = S[index];
}

// The second kernel of the cooperative test bundle (cooperative-v2.json.in):
// the copy into C through a grid barrier on a zeroed counter. Phase one
// doubles the workspace in place, each block its own chunk; phase two
// halves it into C, each block the chunk of the block mirrored across the
// grid. Without every block resident (a cooperative launch) the barrier
// hangs; without the counter zeroed it lets blocks through early, and C
// gets undoubled or twice-doubled values. (The counter is a 4-byte f32
// workspace buffer to the manifest, which has no integer element types.)
extern "C" __global__ void t_coop_copy_f32(MEMREF3(float, S),
                                           MEMREF3(float, D),
                                           MEMREF1(unsigned, Counter)) {
  int64_t total = DS0 * DS1 * DS2;
  int64_t blocks = gridDim.x, chunk = (total + blocks - 1) / blocks;
  auto run = [&](int64_t block, auto &&body) {
    for (int64_t i = block * chunk + threadIdx.x;
         i < (block + 1) * chunk && i < total; i += blockDim.x)
      body(i);
  };
  run(blockIdx.x, [&](int64_t i) { S[i] *= 2; });
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(Counter, 1u);
    while (atomicAdd(Counter, 0u) < gridDim.x) {
    }
    __threadfence();
  }
  __syncthreads();
  run(blocks - 1 - blockIdx.x, [&](int64_t i) { D[i] = S[i] / 2; });
}

// A static problem with rank-2 memrefs (batch 1, no leading B).
#define MEMREF2(T, name)                                                       \
  T *name##Alloc, T *name, int64_t name##Off, int64_t name##S0,                \
      int64_t name##S1, int64_t name##T0, int64_t name##T1
extern "C" __global__ void t_bf16_static_nn(MEMREF2(const __nv_bfloat16, A),
                                            MEMREF2(const __nv_bfloat16, B),
                                            MEMREF2(__nv_bfloat16, C)) {
  gemm<__nv_bfloat16, __nv_bfloat16, false, false, kNone>(
      A, B, nullptr, C, 1, CS0, CS1, AS1, Epilogue{1.0f, 0.0f, kActNone}, 0);
}
