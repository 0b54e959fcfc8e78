// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Configs the row-wise synthesizer cannot serve are refused by the harness
// before anything is generated.

module attributes {amk.target = #amk.target<"h200">} {
func.func @odd_length(%x: memref<64x1001xf32>, %y: memref<64xf32>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: vector width 4 does not divide the row length 1001}}
  amk.kernel "odd" config(#amk.row_config<threads_per_row = 32, rows_per_block = 1, vector = 4>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<sum>} : memref<64x1001xf32>, memref<64xf32>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
// A row of dynamic length loads each cached run under its own guard, so a
// 16-bit sum's runs count as f32 registers (the static row's 64 would fit).
func.func @dynamic_length(%x: memref<64x?xbf16>, %y: memref<64xbf16>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: 16 cached runs of 8 exceed the 64 registers a thread gives to its row}}
  amk.kernel "dyn" config(#amk.row_config<threads_per_row = 32, rows_per_block = 1, vector = 8, cached_runs = 16>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<sum>} : memref<64x?xbf16>, memref<64xbf16>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @two_pass_sum(%x: memref<64x64xf32>, %y: memref<64xf32>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: passes = 2 applies to softmax and layer_norm only}}
  amk.kernel "two" config(#amk.row_config<threads_per_row = 32, rows_per_block = 1, vector = 1, passes = 2>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<sum>} : memref<64x64xf32>, memref<64xf32>
  }
  return
}
}

// -----

func.func @wrong_family(%x: memref<64x64xf32>, %y: memref<64xf32>) {
  // expected-error @+1 {{'amk.kernel' op config for 'gemm' kernels cannot compute a 'row_reduce' problem}}
  amk.kernel "gemm_on_rows" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<sum>} : memref<64x64xf32>, memref<64xf32>
  }
  return
}

// -----

func.func @wide_vector(%x: memref<64x64xf32>, %y: memref<64xf32>) {
  // expected-error @+1 {{vector width 8 of 'f32' exceeds a 16-byte access}}
  amk.kernel "wide" config(#amk.row_config<threads_per_row = 32, rows_per_block = 1, vector = 8>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<sum>} : memref<64x64xf32>, memref<64xf32>
  }
  return
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @cache_mismatch(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: a row of 1000 in runs of 4 x 32 threads needs cached_runs = 8}}
  amk.kernel "cache3" config(#amk.row_config<threads_per_row = 32, rows_per_block = 1, vector = 4, cached_runs = 3>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<64x1000xf32>, memref<64x1000xf32>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @cache_too_big(%x: memref<64x4096xf32>, %y: memref<64x4096xf32>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: 32 cached runs of 4 exceed the 64 registers a thread gives to its row}}
  amk.kernel "cache_big" config(#amk.row_config<threads_per_row = 32, rows_per_block = 1, vector = 4, cached_runs = 32>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<64x4096xf32>, memref<64x4096xf32>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @staged_dynamic(%x: memref<64x?xbf16>, %y: memref<64x?xbf16>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: cache = shared needs a static row length}}
  amk.kernel "staged_dyn" config(#amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 8, cached_runs = 2, cache = shared>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<64x?xbf16>, memref<64x?xbf16>
  }
  return
}
}

// -----

// A staged row takes shared memory, not registers: its runs are bounded by
// what a block's shared memory holds (two rows of 32768 f32: 256 KB).
module attributes {amk.target = #amk.target<"h200">} {
func.func @staged_too_big(%x: memref<64x32768xf32>, %y: memref<64x32768xf32>) {
  // expected-error @+1 {{[AMK-RES-SMEM] dynamic shared memory 262656 B exceeds the opt-in limit 232448 B of target 'h200'}}
  amk.kernel "staged_big" config(#amk.row_config<threads_per_row = 512, rows_per_block = 2, vector = 4, cached_runs = 16, cache = shared>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<64x32768xf32>, memref<64x32768xf32>
  }
  return
}
}

// -----

// A100s have no thread-block clusters.
module attributes {amk.target = #amk.target<"a100">} {
func.func @cluster_on_a100(%x: memref<64x100000xbf16>, %y: memref<64x100000xbf16>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: a cluster of 2 blocks needs thread-block clusters, which a100 (sm_80) lacks}}
  amk.kernel "cluster_a100" config(#amk.row_config<threads_per_row = 1024, rows_per_block = 1, vector = 8, cluster = 2>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<64x100000xbf16>, memref<64x100000xbf16>
  }
  return
}
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
func.func @cluster_batched(%x: memref<2x64x100000xbf16>, %y: memref<2x64x100000xbf16>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: a row spread over a cluster takes 2-D rows, not a batch}}
  amk.kernel "cluster_batch" config(#amk.row_config<threads_per_row = 1024, rows_per_block = 1, vector = 8, cluster = 2>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<2x64x100000xbf16>, memref<2x64x100000xbf16>
  }
  return
}
}

