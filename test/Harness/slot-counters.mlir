// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-verify --verify-diagnostics
// Slot counters (SlotCounters.cpp): a thread takes a slot with an atomic
// add on a counter that nothing else touches and writes there. Two slots of
// one counter element differ, at least the first one's add apart, and a
// counter the launch zeroes (`amk.counter`) hands out slots below the sum
// of the launch's adds. Each planted bug next to its correct twin.

// SANITIZE: tool=run,memcheck args=f32[4096],f32[4096],i32[1]@zero
// Twin: stream compaction. Every thread whose value is not negative takes a
// slot from %count (zeroed by the launch) and writes its value there. The
// counts an element returns are all distinct, so no two writes meet; 16 x
// 256 threads take at most 4096 slots, all inside %out.
gpu.module @m {
  gpu.func @compact(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    scf.if %keep {
      %slot = memref.atomic_rmw addi %one, %count[%c0] : (i32, memref<1xi32>) -> i32
      %s = arith.index_cast %slot : i32 to index
      memref.store %v, %out[%s] : memref<4096xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=f32[4096],f32[4000],i32[1]@zero
// Bug: %out holds 4000 values, but up to 4096 threads take a slot.
gpu.module @m {
  gpu.func @compact_short(%in: memref<4096xf32>, %out: memref<4000xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    scf.if %keep {
      %slot = memref.atomic_rmw addi %one, %count[%c0] : (i32, memref<1xi32>) -> i32
      %s = arith.index_cast %slot : i32 to index
      // expected-error @+1 {{may leave the buffer in dimension 0: index: its range [0, 4095] + 1 exceeds 4000}}
      memref.store %v, %out[%s] : memref<4000xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=f32[4096],f32[4096],i32[1]@zero
// Bug: the slot plus one: the last slot's write lands past %out (every
// value is kept here, so memcheck sees it).
gpu.module @m {
  gpu.func @compact_shifted(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    scf.if %keep {
      %slot = memref.atomic_rmw addi %one, %count[%c0] : (i32, memref<1xi32>) -> i32
      %s = arith.index_cast %slot : i32 to index
      %s1 = arith.addi %s, %c1 : index
      // expected-error @+1 {{may leave the buffer in dimension 0: index: its range [1, 4096] + 1 exceeds 4096}}
      memref.store %v, %out[%s1] : memref<4096xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=f32[4096],f32[4096],i32[1]@zero
// Bug: the counter is not marked `amk.counter`: nothing says the launch
// zeroes it, so its slots may start anywhere (the launch zeroes it here:
// memcheck sees nothing).
gpu.module @m {
  gpu.func @compact_unmarked(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    scf.if %keep {
      %slot = memref.atomic_rmw addi %one, %count[%c0] : (i32, memref<1xi32>) -> i32
      %s = arith.index_cast %slot : i32 to index
      // expected-error @+1 {{may leave the buffer in dimension 0: index: it can be negative}}
      memref.store %v, %out[%s] : memref<4096xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=f32[4096],f32[4096],i32[16]@zero
// Bug: a counter element per block: slots of different blocks repeat, so
// their writes meet (the slots of one element differ, those of two
// elements need not; no sanitizer sees a race between blocks).
gpu.module @m {
  gpu.func @compact_per_block(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<16xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    scf.if %keep {
      %slot = memref.atomic_rmw addi %one, %count[%bid] : (i32, memref<16xi32>) -> i32
      %s = arith.index_cast %slot : i32 to index
      // expected-error @+1 {{races with itself in another block}}
      memref.store %v, %out[%s] : memref<4096xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[4096],f32[16384],i32[1]@zero
// Twin: each kept value reserves four slots at once (an add of 4) and
// fills them: two reservations lie at least 4 apart, so no two writes meet.
gpu.module @m {
  gpu.func @compact_chunks(%in: memref<4096xf32>, %out: memref<16384xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %four = arith.constant 4 : i32
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    scf.if %keep {
      %slot = memref.atomic_rmw addi %four, %count[%c0] : (i32, memref<1xi32>) -> i32
      %s = arith.index_cast %slot : i32 to index
      scf.for %j = %c0 to %c4 step %c1 {
        %at = arith.addi %s, %j : index
        memref.store %v, %out[%at] : memref<16384xf32>
      }
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=f32[4096],f32[16384],i32[1]@zero
// Bug: it reserves four slots but fills five: the fifth is the next
// reservation's first, and past %out for the last one (every value is
// kept here, so memcheck sees that).
gpu.module @m {
  gpu.func @compact_chunks_overrun(%in: memref<4096xf32>, %out: memref<16384xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %four = arith.constant 4 : i32
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    scf.if %keep {
      %slot = memref.atomic_rmw addi %four, %count[%c0] : (i32, memref<1xi32>) -> i32
      %s = arith.index_cast %slot : i32 to index
      scf.for %j = %c0 to %c5 step %c1 {
        %at = arith.addi %s, %j : index
        // expected-error @+3 {{may leave the buffer in dimension 0: index: its range [0, 16384] + 1 exceeds 16384}}
        // expected-error @+2 {{the race check within a block gave up}}
        // expected-error @+1 {{races with itself in another block}}
        memref.store %v, %out[%at] : memref<16384xf32>
      }
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[4096],f32[4096],i32[1]@zero
// Twin: a block's reservation: thread 0 takes 256 slots for the block and
// shares the first through shared memory; each thread writes its own. Two
// blocks' reservations lie at least 256 apart, and 16 of them fit %out.
gpu.module @m {
  gpu.func @reserve_block(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) workgroup(%base: memref<1xi32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 256 : i32
    %blockStart = arith.muli %bid, %c256 : index
    %i = arith.addi %blockStart, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %slot = memref.atomic_rmw addi %n, %count[%c0] : (i32, memref<1xi32>) -> i32
      memref.store %slot, %base[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %b = memref.load %base[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
    %bi = arith.index_cast %b : i32 to index
    %at = arith.addi %bi, %tid : index
    memref.store %v, %out[%at] : memref<4096xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=f32[4096],f32[4096],i32[1]@zero
// Bug: the block reserves 128 slots for its 256 threads: the upper half
// writes into the next block's reservation (no sanitizer sees a race
// between blocks).
gpu.module @m {
  gpu.func @reserve_block_short(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) workgroup(%base: memref<1xi32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 128 : i32
    %blockStart = arith.muli %bid, %c256 : index
    %i = arith.addi %blockStart, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %slot = memref.atomic_rmw addi %n, %count[%c0] : (i32, memref<1xi32>) -> i32
      memref.store %slot, %base[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %b = memref.load %base[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
    %bi = arith.index_cast %b : i32 to index
    %at = arith.addi %bi, %tid : index
    // expected-error @+1 {{races with itself in another block}}
    memref.store %v, %out[%at] : memref<4096xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=f32[4096],f32[4096],i32[1]@zero
// Bug: block 0 skips the reservation and reads what its shared memory
// held (the launch's first block may see zero there and overwrite block
// 1's slots, or any value).
gpu.module @m {
  gpu.func @reserve_block_skipped(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) workgroup(%base: memref<1xi32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 256 : i32
    %blockStart = arith.muli %bid, %c256 : index
    %i = arith.addi %blockStart, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %first = arith.cmpi eq, %tid, %c0 : index
    %notFirstBlock = arith.cmpi ugt, %bid, %c0 : index
    %take = arith.andi %first, %notFirstBlock : i1
    scf.if %take {
      %slot = memref.atomic_rmw addi %n, %count[%c0] : (i32, memref<1xi32>) -> i32
      memref.store %slot, %base[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %b = memref.load %base[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
    %bi = arith.index_cast %b : i32 to index
    %at = arith.addi %bi, %tid : index
    // expected-error @+2 {{may leave the buffer in dimension 0: index: it can be negative}}
    // expected-error @+1 {{races with itself in another block}}
    memref.store %v, %out[%at] : memref<4096xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[4096],f32[4096],i32[1]@zero
// Twin: a work queue. Every thread takes items from %next until they run
// out (`while (t < 4096) { ...; t = atomic add }`): every run of the body
// has an item of its own, below 4096.
gpu.module @m {
  gpu.func @work_queue(%in: memref<4096xf32>, %out: memref<4096xf32>, %next: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 132, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 4096 : i32
    %t0 = memref.atomic_rmw addi %one, %next[%c0] : (i32, memref<1xi32>) -> i32
    %r = scf.while (%t = %t0) : (i32) -> i32 {
      %more = arith.cmpi slt, %t, %n : i32
      scf.condition(%more) %t : i32
    } do {
    ^bb0(%t: i32):
      %i = arith.index_cast %t : i32 to index
      %v = memref.load %in[%i] : memref<4096xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %out[%i] : memref<4096xf32>
      %tn = memref.atomic_rmw addi %one, %next[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %tn : i32
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=f32[4096],f32[4096],i32[1]@zero
// Bug: the queue runs to 4097: the last item's load and store lie past the
// buffers.
gpu.module @m {
  gpu.func @work_queue_long(%in: memref<4096xf32>, %out: memref<4096xf32>, %next: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 132, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 4097 : i32
    %t0 = memref.atomic_rmw addi %one, %next[%c0] : (i32, memref<1xi32>) -> i32
    %r = scf.while (%t = %t0) : (i32) -> i32 {
      %more = arith.cmpi slt, %t, %n : i32
      scf.condition(%more) %t : i32
    } do {
    ^bb0(%t: i32):
      %i = arith.index_cast %t : i32 to index
      // expected-error @+1 {{may leave the buffer in dimension 0}}
      %v = memref.load %in[%i] : memref<4096xf32>
      %w = arith.mulf %v, %v : f32
      // expected-error @+1 {{may leave the buffer in dimension 0}}
      memref.store %w, %out[%i] : memref<4096xf32>
      %tn = memref.atomic_rmw addi %one, %next[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %tn : i32
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=f32[4096],f32[4096],i32[1]@zero
// Bug: every item's result goes to %out[0]: two runs of the body, in any
// two threads or blocks, write it (no sanitizer sees a race between
// blocks).
gpu.module @m {
  gpu.func @work_queue_one_slot(%in: memref<4096xf32>, %out: memref<4096xf32>, %next: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 132, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 4096 : i32
    %t0 = memref.atomic_rmw addi %one, %next[%c0] : (i32, memref<1xi32>) -> i32
    %r = scf.while (%t = %t0) : (i32) -> i32 {
      %more = arith.cmpi slt, %t, %n : i32
      scf.condition(%more) %t : i32
    } do {
    ^bb0(%t: i32):
      %i = arith.index_cast %t : i32 to index
      %v = memref.load %in[%i] : memref<4096xf32>
      %w = arith.mulf %v, %v : f32
      // expected-error @+2 {{races with itself in another block}}
      // expected-error @+1 {{writes the same element in every thread that runs it}}
      memref.store %w, %out[%c0] : memref<4096xf32>
      %tn = memref.atomic_rmw addi %one, %next[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %tn : i32
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=f32[4096],f32[4096],i32[1]@zero
// Bug: the queue's counter is not marked `amk.counter`: its first item may
// be any count (the launch zeroes it here: memcheck sees nothing).
gpu.module @m {
  gpu.func @work_queue_unmarked(%in: memref<4096xf32>, %out: memref<4096xf32>, %next: memref<1xi32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 132, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 4096 : i32
    %t0 = memref.atomic_rmw addi %one, %next[%c0] : (i32, memref<1xi32>) -> i32
    %r = scf.while (%t = %t0) : (i32) -> i32 {
      %more = arith.cmpi slt, %t, %n : i32
      scf.condition(%more) %t : i32
    } do {
    ^bb0(%t: i32):
      %i = arith.index_cast %t : i32 to index
      // expected-error @+1 {{it can be negative}}
      %v = memref.load %in[%i] : memref<4096xf32>
      %w = arith.mulf %v, %v : f32
      // expected-error @+3 {{it can be negative}}
      // expected-error @+2 {{the race check within a block gave up}}
      // expected-error @+1 {{races with itself in another block}}
      memref.store %w, %out[%i] : memref<4096xf32>
      %tn = memref.atomic_rmw addi %one, %next[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %tn : i32
    }
    gpu.return
  }
}

// -----

// Bug: a barrier in the queue's body: threads run the body different
// numbers of times, so the barrier waits for threads that left. The loop is
// not checked as a work queue then: the barrier is divergent, and the
// accesses in the loop are not modelled.
gpu.module @m {
  gpu.func @work_queue_barrier(%in: memref<4096xf32>, %out: memref<4096xf32>, %next: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 132, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 4096 : i32
    %t0 = memref.atomic_rmw addi %one, %next[%c0] : (i32, memref<1xi32>) -> i32
    // expected-error @+1 {{a loop that is not an scf.for}}
    %r = scf.while (%t = %t0) : (i32) -> i32 {
      %more = arith.cmpi slt, %t, %n : i32
      scf.condition(%more) %t : i32
    } do {
    ^bb0(%t: i32):
      %i = arith.index_cast %t : i32 to index
      // expected-error @+1 {{it can be negative}}
      %v = memref.load %in[%i] : memref<4096xf32>
      %w = arith.mulf %v, %v : f32
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT]}}
      gpu.barrier
      // expected-error @+3 {{it can be negative}}
      // expected-error @+2 {{'scf.while' around an access is not modelled}}
      // expected-error @+1 {{races with itself in another block}}
      memref.store %w, %out[%i] : memref<4096xf32>
      %tn = memref.atomic_rmw addi %one, %next[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %tn : i32
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=i32[4096],i32[4096],i32[16]@zero
// Twin: binning. Each value takes a slot of its bucket's counter (the
// element varies with the data) and, while the bucket's row of 256 has
// room, lands there: slots of one bucket differ, and different buckets
// own different rows.
gpu.module @m {
  gpu.func @bucket(%in: memref<4096xi32>, %out: memref<4096xi32>, %count: memref<16xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c16 = arith.constant 16 : i32
    %cap = arith.constant 256 : i32
    %one = arith.constant 1 : i32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xi32>
    %b32 = arith.remui %v, %c16 : i32
    %b = arith.index_cast %b32 : i32 to index
    %pos = memref.atomic_rmw addi %one, %count[%b] : (i32, memref<16xi32>) -> i32
    %fits = arith.cmpi ult, %pos, %cap : i32
    scf.if %fits {
      %p = arith.index_cast %pos : i32 to index
      %row = arith.muli %b, %c256 : index
      %at = arith.addi %row, %p : index
      memref.store %v, %out[%at] : memref<4096xi32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=i32[4096],i32[4096],i32[16]@zero
// Bug: rows of 128 for buckets of up to 256: bucket b's upper half is
// bucket b + 1's lower half (no sanitizer sees these races).
gpu.module @m {
  gpu.func @bucket_rows_short(%in: memref<4096xi32>, %out: memref<4096xi32>, %count: memref<16xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c16 = arith.constant 16 : i32
    %cap = arith.constant 256 : i32
    %one = arith.constant 1 : i32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xi32>
    %b32 = arith.remui %v, %c16 : i32
    %b = arith.index_cast %b32 : i32 to index
    %pos = memref.atomic_rmw addi %one, %count[%b] : (i32, memref<16xi32>) -> i32
    %fits = arith.cmpi ult, %pos, %cap : i32
    scf.if %fits {
      %p = arith.index_cast %pos : i32 to index
      %c128 = arith.constant 128 : index
      %row = arith.muli %b, %c128 : index
      %at = arith.addi %row, %p : index
      // expected-error @+2 {{races with itself in another block}}
      // expected-error @+1 {{the race check within a block gave up}}
      memref.store %v, %out[%at] : memref<4096xi32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=i32[4096],i32[4096],i32[16]@zero
// Bug: no room check: a full bucket spills into the next rows and past
// %out (with these inputs the spill stays inside %out: memcheck sees
// nothing).
gpu.module @m {
  gpu.func @bucket_unguarded(%in: memref<4096xi32>, %out: memref<4096xi32>, %count: memref<16xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c16 = arith.constant 16 : i32
    %cap = arith.constant 256 : i32
    %one = arith.constant 1 : i32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xi32>
    %b32 = arith.remui %v, %c16 : i32
    %b = arith.index_cast %b32 : i32 to index
    %pos = memref.atomic_rmw addi %one, %count[%b] : (i32, memref<16xi32>) -> i32
    %p = arith.index_cast %pos : i32 to index
    %row = arith.muli %b, %c256 : index
    %at = arith.addi %row, %p : index
    // expected-error @+3 {{may leave the buffer in dimension 0}}
    // expected-error @+2 {{races with itself in another block}}
    // expected-error @+1 {{the race check within a block gave up}}
    memref.store %v, %out[%at] : memref<4096xi32>
    gpu.return
  }
}
