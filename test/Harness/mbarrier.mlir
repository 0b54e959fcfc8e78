// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// mbarrier phases (AMK-MBARRIER): planted bugs, each next to a correct twin.
// The model: one init by one thread made visible by a block barrier; every
// thread arrives once per round, then waits for that round's parity.

// Twin: every thread arrives once per iteration, then waits for the phase of
// that iteration's parity (i mod 2).
gpu.module @m {
  gpu.func @phases_in_loop(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bar[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    gpu.barrier
    scf.for %i = %c0 to %c8 step %c1 {
      %tok = nvgpu.mbarrier.arrive %bar[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
      %r = arith.remui %i, %c2 : index
      %p32 = arith.index_cast %r : index to i32
      %p = arith.trunci %p32 : i32 to i1
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

// Bug: the wait names parity 0 in every iteration; from the second on it
// returns at once (the parity-0 phase before is done) and reads early.
gpu.module @m {
  gpu.func @wrong_parity(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bar[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    gpu.barrier
    scf.for %i = %c0 to %c8 step %c1 {
      %tok = nvgpu.mbarrier.arrive %bar[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
      // expected-error @+1 {{[AMK-MBARRIER] waits on mbarrier 0 for the wrong phase: the phase completing here has parity (0 + iteration) mod 2}}
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

// Bug: the count is 256 but the block has 128 threads: no phase ever
// completes and every wait hangs.
gpu.module @m {
  gpu.func @wrong_count(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    %c256 = arith.constant 256 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bar[%c0], %c256 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    gpu.barrier
    scf.for %i = %c0 to %c8 step %c1 {
      // expected-error @+1 {{[AMK-MBARRIER] mbarrier 0 expects 256 arrivals per phase, but 128 thread(s) arrive here}}
      %tok = nvgpu.mbarrier.arrive %bar[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
      %r = arith.remui %i, %c2 : index
      %p32 = arith.index_cast %r : index to i32
      %p = arith.trunci %p32 : i32 to i1
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %p, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

// Bug: other threads may arrive before thread 0 has initialized the barrier.
gpu.module @m {
  gpu.func @init_not_visible(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bar[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    // expected-error @+1 {{[AMK-MBARRIER] mbarrier 0 is used before a block barrier makes its initialization visible to every thread}}
    %tok = nvgpu.mbarrier.arrive %bar[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Twin: two rounds without a loop: phases 0 and 1, parities 0 and 1; the
// init is visible after the barrier.
gpu.module @m {
  gpu.func @straight_line(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bar[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %t0 = nvgpu.mbarrier.arrive %bar[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    %t1 = nvgpu.mbarrier.arrive %bar[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %true, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: only 8 threads arrive on a barrier that counts 128: the phase never
// completes.
gpu.module @m {
  gpu.func @arrive_divergent(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bar[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %low = arith.cmpi ult, %tid, %c8 : index
    scf.if %low {
      // expected-error @+1 {{[AMK-MBARRIER] 'nvgpu.mbarrier.arrive' runs under thread-dependent control: not every thread of the block reaches it}}
      %tok = nvgpu.mbarrier.arrive %bar[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
    }
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: every thread waits for a phase that needs its own later arrive.
gpu.module @m {
  gpu.func @wait_before_arrive(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bar[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // expected-error @+1 {{[AMK-MBARRIER] waits on mbarrier 0 before this thread's arrive on it: the phase cannot complete}}
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    %tok = nvgpu.mbarrier.arrive %bar[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
    gpu.return
  }
}

// -----

// Bug: all 128 threads initialize the barrier; a late init resets a phase
// that early threads already arrived on.
gpu.module @m {
  gpu.func @init_by_every_thread(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-MBARRIER] every thread of the block initializes mbarrier 0}}
    nvgpu.mbarrier.init %bar[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    gpu.barrier
    %tok = nvgpu.mbarrier.arrive %bar[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Not modelled: which barrier an index names at run time.
gpu.module @m {
  gpu.func @dynamic_index(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bar[%c0], %c128 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // expected-error @+1 {{[AMK-UNPROVABLE] a dynamic mbarrier index is not modelled}}
    %tok = nvgpu.mbarrier.arrive %bar[%n] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
    gpu.return
  }
}
