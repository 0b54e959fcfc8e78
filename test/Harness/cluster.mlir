// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Cluster barriers (nvvm.cluster.arrive right before nvvm.cluster.wait):
// every thread of a cluster's blocks must reach them (AMK-BARRIER-
// DIVERGENT at cluster scope), and they order the global accesses of the
// blocks of one cluster (AMK-GLOBAL-RACE sees only blocks of different
// clusters race across one) as well as a block's own shared accesses.
// Each planted bug next to its correct twin. The pattern: each block of a
// cluster of 2 publishes a partial in a workspace, and reads its partner's.

// Twin: the partner is the other block of the cluster, read after the
// barrier.
gpu.module @m {
  gpu.func @exchange(%ws: memref<8xf32>, %out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %rank = arith.remui %bid, %c2 : index
    %half = arith.divui %bid, %c2 : index
    %base = arith.muli %half, %c2 : index
    %other = arith.subi %c1, %rank : index
    %partner = arith.addi %base, %other : index
    scf.if %first {
      memref.store %one, %ws[%bid] : memref<8xf32>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %first {
      %p = memref.load %ws[%partner] : memref<8xf32>
      memref.store %p, %out[%bid] : memref<8xf32>
    }
    gpu.return
  }
}

// -----
// Bug: no barrier between the write and the partner's read.
gpu.module @m {
  gpu.func @no_barrier(%ws: memref<8xf32>, %out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %rank = arith.remui %bid, %c2 : index
    %half = arith.divui %bid, %c2 : index
    %base = arith.muli %half, %c2 : index
    %other = arith.subi %c1, %rank : index
    %partner = arith.addi %base, %other : index
    scf.if %first {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: {{.*}}}}
      memref.store %one, %ws[%bid] : memref<8xf32>
    }
    scf.if %first {
      %p = memref.load %ws[%partner] : memref<8xf32>
      memref.store %p, %out[%bid] : memref<8xf32>
    }
    gpu.return
  }
}

// -----
// Bug: the barrier orders one cluster only; the partner is in the next.
gpu.module @m {
  gpu.func @next_cluster(%ws: memref<8xf32>, %out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %rank = arith.remui %bid, %c2 : index
    %half = arith.divui %bid, %c2 : index
    %base = arith.muli %half, %c2 : index
    %other = arith.subi %c1, %rank : index
    %partner = arith.addi %base, %other : index
    %n = arith.addi %bid, %c2 : index
    %next = arith.remui %n, %c8 : index
    scf.if %first {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: {{.*}}}}
      memref.store %one, %ws[%bid] : memref<8xf32>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %first {
      %p = memref.load %ws[%next] : memref<8xf32>
      memref.store %p, %out[%bid] : memref<8xf32>
    }
    gpu.return
  }
}

// -----
// Bug: only the cluster's first block reaches the barrier.
gpu.module @m {
  gpu.func @rank_branch(%ws: memref<8xf32>, %out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %rank = arith.remui %bid, %c2 : index
    %half = arith.divui %bid, %c2 : index
    %base = arith.muli %half, %c2 : index
    %other = arith.subi %c1, %rank : index
    %partner = arith.addi %base, %other : index
    scf.if %first {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: {{.*}}}}
      memref.store %one, %ws[%bid] : memref<8xf32>
    }
    %lead = arith.cmpi eq, %rank, %c0 : index
    scf.if %lead {
      // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] cluster barrier 'nvvm.cluster.arrive' at line {{[0-9]+}} is under control that can differ between the threads of a cluster: {{.*}}}}
      nvvm.cluster.arrive
      // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] cluster barrier 'nvvm.cluster.wait' at line {{[0-9]+}} is under control {{.*}}}}
      nvvm.cluster.wait
    }
    scf.if %first {
      %p = memref.load %ws[%partner] : memref<8xf32>
      memref.store %p, %out[%bid] : memref<8xf32>
    }
    gpu.return
  }
}

// -----
// Twin: a branch on the cluster (the block id over the cluster size) is
// the same for its blocks.
gpu.module @m {
  gpu.func @cluster_branch(%ws: memref<8xf32>, %out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %rank = arith.remui %bid, %c2 : index
    %half = arith.divui %bid, %c2 : index
    %base = arith.muli %half, %c2 : index
    %other = arith.subi %c1, %rank : index
    %partner = arith.addi %base, %other : index
    %cl = arith.divui %bid, %c2 : index
    %ok = arith.cmpi ult, %cl, %c3 : index
    scf.if %ok {
    scf.if %first {
      memref.store %one, %ws[%bid] : memref<8xf32>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %first {
      %p = memref.load %ws[%partner] : memref<8xf32>
      memref.store %p, %out[%bid] : memref<8xf32>
    }
    }
    gpu.return
  }
}

// -----
// Unprovable: work between the arrive and the wait.
gpu.module @m {
  gpu.func @split(%ws: memref<8xf32>, %out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %rank = arith.remui %bid, %c2 : index
    %half = arith.divui %bid, %c2 : index
    %base = arith.muli %half, %c2 : index
    %other = arith.subi %c1, %rank : index
    %partner = arith.addi %base, %other : index
    // expected-error-re @+1 {{[AMK-UNPROVABLE] a cluster barrier whose arrive and wait are apart ('nvvm.cluster.arrive' at line {{[0-9]+}}) is not modelled: put the wait right after the arrive}}
    nvvm.cluster.arrive
    scf.if %first {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: {{.*}}}}
      memref.store %one, %ws[%bid] : memref<8xf32>
    }
    // expected-error-re @+1 {{[AMK-UNPROVABLE] a cluster barrier whose arrive and wait are apart ('nvvm.cluster.wait' at line {{[0-9]+}}) {{.*}}}}
    nvvm.cluster.wait
    scf.if %first {
      %p = memref.load %ws[%partner] : memref<8xf32>
      memref.store %p, %out[%bid] : memref<8xf32>
    }
    gpu.return
  }
}


// -----
// Bug: a branch on the block id that splits a cluster (blocks 2 and 3 of
// the second cluster take different sides).
gpu.module @m {
  gpu.func @block_branch(%out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %bid = gpu.block_id x
    %c3 = arith.constant 3 : index
    %ok = arith.cmpi ult, %bid, %c3 : index
    scf.if %ok {
      // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] cluster barrier 'nvvm.cluster.arrive' at line {{[0-9]+}} is under control {{.*}}}}
      nvvm.cluster.arrive
      // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] cluster barrier 'nvvm.cluster.wait' at line {{[0-9]+}} is under control {{.*}}}}
      nvvm.cluster.wait
    }
    gpu.return
  }
}

// -----
// Bug: without known_cluster_size each block is its own cluster: the
// barrier orders nothing between blocks.
gpu.module @m {
  gpu.func @no_cluster_size(%ws: memref<8xf32>, %out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %rank = arith.remui %bid, %c2 : index
    %half = arith.divui %bid, %c2 : index
    %base = arith.muli %half, %c2 : index
    %other = arith.subi %c1, %rank : index
    %partner = arith.addi %base, %other : index
    scf.if %first {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' {{.*}}}}
      memref.store %one, %ws[%bid] : memref<8xf32>
    }
    nvvm.cluster.arrive
    nvvm.cluster.wait
    scf.if %first {
      %p = memref.load %ws[%partner] : memref<8xf32>
      memref.store %p, %out[%bid] : memref<8xf32>
    }
    gpu.return
  }
}

// -----
// Twin: a cluster barrier also orders its own block's shared memory (each
// thread reads what another wrote before the barrier).
gpu.module @m {
  gpu.func @shared_exchange(%out: memref<256xf32>) workgroup(%smem: memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c31 = arith.constant 31 : index
    %c32 = arith.constant 32 : index
    %v = arith.index_cast %tid : index to i32
    %f = arith.sitofp %v : i32 to f32
    memref.store %f, %smem[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %mirror = arith.subi %c31, %tid : index
    %g = memref.load %smem[%mirror] : memref<32xf32, #gpu.address_space<workgroup>>
    %row = arith.muli %bid, %c32 : index
    %i = arith.addi %row, %tid : index
    memref.store %g, %out[%i] : memref<256xf32>
    gpu.return
  }
}

// -----
// Bug: the same exchange with the barrier after the read.
gpu.module @m {
  gpu.func @shared_exchange_late(%out: memref<256xf32>) workgroup(%smem: memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c31 = arith.constant 31 : index
    %c32 = arith.constant 32 : index
    %v = arith.index_cast %tid : index to i32
    %f = arith.sitofp %v : i32 to f32
    memref.store %f, %smem[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
    %mirror = arith.subi %c31, %tid : index
    // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them {{.*}}}}
    %g = memref.load %smem[%mirror] : memref<32xf32, #gpu.address_space<workgroup>>
    nvvm.cluster.arrive
    nvvm.cluster.wait
    %row = arith.muli %bid, %c32 : index
    %i = arith.addi %row, %tid : index
    memref.store %g, %out[%i] : memref<256xf32>
    gpu.return
  }
}

// -----
// Bug: the exchange in a loop. The barrier orders each iteration's write
// before the partner's read of it, but not the next iteration's write
// after that read: both come between the same two barriers.
gpu.module @m {
  gpu.func @exchange_in_loop(%ws: memref<8xf32>, %out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %rank = arith.remui %bid, %c2 : index
    %half = arith.divui %bid, %c2 : index
    %base = arith.muli %half, %c2 : index
    %other = arith.subi %c1, %rank : index
    %partner = arith.addi %base, %other : index
    scf.for %i = %c0 to %c3 step %c1 {
      scf.if %first {
        // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' {{.*}}}}
        memref.store %one, %ws[%bid] : memref<8xf32>
      }
      nvvm.cluster.arrive
      nvvm.cluster.wait
      scf.if %first {
        %p = memref.load %ws[%partner] : memref<8xf32>
        memref.store %p, %out[%bid] : memref<8xf32>
      }
    }
    gpu.return
  }
}

// -----
// Twin: two versions of the exchange, chosen by the row length (uniform
// over the grid), each with its own barrier; a version's write and the
// other's read never meet in one cluster. Only rank 0's first thread
// writes the row's result, in either version (two stores of one element
// under their own guards).
gpu.module @m {
  gpu.func @versions(%ws: memref<8xf32>, %x: memref<?xf32>, %out: memref<4xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %x, %c0 : memref<?xf32>
    %rem = arith.remui %n, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    %rank = arith.remui %bid, %c2 : index
    %row = arith.divui %bid, %c2 : index
    %base = arith.muli %row, %c2 : index
    %other = arith.subi %c1, %rank : index
    %partner = arith.addi %base, %other : index
    %first = arith.cmpi eq, %tid, %c0 : index
    %leader = arith.cmpi eq, %rank, %c0 : index
    scf.if %even {
      scf.if %first {
        memref.store %one, %ws[%bid] : memref<8xf32>
      }
      nvvm.cluster.arrive
      nvvm.cluster.wait
      %writer = arith.andi %first, %leader : i1
      scf.if %writer {
        %p = memref.load %ws[%partner] : memref<8xf32>
        memref.store %p, %out[%row] : memref<4xf32>
      }
    } else {
      scf.if %first {
        memref.store %one, %ws[%bid] : memref<8xf32>
      }
      nvvm.cluster.arrive
      nvvm.cluster.wait
      %writer = arith.andi %first, %leader : i1
      scf.if %writer {
        %p = memref.load %ws[%partner] : memref<8xf32>
        memref.store %p, %out[%row] : memref<4xf32>
      }
    }
    gpu.return
  }
}

// -----
// Bug: the same, but both ranks write the row's result in the second
// version.
gpu.module @m {
  gpu.func @versions_both_write(%ws: memref<8xf32>, %x: memref<?xf32>, %out: memref<4xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %x, %c0 : memref<?xf32>
    %rem = arith.remui %n, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    %rank = arith.remui %bid, %c2 : index
    %row = arith.divui %bid, %c2 : index
    %base = arith.muli %row, %c2 : index
    %other = arith.subi %c1, %rank : index
    %partner = arith.addi %base, %other : index
    %first = arith.cmpi eq, %tid, %c0 : index
    %leader = arith.cmpi eq, %rank, %c0 : index
    scf.if %even {
      scf.if %first {
        memref.store %one, %ws[%bid] : memref<8xf32>
      }
      nvvm.cluster.arrive
      nvvm.cluster.wait
      %writer = arith.andi %first, %leader : i1
      scf.if %writer {
        %p = memref.load %ws[%partner] : memref<8xf32>
        memref.store %p, %out[%row] : memref<4xf32>
      }
    } else {
      scf.if %first {
        memref.store %one, %ws[%bid] : memref<8xf32>
      }
      nvvm.cluster.arrive
      nvvm.cluster.wait
      scf.if %first {
        %p = memref.load %ws[%partner] : memref<8xf32>
        // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with {{.*}}on kernel argument #2: {{.*}}}}
        memref.store %p, %out[%row] : memref<4xf32>
      }
    }
    gpu.return
  }
}
