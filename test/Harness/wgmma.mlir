// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// wgmma (nvgpu.warpgroup.mma on descriptors generated from shared-memory
// views): its operands are read asynchronously, in flight until a wgmma
// wait retires their group (the op itself waits for all but its waitGroup
// newest, 1 by default), so nothing may overwrite them before that wait
// and, for other threads, a barrier after it (AMK-ASYNC-UNWAITED); plain
// writes they read need fence.proxy.async before the barrier (the wgmma
// reads through the async proxy); a swizzled operand starts where its
// pattern does (1024 B for 128-byte swizzle, AMK-MISALIGNED). Each bug
// next to its correct twin. No SANITIZE lines: the corpus runner does not
// encode tensor maps.
// Twin: a two-stage TMA ring feeding wgmma: each iteration waits for a
// stage's boxes, multiplies from it, and after a wgmma wait for every
// group and a barrier refills it; waits after the loop cover the last
// refills.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!tile = memref<64x64xf16, #gpu.address_space<workgroup>>
!tileS = memref<64x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @mainloop_two_stages(%da: !desc, %db: !desc) workgroup(%buf: memref<2x2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %tx = arith.constant 16384 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %a0 = memref.subview %buf[0, 0, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<2x2x64x64xf16, #gpu.address_space<workgroup>> to !tile
    %b0 = memref.subview %buf[0, 1, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<2x2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %a1 = memref.subview %buf[1, 0, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<2x2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 8192>, #gpu.address_space<workgroup>>
    %b1 = memref.subview %buf[1, 1, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<2x2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 12288>, #gpu.address_space<workgroup>>
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %da[%c0, %c0], %bars[%c0] to %a0 : !desc, !bars -> !tile
      nvgpu.tma.async.load %db[%c0, %c0], %bars[%c0] to %b0 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    }
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
      nvgpu.tma.async.load %da[%c64, %c0], %bars[%c1] to %a1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 8192>, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %db[%c64, %c0], %bars[%c1] to %b1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 12288>, #gpu.address_space<workgroup>>
    }
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %res:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%p = %false, %acc = %init) -> (i1, !acc) {
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %p, %ticks : !bars
      %dA0 = nvgpu.warpgroup.generate.descriptor %a0, %da : !tile, !desc -> !wd
      %dB0 = nvgpu.warpgroup.generate.descriptor %b0, %db : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>, !desc -> !wd
      %acc0 = nvgpu.warpgroup.mma %dA0, %dB0, %acc : !wd, !wd, !acc -> !acc
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %p, %ticks : !bars
      %dA1 = nvgpu.warpgroup.generate.descriptor %a1, %da : memref<64x64xf16, strided<[64, 1], offset: 8192>, #gpu.address_space<workgroup>>, !desc -> !wd
      %dB1 = nvgpu.warpgroup.generate.descriptor %b1, %db : memref<64x64xf16, strided<[64, 1], offset: 12288>, #gpu.address_space<workgroup>>, !desc -> !wd
      %acc1 = nvgpu.warpgroup.mma %dA1, %dB1, %acc0 : !wd, !wd, !acc -> !acc
      nvvm.wgmma.wait.group.sync.aligned 0
      gpu.barrier
      %t = arith.addi %j, %c1 : index
      %k0 = arith.muli %t, %c128 : index
      %k1 = arith.addi %k0, %c64 : index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        nvgpu.tma.async.load %da[%k0, %c0], %bars[%c0] to %a0 : !desc, !bars -> !tile
        nvgpu.tma.async.load %db[%k0, %c0], %bars[%c0] to %b0 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      }
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
        nvgpu.tma.async.load %da[%k1, %c0], %bars[%c1] to %a1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 8192>, #gpu.address_space<workgroup>>
        nvgpu.tma.async.load %db[%k1, %c0], %bars[%c1] to %b1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 12288>, #gpu.address_space<workgroup>>
      }
      %np = arith.xori %p, %true : i1
      scf.yield %np, %acc1 : i1, !acc
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %false, %ticks : !bars
    gpu.return
  }
}

// -----

// Bug: no wgmma wait before the barrier: the last wgmma of an iteration
// (waitGroup 1 leaves it in flight) may still read stage 1 when thread 0
// refills it.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!tile = memref<64x64xf16, #gpu.address_space<workgroup>>
!tileS = memref<64x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @mainloop_without_wgmma_wait(%da: !desc, %db: !desc) workgroup(%buf: memref<2x2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %tx = arith.constant 16384 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bars = nvgpu.mbarrier.create -> !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    }
    gpu.barrier
    %a0 = memref.subview %buf[0, 0, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<2x2x64x64xf16, #gpu.address_space<workgroup>> to !tile
    %b0 = memref.subview %buf[0, 1, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<2x2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %a1 = memref.subview %buf[1, 0, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<2x2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 8192>, #gpu.address_space<workgroup>>
    %b1 = memref.subview %buf[1, 1, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<2x2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 12288>, #gpu.address_space<workgroup>>
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
      nvgpu.tma.async.load %da[%c0, %c0], %bars[%c0] to %a0 : !desc, !bars -> !tile
      nvgpu.tma.async.load %db[%c0, %c0], %bars[%c0] to %b0 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    }
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
      nvgpu.tma.async.load %da[%c64, %c0], %bars[%c1] to %a1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 8192>, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %db[%c64, %c0], %bars[%c1] to %b1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 12288>, #gpu.address_space<workgroup>>
    }
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %res:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%p = %false, %acc = %init) -> (i1, !acc) {
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %p, %ticks : !bars
      %dA0 = nvgpu.warpgroup.generate.descriptor %a0, %da : !tile, !desc -> !wd
      %dB0 = nvgpu.warpgroup.generate.descriptor %b0, %db : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>, !desc -> !wd
      %acc0 = nvgpu.warpgroup.mma %dA0, %dB0, %acc : !wd, !wd, !acc -> !acc
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %p, %ticks : !bars
      %dA1 = nvgpu.warpgroup.generate.descriptor %a1, %da : memref<64x64xf16, strided<[64, 1], offset: 8192>, #gpu.address_space<workgroup>>, !desc -> !wd
      %dB1 = nvgpu.warpgroup.generate.descriptor %b1, %db : memref<64x64xf16, strided<[64, 1], offset: 12288>, #gpu.address_space<workgroup>>, !desc -> !wd
      %acc1 = nvgpu.warpgroup.mma %dA1, %dB1, %acc0 : !wd, !wd, !acc -> !acc
      gpu.barrier
      %t = arith.addi %j, %c1 : index
      %k0 = arith.muli %t, %c128 : index
      %k1 = arith.addi %k0, %c64 : index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        nvgpu.tma.async.load %da[%k0, %c0], %bars[%c0] to %a0 : !desc, !bars -> !tile
        nvgpu.tma.async.load %db[%k0, %c0], %bars[%c0] to %b0 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
      }
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %tx : !bars
        // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'nvgpu.tma.async.load' at line 155 overwrites shared memory that the wgmma ('nvgpu.warpgroup.mma' at line 142) may still be reading: no barrier after a wgmma wait that retires the wgmma's group orders it}}
        nvgpu.tma.async.load %da[%k1, %c0], %bars[%c1] to %a1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 8192>, #gpu.address_space<workgroup>>
        // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'nvgpu.tma.async.load' at line 157 overwrites shared memory that the wgmma ('nvgpu.warpgroup.mma' at line 142) may still be reading: no barrier after a wgmma wait that retires the wgmma's group orders it}}
        nvgpu.tma.async.load %db[%k1, %c0], %bars[%c1] to %b1 : !desc, !bars -> memref<64x64xf16, strided<[64, 1], offset: 12288>, #gpu.address_space<workgroup>>
      }
      %np = arith.xori %p, %true : i1
      scf.yield %np, %acc1 : i1, !acc
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %false, %ticks : !bars
    gpu.return
  }
}

// -----

// Bug: plain stores into an operand, a barrier, then the wgmma: without
// fence.proxy.async the async proxy may not see the stores.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!tile = memref<64x64xf16, #gpu.address_space<workgroup>>
!tileS = memref<64x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @stores_without_proxy_fence(%da: !desc, %db: !desc) workgroup(%buf: memref<1x136x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %v = arith.constant 1.0 : f16
    %a0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<1x136x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 0>, #gpu.address_space<workgroup>>
    %b0 = memref.subview %buf[0, 72, 0] [1, 64, 64] [1, 1, 1] : memref<1x136x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4608>, #gpu.address_space<workgroup>>
    %row = arith.divui %tid, %c2 : index
    %half = arith.remui %tid, %c2 : index
    %c32 = arith.constant 32 : index
    %col = arith.muli %half, %c32 : index
    // expected-error @+1 {{[AMK-ASYNC-UNWAITED] 'memref.store' at line 192 writes shared memory that a wgmma ('nvgpu.warpgroup.mma' at line 197) reads through the async proxy, with no fence.proxy.async after it before the next barrier: the wgmma may read the bytes from before the write}}
    memref.store %v, %a0[%row, %col] : memref<64x64xf16, strided<[64, 1], offset: 0>, #gpu.address_space<workgroup>>
    gpu.barrier
    %dA = nvgpu.warpgroup.generate.descriptor %a0, %da : memref<64x64xf16, strided<[64, 1], offset: 0>, #gpu.address_space<workgroup>>, !desc -> !wd
    %dB = nvgpu.warpgroup.generate.descriptor %b0, %db : memref<64x64xf16, strided<[64, 1], offset: 4608>, #gpu.address_space<workgroup>>, !desc -> !wd
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %acc = nvgpu.warpgroup.mma %dA, %dB, %init : !wd, !wd, !acc -> !acc
    nvvm.wgmma.wait.group.sync.aligned 0
    gpu.return
  }
}

// -----

// Twin: the same with fence.proxy.async after the stores.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!tile = memref<64x64xf16, #gpu.address_space<workgroup>>
!tileS = memref<64x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @stores_with_proxy_fence(%da: !desc, %db: !desc) workgroup(%buf: memref<1x136x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %v = arith.constant 1.0 : f16
    %a0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<1x136x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 0>, #gpu.address_space<workgroup>>
    %b0 = memref.subview %buf[0, 72, 0] [1, 64, 64] [1, 1, 1] : memref<1x136x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4608>, #gpu.address_space<workgroup>>
    %row = arith.divui %tid, %c2 : index
    %half = arith.remui %tid, %c2 : index
    %c32 = arith.constant 32 : index
    %col = arith.muli %half, %c32 : index
    memref.store %v, %a0[%row, %col] : memref<64x64xf16, strided<[64, 1], offset: 0>, #gpu.address_space<workgroup>>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    %dA = nvgpu.warpgroup.generate.descriptor %a0, %da : memref<64x64xf16, strided<[64, 1], offset: 0>, #gpu.address_space<workgroup>>, !desc -> !wd
    %dB = nvgpu.warpgroup.generate.descriptor %b0, %db : memref<64x64xf16, strided<[64, 1], offset: 4608>, #gpu.address_space<workgroup>>, !desc -> !wd
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %acc = nvgpu.warpgroup.mma %dA, %dB, %init : !wd, !wd, !acc -> !acc
    nvvm.wgmma.wait.group.sync.aligned 0
    gpu.return
  }
}

// -----

// Bug: operand A starts 512 bytes into the buffer: with the 128-byte swizzle
// its descriptor (no base offset) needs a 1024-byte aligned start.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!tile = memref<64x64xf16, #gpu.address_space<workgroup>>
!tileS = memref<64x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @operand_misaligned(%da: !desc, %db: !desc) workgroup(%buf: memref<1x136x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %v = arith.constant 1.0 : f16
    %a0 = memref.subview %buf[0, 4, 0] [1, 64, 64] [1, 1, 1] : memref<1x136x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 256>, #gpu.address_space<workgroup>>
    %b0 = memref.subview %buf[0, 72, 0] [1, 64, 64] [1, 1, 1] : memref<1x136x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4608>, #gpu.address_space<workgroup>>
    %row = arith.divui %tid, %c2 : index
    %half = arith.remui %tid, %c2 : index
    %c32 = arith.constant 32 : index
    %col = arith.muli %half, %c32 : index
    gpu.barrier
    %dA = nvgpu.warpgroup.generate.descriptor %a0, %da : memref<64x64xf16, strided<[64, 1], offset: 256>, #gpu.address_space<workgroup>>, !desc -> !wd
    %dB = nvgpu.warpgroup.generate.descriptor %b0, %db : memref<64x64xf16, strided<[64, 1], offset: 4608>, #gpu.address_space<workgroup>>, !desc -> !wd
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    // expected-error @+1 {{[AMK-MISALIGNED] wgmma operand of memref<64x64xf16, strided<[64, 1], offset: 256>, #gpu.address_space<workgroup>> (8192 B) is misaligned: its address is 512 mod 1024, and it needs to start 16-byte aligned in the first 128 B past a multiple of 1024 B}}
    %acc = nvgpu.warpgroup.mma %dA, %dB, %init : !wd, !wd, !acc -> !acc
    nvvm.wgmma.wait.group.sync.aligned 0
    gpu.return
  }
}

// -----

// nvgpu.warpgroup.mma.store: thread t stores its fragment at rows
// 16 (t / 32) + lane / 4 (+ 8) of the view, numbering warps in the block,
// and the view must have the accumulator's shape: one warpgroup's store
// fits; a second warpgroup's lands past its view.
// Twin: one warpgroup stores its accumulators into a stage.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @accumulators_one_warpgroup(%da: !desc, %db: !desc, %c: memref<128x64xf32>) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}, %cs: memref<2x64x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %c128 = arith.constant 128 : index
    %a0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %b0 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %dA = nvgpu.warpgroup.generate.descriptor %a0, %da : memref<64x64xf16, #gpu.address_space<workgroup>>, !desc -> !wd
    %dB = nvgpu.warpgroup.generate.descriptor %b0, %db : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>, !desc -> !wd
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %acc = nvgpu.warpgroup.mma %dA, %dB, %init : !wd, !wd, !acc -> !acc
    nvvm.wgmma.wait.group.sync.aligned 0
    %mine = memref.subview %cs[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf32, #gpu.address_space<workgroup>> to memref<64x64xf32, #gpu.address_space<workgroup>>
    nvgpu.warpgroup.mma.store %acc, %mine : !acc to memref<64x64xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: two warpgroups, each storing into its own stage: warpgroup 1
// writes rows 64 .. 127 of its 64-row view (on the GPU: past %cs).
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @accumulators_own_stage(%da: !desc, %db: !desc, %c: memref<128x64xf32>) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}, %cs: memref<2x64x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %c128 = arith.constant 128 : index
    %a0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %b0 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %dA = nvgpu.warpgroup.generate.descriptor %a0, %da : memref<64x64xf16, #gpu.address_space<workgroup>>, !desc -> !wd
    %dB = nvgpu.warpgroup.generate.descriptor %b0, %db : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>, !desc -> !wd
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %acc = nvgpu.warpgroup.mma %dA, %dB, %init : !wd, !wd, !acc -> !acc
    nvvm.wgmma.wait.group.sync.aligned 0
    %wg = arith.divui %tid, %c128 : index
    %mine = memref.subview %cs[%wg, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf32, #gpu.address_space<workgroup>> to memref<64x64xf32, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-OOB] warpgroup accumulator store: warpgroup 1 of the block writes up to element 8191 of memref<64x64xf32, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>> (4096 elements): warp w stores from row 16 w of the view}}
    nvgpu.warpgroup.mma.store %acc, %mine : !acc to memref<64x64xf32, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: every thread reads an element another thread stored, with no
// barrier after the store.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @accumulators_read_unsynchronized(%da: !desc, %db: !desc, %c: memref<128x64xf32>) workgroup(%buf: memref<2x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}, %cs: memref<2x64x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %c128 = arith.constant 128 : index
    %a0 = memref.subview %buf[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %b0 = memref.subview %buf[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>
    %dA = nvgpu.warpgroup.generate.descriptor %a0, %da : memref<64x64xf16, #gpu.address_space<workgroup>>, !desc -> !wd
    %dB = nvgpu.warpgroup.generate.descriptor %b0, %db : memref<64x64xf16, strided<[64, 1], offset: 4096>, #gpu.address_space<workgroup>>, !desc -> !wd
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %acc = nvgpu.warpgroup.mma %dA, %dB, %init : !wd, !wd, !acc -> !acc
    nvvm.wgmma.wait.group.sync.aligned 0
    %mine = memref.subview %cs[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf32, #gpu.address_space<workgroup>> to memref<64x64xf32, #gpu.address_space<workgroup>>
    nvgpu.warpgroup.mma.store %acc, %mine : !acc to memref<64x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-SMEM-RACE] 'memref.load' at line 351 races with the 'nvgpu.warpgroup.mma.store' at line 349: no barrier between them (write-read, threads 126 and 127, byte 16380)}}
    %v = memref.load %mine[%c63, %c63] : memref<64x64xf32, #gpu.address_space<workgroup>>
    // expected-warning @+1 {{[AMK-UNCOALESCED]}}
    memref.store %v, %c[%tid, %c0] : memref<128x64xf32>
    gpu.return
  }
}

// -----

// Twin: k-steps of swizzled tiles (subviews 16 columns wide) start 32 bytes
// into the first row of their 1024-byte pattern, which the hardware takes
// with base offset 0.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x16xf16, #gpu.address_space<workgroup>>>
!wdb = !nvgpu.warpgroup.descriptor<tensor = memref<16x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @k_step_operands(%da: !desc, %db: !desc) workgroup(%buf: memref<144x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %a0 = memref.subview %buf[0, 16] [64, 16] [1, 1] : memref<144x64xf16, #gpu.address_space<workgroup>> to memref<64x16xf16, strided<[64, 1], offset: 16>, #gpu.address_space<workgroup>>
    %b0 = memref.subview %buf[80, 16] [64, 16] [1, 1] : memref<144x64xf16, #gpu.address_space<workgroup>> to memref<64x16xf16, strided<[64, 1], offset: 5136>, #gpu.address_space<workgroup>>
    %dA = nvgpu.warpgroup.generate.descriptor %a0, %da : memref<64x16xf16, strided<[64, 1], offset: 16>, #gpu.address_space<workgroup>>, !desc -> !wd
    %dB = nvgpu.warpgroup.generate.descriptor %b0, %db : memref<64x16xf16, strided<[64, 1], offset: 5136>, #gpu.address_space<workgroup>>, !desc -> !wdb
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %acc = nvgpu.warpgroup.mma %dA, %dB, %init : !wd, !wdb, !acc -> !acc
    nvvm.wgmma.wait.group.sync.aligned 0
    gpu.return
  }
}

// -----

// Bug: a k-step cut from row 1 starts in the pattern's second row (160 mod
// 1024): its descriptor's XOR would not match the copy's.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x16xf16, #gpu.address_space<workgroup>>>
!wdb = !nvgpu.warpgroup.descriptor<tensor = memref<16x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @k_step_off_the_first_row(%da: !desc, %db: !desc) workgroup(%buf: memref<144x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %a0 = memref.subview %buf[1, 16] [64, 16] [1, 1] : memref<144x64xf16, #gpu.address_space<workgroup>> to memref<64x16xf16, strided<[64, 1], offset: 80>, #gpu.address_space<workgroup>>
    %b0 = memref.subview %buf[80, 16] [64, 16] [1, 1] : memref<144x64xf16, #gpu.address_space<workgroup>> to memref<64x16xf16, strided<[64, 1], offset: 5136>, #gpu.address_space<workgroup>>
    %dA = nvgpu.warpgroup.generate.descriptor %a0, %da : memref<64x16xf16, strided<[64, 1], offset: 80>, #gpu.address_space<workgroup>>, !desc -> !wd
    %dB = nvgpu.warpgroup.generate.descriptor %b0, %db : memref<64x16xf16, strided<[64, 1], offset: 5136>, #gpu.address_space<workgroup>>, !desc -> !wdb
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    // expected-error @+1 {{[AMK-MISALIGNED] wgmma operand of memref<64x16xf16, strided<[64, 1], offset: 80>, #gpu.address_space<workgroup>> (2048 B) is misaligned: its address is 160 mod 1024, and it needs to start 16-byte aligned in the first 128 B past a multiple of 1024 B}}
    %acc = nvgpu.warpgroup.mma %dA, %dB, %init : !wd, !wdb, !acc -> !acc
    nvvm.wgmma.wait.group.sync.aligned 0
    gpu.return
  }
}
