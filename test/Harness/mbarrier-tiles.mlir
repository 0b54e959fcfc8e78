// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// An mbarrier pipeline inside a persistent kernel's tile loop
// (MBarrierPipeline.cpp, outerLoop): the rounds of a loop of constant trip
// count R inside a uniform outer loop count on across its iterations
// (k = R q + r), when both roles loop over the same bounds and carry the
// phase bit from tile to tile.
// SANITIZE: tool=racecheck grid=4 block=256 smem=0 args=f32[1024]
// Twin: the ring inside a persistent kernel's tile loop. Each role loops
// over the tiles bid, bid + 4, ... around 3 rounds and carries the phase
// bit on from tile to tile: iteration k = 3 q + r of the rounds counts on
// across the tiles.
gpu.module @m {
  gpu.func @ring_tiles(%out: memref<4x256xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c10 = arith.constant 10 : index
    %bid = gpu.block_id x
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
      %tp = scf.for %t = %bid to %c10 step %c4 iter_args(%po = %true) -> (i1) {
      %r = scf.for %j = %c0 to %c3 step %c1 iter_args(%p = %po) -> (i1) {
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
      scf.yield %r : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %tc:2 = scf.for %t = %bid to %c10 step %c4 iter_args(%qo = %false, %acco = %zero) -> (i1, f32) {
      %r:2 = scf.for %j = %c0 to %c3 step %c1 iter_args(%q = %qo, %acc = %acco) -> (i1, f32) {
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t2 = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t2 : i1, f32
      }
      scf.yield %r#0, %r#1 : i1, f32
      }
      memref.store %tc#1, %out[%bid, %tid] : memref<4x256xf32>
    }
    gpu.return
  }
}

// -----
// Bug: the consumers restart their phase bit at every tile. With an odd
// number of rounds per tile, the second tile waits for the wrong parity.
gpu.module @m {
  gpu.func @ring_tiles_phase_reset(%out: memref<4x256xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c10 = arith.constant 10 : index
    %bid = gpu.block_id x
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
      %tp = scf.for %t = %bid to %c10 step %c4 iter_args(%po = %true) -> (i1) {
      %r = scf.for %j = %c0 to %c3 step %c1 iter_args(%p = %po) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 0 {{.*}} nothing keeps the next phase from completing{{.*}}}}
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 {{.*}} nothing keeps the next phase from completing{{.*}}}}
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
      scf.yield %r : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %tc:2 = scf.for %t = %bid to %c10 step %c4 iter_args(%qo = %false, %acco = %zero) -> (i1, f32) {
      %r:2 = scf.for %j = %c0 to %c3 step %c1 iter_args(%q = %false, %acc = %acco) -> (i1, f32) {
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 0 {{.*}} with a parity that does not flip every iteration{{.*}}}}
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}{{.*}}}}
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 0 {{.*}} no wait for a phase comes between{{.*}}}}
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 1 {{.*}} with a parity that does not flip every iteration{{.*}}}}
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 1 {{.*}} no wait for a phase comes between{{.*}}}}
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t2 = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t2 : i1, f32
      }
      scf.yield %r#0, %r#1 : i1, f32
      }
      memref.store %tc#1, %out[%bid, %tid] : memref<4x256xf32>
    }
    gpu.return
  }
}

// -----
// Bug: the producer's tile loop steps by 3 and the consumers' by 4. The
// two roles run different numbers of rounds, so the pipeline's phases
// cannot be matched.
gpu.module @m {
  gpu.func @ring_tiles_other_bounds(%out: memref<4x256xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c10 = arith.constant 10 : index
    %bid = gpu.block_id x
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
      %tp = scf.for %t = %bid to %c10 step %c3 iter_args(%po = %true) -> (i1) {
      %r = scf.for %j = %c0 to %c3 step %c1 iter_args(%p = %po) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        // expected-error-re @+1 {{[AMK-UNPROVABLE] a wait on mbarrier 0 {{.*}} whose iterations are not those of the arrive's loop{{.*}}}}
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-UNPROVABLE] a wait on mbarrier 1 {{.*}} whose iterations are not those of the arrive's loop{{.*}}}}
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
      scf.yield %r : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %tc:2 = scf.for %t = %bid to %c10 step %c4 iter_args(%qo = %false, %acco = %zero) -> (i1, f32) {
      %r:2 = scf.for %j = %c0 to %c3 step %c1 iter_args(%q = %qo, %acc = %acco) -> (i1, f32) {
        // expected-error-re @+1 {{[AMK-UNPROVABLE] a wait on mbarrier 0 {{.*}} whose iterations are not those of the arrive's loop{{.*}}}}
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}{{.*}}}}
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        // expected-error-re @+1 {{[AMK-UNPROVABLE] a wait on mbarrier 1 {{.*}} whose iterations are not those of the arrive's loop{{.*}}}}
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t2 = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t2 : i1, f32
      }
      scf.yield %r#0, %r#1 : i1, f32
      }
      memref.store %tc#1, %out[%bid, %tid] : memref<4x256xf32>
    }
    gpu.return
  }
}

// -----
// Unprovable: one more arrive on a stage's barrier in the tile loop, outside
// the rounds. Its phases interleave with the rounds', which the model does
// not count.
gpu.module @m {
  gpu.func @ring_tiles_extra_arrive(%out: memref<4x256xf32>) workgroup(%buf: memref<2x128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c10 = arith.constant 10 : index
    %bid = gpu.block_id x
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
      %tp = scf.for %t = %bid to %c10 step %c4 iter_args(%po = %true) -> (i1) {
      %r = scf.for %j = %c0 to %c3 step %c1 iter_args(%p = %po) -> (i1) {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] waits on mbarrier 0 {{.*}} nothing keeps the next phase from completing{{.*}}}}
        nvgpu.mbarrier.try_wait.parity %empty[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c0, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-UNPROVABLE] arrives on mbarrier 0 {{.*}} in a nested loop and elsewhere are not modelled}}
        %a0 = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        nvgpu.mbarrier.try_wait.parity %empty[%c1], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        memref.store %f, %buf[%c1, %i] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %a1 = nvgpu.mbarrier.arrive %full[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %n = arith.xori %p, %true : i1
        scf.yield %n : i1
      }
      %extra = nvgpu.mbarrier.arrive %full[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
      scf.yield %r : i1
      }
    }
    %consumer = arith.cmpi ult, %tid, %c128 : index
    scf.if %consumer {
      %tc:2 = scf.for %t = %bid to %c10 step %c4 iter_args(%qo = %false, %acco = %zero) -> (i1, f32) {
      %r:2 = scf.for %j = %c0 to %c3 step %c1 iter_args(%q = %qo, %acc = %acco) -> (i1, f32) {
        nvgpu.mbarrier.try_wait.parity %full[%c0], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}{{.*}}}}
        %x = memref.load %buf[%c0, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-MBARRIER-PHASE] arrives on mbarrier 0 {{.*}} no wait for a phase comes between{{.*}}}}
        %e0 = nvgpu.mbarrier.arrive %empty[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        nvgpu.mbarrier.try_wait.parity %full[%c1], %q, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
        %y = memref.load %buf[%c1, %tid] : memref<2x128xf32, #gpu.address_space<workgroup>>
        %e1 = nvgpu.mbarrier.arrive %empty[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
        %s = arith.addf %x, %y : f32
        %t2 = arith.addf %acc, %s : f32
        %cn = arith.xori %q, %true : i1
        scf.yield %cn, %t2 : i1, f32
      }
      scf.yield %r#0, %r#1 : i1, f32
      }
      memref.store %tc#1, %out[%bid, %tid] : memref<4x256xf32>
    }
    gpu.return
  }
}

