// RUN: amk-opt %s --split-input-file --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-plan --amk-verify --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=PLAN
// Split-K: grid z = batch x split_k, each split takes its share of the
// k-tiles and adds its partial sums into C, which the launch zeroes first.

// CHECK-LABEL: func.func @decode
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         gpu.memset %[[C:.*]], %[[ZERO]] : memref<1x4096xf32>, f32
// CHECK:         gpu.launch_func @{{.*}} blocks in (%{{.*}}, %{{.*}}, %c8)
// CHECK:       gpu.func @split
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK:         %[[SPLIT:.*]] = arith.remui %[[Z]], %c8
// CHECK:         %[[FIRST:.*]] = arith.muli %[[SPLIT]]
// CHECK:         scf.for
// CHECK:         memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : (f32, memref<1x4096xf32>) -> f32
// CHECK-NOT:     memref.store {{.*}} : memref<1x4096xf32>
module attributes {amk.target = #amk.target<"h200">} {
func.func @decode(%a: memref<1x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<1x4096xf32>) {
  amk.kernel "split" config(#amk.gemm_config<block = [16, 32, 32], warp = [16, 32], math = simt, thread = [2, 8], stages = 2, vector = 4, threads = 32, split_k = 8>) {
    amk.matmul %a, %b into %c : memref<1x4096xf32>, memref<4096x4096xf32>, memref<1x4096xf32>
  }
  return
}
}

// -----

// A static batch: z / split_k is clamped to batch - 1 (a no-op that the
// range analysis needs to bound the batch subviews).
// CHECK-LABEL: func.func @batched
// CHECK:         gpu.launch_func @{{.*}} blocks in (%{{.*}}, %{{.*}}, %c12)
// CHECK:       gpu.func @split_batched
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK:         %[[B:.*]] = arith.divui %[[Z]], %c4
// CHECK:         %[[BATCH:.*]] = arith.minui %[[B]], %c2
// CHECK:         memref.subview %{{.*}}[%[[BATCH]], 0, 0]
// CHECK:         memref.atomic_rmw addf
module attributes {amk.target = #amk.target<"h200">} {
func.func @batched(%a: memref<3x16x2048xf32>, %b: memref<3x2048x64xf32>, %c: memref<3x16x64xf32>) {
  amk.kernel "split_batched" config(#amk.gemm_config<block = [16, 32, 32], warp = [16, 32], math = mma_sync, inst = [16, 8, 8], stages = 4, vector = 4, threads = 32, split_k = 4>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<3x16x2048xf32>, memref<3x2048x64xf32>, memref<3x16x64xf32>
  }
  return
}
}

// -----

// The planner splits K where the output grid leaves most SMs idle (a
// decode-like shape: one row of C).
// PLAN-LABEL: func.func @planned
// PLAN:         gpu.memset
// PLAN:         gpu.launch_func @gemm_1x4096x4096_f32_f32_f32_nn
// PLAN:       gpu.func @gemm_1x4096x4096_f32_f32_f32_nn
// PLAN:         memref.atomic_rmw addf
module attributes {amk.target = #amk.target<"h200">} {
func.func @planned(%a: memref<1x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<1x4096xf32>) {
  amk.matmul %a, %b into %c : memref<1x4096xf32>, memref<4096x4096xf32>, memref<1x4096xf32>
  return
}
}
