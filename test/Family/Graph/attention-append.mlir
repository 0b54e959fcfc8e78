// RUN: amk-opt %s --split-input-file --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// RUN: amk-opt %s --split-input-file --amk-verify --amk-lower=stop-at=gpu | amk-opt --split-input-file --amk-verify -o /dev/null
// Decode attention that appends the new token's key and value to its
// caches (graph outputs): at the kernel's end, once every block has read
// the caches, each thread of the grid copies 16-byte runs of k and v into
// position n_m of their caches, where n_m < L.

// The output product waits on the attention's counter, which covers it:
// the append needs no wait of its own.
// CHECK-LABEL: gpu.func @k_append_covered(
// CHECK-SAME:    %[[LEN:[^:]*]]: memref<2xi32>, %{{[^:]*}}: memref<64x64xbf16>, %{{[^:]*}}: memref<2x64xbf16>, %[[KC:[^:]*]]: memref<2x8x2x16xbf16>, %[[VC:[^:]*]]: memref<2x8x2x16xbf16>, %{{[^:]*}}: memref<2x64xbf16>, %[[K:[^:]*]]: memref<2x32xbf16>, %[[V:[^:]*]]: memref<2x32xbf16>, %{{[^:]*}}: memref<2x64xbf16>, %[[C:[^:]*]]: memref<5xi32> {amk.counter})
// The product's wait on the attention (step 3).
// CHECK:         memref.atomic_rmw addi %c0_i32, %[[C]][%c3]
// CHECK:         memref.store
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         %[[FIRST:.*]] = arith.addi %{{.*}}, %thread_id_x
// CHECK-NEXT:    scf.for %[[I:.*]] = %[[FIRST]] to %c8 step %c256 {
// CHECK-NEXT:      %[[ROW:.*]] = arith.divui %[[I]], %c4
// CHECK-NEXT:      %[[REST:.*]] = arith.remui %[[I]], %c4
// CHECK-NEXT:      %[[KVH:.*]] = arith.divui %[[REST]], %c2
// CHECK-NEXT:      %[[PIECE:.*]] = arith.remui %[[REST]], %c2
// CHECK-NEXT:      %[[COL:.*]] = arith.muli %[[PIECE]], %c8
// CHECK-NEXT:      %[[L:.*]] = memref.load %[[LEN]][%[[ROW]]]
// CHECK-NEXT:      arith.maxsi %[[L]], %c0_i32
// CHECK-NEXT:      arith.minsi
// CHECK-NEXT:      %[[N:.*]] = arith.index_castui
// CHECK-NEXT:      %[[ROOM:.*]] = arith.cmpi ult, %[[N]], %c8
// CHECK-NEXT:      scf.if %[[ROOM]] {
// CHECK:             %[[KWORDS:.*]] = vector.load %[[K]][%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<2x32xbf16>, vector<8xbf16>
// CHECK-NEXT:        vector.store %[[KWORDS]], %[[KC]][%[[ROW]], %[[N]], %[[KVH]], %[[COL]]] {alignment = 16 : i64}
// CHECK-NEXT:        %[[VWORDS:.*]] = vector.load %[[V]][%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<2x32xbf16>, vector<8xbf16>
// CHECK-NEXT:        vector.store %[[VWORDS]], %[[VC]][%[[ROW]], %[[N]], %[[KVH]], %[[COL]]] {alignment = 16 : i64}
// CHECK:         gpu.return

module attributes {amk.target = #amk.target<"h200">} {
func.func @append(%x: memref<2x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>, %wv: memref<32x64xbf16>, %len: memref<2xi32>, %wo: memref<64x64xbf16>, %y: memref<2x64xbf16>, %kc: memref<2x8x2x16xbf16>, %vc: memref<2x8x2x16xbf16>) {
  amk.kernel "k_append_covered" config(#amk.graph_config<blocks = 4, threads = 64, rows_per_warp = 1, unroll = 1>) {
  amk.graph ins(%x, %wq, %wk, %wv, %len, %wo : memref<2x64xbf16>, memref<64x64xbf16>, memref<32x64xbf16>, memref<32x64xbf16>, memref<2xi32>, memref<64x64xbf16>) outs(%y, %kc, %vc : memref<2x64xbf16>, memref<2x8x2x16xbf16>, memref<2x8x2x16xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %wqa: memref<64x64xbf16>, %wka: memref<32x64xbf16>, %wva: memref<32x64xbf16>, %lena: memref<2xi32>, %woa: memref<64x64xbf16>, %ya: memref<2x64xbf16>, %kca: memref<2x8x2x16xbf16>, %vca: memref<2x8x2x16xbf16>):
    %q = amk.graph_buffer : memref<2x64xbf16>
    %k = amk.graph_buffer : memref<2x32xbf16>
    %v = amk.graph_buffer : memref<2x32xbf16>
    %att = amk.graph_buffer : memref<2x64xbf16>
    amk.matmul %xa, %wqa into %q {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
    amk.matmul %xa, %wka into %k {transpose_b} : memref<2x64xbf16>, memref<32x64xbf16>, memref<2x32xbf16>
    amk.matmul %xa, %wva into %v {transpose_b} : memref<2x64xbf16>, memref<32x64xbf16>, memref<2x32xbf16>
    amk.decode_attention %q, %k, %v cache(%kca, %vca) lengths(%lena) into %att {heads = 4, kv_heads = 2, append} : memref<2x64xbf16>, memref<2x32xbf16>, memref<2x32xbf16>, memref<2x8x2x16xbf16>, memref<2x8x2x16xbf16>, memref<2xi32>, memref<2x64xbf16>
    amk.matmul %att, %woa into %ya {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
  }
  }
  return
}
}

// -----

// Attention is the last step: it signals its counter, and the kernel's
// end waits for every block before appending.
// CHECK-LABEL: gpu.func @k_append_last(
// CHECK-SAME:    %[[C:[^:]*]]: memref<4xi32> {amk.counter})
// CHECK:         memref.atomic_rmw addi %c1_i32, %[[C]][%c3]
// CHECK:         scf.while
// CHECK-NEXT:      memref.atomic_rmw addi %c0_i32, %[[C]][%c3]
// CHECK-NEXT:      arith.cmpi ult, %{{.*}}, %c4_i32
// CHECK:         gpu.barrier
// CHECK:         scf.for
// CHECK:           vector.store
// CHECK:           vector.store
// CHECK:         gpu.return

module attributes {amk.target = #amk.target<"h200">} {
func.func @append(%x: memref<2x64xbf16>, %wq: memref<64x64xbf16>, %wk: memref<32x64xbf16>, %wv: memref<32x64xbf16>, %len: memref<2xi32>, %y: memref<2x64xbf16>, %kc: memref<2x8x2x16xbf16>, %vc: memref<2x8x2x16xbf16>) {
  amk.kernel "k_append_last" config(#amk.graph_config<blocks = 4, threads = 64, rows_per_warp = 1, unroll = 1>) {
  amk.graph ins(%x, %wq, %wk, %wv, %len : memref<2x64xbf16>, memref<64x64xbf16>, memref<32x64xbf16>, memref<32x64xbf16>, memref<2xi32>) outs(%y, %kc, %vc : memref<2x64xbf16>, memref<2x8x2x16xbf16>, memref<2x8x2x16xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %wqa: memref<64x64xbf16>, %wka: memref<32x64xbf16>, %wva: memref<32x64xbf16>, %lena: memref<2xi32>, %ya: memref<2x64xbf16>, %kca: memref<2x8x2x16xbf16>, %vca: memref<2x8x2x16xbf16>):
    %q = amk.graph_buffer : memref<2x64xbf16>
    %k = amk.graph_buffer : memref<2x32xbf16>
    %v = amk.graph_buffer : memref<2x32xbf16>
    amk.matmul %xa, %wqa into %q {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
    amk.matmul %xa, %wka into %k {transpose_b} : memref<2x64xbf16>, memref<32x64xbf16>, memref<2x32xbf16>
    amk.matmul %xa, %wva into %v {transpose_b} : memref<2x64xbf16>, memref<32x64xbf16>, memref<2x32xbf16>
    amk.decode_attention %q, %k, %v cache(%kca, %vca) lengths(%lena) into %ya {heads = 4, kv_heads = 2, append} : memref<2x64xbf16>, memref<2x32xbf16>, memref<2x32xbf16>, memref<2x8x2x16xbf16>, memref<2x8x2x16xbf16>, memref<2xi32>, memref<2x64xbf16>
  }
  }
  return
}
}
