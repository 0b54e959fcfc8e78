// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Planted barrier bugs (AMK-BARRIER-DIVERGENT), each next to its correct
// twin, which the harness must accept. Where the bug is a barrier inside a
// thread-dependent branch, every thread syncs again after the branch, as
// real kernels do: the threads that skipped the branch's barrier wait at
// the later one, which compute-sanitizer's synccheck reports ("divergent
// thread(s) in block"); threads that exit instead would go unnoticed.
// SANITIZE: tool=synccheck grid=1 smem=1024 args=f32[256]@smem
// Bug: a barrier only the first 16 threads reach.
gpu.module @m {
  gpu.func @thread_branch(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %lt = arith.cmpi ult, %tid, %c16 : index
    scf.if %lt {
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'gpu.barrier' at line 17 is under thread-dependent control: 'scf.if' at line 15 decides by a value derived from the thread id}}
      gpu.barrier
    }
    gpu.barrier
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=32 smem=1024 args=f32[256]@smem
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
// SANITIZE: tool=synccheck grid=1 block=128 expect=clean
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
// SANITIZE: tool=synccheck grid=2 block=128 args=index=512
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
// SANITIZE: tool=synccheck grid=1 block=64 args=index=1
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
    gpu.barrier
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=4 block=64 args=index=1
// Twin: the loop-carried value is built from the block id, uniform across
// the block.
gpu.module @m {
  gpu.func @carried_uniform(%k: index) kernel {
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %c0) -> index {
      %next = arith.addi %acc, %bid : index
      scf.yield %next : index
    }
    %odd = arith.remui %r, %c2 : index
    %cond = arith.cmpi eq, %odd, %c1 : index
    scf.if %cond {
      nvvm.barrier0
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 block=64 args=index=0 expect=clean
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
// SANITIZE: tool=synccheck grid=16 block=64 args=index=0
// Twin: the same yielded trip count chosen by the block id.
gpu.module @m {
  gpu.func @yielded_uniform(%k: index) kernel {
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %lt = arith.cmpi ult, %bid, %c8 : index
    %n = scf.if %lt -> index {
      scf.yield %c1 : index
    } else {
      scf.yield %c8 : index
    }
    scf.for %i = %c0 to %n step %c1 {
      gpu.barrier
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck,memcheck grid=1 block=256 smem=1024 args=f32[256]@smem
// Twin: a thread-dependent branch without a barrier inside, and barriers on
// both sides of it, is fine.
gpu.module @m {
  gpu.func @barriers_around(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
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

// -----
// SANITIZE: tool=synccheck grid=1 smem=1024 args=f32[256]@smem,index=100
// Bug: an early-exit guard `if (i < n)` wraps the rest of the kernel, barrier
// included: the threads past n never reach it.
gpu.module @m {
  gpu.func @early_exit(%buf: memref<256xf32, #gpu.address_space<workgroup>>, %n: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      memref.store %zero, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'gpu.barrier' at line 201 is under thread-dependent control: 'scf.if' at line 198 decides by a value derived from the thread id}}
      gpu.barrier
      %x = memref.load %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 smem=1024 args=f32[256]@smem,index=100
// Twin: only the work is guarded; every thread reaches the barrier.
gpu.module @m {
  gpu.func @guarded_work(%buf: memref<256xf32, #gpu.address_space<workgroup>>, %n: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      memref.store %zero, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    scf.if %in {
      %x = memref.load %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=256 args=index[256] expect=clean
// Bug: each thread loops over its own row's count, loaded per thread
// (`count[tid]`), with a barrier in the loop.
gpu.module @m {
  gpu.func @per_thread_count(%count: memref<256xindex>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.load %count[%tid] : memref<256xindex>
    scf.for %k = %c0 to %n step %c1 {
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'gpu.barrier' at line 244 is under thread-dependent control: 'scf.for' at line 242 decides by a value derived from the thread id}}
      gpu.barrier
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=256 args=index[256]
// Twin: the count is the block's (`count[bid]`), the same for all its threads.
gpu.module @m {
  gpu.func @per_block_count(%count: memref<256xindex>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 256, 1, 1>} {
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.load %count[%bid] : memref<256xindex>
    scf.for %k = %c0 to %n step %c1 {
      gpu.barrier
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 smem=1024 args=f32[256],f32[256]@smem
// Bug: warp 0 (tid / 32 == 0) stages its data and syncs inside its branch;
// the warp id is uniform within a warp but not across the block.
gpu.module @m {
  gpu.func @warp_branch(%a: memref<256xf32>, %buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %warp = arith.divui %tid, %c32 : index
    %first = arith.cmpi eq, %warp, %c0 : index
    scf.if %first {
      %x = memref.load %a[%tid] : memref<256xf32>
      memref.store %x, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'gpu.barrier' at line 281 is under thread-dependent control: 'scf.if' at line 277 decides by a value derived from the thread id}}
      gpu.barrier
    }
    gpu.barrier
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 smem=1024 args=f32[256],f32[256]@smem
// Twin: warp 0 stages its data in the branch; the barrier follows it.
gpu.module @m {
  gpu.func @warp_branch_then_barrier(%a: memref<256xf32>, %buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %warp = arith.divui %tid, %c32 : index
    %first = arith.cmpi eq, %warp, %c0 : index
    scf.if %first {
      %x = memref.load %a[%tid] : memref<256xf32>
      memref.store %x, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 smem=1024 args=f32[256]@smem
// Bug: a reduction step that syncs inside `if (tid < 128)`: the upper half
// of the block never arrives.
gpu.module @m {
  gpu.func @reduce_sync_in_branch(%sdata: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %active = arith.cmpi ult, %tid, %c128 : index
    scf.if %active {
      %j = arith.addi %tid, %c128 : index
      %x = memref.load %sdata[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      %y = memref.load %sdata[%j] : memref<256xf32, #gpu.address_space<workgroup>>
      %z = arith.addf %x, %y : f32
      memref.store %z, %sdata[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'gpu.barrier' at line 323 is under thread-dependent control: 'scf.if' at line 316 decides by a value derived from the thread id}}
      gpu.barrier
    }
    gpu.barrier
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 smem=1024 args=f32[256]@smem
// Twin: the step's barrier after the branch.
gpu.module @m {
  gpu.func @reduce_sync_after_branch(%sdata: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %active = arith.cmpi ult, %tid, %c128 : index
    scf.if %active {
      %j = arith.addi %tid, %c128 : index
      %x = memref.load %sdata[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      %y = memref.load %sdata[%j] : memref<256xf32, #gpu.address_space<workgroup>>
      %z = arith.addf %x, %y : f32
      memref.store %z, %sdata[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 smem=1024 args=f32[1000],f32[256]@smem expect=clean
// Bug: a block-strided loop that starts at the thread id, with a barrier in
// its body: over 1000 elements threads 0..231 run 4 iterations, the rest 3.
gpu.module @m {
  gpu.func @strided_loop_barrier(%a: memref<1000xf32>, %buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c256 = arith.constant 256 : index
    %c1000 = arith.constant 1000 : index
    scf.for %i = %tid to %c1000 step %c256 {
      %x = memref.load %a[%i] : memref<1000xf32>
      memref.store %x, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'gpu.barrier' at line 363 is under thread-dependent control: 'scf.for' at line 359 decides by a value derived from the thread id}}
      gpu.barrier
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 smem=1024 args=f32[1000],f32[256]@smem
// Twin: the loop runs over tiles from 0 (the same trip count for all); the
// thread's element is guarded, the barrier is not.
gpu.module @m {
  gpu.func @tiled_loop_barrier(%a: memref<1000xf32>, %buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %c1000 = arith.constant 1000 : index
    scf.for %base = %c0 to %c1000 step %c256 {
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %c1000 : index
      scf.if %in {
        %x = memref.load %a[%i] : memref<1000xf32>
        memref.store %x, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 smem=128 args=f32[32],f32[32]@smem
// Bug: in a 32x8 block the first row of threads (thread_id y == 0) loads a
// halo row and syncs inside its branch.
gpu.module @m {
  gpu.func @row_branch(%a: memref<32xf32>, %buf: memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 8, 1>} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %ty, %c0 : index
    scf.if %first {
      %x = memref.load %a[%tx] : memref<32xf32>
      memref.store %x, %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'nvvm.barrier0' at line 406 is under thread-dependent control: 'scf.if' at line 402 decides by a value derived from the thread id}}
      nvvm.barrier0
    }
    gpu.barrier
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 smem=128 args=f32[32],f32[32]@smem
// Twin: the first row loads the halo; all rows sync after the branch.
gpu.module @m {
  gpu.func @row_branch_then_barrier(%a: memref<32xf32>, %buf: memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 8, 1>} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %ty, %c0 : index
    scf.if %first {
      %x = memref.load %a[%tx] : memref<32xf32>
      memref.store %x, %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    }
    nvvm.barrier0
    gpu.return
  }
}

// -----
// Bug: a barrier only warp 0 reaches: gpu.subgroup_id differs by warp.
gpu.module @m {
  gpu.func @subgroup_branch(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %sg = gpu.subgroup_id : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %sg, %c0 : index
    scf.if %first {
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'gpu.barrier' at line}}
      gpu.barrier
    }
    gpu.return
  }
}

// -----
// Twin: warp 0 works alone, and every warp meets at the barrier after.
gpu.module @m {
  gpu.func @subgroup_work_then_barrier(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %sg = gpu.subgroup_id : index
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %first = arith.cmpi eq, %sg, %c0 : index
    scf.if %first {
      memref.store %zero, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    gpu.return
  }
}

// -----

// Bug: elect.sync's lane differs by thread: a barrier under it is reached
// by one lane per warp.
gpu.module @m {
  gpu.func @barrier_under_elect() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %elect = nvvm.elect.sync -> i1
    scf.if %elect {
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] barrier 'gpu.barrier' at line}}
      gpu.barrier
    }
    gpu.return
  }
}

