// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Megakernel configs the target or the synthesizer cannot serve: an error
// at the kernel, naming the limit.

module attributes {amk.target = #amk.target<"h200">} {
func.func @not_resident(%x: memref<1x256xbf16>, %w: memref<512x256xbf16>, %y: memref<1x512xbf16>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: 10000 blocks must all be resident at once (the blocks wait for each other), but h200 holds}}
  amk.kernel "k" config(#amk.graph_config<blocks = 10000, threads = 256, rows_per_warp = 1, unroll = 4>) {
    amk.graph ins(%x, %w : memref<1x256xbf16>, memref<512x256xbf16>) outs(%y : memref<1x512xbf16>) {
    ^bb0(%xa: memref<1x256xbf16>, %wa: memref<512x256xbf16>, %ya: memref<1x512xbf16>):
      amk.matmul %xa, %wa into %ya {transpose_b} : memref<1x256xbf16>, memref<512x256xbf16>, memref<1x512xbf16>
    }
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @too_many_rows(%x: memref<40x256xbf16>, %w: memref<512x256xbf16>, %y: memref<40x512xbf16>) {
  // expected-error @+1 {{a step has M = 40: graph steps are decode products of at most 32 rows (plan larger products as their own kernels)}}
  amk.kernel "k" config(#amk.graph_config<blocks = 132, threads = 256, rows_per_warp = 1, unroll = 1>) {
    amk.graph ins(%x, %w : memref<40x256xbf16>, memref<512x256xbf16>) outs(%y : memref<40x512xbf16>) {
    ^bb0(%xa: memref<40x256xbf16>, %wa: memref<512x256xbf16>, %ya: memref<40x512xbf16>):
      amk.matmul %xa, %wa into %ya {transpose_b} : memref<40x256xbf16>, memref<512x256xbf16>, memref<40x512xbf16>
    }
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @mma_f32(%x: memref<1x256xf32>, %w: memref<512x256xf32>, %y: memref<1x512xf32>) {
  // expected-error @+1 {{'amk.kernel' op math = mma_sync takes f16 or bf16 steps, got 'f32'}}
  amk.kernel "k" config(#amk.graph_config<blocks = 132, threads = 256, rows_per_warp = 1, unroll = 4, math = mma_sync>) {
    amk.graph ins(%x, %w : memref<1x256xf32>, memref<512x256xf32>) outs(%y : memref<1x512xf32>) {
    ^bb0(%xa: memref<1x256xf32>, %wa: memref<512x256xf32>, %ya: memref<1x512xf32>):
      amk.matmul %xa, %wa into %ya {transpose_b} : memref<1x256xf32>, memref<512x256xf32>, memref<1x512xf32>
    }
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @mma_odd_k(%x: memref<1x250xbf16>, %w: memref<512x250xbf16>, %y: memref<1x512xbf16>) {
  // expected-error @+1 {{'amk.kernel' op math = mma_sync takes steps of at most 16 rows and K a multiple of 8, got M = 1, K = 250}}
  amk.kernel "k" config(#amk.graph_config<blocks = 132, threads = 256, rows_per_warp = 1, unroll = 4, math = mma_sync>) {
    amk.graph ins(%x, %w : memref<1x250xbf16>, memref<512x250xbf16>) outs(%y : memref<1x512xbf16>) {
    ^bb0(%xa: memref<1x250xbf16>, %wa: memref<512x250xbf16>, %ya: memref<1x512xbf16>):
      amk.matmul %xa, %wa into %ya {transpose_b} : memref<1x250xbf16>, memref<512x250xbf16>, memref<1x512xbf16>
    }
  }
  return
}
}

// -----

// 80 more inputs: their descriptors outgrow a kernel's parameter space.
module attributes {amk.target = #amk.target<"h200">} {
func.func @too_many_buffers(%x: memref<1x64xbf16>, %w: memref<64x64xbf16>, %y: memref<1x64xbf16>, %u0: memref<1x64xbf16>, %u1: memref<1x64xbf16>, %u2: memref<1x64xbf16>, %u3: memref<1x64xbf16>, %u4: memref<1x64xbf16>, %u5: memref<1x64xbf16>, %u6: memref<1x64xbf16>, %u7: memref<1x64xbf16>, %u8: memref<1x64xbf16>, %u9: memref<1x64xbf16>, %u10: memref<1x64xbf16>, %u11: memref<1x64xbf16>, %u12: memref<1x64xbf16>, %u13: memref<1x64xbf16>, %u14: memref<1x64xbf16>, %u15: memref<1x64xbf16>, %u16: memref<1x64xbf16>, %u17: memref<1x64xbf16>, %u18: memref<1x64xbf16>, %u19: memref<1x64xbf16>, %u20: memref<1x64xbf16>, %u21: memref<1x64xbf16>, %u22: memref<1x64xbf16>, %u23: memref<1x64xbf16>, %u24: memref<1x64xbf16>, %u25: memref<1x64xbf16>, %u26: memref<1x64xbf16>, %u27: memref<1x64xbf16>, %u28: memref<1x64xbf16>, %u29: memref<1x64xbf16>, %u30: memref<1x64xbf16>, %u31: memref<1x64xbf16>, %u32: memref<1x64xbf16>, %u33: memref<1x64xbf16>, %u34: memref<1x64xbf16>, %u35: memref<1x64xbf16>, %u36: memref<1x64xbf16>, %u37: memref<1x64xbf16>, %u38: memref<1x64xbf16>, %u39: memref<1x64xbf16>, %u40: memref<1x64xbf16>, %u41: memref<1x64xbf16>, %u42: memref<1x64xbf16>, %u43: memref<1x64xbf16>, %u44: memref<1x64xbf16>, %u45: memref<1x64xbf16>, %u46: memref<1x64xbf16>, %u47: memref<1x64xbf16>, %u48: memref<1x64xbf16>, %u49: memref<1x64xbf16>, %u50: memref<1x64xbf16>, %u51: memref<1x64xbf16>, %u52: memref<1x64xbf16>, %u53: memref<1x64xbf16>, %u54: memref<1x64xbf16>, %u55: memref<1x64xbf16>, %u56: memref<1x64xbf16>, %u57: memref<1x64xbf16>, %u58: memref<1x64xbf16>, %u59: memref<1x64xbf16>, %u60: memref<1x64xbf16>, %u61: memref<1x64xbf16>, %u62: memref<1x64xbf16>, %u63: memref<1x64xbf16>, %u64: memref<1x64xbf16>, %u65: memref<1x64xbf16>, %u66: memref<1x64xbf16>, %u67: memref<1x64xbf16>, %u68: memref<1x64xbf16>, %u69: memref<1x64xbf16>, %u70: memref<1x64xbf16>, %u71: memref<1x64xbf16>, %u72: memref<1x64xbf16>, %u73: memref<1x64xbf16>, %u74: memref<1x64xbf16>, %u75: memref<1x64xbf16>, %u76: memref<1x64xbf16>, %u77: memref<1x64xbf16>, %u78: memref<1x64xbf16>, %u79: memref<1x64xbf16>) {
  // expected-error @+1 {{the kernel would take 4688 bytes of parameters (a memref descriptor per operand and buffer), more than the 4352 a kernel takes: split the graph}}
  amk.kernel "k" config(#amk.graph_config<blocks = 132, threads = 256, rows_per_warp = 1, unroll = 4>) {
    amk.graph ins(%x, %w, %u0, %u1, %u2, %u3, %u4, %u5, %u6, %u7, %u8, %u9, %u10, %u11, %u12, %u13, %u14, %u15, %u16, %u17, %u18, %u19, %u20, %u21, %u22, %u23, %u24, %u25, %u26, %u27, %u28, %u29, %u30, %u31, %u32, %u33, %u34, %u35, %u36, %u37, %u38, %u39, %u40, %u41, %u42, %u43, %u44, %u45, %u46, %u47, %u48, %u49, %u50, %u51, %u52, %u53, %u54, %u55, %u56, %u57, %u58, %u59, %u60, %u61, %u62, %u63, %u64, %u65, %u66, %u67, %u68, %u69, %u70, %u71, %u72, %u73, %u74, %u75, %u76, %u77, %u78, %u79 : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>, memref<1x64xbf16>) outs(%y : memref<1x64xbf16>) {
    ^bb0(%xa: memref<1x64xbf16>, %wa: memref<64x64xbf16>, %u0a: memref<1x64xbf16>, %u1a: memref<1x64xbf16>, %u2a: memref<1x64xbf16>, %u3a: memref<1x64xbf16>, %u4a: memref<1x64xbf16>, %u5a: memref<1x64xbf16>, %u6a: memref<1x64xbf16>, %u7a: memref<1x64xbf16>, %u8a: memref<1x64xbf16>, %u9a: memref<1x64xbf16>, %u10a: memref<1x64xbf16>, %u11a: memref<1x64xbf16>, %u12a: memref<1x64xbf16>, %u13a: memref<1x64xbf16>, %u14a: memref<1x64xbf16>, %u15a: memref<1x64xbf16>, %u16a: memref<1x64xbf16>, %u17a: memref<1x64xbf16>, %u18a: memref<1x64xbf16>, %u19a: memref<1x64xbf16>, %u20a: memref<1x64xbf16>, %u21a: memref<1x64xbf16>, %u22a: memref<1x64xbf16>, %u23a: memref<1x64xbf16>, %u24a: memref<1x64xbf16>, %u25a: memref<1x64xbf16>, %u26a: memref<1x64xbf16>, %u27a: memref<1x64xbf16>, %u28a: memref<1x64xbf16>, %u29a: memref<1x64xbf16>, %u30a: memref<1x64xbf16>, %u31a: memref<1x64xbf16>, %u32a: memref<1x64xbf16>, %u33a: memref<1x64xbf16>, %u34a: memref<1x64xbf16>, %u35a: memref<1x64xbf16>, %u36a: memref<1x64xbf16>, %u37a: memref<1x64xbf16>, %u38a: memref<1x64xbf16>, %u39a: memref<1x64xbf16>, %u40a: memref<1x64xbf16>, %u41a: memref<1x64xbf16>, %u42a: memref<1x64xbf16>, %u43a: memref<1x64xbf16>, %u44a: memref<1x64xbf16>, %u45a: memref<1x64xbf16>, %u46a: memref<1x64xbf16>, %u47a: memref<1x64xbf16>, %u48a: memref<1x64xbf16>, %u49a: memref<1x64xbf16>, %u50a: memref<1x64xbf16>, %u51a: memref<1x64xbf16>, %u52a: memref<1x64xbf16>, %u53a: memref<1x64xbf16>, %u54a: memref<1x64xbf16>, %u55a: memref<1x64xbf16>, %u56a: memref<1x64xbf16>, %u57a: memref<1x64xbf16>, %u58a: memref<1x64xbf16>, %u59a: memref<1x64xbf16>, %u60a: memref<1x64xbf16>, %u61a: memref<1x64xbf16>, %u62a: memref<1x64xbf16>, %u63a: memref<1x64xbf16>, %u64a: memref<1x64xbf16>, %u65a: memref<1x64xbf16>, %u66a: memref<1x64xbf16>, %u67a: memref<1x64xbf16>, %u68a: memref<1x64xbf16>, %u69a: memref<1x64xbf16>, %u70a: memref<1x64xbf16>, %u71a: memref<1x64xbf16>, %u72a: memref<1x64xbf16>, %u73a: memref<1x64xbf16>, %u74a: memref<1x64xbf16>, %u75a: memref<1x64xbf16>, %u76a: memref<1x64xbf16>, %u77a: memref<1x64xbf16>, %u78a: memref<1x64xbf16>, %u79a: memref<1x64xbf16>, %ya: memref<1x64xbf16>):
      amk.matmul %xa, %wa into %ya {transpose_b} : memref<1x64xbf16>, memref<64x64xbf16>, memref<1x64xbf16>
    }
  }
  return
}
}

// -----

// A TMA ring on a target without TMA.
module attributes {amk.target = #amk.target<"a100">} {
func.func @ring_without_tma(%x: memref<16x512xbf16>, %w: memref<256x512xbf16>, %y: memref<16x256xbf16>) {
  // expected-error @+1 {{stages = 3 streams the weights with TMA, which a100 (sm_80) lacks (TMA: sm_90 and later)}}
  amk.kernel "k" config(#amk.graph_config<blocks = 4, threads = 128, rows_per_warp = 1, unroll = 1, math = mma_sync, stages = 3>) {
    amk.graph ins(%x, %w : memref<16x512xbf16>, memref<256x512xbf16>) outs(%y : memref<16x256xbf16>) {
    ^bb0(%xa: memref<16x512xbf16>, %wa: memref<256x512xbf16>, %ya: memref<16x256xbf16>):
      amk.matmul %xa, %wa into %ya {transpose_b} : memref<16x512xbf16>, memref<256x512xbf16>, memref<16x256xbf16>
    }
  }
  return
}
}

// -----

// A ring (4 stages of 8 boxes of 8 x 256 weights and A's 16 x 256) larger
// than a block's shared memory.
module attributes {amk.target = #amk.target<"h200">} {
func.func @ring_too_large(%x: memref<16x4096xbf16>, %w: memref<4096x4096xbf16>, %y: memref<16x4096xbf16>) {
  // expected-error @+2 {{[AMK-RES-SMEM] dynamic shared memory 266240 B exceeds the opt-in limit 232448 B of target 'h200'}}
  // expected-error @+1 {{the block would take 266240 bytes of shared memory (the TMA ring of 4 stages or the warps' staging, and the steps' combines), more than the 232448 a block of h200 can have (fewer stages, threads or rows_per_warp)}}
  amk.kernel "k" config(#amk.graph_config<blocks = 264, threads = 256, rows_per_warp = 1, unroll = 1, math = mma_sync, stages = 4>) {
    amk.graph ins(%x, %w : memref<16x4096xbf16>, memref<4096x4096xbf16>) outs(%y : memref<16x4096xbf16>) {
    ^bb0(%xa: memref<16x4096xbf16>, %wa: memref<4096x4096xbf16>, %ya: memref<16x4096xbf16>):
      amk.matmul %xa, %wa into %ya {transpose_b} : memref<16x4096xbf16>, memref<4096x4096xbf16>, memref<16x4096xbf16>
    }
  }
  return
}
}

// -----

// Decode attention: heads that kv_heads do not divide.
module attributes {amk.target = #amk.target<"h200">} {
func.func @attention_heads(%q: memref<2x192xbf16>, %k: memref<2x128xbf16>, %kc: memref<2x8x2x64xbf16>, %len: memref<2xi32>, %o: memref<2x192xbf16>) {
  amk.graph ins(%q, %k, %kc, %len : memref<2x192xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2xi32>) outs(%o : memref<2x192xbf16>) {
  ^bb0(%qa: memref<2x192xbf16>, %ka: memref<2x128xbf16>, %kca: memref<2x8x2x64xbf16>, %lena: memref<2xi32>, %oa: memref<2x192xbf16>):
    // expected-error @+1 {{'amk.decode_attention' op heads (3) must be in [1, 65536] and a multiple of kv_heads (2)}}
    amk.decode_attention %qa, %ka, %ka cache(%kca, %kca) lengths(%lena) into %oa {heads = 3, kv_heads = 2} : memref<2x192xbf16>, memref<2x128xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2x8x2x64xbf16>, memref<2xi32>, memref<2x192xbf16>
  }
  return
}
}

// -----

// Decode attention: a cache whose head size is not q's.
module attributes {amk.target = #amk.target<"h200">} {
func.func @attention_cache(%q: memref<2x256xbf16>, %k: memref<2x128xbf16>, %kc: memref<2x8x2x32xbf16>, %len: memref<2xi32>, %o: memref<2x256xbf16>) {
  amk.graph ins(%q, %k, %kc, %len : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x8x2x32xbf16>, memref<2xi32>) outs(%o : memref<2x256xbf16>) {
  ^bb0(%qa: memref<2x256xbf16>, %ka: memref<2x128xbf16>, %kca: memref<2x8x2x32xbf16>, %lena: memref<2xi32>, %oa: memref<2x256xbf16>):
    // expected-error @+1 {{'amk.decode_attention' op key_cache must be [M, L, kv_heads, D] (M = 2, D = 64), got 'memref<2x8x2x32xbf16>'}}
    amk.decode_attention %qa, %ka, %ka cache(%kca, %kca) lengths(%lena) into %oa {heads = 4, kv_heads = 2} : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x128xbf16>, memref<2x8x2x32xbf16>, memref<2x8x2x32xbf16>, memref<2xi32>, memref<2x256xbf16>
  }
  return
}
}

// -----

// Decode attention: lengths that are not i32.
module attributes {amk.target = #amk.target<"h200">} {
func.func @attention_lengths(%q: memref<2x256xbf16>, %k: memref<2x128xbf16>, %kc: memref<2x8x2x64xbf16>, %len: memref<2xi64>, %o: memref<2x256xbf16>) {
  amk.graph ins(%q, %k, %kc, %len : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2xi64>) outs(%o : memref<2x256xbf16>) {
  ^bb0(%qa: memref<2x256xbf16>, %ka: memref<2x128xbf16>, %kca: memref<2x8x2x64xbf16>, %lena: memref<2xi64>, %oa: memref<2x256xbf16>):
    // expected-error @+1 {{'amk.decode_attention' op lengths must be i32, got 'i64'}}
    amk.decode_attention %qa, %ka, %ka cache(%kca, %kca) lengths(%lena) into %oa {heads = 4, kv_heads = 2} : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2x8x2x64xbf16>, memref<2xi64>, memref<2x256xbf16>
  }
  return
}
}

// -----

// Decode attention: a scale that is not a positive finite number.
module attributes {amk.target = #amk.target<"h200">} {
func.func @attention_scale(%q: memref<2x256xbf16>, %k: memref<2x128xbf16>, %kc: memref<2x8x2x64xbf16>, %len: memref<2xi32>, %o: memref<2x256xbf16>) {
  amk.graph ins(%q, %k, %kc, %len : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2xi32>) outs(%o : memref<2x256xbf16>) {
  ^bb0(%qa: memref<2x256xbf16>, %ka: memref<2x128xbf16>, %kca: memref<2x8x2x64xbf16>, %lena: memref<2xi32>, %oa: memref<2x256xbf16>):
    // expected-error @+1 {{'amk.decode_attention' op scale must be in (0, 1e4], got -1}}
    amk.decode_attention %qa, %ka, %ka cache(%kca, %kca) lengths(%lena) into %oa {heads = 4, kv_heads = 2, scale = -1.0} : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2x8x2x64xbf16>, memref<2xi32>, memref<2x256xbf16>
  }
  return
}
}

// -----

// Decode attention: a head of 40 bf16 is 5 runs of 8, which do not divide
// a warp.
module attributes {amk.target = #amk.target<"h200">} {
func.func @attention_head_size(%q: memref<2x160xbf16>, %k: memref<2x80xbf16>, %kc: memref<2x8x2x40xbf16>, %len: memref<2xi32>, %o: memref<2x160xbf16>) {
  // expected-error @+1 {{attention reads a head's 40 elements as runs of 8 on as many lanes, which must divide a warp's 32}}
  amk.kernel "k" config(#amk.graph_config<blocks = 132, threads = 128, rows_per_warp = 1, unroll = 1>) {
  amk.graph ins(%q, %k, %kc, %len : memref<2x160xbf16>, memref<2x80xbf16>, memref<2x8x2x40xbf16>, memref<2xi32>) outs(%o : memref<2x160xbf16>) {
  ^bb0(%qa: memref<2x160xbf16>, %ka: memref<2x80xbf16>, %kca: memref<2x8x2x40xbf16>, %lena: memref<2xi32>, %oa: memref<2x160xbf16>):
    amk.decode_attention %qa, %ka, %ka cache(%kca, %kca) lengths(%lena) into %oa {heads = 4, kv_heads = 2} : memref<2x160xbf16>, memref<2x80xbf16>, memref<2x80xbf16>, memref<2x8x2x40xbf16>, memref<2x8x2x40xbf16>, memref<2xi32>, memref<2x160xbf16>
  }
  }
  return
}
}

// -----

// Decode attention that appends to caches the graph only reads.
module attributes {amk.target = #amk.target<"h200">} {
func.func @append_to_input(%q: memref<2x256xbf16>, %k: memref<2x128xbf16>, %kc: memref<2x8x2x64xbf16>, %vc: memref<2x8x2x64xbf16>, %len: memref<2xi32>, %o: memref<2x256xbf16>) {
  amk.graph ins(%q, %k, %kc, %vc, %len : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2x8x2x64xbf16>, memref<2xi32>) outs(%o : memref<2x256xbf16>) {
  ^bb0(%qa: memref<2x256xbf16>, %ka: memref<2x128xbf16>, %kca: memref<2x8x2x64xbf16>, %vca: memref<2x8x2x64xbf16>, %lena: memref<2xi32>, %oa: memref<2x256xbf16>):
    // expected-error @+1 {{'amk.decode_attention' op updates its key_cache in place, so it must be a graph output}}
    amk.decode_attention %qa, %ka, %ka cache(%kca, %vca) lengths(%lena) into %oa {heads = 4, kv_heads = 2, append} : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2x8x2x64xbf16>, memref<2xi32>, memref<2x256xbf16>
  }
  return
}
}

// -----

// Decode attention that appends keys and values into one buffer.
module attributes {amk.target = #amk.target<"h200">} {
func.func @append_one_cache(%q: memref<2x256xbf16>, %k: memref<2x128xbf16>, %len: memref<2xi32>, %o: memref<2x256xbf16>, %kc: memref<2x8x2x64xbf16>) {
  amk.graph ins(%q, %k, %len : memref<2x256xbf16>, memref<2x128xbf16>, memref<2xi32>) outs(%o, %kc : memref<2x256xbf16>, memref<2x8x2x64xbf16>) {
  ^bb0(%qa: memref<2x256xbf16>, %ka: memref<2x128xbf16>, %lena: memref<2xi32>, %oa: memref<2x256xbf16>, %kca: memref<2x8x2x64xbf16>):
    // expected-error @+1 {{'amk.decode_attention' op appends keys and values into one buffer: key_cache and value_cache must differ}}
    amk.decode_attention %qa, %ka, %ka cache(%kca, %kca) lengths(%lena) into %oa {heads = 4, kv_heads = 2, append} : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2x8x2x64xbf16>, memref<2xi32>, memref<2x256xbf16>
  }
  return
}
}

// -----

// Rotary tables of the cache's length, not one more (the new token's
// position may be L).
module attributes {amk.target = #amk.target<"h200">} {
func.func @rotary_rows(%q: memref<2x256xbf16>, %k: memref<2x128xbf16>, %kc: memref<2x8x2x64xbf16>, %len: memref<2xi32>, %t: memref<8x64xf32>, %o: memref<2x256xbf16>) {
  amk.graph ins(%q, %k, %kc, %len, %t : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2xi32>, memref<8x64xf32>) outs(%o : memref<2x256xbf16>) {
  ^bb0(%qa: memref<2x256xbf16>, %ka: memref<2x128xbf16>, %kca: memref<2x8x2x64xbf16>, %lena: memref<2xi32>, %ta: memref<8x64xf32>, %oa: memref<2x256xbf16>):
    // expected-error @+1 {{'amk.decode_attention' op rotary cos must be [L + 1, D] = [9, 64], contiguous, got 'memref<8x64xf32>'}}
    amk.decode_attention %qa, %ka, %ka cache(%kca, %kca) lengths(%lena) rotary(%ta, %ta) into %oa {heads = 4, kv_heads = 2} : memref<2x256xbf16>, memref<2x128xbf16>, memref<2x128xbf16>, memref<2x8x2x64xbf16>, memref<2x8x2x64xbf16>, memref<2xi32>, memref<8x64xf32>, memref<8x64xf32>, memref<2x256xbf16>
  }
  return
}
}
