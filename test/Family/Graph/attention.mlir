// RUN: amk-opt %s --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// RUN: amk-opt %s --amk-verify --amk-lower=stop-at=gpu | amk-opt --amk-verify -o /dev/null
// RUN: rm -rf %t && amk-opt %s --amk-verify --amk-lower="bundle-dir=%t cache=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/k_attention.json
// Decode attention over a KV cache as a graph step: 3 sequences, 4 query
// heads of 64 sharing 2 key/value heads, caches of 5 positions. A unit is
// a sequence and the 2 query heads of one key/value head (6 units fill
// the 4 blocks), so each key and value load serves both; block b takes
// units b, b + 4. A head's 64 f32 are runs of 4 on 16 lanes, so a warp
// takes 2 positions at a time, 4 per lane group per iteration. The new
// token seeds warp 0's slot 0; the lengths are clamped to [0, 5], and a
// lane past them reads position 4.

// CHECK-LABEL: gpu.func @k_attention(
// CHECK-SAME:    %[[Q:[^:]*]]: memref<3x256xf32>, %[[K:[^:]*]]: memref<3x128xf32>, %[[V:[^:]*]]: memref<3x128xf32>, %[[KC:[^:]*]]: memref<3x5x2x64xf32>, %[[VC:[^:]*]]: memref<3x5x2x64xf32>, %[[LEN:[^:]*]]: memref<3xi32>, %[[O:[^:]*]]: memref<3x256xf32>, %[[CTR:[^:]*]]: memref<1xi32> {amk.counter})
// CHECK-SAME:    amk.dynamic_smem_bytes = 1056
// CHECK:         %[[LANE:.*]] = arith.remui %thread_id_x, %c32
// CHECK:         %[[WARP:.*]] = arith.divui %thread_id_x, %c32
// CHECK:         %[[SLOT:.*]] = arith.divui %[[LANE]], %c16
// CHECK:         %[[PART:.*]] = arith.remui %[[LANE]], %c16
// CHECK:         %[[COL:.*]] = arith.muli %[[PART]], %c4
// CHECK:         scf.for %[[U:.*]] = %block_id_x to %c6 step %c4 {
// CHECK-NEXT:      %[[ROW:.*]] = arith.divui %[[U]], %c2
// CHECK-NEXT:      %[[PAIR:.*]] = arith.remui %[[U]], %c2
// CHECK-NEXT:      %[[HEAD:.*]] = arith.muli %[[PAIR]], %c2
// CHECK-NEXT:      %[[KVH:.*]] = arith.divui %[[HEAD]], %c2
// n_m: the length clamped to [0, 5].
// CHECK:           %[[LOADED:.*]] = memref.load %[[LEN]][%[[ROW]]] : memref<3xi32>
// CHECK-NEXT:      %[[AT_LEAST:.*]] = arith.maxsi %[[LOADED]], %c0_i32
// CHECK-NEXT:      %[[CLAMPED:.*]] = arith.minsi %[[AT_LEAST]], %c5_i32
// CHECK-NEXT:      %[[N:.*]] = arith.index_castui %[[CLAMPED]] : i32 to index
// The two heads' query runs, scaled by 1/sqrt(64) * log2(e).
// CHECK:           vector.load %[[Q]][%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<3x256xf32>, vector<4xf32>
// CHECK:           arith.mulf %{{.*}}, %cst
// CHECK:           vector.load %[[Q]][%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<3x256xf32>, vector<4xf32>
// The new token's key and value, its scores: the 16 lanes' dots summed by
// xor shuffles.
// CHECK:           vector.load %[[K]][%[[ROW]], %{{.*}}]
// CHECK:           vector.load %[[V]][%[[ROW]], %{{.*}}]
// CHECK:           gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32
// CHECK:           %[[START:.*]] = arith.muli %[[WARP]], %c2
// CHECK-NEXT:      scf.for %[[P:.*]] = %[[START]] to %[[N]] step %c16 iter_args(
// CHECK-NEXT:        %[[FIRST:.*]] = arith.addi %[[P]], %[[SLOT]]
// CHECK-NEXT:        arith.cmpi ult, %[[FIRST]], %[[N]]
// CHECK-NEXT:        %[[AT:.*]] = arith.minui %[[FIRST]], %c4
// CHECK-NEXT:        vector.load %[[KC]][%[[ROW]], %[[AT]], %[[KVH]], %[[COL]]] {alignment = 16 : i64} : memref<3x5x2x64xf32>, vector<4xf32>
// CHECK:             vector.load %[[VC]][%[[ROW]], %[[AT]], %[[KVH]], %[[COL]]] {alignment = 16 : i64} : memref<3x5x2x64xf32>, vector<4xf32>
// Each key run serves both heads: 2 scores per position.
// CHECK-COUNT-2:     gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32
// CHECK:             math.exp2
// CHECK:             scf.yield
// The two slots merge (lanes 16 apart), then the warps in shared memory.
// CHECK:           gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32
// CHECK:           math.exp2
// CHECK:           gpu.barrier
// CHECK-NEXT:      scf.for %[[E:.*]] = %thread_id_x to %c128 step %c64 {
// CHECK:             arith.divf
// CHECK:             %[[OCOL:.*]] = arith.addi %{{.*}}, %[[E]]
// CHECK-NEXT:        memref.store %{{.*}}, %[[O]][%[[ROW]], %[[OCOL]]] : memref<3x256xf32>
// CHECK:           gpu.barrier
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         gpu.return

// MANIFEST:      "name": "in3",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   "M0",
// MANIFEST-NEXT:   "L0",
// MANIFEST-NEXT:   "H0",
// MANIFEST-NEXT:   "D0"
// MANIFEST:      "elem": "i32",
// MANIFEST-NEXT: "kind": "memref",
// MANIFEST-NEXT: "name": "in5",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT:   "M0"
// MANIFEST:      "op": "attention",
// MANIFEST:      "status": "verified"

module attributes {amk.target = #amk.target<"h200">} {
func.func @attention(%q: memref<3x256xf32>, %k: memref<3x128xf32>, %v: memref<3x128xf32>, %kc: memref<3x5x2x64xf32>, %vc: memref<3x5x2x64xf32>, %len: memref<3xi32>, %o: memref<3x256xf32>) {
  amk.kernel "k_attention" config(#amk.graph_config<blocks = 4, threads = 64, rows_per_warp = 1, unroll = 1>) {
  amk.graph ins(%q, %k, %v, %kc, %vc, %len : memref<3x256xf32>, memref<3x128xf32>, memref<3x128xf32>, memref<3x5x2x64xf32>, memref<3x5x2x64xf32>, memref<3xi32>) outs(%o : memref<3x256xf32>) {
  ^bb0(%qa: memref<3x256xf32>, %ka: memref<3x128xf32>, %va: memref<3x128xf32>, %kca: memref<3x5x2x64xf32>, %vca: memref<3x5x2x64xf32>, %lena: memref<3xi32>, %oa: memref<3x256xf32>):
    amk.decode_attention %qa, %ka, %va cache(%kca, %vca) lengths(%lena) into %oa {heads = 4, kv_heads = 2} : memref<3x256xf32>, memref<3x128xf32>, memref<3x128xf32>, memref<3x5x2x64xf32>, memref<3x5x2x64xf32>, memref<3xi32>, memref<3x256xf32>
  }
  }
  return
}
}
