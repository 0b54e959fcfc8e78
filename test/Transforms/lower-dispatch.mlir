// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-plan --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-plan | FileCheck %s --check-prefix=PLAN
// A dynamic M gets a kernel of its own for M <= 64 (planned at 64: split-K
// here) beside the one planned for every size; the launch picks it by M.

// PLAN-LABEL: func.func @decode
// PLAN:         amk.kernel "gemm_Dx4096x4096_f32_f32_f32_nn" config(#amk.gemm_config<{{.*}}>) ladder
// PLAN-SAME:      amk.dispatch = [{config = #amk.gemm_config<{{.*}}split_k = {{[0-9]+}}>, predicted_ns = {{[0-9]+}} : i64, symbol = "M", up_to = 64 : i64, when = "M <= 64"}]

// CHECK-LABEL: func.func @decode
// CHECK:         %[[M:.*]] = memref.dim %{{.*}}, %c0 : memref<?x4096xf32>
// CHECK:         %[[SMALL:.*]] = arith.cmpi ule, %[[M]], %c64 : index
// CHECK:         scf.if %[[SMALL]] {
// CHECK:           gpu.memset
// CHECK:           gpu.launch_func @gemm_Dx4096x4096_f32_f32_f32_nn::@gemm_Dx4096x4096_f32_f32_f32_nn_Mle64
// CHECK:         } else {
// CHECK-NOT:       gpu.memset
// CHECK:           gpu.launch_func @gemm_Dx4096x4096_f32_f32_f32_nn::@gemm_Dx4096x4096_f32_f32_f32_nn blocks
// CHECK:         }
// CHECK:       gpu.module @gemm_Dx4096x4096_f32_f32_f32_nn
// CHECK-DAG:     gpu.func @gemm_Dx4096x4096_f32_f32_f32_nn_Mle64(
// CHECK-DAG:     gpu.func @gemm_Dx4096x4096_f32_f32_f32_nn(
func.func @decode(%a: memref<?x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<?x4096xf32>) {
  amk.matmul %a, %b into %c : memref<?x4096xf32>, memref<4096x4096xf32>, memref<?x4096xf32>
  return
}

// -----

// Static sizes: one kernel.
// PLAN-LABEL: func.func @static
// PLAN-NOT:     amk.dispatch
// CHECK-LABEL: func.func @static
// CHECK-NOT:     scf.if
// CHECK:         gpu.launch_func
func.func @static(%a: memref<64x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<64x4096xf32>) {
  amk.matmul %a, %b into %c : memref<64x4096xf32>, memref<4096x4096xf32>, memref<64x4096xf32>
  return
}

// -----

// A few-row variant bounds the row length from below as well: its launch
// tests M <= 16 and N > 8192 (a row-wise problem on h200).
// PLAN-LABEL: func.func @few_long_rows
// PLAN:         when = "M <= 16 && N > 8192"
// CHECK-LABEL: func.func @few_long_rows
// CHECK:         %[[FEW:.*]] = arith.cmpi ule, %{{.*}}, %c16 : index
// CHECK:         %[[N:.*]] = memref.dim %{{.*}}, %c1{{.*}} : memref<?x?xbf16>
// CHECK:         %[[LONG:.*]] = arith.cmpi ugt, %[[N]], %c8192{{[_0-9]*}} : index
// CHECK:         %[[BOTH:.*]] = arith.andi %[[FEW]], %[[LONG]] : i1
// CHECK:         scf.if %[[BOTH]] {
// CHECK:           gpu.launch_func @softmax_DxD_bf16_bf16::@softmax_DxD_bf16_bf16_Mle16Ngt8192
func.func @few_long_rows(%x: memref<?x?xbf16>, %y: memref<?x?xbf16>) {
  amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<?x?xbf16>, memref<?x?xbf16>
  return
}
