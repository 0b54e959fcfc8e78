// RUN: amk-opt %s --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// The tensor-core body with the weights staged through each warp's shared
// memory (warp_staged): K = 552 is two chunks of 256 columns, staged, and
// a direct tail of 40. The second product (N = 72: three tiles per block,
// so K is split over two groups of warps) has no whole chunk per group
// and loads its weights directly. Each
// warp's 16 rows (two tile slots of 8) take a load of 512 contiguous bytes
// each (16 bytes per lane at column 8 * lane of the chunk), go to the
// warp's rows of the staging (rows of 132 words: 128 and a pad), and come
// back after a warp barrier as lane (g, q)'s 16 bytes at column 32 j + 8 q
// of row g of each slot, the direct body's words. A warp barrier before
// the next chunk's stores retires the reads. The harness proves it (the
// warp barriers order each warp's lanes; warps stage disjoint rows).

// CHECK:       gpu.launch_func @staged_k::@staged_k {{.*}} threads in (%c128, {{.*}} dynamic_shared_memory_size %c37888_i32
// CHECK:       gpu.func @staged_k(
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK:         %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK:         %[[STAGING:.*]] = memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x132xi32, #gpu.address_space<workgroup>>
// CHECK:         %[[BASE:.*]] = arith.muli %[[WARP]], %c16
// CHECK:         %[[COL:.*]] = arith.muli %[[LANE]], %c8
// CHECK:         vector.load %arg1[%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<256x552xbf16>, vector<8xbf16>
// CHECK:         nvvm.bar.warp.sync %c-1_i32 : i32
// CHECK:         %[[WORD:.*]] = arith.muli %[[LANE]], %c4
// CHECK:         vector.store %{{.*}}, %[[STAGING]][%[[BASE]], %[[WORD]]] : memref<64x132xi32, #gpu.address_space<workgroup>>, vector<4xi32>
// CHECK-COUNT-15: vector.store %{{.*}}, %[[STAGING]]
// CHECK:         nvvm.bar.warp.sync %c-1_i32 : i32
// The next chunk's loads, then the first piece's products from the staging.
// CHECK:         vector.load %arg1[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<256x552xbf16>, vector<8xbf16>
// CHECK:         vector.load %[[STAGING]][%{{.*}}, %{{.*}}] : memref<64x132xi32, #gpu.address_space<workgroup>>, vector<4xi32>
// CHECK:         nvvm.mma.sync
// CHECK:         nvvm.bar.warp.sync %c-1_i32 : i32
// CHECK:         nvvm.bar.warp.sync %c-1_i32 : i32
// The tail of 40 columns, loaded directly.
// CHECK:         vector.load %arg1[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<256x552xbf16>, vector<8xbf16>
// CHECK:         nvvm.mma.sync
// CHECK:         nvvm.memory.barrier <gpu>
// The second product, after its wait: direct loads only.
// CHECK:         scf.while
// CHECK-NOT:     nvvm.bar.warp.sync
// CHECK:         vector.load %arg2[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<72x256xbf16>, vector<8xbf16>
// CHECK-NOT:     nvvm.bar.warp.sync
// CHECK:         gpu.return
module attributes {amk.target = #amk.target<"h200">} {
func.func @staged(%x: memref<16x552xbf16>, %w1: memref<256x552xbf16>, %h: memref<16x256xbf16>, %w2: memref<72x256xbf16>, %y: memref<16x72xbf16>) {
  amk.kernel "staged_k" config(#amk.graph_config<blocks = 4, threads = 128, rows_per_warp = 2, unroll = 1, math = mma_sync, warp_staged = true>) {
    amk.graph ins(%x, %w1, %w2 : memref<16x552xbf16>, memref<256x552xbf16>, memref<72x256xbf16>) outs(%h, %y : memref<16x256xbf16>, memref<16x72xbf16>) {
    ^bb0(%xa: memref<16x552xbf16>, %w1a: memref<256x552xbf16>, %w2a: memref<72x256xbf16>, %ha: memref<16x256xbf16>, %ya: memref<16x72xbf16>):
      amk.matmul %xa, %w1a into %ha {transpose_b, activation = #amk.activation<gelu>} : memref<16x552xbf16>, memref<256x552xbf16>, memref<16x256xbf16>
      amk.matmul %ha, %w2a into %ya {transpose_b} : memref<16x256xbf16>, memref<72x256xbf16>, memref<16x72xbf16>
    }
  }
  return
}
}
