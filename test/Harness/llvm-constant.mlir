// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// llvm.mlir.constant is modelled: the range analysis knows its value (it
// has no range interface upstream), so an index built from one is bounded.
// (Before, the op was AMK-UNPROVABLE and its value unknown.)

// Twin: t + 0 indexes a 256-element buffer with 256 threads.
gpu.module @m {
  gpu.func @plus_zero(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %t = gpu.thread_id x
    %c = llvm.mlir.constant(0 : index) : i64
    %ci = arith.index_cast %c : i64 to index
    %i = arith.addi %t, %ci : index
    %x = memref.load %a[%i] : memref<256xf32>
    memref.store %x, %a[%i] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: t + 1 reads one past the end.
gpu.module @m {
  gpu.func @plus_one(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %t = gpu.thread_id x
    %c = llvm.mlir.constant(1 : i64) : i64
    %ci = arith.index_cast %c : i64 to index
    %i = arith.addi %t, %ci : index
    // expected-error @+1 {{[AMK-OOB] load of memref<256xf32> may leave the buffer in dimension 0: index: its range [1, 256] + 1 exceeds 256}}
    %x = memref.load %a[%i] : memref<256xf32>
    memref.store %x, %b[%t] : memref<256xf32>
    gpu.return
  }
}
