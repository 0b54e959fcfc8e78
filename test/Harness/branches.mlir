// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Kernels whose control flow is a branch graph (cf.cond_br, cf.br) inside
// the gpu.func: the harness checks the structured kernel upstream's
// CFG-to-SCF lifting makes of them (each diamond an scf.if, with its
// condition as the guard), so they get every check a structured kernel
// gets. Loops and switches of branches stay unprovable (unprovable.mlir).
// SANITIZE: tool=memcheck args=f32[256],f32[256]
// Twin: a[i - 1] in the arm that i > 0 branches to.
gpu.module @m {
  gpu.func @guarded(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %p = arith.cmpi ugt, %i, %c0 : index
    cf.cond_br %p, ^then, ^exit
  ^then:
    %j = arith.subi %i, %c1 : index
    %v = memref.load %a[%j] : memref<256xf32>
    memref.store %v, %b[%i] : memref<256xf32>
    cf.br ^exit
  ^exit:
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck args=f32[256],f32[256]
// Bug: the same read in the arm that i > 0 does not reach (i = 0 reads
// a[-1]).
gpu.module @m {
  gpu.func @wrong_arm(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %p = arith.cmpi ugt, %i, %c0 : index
    cf.cond_br %p, ^exit, ^else
  ^else:
    %j = arith.subi %i, %c1 : index
    // expected-error @+1 {{[AMK-OOB] load of memref<256xf32> may leave the buffer in dimension 0: index: it can be negative}}
    %v = memref.load %a[%j] : memref<256xf32>
    memref.store %v, %b[%i] : memref<256xf32>
    cf.br ^exit
  ^exit:
    gpu.return
  }
}

// -----

// Twin: a barrier in one arm of a branch on a kernel argument (every
// thread of the block takes the same arm).
gpu.module @m {
  gpu.func @uniform_branch(%c: i1) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    cf.cond_br %c, ^a, ^b
  ^a:
    gpu.barrier
    gpu.return
  ^b:
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck
// Bug: the same barrier in an arm only thread 0 takes, while the others
// go on to the barrier after the join: they meet different barriers.
gpu.module @m {
  gpu.func @divergent_branch() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %p = arith.cmpi eq, %tid, %c0 : index
    cf.cond_br %p, ^a, ^b
  ^a:
    // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'gpu.barrier' at line 75 is under thread-dependent control}}
    gpu.barrier
    cf.br ^join
  ^b:
    cf.br ^join
  ^join:
    gpu.barrier
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck args=f32[128],f32=1.0,f32=2.0
// Twin: two arms that write shared memory, each thread its own word, with a
// barrier after the join before the neighbour's word is read.
gpu.module @m {
  gpu.func @arms_then_barrier(%out: memref<128xf32>, %x: f32, %y: f32) workgroup(%s: memref<128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c127 = arith.constant 127 : index
    %p = arith.cmpi ult, %tid, %c64 : index
    cf.cond_br %p, ^low, ^high
  ^low:
    memref.store %x, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    cf.br ^join
  ^high:
    memref.store %y, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    cf.br ^join
  ^join:
    gpu.barrier
    %n = arith.addi %tid, %c1 : index
    %m = arith.andi %n, %c127 : index
    %v = memref.load %s[%m] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck args=f32[128],f32=1.0,f32=2.0
// Bug: the same kernel without the barrier: a thread reads its neighbour's
// word while the neighbour may still write it.
gpu.module @m {
  gpu.func @arms_no_barrier(%out: memref<128xf32>, %x: f32, %y: f32) workgroup(%s: memref<128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c127 = arith.constant 127 : index
    %p = arith.cmpi ult, %tid, %c64 : index
    cf.cond_br %p, ^low, ^high
  ^low:
    memref.store %x, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    cf.br ^join
  ^high:
    memref.store %y, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    cf.br ^join
  ^join:
    %n = arith.addi %tid, %c1 : index
    %m = arith.andi %n, %c127 : index
    // expected-error @+1 {{[AMK-SMEM-RACE]}}
    %v = memref.load %s[%m] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck grid=16 args=f32[3000],f32[2000]
// Twin: a branch guarded by the smaller of two dynamic sizes (memref.dim
// in a kernel the harness lifts: this crashed the checks before
// 2026-12-07, on the lifted copy's detached function).
gpu.module @m {
  gpu.func @guard_by_dim(%x: memref<?xf32>, %y: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %ny = memref.dim %y, %c0 : memref<?xf32>
    %m = arith.minui %n, %ny : index
    %b = arith.muli %bid, %c256 : index
    %i = arith.addi %b, %tid : index
    %ok = arith.cmpi ult, %i, %m : index
    cf.cond_br %ok, ^copy, ^done
  ^copy:
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %y[%i] : memref<?xf32>
    cf.br ^done
  ^done:
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck grid=16 args=f32[3000],f32[2000]
// Bug: guarded by the larger size.
gpu.module @m {
  gpu.func @guard_by_larger_dim(%x: memref<?xf32>, %y: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %ny = memref.dim %y, %c0 : memref<?xf32>
    %m = arith.maxui %n, %ny : index
    %b = arith.muli %bid, %c256 : index
    %i = arith.addi %b, %tid : index
    %ok = arith.cmpi ult, %i, %m : index
    cf.cond_br %ok, ^copy, ^done
  ^copy:
    // expected-error-re @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0{{.*}}}}
    %v = memref.load %x[%i] : memref<?xf32>
    // expected-error-re @+1 {{[AMK-OOB] store of memref<?xf32> may leave the buffer in dimension 0{{.*}}}}
    memref.store %v, %y[%i] : memref<?xf32>
    cf.br ^done
  ^done:
    gpu.return
  }
}
