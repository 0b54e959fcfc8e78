// The planner never proposes what the harness rejects: on every preset
// target, each kernel --amk-plan writes passes --amk-verify (which fails on
// any finding) and is marked verified.
// RUN: amk-opt %s --amk-plan=a100 --amk-verify | FileCheck %s
// RUN: amk-opt %s --amk-plan=rtx4060ti --amk-verify | FileCheck %s
// RUN: amk-opt %s --amk-plan=l4 --amk-verify | FileCheck %s
// RUN: amk-opt %s --amk-plan=h100 --amk-verify | FileCheck %s
// RUN: amk-opt %s --amk-plan=h200 --amk-verify | FileCheck %s
// RUN: amk-opt %s --amk-plan=b200 --amk-verify | FileCheck %s
// RUN: amk-opt %s --amk-plan=rtx5060ti --amk-verify | FileCheck %s

// CHECK-COUNT-11: amk.kernel "{{[A-Za-z0-9_]+}}" config({{.*}}) ladder [{{.*}}] attributes {{{(amk.dispatch = \[.*\], )?}}amk.verified} {
// CHECK-NOT:      amk.kernel

func.func @gemv(%a: memref<1x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<1x4096xf32>) {
  amk.matmul %a, %b into %c : memref<1x4096xbf16>, memref<4096x4096xbf16>, memref<1x4096xf32>
  return
}
func.func @square(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xbf16>) {
  amk.matmul %a, %b into %c : memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xbf16>
  return
}
func.func @odd_bf16(%a: memref<4097x4097xbf16>, %b: memref<4097x4097xbf16>, %c: memref<4097x4097xf32>) {
  amk.matmul %a, %b into %c : memref<4097x4097xbf16>, memref<4097x4097xbf16>, memref<4097x4097xf32>
  return
}
func.func @odd_k_bf16(%a: memref<1000x999xbf16>, %b: memref<999x1000xbf16>, %c: memref<1000x1000xf32>) {
  amk.matmul %a, %b into %c : memref<1000x999xbf16>, memref<999x1000xbf16>, memref<1000x1000xf32>
  return
}
func.func @dynamic_bf16(%a: memref<?x?xbf16>, %b: memref<?x?xbf16>, %c: memref<?x?xf32>) {
  amk.matmul %a, %b into %c : memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>
  return
}
func.func @batched(%a: memref<8x512x256xf16>, %b: memref<8x256x1024xf16>, %c: memref<8x512x1024xf16>) {
  amk.matmul %a, %b into %c : memref<8x512x256xf16>, memref<8x256x1024xf16>, memref<8x512x1024xf16>
  return
}
func.func @transposed(%a: memref<1024x256xbf16>, %b: memref<512x1024xbf16>, %c: memref<256x512xf32>) {
  amk.matmul %a, %b into %c {transpose_a, transpose_b} : memref<1024x256xbf16>, memref<512x1024xbf16>, memref<256x512xf32>
  return
}
func.func @odd_f32(%a: memref<4097x4097xf32>, %b: memref<4097x4097xf32>, %c: memref<4097x4097xf32>) {
  amk.matmul %a, %b into %c : memref<4097x4097xf32>, memref<4097x4097xf32>, memref<4097x4097xf32>
  return
}
func.func @odd_k_f32(%a: memref<1000x999xf32>, %b: memref<999x1000xf32>, %c: memref<1000x1000xf32>) {
  amk.matmul %a, %b into %c : memref<1000x999xf32>, memref<999x1000xf32>, memref<1000x1000xf32>
  return
}
func.func @dynamic_f32(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  amk.matmul %a, %b into %c : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
  return
}
func.func @batched_dynamic_tf32(%a: memref<?x?x512xf32>, %b: memref<?x512x?xf32>, %c: memref<?x?x?xf32>) {
  amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<?x?x512xf32>, memref<?x512x?xf32>, memref<?x?x?xf32>
  return
}
