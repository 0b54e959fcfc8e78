// RUN: amk-opt %s --amk-pipeline="target=h200 stop-at=gpu" | FileCheck %s
// Identical kernels (same problem, operand types and config) are synthesized,
// checked and assembled once: every later one launches the first's binary.
// A kernel that differs in anything (here N) is its own.

// CHECK-LABEL: func.func @three_alike
// CHECK:         gpu.launch_func @[[K:gemm_64x64x64_f32_f32_f32_nn]]::@[[K]] {{.*}} args(%arg0 : memref<64x64xf32>, %arg1 : memref<64x64xf32>, %arg2 : memref<64x64xf32>)
// CHECK:         gpu.launch_func @[[K]]::@[[K]] {{.*}} args(%arg2 : memref<64x64xf32>, %arg1 : memref<64x64xf32>, %arg3 : memref<64x64xf32>)
// CHECK:         gpu.launch_func @[[K]]::@[[K]] {{.*}} args(%arg3 : memref<64x64xf32>, %arg1 : memref<64x64xf32>, %arg0 : memref<64x64xf32>)
// CHECK:         gpu.launch_func @[[OTHER:gemm_64x32x64_f32_f32_f32_nn]]::@[[OTHER]] {{.*}} args(%arg0 : memref<64x64xf32>, %arg4 : memref<64x32xf32>, %arg5 : memref<64x32xf32>)
// CHECK:       gpu.module @[[K]]
// CHECK-NOT:   gpu.module @[[K]]_
// CHECK:       gpu.module @[[OTHER]]
// CHECK-NOT:   gpu.module
func.func @three_alike(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>, %d: memref<64x64xf32>, %b2: memref<64x32xf32>, %e: memref<64x32xf32>) {
  amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  amk.matmul %c, %b into %d : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  amk.matmul %d, %b into %a : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  amk.matmul %a, %b2 into %e : memref<64x64xf32>, memref<64x32xf32>, memref<64x32xf32>
  return
}
