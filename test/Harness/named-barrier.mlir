// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// A named barrier (`bar.sync id, count`) completes when `count` threads
// arrive: it must be reached by exactly that many threads (whole warps,
// under conditions of the thread id alone) under each id, by the same
// threads at every barrier of the id, and then orders those threads only.
// Each planted bug next to its correct twin; a barrier of the whole block
// under any id orders everything.

// Bug: all 256 threads reach barrier 1 of 128 threads: it completes twice,
// each time with any 128 of them, so it orders nothing.
gpu.module @m {
  gpu.func @global_partial(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c255 = arith.constant 255 : index
    %id = arith.constant 1 : i32
    %n = arith.constant 128 : i32
    %f = arith.constant 1.0 : f32
    memref.store %f, %out[%tid] : memref<256xf32>
    // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] named barrier 'nvvm.barrier' at line {{[0-9]+}} declares 128 threads, but 256 threads of the block reach it under id 1 (the first thread 0): its threads can wait forever or complete it with others}}
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

// Bug: the same in shared memory (whose races are not asked once a
// barrier is wrong).
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
    // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] named barrier 'nvvm.barrier' at line {{[0-9]+}} declares 128 threads, but 256 threads of the block reach it under id 2 (the first thread 0): its threads can wait forever or complete it with others}}
    nvvm.barrier id = %id number_of_threads = %n
    %j = arith.subi %c255, %tid : index
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
    // expected-error-re @+1 {{[AMK-UNPROVABLE] the thread count of named barrier 'nvvm.barrier' at line {{[0-9]+}} is not a constant: which threads it waits for is not known}}
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
      // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] named barrier 'nvvm.barrier' at line {{[0-9]+}} declares 128 threads, but 256 threads of the block reach it under id 1 (the first thread 0): its threads can wait forever or complete it with others}}
      nvvm.barrier id = %id number_of_threads = %n
      %j = arith.subi %c255, %tx : index
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block{{.*}}}}
      %v = memref.load %out[%j] : memref<256xf32>
      gpu.terminator
    }
    return
  }
}

// -----
// SANITIZE: tool=racecheck,synccheck args=f32[384],index=4
// Twin: warp specialization. Warpgroup 0 (the producer) runs on; the two
// consumer warpgroups exchange through shared memory with barrier 1 of
// their 256 threads, twice per iteration (write, sync, read, sync).
gpu.module @m {
  memref.global "private" @s : memref<256xf32, #gpu.address_space<workgroup>>
  gpu.func @consumers(%out: memref<384xf32>, %n: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<256xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c383 = arith.constant 383 : index
    %id = arith.constant 1 : i32
    %count = arith.constant 256 : i32
    %consumer = arith.cmpi uge, %tid, %c128 : index
    scf.if %consumer {
      %i = arith.subi %tid, %c128 : index
      %j = arith.subi %c383, %tid : index
      scf.for %k = %c0 to %n step %c1 {
        %f = arith.index_cast %k : index to i32
        %x = arith.sitofp %f : i32 to f32
        memref.store %x, %s[%i] : memref<256xf32, #gpu.address_space<workgroup>>
        nvvm.barrier id = %id number_of_threads = %count
        %v = memref.load %s[%j] : memref<256xf32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%tid] : memref<384xf32>
        nvvm.barrier id = %id number_of_threads = %count
      }
    } else {
      %f = arith.constant 0.0 : f32
      memref.store %f, %out[%tid] : memref<384xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck args=f32[384],index=4
// Bug: the same without the second barrier: the next iteration's write
// meets this one's read in another consumer thread.
gpu.module @m {
  memref.global "private" @s : memref<256xf32, #gpu.address_space<workgroup>>
  gpu.func @consumers_one_barrier(%out: memref<384xf32>, %n: index) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<256xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c383 = arith.constant 383 : index
    %id = arith.constant 1 : i32
    %count = arith.constant 256 : i32
    %consumer = arith.cmpi uge, %tid, %c128 : index
    scf.if %consumer {
      %i = arith.subi %tid, %c128 : index
      %j = arith.subi %c383, %tid : index
      scf.for %k = %c0 to %n step %c1 {
        %f = arith.index_cast %k : index to i32
        %x = arith.sitofp %f : i32 to f32
        memref.store %x, %s[%i] : memref<256xf32, #gpu.address_space<workgroup>>
        nvvm.barrier id = %id number_of_threads = %count
        // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them{{.*}}}}
        %v = memref.load %s[%j] : memref<256xf32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%tid] : memref<384xf32>
      }
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck expect=clean args=f32[384]
// Bug: the producer warpgroup writes what the consumers read after their
// barrier, which it never reaches. (Racecheck does not see a race between
// threads a named barrier separates into groups: expect=clean.)
gpu.module @m {
  memref.global "private" @s : memref<128xf32, #gpu.address_space<workgroup>>
  gpu.func @producer_outside(%out: memref<384xf32>) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<128xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %id = arith.constant 1 : i32
    %count = arith.constant 256 : i32
    %consumer = arith.cmpi uge, %tid, %c128 : index
    scf.if %consumer {
      nvvm.barrier id = %id number_of_threads = %count
      %i = arith.remui %tid, %c128 : index
      // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them{{.*}}}}
      %v = memref.load %s[%i] : memref<128xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<384xf32>
    } else {
      %f = arith.constant 1.0 : f32
      memref.store %f, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck,synccheck args=f32[384]
// Twin: each consumer warpgroup syncs its own 128 threads on barrier
// 1 + its index (a function of the thread id), exchanging within itself.
gpu.module @m {
  memref.global "private" @s : memref<384xf32, #gpu.address_space<workgroup>>
  gpu.func @per_warpgroup(%out: memref<384xf32>) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<384xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %count = arith.constant 128 : i32
    %wg = arith.divui %tid, %c128 : index
    %consumer = arith.cmpi uge, %wg, %c1 : index
    scf.if %consumer {
      %f = arith.constant 1.0 : f32
      memref.store %f, %s[%tid] : memref<384xf32, #gpu.address_space<workgroup>>
      %idx = arith.addi %wg, %c1 : index
      %id = arith.index_cast %idx : index to i32
      nvvm.barrier id = %id number_of_threads = %count
      %j = arith.xori %tid, %c64 : index
      %v = memref.load %s[%j] : memref<384xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<384xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck expect=clean args=f32[384]
// Bug: the same, but a thread reads the other consumer warpgroup's element,
// which its barrier does not order. (Not seen by racecheck either.)
gpu.module @m {
  memref.global "private" @s : memref<384xf32, #gpu.address_space<workgroup>>
  gpu.func @per_warpgroup_cross(%out: memref<384xf32>) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<384xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c511 = arith.constant 511 : index
    %count = arith.constant 128 : i32
    %wg = arith.divui %tid, %c128 : index
    %consumer = arith.cmpi uge, %wg, %c1 : index
    scf.if %consumer {
      %f = arith.constant 1.0 : f32
      memref.store %f, %s[%tid] : memref<384xf32, #gpu.address_space<workgroup>>
      %idx = arith.addi %wg, %c1 : index
      %id = arith.index_cast %idx : index to i32
      nvvm.barrier id = %id number_of_threads = %count
      %j = arith.subi %c511, %tid : index
      // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them{{.*}}}}
      %v = memref.load %s[%j] : memref<384xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<384xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck args=f32[256]
// Twin: the consumers order a global buffer within their block too.
gpu.module @m {
  gpu.func @consumers_global(%buf: memref<256xf32>) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %c383 = arith.constant 383 : index
    %id = arith.constant 3 : i32
    %count = arith.constant 256 : i32
    %consumer = arith.cmpi uge, %tid, %c128 : index
    scf.if %consumer {
      %i = arith.subi %tid, %c128 : index
      %f = arith.constant 1.0 : f32
      memref.store %f, %buf[%i] : memref<256xf32>
      nvvm.barrier id = %id number_of_threads = %count
      %j = arith.subi %c383, %tid : index
      %v = memref.load %buf[%j] : memref<256xf32>
      nvvm.barrier id = %id number_of_threads = %count
      memref.store %v, %buf[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck expect=clean args=f32[256]
// Bug: the same with the second barrier missing.
// (Racecheck sees shared memory only: expect=clean.)
gpu.module @m {
  gpu.func @consumers_global_late(%buf: memref<256xf32>) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %c383 = arith.constant 383 : index
    %id = arith.constant 3 : i32
    %count = arith.constant 256 : i32
    %consumer = arith.cmpi uge, %tid, %c128 : index
    scf.if %consumer {
      %i = arith.subi %tid, %c128 : index
      %f = arith.constant 1.0 : f32
      memref.store %f, %buf[%i] : memref<256xf32>
      nvvm.barrier id = %id number_of_threads = %count
      %j = arith.subi %c383, %tid : index
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them{{.*}}}}
      %v = memref.load %buf[%j] : memref<256xf32>
      memref.store %v, %buf[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=run,synccheck expect=clean args=f32[384]
// Bug: 256 threads pass the condition, but the barrier counts 128.
// (Each completion is whole warps and nothing hangs: no sanitizer sees
// it, expect=clean.)
gpu.module @m {
  gpu.func @too_many(%out: memref<384xf32>) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %id = arith.constant 1 : i32
    %count = arith.constant 128 : i32
    %consumer = arith.cmpi uge, %tid, %c128 : index
    scf.if %consumer {
      // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] named barrier 'nvvm.barrier' at line {{[0-9]+}} declares 128 threads, but 256 threads of the block reach it under id 1 (the first thread 128){{.*}}}}
      nvvm.barrier id = %id number_of_threads = %count
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=run expect=hang args=f32[128]
// Bug: 64 threads reach a barrier of 64, but they split two warps (a
// hang: bar.sync counts whole warps).
gpu.module @m {
  gpu.func @split_warp(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %c80 = arith.constant 80 : index
    %id = arith.constant 1 : i32
    %count = arith.constant 64 : i32
    %lo = arith.cmpi uge, %tid, %c16 : index
    %hi = arith.cmpi ult, %tid, %c80 : index
    %in = arith.andi %lo, %hi : i1
    scf.if %in {
      // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] named barrier 'nvvm.barrier' at line {{[0-9]+}} is reached apart by the threads of warp 0 (thread 16 differs from its lane 0){{.*}}}}
      nvvm.barrier id = %id number_of_threads = %count
    }
    gpu.return
  }
}

// -----

// Bug: a count that is not a whole number of warps.
gpu.module @m {
  gpu.func @odd_count(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %id = arith.constant 1 : i32
    %count = arith.constant 96 : i32
    %count2 = arith.constant 100 : i32
    // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] named barrier 'nvvm.barrier' at line {{[0-9]+}} declares 96 threads, but 128 threads{{.*}}}}
    nvvm.barrier id = %id number_of_threads = %count
    // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] named barrier 'nvvm.barrier' at line {{[0-9]+}} declares 100 threads, not a positive multiple of the warp size{{.*}}}}
    nvvm.barrier id = %id number_of_threads = %count2
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck args=f32[384]
// Bug: warpgroups 1 and 2 each sync barrier 1 with a count of their own:
// the arrivals of both count together. (Synccheck sees it.)
gpu.module @m {
  gpu.func @shared_id(%out: memref<384xf32>) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %id = arith.constant 1 : i32
    %count = arith.constant 128 : i32
    %wg = arith.divui %tid, %c128 : index
    %first = arith.cmpi eq, %wg, %c1 : index
    scf.if %first {
      nvvm.barrier id = %id number_of_threads = %count
    }
    %second = arith.cmpi eq, %wg, %c2 : index
    scf.if %second {
      // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] named barrier 'nvvm.barrier' at line {{[0-9]+}} shares id 1 with 'nvvm.barrier' at line {{[0-9]+}}, but not its threads{{.*}}}}
      nvvm.barrier id = %id number_of_threads = %count
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=run,synccheck expect=clean args=f32[256]
// Bug: a barrier of warpgroup 1 on id 0, which the block's barrier uses.
// (No hang here: no sanitizer sees it, expect=clean.)
gpu.module @m {
  gpu.func @block_id(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %id = arith.constant 0 : i32
    %count = arith.constant 128 : i32
    gpu.barrier
    %upper = arith.cmpi uge, %tid, %c128 : index
    scf.if %upper {
      // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] named barrier 'nvvm.barrier' at line {{[0-9]+}} uses id 0, which 'gpu.barrier' at line {{[0-9]+}} uses for the whole block{{.*}}}}
      nvvm.barrier id = %id number_of_threads = %count
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck expect=clean args=i32[128]
// Bug: which threads reach it depends on data each thread reads. (The
// warps' partial arrivals complete it as whole warps and synccheck passes
// it: expect=clean.)
gpu.module @m {
  gpu.func @data_guard(%flags: memref<128xi32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : i32
    %id = arith.constant 1 : i32
    %count = arith.constant 64 : i32
    %flag = memref.load %flags[%tid] : memref<128xi32>
    %on = arith.cmpi ne, %flag, %c0 : i32
    scf.if %on {
      // expected-error-re @+1 {{[AMK-BARRIER-DIVERGENT] named barrier 'nvvm.barrier' at line {{[0-9]+}} is under control that can differ between its threads: 'scf.if' at line {{[0-9]+}} decides by a value not of the thread id alone whether (or how often) it runs{{.*}}}}
      nvvm.barrier id = %id number_of_threads = %count
    }
    gpu.return
  }
}
