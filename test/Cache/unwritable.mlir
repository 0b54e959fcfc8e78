// REQUIRES: ptxas
// A cache directory that cannot be created (a file stands in the way) is
// warned about once, and the kernels compile without it; a bad size is an
// error.
// RUN: rm -rf %t && mkdir -p %t && touch %t/file
// RUN: amk-opt %s -split-input-file --amk-lower="cache-dir=%t/file/cache" -verify-diagnostics | FileCheck %s
// RUN: not amk-opt %s --amk-lower="cache-max-size=12Q" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIZE

// CHECK: gpu.binary @k1
// CHECK: gpu.binary @k2

// SIZE: error: --amk-lower: cache-max-size must be a size such as 1048576, 512M or 2G, not '12Q'

// expected-warning @below {{Not a directory; compiling without the cache}}
module attributes {amk.target = #amk.target<"h200">} {
  func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    amk.kernel "k1" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
    }
    amk.kernel "k2" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {alpha = 2.0 : f64} : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
    }
    return
  }
}
