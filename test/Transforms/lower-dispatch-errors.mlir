// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-verify --amk-lower=stop-at=gpu --verify-diagnostics
// Dispatch variants are verified like the kernel's own config: a malformed
// list or a config the target cannot hold is a finding; a variant for a size
// the problem fixes is an error of the lowering.

func.func @not_an_array(%a: memref<?x64xf32>, %b: memref<64x64xf32>, %c: memref<?x64xf32>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] 'amk.dispatch' must be an array}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.dispatch = 3 : i64} {
    amk.matmul %a, %b into %c : memref<?x64xf32>, memref<64x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

func.func @no_config(%a: memref<?x64xf32>, %b: memref<64x64xf32>, %c: memref<?x64xf32>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] dispatch variant 0 must be a dictionary of 'symbol' (a string), 'up_to' (an integer >= 1) and 'config' (a kernel config)}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.dispatch = [{symbol = "M", up_to = 0 : i64}]} {
    amk.matmul %a, %b into %c : memref<?x64xf32>, memref<64x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

func.func @too_many_threads(%a: memref<?x64xf32>, %b: memref<64x64xf32>, %c: memref<?x64xf32>) {
  // expected-error @+3 {{[AMK-RES-THREADS] 2048 threads per block exceed the limit 1024 of target 'h200'}}
  // expected-error @+2 {{[AMK-RES-REGS] estimated 120 registers per thread x 2048 threads}}
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: 2048 threads}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.dispatch = [{symbol = "M", up_to = 64 : i64, config = #amk.gemm_config<block = [128, 512, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 2048>}]} {
    amk.matmul %a, %b into %c : memref<?x64xf32>, memref<64x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

func.func @static_symbol(%a: memref<?x64xf32>, %b: memref<64x64xf32>, %c: memref<?x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op dispatches on 'K', which is not a dynamic size of its GEMM problem}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.dispatch = [{symbol = "K", up_to = 16 : i64, config = #amk.gemm_config<block = [32, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 64>}]} {
    amk.matmul %a, %b into %c : memref<?x64xf32>, memref<64x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

func.func @above_without_bound(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] dispatch variant 0 bounds a second size with 'above_symbol' (a size's name) and 'above' (an integer), both or neither}}
  amk.kernel "k" config(#amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 4>) attributes {amk.dispatch = [{symbol = "M", up_to = 16 : i64, above_symbol = "N", config = #amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 4, cluster = 2>}]} {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<?x?xf32>, memref<?x?xf32>
  }
  return
}

// -----

func.func @above_static_size(%x: memref<?x4096xf32>, %y: memref<?x4096xf32>) {
  // expected-error @+1 {{'amk.kernel' op dispatches on 'N', which is not a dynamic size of its row-wise problem}}
  amk.kernel "k" config(#amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 4>) attributes {amk.dispatch = [{symbol = "M", up_to = 16 : i64, above_symbol = "N", above = 8192 : i64, config = #amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 4, cluster = 2>}]} {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<?x4096xf32>, memref<?x4096xf32>
  }
  return
}
