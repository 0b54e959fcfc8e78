// RUN: amk-opt %s --split-input-file --amk-plan="target=h200 explain ladder-size=2" --verify-diagnostics
// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-plan="explain ladder-size=2" --verify-diagnostics

// `explain`: one remark per planned op with the winner and its predicted time,
// a note per ladder rung with the model's terms, one note with the rejections
// counted by reason, and one more for dynamic sizes.

func.func @square(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xf32>) {
  // expected-remark-re @+4 {{planned gemm_4096x4096x4096_bf16_f32_f32_nn: #amk.gemm_config<{{.*}}math = wgmma{{.*}}>, predicted {{[0-9]+\.[0-9]}} us ({{[0-9]+}} candidates, {{[0-9]+}} rejected)}}
  // expected-note-re @+3 {{ladder #1: #amk.gemm_config<{{.*}}>: {{[0-9.]+}} us (compute {{[0-9.]+}}, hbm {{[0-9.]+}}, l2 {{[0-9.]+}}, feed {{[0-9.]+}}, smem {{[0-9.]+}} us; {{[0-9]+}} block(s)/SM limited by {{[a-z ]+}}, {{[0-9]+}} regs/thread, {{[0-9]+}} B smem, {{[0-9]+}} tiles)}}
  // expected-note-re @+2 {{ladder #2: }}
  // expected-note-re @+1 {{rejected: {{.*}}AMK-RES-REGS{{.*}}AMK-RES-SMEM}}
  amk.matmul %a, %b into %c : memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xf32>
  return
}

// -----

func.func @dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  // expected-remark-re @+7 {{planned gemm_DxDxD_f32_f32_f32_nn: #amk.gemm_config<{{.*}}math = simt{{.*}}vector = 1{{.*}}>, predicted}}
  // expected-note-re @+6 {{ladder #1: }}
  // expected-note-re @+5 {{ladder #2: }}
  // expected-note-re @+4 {{rejected: {{.*}}AMK-SYNTH-UNSUPPORTED}}
  // expected-note @+3 {{dynamic sizes planned as 4096 (a dynamic batch as 1)}}
  // A small M gets a kernel of its own, picked at launch (split-K here).
  // expected-remark-re @+1 {{dispatch gemm_DxDxD_f32_f32_f32_nn when M <= 64: #amk.gemm_config<{{.*}}split_k = {{[0-9]+}}>, predicted {{[0-9.]+}} us at M = 64 (the default config: {{[0-9.]+}} us)}}
  amk.matmul %a, %b into %c : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
  return
}

// -----

// On a wgmma target, why a problem stays off the TMA + wgmma path: B's rows
// (N) are dynamic, so nothing proves them a multiple of 16 bytes (TMA's
// rule). (Static rows that break it are copied, padded, first.)
func.func @dynamic_rows(%a: memref<1024x128xbf16>, %b: memref<128x?xbf16>, %c: memref<1024x?xbf16>) {
  // expected-remark-re @+6 {{planned gemm_1024xDx128_bf16_f32_bf16_nn: #amk.gemm_config<{{.*}}math = mma_sync{{.*}}>, predicted}}
  // expected-note-re @+5 {{ladder #1: }}
  // expected-note-re @+4 {{ladder #2: }}
  // expected-note-re @+3 {{rejected: }}
  // expected-note @+2 {{dynamic sizes planned as 4096 (a dynamic batch as 1)}}
  // expected-note @+1 {{the TMA + wgmma path does not apply: wgmma needs operands whose rows (their contiguous extent) are static and a multiple of 16 bytes (TMA's rule)}}
  amk.matmul %a, %b into %c : memref<1024x128xbf16>, memref<128x?xbf16>, memref<1024x?xbf16>
  return
}

// -----

// A config given in an `amk.kernel`: what the planner predicts for it (the
// same terms as a rung), or why it would not plan it.
func.func @given(%a: memref<16x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<16x4096xbf16>) {
  // expected-remark-re @+1 {{given config of decode_wgmma: predicted {{[0-9]+\.[0-9]}} us (compute {{[0-9.]+}}, hbm {{[0-9.]+}}, l2 {{[0-9.]+}}, feed {{[0-9.]+}}, smem {{[0-9.]+}} us; {{[0-9]+}} block(s)/SM limited by {{[a-z ]+}}, {{[0-9]+}} regs/thread, 147456 B smem, 64 tiles)}}
  amk.kernel "decode_wgmma" config(#amk.gemm_config<block = [64, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 6, vector = 8, threads = 128, split_k = 2, split_reduce = workspace>) {
    amk.matmul %a, %b into %c : memref<16x4096xbf16>, memref<4096x4096xbf16>, memref<16x4096xbf16>
  }
  // expected-remark-re @+1 {{given config of too_deep: the planner rejects it (AMK-RES-SMEM): {{.*}}}}
  amk.kernel "too_deep" config(#amk.gemm_config<block = [128, 256, 64], warp = [64, 256], math = wgmma, inst = [64, 256, 16], stages = 8, vector = 8, threads = 256>) {
    amk.matmul %a, %b into %c : memref<16x4096xbf16>, memref<4096x4096xbf16>, memref<16x4096xbf16>
  }
  return
}
