// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Planted shared-memory races (AMK-SMEM-RACE) and async copies used before
// they land (AMK-ASYNC-UNWAITED), each next to its correct twin.

// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Bug: a missing barrier between a shared write and another thread's read.
gpu.module @m {
  gpu.func @no_barrier(%out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c255 = arith.constant 255 : index
    %x = memref.load %out[%tid] : memref<256xf32>
    memref.store %x, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    %j = arith.subi %c255, %tid : index
    // expected-error @+1 {{[AMK-SMEM-RACE] 'memref.load' at line 15 races with the 'memref.store' at line 12: no barrier between them (write-read, threads 0 and 255, byte 0)}}
    %y = memref.load %buf[%j] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Twin: the barrier orders the write before every read.
gpu.module @m {
  gpu.func @with_barrier(%out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c255 = arith.constant 255 : index
    %x = memref.load %out[%tid] : memref<256xf32>
    memref.store %x, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %j = arith.subi %c255, %tid : index
    %y = memref.load %buf[%j] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Bug: every thread adds into one shared accumulator.
gpu.module @m {
  gpu.func @shared_accumulator(%out: memref<256xf32>) workgroup(%acc: memref<1xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %x = memref.load %out[%tid] : memref<256xf32>
    // expected-error @+1 {{[AMK-SMEM-RACE] 'memref.load' at line 47 races with the 'memref.store' at line 50: no barrier between them (write-read, threads 176 and 161, byte 0)}}
    %s = memref.load %acc[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
    %t = arith.addf %s, %x : f32
    // expected-error @+1 {{[AMK-SMEM-RACE] 'memref.store' at line 50 races with the same access in another thread: no barrier between them (write-write, threads 176 and 161, byte 0)}}
    memref.store %t, %acc[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Twin: one thread owns the accumulator.
gpu.module @m {
  gpu.func @one_owner(%out: memref<256xf32>) workgroup(%acc: memref<1xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %x = memref.load %out[%tid] : memref<256xf32>
      %s = memref.load %acc[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
      %t = arith.addf %s, %x : f32
      memref.store %t, %acc[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Bug: a reduction tree without the barrier between its levels.
gpu.module @m {
  gpu.func @tree_no_barrier(%out: memref<256xf32>) workgroup(%buf: memref<512xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %x = memref.load %out[%tid] : memref<256xf32>
    memref.store %x, %buf[%tid] : memref<512xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    scf.for %level = %c0 to %c8 step %c1 {
      %s = arith.shrui %c128, %level : index
      %active = arith.cmpi ult, %tid, %s : index
      scf.if %active {
        %j = arith.addi %tid, %s : index
        %a = memref.load %buf[%tid] : memref<512xf32, #gpu.address_space<workgroup>>
        // expected-error @+1 {{[AMK-SMEM-RACE] 'memref.load' at line 93 races with the 'memref.store' at line 95: no barrier between them (write-read, threads 1 and 0, byte 4)}}
        %b = memref.load %buf[%j] : memref<512xf32, #gpu.address_space<workgroup>>
        %sum = arith.addf %a, %b : f32
        memref.store %sum, %buf[%tid] : memref<512xf32, #gpu.address_space<workgroup>>
      }
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Twin: a barrier after each level.
gpu.module @m {
  gpu.func @tree(%out: memref<256xf32>) workgroup(%buf: memref<512xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %x = memref.load %out[%tid] : memref<256xf32>
    memref.store %x, %buf[%tid] : memref<512xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    scf.for %level = %c0 to %c8 step %c1 {
      %s = arith.shrui %c128, %level : index
      %active = arith.cmpi ult, %tid, %s : index
      scf.if %active {
        %j = arith.addi %tid, %s : index
        %a = memref.load %buf[%tid] : memref<512xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%j] : memref<512xf32, #gpu.address_space<workgroup>>
        %sum = arith.addf %a, %b : f32
        memref.store %sum, %buf[%tid] : memref<512xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[1024]
// Bug: one buffer reused every iteration with one barrier: the next
// iteration's write races with this iteration's reads of the neighbour.
gpu.module @m {
  gpu.func @single_buffer(%in: memref<1024xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %base = arith.muli %k, %c256 : index
      %i = arith.addi %base, %tid : index
      %x = memref.load %in[%i] : memref<1024xf32>
      memref.store %x, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      // expected-error @+1 {{[AMK-SMEM-RACE] 'memref.load' at line 151 races with the 'memref.store' at line 148: no barrier between them (write-read, threads 0 and 255, byte 0)}}
      %y = memref.load %buf[%nb] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %y, %in[%i] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[1024]
// Twin: two buffers alternate (k % 2), so one barrier per iteration is enough.
gpu.module @m {
  gpu.func @double_buffer(%in: memref<1024xf32>) workgroup(%buf: memref<2x256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %stage = arith.remui %k, %c2 : index
      %base = arith.muli %k, %c256 : index
      %i = arith.addi %base, %tid : index
      %x = memref.load %in[%i] : memref<1024xf32>
      memref.store %x, %buf[%stage, %tid] : memref<2x256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %y = memref.load %buf[%stage, %nb] : memref<2x256xf32, #gpu.address_space<workgroup>>
      memref.store %y, %in[%i] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Bug: a wrong stride: threads 2i and 2i+1 write the same slot.
gpu.module @m {
  gpu.func @half_stride(%out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %slot = arith.divui %tid, %c2 : index
    %x = memref.load %out[%tid] : memref<256xf32>
    // expected-error @+1 {{[AMK-SMEM-RACE] 'memref.store' at line 195 races with the same access in another thread: no barrier between them (write-write, threads 1 and 0, byte 0)}}
    memref.store %x, %buf[%slot] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Twin: an xor swizzle is a permutation of each row: no two threads collide.
gpu.module @m {
  gpu.func @swizzled(%out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %row = arith.divui %tid, %c8 : index
    %col = arith.remui %tid, %c8 : index
    %r8 = arith.remui %row, %c8 : index
    %sw = arith.xori %col, %r8 : index
    %rb = arith.muli %row, %c8 : index
    %slot = arith.addi %rb, %sw : index
    %x = memref.load %out[%tid] : memref<256xf32>
    memref.store %x, %buf[%slot] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Bug: a swizzle that folds columns (xor, then mod 4): two threads per slot.
gpu.module @m {
  gpu.func @folded_swizzle(%out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %row = arith.divui %tid, %c8 : index
    %col = arith.remui %tid, %c8 : index
    %r8 = arith.remui %row, %c8 : index
    %sw0 = arith.xori %col, %r8 : index
    %sw = arith.remui %sw0, %c4 : index
    %rb = arith.muli %row, %c8 : index
    %slot = arith.addi %rb, %sw : index
    %x = memref.load %out[%tid] : memref<256xf32>
    // expected-error @+1 {{[AMK-SMEM-RACE] 'memref.store' at line 236 races with the same access in another thread: no barrier between them (write-write, threads 4 and 0, byte 0)}}
    memref.store %x, %buf[%slot] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256],f32[256]
// Bug: an async copy read by its own thread before any wait.
gpu.module @m {
  gpu.func @own_unwaited(%in: memref<256xf32>, %out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    %t = nvgpu.device_async_copy %in[%tid], %buf[%tid], 1 : memref<256xf32> to memref<256xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t


    // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'memref.load' at line 256 touches shared memory that the async copy ('nvgpu.device_async_copy' at line 251) may still be writing: no wait_group retires the copy's group first}}
    %y = memref.load %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256],f32[256]
// Twin: waited for; its own data needs no barrier.
gpu.module @m {
  gpu.func @own_waited(%in: memref<256xf32>, %out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    %t = nvgpu.device_async_copy %in[%tid], %buf[%tid], 1 : memref<256xf32> to memref<256xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g {numGroups = 0 : i32}

    %y = memref.load %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256],f32[256]
// Bug: waited for, but read by a neighbour thread without a barrier.
gpu.module @m {
  gpu.func @neighbour_no_barrier(%in: memref<256xf32>, %out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    %t = nvgpu.device_async_copy %in[%tid], %buf[%tid], 1 : memref<256xf32> to memref<256xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g {numGroups = 0 : i32}

    // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'memref.load' at line 297 touches shared memory that the async copy ('nvgpu.device_async_copy' at line 292) may still be writing: no barrier after a wait_group that retires the copy's group orders it}}
    %y = memref.load %buf[%nb] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256],f32[256]
// Twin: the wait, then a barrier, then the neighbour's data.
gpu.module @m {
  gpu.func @neighbour_barrier(%in: memref<256xf32>, %out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    %t = nvgpu.device_async_copy %in[%tid], %buf[%tid], 1 : memref<256xf32> to memref<256xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g {numGroups = 0 : i32}
    gpu.barrier
    %y = memref.load %buf[%nb] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[1024],f32[1024]
// Bug: a two-stage cp.async pipeline whose wait leaves the tile it reads
// in flight (wait_group 2 where 1 retires tile k).
gpu.module @m {
  gpu.func @pipeline_wait_too_few(%in: memref<1024xf32>, %out: memref<1024xf32>) workgroup(%buf: memref<2x256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    %t0 = nvgpu.device_async_copy %in[%tid], %buf[%c0, %tid], 1 : memref<1024xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
    %g0 = nvgpu.device_async_create_group %t0
    scf.for %k = %c0 to %c4 step %c1 {
      %k1 = arith.addi %k, %c1 : index
      %tile = arith.minui %k1, %c3 : index
      %src0 = arith.muli %tile, %c256 : index
      %src = arith.addi %src0, %tid : index
      %stage1 = arith.remui %k1, %c2 : index
      // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'nvgpu.device_async_copy' at line 347 touches shared memory that the async copy ('nvgpu.device_async_copy' at line 338) may still be writing: no wait_group retires the copy's group first}}
      %t = nvgpu.device_async_copy %in[%src], %buf[%stage1, %tid], 1 : memref<1024xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g {numGroups = 2 : i32}
      gpu.barrier
      %stage = arith.remui %k, %c2 : index
      // expected-error @+2 {{[AMK-ASYNC-UNWAITED] 'memref.load' at line 354 touches shared memory that the async copy ('nvgpu.device_async_copy' at line 338) may still be writing: no barrier after a wait_group that retires the copy's group orders it}}
      // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'memref.load' at line 354 touches shared memory that the async copy ('nvgpu.device_async_copy' at line 347) may still be writing: no barrier after a wait_group that retires the copy's group orders it}}
      %y = memref.load %buf[%stage, %nb] : memref<2x256xf32, #gpu.address_space<workgroup>>
      %o0 = arith.muli %k, %c256 : index
      %o = arith.addi %o0, %tid : index
      memref.store %y, %out[%o] : memref<1024xf32>
      gpu.barrier
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[1024],f32[1024]
// Twin: wait_group 1: every group but the newest (tile k + 1) has landed.
gpu.module @m {
  gpu.func @pipeline(%in: memref<1024xf32>, %out: memref<1024xf32>) workgroup(%buf: memref<2x256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    %t0 = nvgpu.device_async_copy %in[%tid], %buf[%c0, %tid], 1 : memref<1024xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
    %g0 = nvgpu.device_async_create_group %t0
    scf.for %k = %c0 to %c4 step %c1 {
      %k1 = arith.addi %k, %c1 : index
      %tile = arith.minui %k1, %c3 : index
      %src0 = arith.muli %tile, %c256 : index
      %src = arith.addi %src0, %tid : index
      %stage1 = arith.remui %k1, %c2 : index
      %t = nvgpu.device_async_copy %in[%src], %buf[%stage1, %tid], 1 : memref<1024xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g {numGroups = 1 : i32}
      gpu.barrier
      %stage = arith.remui %k, %c2 : index
      %y = memref.load %buf[%stage, %nb] : memref<2x256xf32, #gpu.address_space<workgroup>>
      %o0 = arith.muli %k, %c256 : index
      %o = arith.addi %o0, %tid : index
      memref.store %y, %out[%o] : memref<1024xf32>
      gpu.barrier
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[1024],f32[1024]
// Bug: no barrier at the end of the iteration: the next copy overwrites
// the stage other threads may still be reading.
gpu.module @m {
  gpu.func @pipeline_no_trailing_barrier(%in: memref<1024xf32>, %out: memref<1024xf32>) workgroup(%buf: memref<2x256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    %t0 = nvgpu.device_async_copy %in[%tid], %buf[%c0, %tid], 1 : memref<1024xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
    %g0 = nvgpu.device_async_create_group %t0
    scf.for %k = %c0 to %c4 step %c1 {
      %k1 = arith.addi %k, %c1 : index
      %tile = arith.minui %k1, %c3 : index
      %src0 = arith.muli %tile, %c256 : index
      %src = arith.addi %src0, %tid : index
      %stage1 = arith.remui %k1, %c2 : index
      %t = nvgpu.device_async_copy %in[%src], %buf[%stage1, %tid], 1 : memref<1024xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g {numGroups = 1 : i32}
      gpu.barrier
      %stage = arith.remui %k, %c2 : index
      // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'memref.load' at line 430 touches shared memory that the async copy ('nvgpu.device_async_copy' at line 424) may still be writing: no barrier after a wait_group that retires the copy's group orders it}}
      %y = memref.load %buf[%stage, %nb] : memref<2x256xf32, #gpu.address_space<workgroup>>
      %o0 = arith.muli %k, %c256 : index
      %o = arith.addi %o0, %tid : index
      memref.store %y, %out[%o] : memref<1024xf32>

    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[256]
// Twin: one slot per thread (the wrong stride fixed).
gpu.module @m {
  gpu.func @unit_stride(%out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %x = memref.load %out[%tid] : memref<256xf32>
    memref.store %x, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 args=f32[1024],f32[1024]
// Twin: the barrier ends each iteration (the missing barrier restored).
gpu.module @m {
  gpu.func @pipeline_trailing_barrier(%in: memref<1024xf32>, %out: memref<1024xf32>) workgroup(%buf: memref<2x256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    %t0 = nvgpu.device_async_copy %in[%tid], %buf[%c0, %tid], 1 : memref<1024xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
    %g0 = nvgpu.device_async_create_group %t0
    scf.for %k = %c0 to %c4 step %c1 {
      %k1 = arith.addi %k, %c1 : index
      %tile = arith.minui %k1, %c3 : index
      %src0 = arith.muli %tile, %c256 : index
      %src = arith.addi %src0, %tid : index
      %stage1 = arith.remui %k1, %c2 : index
      %t = nvgpu.device_async_copy %in[%src], %buf[%stage1, %tid], 1 : memref<1024xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g {numGroups = 1 : i32}
      gpu.barrier
      %stage = arith.remui %k, %c2 : index
      %y = memref.load %buf[%stage, %nb] : memref<2x256xf32, #gpu.address_space<workgroup>>
      %o0 = arith.muli %k, %c256 : index
      %o = arith.addi %o0, %tid : index
      memref.store %y, %out[%o] : memref<1024xf32>
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Bug: a two-stage ring over a loop of any trip count, where each iteration
// reads the other stage: the next iteration writes it before its barrier,
// while slower threads still read it.
gpu.module @m {
  gpu.func @ring_reads_next_stage(%n: index) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    scf.for %k = %c0 to %n step %c1 {
      %s = arith.remui %k, %c2 : index
      %base = arith.muli %s, %c128 : index
      %w = arith.addi %base, %tid : index
      memref.store %zero, %buf[%w] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %k1 = arith.addi %k, %c1 : index
      %o = arith.remui %k1, %c2 : index
      %obase = arith.muli %o, %c128 : index
      %rt = arith.subi %c127, %tid : index
      %r = arith.addi %obase, %rt : index
      // expected-error @+1 {{[AMK-SMEM-RACE] 'memref.load' at line 515 races with the 'memref.store' at line 507: no barrier between them (write-read, threads 0 and 127, byte 0)}}
      %x = memref.load %buf[%r] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

// Twin: each iteration reads the stage it wrote before the barrier; the
// next write to that stage is two iterations later, past another barrier.
gpu.module @m {
  gpu.func @ring_reads_own_stage(%n: index) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    scf.for %k = %c0 to %n step %c1 {
      %s = arith.remui %k, %c2 : index
      %base = arith.muli %s, %c128 : index
      %w = arith.addi %base, %tid : index
      memref.store %zero, %buf[%w] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %rt = arith.subi %c127, %tid : index
      %r = arith.addi %base, %rt : index
      %x = memref.load %buf[%r] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck grid=1 block=256 args=f32[256]
// Bug: without known_block_size, gpu.block_dim is whatever the launch says,
// not the largest block: a branch taken in blocks under 1024 threads wide.
gpu.module @m {
  gpu.func @race_under_block_dim(%out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %bdim = gpu.block_dim x
    %narrow = arith.cmpi ult, %bdim, %c1024 : index
    %c256 = arith.constant 256 : index
    %in = arith.remui %tid, %c256 : index
    %x = memref.load %out[%in] : memref<256xf32>
    scf.if %narrow {
      // expected-error @+1 {{[AMK-SMEM-RACE] 'memref.store' at line 565 races with the same access in another thread: no barrier between them (write-write, threads (0, 0, 0) and}}
      memref.store %x, %buf[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %y = memref.load %buf[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
    // The first 256 threads of the first row store (the block's shape is
    // not known).
    %ty = gpu.thread_id y
    %tz = gpu.thread_id z
    %low = arith.cmpi ult, %tid, %c256 : index
    %row0 = arith.cmpi eq, %ty, %c0 : index
    %plane0 = arith.cmpi eq, %tz, %c0 : index
    %first = arith.andi %row0, %plane0 : i1
    %lead = arith.andi %low, %first : i1
    scf.if %lead {
      memref.store %y, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck grid=1 block=256 args=f32[256]
// Twin: in a one-row block each thread its own element; a thread index is
// below its gpu.block_dim.
gpu.module @m {
  gpu.func @own_element_under_block_dim(%out: memref<256xf32>) workgroup(%buf: memref<1024xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1024 = arith.constant 1024 : index
    %bdim = gpu.block_dim x
    %rows = gpu.block_dim y
    %planes = gpu.block_dim z
    %narrow = arith.cmpi ult, %bdim, %c1024 : index
    %one_row = arith.cmpi eq, %rows, %c1 : index
    %one_plane = arith.cmpi eq, %planes, %c1 : index
    %flat = arith.andi %one_row, %one_plane : i1
    %both = arith.andi %narrow, %flat : i1
    %x = memref.load %out[%c0] : memref<256xf32>
    scf.if %both {
      memref.store %x, %buf[%tid] : memref<1024xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %c256 = arith.constant 256 : index
    %in = arith.remui %tid, %c256 : index
    %y = memref.load %buf[%tid] : memref<1024xf32, #gpu.address_space<workgroup>>
    // The first 256 threads of the first row store (the block's shape is
    // not known).
    %ty = gpu.thread_id y
    %tz = gpu.thread_id z
    %low = arith.cmpi ult, %tid, %c256 : index
    %row0 = arith.cmpi eq, %ty, %c0 : index
    %plane0 = arith.cmpi eq, %tz, %c0 : index
    %first = arith.andi %row0, %plane0 : i1
    %lead = arith.andi %low, %first : i1
    scf.if %lead {
      memref.store %y, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=7,4 args=f32[128x200],f32[200x128]
// Bug: a transposing copy through a shared tile without the barrier
// between the tile's writes (row by row) and its reads (column by column):
// a thread reads what another warp may not have written yet.
gpu.module @m {
  gpu.func @transpose_no_barrier(%b: memref<128x200xf32>, %bt: memref<200x128xf32>) workgroup(%tile: memref<32x33xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 7, 4, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c200 = arith.constant 200 : index
    %tid = gpu.thread_id x
    %lane = arith.remui %tid, %c32 : index
    %warp = arith.divui %tid, %c32 : index
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %n0 = arith.muli %bx, %c32 : index
    %k0 = arith.muli %by, %c32 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %row = arith.addi %warp, %i : index
      %k = arith.addi %k0, %row : index
      %n = arith.addi %n0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        %v = memref.load %b[%k, %n] : memref<128x200xf32>
        memref.store %v, %tile[%row, %lane] : memref<32x33xf32, #gpu.address_space<workgroup>>
      }
    }
    scf.for %i = %c0 to %c32 step %c8 {
      %col = arith.addi %warp, %i : index
      %n = arith.addi %n0, %col : index
      %k = arith.addi %k0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them (write-read, threads {{[0-9]+}} and {{[0-9]+}}, byte {{[0-9]+}})}}
        %v = memref.load %tile[%lane, %col] : memref<32x33xf32, #gpu.address_space<workgroup>>
        memref.store %v, %bt[%n, %k] : memref<200x128xf32>
      }
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=7,4 args=f32[128x200],f32[200x128]
// Twin: the same copy with the barrier.
gpu.module @m {
  gpu.func @transpose_barrier(%b: memref<128x200xf32>, %bt: memref<200x128xf32>) workgroup(%tile: memref<32x33xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 7, 4, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c200 = arith.constant 200 : index
    %tid = gpu.thread_id x
    %lane = arith.remui %tid, %c32 : index
    %warp = arith.divui %tid, %c32 : index
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %n0 = arith.muli %bx, %c32 : index
    %k0 = arith.muli %by, %c32 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %row = arith.addi %warp, %i : index
      %k = arith.addi %k0, %row : index
      %n = arith.addi %n0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        %v = memref.load %b[%k, %n] : memref<128x200xf32>
        memref.store %v, %tile[%row, %lane] : memref<32x33xf32, #gpu.address_space<workgroup>>
      }
    }
    gpu.barrier
    scf.for %i = %c0 to %c32 step %c8 {
      %col = arith.addi %warp, %i : index
      %n = arith.addi %n0, %col : index
      %k = arith.addi %k0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        %v = memref.load %tile[%lane, %col] : memref<32x33xf32, #gpu.address_space<workgroup>>
        memref.store %v, %bt[%n, %k] : memref<200x128xf32>
      }
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck,memcheck grid=64 args=i32[65536],i32[256]
// Twin: a shared-memory histogram: threads add into the bins with atomic
// updates (two atomic updates never race), a barrier, then each thread adds
// its bin into the global one.
gpu.module @m {
  gpu.func @histogram(%in: memref<65536xi32>, %out: memref<256xi32>) workgroup(%h : memref<256xi32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %mask = arith.constant 255 : i32
    memref.store %zero, %h[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %base = arith.muli %bid, %c1024 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %o = arith.muli %k, %c256 : index
      %b2 = arith.addi %base, %o : index
      %i = arith.addi %b2, %tid : index
      %v = memref.load %in[%i] : memref<65536xi32>
      %bin32 = arith.andi %v, %mask : i32
      %bin = arith.index_castui %bin32 : i32 to index
      %old = memref.atomic_rmw addi %one, %h[%bin] : (i32, memref<256xi32, #gpu.address_space<workgroup>>) -> i32
    }
    gpu.barrier
    %c = memref.load %h[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
    %old2 = memref.atomic_rmw addi %c, %out[%tid] : (i32, memref<256xi32>) -> i32
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck grid=64 args=i32[65536],i32[256] expect=clean
// Bug: the same histogram read back with no barrier after the atomic
// updates: a thread reads its bin while others still add into it.
// Invisible to racecheck (H100, 2026-12-07: clean), which does not pair
// atomic updates with plain accesses.
gpu.module @m {
  gpu.func @histogram_early_read(%in: memref<65536xi32>, %out: memref<256xi32>) workgroup(%h : memref<256xi32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %mask = arith.constant 255 : i32
    memref.store %zero, %h[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %base = arith.muli %bid, %c1024 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %o = arith.muli %k, %c256 : index
      %b2 = arith.addi %base, %o : index
      %i = arith.addi %b2, %tid : index
      %v = memref.load %in[%i] : memref<65536xi32>
      %bin32 = arith.andi %v, %mask : i32
      %bin = arith.index_castui %bin32 : i32 to index
      %old = memref.atomic_rmw addi %one, %h[%bin] : (i32, memref<256xi32, #gpu.address_space<workgroup>>) -> i32
    }
    // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.atomic_rmw' at line {{[0-9]+}}: no barrier between them{{.*}}}}
    %c = memref.load %h[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
    %old2 = memref.atomic_rmw addi %c, %out[%tid] : (i32, memref<256xi32>) -> i32
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck grid=64 args=i32[65536],i32[256]
// Bug: the bins updated by a plain read-modify-write, not an atomic: two
// threads of one bin lose an update.
gpu.module @m {
  gpu.func @histogram_plain_update(%in: memref<65536xi32>, %out: memref<256xi32>) workgroup(%h : memref<256xi32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %mask = arith.constant 255 : i32
    memref.store %zero, %h[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %base = arith.muli %bid, %c1024 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %o = arith.muli %k, %c256 : index
      %b2 = arith.addi %base, %o : index
      %i = arith.addi %b2, %tid : index
      %v = memref.load %in[%i] : memref<65536xi32>
      %bin32 = arith.andi %v, %mask : i32
      %bin = arith.index_castui %bin32 : i32 to index
      // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them (write-read{{.*}}}}
      %n = memref.load %h[%bin] : memref<256xi32, #gpu.address_space<workgroup>>
      %n1 = arith.addi %n, %one : i32
      // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.store' at line {{[0-9]+}} races with the same access in another thread: no barrier between them (write-write{{.*}}}}
      memref.store %n1, %h[%bin] : memref<256xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %c = memref.load %h[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
    %old2 = memref.atomic_rmw addi %c, %out[%tid] : (i32, memref<256xi32>) -> i32
    gpu.return
  }
}
