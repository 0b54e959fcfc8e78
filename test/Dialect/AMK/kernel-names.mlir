// RUN: amk-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// Kernel names become the GPU function's symbol and the bundle's file names:
// the amk.kernel verifier takes identifiers only, each once per module. (Before, "../x" wrote outside the bundle directory,
// "" wrote hidden files, spaces aborted in LLVM, and a name used twice
// overwrote the first bundle.)

// CHECK-LABEL: func.func @identifiers
// CHECK: amk.kernel "k"
// CHECK: amk.kernel "_Gemm_64x64_2"
func.func @identifiers(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  amk.kernel "_Gemm_64x64_2" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @parent(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op name "../x" is not an identifier: '.' at position 0 (kernel names are identifiers ([A-Za-z_][A-Za-z0-9_]*): they name the GPU function and the bundle files)}}
  amk.kernel "../x" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @subdir(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op name "sub/dir/k" is not an identifier: '/' at position 3}}
  amk.kernel "sub/dir/k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @absolute(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op name "/abs" is not an identifier: '/' at position 0}}
  amk.kernel "/abs" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @space(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op name "my kernel" is not an identifier: ' ' at position 2}}
  amk.kernel "my kernel" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @non_ascii(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op name "kern\C3\A9l" is not an identifier: byte 0xC3 at position 4}}
  amk.kernel "kernél" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @digit(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op name "9k" is not an identifier: '9' at position 0}}
  amk.kernel "9k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @empty(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op needs a name: kernel names are identifiers ([A-Za-z_][A-Za-z0-9_]*): they name the GPU function and the bundle files}}
  amk.kernel "" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @long(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op name of 201 characters is longer than the 200 a kernel name may have}}
  amk.kernel "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

// The same name twice in a module, in different functions.
module attributes {amk.target = #amk.target<"h200">} {
func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-note @+1 {{the other kernel}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}
func.func @g(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op name 'k' is already the name of another kernel of the module (kernel names name their bundle files)}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}
}

// -----

// Without a target too: a module is compiled with one later.
func.func @twice_without_target(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-note @+1 {{the other kernel}}
  amk.kernel "twice" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  // expected-error @+1 {{'amk.kernel' op name 'twice' is already the name of another kernel of the module}}
  amk.kernel "twice" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

// amk.target holds a #amk.target.
// expected-error @+1 {{'amk.target' must be a #amk.target, not "h200"}}
module attributes {amk.target = "h200"} {}

// -----

// A kernel may not take the name of another symbol of the module: its
// lowered form is a gpu.module of that name (before, the launch named the
// function and lowering failed with "kernel module 'k' is undefined").
module {
// expected-note @+1 {{the other symbol}}
func.func @k(%a: memref<16x64xf32>, %b: memref<64x64xf32>, %c: memref<16x64xf32>) {
  // expected-error @+1 {{'amk.kernel' op name 'k' is already the name of the module's func.func (the lowered kernel is a gpu.module of that name)}}
  amk.kernel "k" config(#amk.gemm_config<block = [16, 64, 16], warp = [16, 64], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 32>) {
    amk.matmul %a, %b into %c : memref<16x64xf32>, memref<64x64xf32>, memref<16x64xf32>
  }
  return
}
}
