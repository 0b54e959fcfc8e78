// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Kernels versioned on a uniform property of their sizes (as AMK's dynamic
// tensor-core kernels are on `K % 8 == 0`): facts a version's guard states
// (divisibility) are used, and the two versions never run together.

// SANITIZE: tool=memcheck grid=2 args=f32[1022]
// Bug: 4-wide loads below a dynamic size that need not be a multiple of 4:
// the last vector can straddle the end.
gpu.module @m {
  gpu.func @vector_past_end(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1024 = arith.constant 1024 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %t4 = arith.muli %tid, %c4 : index
    %base = arith.muli %bid, %c1024 : index
    %i = arith.addi %base, %t4 : index
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      // expected-error @+2 {{[AMK-OOB] vector load of memref<?xf32> may leave the buffer in dimension 0}}
      // expected-error @+2 {{[AMK-OOB] vector store of memref<?xf32> may leave the buffer in dimension 0}}
      %v = vector.load %a[%i] : memref<?xf32>, vector<4xf32>
      vector.store %v, %a[%i] : memref<?xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=2 args=f32[1024]
// Twin: the same loads in the version for sizes that are multiples of 4.
gpu.module @m {
  gpu.func @vector_versioned(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1024 = arith.constant 1024 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %rem = arith.remui %n, %c4 : index
    %multiple = arith.cmpi eq, %rem, %c0 : index
    scf.if %multiple {
      %t4 = arith.muli %tid, %c4 : index
      %base = arith.muli %bid, %c1024 : index
      %i = arith.addi %base, %t4 : index
      %ok = arith.cmpi ult, %i, %n : index
      scf.if %ok {
        %v = vector.load %a[%i] : memref<?xf32>, vector<4xf32>
        vector.store %v, %a[%i] : memref<?xf32>, vector<4xf32>
      }
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Bug: the two branches of a uniform test inside a loop run in different
// iterations: thread 255's write in the first and thread 0's in the second
// meet at element 255 with no barrier between them.
gpu.module @m {
  gpu.func @branches_across_iterations(%out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c255 = arith.constant 255 : index
    %x = memref.load %out[%tid] : memref<256xf32>
    %j = arith.subi %c255, %tid : index
    scf.for %it = %c0 to %c2 step %c1 {
      %first = arith.cmpi eq, %it, %c0 : index
      scf.if %first {
        memref.store %x, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      } else {
        // expected-error @+1 {{[AMK-SMEM-RACE]}}
        memref.store %x, %buf[%j] : memref<256xf32, #gpu.address_space<workgroup>>
      }
    }
    gpu.barrier
    %y = memref.load %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Twin: the same writes in the two versions of a kernel: a uniform test
// that runs once picks one branch for the whole block.
gpu.module @m {
  gpu.func @exclusive_versions(%out: memref<?xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c255 = arith.constant 255 : index
    %n = memref.dim %out, %c0 : memref<?xf32>
    %in = arith.cmpi ult, %tid, %n : index
    %t = arith.select %in, %tid, %c0 : index
    %x = memref.load %out[%t] : memref<?xf32>
    %j = arith.subi %c255, %tid : index
    %rem = arith.remui %n, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    scf.if %even {
      memref.store %x, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    } else {
      memref.store %x, %buf[%j] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %y = memref.load %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    scf.if %in {
      memref.store %y, %out[%tid] : memref<?xf32>
    }
    gpu.return
  }
}
