// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Guards the bounds check reads beyond `i < size`: a lower bound before
// `i - k`, a bound by a minimum of sizes, and lane arithmetic that is a
// remainder in disguise. Each correct kernel (which the harness once
// flagged) is next to a bug of the same shape.

// Twin: a[i - 1] under i > 0.
gpu.module @m {
  gpu.func @previous(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %pos = arith.cmpi sgt, %i, %c0 : index
    scf.if %pos {
      %j = arith.subi %i, %c1 : index
      %x = memref.load %a[%j] : memref<256xf32>
      memref.store %x, %b[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: a[i - 1] under i >= 0 reads a[-1] at i = 0.
gpu.module @m {
  gpu.func @previous_unguarded(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %pos = arith.cmpi sge, %i, %c0 : index
    scf.if %pos {
      %j = arith.subi %i, %c1 : index
      // expected-error @+1 {{[AMK-OOB] load of memref<256xf32> may leave the buffer in dimension 0: index: it can be negative}}
      %x = memref.load %a[%j] : memref<256xf32>
      memref.store %x, %b[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Twin: the tile two blocks back, (b - 2) * 256 + t, under b >= 2 (a sum
// of multiples, each bounded below by a guard or its range).
gpu.module @m {
  gpu.func @two_tiles_back(%a: memref<1024xf32>, %out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %base = arith.muli %b, %c256 : index
    %mine = arith.addi %base, %t : index
    %late = arith.cmpi uge, %b, %c2 : index
    scf.if %late {
      %back = arith.subi %base, %c256 : index
      %back2 = arith.subi %back, %c256 : index
      %i = arith.addi %back2, %t : index
      %x = memref.load %a[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the same under b >= 1 reads 256 elements before the buffer in
// block 1.
gpu.module @m {
  gpu.func @two_tiles_back_from_one(%a: memref<1024xf32>, %out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %base = arith.muli %b, %c256 : index
    %mine = arith.addi %base, %t : index
    %late = arith.cmpi uge, %b, %c1 : index
    scf.if %late {
      %back = arith.subi %base, %c256 : index
      %back2 = arith.subi %back, %c256 : index
      %i = arith.addi %back2, %t : index
      // expected-error @+1 {{[AMK-OOB] load of memref<1024xf32> may leave the buffer in dimension 0: index: it can be negative}}
      %x = memref.load %a[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// Twin: the next block's tile, (b + 1) * 256 + t, under b < 3 (of 4).
gpu.module @m {
  gpu.func @next_tile(%a: memref<1024xf32>, %out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c256 = arith.constant 256 : index
    %base = arith.muli %b, %c256 : index
    %mine = arith.addi %base, %t : index
    %early = arith.cmpi ult, %b, %c3 : index
    scf.if %early {
      %n = arith.addi %b, %c1 : index
      %nbase = arith.muli %n, %c256 : index
      %i = arith.addi %nbase, %t : index
      %x = memref.load %a[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the same under b <= 3 reads past the buffer in block 3.
gpu.module @m {
  gpu.func @next_tile_last(%a: memref<1024xf32>, %out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c256 = arith.constant 256 : index
    %base = arith.muli %b, %c256 : index
    %mine = arith.addi %base, %t : index
    %early = arith.cmpi ule, %b, %c3 : index
    scf.if %early {
      %n = arith.addi %b, %c1 : index
      %nbase = arith.muli %n, %c256 : index
      %i = arith.addi %nbase, %t : index
      // expected-error @+1 {{[AMK-OOB] load of memref<1024xf32> may leave the buffer in dimension 0}}
      %x = memref.load %a[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// Twin: one index below the smaller of two sizes serves both buffers.
gpu.module @m {
  gpu.func @copy_min(%a: memref<?xf32>, %b: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %na = memref.dim %a, %c0 : memref<?xf32>
    %nb = memref.dim %b, %c0 : memref<?xf32>
    %n = arith.minui %na, %nb : index
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %b[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the larger of the two sizes guards neither.
gpu.module @m {
  gpu.func @copy_max(%a: memref<?xf32>, %b: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %na = memref.dim %a, %c0 : memref<?xf32>
    %nb = memref.dim %b, %c0 : memref<?xf32>
    %n = arith.maxui %na, %nb : index
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      // expected-error @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0}}
      %x = memref.load %a[%i] : memref<?xf32>
      // expected-error @+1 {{[AMK-OOB] store of memref<?xf32> may leave the buffer in dimension 0}}
      memref.store %x, %b[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----

// Twin: 2*t - 8*(t / 4) is 2*(t mod 4), in [0, 6].
gpu.module @m {
  gpu.func @lane_pair(%a: memref<8xf32>, %b: memref<32xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %t = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %twice = arith.muli %t, %c2 : index
    %quad = arith.divui %t, %c4 : index
    %base = arith.muli %quad, %c8 : index
    %i = arith.subi %twice, %base : index
    %x = memref.load %a[%i] : memref<8xf32>
    memref.store %x, %b[%t] : memref<32xf32>
    gpu.return
  }
}

// -----

// Bug: 2*t - 4*(t / 4) is 2*(t mod 4) + 4*(t / 4), up to 34.
gpu.module @m {
  gpu.func @lane_pair_wrong_scale(%a: memref<8xf32>, %b: memref<32xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %t = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %twice = arith.muli %t, %c2 : index
    %quad = arith.divui %t, %c4 : index
    %base = arith.muli %quad, %c4 : index
    %i = arith.subi %twice, %base : index
    // expected-error @+1 {{[AMK-OOB] load of memref<8xf32> may leave the buffer in dimension 0}}
    %x = memref.load %a[%i] : memref<8xf32>
    memref.store %x, %b[%t] : memref<32xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=4 args=f32[1000]
// Twin: a grid-stride loop over a dynamic size; the loop's upper bound is
// the guard (i < dim), whatever its step.
gpu.module @m {
  gpu.func @grid_stride_bound(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %bdim = gpu.block_dim x
    %g = gpu.grid_dim x
    %b0 = arith.muli %bid, %bdim : index
    %lb = arith.addi %b0, %tid : index
    %step = arith.muli %bdim, %g : index
    scf.for %i = %lb to %n step %step {
      %x = memref.load %a[%i] : memref<?xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=4 args=f32[1000]
// Bug: the same loop reads a[i + 1]: at i = n - 1 it is one past the end.
gpu.module @m {
  gpu.func @grid_stride_next(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %bdim = gpu.block_dim x
    %g = gpu.grid_dim x
    %b0 = arith.muli %bid, %bdim : index
    %lb = arith.addi %b0, %tid : index
    %step = arith.muli %bdim, %g : index
    scf.for %i = %lb to %n step %step {
      %j = arith.addi %i, %c1 : index
      // (Thread t reads what thread t + 1 of its block writes.)
      // expected-error @+2 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0: index: its range [1, 2305843009213693951] is not guarded}}
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads 1 and 0){{.*}}}}
      %x = memref.load %a[%j] : memref<?xf32>
      // (Block b's last thread also reads what block b + 1 writes.)
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block}}
      memref.store %x, %a[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1000],f32[1000]
// Bug: a[i + 1] in a loop up to the dynamic size. The index's range reaches
// INT64_MAX; range + 1 wrapped to INT64_MIN once, and the access passed as
// below every size.
gpu.module @m {
  gpu.func @loop_next(%a: memref<?xf32>, %b: memref<?xf32>) kernel attributes {known_block_size = array<i32: 1, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %m = memref.dim %b, %c0 : memref<?xf32>
    %end = arith.minui %n, %m : index
    scf.for %i = %c0 to %end step %c1 {
      %j = arith.addi %i, %c1 : index
      // expected-error @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0: index: its range [1, 2305843009213693951] is not guarded}}
      %x = memref.load %a[%j] : memref<?xf32>
      memref.store %x, %b[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1000],f32[1000]
// Twin: a[i] into b[i] up to min(dim a, dim b): the loop bound guards both.
gpu.module @m {
  gpu.func @loop_copy(%a: memref<?xf32>, %b: memref<?xf32>) kernel attributes {known_block_size = array<i32: 1, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %m = memref.dim %b, %c0 : memref<?xf32>
    %end = arith.minui %n, %m : index
    scf.for %i = %c0 to %end step %c1 {
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %b[%i] : memref<?xf32>
    }
    gpu.return
  }
}
