// RUN: amk-opt %s --split-input-file | amk-opt --split-input-file | FileCheck %s
// Round trip of every amk op and attribute: print, parse back, print again.

// CHECK-LABEL: func.func @matmul_plain
// CHECK:         amk.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x64xf32>, memref<64x256xf32>, memref<128x256xf32>
func.func @matmul_plain(%a: memref<128x64xf32>, %b: memref<64x256xf32>, %c: memref<128x256xf32>) {
  amk.matmul %a, %b into %c : memref<128x64xf32>, memref<64x256xf32>, memref<128x256xf32>
  return
}

// -----

// CHECK-LABEL: func.func @matmul_dynamic_transposed
// CHECK:         amk.matmul %{{.*}}, %{{.*}} into %{{.*}} {precision = #amk.precision<tf32>, transpose_a, transpose_b} : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
func.func @matmul_dynamic_transposed(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  amk.matmul %a, %b into %c {transpose_a, transpose_b, precision = #amk.precision<tf32>} : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
  return
}

// -----

// CHECK-LABEL: func.func @matmul_epilogue
// CHECK:         amk.matmul %[[A:.*]], %[[B:.*]] bias(%[[BIAS:.*]]) into %[[C:.*]] {activation = #amk.activation<gelu>, alpha = 5.000000e-01 : f64, beta = 1.000000e+00 : f64}
// CHECK-SAME:      : memref<16x4096xbf16>, memref<4096x14336xbf16>, memref<14336xbf16>, memref<16x14336xbf16>
func.func @matmul_epilogue(%a: memref<16x4096xbf16>, %b: memref<4096x14336xbf16>, %bias: memref<14336xbf16>, %c: memref<16x14336xbf16>) {
  amk.matmul %a, %b bias(%bias) into %c {activation = #amk.activation<gelu>, alpha = 0.5, beta = 1.0}
    : memref<16x4096xbf16>, memref<4096x14336xbf16>, memref<14336xbf16>, memref<16x14336xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @matmul_batched_f16_acc
// CHECK:         amk.matmul {{.*}} {acc = f16} : memref<8x?x64xf16>, memref<8x64x32xf16>, memref<8x?x32xf16>
func.func @matmul_batched_f16_acc(%a: memref<8x?x64xf16>, %b: memref<8x64x32xf16>, %c: memref<8x?x32xf16>) {
  amk.matmul %a, %b into %c {acc = f16} : memref<8x?x64xf16>, memref<8x64x32xf16>, memref<8x?x32xf16>
  return
}

// -----

// CHECK-LABEL: func.func @matmul_strided
// CHECK:         amk.matmul {{.*}} : memref<32x64xf16, strided<[128, 1]>>
func.func @matmul_strided(%a: memref<32x64xf16, strided<[128, 1]>>, %b: memref<64x16xf16>, %c: memref<32x16xf32>) {
  amk.matmul %a, %b into %c : memref<32x64xf16, strided<[128, 1]>>, memref<64x16xf16>, memref<32x16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @kernel_mma_sync
// CHECK:         amk.kernel "gemm0" config(#amk.gemm_config<block = [128, 128, 32], warp = [64, 64], math = mma_sync, inst = [16, 8, 16], stages = 3, vector = 8, threads = 128>) {
// CHECK-NEXT:      amk.matmul
// CHECK-NEXT:    }
func.func @kernel_mma_sync(%a: memref<256x64xbf16>, %b: memref<64x256xbf16>, %c: memref<256x256xf32>) {
  amk.kernel "gemm0" config(#amk.gemm_config<block = [128, 128, 32], warp = [64, 64], math = mma_sync, inst = [16, 8, 16], stages = 3, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x64xbf16>, memref<64x256xbf16>, memref<256x256xf32>
  }
  return
}

// -----

// Parameters in any order; defaults (swizzle = 1, split_k = 1) are not printed.
// CHECK-LABEL: func.func @kernel_simt_ladder
// CHECK:         amk.kernel "gemm1" config(#amk.gemm_config<block = [128, 128, 8], warp = [32, 64], math = simt, thread = [8, 8], stages = 2, vector = 4, threads = 256, swizzle = 8, split_k = 4>)
// CHECK-SAME:      ladder [#amk.candidate<config = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>, predicted_ns = 2100>]
// CHECK-SAME:      attributes {note = "kept"}
func.func @kernel_simt_ladder(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  amk.kernel "gemm1" config(#amk.gemm_config<threads = 256, block = [128, 128, 8], warp = [32, 64], math = simt, thread = [8, 8], stages = 2, vector = 4, swizzle = 8, split_k = 4>)
      ladder [#amk.candidate<config = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128, swizzle = 1>, predicted_ns = 2100>]
      attributes {note = "kept"} {
    amk.matmul %a, %b into %c : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @kernel_wgmma
// CHECK:         math = wgmma, inst = [64, 256, 16], stages = 4, vector = 8, threads = 384>
func.func @kernel_wgmma(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf16>) {
  amk.kernel "gemm2" config(#amk.gemm_config<block = [128, 256, 64], warp = [64, 256], math = wgmma, inst = [64, 256, 16], stages = 4, vector = 8, threads = 384>) {
    amk.matmul %a, %b into %c : memref<4096x4096xf16>, memref<4096x4096xf16>, memref<4096x4096xf16>
  }
  return
}

// -----

// CHECK: module attributes {amk.target = #amk.target<"rtx4060ti">, test.custom = #amk.target<"h200", sm_count = 114, hbm_gbps = 4000>}
module attributes {amk.target = #amk.target<"rtx4060ti">, test.custom = #amk.target<"h200", hbm_gbps = 4000, sm_count = 114>} {
}
