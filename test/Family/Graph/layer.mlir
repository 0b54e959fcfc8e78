// RUN: amk-opt %s --amk-target=h200 --amk-plan=explain -o /dev/null 2>&1 | FileCheck %s
// RUN: amk-opt %s --amk-pipeline="target=h200 stop-at=gpu cache=false" | amk-opt --amk-verify -o /dev/null
// A Llama-style decode layer (without rotary embeddings) planned as one
// megakernel: explain names the attention step's heads, caches, lengths
// and sources, and that it appends; the output product waits on it.

// CHECK: remark: planned graph_rms_norm3x128_bf16_3x128x128s0_bf16_3x64x128s0_bf16_3x64x128s0_bf16_attention3x4x2x32x20_append_scale1p767767e_01s1s2s3_bf16
// CHECK: note: step 4: decode attention of 3 sequences, 4 heads of 32 (2 key/value heads), over caches of 20 positions (operands #12 and #13, lengths input #5); queries from step 1, new keys from step 2, new values from step 3; appended to the caches at the kernel's end, after step 3's counter, into buffer 4, then signals its counter
// CHECK-NEXT: note: step 5: 3x128x128, A from step 4, weights input #6, after step 4's counter, into buffer 5

module attributes {amk.target = #amk.target<"h200">} {
func.func @layer_small(%x: memref<3x128xbf16>, %g1: memref<128xbf16>, %wq: memref<128x128xbf16>, %wk: memref<64x128xbf16>, %wv: memref<64x128xbf16>, %len: memref<3xi32>, %wo: memref<128x128xbf16>, %g2: memref<128xbf16>, %wg: memref<256x128xbf16>, %wu: memref<256x128xbf16>, %wd: memref<128x256xbf16>, %y: memref<3x128xbf16>, %kc: memref<3x20x2x32xbf16>, %vc: memref<3x20x2x32xbf16>) {
  amk.graph ins(%x, %g1, %wq, %wk, %wv, %len, %wo, %g2, %wg, %wu, %wd : memref<3x128xbf16>, memref<128xbf16>, memref<128x128xbf16>, memref<64x128xbf16>, memref<64x128xbf16>, memref<3xi32>, memref<128x128xbf16>, memref<128xbf16>, memref<256x128xbf16>, memref<256x128xbf16>, memref<128x256xbf16>) outs(%y, %kc, %vc : memref<3x128xbf16>, memref<3x20x2x32xbf16>, memref<3x20x2x32xbf16>) {
  ^bb0(%xa: memref<3x128xbf16>, %g1a: memref<128xbf16>, %wqa: memref<128x128xbf16>, %wka: memref<64x128xbf16>, %wva: memref<64x128xbf16>, %lena: memref<3xi32>, %woa: memref<128x128xbf16>, %g2a: memref<128xbf16>, %wga: memref<256x128xbf16>, %wua: memref<256x128xbf16>, %wda: memref<128x256xbf16>, %ya: memref<3x128xbf16>, %kca: memref<3x20x2x32xbf16>, %vca: memref<3x20x2x32xbf16>):
    %n1 = amk.graph_buffer : memref<3x128xbf16>
    %q = amk.graph_buffer : memref<3x128xbf16>
    %kn = amk.graph_buffer : memref<3x64xbf16>
    %vn = amk.graph_buffer : memref<3x64xbf16>
    %att = amk.graph_buffer : memref<3x128xbf16>
    %proj = amk.graph_buffer : memref<3x128xbf16>
    %r = amk.graph_buffer : memref<3x128xbf16>
    %n2 = amk.graph_buffer : memref<3x128xbf16>
    %gate = amk.graph_buffer : memref<3x256xbf16>
    %up = amk.graph_buffer : memref<3x256xbf16>
    %hid = amk.graph_buffer : memref<3x256xbf16>
    %down = amk.graph_buffer : memref<3x128xbf16>
    amk.row_reduce %xa weight(%g1a) into %n1 {kind = #amk.row_op<rms_norm>, eps = 1.0e-6} : memref<3x128xbf16>, memref<128xbf16>, memref<3x128xbf16>
    amk.matmul %n1, %wqa into %q {transpose_b} : memref<3x128xbf16>, memref<128x128xbf16>, memref<3x128xbf16>
    amk.matmul %n1, %wka into %kn {transpose_b} : memref<3x128xbf16>, memref<64x128xbf16>, memref<3x64xbf16>
    amk.matmul %n1, %wva into %vn {transpose_b} : memref<3x128xbf16>, memref<64x128xbf16>, memref<3x64xbf16>
    amk.decode_attention %q, %kn, %vn cache(%kca, %vca) lengths(%lena) into %att {heads = 4, kv_heads = 2, append} : memref<3x128xbf16>, memref<3x64xbf16>, memref<3x64xbf16>, memref<3x20x2x32xbf16>, memref<3x20x2x32xbf16>, memref<3xi32>, memref<3x128xbf16>
    amk.matmul %att, %woa into %proj {transpose_b} : memref<3x128xbf16>, memref<128x128xbf16>, memref<3x128xbf16>
    linalg.add ins(%xa, %proj : memref<3x128xbf16>, memref<3x128xbf16>) outs(%r : memref<3x128xbf16>)
    amk.row_reduce %r weight(%g2a) into %n2 {kind = #amk.row_op<rms_norm>, eps = 1.0e-6} : memref<3x128xbf16>, memref<128xbf16>, memref<3x128xbf16>
    amk.matmul %n2, %wga into %gate {transpose_b, activation = #amk.activation<silu>} : memref<3x128xbf16>, memref<256x128xbf16>, memref<3x256xbf16>
    amk.matmul %n2, %wua into %up {transpose_b} : memref<3x128xbf16>, memref<256x128xbf16>, memref<3x256xbf16>
    linalg.mul ins(%gate, %up : memref<3x256xbf16>, memref<3x256xbf16>) outs(%hid : memref<3x256xbf16>)
    amk.matmul %hid, %wda into %down {transpose_b} : memref<3x256xbf16>, memref<128x256xbf16>, memref<3x128xbf16>
    linalg.add ins(%r, %down : memref<3x128xbf16>, memref<3x128xbf16>) outs(%ya : memref<3x128xbf16>)
  }
  return
}
}
