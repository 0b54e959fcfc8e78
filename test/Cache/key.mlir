// REQUIRES: ptxas
// The key covers all that determines the binary: the same kernel name with
// an alpha that the problem signature rounds alike (1.001, 1.004), another
// target, or another opt-level misses; the first kernel again hits.
// RUN: rm -rf %t
// RUN: amk-opt %s -split-input-file --amk-lower="cache-dir=%t cache-remarks" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: amk-opt %s -split-input-file --amk-lower="cache-dir=%t cache-remarks opt-level=2" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=O2
// RUN: amk-cache stats --cache-dir=%t | FileCheck %s --check-prefix=STATS

// CHECK: remark: compile cache miss: k (key [[K1:[0-9a-f]+]])
// CHECK: remark: compile cache miss: k (key [[K2:[0-9a-f]+]])
// CHECK-NOT: [[K1]]
// CHECK: remark: compile cache miss: k (key [[K3:[0-9a-f]+]])
// CHECK-NOT: [[K1]]
// CHECK-NOT: [[K2]]
// CHECK: remark: compile cache hit: k (key [[K1]])

// O2-COUNT-3: remark: compile cache miss: k
// O2: remark: compile cache hit: k

// STATS: entries: 6

module attributes {amk.target = #amk.target<"h200">} {
  func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {alpha = 1.001 : f64} : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
    }
    return
  }
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
  func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {alpha = 1.004 : f64} : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
    }
    return
  }
}

// -----

module attributes {amk.target = #amk.target<"h100">} {
  func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {alpha = 1.001 : f64} : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
    }
    return
  }
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
  func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {alpha = 1.001 : f64} : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
    }
    return
  }
}
