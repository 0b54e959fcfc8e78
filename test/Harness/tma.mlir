// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// TMA loads (nvgpu.tma.async.load) completing on mbarriers with
// transaction bytes (arrive.expect_tx): each load is in the round of the
// one expect_tx on its barrier in its block, run by the same threads; the
// bytes expected equal the boxes delivered (AMK-MBARRIER-PHASE); a box
// lands 128-byte aligned (AMK-MISALIGNED) inside its destination; nothing
// reads or overwrites a box before a wait for the phase it completes in
// (AMK-ASYNC-UNWAITED), and a load into a stage others read is issued
// after a barrier behind those reads. Each bug next to its correct twin.
// No SANITIZE lines: the corpus runner does not encode tensor maps.

!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>

// Twin: a two-stage ring: thread 0 expects each stage's 8192 bytes and
// loads it, every thread waits for the stage's phase (the parity toggled
// per iteration) before reading it, and a barrier keeps the next
// iteration's loads behind every read.
gpu.module @m {
  gpu.func @two_stage_ring(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %false = arith.constant false
    %true = arith.constant true
    %last = scf.for %j = %c0 to %n step %c1 iter_args(%p = %false) -> (i1) {
      %t0 = arith.muli %j, %c2 : index
      %t1 = arith.addi %t0, %c1 : index
      %k0 = arith.muli %t0, %c64 : index
      %k1 = arith.muli %t1, %c64 : index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        nvgpu.tma.async.load %d[%k0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
      }
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
        nvgpu.tma.async.load %d[%k1, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      }
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %p, %ticks : !bars
      %x0 = memref.load %s0[%row, %c0] : !stage
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %p, %ticks : !bars
      %x1 = memref.load %s1[%row, %c0] : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      gpu.barrier
      %np = arith.xori %p, %true : i1
      scf.yield %np : i1
    }
    gpu.return
  }
}

// -----

// Bug: stage 0 read before the wait for its phase: the box may not have
// landed.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @read_before_wait(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %false = arith.constant false
    %true = arith.constant true
    %last = scf.for %j = %c0 to %n step %c1 iter_args(%p = %false) -> (i1) {
      %t0 = arith.muli %j, %c2 : index
      %t1 = arith.addi %t0, %c1 : index
      %k0 = arith.muli %t0, %c64 : index
      %k1 = arith.muli %t1, %c64 : index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        nvgpu.tma.async.load %d[%k0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
      }
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
        nvgpu.tma.async.load %d[%k1, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      }
      // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'memref.load' at line 108 touches shared memory that the TMA load ('nvgpu.tma.async.load' at line 101) may still be writing: it runs neither after its thread's wait for the mbarrier phase the load completes in nor before a barrier the load is issued after}}
      %x0 = memref.load %s0[%row, %c0] : !stage
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %p, %ticks : !bars
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %p, %ticks : !bars
      %x1 = memref.load %s1[%row, %c0] : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      gpu.barrier
      %np = arith.xori %p, %true : i1
      scf.yield %np : i1
    }
    gpu.return
  }
}

// -----

// Bug: stage 1 read after the wait on stage 0's barrier only: another
// barrier's phase says nothing about this box.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @wrong_barrier_waited(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %false = arith.constant false
    %true = arith.constant true
    %last = scf.for %j = %c0 to %n step %c1 iter_args(%p = %false) -> (i1) {
      %t0 = arith.muli %j, %c2 : index
      %t1 = arith.addi %t0, %c1 : index
      %k0 = arith.muli %t0, %c64 : index
      %k1 = arith.muli %t1, %c64 : index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        nvgpu.tma.async.load %d[%k0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
      }
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
        nvgpu.tma.async.load %d[%k1, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      }
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %p, %ticks : !bars
      %x0 = memref.load %s0[%row, %c0] : !stage
      // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'memref.load' at line 164 touches shared memory that the TMA load ('nvgpu.tma.async.load' at line 159) may still be writing}}
      %x1 = memref.load %s1[%row, %c0] : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %p, %ticks : !bars
      gpu.barrier
      %np = arith.xori %p, %true : i1
      scf.yield %np : i1
    }
    gpu.return
  }
}

// -----

// Bug: stage 1 expects half its box (4096 of 8192 bytes): its phase
// completes while the rest of the box is in flight.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @expect_too_few_bytes(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %tx2 = arith.constant 4096 : index
    %false = arith.constant false
    %true = arith.constant true
    %last = scf.for %j = %c0 to %n step %c1 iter_args(%p = %false) -> (i1) {
      %t0 = arith.muli %j, %c2 : index
      %t1 = arith.addi %t0, %c1 : index
      %k0 = arith.muli %t0, %c64 : index
      %k1 = arith.muli %t1, %c64 : index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        nvgpu.tma.async.load %d[%k0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
      }
      scf.if %first {
        // expected-error @+1 {{[AMK-MBARRIER-PHASE] 'nvgpu.mbarrier.arrive.expect_tx' at line 214 expects 4096 transaction bytes on mbarrier 1 of 'nvgpu.mbarrier.create' at line 190, but the TMA loads of its round deliver 8192: the phase completes before all their bytes have landed}}
        nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx2 : !bars
        nvgpu.tma.async.load %d[%k1, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      }
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %p, %ticks : !bars
      %x0 = memref.load %s0[%row, %c0] : !stage
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %p, %ticks : !bars
      %x1 = memref.load %s1[%row, %c0] : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      gpu.barrier
      %np = arith.xori %p, %true : i1
      scf.yield %np : i1
    }
    gpu.return
  }
}

// -----

// Bug: no barrier at the end of the iteration: thread 0 reloads stage 0
// while slower threads still read it (and its phase can complete again
// before they wait).
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @no_release_barrier(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %false = arith.constant false
    %true = arith.constant true
    %last = scf.for %j = %c0 to %n step %c1 iter_args(%p = %false) -> (i1) {
      %t0 = arith.muli %j, %c2 : index
      %t1 = arith.addi %t0, %c1 : index
      %k0 = arith.muli %t0, %c64 : index
      %k1 = arith.muli %t1, %c64 : index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        nvgpu.tma.async.load %d[%k0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
      }
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
        nvgpu.tma.async.load %d[%k1, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      }
      // expected-error @+1 {{[AMK-MBARRIER-PHASE] 1 thread arrives on mbarrier 0 of 'nvgpu.mbarrier.create' at line 246 per iteration, fewer than the block's, and no block barrier separates a wait from the next iteration's arrive}}
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %p, %ticks : !bars
      %x0 = memref.load %s0[%row, %c0] : !stage
      // expected-error @+1 {{[AMK-MBARRIER-PHASE] 1 thread arrives on mbarrier 1 of 'nvgpu.mbarrier.create' at line 246 per iteration, fewer than the block's, and no block barrier separates a wait from the next iteration's arrive}}
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %p, %ticks : !bars
      %x1 = memref.load %s1[%row, %c0] : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      %np = arith.xori %p, %true : i1
      scf.yield %np : i1
    }
    gpu.return
  }
}

// -----

// Bug: the load's barrier is arrived on without expect_tx: its phase
// completes at once, before the box lands.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @no_expect_tx(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    scf.if %first {
      nvgpu.mbarrier.arrive %bars[%c0] : !bars -> !nvgpu.mbarrier.token
    }
    scf.if %first {
      // expected-error @+1 {{[AMK-MBARRIER-PHASE] 'nvgpu.tma.async.load' at line 315 completes on mbarrier 0 of 'nvgpu.mbarrier.create' at line 300 but its block has no single arrive.expect_tx on it}}
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
    }
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x = memref.load %s0[%row, %c0] : !stage
    gpu.return
  }
}

// -----

// Twin: one box, its bytes expected in the same block.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @one_box(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
    }
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x = memref.load %s0[%row, %c0] : !stage
    gpu.return
  }
}

// -----

// Bug: the box lands 64 bytes into dynamic shared memory: TMA needs a
// 128-byte aligned destination.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @misaligned_box(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 8256 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %shift = arith.constant 64 : index
    %sm = memref.view %smem[%shift][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      // expected-error @+1 {{[AMK-MISALIGNED] TMA destination of memref<64x64xf16, #gpu.address_space<workgroup>> (8192 B) needs 128-byte alignment, but its address is only provably a multiple of 16 B: its base is dynamic shared memory (16-byte aligned)}}
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %sm : !desc, !bars -> memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x = memref.load %sm[%row, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: plain stores into a stage, a barrier, then a TMA load into it: the
// barrier orders the generic proxy's writes, not against the async
// proxy's; without fence.proxy.async the stores may land after the box.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @reuse_without_proxy_fence(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %col = arith.divui %tid, %c64 : index
    %v = arith.constant 1.0 : f16
    // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'memref.store' at line 431 touches shared memory that the TMA load ('nvgpu.tma.async.load' at line 435) may still be writing: it runs neither after its thread's wait for the mbarrier phase the load completes in nor before a barrier the load is issued after with fence.proxy.async between the write and that barrier (the box is the async proxy's)}}
    memref.store %v, %s0[%row, %col] : !stage
    gpu.barrier
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
    }
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x = memref.load %s0[%row, %c0] : !stage
    gpu.return
  }
}

// -----

// Twin: the same with fence.proxy.async before the barrier.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @reuse_with_proxy_fence(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %col = arith.divui %tid, %c64 : index
    %v = arith.constant 1.0 : f16
    memref.store %v, %s0[%row, %col] : !stage
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
    }
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x = memref.load %s0[%row, %c0] : !stage
    gpu.return
  }
}

// -----

// Twin: the steady state a Hopper mainloop has: two stages loaded before
// the loop; each iteration waits for both, reads them, and after a barrier
// refills them with the next tiles (past the end the boxes zero-fill); the
// waits after the loop cover the last refills before the block exits.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @ring_wait_consume_refill(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %false = arith.constant false
    %true = arith.constant true
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
    }
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
      nvgpu.tma.async.load %d[%c64, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    }
    %last = scf.for %j = %c0 to %c4 step %c1 iter_args(%p = %false) -> (i1) {
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %p, %ticks : !bars
      %x0 = memref.load %s0[%row, %c0] : !stage
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %p, %ticks : !bars
      %x1 = memref.load %s1[%row, %c0] : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      gpu.barrier
      %t = arith.addi %j, %c1 : index
      %k0 = arith.muli %t, %c128 : index
      %k1 = arith.addi %k0, %c64 : index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        nvgpu.tma.async.load %d[%k0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
      }
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
        nvgpu.tma.async.load %d[%k1, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      }
      %np = arith.xori %p, %true : i1
      scf.yield %np : i1
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %false, %ticks : !bars
    gpu.return
  }
}

// -----

// Bug: no wait after the loop: the last refills are still landing when the
// block exits.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @ring_exits_with_boxes_in_flight(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %false = arith.constant false
    %true = arith.constant true
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
    }
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
      nvgpu.tma.async.load %d[%c64, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    }
    %last = scf.for %j = %c0 to %c4 step %c1 iter_args(%p = %false) -> (i1) {
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %p, %ticks : !bars
      %x0 = memref.load %s0[%row, %c0] : !stage
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %p, %ticks : !bars
      %x1 = memref.load %s1[%row, %c0] : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      gpu.barrier
      %t = arith.addi %j, %c1 : index
      %k0 = arith.muli %t, %c128 : index
      %k1 = arith.addi %k0, %c64 : index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        // expected-error @+1 {{[AMK-MBARRIER-PHASE] 'nvgpu.tma.async.load' at line 601 completes in a phase of mbarrier 0 of 'nvgpu.mbarrier.create' at line 567 that no wait covers (in its loop's last iteration): the block can exit while its box is still landing in shared memory}}
        nvgpu.tma.async.load %d[%k0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
      }
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
        // expected-error @+1 {{[AMK-MBARRIER-PHASE] 'nvgpu.tma.async.load' at line 606 completes in a phase of mbarrier 1 of 'nvgpu.mbarrier.create' at line 567 that no wait covers (in its loop's last iteration): the block can exit while its box is still landing in shared memory}}
        nvgpu.tma.async.load %d[%k1, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      }
      %np = arith.xori %p, %true : i1
      scf.yield %np : i1
    }

    gpu.return
  }
}

// -----

// Bug: the refills are not behind a barrier: thread 0 reloads a stage
// others may still read, and the next phase can complete before a slow
// thread waited for this one.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!stage = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @ring_refill_without_barrier(%d: !desc, %n: index) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %s0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !stage
    %s1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %false = arith.constant false
    %true = arith.constant true
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
    }
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
      nvgpu.tma.async.load %d[%c64, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    }
    %last = scf.for %j = %c0 to %c4 step %c1 iter_args(%p = %false) -> (i1) {
      // expected-error @+1 {{[AMK-MBARRIER-PHASE] 1 thread arrives on mbarrier 0 of 'nvgpu.mbarrier.create' at line 633 per iteration, fewer than the block's, and no block barrier separates a wait from the next iteration's arrive}}
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %p, %ticks : !bars
      %x0 = memref.load %s0[%row, %c0] : !stage
      // expected-error @+1 {{[AMK-MBARRIER-PHASE] 1 thread arrives on mbarrier 1 of 'nvgpu.mbarrier.create' at line 633 per iteration, fewer than the block's, and no block barrier separates a wait from the next iteration's arrive}}
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %p, %ticks : !bars
      %x1 = memref.load %s1[%row, %c0] : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      %t = arith.addi %j, %c1 : index
      %k0 = arith.muli %t, %c128 : index
      %k1 = arith.addi %k0, %c64 : index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        nvgpu.tma.async.load %d[%k0, %c0], %bars[%c0] to %s0 : !desc, !bars -> !stage
      }
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
        nvgpu.tma.async.load %d[%k1, %c0], %bars[%c1] to %s1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      }
      %np = arith.xori %p, %true : i1
      scf.yield %np : i1
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %false, %ticks : !bars
    gpu.return
  }
}

// -----

// Twin: a kernel that declares its dynamic shared memory 1024-byte aligned
// (amk.dynamic_smem_align, as --amk-lower emits it) lands a box 1024 bytes
// in.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
gpu.module @m {
  gpu.func @declared_alignment(%d: !desc) kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 9216 : i64, amk.dynamic_smem_align = 1024 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
    }
    gpu.barrier
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %shift = arith.constant 1024 : index
    %sm = memref.view %smem[%shift][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %sm : !desc, !bars -> memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x = memref.load %sm[%row, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: declared 128-byte aligned, a box 64 bytes in is still misaligned.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
gpu.module @m {
  gpu.func @declared_alignment_box_misplaced(%d: !desc) kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 9216 : i64, amk.dynamic_smem_align = 128 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
    }
    gpu.barrier
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %shift = arith.constant 64 : index
    %sm = memref.view %smem[%shift][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      // expected-error @+1 {{[AMK-MISALIGNED] TMA destination of memref<64x64xf16, #gpu.address_space<workgroup>> (8192 B) is misaligned: its address is 64 mod 128, and it needs 128-byte alignment}}
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %sm : !desc, !bars -> memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x = memref.load %sm[%row, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Twin: every thread arrives (count 128), thread 0 with the box's bytes and
// the others with none, in the two branches of one scf.if (as upstream's
// sm90 kernels do): one round of all threads.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
gpu.module @m {
  gpu.func @complementary_arrives(%d: !desc) workgroup(%buf: memref<64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %count = arith.constant 128 : index
    %tx = arith.constant 8192 : index
    %none = arith.constant 0 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %count : !bars
    }
    gpu.barrier
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %buf : !desc, !bars -> memref<64x64xf16, #gpu.address_space<workgroup>>
    } else {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %none : !bars
    }
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x = memref.load %buf[%row, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: the other threads expect bytes no load of theirs delivers.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
gpu.module @m {
  gpu.func @complementary_arrives_extra_bytes(%d: !desc) workgroup(%buf: memref<64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %count = arith.constant 128 : index
    %tx = arith.constant 8192 : index
    %none = arith.constant 64 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %count : !bars
    }
    gpu.barrier
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %buf : !desc, !bars -> memref<64x64xf16, #gpu.address_space<workgroup>>
    } else {
      // expected-error @+1 {{but the TMA loads of its round deliver 0: the phase never completes}}
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %none : !bars
    }
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x = memref.load %buf[%row, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: 128 threads arrive on a barrier that completes on 1.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
gpu.module @m {
  gpu.func @complementary_arrives_count_1(%d: !desc) workgroup(%buf: memref<64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %count = arith.constant 1 : index
    %tx = arith.constant 8192 : index
    %none = arith.constant 0 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %count : !bars
    }
    gpu.barrier
    scf.if %first {
      // expected-error @+1 {{128 threads arrive on mbarrier 0 of 'nvgpu.mbarrier.create' at line 838 each time, but it was initialized with count 1 ('nvgpu.mbarrier.init' at line 842): phases complete early, before the threads that wait on them arrived}}
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %buf : !desc, !bars -> memref<64x64xf16, #gpu.address_space<workgroup>>
    } else {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %none : !bars
    }
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x = memref.load %buf[%row, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: one stage of two boxes on one barrier (the race check screens the
// two loads as one span of bytes); box 1 is read before the wait. The
// screen meets the read, and the loads asked one by one name the second.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!box = memref<64x64xf16, #gpu.address_space<workgroup>>
!box1 = memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @span_member_unwaited(%d: !desc) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 16384 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
    }
    gpu.barrier
    %b0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !box
    %b1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !box1
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %b0 : !desc, !bars -> !box
      nvgpu.tma.async.load %d[%c64, %c0], %bars[%c0] to %b1 : !desc, !bars -> !box1
    }
    // expected-error-re @+1 {{[AMK-ASYNC-UNWAITED] 'memref.load' at line {{[0-9]+}} touches shared memory that the TMA load ('nvgpu.tma.async.load' at line 889) may still be writing}}
    %x1 = memref.load %b1[%row, %c0] : !box1
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x0 = memref.load %b0[%row, %c0] : !box
    gpu.return
  }
}

// -----

// Twin: the same stage, both boxes read after the wait.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!box = memref<64x64xf16, #gpu.address_space<workgroup>>
!box1 = memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @span_waited(%d: !desc) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 16384 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
    }
    gpu.barrier
    %b0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !box
    %b1 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to !box1
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %b0 : !desc, !bars -> !box
      nvgpu.tma.async.load %d[%c64, %c0], %bars[%c0] to %b1 : !desc, !bars -> !box1
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x1 = memref.load %b1[%row, %c0] : !box1
    %x0 = memref.load %b0[%row, %c0] : !box
    gpu.return
  }
}

// -----

// Twin: two rounds of one stage in straight-line code: each read follows
// the wait for its round's phase, and the first round's read comes
// before the barrier the second load is issued after (ordered without
// a system: Checker::tmaOrderedInLine).
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!box = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @two_rounds_in_line(%d: !desc) workgroup(%buf: memref<64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
    }
    gpu.barrier
    %b0 = memref.subview %buf[0, 0] [64, 64] [1, 1] : memref<64x64xf16, #gpu.address_space<workgroup>> to !box
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %b0 : !desc, !bars -> !box
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x0 = memref.load %b0[%row, %c0] : !box
    gpu.barrier
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c64, %c0], %bars[%c0] to %b0 : !desc, !bars -> !box
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %true, %ticks : !bars
    %y0 = memref.load %b0[%row, %c0] : !box
    gpu.return
  }
}

// -----

// Bug: the second round's read comes before its wait: the thread has
// waited only for the first round's phase.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!box = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @two_rounds_in_line_early(%d: !desc) workgroup(%buf: memref<64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %tx = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.remui %tid, %c64 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
    }
    gpu.barrier
    %b0 = memref.subview %buf[0, 0] [64, 64] [1, 1] : memref<64x64xf16, #gpu.address_space<workgroup>> to !box
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c0, %c0], %bars[%c0] to %b0 : !desc, !bars -> !box
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %x0 = memref.load %b0[%row, %c0] : !box
    gpu.barrier
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %d[%c64, %c0], %bars[%c0] to %b0 : !desc, !bars -> !box
    }
    // expected-error-re @+1 {{[AMK-ASYNC-UNWAITED] 'memref.load' at line {{[0-9]+}} touches shared memory that the TMA load ('nvgpu.tma.async.load' at line {{[0-9]+}}) may still be writing}}
    %y0 = memref.load %b0[%row, %c0] : !box
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %true, %ticks : !bars
    gpu.return
  }
}
