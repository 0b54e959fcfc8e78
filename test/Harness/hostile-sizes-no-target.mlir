// RUN: amk-opt %s --amk-verify --verify-diagnostics
// Without a target, a block dimension past what any GPU launches (1024
// threads) stops the checks before they enumerate its threads.

gpu.module @m {
  // expected-error @+1 {{[AMK-RES-THREADS] known_block_size gives dimension y the size 2147483647: every dimension of a launch is in [1, 1024]}}
  gpu.func @huge_block(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 2147483647, 1>} {
    %t = gpu.thread_id y
    %c0 = arith.constant 0 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %t, %n : index
    scf.if %ok {
      %x = memref.load %a[%t] : memref<?xf32>
      memref.store %x, %a[%t] : memref<?xf32>
    }
    gpu.return
  }
}
