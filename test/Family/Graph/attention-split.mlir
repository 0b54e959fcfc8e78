// RUN: amk-opt %s --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// RUN: amk-opt %s --amk-verify --amk-lower=stop-at=gpu | amk-opt --amk-verify -o /dev/null
// Decode attention with fewer units than blocks (flash decoding): one
// sequence, 2 query heads on one key/value head, a cache of 50 positions,
// 8 blocks. Both heads make one unit (each key and value load serves
// both); its positions split into 2 parts of 25 (a round of a block's
// positions is 32), 2 tasks. Each task's state (per head 32 outputs, the
// maximum, the sum) goes to the workspace of parts, then every block
// signals the parts' counter (counter 2, after the steps' two), waits for
// all 8, and merges the parts of its units into o. The product after it
// waits on the attention step's own counter.

// CHECK:       %[[CTR:.*]] = gpu.alloc  () : memref<3xi32>
// CHECK-NEXT:  %[[PARTS:.*]] = gpu.alloc  () : memref<136xf32>
// CHECK-LABEL: gpu.func @k_split(
// CHECK-SAME:    %{{[^:]*}}: memref<1x50x1x32xf32>, %{{[^:]*}}: memref<1x50x1x32xf32>, %[[LEN:[^:]*]]: memref<1xi32>, %{{[^:]*}}: memref<16x64xf32>, %{{[^:]*}}: memref<1x16xf32>, %[[ATT:[^:]*]]: memref<1x64xf32>, %[[C:[^:]*]]: memref<3xi32> {amk.counter}, %[[P:[^:]*]]: memref<136xf32>)
// Two tasks for 8 blocks: straight code, block b on task min(b, 1); the
// blocks past the tasks fold no position and write nothing.
// CHECK:         %[[T:.*]] = arith.minui %block_id_x, %c1
// CHECK-NEXT:    %[[REAL:.*]] = arith.cmpi ult, %block_id_x, %c2
// CHECK-NEXT:    %[[UNIT:.*]] = arith.divui %[[T]], %c2
// CHECK-NEXT:    %[[PART:.*]] = arith.remui %[[T]], %c2
// CHECK:           memref.load %[[LEN]]
// CHECK:           %[[N:.*]] = arith.index_castui
// The new token seeds part 0 only.
// CHECK:           arith.cmpi eq, %[[PART]], %c0
// CHECK:           %[[SLOTS:.*]] = arith.muli %{{.*}}, %c4
// CHECK-NEXT:      %[[FROM:.*]] = arith.muli %[[PART]], %c25
// CHECK-NEXT:      %[[BEGIN:.*]] = arith.addi %[[FROM]], %[[SLOTS]]
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[PART]], %c1
// CHECK-NEXT:      %[[TO:.*]] = arith.muli %[[NEXT]], %c25
// CHECK-NEXT:      %[[END:.*]] = arith.minui %[[N]], %[[TO]]
// CHECK-NEXT:      %[[LAST:.*]] = arith.select %[[REAL]], %[[END]], %[[BEGIN]]
// CHECK-NEXT:      scf.for %{{.*}} = %[[BEGIN]] to %[[LAST]] step %c32
// The task's state into the parts: outputs, then maximum and sum.
// CHECK:           gpu.barrier
// CHECK:           scf.if %[[REAL]] {
// CHECK:           memref.store %{{.*}}, %[[P]][%{{.*}}] : memref<136xf32>
// CHECK:           scf.if
// CHECK-COUNT-2:       memref.store %{{.*}}, %[[P]][%{{.*}}] : memref<136xf32>
// CHECK:           gpu.barrier
// CHECK:         memref.atomic_rmw addi %c1_i32, %[[C]][%c2]
// CHECK:         scf.while
// CHECK-NEXT:      memref.atomic_rmw addi %c0_i32, %[[C]][%c2]
// CHECK-NEXT:      arith.cmpi ult, %{{.*}}, %c8_i32
// CHECK:         gpu.barrier
// One unit for 8 blocks: block 0 merges it (a branch, not a loop).
// CHECK-NEXT:    %[[MINE:.*]] = arith.cmpi ult, %block_id_x, %c1
// CHECK-NEXT:    scf.if %[[MINE]] {
// Both parts' maxima, sums and outputs are loaded before the first fold.
// CHECK-COUNT-6:     memref.load %[[P]]
// CHECK-NOT:         memref.load
// CHECK:             math.exp2
// CHECK:           arith.divf
// CHECK:           memref.store %{{.*}}, %[[ATT]]
// CHECK:         memref.atomic_rmw addi %c1_i32, %[[C]][%c0]
// CHECK:         scf.while
// CHECK-NEXT:      memref.atomic_rmw addi %c0_i32, %[[C]][%c0]
// CHECK:         gpu.return

module attributes {amk.target = #amk.target<"h200">} {
func.func @split(%q: memref<1x64xf32>, %k: memref<1x32xf32>, %v: memref<1x32xf32>, %kc: memref<1x50x1x32xf32>, %vc: memref<1x50x1x32xf32>, %len: memref<1xi32>, %wo: memref<16x64xf32>, %o: memref<1x16xf32>) {
  amk.kernel "k_split" config(#amk.graph_config<blocks = 8, threads = 64, rows_per_warp = 1, unroll = 1>) {
  amk.graph ins(%q, %k, %v, %kc, %vc, %len, %wo : memref<1x64xf32>, memref<1x32xf32>, memref<1x32xf32>, memref<1x50x1x32xf32>, memref<1x50x1x32xf32>, memref<1xi32>, memref<16x64xf32>) outs(%o : memref<1x16xf32>) {
  ^bb0(%qa: memref<1x64xf32>, %ka: memref<1x32xf32>, %va: memref<1x32xf32>, %kca: memref<1x50x1x32xf32>, %vca: memref<1x50x1x32xf32>, %lena: memref<1xi32>, %woa: memref<16x64xf32>, %oa: memref<1x16xf32>):
    %att = amk.graph_buffer : memref<1x64xf32>
    amk.decode_attention %qa, %ka, %va cache(%kca, %vca) lengths(%lena) into %att {heads = 2, kv_heads = 1} : memref<1x64xf32>, memref<1x32xf32>, memref<1x32xf32>, memref<1x50x1x32xf32>, memref<1x50x1x32xf32>, memref<1xi32>, memref<1x64xf32>
    amk.matmul %att, %woa into %oa {transpose_b} : memref<1x64xf32>, memref<16x64xf32>, memref<1x16xf32>
  }
  }
  return
}
}
