// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// n-D vector loads, stores and transfers, and 1-D transfers that may run
// past the end of their row: the harness checks the rows they are made of
// (Normalize.h) and knows that a transfer with in_bounds = false touches
// nothing past the dimension's end. Each correct kernel is next to a bug of
// the same shape; a finding names the original op.

// Twin: each thread loads and stores a 2x4 block of rows 2t and 2t + 1
// (32 threads: up to row 63 of 64).
gpu.module @m {
  gpu.func @rows_in_bounds(%a: memref<64x64xf32>, %b: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %row = arith.muli %tid, %c2 : index
    %v = vector.load %a[%row, %c0] : memref<64x64xf32>, vector<2x4xf32>
    vector.store %v, %b[%row, %c0] : memref<64x64xf32>, vector<2x4xf32>
    gpu.return
  }
}

// -----

// Bug: 33 threads: thread 32 loads and stores rows 64 and 65 (stock MLIR
// lowers no n-D vector.load; the 2-D transfers below, the same rows, are
// the ones run under memcheck).
gpu.module @m {
  gpu.func @rows_past_end(%a: memref<64x64xf32>, %b: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 33, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %row = arith.muli %tid, %c2 : index
    // expected-error @+1 {{[AMK-OOB] vector load of memref<64x64xf32> may leave the buffer in dimension 0}}
    %v = vector.load %a[%row, %c0] : memref<64x64xf32>, vector<2x4xf32>
    // expected-error @+1 {{[AMK-OOB] vector store of memref<64x64xf32> may leave the buffer in dimension 0}}
    vector.store %v, %b[%row, %c0] : memref<64x64xf32>, vector<2x4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck args=f32[64x64],f32[64x64]
// Twin: the same 33 threads with 2-D transfers whose rows may run past the
// end (in_bounds = false there): those rows are neither read nor written.
gpu.module @m {
  gpu.func @masked_rows(%a: memref<64x64xf32>, %b: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 33, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : f32
    %row = arith.muli %tid, %c2 : index
    %v = vector.transfer_read %a[%row, %c0], %pad {in_bounds = [false, true]} : memref<64x64xf32>, vector<2x4xf32>
    vector.transfer_write %v, %b[%row, %c0] {in_bounds = [false, true]} : vector<2x4xf32>, memref<64x64xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck args=f32[64x64],f32[64x64]
// Bug: the same transfers claiming their rows in bounds.
gpu.module @m {
  gpu.func @unmasked_rows(%a: memref<64x64xf32>, %b: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 33, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : f32
    %row = arith.muli %tid, %c2 : index
    // expected-error @+1 {{[AMK-OOB] vector transfer read of memref<64x64xf32> may leave the buffer in dimension 0}}
    %v = vector.transfer_read %a[%row, %c0], %pad {in_bounds = [true, true]} : memref<64x64xf32>, vector<2x4xf32>
    // expected-error @+1 {{[AMK-OOB] vector transfer write of memref<64x64xf32> may leave the buffer in dimension 0}}
    vector.transfer_write %v, %b[%row, %c0] {in_bounds = [true, true]} : vector<2x4xf32>, memref<64x64xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck args=f32[1002],f32[1024]
// Twin: a 1-D transfer of 4 at 4t over 1002 elements: the last thread's
// read runs past the end, where it reads padding.
gpu.module @m {
  gpu.func @masked_tail(%a: memref<1002xf32>, %b: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %pad = arith.constant 0.0 : f32
    %i = arith.muli %tid, %c4 : index
    %v = vector.transfer_read %a[%i], %pad {in_bounds = [false]} : memref<1002xf32>, vector<4xf32>
    vector.store %v, %b[%i] : memref<1024xf32>, vector<4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck args=f32[1002],f32[1024]
// Bug: the same read from one element before: thread 0 starts at -1, which
// the mask does not cover.
gpu.module @m {
  gpu.func @masked_before_start(%a: memref<1002xf32>, %b: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %pad = arith.constant 0.0 : f32
    %i = arith.muli %tid, %c4 : index
    %j = arith.subi %i, %c1 : index
    // expected-error @+1 {{[AMK-OOB] vector transfer read of memref<1002xf32> may leave the buffer in dimension 0: index (+4 elements): it can be negative}}
    %v = vector.transfer_read %a[%j], %pad {in_bounds = [false]} : memref<1002xf32>, vector<4xf32>
    vector.store %v, %b[%i] : memref<1024xf32>, vector<4xf32>
    gpu.return
  }
}
