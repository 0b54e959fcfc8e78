// REQUIRES: ptxas
// A miss compiles and stores; the hit that follows skips the compilation
// and emits the same IR and the same bundle, and so does a run without the
// cache.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amk-opt %s --amk-lower="cache-dir=%t/cache cache-remarks bundle-dir=%t/miss" -mlir-print-op-on-diagnostic=false -o %t/miss.mlir 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: amk-opt %s --amk-lower="cache-dir=%t/cache cache-remarks bundle-dir=%t/hit" -mlir-print-op-on-diagnostic=false -o %t/hit.mlir 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: amk-opt %s --amk-lower="cache=false bundle-dir=%t/none" -o %t/none.mlir
// RUN: diff %t/miss.mlir %t/hit.mlir
// RUN: diff %t/miss.mlir %t/none.mlir
// RUN: diff -r %t/miss %t/hit
// RUN: diff -r %t/miss %t/none
// RUN: FileCheck %s < %t/hit.mlir
// RUN: amk-cache stats --cache-dir=%t/cache | FileCheck %s --check-prefix=STATS
// The same through the pipeline's options.
// RUN: amk-opt %s --amk-pipeline="cache-dir=%t/cache cache-remarks" -mlir-print-op-on-diagnostic=false -o %t/pipeline.mlir 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: diff %t/miss.mlir %t/pipeline.mlir
// Before binaries there is nothing to cache: no lookup, no remark.
// RUN: amk-opt %s --amk-lower="cache-dir=%t/cache cache-remarks stop-at=nvvm" -o /dev/null 2>&1 | count 0

// MISS: remark: compile cache miss: gemm_256x512x128_f16_f32_f32_nt (key [[KEY:[0-9a-f]+]])
// MISS-NOT: remark
// HIT: remark: compile cache hit: gemm_256x512x128_f16_f32_f32_nt (key [[KEY:[0-9a-f]+]])
// HIT-NOT: remark

// CHECK: module attributes {amk.target = #amk.target<"h200">, gpu.container_module}
// CHECK: gpu.launch_func @gemm_256x512x128_f16_f32_f32_nt::@gemm_256x512x128_f16_f32_f32_nt
// CHECK: gpu.binary @gemm_256x512x128_f16_f32_f32_nt  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, bin = "{{.*}}">, #gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, assembly = "{{.*}}">]
// CHECK-NOT: gpu.module

// STATS: entries: 1
// STATS: hits: 1
// STATS: misses: 1
// STATS: corrupt: 0
// STATS: stores: 1

module attributes {amk.target = #amk.target<"h200">} {
  func.func @f(%a: memref<256x128xf16>, %b: memref<512x128xf16>, %c: memref<256x512xf32>) {
    amk.kernel "gemm_256x512x128_f16_f32_f32_nt" config(#amk.gemm_config<block = [64, 128, 32], warp = [32, 64], math = mma_sync, inst = [16, 8, 16], stages = 3, vector = 8, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {transpose_b} : memref<256x128xf16>, memref<512x128xf16>, memref<256x512xf32>
    }
    return
  }
}
