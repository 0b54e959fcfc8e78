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
