// REQUIRES: ptxas, permissions
// A read-only cache still serves hits; a miss compiles, and the store that
// fails is one warning, not an error. (As root, %unprivileged runs amk-opt
// as nobody, for whom the permissions hold.)
// RUN: if [ -d %t ]; then chmod -R u+w %t; fi; rm -rf %t && mkdir -p %t
// RUN: amk-opt %s --amk-lower=cache-dir=%t/ro -o %t/filled.mlir
// RUN: chmod 555 %t/ro
// RUN: %unprivileged amk-opt %s --amk-lower="cache-dir=%t/ro cache-remarks" -mlir-print-op-on-diagnostic=false > %t/hit.mlir 2> %t/hit.log
// RUN: FileCheck %s --check-prefix=HIT < %t/hit.log
// RUN: diff %t/filled.mlir %t/hit.mlir
// RUN: %unprivileged amk-opt %s --amk-lower="cache-dir=%t/ro opt-level=2" -verify-diagnostics | FileCheck %s
// RUN: chmod 755 %t/ro
// RUN: amk-cache stats --cache-dir=%t/ro | FileCheck %s --check-prefix=STATS

// HIT: remark: compile cache hit: k
// HIT-NOT: warning:

// CHECK: gpu.binary @k

// STATS: entries: 1
// STATS: temporary files: 0

module attributes {amk.target = #amk.target<"h200">} {
  func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    // expected-warning @below {{Permission denied; compiling without the cache}}
    amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
    }
    return
  }
}
