// Probe for the megakernel's M = 16 product body (issue 18): y = x W^T,
// x [16, K] and W [N, K] bf16, m16n8k16 with x as A and 8 weight rows as
// B. Two ways to load W:
//  - tiles: lane (g, q) loads 16 bytes of row g at columns 8q + 32c (the
//    mma body's pattern today: a warp instruction spans 8 rows, 64 B each);
//  - rowsT: each warp instruction reads 512 contiguous bytes of one row
//    (lane l at columns 8l), then an 8 x 8 transpose of 16-byte blocks
//    over the lanes' bits 2-4 (three xor-shuffle stages) leaves lane (g, q)
//    row g at columns 8(4j + q), j < 8: the mma's fragments, in a K order
//    that x's fragments follow.
// Both checked against a plain reference, timed after an L2 flush.
// nvcc -O3 -arch=sm_90a gemv16.cu
#include <cuda_bf16.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

__device__ __forceinline__ void mma(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                    uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint4 shflXor(uint4 v, int mask) {
  v.x = __shfl_xor_sync(~0u, v.x, mask);
  v.y = __shfl_xor_sync(~0u, v.y, mask);
  v.z = __shfl_xor_sync(~0u, v.z, mask);
  v.w = __shfl_xor_sync(~0u, v.w, mask);
  return v;
}

// The fragments of one 16-byte block of W (row g, 8 columns from `col`)
// against x's rows g and g + 8 at the same columns: two k16 steps.
__device__ __forceinline__ void foldBlock(float (&c)[4], uint4 w, const uint4 *x, int K8, int g, int col8) {
  uint4 lo = x[g * K8 + col8], hi = x[(g + 8) * K8 + col8];
  mma(c, lo.x, hi.x, lo.y, hi.y, w.x, w.y);
  mma(c, lo.z, hi.z, lo.w, hi.w, w.z, w.w);
}

// TRANSPOSE = 0: the tiles pattern; 1: rowsT; 2: rowsT's loads without the
// shuffles (wrong result, shows their cost).
template <int TRANSPOSE, int U>
__global__ void gemv16(const uint4 *__restrict__ W, const uint4 *__restrict__ x, float *__restrict__ y, int N,
                       int K) {
  int warps = gridDim.x * blockDim.x / 32;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  int g = lane / 4, q = lane % 4, K8 = K / 8;
  for (int tile = warp; tile < N / 8; tile += warps) {
    float c[4] = {0, 0, 0, 0};
    const uint4 *rows = W + (size_t)tile * 8 * K8;
    if (TRANSPOSE == 0) {
      // U 16-byte loads per lane in flight, each a 32-column chunk.
      for (int k = 0; k < K8; k += 4 * U) {
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = rows[(size_t)g * K8 + k + 4 * u + q];
#pragma unroll
        for (int u = 0; u < U; ++u) foldBlock(c, v[u], x, K8, g, k + 4 * u + q);
      }
    } else {
      // U chunks of 256 columns, 8 loads each.
      for (int k = 0; k < K8; k += 32 * U) {
        uint4 v[U][8];
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int r = 0; r < 8; ++r) v[u][r] = rows[(size_t)r * K8 + k + 32 * u + lane];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if (TRANSPOSE == 1) {
#pragma unroll
            for (int m = 1; m < 8; m *= 2) {
              bool upper = g & m;
#pragma unroll
              for (int r = 0; r < 8; ++r) {
                if (r & m) continue;
                uint4 send = upper ? v[u][r] : v[u][r | m];
                uint4 got = shflXor(send, 4 * m);
                if (upper)
                  v[u][r] = got;
                else
                  v[u][r | m] = got;
              }
            }
          }
#pragma unroll
          for (int j = 0; j < 8; ++j) foldBlock(c, v[u][j], x, K8, g, k + 32 * u + 4 * j + q);
        }
      }
    }
    // c0, c1: token g, weight rows 2q, 2q + 1; c2, c3: token g + 8.
    int n = tile * 8 + 2 * q;
    y[g * N + n] = c[0];
    y[g * N + n + 1] = c[1];
    y[(g + 8) * N + n] = c[2];
    y[(g + 8) * N + n + 1] = c[3];
  }
}

__global__ void reference(const __nv_bfloat16 *W, const __nv_bfloat16 *x, float *y, int N, int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  for (int m = 0; m < 16; ++m) {
    float s = 0;
    for (int k = 0; k < K; ++k) s += __bfloat162float(W[(size_t)n * K + k]) * __bfloat162float(x[m * K + k]);
    y[m * N + n] = s;
  }
}

template <typename F>
float timeIt(F f, char *flush, size_t flushBytes, int n = 20) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  float sum = 0;
  for (int i = 0; i < n + 2; ++i) {
    cudaMemsetAsync(flush, i, flushBytes);
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (i >= 2) sum += ms;
  }
  return sum / n;
}

int main() {
  for (auto [N, K] : {std::pair{28672, 4096}, std::pair{4096, 14336}}) {
    size_t wn = (size_t)N * K;
    std::vector<__nv_bfloat16> hw(wn), hx(16 * K);
    srand(1);
    for (auto &v : hw) v = __float2bfloat16((rand() % 17 - 8) / 16.0f);
    for (auto &v : hx) v = __float2bfloat16((rand() % 9 - 4) / 8.0f);
    __nv_bfloat16 *W, *x;
    float *y, *ref;
    cudaMalloc(&W, wn * 2);
    cudaMalloc(&x, 16 * K * 2);
    cudaMalloc(&y, 16 * N * 4);
    cudaMalloc(&ref, 16 * N * 4);
    cudaMemcpy(W, hw.data(), wn * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(x, hx.data(), 16 * K * 2, cudaMemcpyHostToDevice);
    reference<<<(N + 127) / 128, 128>>>(W, x, ref, N, K);
    std::vector<float> hr(16 * N), hy(16 * N);
    cudaMemcpy(hr.data(), ref, 16 * N * 4, cudaMemcpyDeviceToHost);
    char *flush;
    size_t fb = 256 << 20;
    cudaMalloc(&flush, fb);
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    auto run = [&](const char *name, auto kernel, int blocks, int threads) {
      cudaMemset(y, 0, 16 * N * 4);
      kernel<<<blocks, threads>>>((const uint4 *)W, (const uint4 *)x, y, N, K);
      if (cudaError_t e = cudaGetLastError()) {
        printf("%dx%d %-22s %4dx%-4d not launched: %s\n", N, K, name, blocks, threads, cudaGetErrorString(e));
        return;
      }
      cudaMemcpy(hy.data(), y, 16 * N * 4, cudaMemcpyDeviceToHost);
      double worst = 0;
      for (size_t i = 0; i < hy.size(); ++i) worst = std::max(worst, (double)std::abs(hy[i] - hr[i]));
      float ms = timeIt([&] { kernel<<<blocks, threads>>>((const uint4 *)W, (const uint4 *)x, y, N, K); }, flush, fb);
      printf("%dx%d %-22s %4dx%-4d %8.1f us %.2f TB/s  max|err| %.3g %s\n", N, K, name, blocks, threads, ms * 1e3,
             wn * 2 / (ms * 1e-3) / 1e12, worst, worst < 1e-2 ? "PASS" : "FAIL");
    };
    for (int perSM : {1, 2, 4}) {
      int threads = 512 / perSM, blocks = sms * perSM;
      run("tiles u4", gemv16<0, 4>, blocks, threads);
      run("tiles u8", gemv16<0, 8>, blocks, threads);
      run("rowsT u1", gemv16<1, 1>, blocks, threads);
      run("rowsT u2", gemv16<1, 2>, blocks, threads);
      run("rowsT u1 no shuffle", gemv16<2, 1>, blocks, threads);
    }
    cudaFree(W);
    cudaFree(x);
    cudaFree(y);
    cudaFree(ref);
    cudaFree(flush);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("status: %s\n", cudaGetErrorString(e));
}
