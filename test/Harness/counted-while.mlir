// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// While loops over a value the harness can count (a constant start, a
// comparison with a constant, a constant shift or power-of-two step, at
// most 64 iterations), as kernels written elsewhere spell a tree
// reduction's `for (s = 128; s > 0; s >>= 1)` or a scan's `for (d = 1; d <
// 256; d <<= 1)`, and strided ones (a grid-stride `for (i = start; i < n;
// i += stride)`, the bound and a positive stride defined before the loop):
// the checks see them as the scf.for over their iterations. Each planted
// bug next to its correct twin.

// SANITIZE: tool=racecheck,memcheck grid=64 args=f32[16384],f32[64]
// Twin: a tree reduction in shared memory, halving while s > 0.
gpu.module @m {
  gpu.func @tree(%in: memref<16384xf32>, %out: memref<64xf32>) workgroup(%sm : memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %x = memref.load %in[%i] : memref<16384xf32>
    memref.store %x, %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = scf.while (%s = %c128) : (index) -> index {
      %go = arith.cmpi ugt, %s, %c0 : index
      scf.condition(%go) %s : index
    } do {
    ^bb0(%s: index):
      %lt = arith.cmpi ult, %tid, %s : index
      scf.if %lt {
        %j = arith.addi %tid, %s : index
        %a = memref.load %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
        %b = memref.load %sm[%j] : memref<256xf32, #gpu.address_space<workgroup>>
        %c = arith.addf %a, %b : f32
        memref.store %c, %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %n = arith.shrui %s, %c1 : index
      scf.yield %n : index
    }
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %v = memref.load %sm[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%bid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck grid=64 args=f32[16384],f32[64]
// Bug: no barrier between the steps: a thread reads sm[tid + s] while the
// thread that owns it still adds into it.
gpu.module @m {
  gpu.func @tree_no_barrier(%in: memref<16384xf32>, %out: memref<64xf32>) workgroup(%sm : memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %x = memref.load %in[%i] : memref<16384xf32>
    memref.store %x, %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = scf.while (%s = %c128) : (index) -> index {
      %go = arith.cmpi ugt, %s, %c0 : index
      scf.condition(%go) %s : index
    } do {
    ^bb0(%s: index):
      %lt = arith.cmpi ult, %tid, %s : index
      scf.if %lt {
        %j = arith.addi %tid, %s : index
        %a = memref.load %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them (write-read, threads {{[0-9]+}} and {{[0-9]+}}, byte {{[0-9]+}})}}
        %b = memref.load %sm[%j] : memref<256xf32, #gpu.address_space<workgroup>>
        %c = arith.addf %a, %b : f32
        memref.store %c, %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      }
      %n = arith.shrui %s, %c1 : index
      scf.yield %n : index
    }
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %v = memref.load %sm[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%bid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck grid=64 args=f32[16384],f32[64]
// Bug: the first step is 256, a whole block: sm[tid + 256] is past the
// buffer.
gpu.module @m {
  gpu.func @tree_too_wide(%in: memref<16384xf32>, %out: memref<64xf32>) workgroup(%sm : memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %x = memref.load %in[%i] : memref<16384xf32>
    memref.store %x, %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = scf.while (%s = %c256) : (index) -> index {
      %go = arith.cmpi ugt, %s, %c0 : index
      scf.condition(%go) %s : index
    } do {
    ^bb0(%s: index):
      %lt = arith.cmpi ult, %tid, %s : index
      scf.if %lt {
        %j = arith.addi %tid, %s : index
        %a = memref.load %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
        // expected-error @+1 {{[AMK-OOB] load of memref<256xf32, #gpu.address_space<workgroup>> may leave the buffer in dimension 0: index: its range [1, 511] + 1 exceeds 256}}
        %b = memref.load %sm[%j] : memref<256xf32, #gpu.address_space<workgroup>>
        %c = arith.addf %a, %b : f32
        memref.store %c, %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %n = arith.shrui %s, %c1 : index
      scf.yield %n : index
    }
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %v = memref.load %sm[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%bid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck,memcheck grid=64 args=f32[16384],f32[16384]
// Twin: a scan (Hillis-Steele, double buffered by barriers): doubling
// while d < 256, each thread at or past d reads the element d before it.
gpu.module @m {
  gpu.func @scan(%in: memref<16384xf32>, %out: memref<16384xf32>) workgroup(%sm : memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %x = memref.load %in[%i] : memref<16384xf32>
    memref.store %x, %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = scf.while (%d = %c1) : (index) -> index {
      %go = arith.cmpi ult, %d, %c256 : index
      scf.condition(%go) %d : index
    } do {
    ^bb0(%d: index):
      %ge = arith.cmpi uge, %tid, %d : index
      %add = scf.if %ge -> f32 {
        %j = arith.subi %tid, %d : index
        %b = memref.load %sm[%j] : memref<256xf32, #gpu.address_space<workgroup>>
        scf.yield %b : f32
      } else {
        scf.yield %zero : f32
      }
      gpu.barrier
      %a = memref.load %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      %c = arith.addf %a, %add : f32
      memref.store %c, %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %n = arith.shli %d, %c1 : index
      scf.yield %n : index
    }
    %v = memref.load %sm[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%i] : memref<16384xf32>
    gpu.return
  }
}

// -----

// Not counted (the harness leaves it unmodelled, and says so): halving
// until s == 3 never stops (128, 64, ..., 1, 0, 0, ...).
gpu.module @m {
  gpu.func @never_stops(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %c3 = arith.constant 3 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    // expected-error-re @+1 {{[AMK-UNPROVABLE] a loop that is not an scf.for ('scf.while' at line {{[0-9]+}}, or branches with a back edge) is not modelled{{.*}}}}
    %r = scf.while (%s = %c128) : (index) -> index {
      %go = arith.cmpi ne, %s, %c3 : index
      scf.condition(%go) %s : index
    } do {
    ^bb0(%s: index):
      memref.store %one, %out[%tid] : memref<256xf32>
      %n = arith.shrui %s, %c1 : index
      scf.yield %n : index
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck grid=32 args=f32[8192],f32[256]
// Twin: a warp's sum by shuffles down, halving the offset while it is
// positive, the sum carried through the loop: every lane shuffles in
// every iteration.
gpu.module @m {
  gpu.func @warp_sum(%in: memref<8192xf32>, %out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 32, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : i32
    %c0i = arith.constant 0 : i32
    %c1i = arith.constant 1 : i32
    %w = arith.constant 32 : i32
    %c0 = arith.constant 0 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %x = memref.load %in[%i] : memref<8192xf32>
    %r:2 = scf.while (%off = %c16, %acc = %x) : (i32, f32) -> (i32, f32) {
      %go = arith.cmpi sgt, %off, %c0i : i32
      scf.condition(%go) %off, %acc : i32, f32
    } do {
    ^bb0(%off: i32, %acc: f32):
      %s, %valid = gpu.shuffle down %acc, %off, %w : f32
      %sum = arith.addf %acc, %s : f32
      %n = arith.shrui %off, %c1i : i32
      scf.yield %n, %sum : i32, f32
    }
    %lane = arith.remui %tid, %c32 : index
    %first = arith.cmpi eq, %lane, %c0 : index
    scf.if %first {
      %wi = arith.divui %i, %c32 : index
      memref.store %r#1, %out[%wi] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the same, but only the lower half of each warp shuffles (the upper
// lanes' values are what the lower ones read).
gpu.module @m {
  gpu.func @warp_sum_half(%in: memref<8192xf32>, %out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 32, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c32 = arith.constant 32 : index
    %c16x = arith.constant 16 : index
    %c16 = arith.constant 16 : i32
    %c0i = arith.constant 0 : i32
    %c1i = arith.constant 1 : i32
    %w = arith.constant 32 : i32
    %c0 = arith.constant 0 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %x = memref.load %in[%i] : memref<8192xf32>
    %lane = arith.remui %tid, %c32 : index
    %low = arith.cmpi ult, %lane, %c16x : index
    %r:2 = scf.while (%off = %c16, %acc = %x) : (i32, f32) -> (i32, f32) {
      %go = arith.cmpi sgt, %off, %c0i : i32
      scf.condition(%go) %off, %acc : i32, f32
    } do {
    ^bb0(%off: i32, %acc: f32):
      %sum = scf.if %low -> f32 {
        // expected-error-re @+1 {{[AMK-CONVERGENCE] warp-level 'gpu.shuffle' at line {{[0-9]+}} is under control that can differ within a warp{{.*}}}}
        %s, %valid = gpu.shuffle down %acc, %off, %w : f32
        %t = arith.addf %acc, %s : f32
        scf.yield %t : f32
      } else {
        scf.yield %acc : f32
      }
      %n = arith.shrui %off, %c1i : i32
      scf.yield %n, %sum : i32, f32
    }
    %first = arith.cmpi eq, %lane, %c0 : index
    scf.if %first {
      %wi = arith.divui %i, %c32 : index
      memref.store %r#1, %out[%wi] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck grid=8 args=f32[3000],f32[3000],f32=2
// Twin: saxpy with a grid-stride while loop, bounded by the smaller of the
// two sizes.
gpu.module @m {
  gpu.func @saxpy_while(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %bd = gpu.block_dim x
    %gd = gpu.grid_dim x
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %ny = memref.dim %y, %c0 : memref<?xf32>
    %m = arith.minui %n, %ny : index
    %s0 = arith.muli %bid, %bd : index
    %start = arith.addi %s0, %tid : index
    %stride = arith.muli %gd, %bd : index
    %r = scf.while (%i = %start) : (index) -> index {
      %go = arith.cmpi ult, %i, %m : index
      scf.condition(%go) %i : index
    } do {
    ^bb0(%i: index):
      %xv = memref.load %x[%i] : memref<?xf32>
      %yv = memref.load %y[%i] : memref<?xf32>
      %p = arith.mulf %a, %xv : f32
      %s = arith.addf %p, %yv : f32
      memref.store %s, %y[%i] : memref<?xf32>
      %n2 = arith.addi %i, %stride : index
      scf.yield %n2 : index
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck grid=8 args=f32[3000],f32[2000],f32=2
// Bug: bounded by the larger size: the loop runs past the smaller buffer.
gpu.module @m {
  gpu.func @saxpy_while_past(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %bd = gpu.block_dim x
    %gd = gpu.grid_dim x
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %ny = memref.dim %y, %c0 : memref<?xf32>
    %m = arith.maxui %n, %ny : index
    %s0 = arith.muli %bid, %bd : index
    %start = arith.addi %s0, %tid : index
    %stride = arith.muli %gd, %bd : index
    %r = scf.while (%i = %start) : (index) -> index {
      %go = arith.cmpi ult, %i, %m : index
      scf.condition(%go) %i : index
    } do {
    ^bb0(%i: index):
      // expected-error-re @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0: index: its range {{.*}} is not guarded by the dynamic size it indexes}}
      %xv = memref.load %x[%i] : memref<?xf32>
      // expected-error-re @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0{{.*}}}}
      %yv = memref.load %y[%i] : memref<?xf32>
      %p = arith.mulf %a, %xv : f32
      %s = arith.addf %p, %yv : f32
      // expected-error-re @+1 {{[AMK-OOB] store of memref<?xf32> may leave the buffer in dimension 0{{.*}}}}
      memref.store %s, %y[%i] : memref<?xf32>
      %n2 = arith.addi %i, %stride : index
      scf.yield %n2 : index
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,racecheck args=f32[256]
// Twin: a bitonic sort of 256 values in shared memory, its network as
// while loops (`for (k = 2; k <= 256; k <<= 1) for (j = k >> 1; j > 0;
// j >>= 1)`): the inner loop starts from the outer one's count, so the
// nest is unrolled (8 + 7 + ... + 1 steps), and each step's partner
// `tid ^ j` and direction `tid & k` are modelled bit by bit: a thread
// swaps with its partner only when the partner is above it, so no two
// threads of a step touch one element.
gpu.module @m {
  gpu.func @bitonic(%data: memref<256xf32>) workgroup(%s: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %v = memref.load %data[%tid] : memref<256xf32>
    memref.store %v, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    %kend = scf.while (%k = %c2) : (index) -> index {
      %more = arith.cmpi ule, %k, %c256 : index
      scf.condition(%more) %k : index
    } do {
    ^bb0(%k: index):
      %j0 = arith.shrui %k, %c1 : index
      %jend = scf.while (%j = %j0) : (index) -> index {
        %pos = arith.cmpi ugt, %j, %c0 : index
        scf.condition(%pos) %j : index
      } do {
      ^bb0(%j: index):
        gpu.barrier
        %ixj = arith.xori %tid, %j : index
        %up = arith.cmpi ugt, %ixj, %tid : index
        scf.if %up {
          %bit = arith.andi %tid, %k : index
          %asc = arith.cmpi eq, %bit, %c0 : index
          %a = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          %b = memref.load %s[%ixj] : memref<256xf32, #gpu.address_space<workgroup>>
          %gt = arith.cmpf ogt, %a, %b : f32
          %swap = arith.cmpi eq, %gt, %asc : i1
          scf.if %swap {
            memref.store %b, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
            memref.store %a, %s[%ixj] : memref<256xf32, #gpu.address_space<workgroup>>
          }
        }
        %jn = arith.shrui %j, %c1 : index
        scf.yield %jn : index
      }
      %kn = arith.shli %k, %c1 : index
      scf.yield %kn : index
    }
    gpu.barrier
    %r = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %r, %data[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck args=f32[256]
// Bug: no barrier between the steps: a step reads what the previous
// one's partner may still be writing (one finding per op and partner,
// not one per unrolled copy).
gpu.module @m {
  gpu.func @bitonic_no_barrier(%data: memref<256xf32>) workgroup(%s: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %v = memref.load %data[%tid] : memref<256xf32>
    // expected-error @+1 {{no barrier between them (write-write}}
    memref.store %v, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    %kend = scf.while (%k = %c2) : (index) -> index {
      %more = arith.cmpi ule, %k, %c256 : index
      scf.condition(%more) %k : index
    } do {
    ^bb0(%k: index):
      %j0 = arith.shrui %k, %c1 : index
      %jend = scf.while (%j = %j0) : (index) -> index {
        %pos = arith.cmpi ugt, %j, %c0 : index
        scf.condition(%pos) %j : index
      } do {
      ^bb0(%j: index):
        %ixj = arith.xori %tid, %j : index
        %up = arith.cmpi ugt, %ixj, %tid : index
        scf.if %up {
          %bit = arith.andi %tid, %k : index
          %asc = arith.cmpi eq, %bit, %c0 : index
          // expected-error @+1 {{no barrier between them (write-read}}
          %a = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          // expected-error @+1 {{no barrier between them (write-read}}
          %b = memref.load %s[%ixj] : memref<256xf32, #gpu.address_space<workgroup>>
          %gt = arith.cmpf ogt, %a, %b : f32
          %swap = arith.cmpi eq, %gt, %asc : i1
          scf.if %swap {
            // expected-error @+1 {{no barrier between them (write-write}}
            memref.store %b, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
            // expected-error @+1 {{no barrier between them (write-write}}
            memref.store %a, %s[%ixj] : memref<256xf32, #gpu.address_space<workgroup>>
          }
        }
        %jn = arith.shrui %j, %c1 : index
        scf.yield %jn : index
      }
      %kn = arith.shli %k, %c1 : index
      scf.yield %kn : index
    }
    gpu.barrier
    %r = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %r, %data[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck args=f32[256]
// Bug: both threads of a pair swap (partner != tid instead of >).
gpu.module @m {
  gpu.func @bitonic_both_swap(%data: memref<256xf32>) workgroup(%s: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %v = memref.load %data[%tid] : memref<256xf32>
    memref.store %v, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    %kend = scf.while (%k = %c2) : (index) -> index {
      %more = arith.cmpi ule, %k, %c256 : index
      scf.condition(%more) %k : index
    } do {
    ^bb0(%k: index):
      %j0 = arith.shrui %k, %c1 : index
      %jend = scf.while (%j = %j0) : (index) -> index {
        %pos = arith.cmpi ugt, %j, %c0 : index
        scf.condition(%pos) %j : index
      } do {
      ^bb0(%j: index):
        gpu.barrier
        %ixj = arith.xori %tid, %j : index
        %up = arith.cmpi ne, %ixj, %tid : index
        scf.if %up {
          %bit = arith.andi %tid, %k : index
          %asc = arith.cmpi eq, %bit, %c0 : index
          // expected-error @+1 {{no barrier between them (write-read}}
          %a = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          // expected-error @+1 {{no barrier between them (write-read}}
          %b = memref.load %s[%ixj] : memref<256xf32, #gpu.address_space<workgroup>>
          %gt = arith.cmpf ogt, %a, %b : f32
          %swap = arith.cmpi eq, %gt, %asc : i1
          scf.if %swap {
            memref.store %b, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
            // expected-error @+1 {{no barrier between them (write-write}}
            memref.store %a, %s[%ixj] : memref<256xf32, #gpu.address_space<workgroup>>
          }
        }
        %jn = arith.shrui %j, %c1 : index
        scf.yield %jn : index
      }
      %kn = arith.shli %k, %c1 : index
      scf.yield %kn : index
    }
    gpu.barrier
    %r = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %r, %data[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,racecheck args=f32[256]
// Twin: the same network as scf.for loops, the partner `tid ^ (1 << (i -
// jj))` and direction `tid & (1 << (i + 1))`: a loop whose count is a
// shift amount that a bitwise op takes is unrolled the same way.
gpu.module @m {
  gpu.func @bitonic_for(%data: memref<256xf32>) workgroup(%s: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %v = memref.load %data[%tid] : memref<256xf32>
    memref.store %v, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %c8 step %c1 {
      %i1 = arith.addi %i, %c1 : index
      %k = arith.shli %c1, %i1 : index
      scf.for %jj = %c0 to %i1 step %c1 {
        %sh = arith.subi %i, %jj : index
        %j = arith.shli %c1, %sh : index
        gpu.barrier
        %ixj = arith.xori %tid, %j : index
        %up = arith.cmpi ugt, %ixj, %tid : index
        scf.if %up {
          %bit = arith.andi %tid, %k : index
          %asc = arith.cmpi eq, %bit, %c0 : index
          %a = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          %b = memref.load %s[%ixj] : memref<256xf32, #gpu.address_space<workgroup>>
          %gt = arith.cmpf ogt, %a, %b : f32
          %swap = arith.cmpi eq, %gt, %asc : i1
          scf.if %swap {
            memref.store %b, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
            memref.store %a, %s[%ixj] : memref<256xf32, #gpu.address_space<workgroup>>
          }
        }
      }
    }
    gpu.barrier
    %r = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %r, %data[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck args=f32[256]
// Bug: both threads of a pair swap.
gpu.module @m {
  gpu.func @bitonic_for_both_swap(%data: memref<256xf32>) workgroup(%s: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %v = memref.load %data[%tid] : memref<256xf32>
    memref.store %v, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %c8 step %c1 {
      %i1 = arith.addi %i, %c1 : index
      %k = arith.shli %c1, %i1 : index
      scf.for %jj = %c0 to %i1 step %c1 {
        %sh = arith.subi %i, %jj : index
        %j = arith.shli %c1, %sh : index
        gpu.barrier
        %ixj = arith.xori %tid, %j : index
        %up = arith.cmpi ne, %ixj, %tid : index
        scf.if %up {
          %bit = arith.andi %tid, %k : index
          %asc = arith.cmpi eq, %bit, %c0 : index
          // expected-error @+1 {{no barrier between them (write-read}}
          %a = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          // expected-error @+1 {{no barrier between them (write-read}}
          %b = memref.load %s[%ixj] : memref<256xf32, #gpu.address_space<workgroup>>
          %gt = arith.cmpf ogt, %a, %b : f32
          %swap = arith.cmpi eq, %gt, %asc : i1
          scf.if %swap {
            memref.store %b, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
            // expected-error @+1 {{no barrier between them (write-write}}
            memref.store %a, %s[%ixj] : memref<256xf32, #gpu.address_space<workgroup>>
          }
        }
      }
    }
    gpu.barrier
    %r = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %r, %data[%tid] : memref<256xf32>
    gpu.return
  }
}
