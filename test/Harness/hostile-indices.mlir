// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-verify --verify-diagnostics
// Constant indices and dimensions the analyses read from the kernel are
// range-checked, whatever the kernel says: `memref.dim` of a dimension the
// memref does not have (valid IR, undefined at run time) is a size nothing
// can be proved with, and a launch dimension below 1 is an error before any
// analysis sizes its tables by it. (Before, dim -1 crashed the bounds check
// and known_block_size -1 aborted with std::length_error.)

gpu.module @m {
  gpu.func @dim_minus_one(%a: memref<?xf32>) kernel {
    %t = gpu.thread_id x
    %c = arith.constant -1 : index
    %n = memref.dim %a, %c : memref<?xf32>
    %ok = arith.cmpi ult, %t, %n : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0: index: its range [0, 1023] is not guarded by the dynamic size it indexes}}
      %x = memref.load %a[%t] : memref<?xf32>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @dim_65536(%a: memref<?xf32>) kernel {
    %t = gpu.thread_id x
    %c = arith.constant 65536 : index
    %n = memref.dim %a, %c : memref<?xf32>
    %ok = arith.cmpi ult, %t, %n : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0}}
      %x = memref.load %a[%t] : memref<?xf32>
    }
    gpu.return
  }
}

// -----

// One past the rank, as a guard and as a size minus one.
gpu.module @m {
  gpu.func @dim_rank(%a: memref<?xf32>) kernel {
    %t = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c1 : memref<?xf32>
    %last = arith.subi %n, %c1 : index
    %i = arith.minui %t, %last : index
    // expected-error @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0}}
    %x = memref.load %a[%i] : memref<?xf32>
    gpu.return
  }
}

// -----

// A dimension of an unranked memref: its size cannot be traced.
gpu.module @m {
  gpu.func @unranked(%a: memref<*xf32>) kernel {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{[AMK-UNPROVABLE] memref.cast from an unranked memref to memref<?xf32>: the real sizes and layout are not known}}
    %r = memref.cast %a : memref<*xf32> to memref<?xf32>
    %n = memref.dim %r, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %t, %n : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-UNPROVABLE] load of memref<?xf32>: dimension 0 has a size the bounds check cannot trace}}
      %x = memref.load %r[%t] : memref<?xf32>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{[AMK-RES-THREADS] known_block_size gives dimension x the size -1: every dimension of a launch is in [1, 2147483647]}}
  gpu.func @block_minus_one(%a: memref<128xf32>) workgroup(%s: memref<128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: -1, 1, 1>} {
    %t = gpu.thread_id x
    %c127 = arith.constant 127 : index
    %i = arith.minui %t, %c127 : index
    %x = memref.load %a[%i] : memref<128xf32>
    memref.store %x, %s[%i] : memref<128xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+2 {{[AMK-RES-THREADS] known_block_size gives dimension y the size 0}}
  // expected-error @+1 {{[AMK-RES-GRID] known_grid_size gives dimension z the size -5}}
  gpu.func @zero_sizes(%a: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 0, 1>, known_grid_size = array<i32: 1, 1, -5>} {
    %t = gpu.thread_id x
    %x = memref.load %a[%t] : memref<128xf32>
    gpu.return
  }
}

// -----

// x rem 0 is undefined (AMK-INT-UB), and the bounds check derives no
// divisor from it (it took x % 0).
gpu.module @m {
  gpu.func @rem_zero(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %i4 = arith.muli %t, %c4 : index
    // expected-error @+1 {{[AMK-INT-UB] 'arith.remui' at line 111 divides by zero: its divisor is 0, and a division by zero is undefined (guard the divisor, or divide by a value that is never 0)}}
    %i = arith.remui %i4, %c0 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] vector load of memref<?xf32> may leave the buffer in dimension 0}}
      %v = vector.load %a[%i] : memref<?xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// -----

// A cluster extent of 0 (found by the fuzzer: the uniformity analysis took
// a block id modulo it, a division by zero) is no launch at all.
gpu.module @m {
  // expected-error @+1 {{[AMK-RES-GRID] known_cluster_size gives dimension x the size 0: every dimension of a launch is in [1, 16]}}
  gpu.func @zero_cluster(%out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 0, 1, 1>} {
    %bid = gpu.block_id x
    %c2 = arith.constant 2 : index
    %half = arith.divui %bid, %c2 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %out[%half] : memref<8xf32>
    gpu.return
  }
}
