// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-plan --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// Operands that state different sizes, and a dynamic batch.

// A leaves K dynamic and B leaves N dynamic, which B and C fix: the kernel
// takes them at those sizes (static K and N; only M stays dynamic), and the
// launch checks and casts them.
// CHECK-LABEL: func.func @mixed
// CHECK-SAME:    (%[[A:.*]]: memref<?x?xbf16>, %[[B:.*]]: memref<999x?xbf16>, %[[C:.*]]: memref<?x1000xbf16>)
// CHECK:         %[[K:.*]] = memref.dim %[[A]], %c1
// CHECK:         %[[KOK:.*]] = arith.cmpi eq, %[[K]], %c999
// CHECK:         cf.assert %[[KOK]], "amk.matmul: size 1 of A must be 999"
// CHECK:         %[[A2:.*]] = memref.cast %[[A]] : memref<?x?xbf16> to memref<?x999xbf16>
// CHECK:         cf.assert {{.*}}, "amk.matmul: size 1 of B must be 1000"
// CHECK:         %[[B2:.*]] = memref.cast %[[B]] : memref<999x?xbf16> to memref<999x1000xbf16>
// CHECK:         gpu.launch_func @{{.*}} args(%[[A2]] : memref<?x999xbf16>, %[[B2]] : memref<999x1000xbf16>, %[[C]] : memref<?x1000xbf16>
// CHECK:       gpu.func @{{.*}}(%{{.*}}: memref<?x999xbf16>, %{{.*}}: memref<999x1000xbf16>, %{{.*}}: memref<?x1000xbf16>{{.*}}) kernel
func.func @mixed(%a: memref<?x?xbf16>, %b: memref<999x?xbf16>, %c: memref<?x1000xbf16>) {
  amk.matmul %a, %b into %c : memref<?x?xbf16>, memref<999x?xbf16>, memref<?x1000xbf16>
  return
}

// -----

// The batch is dynamic everywhere: the grid's z is C's batch, and blocks
// past any operand's batch do nothing.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK:         %[[BATCH:.*]] = memref.dim %{{.*}}, %c0 : memref<?x?x?xf32>
// CHECK:         gpu.launch_func @{{.*}} blocks in ({{.*}}, {{.*}}, %[[BATCH]])
// CHECK:       gpu.func @{{.*}}(%[[A:.*]]: memref<?x?x?xf32>, %[[B:.*]]: memref<?x?x?xf32>, %[[C:.*]]: memref<?x?x?xf32>) kernel
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK:         %[[NA:.*]] = memref.dim %[[A]], %c0
// CHECK:         %[[OKA:.*]] = arith.cmpi ult, %[[Z]], %[[NA]]
// CHECK:         %[[NB:.*]] = memref.dim %[[B]], %c0
// CHECK:         %[[OKB:.*]] = arith.cmpi ult, %[[Z]], %[[NB]]
// CHECK:         %[[AB:.*]] = arith.andi %[[OKA]], %[[OKB]]
// CHECK:         %[[NC:.*]] = memref.dim %[[C]], %c0
// CHECK:         %[[OKC:.*]] = arith.cmpi ult, %[[Z]], %[[NC]]
// CHECK:         %[[ALL:.*]] = arith.andi %[[AB]], %[[OKC]]
// CHECK:         scf.if %[[ALL]] {
// CHECK:           memref.subview %[[A]][%[[Z]], 0, 0]
// CHECK:           gpu.barrier
// CHECK:         gpu.return
func.func @dynamic_batch(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  amk.matmul %a, %b into %c : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>
  return
}
