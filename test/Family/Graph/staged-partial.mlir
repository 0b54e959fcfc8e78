// RUN: amk-opt %s --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// The warp-staged body on a partial last tile (N = 696: 87 tiles, 8
// blocks x 4 warps) and K = 1000 (three staged chunks of 256, a direct
// tail of 232): a warp's weight rows past N load row 695 instead (a clamp
// the harness needs: without it the loads leave the buffer, AMK-OOB), so
// every whole-row load and every transpose stays in bounds and the
// kernel is proven.
// CHECK-LABEL: gpu.func @k_staged_m16_k1000(
// CHECK-COUNT-8: arith.minui %{{.*}}, %c695 : index
// CHECK:         vector.load %arg1[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<696x1000xbf16>, vector<8xbf16>
// CHECK:         gpu.shuffle xor
// CHECK:         nvvm.mma.sync
module attributes {amk.target = #amk.target<"h200">} {
func.func @staged_m16_k1000(%x: memref<16x1000xbf16>, %w0: memref<696x1000xbf16>, %w1: memref<1000x696xbf16>, %y: memref<16x1000xbf16>) {
  amk.kernel "k_staged_m16_k1000" config(#amk.graph_config<blocks = 8, threads = 128, rows_per_warp = 1, unroll = 1, math = mma_sync, warp_staged = true>) {
  amk.graph ins(%x, %w0, %w1 : memref<16x1000xbf16>, memref<696x1000xbf16>, memref<1000x696xbf16>) outs(%y : memref<16x1000xbf16>) {
  ^bb0(%xa: memref<16x1000xbf16>, %w0a: memref<696x1000xbf16>, %w1a: memref<1000x696xbf16>, %ya: memref<16x1000xbf16>):
    %h0 = amk.graph_buffer : memref<16x696xbf16>
    amk.matmul %xa, %w0a into %h0 {transpose_b, activation = #amk.activation<silu>} : memref<16x1000xbf16>, memref<696x1000xbf16>, memref<16x696xbf16>
    amk.matmul %h0, %w1a into %ya {transpose_b} : memref<16x696xbf16>, memref<1000x696xbf16>, memref<16x1000xbf16>
  }
  }
  return
}
}
