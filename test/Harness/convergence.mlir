// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Planted convergence bugs, each next to its correct twin. A collective
// needs every thread of its group: the block for gpu.all_reduce
// (AMK-BARRIER-DIVERGENT, as for barriers), the warp for shuffles, warp
// reductions and the warp-wide matrix ops (AMK-CONVERGENCE). A branch that
// differs between warps but not within one (on the warp index, on
// thread_id y when a block row holds whole warps) is fine for a warp-level
// op and still a bug for a block-level one.

// SANITIZE: tool=synccheck grid=1 args=f32[256] expect=clean
// Bug: a block reduction only the first 16 threads reach.
gpu.module @m {
  gpu.func @all_reduce_in_branch(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %x = memref.load %out[%tid] : memref<256xf32>
    %lt = arith.cmpi ult, %tid, %c16 : index
    scf.if %lt {
      // expected-error @+1 {{[AMK-BARRIER-DIVERGENT] block-wide collective 'gpu.all_reduce' at line 20 is under thread-dependent control: 'scf.if' at line 18 decides by a value derived from the thread id}}
      %s = gpu.all_reduce add %x uniform {} : (f32) -> f32
      memref.store %s, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 args=f32[256]
// Twin: every thread reduces, the first 16 store; the sum is uniform.
gpu.module @m {
  gpu.func @all_reduce_then_branch(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %x = memref.load %out[%tid] : memref<256xf32>
    %s = gpu.all_reduce add %x uniform {} : (f32) -> f32
    gpu.barrier
    %lt = arith.cmpi ult, %tid, %c16 : index
    scf.if %lt {
      memref.store %s, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----
// (gpu.subgroup_reduce of f32 has no upstream NVVM lowering: checked statically only)
// Bug: a warp reduction that half of each warp's lanes reach.
gpu.module @m {
  gpu.func @subgroup_reduce_half_warp(%out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %x = memref.load %out[%tid] : memref<64xf32>
    %lane = arith.remui %tid, %c32 : index
    %lt = arith.cmpi ult, %lane, %c16 : index
    scf.if %lt {
      // expected-error @+1 {{[AMK-CONVERGENCE] warp-level 'gpu.subgroup_reduce' at line 58 is under control that can differ within a warp: 'scf.if' at line 56 decides by a value the threads of one warp may not share}}
      %s = gpu.subgroup_reduce add %x : (f32) -> f32
      memref.store %s, %out[%tid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----
// (gpu.subgroup_reduce of f32 has no upstream NVVM lowering: checked statically only)
// Twin: only warp 0 reduces; all of its lanes do (the warp index is
// thread_id x / 32, the same for a warp's lanes).
gpu.module @m {
  gpu.func @subgroup_reduce_first_warp(%out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %c0 = arith.constant 0 : index
    %x = memref.load %out[%tid] : memref<64xf32>
    %warp = arith.divui %tid, %c32 : index
    %first = arith.cmpi eq, %warp, %c0 : index
    scf.if %first {
      %s = gpu.subgroup_reduce add %x : (f32) -> f32
      memref.store %s, %out[%tid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 args=f32[128] expect=clean
// Bug: a shuffle that the even lanes skip.
gpu.module @m {
  gpu.func @shuffle_odd_lanes(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %off = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %x = memref.load %out[%tid] : memref<128xf32>
    %parity = arith.remui %tid, %c2 : index
    %odd = arith.cmpi eq, %parity, %c1 : index
    scf.if %odd {
      // expected-error @+1 {{[AMK-CONVERGENCE] warp-level 'gpu.shuffle' at line 100 is under control that can differ within a warp}}
      %y, %valid = gpu.shuffle xor %x, %off, %width : f32
      memref.store %y, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=2 args=f32[256]
// Twin: the same shuffle under a branch on the block id (each block reads
// and writes its own 128 elements).
gpu.module @m {
  gpu.func @shuffle_block_branch(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %off = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %base = arith.muli %bid, %c128 : index
    %i = arith.addi %base, %tid : index
    %x = memref.load %out[%i] : memref<256xf32>
    %first = arith.cmpi eq, %bid, %c0 : index
    scf.if %first {
      %y, %valid = gpu.shuffle xor %x, %off, %width : f32
      memref.store %y, %out[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 args=f32[128] expect=clean
// Bug: rows of 16 threads, so thread_id y differs within a warp: the
// shuffle under `y == 0` misses half of warp 0.
gpu.module @m {
  gpu.func @shuffle_row_branch_half_warp(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 16, 8, 1>} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %off = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %row = arith.muli %ty, %c16 : index
    %i = arith.addi %row, %tx : index
    %x = memref.load %out[%i] : memref<128xf32>
    %first = arith.cmpi eq, %ty, %c0 : index
    scf.if %first {
      // expected-error @+1 {{[AMK-CONVERGENCE] warp-level 'gpu.shuffle'}}
      %y, %valid = gpu.shuffle xor %x, %off, %width : f32
      memref.store %y, %out[%i] : memref<128xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 args=f32[128]
// Twin: rows of 32 threads: thread_id y is the warp index.
gpu.module @m {
  gpu.func @shuffle_row_branch_whole_warp(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 32, 4, 1>} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %off = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %row = arith.muli %ty, %c32 : index
    %i = arith.addi %row, %tx : index
    %x = memref.load %out[%i] : memref<128xf32>
    %first = arith.cmpi eq, %ty, %c0 : index
    scf.if %first {
      %y, %valid = gpu.shuffle xor %x, %off, %width : f32
      memref.store %y, %out[%i] : memref<128xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=synccheck grid=1 args=f32[96] expect=clean
// Bug: rows of 48 threads, so x / 32 is not the warp index (warp 1 holds
// x = 32..47 of row 0 and x = 0..15 of row 1).
gpu.module @m {
  gpu.func @warp_index_of_ragged_rows(%out: memref<96xf32>) kernel attributes {known_block_size = array<i32: 48, 2, 1>} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c48 = arith.constant 48 : index
    %row = arith.muli %ty, %c48 : index
    %i = arith.addi %row, %tx : index
    %x = memref.load %out[%i] : memref<96xf32>
    %w = arith.divui %tx, %c32 : index
    %first = arith.cmpi eq, %w, %c0 : index
    %off = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    scf.if %first {
      // expected-error @+1 {{[AMK-CONVERGENCE] warp-level 'gpu.shuffle'}}
      %s, %valid = gpu.shuffle xor %x, %off, %width : f32
      memref.store %s, %out[%i] : memref<96xf32>
    }
    gpu.return
  }
}

// -----
// (gpu.subgroup_reduce of f32 has no upstream NVVM lowering: checked statically only)
// Twin: a branch on a warp reduction's result is the same for the warp's
// lanes, so a shuffle under it is reached by all of them.
gpu.module @m {
  gpu.func @shuffle_under_warp_sum(%out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %zero = arith.constant 0.0 : f32
    %off = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %x = memref.load %out[%tid] : memref<64xf32>
    %s = gpu.subgroup_reduce add %x : (f32) -> f32
    %pos = arith.cmpf ogt, %s, %zero : f32
    scf.if %pos {
      %y, %valid = gpu.shuffle xor %x, %off, %width : f32
      memref.store %y, %out[%tid] : memref<64xf32>
    }
    gpu.return
  }
}

// compute-sanitizer's synccheck (2025.3.1, H200, 2026-12-02) reports none
// of the runnable bugs above (expect=clean): a block reduction or a shuffle
// that part of its group skips runs to the end without a report. The
// static check is the only one here that sees them.

// -----

// Twin: a warpgroup-level op under a test of the thread id at a warpgroup
// boundary (tid < 256: the first two warpgroups, whole).
gpu.module @m {
  gpu.func @warpgroup_boundary() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %t = gpu.thread_id x
    %c256 = arith.constant 256 : index
    %first = arith.cmpi ult, %t, %c256 : index
    scf.if %first {
      nvvm.wgmma.fence.aligned
    }
    gpu.return
  }
}

// -----

// Bug: the same test at 200, inside warpgroup 1.
gpu.module @m {
  gpu.func @warpgroup_split() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %t = gpu.thread_id x
    %c200 = arith.constant 200 : index
    %first = arith.cmpi ult, %t, %c200 : index
    scf.if %first {
      // expected-error-re @+1 {{[AMK-CONVERGENCE] warpgroup-level 'nvvm.wgmma.fence.aligned' at line {{[0-9]+}} is under control that can differ within a warpgroup{{.*}}}}
      nvvm.wgmma.fence.aligned
    }
    gpu.return
  }
}
