// REQUIRES: ptxas
// RUN: amk-opt %s --amk-pipeline="target=h200 stop-at=gpu cache=false" | FileCheck %s
// Dynamic sizes through the repack kernels: A as [K, M] with M dynamic (and
// a tf32 B as [K, N] with N dynamic) plans wgmma with both operands copied
// K-major. The copy is sized from C's M and N, the operand by its own: two
// values to the harness, so each guard takes the smaller (equal in every
// launch) and the generated kernels verify.
// CHECK-LABEL: gpu.func @gemm_DxDx96_f32_f32_f32_tn_tf32_repack_a(
// CHECK-SAME:    %[[SRC:.*]]: memref<96x?xf32>, %[[DST:.*]]: memref<?x96xf32>)
// CHECK-DAG:     %[[SD:.*]] = memref.dim %[[SRC]], %c1
// CHECK-DAG:     %[[DD:.*]] = memref.dim %[[DST]], %c0
// CHECK:         %[[N:.*]] = arith.minui %[[SD]], %[[DD]] : index
// CHECK:         memref.load %[[SRC]]
// CHECK:         gpu.barrier
// CHECK:         memref.store %{{.*}}, %[[DST]]
// CHECK-LABEL: gpu.func @gemm_DxDx96_f32_f32_f32_tn_tf32_repack_b(
// CHECK-SAME:    memref<96x?xf32>, %{{.*}}: memref<?x96xf32>)
// CHECK-LABEL: gpu.func @gemm_DxDx96_f32_f32_f32_tn_tf32(
// CHECK-SAME:    memref<?x96xf32>, %{{.*}}: memref<?x96xf32>, %{{.*}}: memref<?x?xf32>
// CHECK:         nvgpu.warpgroup.mma
func.func @tt(%a: memref<96x?xf32>, %b: memref<96x?xf32>, %c: memref<?x?xf32>) {
  amk.matmul %a, %b into %c {transpose_a, precision = #amk.precision<tf32>} : memref<96x?xf32>, memref<96x?xf32>, memref<?x?xf32>
  return
}
