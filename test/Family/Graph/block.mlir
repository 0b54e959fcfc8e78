// RUN: amk-opt %s --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// A Llama-style MLP block as one megakernel: RMSNorm (the row family's
// tile body, a row per block), gate (SiLU) and up products, their
// product, the down product, the residual add. Two grid waits: the
// products read the whole norm (counter 0; up is covered by gate's wait),
// down reads the whole product of gate and up (counter 3). The
// elementwise steps read only their own block's columns: a barrier each.

// CHECK-LABEL: gpu.func @k_block(
// CHECK-SAME:    %[[X:[^:]*]]: memref<2x64xbf16>, %[[G:[^:]*]]: memref<64xbf16>, %[[WG:[^:]*]]: memref<128x64xbf16>, %[[WU:[^:]*]]: memref<128x64xbf16>, %[[WD:[^:]*]]: memref<64x128xbf16>, %[[Y:[^:]*]]: memref<2x64xbf16>, %[[N:[^:]*]]: memref<2x64xbf16>, %[[GATE:[^:]*]]: memref<2x128xbf16>, %[[UP:[^:]*]]: memref<2x128xbf16>, %[[HID:[^:]*]]: memref<2x128xbf16>, %[[DOWN:[^:]*]]: memref<2x64xbf16>, %[[C:[^:]*]]: memref<6xi32> {amk.counter})
// CHECK-SAME:    amk.dynamic_smem_bytes = 32
// Step 0: block b normalizes row b: the sum of squares over its runs, the
// block's combine (xor shuffles, shared memory, a barrier), rsqrt, the
// output pass scaled by the weight.
// CHECK:         vector.load %[[X]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<2x64xbf16>, vector<8xbf16>
// CHECK:         gpu.shuffle  xor
// CHECK:         gpu.barrier
// CHECK:         math.rsqrt
// CHECK:         vector.load %[[G]][%{{.*}}] {alignment = 16 : i64} : memref<64xbf16>, vector<8xbf16>
// CHECK:         vector.store %{{.*}}, %[[N]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<2x64xbf16>, vector<8xbf16>
// CHECK:         gpu.barrier
// Release step 0, then gate acquires it.
// CHECK:         memref.atomic_rmw addi %c1_i32, %[[C]][%c0]
// CHECK:         scf.while
// CHECK-NEXT:      memref.atomic_rmw addi %c0_i32, %[[C]][%c0]
// CHECK:         gpu.barrier
// CHECK:         vector.load %[[WG]]
// CHECK:         vector.load %[[N]]
// CHECK:         arith.divf
// CHECK:         memref.store %{{.*}}, %[[GATE]][%c0, %{{.*}}] : memref<2x128xbf16>
// Up: no wait of its own.
// CHECK-NOT:     scf.while
// CHECK:         vector.load %[[WU]]
// CHECK:         memref.store %{{.*}}, %[[UP]][%c0, %{{.*}}] : memref<2x128xbf16>
// The product of gate and up: the block's own columns bid + 4 s, after a
// barrier.
// CHECK:         memref.store %{{.*}}, %[[UP]][%c1, %{{.*}}] : memref<2x128xbf16>
// CHECK:         gpu.barrier
// CHECK-NEXT:    scf.for %[[E:.*]] = %thread_id_x to %c64 step %c64 {
// CHECK-NEXT:      %[[SLOT:.*]] = arith.divui %[[E]], %c2 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.remui %[[E]], %c2 : index
// CHECK-NEXT:      %[[S4:.*]] = arith.muli %[[SLOT]], %c4 : index
// CHECK-NEXT:      %[[COL:.*]] = arith.addi %block_id_x, %[[S4]] : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[COL]], %c128 : index
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK-NEXT:        memref.load %[[GATE]][%[[ROW]], %[[COL]]]
// CHECK-NEXT:        arith.extf
// CHECK-NEXT:        memref.load %[[UP]][%[[ROW]], %[[COL]]]
// CHECK-NEXT:        arith.extf
// CHECK-NEXT:        arith.mulf
// CHECK-NEXT:        arith.truncf
// CHECK-NEXT:        memref.store %{{.*}}, %[[HID]][%[[ROW]], %[[COL]]]
// Release step 3, down acquires it.
// CHECK:         memref.atomic_rmw addi %c1_i32, %[[C]][%c3]
// CHECK:         scf.while
// CHECK-NEXT:      memref.atomic_rmw addi %c0_i32, %[[C]][%c3]
// CHECK:         vector.load %[[WD]]
// CHECK:         memref.store %{{.*}}, %[[DOWN]][%c0, %{{.*}}] : memref<2x64xbf16>
// The residual: x plus the block's own columns of down.
// CHECK:         gpu.barrier
// CHECK-NEXT:    scf.for
// CHECK:           memref.load %[[X]]
// CHECK:           memref.load %[[DOWN]]
// CHECK:           arith.addf
// CHECK:           memref.store %{{.*}}, %[[Y]]
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         gpu.return

module attributes {amk.target = #amk.target<"h200">} {
func.func @block(%x: memref<2x64xbf16>, %g: memref<64xbf16>, %wg: memref<128x64xbf16>, %wu: memref<128x64xbf16>, %wd: memref<64x128xbf16>, %y: memref<2x64xbf16>) {
  amk.kernel "k_block" config(#amk.graph_config<blocks = 4, threads = 64, rows_per_warp = 1, unroll = 1>) {
  amk.graph ins(%x, %g, %wg, %wu, %wd : memref<2x64xbf16>, memref<64xbf16>, memref<128x64xbf16>, memref<128x64xbf16>, memref<64x128xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %ga: memref<64xbf16>, %wga: memref<128x64xbf16>, %wua: memref<128x64xbf16>, %wda: memref<64x128xbf16>, %ya: memref<2x64xbf16>):
    %n = amk.graph_buffer : memref<2x64xbf16>
    %gate = amk.graph_buffer : memref<2x128xbf16>
    %up = amk.graph_buffer : memref<2x128xbf16>
    %hid = amk.graph_buffer : memref<2x128xbf16>
    %down = amk.graph_buffer : memref<2x64xbf16>
    amk.row_reduce %xa weight(%ga) into %n {kind = #amk.row_op<rms_norm>, eps = 1.0e-6} : memref<2x64xbf16>, memref<64xbf16>, memref<2x64xbf16>
    amk.matmul %n, %wga into %gate {transpose_b, activation = #amk.activation<silu>} : memref<2x64xbf16>, memref<128x64xbf16>, memref<2x128xbf16>
    amk.matmul %n, %wua into %up {transpose_b} : memref<2x64xbf16>, memref<128x64xbf16>, memref<2x128xbf16>
    linalg.mul ins(%gate, %up : memref<2x128xbf16>, memref<2x128xbf16>) outs(%hid : memref<2x128xbf16>)
    amk.matmul %hid, %wda into %down {transpose_b} : memref<2x128xbf16>, memref<64x128xbf16>, memref<2x64xbf16>
    linalg.add ins(%xa, %down : memref<2x64xbf16>, memref<2x64xbf16>) outs(%ya : memref<2x64xbf16>)
  }
  }
  return
}
}
