// RUN: amk-opt %s --amk-pipeline="target=h200 stop-at=gpu cache=false" | FileCheck %s
// A chain of 36 steps (the most whose descriptors fit a kernel's 4352
// bytes of parameters is about 38): one kernel whose name is the
// signature's start and a hash (the whole would be 568 characters), 35
// counter waits, and a race proof that stays linear in the steps (each
// counter orders only its own step's writes).

// CHECK: gpu.func @graph_1x64x64_bf16_1x64x64s0_bf16_{{[0-9a-z_]+}}_{{[0-9a-f]+}}(
// CHECK-SAME: memref<36xi32> {amk.counter}
// CHECK-COUNT-35: scf.while
// CHECK-NOT: scf.while
// CHECK: gpu.return
func.func @chain(%x: memref<1x64xbf16>, %w0: memref<64x64xbf16>, %w1: memref<64x64xbf16>, %w2: memref<64x64xbf16>, %w3: memref<64x64xbf16>, %w4: memref<64x64xbf16>, %w5: memref<64x64xbf16>, %w6: memref<64x64xbf16>, %w7: memref<64x64xbf16>, %w8: memref<64x64xbf16>, %w9: memref<64x64xbf16>, %w10: memref<64x64xbf16>, %w11: memref<64x64xbf16>, %w12: memref<64x64xbf16>, %w13: memref<64x64xbf16>, %w14: memref<64x64xbf16>, %w15: memref<64x64xbf16>, %w16: memref<64x64xbf16>, %w17: memref<64x64xbf16>, %w18: memref<64x64xbf16>, %w19: memref<64x64xbf16>, %w20: memref<64x64xbf16>, %w21: memref<64x64xbf16>, %w22: memref<64x64xbf16>, %w23: memref<64x64xbf16>, %w24: memref<64x64xbf16>, %w25: memref<64x64xbf16>, %w26: memref<64x64xbf16>, %w27: memref<64x64xbf16>, %w28: memref<64x64xbf16>, %w29: memref<64x64xbf16>, %w30: memref<64x64xbf16>, %w31: memref<64x64xbf16>, %w32: memref<64x64xbf16>, %w33: memref<64x64xbf16>, %w34: memref<64x64xbf16>, %w35: memref<64x64xbf16>, %y: memref<1x64xbf16>) {
  amk.graph ins(%x, %w0, %w1, %w2, %w3, %w4, %w5, %w6, %w7, %w8, %w9, %w10, %w11, %w12, %w13, %w14, %w15, %w16, %w17, %w18, %w19, %w20, %w21, %w22, %w23, %w24, %w25, %w26, %w27, %w28, %w29, %w30, %w31, %w32, %w33, %w34, %w35 : memref<1x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>) outs(%y : memref<1x64xbf16>) {
  ^bb0(%xa: memref<1x64xbf16>, %w0a: memref<64x64xbf16>, %w1a: memref<64x64xbf16>, %w2a: memref<64x64xbf16>, %w3a: memref<64x64xbf16>, %w4a: memref<64x64xbf16>, %w5a: memref<64x64xbf16>, %w6a: memref<64x64xbf16>, %w7a: memref<64x64xbf16>, %w8a: memref<64x64xbf16>, %w9a: memref<64x64xbf16>, %w10a: memref<64x64xbf16>, %w11a: memref<64x64xbf16>, %w12a: memref<64x64xbf16>, %w13a: memref<64x64xbf16>, %w14a: memref<64x64xbf16>, %w15a: memref<64x64xbf16>, %w16a: memref<64x64xbf16>, %w17a: memref<64x64xbf16>, %w18a: memref<64x64xbf16>, %w19a: memref<64x64xbf16>, %w20a: memref<64x64xbf16>, %w21a: memref<64x64xbf16>, %w22a: memref<64x64xbf16>, %w23a: memref<64x64xbf16>, %w24a: memref<64x64xbf16>, %w25a: memref<64x64xbf16>, %w26a: memref<64x64xbf16>, %w27a: memref<64x64xbf16>, %w28a: memref<64x64xbf16>, %w29a: memref<64x64xbf16>, %w30a: memref<64x64xbf16>, %w31a: memref<64x64xbf16>, %w32a: memref<64x64xbf16>, %w33a: memref<64x64xbf16>, %w34a: memref<64x64xbf16>, %w35a: memref<64x64xbf16>, %ya: memref<1x64xbf16>):
    %h0 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %xa, %w0a into %h0 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h1 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h0, %w1a into %h1 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h2 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h1, %w2a into %h2 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h3 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h2, %w3a into %h3 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h4 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h3, %w4a into %h4 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h5 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h4, %w5a into %h5 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h6 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h5, %w6a into %h6 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h7 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h6, %w7a into %h7 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h8 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h7, %w8a into %h8 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h9 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h8, %w9a into %h9 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h10 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h9, %w10a into %h10 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h11 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h10, %w11a into %h11 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h12 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h11, %w12a into %h12 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h13 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h12, %w13a into %h13 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h14 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h13, %w14a into %h14 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h15 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h14, %w15a into %h15 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h16 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h15, %w16a into %h16 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h17 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h16, %w17a into %h17 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h18 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h17, %w18a into %h18 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h19 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h18, %w19a into %h19 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h20 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h19, %w20a into %h20 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h21 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h20, %w21a into %h21 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h22 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h21, %w22a into %h22 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h23 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h22, %w23a into %h23 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h24 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h23, %w24a into %h24 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h25 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h24, %w25a into %h25 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h26 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h25, %w26a into %h26 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h27 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h26, %w27a into %h27 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h28 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h27, %w28a into %h28 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h29 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h28, %w29a into %h29 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h30 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h29, %w30a into %h30 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h31 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h30, %w31a into %h31 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h32 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h31, %w32a into %h32 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h33 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h32, %w33a into %h33 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    %h34 = amk.graph_buffer : memref<1x64xbf16>
    amk.matmul %h33, %w34a into %h34 {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    amk.matmul %h34, %w35a into %ya {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
  }
  return
}
