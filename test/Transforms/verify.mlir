// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics | FileCheck %s

// Every check id of the harness's resource part, each at its limit + 1 (a
// target field set one below what the kernel needs) next to the same kernel
// accepted exactly at the limit. The numbers pin the resource model:
// - [64, 64, 32] bf16 mma_sync, 4 warps, 4 stages: 4 x (64x32 + 32x64) x 2 B
//   = 32768 B of shared memory; 112 registers per thread (acc 32, fragments
//   16, cp.async addresses 2 x 4 copies = 8, overhead 40: 96 x 1.15 = 110.4,
//   rounded up to 111, then to a multiple of 8).
// - [32, 64, 32], 2 warps: acc 32, fragments 16, addresses 2 x 6 copies = 12,
//   overhead 40: 100 x 1.15 = 115 -> 120 registers per thread, 3840 per warp.

// CHECK-LABEL: func.func @smem_optin_at_limit
// CHECK:         amk.kernel "at_limit" {{.*}} attributes {amk.verified}
module attributes {amk.target = #amk.target<"h200", smem_per_block_bytes = 16384, smem_per_block_optin_bytes = 32768>} {
func.func @smem_optin_at_limit(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  amk.kernel "at_limit" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200", smem_per_block_bytes = 16384, smem_per_block_optin_bytes = 32767>} {
func.func @smem_optin_over(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-RES-SMEM] dynamic shared memory 32768 B exceeds the opt-in limit 32767 B of target 'h200'}}
  amk.kernel "over" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

// The real H200: 5 stages of a [128, 256, 64] tile need 245760 B, and a
// 64x64 warp tile's 128 accumulators per thread push the estimate past 255
// (128 + fragments 32 + addresses 24 + overhead 40 = 224 x 1.15 -> 258 -> 264:
// not capped at 255, as the estimate itself does not fit).
// One kernel can break several limits: each is reported.
module attributes {amk.target = #amk.target<"h200">} {
func.func @smem_h200(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xf32>) {
  // expected-error @+2 {{[AMK-RES-SMEM] dynamic shared memory 245760 B exceeds the opt-in limit 232448 B of target 'h200'}}
  // expected-error @+1 {{[AMK-RES-REGS] estimated 264 registers per thread exceed the limit 255 of target 'h200'}}
  amk.kernel "big" config(#amk.gemm_config<block = [128, 256, 64], warp = [64, 64], math = mma_sync, inst = [16, 8, 16], stages = 5, vector = 8, threads = 256>) {
    amk.matmul %a, %b into %c : memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xf32>
  }
  return
}
}

// -----

// Per SM: 32768 B of dynamic shared memory plus the 1024 B the driver reserves
// per block.
// CHECK-LABEL: func.func @smem_per_sm_at_limit
// CHECK:         amk.kernel "at_limit" {{.*}} attributes {amk.verified}
module attributes {amk.target = #amk.target<"h200", smem_per_block_bytes = 16384, smem_per_block_optin_bytes = 32768, smem_per_sm_bytes = 33792>} {
func.func @smem_per_sm_at_limit(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  amk.kernel "at_limit" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200", smem_per_block_bytes = 16384, smem_per_block_optin_bytes = 32768, smem_per_sm_bytes = 33791>} {
func.func @smem_per_sm_over(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-RES-SMEM] dynamic shared memory 32768 B exceeds the 32767 B an SM of target 'h200' holds per block (33791 B per SM, 1024 B reserved per block)}}
  amk.kernel "over" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

// Threads per block: 128 threads (4 warps).
// CHECK-LABEL: func.func @threads_at_limit
// CHECK:         amk.kernel "at_limit" {{.*}} attributes {amk.verified}
module attributes {amk.target = #amk.target<"h200", max_threads_per_block = 128, max_block_dim_x = 128>} {
func.func @threads_at_limit(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  amk.kernel "at_limit" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

// Block sizes come in whole warps: one warp over the limit.
module attributes {amk.target = #amk.target<"h200", max_threads_per_block = 96, max_block_dim_x = 96>} {
func.func @threads_over(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-RES-THREADS] 128 threads per block exceed the limit 96 of target 'h200'}}
  amk.kernel "over" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

// Blocks are 1-D: the thread count is also block dimension x.
module attributes {amk.target = #amk.target<"h200", max_block_dim_x = 127>} {
func.func @block_dim_over(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-RES-THREADS] 128 threads on block dimension x exceed the limit 127 of target 'h200'}}
  amk.kernel "over" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

// Registers per thread: the estimate is 112.
// CHECK-LABEL: func.func @regs_thread_at_limit
// CHECK:         amk.kernel "at_limit" {{.*}} attributes {amk.verified}
module attributes {amk.target = #amk.target<"h200", regs_per_thread = 112>} {
func.func @regs_thread_at_limit(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  amk.kernel "at_limit" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200", regs_per_thread = 111>} {
func.func @regs_thread_over(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-RES-REGS] estimated 112 registers per thread exceed the limit 111 of target 'h200'}}
  amk.kernel "over" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

// The architectural limit: [128, 128, 32] of 64x64 warp tiles needs acc 128,
// fragments 32, addresses 2 x 8 copies = 16, overhead 40: 216 x 1.15 -> 249,
// which would round up to 256 but is capped at 255, so the real H200 (limit
// 255) accepts it.
// CHECK-LABEL: func.func @regs_thread_cap_at_limit
// CHECK:         amk.kernel "at_limit" {{.*}} attributes {amk.verified}
module attributes {amk.target = #amk.target<"h200">} {
func.func @regs_thread_cap_at_limit(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xf32>) {
  amk.kernel "at_limit" config(#amk.gemm_config<block = [128, 128, 32], warp = [64, 64], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xf32>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200", regs_per_thread = 254>} {
func.func @regs_thread_cap_over(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xf32>) {
  // expected-error @+1 {{[AMK-RES-REGS] estimated 255 registers per thread exceed the limit 254 of target 'h200'}}
  amk.kernel "over" config(#amk.gemm_config<block = [128, 128, 32], warp = [64, 64], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xf32>
  }
  return
}
}

// -----

// Registers per block: 112 x 128 threads = 14336.
// CHECK-LABEL: func.func @regs_block_at_limit
// CHECK:         amk.kernel "at_limit" {{.*}} attributes {amk.verified}
module attributes {amk.target = #amk.target<"h200", regs_per_block = 14336>} {
func.func @regs_block_at_limit(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  amk.kernel "at_limit" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200", regs_per_block = 14335>} {
func.func @regs_block_over(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-RES-REGS] estimated 112 registers per thread x 128 threads = 14336 registers exceed the 14335 per block of target 'h200'}}
  amk.kernel "over" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

// Occupancy: the register file is split over 4 sub-partitions holding whole
// warps, and the hardware assumes a block's warps spread over all 4. Two warps
// of 3840 registers: with 15360 per SM each sub-partition holds one warp.
// CHECK-LABEL: func.func @occupancy_at_limit
// CHECK:         amk.kernel "at_limit" {{.*}} attributes {amk.verified}
module attributes {amk.target = #amk.target<"h200", regs_per_block = 15360, regs_per_sm = 15360>} {
func.func @occupancy_at_limit(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  amk.kernel "at_limit" config(#amk.gemm_config<block = [32, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 8, threads = 64>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

// 120 x 64 = 7680 registers fit the per-block limit, but no sub-partition
// holds a 3840-register warp.
module attributes {amk.target = #amk.target<"h200", regs_per_block = 7680, regs_per_sm = 7680>} {
func.func @occupancy_over(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-RES-OCCUPANCY] no block of 64 threads fits on an SM of target 'h200': the hardware assumes 15360 registers per block (3840 per warp x 2 warps rounded up to 4 sub-partitions), more than its 7680}}
  amk.kernel "over" config(#amk.gemm_config<block = [32, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 8, threads = 64>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @split_k_bf16_out(%a: memref<16x4096xbf16>, %b: memref<4096x256xbf16>, %c: memref<16x256xbf16>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: split_k > 1 with split_reduce = atomic needs an f32 C and accumulator without beta, bias or activation (partial sums are added atomically); split_reduce = workspace serves the others}}
  amk.kernel "split_bf16" config(#amk.gemm_config<block = [16, 32, 64], warp = [16, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 32, split_k = 8>) {
    amk.matmul %a, %b into %c : memref<16x4096xbf16>, memref<4096x256xbf16>, memref<16x256xbf16>
  }
  return
}
}

// -----

// A serial split waits on blocks of its own grid: it must be known...
module attributes {amk.target = #amk.target<"h100">} {
func.func @serial_dynamic(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: split_reduce = serial needs static M, N and batch (the splits of a tile meet at its counter: the grid must be known)}}
  amk.kernel "sd" config(#amk.gemm_config<block = [64, 64, 64], warp = [64, 64], math = wgmma, inst = [64, 64, 16], stages = 4, vector = 8, threads = 128, split_k = 2, split_reduce = serial>) {
    amk.matmul %a, %b into %c : memref<?x4096xbf16>, memref<4096x4096xbf16>, memref<?x4096xbf16>
  }
  return
}
}

// -----

// ... resident at once (two 64x128 splits of 128 tiles: 256 blocks of 147 KB
// of shared memory on 132 SMs)...
module attributes {amk.target = #amk.target<"h100">} {
func.func @serial_not_resident(%a: memref<64x4096xbf16>, %b: memref<16384x4096xbf16>, %c: memref<64x16384xbf16>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: split_reduce = serial needs its 256 blocks resident at once (the splits of a tile wait for each other), but h100 holds 132 (1 per SM, limited by shared memory)}}
  amk.kernel "snr" config(#amk.gemm_config<block = [64, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 6, vector = 8, threads = 128, split_k = 2, split_reduce = serial>) {
    amk.matmul %a, %b into %c {transpose_b} : memref<64x4096xbf16>, memref<16384x4096xbf16>, memref<64x16384xbf16>
  }
  return
}
}

// -----

// ... and every thread of the block takes part in the turns' barriers: not
// a warp-specialized kernel, whose producer warpgroup never reaches them.
module attributes {amk.target = #amk.target<"h100">} {
func.func @serial_specialized(%a: memref<128x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<128x4096xbf16>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: split_reduce = serial needs every thread in the epilogue: not a warp-specialized wgmma kernel}}
  amk.kernel "ss" config(#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 4, vector = 8, threads = 384, split_k = 2, split_reduce = serial>) {
    amk.matmul %a, %b into %c {transpose_b} : memref<128x4096xbf16>, memref<4096x4096xbf16>, memref<128x4096xbf16>
  }
  return
}
}

// -----

// A split summed by the last to arrive meets at its tile's counter too: a
// known grid...
module attributes {amk.target = #amk.target<"h100">} {
func.func @last_dynamic(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: split_reduce = last needs static M, N and batch (the splits of a tile meet at its counter: the grid must be known)}}
  amk.kernel "ld" config(#amk.gemm_config<block = [64, 64, 64], warp = [64, 64], math = wgmma, inst = [64, 64, 16], stages = 4, vector = 8, threads = 128, split_k = 2, split_reduce = last>) {
    amk.matmul %a, %b into %c : memref<?x4096xbf16>, memref<4096x4096xbf16>, memref<?x4096xbf16>
  }
  return
}
}

// -----

// ... but a warp-specialized kernel (its consumers meet at their own named
// barrier), and no block waits for another, so the 256 blocks a serial
// split could not hold at once are fine.
module attributes {amk.target = #amk.target<"h100">} {
func.func @last_specialized(%a: memref<128x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<128x4096xbf16>) {
  amk.kernel "ls" config(#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 4, vector = 8, threads = 384, split_k = 2, split_reduce = last>) {
    amk.matmul %a, %b into %c {transpose_b} : memref<128x4096xbf16>, memref<4096x4096xbf16>, memref<128x4096xbf16>
  }
  return
}
func.func @last_not_resident(%a: memref<64x4096xbf16>, %b: memref<16384x4096xbf16>, %c: memref<64x16384xbf16>) {
  amk.kernel "lnr" config(#amk.gemm_config<block = [64, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 6, vector = 8, threads = 128, split_k = 2, split_reduce = last>) {
    amk.matmul %a, %b into %c {transpose_b} : memref<64x4096xbf16>, memref<16384x4096xbf16>, memref<64x16384xbf16>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @synth_unsupported(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: simt synthesizes f32 inputs only}}
  amk.kernel "simt_bf16" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

// Grid z is batch x split_k, limited to 65535.
// CHECK-LABEL: func.func @grid_at_limit
// CHECK:         amk.kernel "at_limit" {{.*}} attributes {amk.verified}
module attributes {amk.target = #amk.target<"h200">} {
func.func @grid_at_limit(%a: memref<65535x16x32xbf16>, %b: memref<65535x32x16xbf16>, %c: memref<65535x16x16xf32>) {
  amk.kernel "at_limit" config(#amk.gemm_config<block = [16, 16, 32], warp = [16, 16], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 8, threads = 32>) {
    amk.matmul %a, %b into %c : memref<65535x16x32xbf16>, memref<65535x32x16xbf16>, memref<65535x16x16xf32>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @grid_over(%a: memref<65536x16x32xbf16>, %b: memref<65536x32x16xbf16>, %c: memref<65536x16x16xf32>) {
  // expected-error @+1 {{[AMK-RES-GRID] grid 1x1x65536 exceeds max_grid_dim_z = 65535 of target 'h200'}}
  amk.kernel "over" config(#amk.gemm_config<block = [16, 16, 32], warp = [16, 16], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 8, threads = 32>) {
    amk.matmul %a, %b into %c : memref<65536x16x32xbf16>, memref<65536x32x16xbf16>, memref<65536x16x16xf32>
  }
  return
}
}

// -----

// A dynamic batch: grid z is unknown, nothing to check at compile time.
// CHECK-LABEL: func.func @grid_dynamic
// CHECK:         amk.kernel "dynamic" {{.*}} attributes {amk.verified}
module attributes {amk.target = #amk.target<"h200">} {
func.func @grid_dynamic(%a: memref<?x16x32xbf16>, %b: memref<?x32x16xbf16>, %c: memref<?x16x16xf32>) {
  amk.kernel "dynamic" config(#amk.gemm_config<block = [16, 16, 32], warp = [16, 16], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 8, threads = 32>) {
    amk.matmul %a, %b into %c : memref<?x16x32xbf16>, memref<?x32x16xbf16>, memref<?x16x16xf32>
  }
  return
}
}

// -----

// No target: every kernel is reported.
func.func @without_target(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-NO-TARGET] module has no #amk.target to verify against: run --amk-target=<preset> first (presets: a100, rtx4060ti, l4, h100, h200, b200, rtx5060ti)}}
  amk.kernel "no_target" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}

// -----

// A kernel marked verified earlier (say, for another target) is checked again;
// failing, it loses the mark.
module attributes {amk.target = #amk.target<"h200", regs_per_thread = 111>} {
func.func @reverify(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-RES-REGS]}}
  amk.kernel "stale" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) attributes {amk.verified} {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}
