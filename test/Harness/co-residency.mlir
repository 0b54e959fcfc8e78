// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-verify --verify-diagnostics
// A cooperative kernel's blocks wait for each other (here a grid barrier:
// every block writes its part, signals, waits for all, reads its
// neighbour's), so all of them must be resident at once: its known grid
// against the occupancy of its block, shared memory and registers on the
// target. The cooperative launch refuses a grid that does not fit (the
// runtime's GPU test t_v2_coop_too_large shows the refusal).

// Twin: 132 blocks of 1024 threads at 64 registers, one per SM of an H200.
gpu.module @m {
  gpu.func @fits(%data: memref<135168xf32>, %out: memref<135168xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, nvvm.maxnreg = 64 : i32, known_block_size = array<i32: 1024, 1, 1>, known_grid_size = array<i32: 132, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 132 : index
    %c256 = arith.constant 1024 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 132 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    memref.store %f, %data[%i] : memref<135168xf32>
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
    %x = memref.load %data[%j] : memref<135168xf32>
    memref.store %x, %out[%i] : memref<135168xf32>
    gpu.return
  }
}

// -----

// Bug: one block more than the 132 SMs hold.
// expected-error-re @+2 {{[AMK-RES-OCCUPANCY] the cooperative kernel's 133 blocks must all be resident at once, but 'h200' holds 132 (1 per SM of 1024 threads, 64 registers per thread, limited by {{.*}})}}
gpu.module @m {
  gpu.func @one_too_many(%data: memref<136192xf32>, %out: memref<136192xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, nvvm.maxnreg = 64 : i32, known_block_size = array<i32: 1024, 1, 1>, known_grid_size = array<i32: 133, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 133 : index
    %c256 = arith.constant 1024 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 133 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    memref.store %f, %data[%i] : memref<136192xf32>
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
    %x = memref.load %data[%j] : memref<136192xf32>
    memref.store %x, %out[%i] : memref<136192xf32>
    gpu.return
  }
}

// -----

// Unprovable: no nvvm.maxnreg, so a thread may take 255 registers: then
// 2 blocks of 128 threads fit per SM, 264 in all, not 300.
// expected-error-re @+2 {{[AMK-UNPROVABLE] the cooperative kernel's 300 blocks must all be resident at once, but 'h200' holds 264 (2 per SM of 128 threads, 255 registers per thread at most: set nvvm.maxnreg to prove less, limited by registers)}}
gpu.module @m {
  gpu.func @unbounded_registers(%data: memref<38400xf32>, %out: memref<38400xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 300, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 300 : index
    %c256 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 300 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    memref.store %f, %data[%i] : memref<38400xf32>
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
    %x = memref.load %data[%j] : memref<38400xf32>
    memref.store %x, %out[%i] : memref<38400xf32>
    gpu.return
  }
}

// -----

// Twin: the same at 64 registers (7 blocks per SM fit).
gpu.module @m {
  gpu.func @bounded_registers(%data: memref<38400xf32>, %out: memref<38400xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, nvvm.maxnreg = 64 : i32, known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 300, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 300 : index
    %c256 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 300 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    memref.store %f, %data[%i] : memref<38400xf32>
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
    %x = memref.load %data[%j] : memref<38400xf32>
    memref.store %x, %out[%i] : memref<38400xf32>
    gpu.return
  }
}
