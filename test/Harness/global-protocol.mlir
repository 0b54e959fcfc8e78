// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Counter protocols between blocks (AMK-GLOBAL-SYNC, GlobalProtocol.cpp)
// and the orderings they give the global race check. Each planted bug next
// to its correct twin. The grid-barrier kernels: every block writes its
// part of %data, signals %ctr[0] and waits for all four signals, then reads
// its neighbour's part. The tile kernels: tasks 0-7 of a grid-stride loop
// write a tile of %ws and signal its counter; tasks 8-15 wait for one tile
// and read it.
// SANITIZE: tool=run,memcheck args=f32[1024],f32[1024],i32[1]@zero
// Twin: release (barrier, fence, signal) and acquire (poll, fence, barrier).
gpu.module @m {
  gpu.func @grid_barrier(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----

// Bug: no fence before the signal (a relaxed atomic releases nothing);
// the protocol then orders nothing, so the exchange races.
gpu.module @m {
  gpu.func @no_release_fence(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 74 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      // expected-error @+1 {{[AMK-GLOBAL-SYNC] 'memref.atomic_rmw' at line 79 signals a counter with no gpu-scope fence before it in its thread}}
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=run expect=hang args=f32[1024],f32[1024],i32[1]@zero
// Bug: a wait for five signals of four blocks (a hang).
gpu.module @m {
  gpu.func @threshold_too_high(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 5 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 118 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
      // expected-error @+1 {{[AMK-GLOBAL-SYNC] in block (0, 0, 0) 'scf.while' at line 125 waits for kernel argument #2[0] to reach 5, but the launch's signals add 4 to it: the block waits forever}}
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----

// Bug: no barrier after the acquire: only thread 0 polled and fenced, the
// other threads read before it has seen the signals.
gpu.module @m {
  gpu.func @no_acquire_barrier(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 164 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----

// Bug: the read comes before the poll.
gpu.module @m {
  gpu.func @read_before_poll(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    %x = memref.load %data[%j] : memref<1024xf32>
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 208 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=run expect=hang args=f32[1024],f32[1024],i32[1]@zero
// Bug: each block signals after its own wait (every block waits forever).
gpu.module @m {
  gpu.func @signal_after_poll(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 251 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      // expected-error @+1 {{[AMK-GLOBAL-SYNC] in block (0, 0, 0) 'scf.while' at line 257 waits for kernel argument #2[0] to reach 4, but some of its signals come only after a wait that depends on this one (a cycle of waits and the program order of blocks): blocks can wait for each other forever}}
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----

// Bug: every thread signals (the count reaches 4 long before every block
// has written).
gpu.module @m {
  gpu.func @every_thread_signals(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 297 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    nvvm.memory.barrier #nvvm.mem_scope<gpu>
    %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      // expected-error @+1 {{[AMK-GLOBAL-SYNC] in block (0, 0, 0) 'scf.while' at line 305 waits for kernel argument #2[0] to reach 4, but the launch's signals add 1024 to it: it can stop waiting before every signal it counts on has landed}}
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----

// Bug: a kernel whose blocks wait for each other, not launched
// cooperatively (blocks not yet resident never signal).
gpu.module @m {
  gpu.func @not_cooperative(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 344 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
      // expected-error @+1 {{[AMK-GLOBAL-SYNC] 'scf.while' at line 351 waits for other blocks, so every block of the launch must be resident at once: mark the kernel `amk.cooperative`}}
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----

// Bug: a counter the launch is not asked to zero.
gpu.module @m {
  gpu.func @not_a_counter(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32>) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 389 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
      // expected-error @+1 {{[AMK-GLOBAL-SYNC] 'scf.while' at line 396 uses kernel argument #2 as a counter, but the argument is not marked `amk.counter`}}
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----

// Bug: a plain store resets the counter.
gpu.module @m {
  gpu.func @plain_counter_store(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 434 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    // expected-error @+1 {{[AMK-GLOBAL-SYNC] 'memref.store' at line 453 touches kernel argument #2, a counter of the protocol between blocks}}
    memref.store %zero, %ctr[%c0] : memref<1xi32>
    gpu.return
  }
}

// -----

// Bug: a spin on a plain load (a weak load may never see the signals, and
// the compiler may hoist it): not a poll, and racing with the signals.
gpu.module @m {
  gpu.func @plain_load_spin(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 481 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.atomic_rmw' at line 487 races with the 'memref.load'}}
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
      // expected-error @+1 {{[AMK-UNPROVABLE] a loop that is not an scf.for ('scf.while' at line 489, or branches with a back edge) is not modelled}}
      scf.while : () -> () {
        %v = memref.load %ctr[%c0] : memref<1xi32>
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=run,memcheck args=f32[2048],f32[2048],i32[8]@zero
// Twin: per-tile dependencies in a task loop (task t + 8 waits for the
// tile of task t, an earlier task).
gpu.module @m {
  gpu.func @tile_tasks(%ws: memref<2048xf32>, %out: memref<2048xf32>, %ctr: memref<8xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.for %t = %bid to %c16 step %c4 {
      %producer = arith.cmpi ult, %t, %c8 : index
      %k = arith.remui %t, %c8 : index
      scf.if %producer {
        %b = arith.muli %k, %c256 : index
        %i = arith.addi %b, %tid : index
        memref.store %f, %ws[%i] : memref<2048xf32>
        gpu.barrier
        scf.if %first {
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
          %old = memref.atomic_rmw addi %one, %ctr[%k] : (i32, memref<8xi32>) -> i32
        }
      } else {
        scf.if %first {
          scf.while : () -> () {
            %v = memref.atomic_rmw addi %zero, %ctr[%k] : (i32, memref<8xi32>) -> i32
            %wait = arith.cmpi ult, %v, %one : i32
            scf.condition(%wait)
          } do {
            scf.yield
          }
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
        }
        gpu.barrier
        %k1 = arith.addi %k, %c0 : index
        %r = arith.remui %k1, %c8 : index
        %b = arith.muli %r, %c256 : index
        %i = arith.addi %b, %tid : index
        %x = memref.load %ws[%i] : memref<2048xf32>
        %o = arith.muli %k, %c256 : index
        %oi = arith.addi %o, %tid : index
        memref.store %x, %out[%oi] : memref<2048xf32>
      }
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=run,memcheck args=f32[2048],f32[2048],i32[8]@zero
// Twin: every thread polls and fences; then no barrier is needed.
gpu.module @m {
  gpu.func @tile_tasks_every_thread_polls(%ws: memref<2048xf32>, %out: memref<2048xf32>, %ctr: memref<8xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.for %t = %bid to %c16 step %c4 {
      %producer = arith.cmpi ult, %t, %c8 : index
      %k = arith.remui %t, %c8 : index
      scf.if %producer {
        %b = arith.muli %k, %c256 : index
        %i = arith.addi %b, %tid : index
        memref.store %f, %ws[%i] : memref<2048xf32>
        gpu.barrier
        scf.if %first {
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
          %old = memref.atomic_rmw addi %one, %ctr[%k] : (i32, memref<8xi32>) -> i32
        }
      } else {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%k] : (i32, memref<8xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        gpu.barrier
        %k1 = arith.addi %k, %c0 : index
        %r = arith.remui %k1, %c8 : index
        %b = arith.muli %r, %c256 : index
        %i = arith.addi %b, %tid : index
        %x = memref.load %ws[%i] : memref<2048xf32>
        %o = arith.muli %k, %c256 : index
        %oi = arith.addi %o, %tid : index
        memref.store %x, %out[%oi] : memref<2048xf32>
      }
    }
    gpu.return
  }
}

// -----

// Bug: a consumer waits for tile k and reads tile k + 1.
gpu.module @m {
  gpu.func @tile_reads_neighbour(%ws: memref<2048xf32>, %out: memref<2048xf32>, %ctr: memref<8xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.for %t = %bid to %c16 step %c4 {
      %producer = arith.cmpi ult, %t, %c8 : index
      %k = arith.remui %t, %c8 : index
      scf.if %producer {
        %b = arith.muli %k, %c256 : index
        %i = arith.addi %b, %tid : index
        // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 638 races with the 'memref.load'}}
        memref.store %f, %ws[%i] : memref<2048xf32>
        gpu.barrier
        scf.if %first {
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
          %old = memref.atomic_rmw addi %one, %ctr[%k] : (i32, memref<8xi32>) -> i32
        }
      } else {
        scf.if %first {
          scf.while : () -> () {
            %v = memref.atomic_rmw addi %zero, %ctr[%k] : (i32, memref<8xi32>) -> i32
            %wait = arith.cmpi ult, %v, %one : i32
            scf.condition(%wait)
          } do {
            scf.yield
          }
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
        }
        gpu.barrier
        %k1 = arith.addi %k, %c1 : index
        %r = arith.remui %k1, %c8 : index
        %b = arith.muli %r, %c256 : index
        %i = arith.addi %b, %tid : index
        %x = memref.load %ws[%i] : memref<2048xf32>
        %o = arith.muli %k, %c256 : index
        %oi = arith.addi %o, %tid : index
        memref.store %x, %out[%oi] : memref<2048xf32>
      }
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=run expect=hang args=f32[2048],f32[2048],i32[8]@zero
// Bug: the consumer tasks come first: task t waits for task t + 8, which
// its own block runs later (the race check alone sees no race: producer
// and consumer of a tile share a block).
gpu.module @m {
  gpu.func @consumers_first(%ws: memref<2048xf32>, %out: memref<2048xf32>, %ctr: memref<8xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.for %t = %bid to %c16 step %c4 {
      %producer = arith.cmpi uge, %t, %c8 : index
      %k = arith.remui %t, %c8 : index
      scf.if %producer {
        %b = arith.muli %k, %c256 : index
        %i = arith.addi %b, %tid : index
        memref.store %f, %ws[%i] : memref<2048xf32>
        gpu.barrier
        scf.if %first {
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
          %old = memref.atomic_rmw addi %one, %ctr[%k] : (i32, memref<8xi32>) -> i32
        }
      } else {
        scf.if %first {
          // expected-error @+1 {{[AMK-GLOBAL-SYNC] in block (0, 0, 0) 'scf.while' at line 704 waits for kernel argument #2[0] to reach 1, but some of its signals come only after a wait that depends on this one}}
          scf.while : () -> () {
            %v = memref.atomic_rmw addi %zero, %ctr[%k] : (i32, memref<8xi32>) -> i32
            %wait = arith.cmpi ult, %v, %one : i32
            scf.condition(%wait)
          } do {
            scf.yield
          }
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
        }
        gpu.barrier
        %k1 = arith.addi %k, %c0 : index
        %r = arith.remui %k1, %c8 : index
        %b = arith.muli %r, %c256 : index
        %i = arith.addi %b, %tid : index
        %x = memref.load %ws[%i] : memref<2048xf32>
        %o = arith.muli %k, %c256 : index
        %oi = arith.addi %o, %tid : index
        memref.store %x, %out[%oi] : memref<2048xf32>
      }
    }
    gpu.return
  }
}

// -----

// Bug: the poll runs in no thread (tid == 256 in a block of 256), so the
// barrier after it orders nothing.
gpu.module @m {
  gpu.func @poll_by_no_thread(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    // expected-error @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line 751 races with the 'memref.load'}}
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
    }
    %none = arith.cmpi eq, %tid, %c256 : index
    scf.if %none {
      // expected-error @+1 {{[AMK-GLOBAL-SYNC] 'scf.while' at line 761 is run by no thread of the block}}
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[256],f32[1024],i32[1]@zero
// Twin: block 0 produces, the other blocks wait for it: the wait is on the
// then side of a branch on the block id, the signal on the else side, which
// no block runs both of (no cycle).
gpu.module @m {
  gpu.func @producer_block(%data: memref<256xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %consumer = arith.cmpi ne, %bid, %c0 : index
    scf.if %consumer {
      scf.if %first {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      gpu.barrier
      %x = memref.load %data[%tid] : memref<256xf32>
      %base = arith.muli %bid, %c256 : index
      %i = arith.addi %base, %tid : index
      memref.store %x, %out[%i] : memref<1024xf32>
    } else {
      memref.store %f, %data[%tid] : memref<256xf32>
      gpu.barrier
      scf.if %first {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
      }
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run expect=hang args=f32[512],i32[2]@zero
// Bug: blocks 0 and 1 each wait for the other's signal before giving their
// own (a cycle of waits).
gpu.module @m {
  gpu.func @wait_for_each_other(%data: memref<512xf32>, %ctr: memref<2xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %other = arith.subi %c1, %bid : index
    scf.if %first {
      // expected-error @+1 {{waits for kernel argument #1[1] to reach 1, but some of its signals come only after a wait that depends on this one}}
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%other] : (i32, memref<2xi32>) -> i32
        %wait = arith.cmpi ult, %v, %one : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    memref.store %f, %data[%i] : memref<512xf32>
    gpu.barrier
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bid] : (i32, memref<2xi32>) -> i32
    }
    gpu.return
  }
}

// -----

// Hostile: the largest grid CUDA allows, whose one poll a single block
// reaches: the count gives up (a bound on blocks too), it does not run for
// hours.
gpu.module @m {
  // expected-error @+1 {{[AMK-UNPROVABLE] the protocol's counts could not be checked at 'gpu.func' at line 870: more than 1048576 blocks and instances to run}}
  gpu.func @huge(%ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 2147483647, 65535, 65535>} {
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %is0 = arith.cmpi eq, %bid, %c0 : index
    scf.if %is0 {
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %one : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[256],f32[256],i32[2]@zero
// Twin: a chain through a third block (a hb b hb c): block 0 writes and
// signals element 0; block 1 polls it and, after its fence, signals
// element 1; block 2 polls element 1 and reads block 0's writes. Every
// poll waits for every signal to its element, so the order is transitive
// (the middle elements constant).
gpu.module @m {
  gpu.func @chain_of_two(%data: memref<256xf32>, %out: memref<256xf32>, %ctr: memref<2xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 3, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %b1 = arith.cmpi eq, %bid, %c1 : index
    %b2 = arith.cmpi eq, %bid, %c2 : index
    scf.if %b0 {
      memref.store %f, %data[%tid] : memref<256xf32>
      gpu.barrier
      scf.if %first {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<2xi32>) -> i32
      }
    }
    scf.if %b1 {
      scf.if %first {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<2xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%c1] : (i32, memref<2xi32>) -> i32
      }
    }
    scf.if %b2 {
      scf.if %first {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%c1] : (i32, memref<2xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      gpu.barrier
      %x = memref.load %data[%tid] : memref<256xf32>
      memref.store %x, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the middle block signals element 1 before it polls element 0: block
// 2 may read before block 0 writes.
gpu.module @m {
  gpu.func @signal_before_poll(%data: memref<256xf32>, %out: memref<256xf32>, %ctr: memref<2xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 3, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %b1 = arith.cmpi eq, %bid, %c1 : index
    %b2 = arith.cmpi eq, %bid, %c2 : index
    scf.if %b0 {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block{{.*}}blocks (0, 0, 0) and (2, 0, 0){{.*}}}}
      memref.store %f, %data[%tid] : memref<256xf32>
      gpu.barrier
      scf.if %first {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<2xi32>) -> i32
      }
    }
    scf.if %b1 {
      scf.if %first {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%c1] : (i32, memref<2xi32>) -> i32
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<2xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
    }
    scf.if %b2 {
      scf.if %first {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%c1] : (i32, memref<2xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      gpu.barrier
      %x = memref.load %data[%tid] : memref<256xf32>
      memref.store %x, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the middle block's poll and its signal are in different threads
// with no barrier between: the signal releases nothing the poll acquired.
gpu.module @m {
  gpu.func @other_thread_signals(%data: memref<256xf32>, %out: memref<256xf32>, %ctr: memref<2xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 3, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %b1 = arith.cmpi eq, %bid, %c1 : index
    %b2 = arith.cmpi eq, %bid, %c2 : index
    scf.if %b0 {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block{{.*}}blocks (0, 0, 0) and (2, 0, 0){{.*}}}}
      memref.store %f, %data[%tid] : memref<256xf32>
      gpu.barrier
      scf.if %first {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<2xi32>) -> i32
      }
    }
    scf.if %b1 {
      scf.if %first {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<2xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      %second = arith.cmpi eq, %tid, %c1 : index
      scf.if %second {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%c1] : (i32, memref<2xi32>) -> i32
      }
    }
    scf.if %b2 {
      scf.if %first {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%c1] : (i32, memref<2xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      gpu.barrier
      %x = memref.load %data[%tid] : memref<256xf32>
      memref.store %x, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[1024],f32[1024],i32[5]@zero
// Twin: a relay (decoupled look-back): block b polls element b, and after
// its fence signals element b + 1 (block 0 seeds element 0). Block b reads
// what block b - 2 wrote: b - 2 signals b - 1, which block b - 1 polls
// before it signals b, which block b polls. The chain runs through
// elements that vary per block, any number of blocks long.
gpu.module @m {
  gpu.func @relay_two_back(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<5xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    scf.if %first {
      scf.if %b0 {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %s0 = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<5xi32>) -> i32
      }
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%bid] : (i32, memref<5xi32>) -> i32
        %wait = arith.cmpi ult, %v, %one : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %next = arith.addi %bid, %c1 : index
      %old = memref.atomic_rmw addi %one, %ctr[%next] : (i32, memref<5xi32>) -> i32
    }
    gpu.barrier
    %late = arith.cmpi uge, %bid, %c2 : index
    scf.if %late {
      %p = arith.subi %bid, %c2 : index
      %back = arith.muli %p, %c256 : index
      %i = arith.addi %back, %tid : index
      %x = memref.load %data[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// Bug: block b reads what block b + 1 writes: the relay runs the other
// way (b + 1 polls only after b signals).
gpu.module @m {
  gpu.func @relay_reads_ahead(%data: memref<1280xf32>, %out: memref<1280xf32>, %ctr: memref<5xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: blocks of a launch are not ordered{{.*}}}}
    memref.store %f, %data[%mine] : memref<1280xf32>
    gpu.barrier
    scf.if %first {
      scf.if %b0 {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %s0 = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<5xi32>) -> i32
      }
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%bid] : (i32, memref<5xi32>) -> i32
        %wait = arith.cmpi ult, %v, %one : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %next = arith.addi %bid, %c1 : index
      %old = memref.atomic_rmw addi %one, %ctr[%next] : (i32, memref<5xi32>) -> i32
    }
    gpu.barrier
    %late = arith.cmpi uge, %bid, %c0 : index
    scf.if %late {
      %p = arith.addi %bid, %c1 : index
      %back = arith.muli %p, %c256 : index
      %i = arith.addi %back, %tid : index
      %x = memref.load %data[%i] : memref<1280xf32>
      memref.store %x, %out[%mine] : memref<1280xf32>
    }
    gpu.return
  }
}

// -----

// Bug: each block signals element b + 1 before it polls element b, so
// nothing chains: block b - 1's signal says nothing of block b - 2.
gpu.module @m {
  gpu.func @relay_signal_first(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<5xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: blocks of a launch are not ordered{{.*}}}}
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    scf.if %first {
      scf.if %b0 {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %s0 = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<5xi32>) -> i32
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %next = arith.addi %bid, %c1 : index
      %old = memref.atomic_rmw addi %one, %ctr[%next] : (i32, memref<5xi32>) -> i32
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%bid] : (i32, memref<5xi32>) -> i32
        %wait = arith.cmpi ult, %v, %one : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %late = arith.cmpi uge, %bid, %c2 : index
    scf.if %late {
      %p = arith.subi %bid, %c2 : index
      %back = arith.muli %p, %c256 : index
      %i = arith.addi %back, %tid : index
      %x = memref.load %data[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}


// -----

// SANITIZE: tool=run,memcheck args=f32[1536],f32[1536],i32[8]@zero
// Twin: two relays interleaved (block b polls b and signals b + 2; blocks
// 0 and 1 seed elements 0 and 1): block b reads what block b - 4 wrote,
// two steps back along its own relay.
gpu.module @m {
  gpu.func @relay_step_two(%data: memref<1536xf32>, %out: memref<1536xf32>, %ctr: memref<8xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 6, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    memref.store %f, %data[%mine] : memref<1536xf32>
    gpu.barrier
    scf.if %first {
      %seed = arith.cmpi ult, %bid, %c2 : index
      scf.if %seed {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %s0 = memref.atomic_rmw addi %one, %ctr[%bid] : (i32, memref<8xi32>) -> i32
      }
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%bid] : (i32, memref<8xi32>) -> i32
        %wait = arith.cmpi ult, %v, %one : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %next = arith.addi %bid, %c2 : index
      %old = memref.atomic_rmw addi %one, %ctr[%next] : (i32, memref<8xi32>) -> i32
    }
    gpu.barrier
    %cb = arith.constant 4 : index
    %late = arith.cmpi uge, %bid, %cb : index
    scf.if %late {
      %p = arith.subi %bid, %cb : index
      %back = arith.muli %p, %c256 : index
      %i = arith.addi %back, %tid : index
      %x = memref.load %data[%i] : memref<1536xf32>
      memref.store %x, %out[%mine] : memref<1536xf32>
    }
    gpu.return
  }
}

// -----

// Bug: block b reads what block b - 1 wrote, which is on the other relay:
// nothing orders them.
gpu.module @m {
  gpu.func @relay_step_two_other_chain(%data: memref<1536xf32>, %out: memref<1536xf32>, %ctr: memref<8xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 6, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: blocks of a launch are not ordered{{.*}}}}
    memref.store %f, %data[%mine] : memref<1536xf32>
    gpu.barrier
    scf.if %first {
      %seed = arith.cmpi ult, %bid, %c2 : index
      scf.if %seed {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %s0 = memref.atomic_rmw addi %one, %ctr[%bid] : (i32, memref<8xi32>) -> i32
      }
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%bid] : (i32, memref<8xi32>) -> i32
        %wait = arith.cmpi ult, %v, %one : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %next = arith.addi %bid, %c2 : index
      %old = memref.atomic_rmw addi %one, %ctr[%next] : (i32, memref<8xi32>) -> i32
    }
    gpu.barrier
    %cb = arith.constant 1 : index
    %late = arith.cmpi uge, %bid, %cb : index
    scf.if %late {
      %p = arith.subi %bid, %cb : index
      %back = arith.muli %p, %c256 : index
      %i = arith.addi %back, %tid : index
      %x = memref.load %data[%i] : memref<1536xf32>
      memref.store %x, %out[%mine] : memref<1536xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[1024],f32[1024],i32[4]@zero
// Twin: a decoupled look-back: block b >= 1 polls element b - 1, and after
// its fence every block signals element b; block b >= 2 reads what block
// b - 2 wrote (through block b - 1's relay). The poll sits under a branch
// on the block, so its acquire reaches past it in the blocks that run it.
gpu.module @m {
  gpu.func @lookback_two_back(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    %notfirst = arith.cmpi uge, %bid, %c1 : index
    scf.if %first {
      scf.if %notfirst {
        %prev = arith.subi %bid, %c1 : index
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bid] : (i32, memref<4xi32>) -> i32
    }
    gpu.barrier
    %late = arith.cmpi uge, %bid, %c2 : index
    scf.if %late {
      %back = arith.subi %base, %c256 : index
      %back2 = arith.subi %back, %c256 : index
      %i = arith.addi %back2, %tid : index
      %x = memref.load %data[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// Bug: block 1 does not poll (b >= 2 do), so it relays nothing: block 2
// may read what block 0 writes before it lands.
gpu.module @m {
  gpu.func @lookback_skips_one(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: blocks of a launch are not ordered{{.*}}}}
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    %notfirst = arith.cmpi uge, %bid, %c2 : index
    scf.if %first {
      scf.if %notfirst {
        %prev = arith.subi %bid, %c1 : index
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bid] : (i32, memref<4xi32>) -> i32
    }
    gpu.barrier
    %late = arith.cmpi uge, %bid, %c2 : index
    scf.if %late {
      %back = arith.subi %base, %c256 : index
      %back2 = arith.subi %back, %c256 : index
      %i = arith.addi %back2, %tid : index
      %x = memref.load %data[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// Bug: thread 0 polls, but thread 1 signals, with no barrier between:
// its signal does not wait for the poll, so nothing relays.
gpu.module @m {
  gpu.func @relay_other_thread_signals(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<5xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: blocks of a launch are not ordered{{.*}}}}
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    %two = arith.cmpi ult, %tid, %c2 : index
    %second = arith.cmpi eq, %tid, %c1 : index
    scf.if %two {
      scf.if %b0 {
        scf.if %first {
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
          %s0 = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<5xi32>) -> i32
        }
      }
      scf.if %first {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%bid] : (i32, memref<5xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      scf.if %second {
        %next = arith.addi %bid, %c1 : index
        %old = memref.atomic_rmw addi %one, %ctr[%next] : (i32, memref<5xi32>) -> i32
      }
    }
    gpu.barrier
    %late = arith.cmpi uge, %bid, %c2 : index
    scf.if %late {
      %p = arith.subi %bid, %c2 : index
      %back = arith.muli %p, %c256 : index
      %i = arith.addi %back, %tid : index
      %x = memref.load %data[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[1024],f32[1024],i32[4]@zero
// Twin: the look-back with a barrier between: thread 0 polls (blocks b >=
// 1) and fences, the block meets at a barrier, then thread 255 signals
// element b. The barrier orders any thread's signal after the poll's
// fence, so the relay holds.
gpu.module @m {
  gpu.func @lookback_barrier_then_signal(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %c255 = arith.constant 255 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    %notfirst = arith.cmpi uge, %bid, %c1 : index
    scf.if %first {
      scf.if %notfirst {
        %prev = arith.subi %bid, %c1 : index
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
    }
    gpu.barrier
    %last = arith.cmpi eq, %tid, %c255 : index
    scf.if %last {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bid] : (i32, memref<4xi32>) -> i32
    }
    %late = arith.cmpi uge, %bid, %c2 : index
    scf.if %late {
      %back = arith.subi %base, %c256 : index
      %back2 = arith.subi %back, %c256 : index
      %i = arith.addi %back2, %tid : index
      %x = memref.load %data[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// Bug: thread 255 signals before that barrier: its signal need not follow
// the poll of thread 0.
gpu.module @m {
  gpu.func @lookback_signal_before_barrier(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %c255 = arith.constant 255 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: blocks of a launch are not ordered{{.*}}}}
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    %notfirst = arith.cmpi uge, %bid, %c1 : index
    scf.if %first {
      scf.if %notfirst {
        %prev = arith.subi %bid, %c1 : index
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
    }
    %last = arith.cmpi eq, %tid, %c255 : index
    scf.if %last {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bid] : (i32, memref<4xi32>) -> i32
    }
    gpu.barrier
    %late = arith.cmpi uge, %bid, %c2 : index
    scf.if %late {
      %back = arith.subi %base, %c256 : index
      %back2 = arith.subi %back, %c256 : index
      %i = arith.addi %back2, %tid : index
      %x = memref.load %data[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[1024],f32[1024],i32[4]@zero
// Twin: the look-back with the poll and the signal in two branches on the
// same test of the thread (tid == 0), no barrier between: the thread that
// polled is the one that signals, after its fence.
gpu.module @m {
  gpu.func @lookback_split_branches(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    %notfirst = arith.cmpi uge, %bid, %c1 : index
    scf.if %first {
      scf.if %notfirst {
        %prev = arith.subi %bid, %c1 : index
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
    }
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bid] : (i32, memref<4xi32>) -> i32
    }
    gpu.barrier
    %late = arith.cmpi uge, %bid, %c2 : index
    scf.if %late {
      %back = arith.subi %base, %c256 : index
      %back2 = arith.subi %back, %c256 : index
      %i = arith.addi %back2, %tid : index
      %x = memref.load %data[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}


// -----

// Bug: the same, but the second branch tests tid == 255: that thread's
// signal does not wait for thread 0's poll, so nothing relays.
gpu.module @m {
  gpu.func @lookback_split_other_thread(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: blocks of a launch are not ordered, so the read may see the value before or after the write (blocks ({{[0-9]+}}, 0, 0) and ({{[0-9]+}}, 0, 0), element [{{[0-9]+}}]); give each block its own elements, or update them atomically}}
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    %notfirst = arith.cmpi uge, %bid, %c1 : index
    scf.if %first {
      scf.if %notfirst {
        %prev = arith.subi %bid, %c1 : index
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
    }
    %c255 = arith.constant 255 : index
    %last = arith.cmpi eq, %tid, %c255 : index
    scf.if %last {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bid] : (i32, memref<4xi32>) -> i32
    }
    gpu.barrier
    %late = arith.cmpi uge, %bid, %c2 : index
    scf.if %late {
      %back = arith.subi %base, %c256 : index
      %back2 = arith.subi %back, %c256 : index
      %i = arith.addi %back2, %tid : index
      %x = memref.load %data[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}


// -----

// SANITIZE: tool=run,memcheck args=f32[2048],f32[2048],i32[4]@zero
// Twin: a relay along block id y. Both blocks of row y >= 1 poll element
// y - 1 until both blocks of row y - 1 have signalled it (threshold 2),
// then every block signals element y: a block of row y >= 2 reads what the
// other block of row y - 2 wrote, through row y - 1's relay.
gpu.module @m {
  gpu.func @relay_along_y(%data: memref<2048xf32>, %out: memref<2048xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 2, 4, 1>} {
    %tid = gpu.thread_id x
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.muli %by, %c2 : index
    %block = arith.addi %row, %bx : index
    %base = arith.muli %block, %c256 : index
    %mine = arith.addi %base, %tid : index
    memref.store %f, %data[%mine] : memref<2048xf32>
    gpu.barrier
    %notfirst = arith.cmpi uge, %by, %c1 : index
    scf.if %first {
      scf.if %notfirst {
        %prev = arith.subi %by, %c1 : index
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %two : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%by] : (i32, memref<4xi32>) -> i32
    }
    gpu.barrier
    %late = arith.cmpi uge, %by, %c2 : index
    scf.if %late {
      %other = arith.subi %c1, %bx : index
      %back = arith.subi %row, %c2 : index
      %back2 = arith.subi %back, %c2 : index
      %then = arith.addi %back2, %other : index
      %at = arith.muli %then, %c256 : index
      %i = arith.addi %at, %tid : index
      %x = memref.load %data[%i] : memref<2048xf32>
      memref.store %x, %out[%mine] : memref<2048xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the same relay along y, but a block reads what the other block of
// its own row writes: nothing orders two blocks of one row.
gpu.module @m {
  gpu.func @relay_along_y_same_row(%data: memref<2048xf32>, %out: memref<2048xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 2, 4, 1>} {
    %tid = gpu.thread_id x
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %row = arith.muli %by, %c2 : index
    %block = arith.addi %row, %bx : index
    %base = arith.muli %block, %c256 : index
    %mine = arith.addi %base, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: blocks of a launch are not ordered{{.*}}}}
    memref.store %f, %data[%mine] : memref<2048xf32>
    gpu.barrier
    %notfirst = arith.cmpi uge, %by, %c1 : index
    scf.if %first {
      scf.if %notfirst {
        %prev = arith.subi %by, %c1 : index
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %two : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%by] : (i32, memref<4xi32>) -> i32
    }
    gpu.barrier
    %other = arith.subi %c1, %bx : index
    %then = arith.addi %row, %other : index
    %at = arith.muli %then, %c256 : index
    %i = arith.addi %at, %tid : index
    %x = memref.load %data[%i] : memref<2048xf32>
    memref.store %x, %out[%mine] : memref<2048xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[1024],i32[4]@zero
// Twin: a serial split-K (turns): block (x, 0, z) waits until z blocks of
// its tile have signalled %ctr[x], adds its part into %out, and signals
// once more: the three blocks of a tile take turns 0, 1, 2, so each one's
// read-modify-write follows the previous turns'. No wait sees all three
// signals; each sees exactly the turns below its own.
gpu.module @m {
  gpu.func @serial_splitk(%out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 3>} {
    %tid = gpu.thread_id x
    %bx = gpu.block_id x
    %bz = gpu.block_id z
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bx, %c256 : index
    %mine = arith.addi %base, %tid : index
    %turn = arith.index_cast %bz : index to i32
    scf.if %first {
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%bx] : (i32, memref<4xi32>) -> i32
        %wait = arith.cmpi ult, %v, %turn : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %out[%mine] : memref<1024xf32>
    %y = arith.addf %x, %f : f32
    memref.store %y, %out[%mine] : memref<1024xf32>
    gpu.barrier
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bx] : (i32, memref<4xi32>) -> i32
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run expect=hang args=f32[1024],i32[4]@zero
// Bug: turns start at 1: turn 0 never comes, so every block of a tile
// waits forever (and nothing orders their updates).
gpu.module @m {
  gpu.func @serial_splitk_late_turn(%out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 3>} {
    %tid = gpu.thread_id x
    %bx = gpu.block_id x
    %bz = gpu.block_id z
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bx, %c256 : index
    %mine = arith.addi %base, %tid : index
    %bz1 = arith.addi %bz, %c1 : index
    %turn = arith.index_cast %bz1 : index to i32
    scf.if %first {
      // expected-error-re @+1 {{[AMK-GLOBAL-SYNC] in block (0, 0, 0) 'scf.while' at line {{[0-9]+}} waits for kernel argument #1[0] to reach 1, but the launch's signals add 3 to it in turns 1, 2, 3 (a signal's turn: the count its thread waited for first){{.*}}}}
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%bx] : (i32, memref<4xi32>) -> i32
        %wait = arith.cmpi ult, %v, %turn : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %x = memref.load %out[%mine] : memref<1024xf32>
    %y = arith.addf %x, %f : f32
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block{{.*}}}}
    memref.store %y, %out[%mine] : memref<1024xf32>
    gpu.barrier
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bx] : (i32, memref<4xi32>) -> i32
    }
    gpu.return
  }
}

// -----

// Bug: the turns as in the twin, but each block reads its part of %out
// before its turn: the read may see an earlier turn's value or not.
gpu.module @m {
  gpu.func @serial_splitk_reads_early(%out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 3>} {
    %tid = gpu.thread_id x
    %bx = gpu.block_id x
    %bz = gpu.block_id z
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bx, %c256 : index
    %mine = arith.addi %base, %tid : index
    %turn = arith.index_cast %bz : index to i32
    %x = memref.load %out[%mine] : memref<1024xf32>
    scf.if %first {
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%bx] : (i32, memref<4xi32>) -> i32
        %wait = arith.cmpi ult, %v, %turn : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %y = arith.addf %x, %f : f32
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block{{.*}}}}
    memref.store %y, %out[%mine] : memref<1024xf32>
    gpu.barrier
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bx] : (i32, memref<4xi32>) -> i32
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[3072],f32[3072],i32[12]@zero
// Twin: a relay inside a persistent tile loop (t = block id, step the
// blocks): tile t >= 1 polls element t - 1, then every tile signals t; tile
// t >= 2 reads what tile t - 2 wrote (another block's earlier iteration),
// through tile t - 1's relay.
gpu.module @m {
  gpu.func @relay_in_tile_loop(%data: memref<3072xf32>, %out: memref<3072xf32>, %ctr: memref<12xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %blocks = gpu.grid_dim x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c12 = arith.constant 12 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.for %t = %bid to %c12 step %blocks {
      %base = arith.muli %t, %c256 : index
      %mine = arith.addi %base, %tid : index
      memref.store %f, %data[%mine] : memref<3072xf32>
      gpu.barrier
      %notfirst = arith.cmpi uge, %t, %c1 : index
      scf.if %first {
        scf.if %notfirst {
          %prev = arith.subi %t, %c1 : index
          scf.while : () -> () {
            %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<12xi32>) -> i32
            %wait = arith.cmpi ult, %v, %one : i32
            scf.condition(%wait)
          } do {
            scf.yield
          }
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%t] : (i32, memref<12xi32>) -> i32
      }
      gpu.barrier
      %late = arith.cmpi uge, %t, %c2 : index
      scf.if %late {
        %back = arith.subi %base, %c256 : index
        %back2 = arith.subi %back, %c256 : index
        %i = arith.addi %back2, %tid : index
        %x = memref.load %data[%i] : memref<3072xf32>
        memref.store %x, %out[%mine] : memref<3072xf32>
      }
    }
    gpu.return
  }
}

// -----

// Bug: tile 1 does not poll (tiles t >= 2 do), so it relays nothing: tile
// 2 may read what tile 0 writes before it lands.
gpu.module @m {
  gpu.func @relay_in_tile_loop_skips_one(%data: memref<3072xf32>, %out: memref<3072xf32>, %ctr: memref<12xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %blocks = gpu.grid_dim x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c12 = arith.constant 12 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.for %t = %bid to %c12 step %blocks {
      %base = arith.muli %t, %c256 : index
      %mine = arith.addi %base, %tid : index
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0{{.*}}}}
      memref.store %f, %data[%mine] : memref<3072xf32>
      gpu.barrier
      %notfirst = arith.cmpi uge, %t, %c2 : index
      scf.if %first {
        scf.if %notfirst {
          %prev = arith.subi %t, %c1 : index
          scf.while : () -> () {
            %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<12xi32>) -> i32
            %wait = arith.cmpi ult, %v, %one : i32
            scf.condition(%wait)
          } do {
            scf.yield
          }
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%t] : (i32, memref<12xi32>) -> i32
      }
      gpu.barrier
      %late = arith.cmpi uge, %t, %c2 : index
      scf.if %late {
        %back = arith.subi %base, %c256 : index
        %back2 = arith.subi %back, %c256 : index
        %i = arith.addi %back2, %tid : index
        %x = memref.load %data[%i] : memref<3072xf32>
        memref.store %x, %out[%mine] : memref<3072xf32>
      }
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[1024],i32[4]@zero
// Twin: the serial split-K with a free first turn: only blocks z > 0 wait
// (`if (z > 0)` inside the thread's test); the barrier after both branches
// brings the acquire to the blocks that waited, and block z = 0's signal
// has turn 0.
gpu.module @m {
  gpu.func @serial_splitk_first_free(%out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 3>} {
    %tid = gpu.thread_id x
    %bx = gpu.block_id x
    %bz = gpu.block_id z
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bx, %c256 : index
    %mine = arith.addi %base, %tid : index
    %turn = arith.index_cast %bz : index to i32
    %later = arith.cmpi ugt, %bz, %c0 : index
    scf.if %first {
      scf.if %later {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%bx] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %turn : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
    }
    gpu.barrier
    %x = memref.load %out[%mine] : memref<1024xf32>
    %y = arith.addf %x, %f : f32
    memref.store %y, %out[%mine] : memref<1024xf32>
    gpu.barrier
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bx] : (i32, memref<4xi32>) -> i32
    }
    gpu.return
  }
}

// -----

// Bug: the same, but every block reads its part of %out once more after
// its signal: block z = 0's late read races with the later turns' writes.
gpu.module @m {
  gpu.func @serial_splitk_first_free_late_read(%out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 3>} {
    %tid = gpu.thread_id x
    %bx = gpu.block_id x
    %bz = gpu.block_id z
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bx, %c256 : index
    %mine = arith.addi %base, %tid : index
    %turn = arith.index_cast %bz : index to i32
    %later = arith.cmpi ugt, %bz, %c0 : index
    scf.if %first {
      scf.if %later {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%bx] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %turn : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
    }
    gpu.barrier
    %x = memref.load %out[%mine] : memref<1024xf32>
    %y = arith.addf %x, %f : f32
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block{{.*}}}}
    memref.store %y, %out[%mine] : memref<1024xf32>
    gpu.barrier
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bx] : (i32, memref<4xi32>) -> i32
    }
    %late = memref.load %out[%mine] : memref<1024xf32>
    %bad = arith.addf %late, %f : f32
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[1024],f32[1024],i32[4]@zero,i32[1]@zero
// Twin: a gather, then a broadcast (a chain from varying elements to a
// constant one): every block signals %done[b]; block 0's thread 0 polls
// %done[i] for every i in a loop, then signals %all[0], which every block
// waits for before it reads what another block wrote.
gpu.module @m {
  gpu.func @gather_then_broadcast(%data: memref<1024xf32>, %out: memref<1024xf32>, %done: memref<4xi32> {amk.counter}, %all: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c768 = arith.constant 768 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %done[%bid] : (i32, memref<4xi32>) -> i32
    }
    %leader = arith.cmpi eq, %bid, %c0 : index
    scf.if %leader {
      scf.if %first {
        scf.for %i = %c0 to %c4 step %c1 {
          scf.while : () -> () {
            %v = memref.atomic_rmw addi %zero, %done[%i] : (i32, memref<4xi32>) -> i32
            %wait = arith.cmpi ult, %v, %one : i32
            scf.condition(%wait)
          } do {
            scf.yield
          }
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %o2 = memref.atomic_rmw addi %one, %all[%c0] : (i32, memref<1xi32>) -> i32
      }
    }
    scf.if %first {
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %all[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %one : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %back = arith.subi %c768, %base : index
    %i = arith.addi %back, %tid : index
    %x = memref.load %data[%i] : memref<1024xf32>
    memref.store %x, %out[%mine] : memref<1024xf32>
    gpu.return
  }
}

// -----

// Bug: the gathering loop stops one block short: block 3's writes reach
// nobody through %all.
gpu.module @m {
  gpu.func @gather_misses_one(%data: memref<1024xf32>, %out: memref<1024xf32>, %done: memref<4xi32> {amk.counter}, %all: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c3 = arith.constant 3 : index
    %c256 = arith.constant 256 : index
    %c768 = arith.constant 768 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0{{.*}}}}
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %done[%bid] : (i32, memref<4xi32>) -> i32
    }
    %leader = arith.cmpi eq, %bid, %c0 : index
    scf.if %leader {
      scf.if %first {
        scf.for %i = %c0 to %c3 step %c1 {
          scf.while : () -> () {
            %v = memref.atomic_rmw addi %zero, %done[%i] : (i32, memref<4xi32>) -> i32
            %wait = arith.cmpi ult, %v, %one : i32
            scf.condition(%wait)
          } do {
            scf.yield
          }
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %o2 = memref.atomic_rmw addi %one, %all[%c0] : (i32, memref<1xi32>) -> i32
      }
    }
    scf.if %first {
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %all[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %one : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %back = arith.subi %c768, %base : index
    %i = arith.addi %back, %tid : index
    %x = memref.load %data[%i] : memref<1024xf32>
    memref.store %x, %out[%mine] : memref<1024xf32>
    gpu.return
  }
}

// -----

// Bug: block 0 signals %all[0] before it gathers: the broadcast orders
// nothing of the other blocks' writes.
gpu.module @m {
  gpu.func @gather_signals_first(%data: memref<1024xf32>, %out: memref<1024xf32>, %done: memref<4xi32> {amk.counter}, %all: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c768 = arith.constant 768 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0{{.*}}}}
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %done[%bid] : (i32, memref<4xi32>) -> i32
    }
    %leader = arith.cmpi eq, %bid, %c0 : index
    scf.if %leader {
      scf.if %first {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %early = memref.atomic_rmw addi %one, %all[%c0] : (i32, memref<1xi32>) -> i32
        scf.for %i = %c0 to %c4 step %c1 {
          scf.while : () -> () {
            %v = memref.atomic_rmw addi %zero, %done[%i] : (i32, memref<4xi32>) -> i32
            %wait = arith.cmpi ult, %v, %one : i32
            scf.condition(%wait)
          } do {
            scf.yield
          }
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
        }
      }
    }
    scf.if %first {
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %all[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %one : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
    }
    gpu.barrier
    %back = arith.subi %c768, %base : index
    %i = arith.addi %back, %tid : index
    %x = memref.load %data[%i] : memref<1024xf32>
    memref.store %x, %out[%mine] : memref<1024xf32>
    gpu.return
  }
}
