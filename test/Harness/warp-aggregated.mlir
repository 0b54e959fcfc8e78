// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-verify --verify-diagnostics
// Warp-aggregated atomics (WarpAggregation.cpp): a leader lane takes a run
// of slots for the warp's lanes that vote true and shuffles its start to
// them; each writes at the start plus its rank among them. The checks see
// a slot of one per such lane (SlotCounters). Each planted bug next to its
// correct twin; a take of another form is not a slot, so its writes are
// unprovable (and, across blocks, a race), never silent.

// SANITIZE: tool=run,memcheck args=f32[4096],f32[4096],i32[1]@zero
// Twin: the leader is the lowest lane whose value is kept (cttz of the
// ballot); it takes a run of popcount(mask) slots, shuffles its start to
// the warp, and each kept lane writes at the start plus its rank (the kept
// lanes below it, by (1 << lane) - 1). 4096 threads keep at most 4096.
gpu.module @m {
  gpu.func @compact_warp(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %full = arith.constant -1 : i32
    %zero_i = arith.constant 0 : i32
    %one_i = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    %lane = gpu.lane_id
    %lane32 = arith.index_cast %lane : index to i32
    %mask = nvvm.vote.sync ballot %full, %keep -> i32
    %n = math.ctpop %mask : i32
    %leader = math.cttz %mask : i32
    %isLeader = arith.cmpi eq, %lane32, %leader : i32
    %got = scf.if %isLeader -> i32 {
      %old = memref.atomic_rmw addi %n, %count[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %old : i32
    } else {
      scf.yield %zero_i : i32
    }
    %first, %valid = gpu.shuffle idx %got, %leader, %width : i32
    %bit = arith.shli %one_i, %lane32 : i32
    %lt = arith.subi %bit, %one_i : i32
    %below = arith.andi %mask, %lt : i32
    %rank = math.ctpop %below : i32
    %slot = arith.addi %first, %rank : i32
    scf.if %keep {
      %s = arith.index_cast %slot : i32 to index
      memref.store %v, %out[%s] : memref<4096xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=f32[4096],f32[4096],i32[1]@zero
// Twin: lane 0 leads whatever it keeps (the whole warp votes), the lane
// is the thread id's low five bits and the lanes below come from
// %lanemask_lt.
gpu.module @m {
  gpu.func @compact_warp_lane0(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %full = arith.constant -1 : i32
    %zero_i = arith.constant 0 : i32
    %one_i = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    %c31 = arith.constant 31 : index
    %lanex = arith.andi %tid, %c31 : index
    %lane32 = arith.index_cast %lanex : index to i32
    %mask = nvvm.vote.sync ballot %full, %keep -> i32
    %n = math.ctpop %mask : i32
    %leader = arith.constant 0 : i32
    %isLeader = arith.cmpi eq, %lane32, %leader : i32
    %got = scf.if %isLeader -> i32 {
      %old = memref.atomic_rmw addi %n, %count[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %old : i32
    } else {
      scf.yield %zero_i : i32
    }
    %first, %valid = gpu.shuffle idx %got, %zero_i, %width : i32
    %lt = nvvm.read.ptx.sreg.lanemask.lt : i32
    %below = arith.andi %mask, %lt : i32
    %rank = math.ctpop %below : i32
    %slot = arith.addi %first, %rank : i32
    scf.if %keep {
      %s = arith.index_cast %slot : i32 to index
      memref.store %v, %out[%s] : memref<4096xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=f32[4096],f32[4000],i32[1]@zero
// Bug: %out holds 4000 values, but up to 4096 lanes take a slot.
gpu.module @m {
  gpu.func @compact_warp_short(%in: memref<4096xf32>, %out: memref<4000xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %full = arith.constant -1 : i32
    %zero_i = arith.constant 0 : i32
    %one_i = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    %lane = gpu.lane_id
    %lane32 = arith.index_cast %lane : index to i32
    %mask = nvvm.vote.sync ballot %full, %keep -> i32
    %n = math.ctpop %mask : i32
    %leader = math.cttz %mask : i32
    %isLeader = arith.cmpi eq, %lane32, %leader : i32
    %got = scf.if %isLeader -> i32 {
      %old = memref.atomic_rmw addi %n, %count[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %old : i32
    } else {
      scf.yield %zero_i : i32
    }
    %first, %valid = gpu.shuffle idx %got, %leader, %width : i32
    %bit = arith.shli %one_i, %lane32 : i32
    %lt = arith.subi %bit, %one_i : i32
    %below = arith.andi %mask, %lt : i32
    %rank = math.ctpop %below : i32
    %slot = arith.addi %first, %rank : i32
    scf.if %keep {
      %s = arith.index_cast %slot : i32 to index
      // expected-error @+1 {{may leave the buffer in dimension 0: index: its range [0, 4095] + 1 exceeds 4000}}
      memref.store %v, %out[%s] : memref<4000xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=f32[4096],f32[4096],i32[1]@zero
// Bug: no rank: every kept lane of a warp writes at the run's start (in
// bounds: memcheck sees nothing). Not the take's form: the shuffled value
// is no slot the checks model.
gpu.module @m {
  gpu.func @compact_warp_no_rank(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %full = arith.constant -1 : i32
    %zero_i = arith.constant 0 : i32
    %one_i = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    %lane = gpu.lane_id
    %lane32 = arith.index_cast %lane : index to i32
    %mask = nvvm.vote.sync ballot %full, %keep -> i32
    %n = math.ctpop %mask : i32
    %leader = math.cttz %mask : i32
    %isLeader = arith.cmpi eq, %lane32, %leader : i32
    %got = scf.if %isLeader -> i32 {
      %old = memref.atomic_rmw addi %n, %count[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %old : i32
    } else {
      scf.yield %zero_i : i32
    }
    %first, %valid = gpu.shuffle idx %got, %leader, %width : i32
    %bit = arith.shli %one_i, %lane32 : i32
    %lt = arith.subi %bit, %one_i : i32
    %below = arith.andi %mask, %lt : i32
    %rank = math.ctpop %below : i32
    %slot = arith.addi %first, %zero_i : i32
    scf.if %keep {
      %s = arith.index_cast %slot : i32 to index
      // expected-error @+3 {{index: it can be negative (-2147483648)}}
      // expected-error @+2 {{differs between threads in a way the check does not model}}
      // expected-error @+1 {{races with itself in another block on kernel argument #1}}
      memref.store %v, %out[%s] : memref<4096xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=f32[4096],f32[4096],i32[1]@zero
// Bug: the leader adds 1, not the warp's count: the next warp's run
// starts inside this one.
gpu.module @m {
  gpu.func @compact_warp_adds_one(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %full = arith.constant -1 : i32
    %zero_i = arith.constant 0 : i32
    %one_i = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    %lane = gpu.lane_id
    %lane32 = arith.index_cast %lane : index to i32
    %mask = nvvm.vote.sync ballot %full, %keep -> i32
    %n = math.ctpop %mask : i32
    %leader = math.cttz %mask : i32
    %isLeader = arith.cmpi eq, %lane32, %leader : i32
    %got = scf.if %isLeader -> i32 {
      %old = memref.atomic_rmw addi %one_i, %count[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %old : i32
    } else {
      scf.yield %zero_i : i32
    }
    %first, %valid = gpu.shuffle idx %got, %leader, %width : i32
    %bit = arith.shli %one_i, %lane32 : i32
    %lt = arith.subi %bit, %one_i : i32
    %below = arith.andi %mask, %lt : i32
    %rank = math.ctpop %below : i32
    %slot = arith.addi %first, %rank : i32
    scf.if %keep {
      %s = arith.index_cast %slot : i32 to index
      // expected-error @+3 {{index: it can be negative (-2147483648)}}
      // expected-error @+2 {{differs between threads in a way the check does not model}}
      // expected-error @+1 {{races with itself in another block on kernel argument #1}}
      memref.store %v, %out[%s] : memref<4096xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=f32[4096],f32[4096],i32[1]@zero
// Bug: every lane writes, kept or not: a lane that keeps nothing writes
// at the rank of the next kept lane.
gpu.module @m {
  gpu.func @compact_warp_unguarded(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %full = arith.constant -1 : i32
    %zero_i = arith.constant 0 : i32
    %one_i = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    %lane = gpu.lane_id
    %lane32 = arith.index_cast %lane : index to i32
    %mask = nvvm.vote.sync ballot %full, %keep -> i32
    %n = math.ctpop %mask : i32
    %leader = math.cttz %mask : i32
    %isLeader = arith.cmpi eq, %lane32, %leader : i32
    %got = scf.if %isLeader -> i32 {
      %old = memref.atomic_rmw addi %n, %count[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %old : i32
    } else {
      scf.yield %zero_i : i32
    }
    %first, %valid = gpu.shuffle idx %got, %leader, %width : i32
    %bit = arith.shli %one_i, %lane32 : i32
    %lt = arith.subi %bit, %one_i : i32
    %below = arith.andi %mask, %lt : i32
    %rank = math.ctpop %below : i32
    %slot = arith.addi %first, %rank : i32
    %s = arith.index_cast %slot : i32 to index
    // expected-error @+3 {{index: it can be negative (-2147483648)}}
    // expected-error @+2 {{differs between threads in a way the check does not model}}
    // expected-error @+1 {{races with itself in another block on kernel argument #1}}
    memref.store %v, %out[%s] : memref<4096xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck expect=clean args=f32[4096],f32[4096],i32[1]@zero
// Bug: the start is shuffled from lane 0, the leader is the lowest kept
// lane: where lane 0 keeps nothing its 0 is every lane's start.
gpu.module @m {
  gpu.func @compact_warp_wrong_source(%in: memref<4096xf32>, %out: memref<4096xf32>, %count: memref<1xi32> {amk.counter}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %full = arith.constant -1 : i32
    %zero_i = arith.constant 0 : i32
    %one_i = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %in[%i] : memref<4096xf32>
    %keep = arith.cmpf oge, %v, %zero : f32
    %lane = gpu.lane_id
    %lane32 = arith.index_cast %lane : index to i32
    %mask = nvvm.vote.sync ballot %full, %keep -> i32
    %n = math.ctpop %mask : i32
    %leader = math.cttz %mask : i32
    %isLeader = arith.cmpi eq, %lane32, %leader : i32
    %got = scf.if %isLeader -> i32 {
      %old = memref.atomic_rmw addi %n, %count[%c0] : (i32, memref<1xi32>) -> i32
      scf.yield %old : i32
    } else {
      scf.yield %zero_i : i32
    }
    %first, %valid = gpu.shuffle idx %got, %zero_i, %width : i32
    %bit = arith.shli %one_i, %lane32 : i32
    %lt = arith.subi %bit, %one_i : i32
    %below = arith.andi %mask, %lt : i32
    %rank = math.ctpop %below : i32
    %slot = arith.addi %first, %rank : i32
    scf.if %keep {
      %s = arith.index_cast %slot : i32 to index
      // expected-error @+3 {{index: it can be negative (-2147483648)}}
      // expected-error @+2 {{differs between threads in a way the check does not model}}
      // expected-error @+1 {{races with itself in another block on kernel argument #1}}
      memref.store %v, %out[%s] : memref<4096xf32>
    }
    gpu.return
  }
}
