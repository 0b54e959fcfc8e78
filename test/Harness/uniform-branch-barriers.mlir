// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Barriers in a branch the whole block takes or skips (a condition of the
// block, not of its threads; outside loops): the block counts them or not,
// the same for every thread of it, so accesses after the branch are
// ordered by what each block ran (before, the barriers' count was unknown
// and every access after them AMK-UNPROVABLE). Each planted bug next to
// its correct twin.

// SANITIZE: tool=racecheck args=f32[4x256]
// Twin: blocks 0 and 1 exchange through shared memory inside the branch,
// which ends in a barrier; every block then exchanges again.
gpu.module @m {
  gpu.func @after_branch(%out: memref<4x256xf32>) workgroup(%sm: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c2 = arith.constant 2 : index
    %c255 = arith.constant 255 : index
    %f = arith.constant 1.0 : f32
    %p = arith.cmpi ult, %b, %c2 : index
    scf.if %p {
      memref.store %f, %sm[%t] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %j = arith.subi %c255, %t : index
      %v = memref.load %sm[%j] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%b, %t] : memref<4x256xf32>
      gpu.barrier
    }
    memref.store %f, %sm[%t] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %k = arith.subi %c255, %t : index
    %w = memref.load %sm[%k] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck args=f32[4x256]
// Bug: the same without the branch's last barrier: a thread of blocks 0
// and 1 may still read inside the branch what another overwrites after it.
gpu.module @m {
  gpu.func @after_branch_unclosed(%out: memref<4x256xf32>) workgroup(%sm: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c2 = arith.constant 2 : index
    %c255 = arith.constant 255 : index
    %f = arith.constant 1.0 : f32
    %p = arith.cmpi ult, %b, %c2 : index
    scf.if %p {
      memref.store %f, %sm[%t] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %j = arith.subi %c255, %t : index
      // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them (write-read{{.*}}}}
      %v = memref.load %sm[%j] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%b, %t] : memref<4x256xf32>
    }
    memref.store %f, %sm[%t] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %k = arith.subi %c255, %t : index
    %w = memref.load %sm[%k] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck args=f32[4x256]
// Bug: the only barrier between a store and a load is in the branch, which
// blocks 2 and 3 skip.
gpu.module @m {
  gpu.func @across_branch(%out: memref<4x256xf32>) workgroup(%sm: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c2 = arith.constant 2 : index
    %c255 = arith.constant 255 : index
    %f = arith.constant 1.0 : f32
    %p = arith.cmpi ult, %b, %c2 : index
    memref.store %f, %sm[%t] : memref<256xf32, #gpu.address_space<workgroup>>
    scf.if %p {
      gpu.barrier
    }
    %k = arith.subi %c255, %t : index
    // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them (write-read{{.*}}}}
    %w = memref.load %sm[%k] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%b, %t] : memref<4x256xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck args=f32[4x256]
// Twin: the same with a barrier after the branch too.

gpu.module @m {
  gpu.func @across_branch_closed(%out: memref<4x256xf32>) workgroup(%sm: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c2 = arith.constant 2 : index
    %c255 = arith.constant 255 : index
    %f = arith.constant 1.0 : f32
    %p = arith.cmpi ult, %b, %c2 : index
    memref.store %f, %sm[%t] : memref<256xf32, #gpu.address_space<workgroup>>
    scf.if %p {
      gpu.barrier
    }
    gpu.barrier
    %k = arith.subi %c255, %t : index
    %w = memref.load %sm[%k] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%b, %t] : memref<4x256xf32>
    gpu.return
  }
}
