// RUN: amk-opt %s --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// The tensor-core body with each warp's weight rows loaded whole and
// transposed in registers (warp_staged): K = 552 is two chunks of 256
// columns, staged, and a direct tail of 40. The second product (N = 72:
// three tiles per block, so K is split over two groups of warps) has no
// whole chunk per group and loads its weights directly; its partial sums
// are the only shared memory (128 threads x 2 tiles x 4 floats). Each
// warp's 16 rows (two tile slots of 8) take a load of 512 contiguous bytes
// each (16 bytes per lane at column 8 * lane of the chunk); per slot, three
// rounds of xor shuffles (lanes 4, 8 and 16 apart, the blocks chosen by
// bit 0, 1 and 2 of g = lane / 4) transpose the 8 x 8 blocks so lane
// (g, q) holds the 16 bytes at column 32 j + 8 q of row g, the direct
// body's words. The next chunk's loads are issued before the transpose.
// The harness proves it.

// CHECK:       gpu.launch_func @staged_k::@staged_k {{.*}} threads in (%c128, {{.*}} dynamic_shared_memory_size %c4096_i32
// CHECK:       gpu.func @staged_k(
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK:         %[[G:.*]] = arith.divui %[[LANE]], %c4
// CHECK:         %[[COL:.*]] = arith.muli %[[LANE]], %c8
// CHECK-COUNT-16: vector.load %arg1[%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<256x552xbf16>, vector<8xbf16>
// The second chunk's 16 loads, then the first chunk's transposes.
// CHECK-COUNT-16: vector.load %arg1[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<256x552xbf16>, vector<8xbf16>
// CHECK:         %[[BIT0:.*]] = arith.andi %[[G]], %c1
// CHECK:         %[[UPPER0:.*]] = arith.cmpi ne, %[[BIT0]], %c0
// CHECK:         %[[SEND:.*]] = arith.select %[[UPPER0]], %[[LOW:.*]], %[[HIGH:.*]] : vector<4xi32>
// CHECK:         %[[W0:.*]] = vector.extract %[[SEND]][0]
// CHECK:         gpu.shuffle xor %[[W0]], %c4_i32, %c32_i32 : i32
// CHECK-COUNT-3: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : i32
// CHECK:         %[[GOT:.*]] = vector.from_elements
// CHECK:         arith.select %[[UPPER0]], %[[GOT]], %[[LOW]] : vector<4xi32>
// CHECK:         arith.select %[[UPPER0]], %[[HIGH]], %[[GOT]] : vector<4xi32>
// CHECK-COUNT-12: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : i32
// CHECK:         arith.andi %[[G]], %c2
// CHECK-COUNT-16: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : i32
// CHECK:         arith.andi %[[G]], %c4
// CHECK-COUNT-16: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : i32
// The second slot's transpose, then the products.
// CHECK-COUNT-48: gpu.shuffle xor
// CHECK-NOT:     gpu.shuffle
// CHECK:         nvvm.mma.sync
// The tail of 40 columns, loaded directly.
// CHECK:         vector.load %arg1[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<256x552xbf16>, vector<8xbf16>
// CHECK:         nvvm.mma.sync
// CHECK:         nvvm.memory.barrier <gpu>
// The second product, after its wait: direct loads only.
// CHECK:         scf.while
// CHECK-NOT:     gpu.shuffle
// CHECK:         vector.load %arg2[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<72x256xbf16>, vector<8xbf16>
// CHECK-NOT:     gpu.shuffle
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
