// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Planted barrier bugs (AMK-BARRIER-DIVERGENT), each next to its correct
// twin, which the harness must accept.

// Bug: a barrier only the first 16 threads reach.
gpu.module @m {
  gpu.func @thread_branch(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %lt = arith.cmpi ult, %tid, %c16 : index
    scf.if %lt {
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'gpu.barrier' at line 13 is under thread-dependent control: 'scf.if' at line 11 decides by a value derived from the thread id}}
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Twin: the same branch on the block id is uniform across the block.
gpu.module @m {
  gpu.func @block_branch(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %bid = gpu.block_id x
    %c16 = arith.constant 16 : index
    %lt = arith.cmpi ult, %bid, %c16 : index
    scf.if %lt {
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Bug: a loop whose trip count depends on the thread (through arithmetic).
gpu.module @m {
  gpu.func @thread_trip_count() kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %n = arith.remui %tid, %c4 : index
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT]}}
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Twin: a trip count from a kernel argument and the block size is uniform.
gpu.module @m {
  gpu.func @uniform_trip_count(%k: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %dim = gpu.block_dim x
    %n = arith.divui %k, %dim : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Bug: the divergence reaches the branch through a loop-carried value.
gpu.module @m {
  gpu.func @carried(%k: index) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %c0) -> index {
      %next = arith.addi %acc, %tid : index
      scf.yield %next : index
    }
    %odd = arith.remui %r, %c2 : index
    %cond = arith.cmpi eq, %odd, %c1 : index
    scf.if %cond {
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT]}}
      nvvm.barrier0
    }
    gpu.return
  }
}

// -----

// Bug: an scf.if that yields uniform constants, but which ones depends on the
// thread; the barrier's loop runs a thread-dependent number of times.
gpu.module @m {
  gpu.func @yielded(%k: index) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %lt = arith.cmpi ult, %tid, %c8 : index
    %n = scf.if %lt -> index {
      scf.yield %c1 : index
    } else {
      scf.yield %c8 : index
    }
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT]}}
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Twin: a thread-dependent branch without a barrier inside, and barriers on
// both sides of it, is fine.
gpu.module @m {
  gpu.func @barriers_around(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    gpu.barrier
    %lt = arith.cmpi ult, %tid, %c16 : index
    scf.if %lt {
      memref.store %zero, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    gpu.return
  }
}
