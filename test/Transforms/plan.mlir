// RUN: amk-opt %s --split-input-file --amk-plan=h200 | FileCheck %s --check-prefixes=CHECK,H200
// RUN: amk-opt %s --split-input-file --amk-plan=rtx4060ti | FileCheck %s --check-prefixes=CHECK,RTX

// The same problems planned for an H200 (227 KiB of shared memory per block,
// 132 SMs) and an RTX 4060 Ti (99 KiB, 34 SMs). Config fields are checked
// where the choice is robust; exact tiles may move as the cost model is
// calibrated.

// A large square bf16 GEMM. The H200 (sm_90a) runs it on the TMA + wgmma
// path with a wide tile (64-row warpgroup tiles, BK = 64 from one 128-byte
// swizzle row, several stages), warp specialized and persistent (a producer
// warpgroup beside the compute ones) in the grouped raster (swizzle 8: a
// persistent kernel takes it on a tie); the RTX 4060 Ti has mma_sync only, and its
// 100 KiB per SM hold two blocks of at most 3 stages.
// Every kernel carries its ladder, best first.
// CHECK-LABEL: func.func @square_bf16
//       H200:    amk.kernel "gemm_4096x4096x4096_bf16_f32_f32_nn" config(#amk.gemm_config<block = [{{128|256}}, {{128|192|256}}, 64], warp = [64, {{[0-9]+}}], math = wgmma, inst = [64, {{[0-9]+}}, 16], stages = {{[3-6]}}, vector = 8, threads = {{384|640}}, swizzle = 8>
//        RTX:    amk.kernel "gemm_4096x4096x4096_bf16_f32_f32_nn" config(#amk.gemm_config<block = [{{64|128}}, {{64|128}}, 32], warp = [{{[0-9]+}}, {{[0-9]+}}], math = mma_sync, inst = [16, 8, 16], stages = {{[2-3]}}, vector = 8,
//  CHECK-SAME:     ladder [#amk.candidate<config = #amk.gemm_config<{{[^>]*}}>, predicted_ns = {{[0-9]+}}>, #amk.candidate<{{.*}}>, #amk.candidate<{{.*}}>, #amk.candidate<{{.*}}>]
//  CHECK-NEXT:     amk.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xf32>
//  CHECK-NEXT:   }
func.func @square_bf16(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xf32>) {
  amk.matmul %a, %b into %c : memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xf32>
  return
}

// -----

// Decode GEMV (M = 1) and a 16-row batch: on sm_90a TMA + wgmma tiles of
// the smallest M (64), split over K so that a wave of blocks streams B
// (the H100 decode study: 0.87-0.92 of cuBLAS against 0.75-0.81 for the
// mma.sync tiles of 16 rows planned before); elsewhere mma.sync's
// smallest M tile, never 128.
// CHECK-LABEL: func.func @gemv_bf16
//        H200:   amk.kernel "gemm_1x4096x4096_bf16_f32_f32_nn" config(#amk.gemm_config<block = [64, {{[0-9]+}}, 64], {{.*}}math = wgmma{{.*}}split_k = {{[0-9]+}}
//         RTX:   amk.kernel "gemm_1x4096x4096_bf16_f32_f32_nn" config(#amk.gemm_config<block = [16, {{[0-9]+}}, {{32|64}}], {{.*}}math = mma_sync
func.func @gemv_bf16(%a: memref<1x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<1x4096xf32>) {
  amk.matmul %a, %b into %c : memref<1x4096xbf16>, memref<4096x4096xbf16>, memref<1x4096xf32>
  return
}

// -----

// CHECK-LABEL: func.func @skinny_bf16
//        H200:   amk.kernel "gemm_16x4096x4096_bf16_f32_f32_nn" config(#amk.gemm_config<block = [64, {{[0-9]+}}, 64], {{.*}}math = wgmma{{.*}}split_k = {{[0-9]+}}
//         RTX:   amk.kernel "gemm_16x4096x4096_bf16_f32_f32_nn" config(#amk.gemm_config<block = [16, {{[0-9]+}}, {{32|64}}], {{.*}}math = mma_sync
func.func @skinny_bf16(%a: memref<16x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<16x4096xf32>) {
  amk.matmul %a, %b into %c : memref<16x4096xbf16>, memref<4096x4096xbf16>, memref<16x4096xf32>
  return
}

// -----

// Exact f32: SIMT with double buffering and 16-byte loads.
// CHECK-LABEL: func.func @square_f32
//       CHECK:   amk.kernel "gemm_4096x4096x4096_f32_f32_f32_nn" config(#amk.gemm_config<block = [{{64|128}}, {{64|128}}, {{8|16|32}}], warp = [{{[0-9]+}}, {{[0-9]+}}], math = simt, thread = [{{4|8}}, {{4|8}}], stages = 2, vector = 4,
func.func @square_f32(%a: memref<4096x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<4096x4096xf32>) {
  amk.matmul %a, %b into %c : memref<4096x4096xf32>, memref<4096x4096xf32>, memref<4096x4096xf32>
  return
}

// -----

// Dynamic sizes: planned for 4096, with scalar loads (no extent is known to
// be a multiple of a vector). `?` becomes `D` in the kernel name.
// CHECK-LABEL: func.func @dynamic_f32
//       CHECK:   amk.kernel "gemm_DxDxD_f32_f32_f32_nn" config(#amk.gemm_config<{{.*}}math = simt, {{.*}}vector = 1,
func.func @dynamic_f32(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  amk.matmul %a, %b into %c : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
  return
}

// -----

// Two problems of one signature get unique names, also against a kernel that
// already exists; a matmul already inside a kernel is left alone.
// CHECK-LABEL: func.func @names
//       CHECK:   amk.kernel "gemm_128x128x64_f16_f32_f16_nn" config(#amk.gemm_config<block = [8, 8, 8], warp = [8, 8], math = simt, thread = [1, 2], stages = 2, vector = 1, threads = 32>) {
//       CHECK:   amk.kernel "gemm_128x128x64_f16_f32_f16_nn_1" config(
//       CHECK:   amk.kernel "gemm_128x128x64_f16_f32_f16_nn_2" config(
//   CHECK-NOT:   amk.kernel
//       CHECK:   return
func.func @names(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  amk.kernel "gemm_128x128x64_f16_f32_f16_nn" config(#amk.gemm_config<block = [8, 8, 8], warp = [8, 8], math = simt, thread = [1, 2], stages = 2, vector = 1, threads = 32>) {
    amk.matmul %a, %b into %c : memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>
  }
  amk.matmul %a, %b into %c : memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>
  amk.matmul %a, %b into %c : memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>
  return
}

// -----

// Transposed operands, a batch and an epilogue: the name carries them, with
// `.` in the scale written as `p` and `-` as `_`.
// CHECK-LABEL: func.func @epilogue
//       CHECK:   amk.kernel "gemm_4x256x512x1024_bf16_f32_f32_tt_bias_relu_alpha0p50_beta_1p00"
func.func @epilogue(%a: memref<4x1024x256xbf16>, %b: memref<4x512x1024xbf16>, %bias: memref<4x512xf32>, %c: memref<4x256x512xf32>) {
  amk.matmul %a, %b bias(%bias) into %c {transpose_a, transpose_b, activation = #amk.activation<relu>, alpha = 0.5 : f64, beta = -1.0 : f64} : memref<4x1024x256xbf16>, memref<4x512x1024xbf16>, memref<4x512xf32>, memref<4x256x512xf32>
  return
}

// -----

// linalg input is imported and planned in one step.
// CHECK-LABEL: func.func @linalg
//   CHECK-NOT:   linalg.matmul
//       CHECK:   amk.kernel "gemm_512x1024x256_bf16_f32_f32_nn" config(#amk.gemm_config<{{.*}}math = mma_sync
//  CHECK-NEXT:     amk.matmul {{.*}} : memref<512x256xbf16>, memref<256x1024xbf16>, memref<512x1024xf32>
//       CHECK:   amk.kernel "gemm_8x64x64x128_f16_f32_f32_nn_beta1p00" config(
//  CHECK-NEXT:     amk.matmul {{.*}} {beta = 1.000000e+00 : f64} : memref<8x64x128xf16>, memref<8x128x64xf16>, memref<8x64x64xf32>
func.func @linalg(%a: memref<512x256xbf16>, %b: memref<256x1024xbf16>, %c: memref<512x1024xf32>,
                  %x: memref<8x64x128xf16>, %y: memref<8x128x64xf16>, %z: memref<8x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<512x1024xf32>)
  linalg.matmul ins(%a, %b : memref<512x256xbf16>, memref<256x1024xbf16>) outs(%c : memref<512x1024xf32>)
  linalg.batch_matmul ins(%x, %y : memref<8x64x128xf16>, memref<8x128x64xf16>) outs(%z : memref<8x64x64xf32>)
  return
}
