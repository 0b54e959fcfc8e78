// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// AMK-INT-UB: integer arithmetic LLVM leaves undefined (a division or
// remainder by zero, a shift by a negative amount or by the bit width or
// more). Each planted bug next to its correct twin. Each kernel stores the
// value it computes to its own thread's element, masked into the buffer,
// so the bounds check alone accepts every one of them. The sanitizers
// cannot see these bugs: the GPU computes some value (no trap).

// Bug: a remainder by (tid % 4), zero for every fourth thread.
gpu.module @m {
  gpu.func @rem_by_lane(%out: memref<1024xi32>, %in: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %d = arith.remui %tid, %c4 : index
    // expected-error @+1 {{[AMK-INT-UB] 'arith.remsi' at line 22 divides by zero: its divisor is [0, 3] for some thread or block, and a division by zero is undefined (guard the divisor, or divide by a value that is never 0)}}
    %v = arith.remsi %tid, %d : index
    %m = arith.andi %v, %c255 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    %w = arith.index_cast %m : index to i32
    memref.store %w, %out[%at] : memref<1024xi32>
    gpu.return
  }
}

// -----
// Twin: a remainder by (tid % 4) + 1, never zero.
gpu.module @m {
  gpu.func @rem_by_lane_plus_one(%out: memref<1024xi32>, %in: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %r = arith.remui %tid, %c4 : index
    %d = arith.addi %r, %c1 : index
    %v = arith.remsi %tid, %d : index
    %m = arith.andi %v, %c255 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    %w = arith.index_cast %m : index to i32
    memref.store %w, %out[%at] : memref<1024xi32>
    gpu.return
  }
}

// -----
// Bug: a thread index divided by the block id, zero in block 0.
gpu.module @m {
  gpu.func @div_by_block(%out: memref<1024xi32>, %in: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    // expected-error @+1 {{[AMK-INT-UB] 'arith.floordivsi' at line 69 divides by zero: its divisor is [0, 3] for some thread or block}}
    %v = arith.floordivsi %tid, %bid : index
    %m = arith.andi %v, %c255 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    %w = arith.index_cast %m : index to i32
    memref.store %w, %out[%at] : memref<1024xi32>
    gpu.return
  }
}

// -----
// Twin: a division by a tile count from a dynamic size (the launch's sizes
// make it at least 1; its range is not bounded, so it is not reported).
gpu.module @m {
  gpu.func @div_by_tiles(%out: memref<1024xi32>, %in: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %n = memref.dim %in, %c0 : memref<?xf32>
    %tiles = arith.ceildivui %n, %c256 : index
    %v = arith.divui %bid, %tiles : index
    %m = arith.andi %v, %c255 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    %w = arith.index_cast %m : index to i32
    memref.store %w, %out[%at] : memref<1024xi32>
    gpu.return
  }
}

// -----
// Bug: an i32 shift by 32 (the lane mask of a warp of 32, off by one).
gpu.module @m {
  gpu.func @shift_by_width(%out: memref<1024xi32>, %in: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    // expected-error @+1 {{[AMK-INT-UB] 'arith.shli' at line 119 shifts a 32-bit value by 32: a shift by a negative amount or by 32 or more is poison (its result, and any address made from it, is undefined)}}
    %mask = arith.shli %one, %c32 : i32
    %v = arith.index_cast %mask : i32 to index
    %m = arith.andi %v, %c255 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    %w = arith.index_cast %m : index to i32
    memref.store %w, %out[%at] : memref<1024xi32>
    gpu.return
  }
}

// -----
// Twin: an i32 shift by 31.
gpu.module @m {
  gpu.func @shift_by_31(%out: memref<1024xi32>, %in: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %c31 = arith.constant 31 : i32
    %mask = arith.shli %one, %c31 : i32
    %v = arith.index_cast %mask : i32 to index
    %m = arith.andi %v, %c255 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    %w = arith.index_cast %m : index to i32
    memref.store %w, %out[%at] : memref<1024xi32>
    gpu.return
  }
}

// -----
// Bug: a shift by tid - 8: negative (a huge unsigned amount) for the first
// eight threads, past 63 for the last.
gpu.module @m {
  gpu.func @shift_negative(%out: memref<1024xi32>, %in: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %s = arith.subi %tid, %c8 : index
    // expected-error @+1 {{[AMK-INT-UB] 'arith.shrui' at line 170 shifts a 64-bit value by [-8, 247]}}
    %v = arith.shrui %c255, %s : index
    %m = arith.andi %v, %c255 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    %w = arith.index_cast %m : index to i32
    memref.store %w, %out[%at] : memref<1024xi32>
    gpu.return
  }
}

// -----
// Twin: a shift by tid % 8.
gpu.module @m {
  gpu.func @shift_by_lane(%out: memref<1024xi32>, %in: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %s = arith.remui %tid, %c8 : index
    %v = arith.shrui %c255, %s : index
    %m = arith.andi %v, %c255 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    %w = arith.index_cast %m : index to i32
    memref.store %w, %out[%at] : memref<1024xi32>
    gpu.return
  }
}

// -----
// Twin: a division by a sign, -1 or 1 (its signed range [-1, 1] holds 0,
// its unsigned range does not: the divisor is never 0).
gpu.module @m {
  gpu.func @div_by_sign(%out: memref<1024xi32>, %in: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c1 = arith.constant 1 : index
    %cm1 = arith.constant -1 : index
    %c128 = arith.constant 128 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %low = arith.cmpi ult, %tid, %c128 : index
    %sign = arith.select %low, %cm1, %c1 : index
    %v = arith.divsi %tid, %sign : index
    %m = arith.andi %v, %c255 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    %w = arith.index_cast %m : index to i32
    memref.store %w, %out[%at] : memref<1024xi32>
    gpu.return
  }
}

// -----

// Twin: a triangular loop's shift (the steps of a bitonic network): jj runs
// below kk, so kk - jj is in [1, 7]; the ranges alone say [-6, 7], the
// loops' relation proves it.
gpu.module @m {
  gpu.func @shift_triangular(%out: memref<1024xi32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c1 = arith.constant 1 : index
    %c9 = arith.constant 9 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    scf.for %kk = %c1 to %c9 step %c1 {
      scf.for %jj = %c1 to %kk step %c1 {
        %s = arith.subi %kk, %jj : index
        %j = arith.shli %c1, %s : index
        %m = arith.andi %j, %c255 : index
        %w = arith.index_cast %m : index to i32
        memref.store %w, %out[%at] : memref<1024xi32>
      }
    }
    gpu.return
  }
}

// -----

// Bug: the same shifted by kk - jj - 2, which is -1 where jj = kk - 1.
gpu.module @m {
  gpu.func @shift_triangular_negative(%out: memref<1024xi32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c9 = arith.constant 9 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %base = arith.muli %bid, %c256 : index
    %at = arith.addi %base, %tid : index
    scf.for %kk = %c1 to %c9 step %c1 {
      scf.for %jj = %c1 to %kk step %c1 {
        %d = arith.subi %kk, %jj : index
        %s = arith.subi %d, %c2 : index
        // expected-error @+1 {{shifts a 64-bit value by -1: a shift by a negative amount}}
        %j = arith.shli %c1, %s : index
        %m = arith.andi %j, %c255 : index
        %w = arith.index_cast %m : index to i32
        memref.store %w, %out[%at] : memref<1024xi32>
      }
    }
    gpu.return
  }
}
