// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Pipelines between warpgroups (AMK-MBARRIER-PHASE, MBarrierPipeline.cpp):
// a producer and consumers hand stages back and forth through full and
// empty mbarriers in loops of their own, with no block barrier between
// rounds. Each bug next to the correct ring. The deadlocks (a wait that
// blocks for good) hang on the GPU; the sanitizers have nothing to say. So
// does ring_consumer_early, after racecheck reports its WAR hazard (a run
// on the H200 timed out with it).
// SANITIZE: tool=racecheck grid=1 block=256 smem=0 args=f32[128]
// Twin: a ring of two stages between a producer warpgroup and a consumer
// warpgroup: stage s fills (full[s], 128 producer arrivals) and empties
// (empty[s], 128 consumer arrivals); the producer's round r waits for
// empty's phase r - 1 (round 0: a fresh barrier's preceding phase, parity 1).
gpu.module @m {
  gpu.func @ring(%out: memref<128xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %cEmpty = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %true = arith.constant true
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %full[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %full[%c1], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c0], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c1], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    }
    gpu.barrier
    %producer = arith.cmpi uge, %tid, %c128 : index
    scf.if %producer {
      %i = arith.subi %tid, %c128 : index
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%p = %true) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %r:2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%q = %false, %acc = %zero) -> (i1, f32) {
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t : i1, f32
      }
      memref.store %r#1, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 block=256 smem=0 args=f32[128]
// Bug: the consumers free the stage (arrive on empty) before they read it:
// the producer's next round may overwrite what they are still reading.
gpu.module @m {
  gpu.func @ring_release_early(%out: memref<128xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %cEmpty = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %true = arith.constant true
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %full[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %full[%c1], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c0], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c1], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    }
    gpu.barrier
    %producer = arith.cmpi uge, %tid, %c128 : index
    scf.if %producer {
      %i = arith.subi %tid, %c128 : index
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%p = %true) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %r:2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%q = %false, %acc = %zero) -> (i1, f32) {
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them (write-read, threads 128 and 0, byte 0)}}
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %s = arith.addf %x, %y : f32
        %t = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t : i1, f32
      }
      memref.store %r#1, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the producer's first wait on empty is for parity 0 (phase 0), which
// only the consumers' first release completes, and they wait for the
// producer: a deadlock.
gpu.module @m {
  gpu.func @ring_first_wait_blocks(%out: memref<128xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %cEmpty = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %true = arith.constant true
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %full[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %full[%c1], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c0], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c1], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    }
    gpu.barrier
    %producer = arith.cmpi uge, %tid, %c128 : index
    scf.if %producer {
      %i = arith.subi %tid, %c128 : index
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%p = %false) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} for a phase whose arrive ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) runs only after this wait returns: the threads block for good}}
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} for a phase whose arrive ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) runs only after this wait returns: the threads block for good}}
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %r:2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%q = %false, %acc = %zero) -> (i1, f32) {
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} for a phase whose arrive ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) runs only after this wait returns: the threads block for good}}
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} for a phase whose arrive ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) runs only after this wait returns: the threads block for good}}
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t : i1, f32
      }
      memref.store %r#1, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}

// -----

// Bug: empty counts 64 arrivals, but all 128 consumer threads arrive.
gpu.module @m {
  gpu.func @ring_empty_count(%out: memref<128xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %cEmpty = arith.constant 64 : index
    %ticks = arith.constant 1000000 : index
    %true = arith.constant true
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %full[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %full[%c1], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c0], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c1], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    }
    gpu.barrier
    %producer = arith.cmpi uge, %tid, %c128 : index
    scf.if %producer {
      %i = arith.subi %tid, %c128 : index
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%p = %true) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in every iteration, but no wait for a phase comes between its threads' arrive and their next one: the next arrive can land in the same phase (its count, or its transaction bytes, are then wrong)}}
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in every iteration, but no wait for a phase comes between its threads' arrive and their next one: the next arrive can land in the same phase (its count, or its transaction bytes, are then wrong)}}
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %r:2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%q = %false, %acc = %zero) -> (i1, f32) {
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop its arrives ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) run in other threads, but nothing keeps the next phase from completing before this wait returns (no chain of arrives and waits from the wait to the arrive of the next phase): the parity can flip back and the wait miss its phase}}
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them (write-read, threads 128 and 0, byte 0)}}
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] 128 threads arrive on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} each time, but it was initialized with count 64 ('nvgpu.mbarrier.init' at line {{[0-9]+}}): phases complete early, before the threads that wait on them arrived}}
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop its arrives ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) run in other threads, but nothing keeps the next phase from completing before this wait returns (no chain of arrives and waits from the wait to the arrive of the next phase): the parity can flip back and the wait miss its phase}}
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] 128 threads arrive on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} each time, but it was initialized with count 64 ('nvgpu.mbarrier.init' at line {{[0-9]+}}): phases complete early, before the threads that wait on them arrived}}
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t : i1, f32
      }
      memref.store %r#1, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=1 block=256 smem=0 args=f32[128]
// Bug: the producer refills stage 1 without waiting for it to be empty.
gpu.module @m {
  gpu.func @ring_no_empty_wait(%out: memref<128xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %cEmpty = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %true = arith.constant true
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %full[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %full[%c1], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c0], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c1], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    }
    gpu.barrier
    %producer = arith.cmpi uge, %tid, %c128 : index
    scf.if %producer {
      %i = arith.subi %tid, %c128 : index
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%p = %true) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in every iteration, but no wait for a phase comes between its threads' arrive and their next one: the next arrive can land in the same phase (its count, or its transaction bytes, are then wrong)}}
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %r:2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%q = %false, %acc = %zero) -> (i1, f32) {
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop its arrives ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) run in other threads, but nothing keeps the next phase from completing before this wait returns (no chain of arrives and waits from the wait to the arrive of the next phase): the parity can flip back and the wait miss its phase}}
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in every iteration, but no wait for a phase comes between its threads' arrive and their next one: the next arrive can land in the same phase (its count, or its transaction bytes, are then wrong)}}
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t : i1, f32
      }
      memref.store %r#1, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the parity never flips: from round 1 on, the waits pass early.
gpu.module @m {
  gpu.func @ring_parity_fixed(%out: memref<128xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %cEmpty = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %true = arith.constant true
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %full[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %full[%c1], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c0], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c1], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    }
    gpu.barrier
    %producer = arith.cmpi uge, %tid, %c128 : index
    scf.if %producer {
      %i = arith.subi %tid, %c128 : index
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%p = %true) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop of another thread's arrives with a parity that does not flip every iteration: its arrives complete one phase per iteration, so the wait passes early or blocks for good}}
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop of another thread's arrives with a parity that does not flip every iteration: its arrives complete one phase per iteration, so the wait passes early or blocks for good}}
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.addi %p, %false : i1
        scf.yield %n : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %r:2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%q = %false, %acc = %zero) -> (i1, f32) {
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop of another thread's arrives with a parity that does not flip every iteration: its arrives complete one phase per iteration, so the wait passes early or blocks for good}}
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them (write-read, threads 128 and 0, byte 0)}}
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop of another thread's arrives with a parity that does not flip every iteration: its arrives complete one phase per iteration, so the wait passes early or blocks for good}}
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t = arith.addf %acc, %s : f32
        %cn = arith.addi %q, %false : i1
        scf.yield %cn, %t : i1, f32
      }
      memref.store %r#1, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the consumers' first wait is for parity 1, which a fresh barrier
// reports complete: they read stage 0 before the producer wrote it.
gpu.module @m {
  gpu.func @ring_consumer_early(%out: memref<128xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %cEmpty = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %true = arith.constant true
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %full[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %full[%c1], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c0], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c1], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    }
    gpu.barrier
    %producer = arith.cmpi uge, %tid, %c128 : index
    scf.if %producer {
      %i = arith.subi %tid, %c128 : index
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%p = %true) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop its arrives ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) run in other threads, but nothing keeps the next phase from completing before this wait returns (no chain of arrives and waits from the wait to the arrive of the next phase): the parity can flip back and the wait miss its phase}}
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in every iteration, but no wait for a phase comes between its threads' arrive and their next one: the next arrive can land in the same phase (its count, or its transaction bytes, are then wrong)}}
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop its arrives ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) run in other threads, but nothing keeps the next phase from completing before this wait returns (no chain of arrives and waits from the wait to the arrive of the next phase): the parity can flip back and the wait miss its phase}}
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in every iteration, but no wait for a phase comes between its threads' arrive and their next one: the next arrive can land in the same phase (its count, or its transaction bytes, are then wrong)}}
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %r:2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%q = %true, %acc = %zero) -> (i1, f32) {
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop its arrives ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) run in other threads, but nothing keeps the next phase from completing before this wait returns (no chain of arrives and waits from the wait to the arrive of the next phase): the parity can flip back and the wait miss its phase}}
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them (write-read, threads 128 and 0, byte 0)}}
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 0 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in every iteration, but no wait for a phase comes between its threads' arrive and their next one: the next arrive can land in the same phase (its count, or its transaction bytes, are then wrong)}}
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop its arrives ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) run in other threads, but nothing keeps the next phase from completing before this wait returns (no chain of arrives and waits from the wait to the arrive of the next phase): the parity can flip back and the wait miss its phase}}
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in every iteration, but no wait for a phase comes between its threads' arrive and their next one: the next arrive can land in the same phase (its count, or its transaction bytes, are then wrong)}}
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t : i1, f32
      }
      memref.store %r#1, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}


// -----
// SANITIZE: tool=racecheck grid=1 block=256 smem=0 args=f32[128]
// Twin: the consumers free a stage one step late, after their next read
// (stage 1's at stage 0 of the next round, as the wgmma GEMM frees a
// stage once the next k-tile's wgmmas retire it). In round 0 that arrive
// frees a stage not yet filled, so empty[1]'s phase r completes in round
// r: the producer waits for phase r there (parity 0 first), phase r - 1
// at stage 0.
gpu.module @m {
  gpu.func @ring_lagging_release(%out: memref<128xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %cEmpty = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %true = arith.constant true
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %full[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %full[%c1], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c0], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c1], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    }
    gpu.barrier
    %producer = arith.cmpi uge, %tid, %c128 : index
    scf.if %producer {
      %i = arith.subi %tid, %c128 : index
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%p = %true) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %pLast = arith.xori %p, %true : i1
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %pLast, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %r:2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%q = %false, %acc = %zero) -> (i1, f32) {
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t : i1, f32
      }
      memref.store %r#1, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}

// -----
// (No sanitizer run: whether racecheck sees this WAR depends on timing.)
// Bug: the same lagging release with the producer waiting for phase r - 1
// of empty[1]: that phase completed when the consumers freed round r - 2's
// stage, so the producer overwrites stage 1 while they may still read
// round r - 1's.
gpu.module @m {
  gpu.func @ring_lagging_release_parity(%out: memref<128xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %cEmpty = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %true = arith.constant true
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %full = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %empty = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %full[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %full[%c1], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c0], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %empty[%c1], %cEmpty : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    }
    gpu.barrier
    %producer = arith.cmpi uge, %tid, %c128 : index
    scf.if %producer {
      %i = arith.subi %tid, %c128 : index
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%p = %true) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in a loop its arrives ('nvgpu.mbarrier.arrive' at line {{[0-9]+}}) run in other threads, but nothing keeps the next phase from completing before this wait returns{{.*}}}}
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %r:2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%q = %false, %acc = %zero) -> (i1, f32) {
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 1 of 'nvgpu.mbarrier.create' at line {{[0-9]+}} in every iteration, but no wait for a phase comes between its threads' arrive and their next one{{.*}}}}
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t : i1, f32
      }
      memref.store %r#1, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}

