// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// A named barrier (`bar.sync id, count`) orders only the `count` threads
// that reach it: one of fewer threads than the block is no block barrier
// for the race checks (nor one whose count is not a constant). Each
// planted bug next to its correct twin; a barrier of the whole block under
// any id orders everything.

// Bug: 128 of 256 threads complete barrier 1, so thread 0's write and
// thread 255's read of one element are unordered.
gpu.module @m {
  gpu.func @global_partial(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c255 = arith.constant 255 : index
    %id = arith.constant 1 : i32
    %n = arith.constant 128 : i32
    %f = arith.constant 1.0 : f32
    memref.store %f, %out[%tid] : memref<256xf32>
    nvvm.barrier id = %id number_of_threads = %n
    %j = arith.subi %c255, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads {{[0-9]+}} and {{[0-9]+}}){{.*}}}}
    %v = memref.load %out[%j] : memref<256xf32>
    gpu.return
  }
}

// -----

// Twin: barrier 1 of all 256 threads.
gpu.module @m {
  gpu.func @global_whole(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c255 = arith.constant 255 : index
    %id = arith.constant 1 : i32
    %n = arith.constant 256 : i32
    %f = arith.constant 1.0 : f32
    memref.store %f, %out[%tid] : memref<256xf32>
    nvvm.barrier id = %id number_of_threads = %n
    %j = arith.subi %c255, %tid : index
    %v = memref.load %out[%j] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: the same in shared memory.
gpu.module @m {
  memref.global "private" @s : memref<256xf32, #gpu.address_space<workgroup>>
  gpu.func @shared_partial(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<256xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c255 = arith.constant 255 : index
    %id = arith.constant 2 : i32
    %n = arith.constant 128 : i32
    %f = arith.constant 1.0 : f32
    memref.store %f, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    nvvm.barrier id = %id number_of_threads = %n
    %j = arith.subi %c255, %tid : index
    // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them{{.*}}}}
    %v = memref.load %s[%j] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Twin: the whole block at barrier 2, and nvvm.barrier with no count.
gpu.module @m {
  memref.global "private" @s : memref<256xf32, #gpu.address_space<workgroup>>
  gpu.func @shared_whole(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<256xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c255 = arith.constant 255 : index
    %id = arith.constant 2 : i32
    %n = arith.constant 256 : i32
    %f = arith.constant 1.0 : f32
    memref.store %f, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    nvvm.barrier id = %id number_of_threads = %n
    %j = arith.subi %c255, %tid : index
    %v = memref.load %s[%j] : memref<256xf32, #gpu.address_space<workgroup>>
    nvvm.barrier
    memref.store %v, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: a count read from memory may be any number of threads.
gpu.module @m {
  gpu.func @global_unknown_count(%out: memref<256xf32>, %counts: memref<1xi32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c255 = arith.constant 255 : index
    %id = arith.constant 1 : i32
    %n = memref.load %counts[%c0] : memref<1xi32>
    %f = arith.constant 1.0 : f32
    memref.store %f, %out[%tid] : memref<256xf32>
    nvvm.barrier id = %id number_of_threads = %n
    %j = arith.subi %c255, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}}{{.*}}}}
    %v = memref.load %out[%j] : memref<256xf32>
    gpu.return
  }
}

// -----

// Twin: inside a gpu.launch, the block's size is its constant operands:
// barrier 1 of 256 threads is the whole block.
module attributes {gpu.container_module} {
  func.func @host(%out: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %c255 = arith.constant 255 : index
      %id = arith.constant 1 : i32
      %n = arith.constant 256 : i32
      %f = arith.constant 1.0 : f32
      memref.store %f, %out[%tx] : memref<256xf32>
      nvvm.barrier id = %id number_of_threads = %n
      %j = arith.subi %c255, %tx : index
      %v = memref.load %out[%j] : memref<256xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// Bug: the same launch with barrier 1 of 128 threads.
module attributes {gpu.container_module} {
  func.func @host(%out: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %c255 = arith.constant 255 : index
      %id = arith.constant 1 : i32
      %n = arith.constant 128 : i32
      %f = arith.constant 1.0 : f32
      memref.store %f, %out[%tx] : memref<256xf32>
      nvvm.barrier id = %id number_of_threads = %n
      %j = arith.subi %c255, %tx : index
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block{{.*}}}}
      %v = memref.load %out[%j] : memref<256xf32>
      gpu.terminator
    }
    return
  }
}
