// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// AMK-GLOBAL-RACE: two blocks of a launch touch one element of a global
// buffer, one of them writing it plainly. Each planted bug next to its
// correct twin.

// SANITIZE: tool=racecheck,memcheck grid=4 args=f32[256] expect=clean
// Bug: every block writes the same 256 elements (the block offset is
// missing from the index; the block id only guards). Invisible to the
// sanitizers: racecheck sees shared memory only, and every access is in
// bounds.
gpu.module @m {
  gpu.func @missing_block_offset(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c4 = arith.constant 4 : index
    %one = arith.constant 1.0 : f32
    %ok = arith.cmpi ult, %bid, %c4 : index
    scf.if %ok {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with itself in another block on kernel argument #0: blocks of a launch are not ordered, so either write may land last (blocks ({{[0-3]}}, 0, 0) and ({{[0-3]}}, 0, 0), element [{{[0-9]+}}]); give each block its own elements, or update them atomically}}
      memref.store %one, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----
// Twin: each block writes its own 256 elements.
gpu.module @m {
  gpu.func @block_offset(%out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %one = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    memref.store %one, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----
// Twin: a kernel that never reads its block id is a one-block kernel (a
// larger launch would run identical blocks): out[tid] is its own.
gpu.module @m {
  gpu.func @one_block(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    memref.store %one, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----
// Twin: output tiles of 16 x 16 from the block id by division by the
// number of tile columns, a dynamic size: (pid / tiles_n, pid % tiles_n)
// is a distinct tile for every block, and every store is guarded.
gpu.module @m {
  gpu.func @tiles(%c: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %m = memref.dim %c, %c0 : memref<?x?xf32>
    %n = memref.dim %c, %c1 : memref<?x?xf32>
    %tiles_n = arith.ceildivui %n, %c16 : index
    %pid = gpu.block_id x
    %tm = arith.divui %pid, %tiles_n : index
    %tn = arith.remui %pid, %tiles_n : index
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %r0 = arith.muli %tm, %c16 : index
    %c0_ = arith.muli %tn, %c16 : index
    %row = arith.addi %r0, %ty : index
    %col = arith.addi %c0_, %tx : index
    %in_m = arith.cmpi ult, %row, %m : index
    %in_n = arith.cmpi ult, %col, %n : index
    %ok = arith.andi %in_m, %in_n : i1
    scf.if %ok {
      memref.store %one, %c[%row, %col] : memref<?x?xf32>
    }
    gpu.return
  }
}

// -----
// Bug: the tile row taken as pid % tiles_n too: blocks pid and
// pid + tiles_n write the same tile.
gpu.module @m {
  gpu.func @tiles_same_row(%c: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %m = memref.dim %c, %c0 : memref<?x?xf32>
    %n = memref.dim %c, %c1 : memref<?x?xf32>
    %tiles_n = arith.ceildivui %n, %c16 : index
    %pid = gpu.block_id x
    %tm = arith.remui %pid, %tiles_n : index
    %tn = arith.remui %pid, %tiles_n : index
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %r0 = arith.muli %tm, %c16 : index
    %c0_ = arith.muli %tn, %c16 : index
    %row = arith.addi %r0, %ty : index
    %col = arith.addi %c0_, %tx : index
    %in_m = arith.cmpi ult, %row, %m : index
    %in_n = arith.cmpi ult, %col, %n : index
    %ok = arith.andi %in_m, %in_n : i1
    scf.if %ok {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with itself in another block on kernel argument #0}}
      memref.store %one, %c[%row, %col] : memref<?x?xf32>
    }
    gpu.return
  }
}

// -----
// Twin: tiles in groups of 8 tile rows (the L2-friendly order): the last
// group has max(min(tiles_m - first, 8), 1) rows, and a block's tile is
// (first + in_group % rows, in_group / rows).
gpu.module @m {
  gpu.func @grouped_tiles(%c: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %m = memref.dim %c, %c0 : memref<?x?xf32>
    %n = memref.dim %c, %c1 : memref<?x?xf32>
    %tiles_m = arith.ceildivui %m, %c16 : index
    %tiles_n = arith.ceildivui %n, %c16 : index
    %pid = gpu.block_id x
    %per_group = arith.muli %tiles_n, %c8 : index
    %group = arith.divui %pid, %per_group : index
    %first = arith.muli %group, %c8 : index
    %left = arith.subi %tiles_m, %first : index
    %short = arith.minsi %left, %c8 : index
    %rows = arith.maxsi %short, %c1 : index
    %in_group = arith.remui %pid, %per_group : index
    %dm = arith.remui %in_group, %rows : index
    %tm = arith.addi %first, %dm : index
    %tn = arith.divui %in_group, %rows : index
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %r0 = arith.muli %tm, %c16 : index
    %c0_ = arith.muli %tn, %c16 : index
    %row = arith.addi %r0, %ty : index
    %col = arith.addi %c0_, %tx : index
    %in_m = arith.cmpi ult, %row, %m : index
    %in_n = arith.cmpi ult, %col, %n : index
    %ok = arith.andi %in_m, %in_n : i1
    scf.if %ok {
      memref.store %one, %c[%row, %col] : memref<?x?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=4 args=f32[1]
// Twin: every block adds into one element atomically.
gpu.module @m {
  gpu.func @atomic_sum(%out: memref<1xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %lead = arith.cmpi eq, %tid, %c0 : index
    scf.if %lead {
      %old = memref.atomic_rmw addf %one, %out[%c0] : (f32, memref<1xf32>) -> f32
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck grid=4 args=f32[1] expect=clean
// Bug: the same sum as a plain read, add and write (racecheck does not see
// global memory: the sum comes out 1 to 4, whichever blocks overlap).
gpu.module @m {
  gpu.func @plain_sum(%out: memref<1xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %lead = arith.cmpi eq, %tid, %c0 : index
    scf.if %lead {
      %old = memref.load %out[%c0] : memref<1xf32>
      %new = arith.addf %old, %one : f32
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0}}
      memref.store %new, %out[%c0] : memref<1xf32>
    }
    gpu.return
  }
}

// -----
// Bug: an in-place stencil: block b's last thread reads the element block
// b + 1 writes.
gpu.module @m {
  gpu.func @in_place_stencil(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %base = arith.muli %bid, %c128 : index
    %i = arith.addi %base, %tid : index
    %j = arith.addi %i, %c1 : index
    %ok = arith.cmpi ult, %j, %n : index
    scf.if %ok {
      // Within the block too: thread t reads what thread t + 1 writes.
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads 1 and 0){{.*}}}}
      %x = memref.load %a[%j] : memref<?xf32>
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load' at line {{[0-9]+}} of another block on kernel argument #0: blocks of a launch are not ordered, so the read may see the value before or after the write}}
      memref.store %x, %a[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----
// Twin: in place, each element read and written by its own thread.
gpu.module @m {
  gpu.func @in_place_scale(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %two = arith.constant 2.0 : f32
    %n = memref.dim %a, %c0 : memref<?xf32>
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %base = arith.muli %bid, %c128 : index
    %i = arith.addi %base, %tid : index
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      %x = memref.load %a[%i] : memref<?xf32>
      %y = arith.mulf %x, %two : f32
      memref.store %y, %a[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----
// Bug: 64 threads of vectors of 4 per block, but blocks 60 vectors
// apart: a block's last 4 vectors are the next block's first.
gpu.module @m {
  gpu.func @overlapping_vectors(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c3 = arith.constant 3 : index
    %c60 = arith.constant 60 : index
    %v = arith.constant dense<1.0> : vector<4xf32>
    %n = memref.dim %out, %c0 : memref<?xf32>
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %base = arith.muli %bid, %c60 : index
    %g = arith.addi %base, %tid : index
    %i = arith.muli %g, %c4 : index
    %last = arith.addi %i, %c3 : index
    %ok = arith.cmpi ult, %last, %n : index
    scf.if %ok {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'vector.store' at line {{[0-9]+}} races with itself in another block on kernel argument #0: blocks of a launch are not ordered, so either write may land last (blocks ({{[0-9]+}}, 0, 0) and ({{[0-9]+}}, 0, 0), element [{{[0-9]+}}])}}
      vector.store %v, %out[%i] : memref<?xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// -----
// Twin: blocks 64 vectors of 4 apart.
gpu.module @m {
  gpu.func @vectors(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %v = arith.constant dense<1.0> : vector<4xf32>
    %n = memref.dim %out, %c0 : memref<?xf32>
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %base = arith.muli %bid, %c64 : index
    %g = arith.addi %base, %tid : index
    %i = arith.muli %g, %c4 : index
    %last = arith.addi %i, %c3 : index
    %ok = arith.cmpi ult, %last, %n : index
    scf.if %ok {
      vector.store %v, %out[%i] : memref<?xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// -----
// Twin: split-K partial sums, one [M, N] slice of the workspace per split
// (grid z), selected by a rank-reducing subview.
gpu.module @m {
  gpu.func @split_partials(%ws: memref<4x?x?xf32>) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %m = memref.dim %ws, %c1 : memref<4x?x?xf32>
    %n = memref.dim %ws, %c2 : memref<4x?x?xf32>
    %split = gpu.block_id z
    %c4 = arith.constant 4 : index
    %in = arith.cmpi ult, %split, %c4 : index
    scf.if %in {
      %part = memref.subview %ws[%split, 0, 0] [1, %m, %n] [1, 1, 1] : memref<4x?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %r0 = arith.muli %by, %c16 : index
      %q0 = arith.muli %bx, %c16 : index
      %row = arith.addi %r0, %ty : index
      %col = arith.addi %q0, %tx : index
      %in_m = arith.cmpi ult, %row, %m : index
      %in_n = arith.cmpi ult, %col, %n : index
      %ok = arith.andi %in_m, %in_n : i1
      scf.if %ok {
        memref.store %one, %part[%row, %col] : memref<?x?xf32, strided<[?, 1], offset: ?>>
      }
    }
    gpu.return
  }
}

// -----
// Bug: every split writes C itself (plainly): the splits of one tile race.
gpu.module @m {
  gpu.func @split_into_c(%c: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %m = memref.dim %c, %c0 : memref<?x?xf32>
    %n = memref.dim %c, %c1 : memref<?x?xf32>
    %split = gpu.block_id z
    %in = arith.cmpi ult, %split, %c4 : index
    scf.if %in {
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %r0 = arith.muli %by, %c16 : index
      %q0 = arith.muli %bx, %c16 : index
      %row = arith.addi %r0, %ty : index
      %col = arith.addi %q0, %tx : index
      %in_m = arith.cmpi ult, %row, %m : index
      %in_n = arith.cmpi ult, %col, %n : index
      %ok = arith.andi %in_m, %in_n : i1
      scf.if %ok {
        // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with itself in another block on kernel argument #0: blocks of a launch are not ordered, so either write may land last (blocks (0, {{[0-9]+}}, {{[0-9]+}}) and (0, {{[0-9]+}}, {{[0-9]+}})}}
        memref.store %one, %c[%row, %col] : memref<?x?xf32>
      }
    }
    gpu.return
  }
}

// -----
// Twin: blocks interleaved element by element (thread t of block b writes
// 4 t + b): their boxes overlap, the elements do not.
gpu.module @m {
  gpu.func @interleaved(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %c4 = arith.constant 4 : index
    %one = arith.constant 1.0 : f32
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %t4 = arith.muli %tid, %c4 : index
    %i = arith.addi %t4, %bid : index
    // expected-warning @+1 {{[AMK-UNCOALESCED] global store of memref<256xf32> is uncoalesced}}
    memref.store %one, %out[%i] : memref<256xf32>
    gpu.return
  }
}

// -----
// Bug: the same, 3 apart: thread t of block 3 and thread t + 1 of block 0
// write one element.
gpu.module @m {
  gpu.func @interleaved_overlap(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %c3 = arith.constant 3 : index
    %one = arith.constant 1.0 : f32
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %t3 = arith.muli %tid, %c3 : index
    %i = arith.addi %t3, %bid : index
    // expected-error-re @+2 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with itself in another block on kernel argument #0: blocks of a launch are not ordered, so either write may land last (blocks ({{[0-3]}}, 0, 0) and ({{[0-3]}}, 0, 0), element [{{[0-9]+}}])}}
    // expected-warning @+1 {{[AMK-UNCOALESCED] global store of memref<256xf32> is uncoalesced}}
    memref.store %one, %out[%i] : memref<256xf32>
    gpu.return
  }
}

// -----
// Twin: a grid-stride loop; tile t = bid + k * G is every block's own.
gpu.module @m {
  gpu.func @grid_stride(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %out, %c0 : memref<?xf32>
    %tiles = arith.ceildivui %n, %c256 : index
    %bid = gpu.block_id x
    %g = gpu.grid_dim x
    %tid = gpu.thread_id x
    scf.for %t = %bid to %tiles step %g {
      %base = arith.muli %t, %c256 : index
      %i = arith.addi %base, %tid : index
      %ok = arith.cmpi ult, %i, %n : index
      scf.if %ok {
        memref.store %one, %out[%i] : memref<?xf32>
      }
    }
    gpu.return
  }
}


// -----
// Bug: a grid-stride loop whose stride is the grid size minus one: block
// 0 reaches tile G - 1, block G - 1's first.
gpu.module @m {
  gpu.func @grid_stride_short(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %out, %c0 : memref<?xf32>
    %tiles = arith.ceildivui %n, %c256 : index
    %bid = gpu.block_id x
    %g = gpu.grid_dim x
    %g1 = arith.subi %g, %c1 : index
    %s = arith.maxui %g1, %c1 : index
    %tid = gpu.thread_id x
    scf.for %t = %bid to %tiles step %s {
      %base = arith.muli %t, %c256 : index
      %i = arith.addi %base, %tid : index
      %ok = arith.cmpi ult, %i, %n : index
      scf.if %ok {
        // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with itself in another block on kernel argument #0: blocks of a launch are not ordered, so either write may land last (blocks ({{[0-9]+}}, 0, 0) and ({{[0-9]+}}, 0, 0), element [{{[0-9, ]+}}])}}
        memref.store %one, %out[%i] : memref<?xf32>
      }
    }
    gpu.return
  }
}


// -----
// Twin: the classic grid-stride loop over threads, i = bid * B + tid, step
// B * G.
gpu.module @m {
  gpu.func @thread_grid_stride(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %out, %c0 : memref<?xf32>
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %g = gpu.grid_dim x
    %tid = gpu.thread_id x
    %b0 = arith.muli %bid, %bdim : index
    %lb = arith.addi %b0, %tid : index
    %step = arith.muli %bdim, %g : index
    scf.for %i = %lb to %n step %step {
      memref.store %one, %out[%i] : memref<?xf32>
    }
    gpu.return
  }
}


// -----
// Bug: the step forgets the block size (step G): blocks overlap.
gpu.module @m {
  gpu.func @thread_grid_stride_bug(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %out, %c0 : memref<?xf32>
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %g = gpu.grid_dim x
    %tid = gpu.thread_id x
    %b0 = arith.muli %bid, %bdim : index
    %lb = arith.addi %b0, %tid : index
    scf.for %i = %lb to %n step %g {
      // expected-error-re @+2 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with itself in another block on kernel argument #0: blocks of a launch are not ordered, so either write may land last (blocks ({{[0-9]+}}, 0, 0) and ({{[0-9]+}}, 0, 0), element [{{[0-9, ]+}}])}}
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads {{[0-9]+}} and {{[0-9]+}}): either write may land last}}
      memref.store %one, %out[%i] : memref<?xf32>
    }
    gpu.return
  }
}


// -----
// Twin: a persistent kernel: tiles t = bid + k G of a dynamic tile grid,
// (t / tiles_n, t % tiles_n) distinct for every block and iteration.
gpu.module @m {
  gpu.func @persistent_tiles(%c: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %m = memref.dim %c, %c0 : memref<?x?xf32>
    %n = memref.dim %c, %c1 : memref<?x?xf32>
    %tiles_m = arith.ceildivui %m, %c16 : index
    %tiles_n = arith.ceildivui %n, %c16 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %bid = gpu.block_id x
    %g = gpu.grid_dim x
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    scf.for %t = %bid to %tiles step %g {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %r0 = arith.muli %tm, %c16 : index
      %q0 = arith.muli %tn, %c16 : index
      %row = arith.addi %r0, %ty : index
      %col = arith.addi %q0, %tx : index
      %in_m = arith.cmpi ult, %row, %m : index
      %in_n = arith.cmpi ult, %col, %n : index
      %ok = arith.andi %in_m, %in_n : i1
      scf.if %ok {
        memref.store %one, %c[%row, %col] : memref<?x?xf32>
      }
    }
    gpu.return
  }
}


// -----
// Bug: a persistent kernel whose tile column is t % tiles_m: tiles repeat.
gpu.module @m {
  gpu.func @persistent_tiles_bug(%c: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %m = memref.dim %c, %c0 : memref<?x?xf32>
    %n = memref.dim %c, %c1 : memref<?x?xf32>
    %tiles_m = arith.ceildivui %m, %c16 : index
    %tiles_n = arith.ceildivui %n, %c16 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %bid = gpu.block_id x
    %g = gpu.grid_dim x
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    scf.for %t = %bid to %tiles step %g {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_m : index
      %r0 = arith.muli %tm, %c16 : index
      %q0 = arith.muli %tn, %c16 : index
      %row = arith.addi %r0, %ty : index
      %col = arith.addi %q0, %tx : index
      %in_m = arith.cmpi ult, %row, %m : index
      %in_n = arith.cmpi ult, %col, %n : index
      %ok = arith.andi %in_m, %in_n : i1
      scf.if %ok {
        // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with itself in another block on kernel argument #0: blocks of a launch are not ordered, so either write may land last (blocks ({{[0-9]+}}, 0, 0) and ({{[0-9]+}}, 0, 0), element [{{[0-9, ]+}}])}}
        memref.store %one, %c[%row, %col] : memref<?x?xf32>
      }
    }
    gpu.return
  }
}

// -----

// Twin: each warp's lane 0 stores columns bid + 264 w and bid + 264 w + 132
// (two stores a block count apart, as a megakernel's rows per warp): the
// blocks' columns interleave without meeting. The two stores are checked
// each on its own, not as one range that would cover the blocks between.
gpu.module @m {
  gpu.func @columns_a_grid_apart(%out: memref<2x1000xbf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 132, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c132 = arith.constant 132 : index
    %c264 = arith.constant 264 : index
    %c1000 = arith.constant 1000 : index
    %v = arith.constant 1.0 : bf16
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %lane = arith.remui %tid, %c32 : index
    %warp = arith.divui %tid, %c32 : index
    %w264 = arith.muli %warp, %c264 : index
    %col0 = arith.addi %bid, %w264 : index
    %col1 = arith.addi %col0, %c132 : index
    %first = arith.cmpi eq, %lane, %c0 : index
    %in0 = arith.cmpi ult, %col0, %c1000 : index
    %ok0 = arith.andi %in0, %first : i1
    scf.if %ok0 {
      // expected-warning-re @+1 {{[AMK-UNCOALESCED] global store of memref<2x1000xbf16> is uncoalesced}}
      memref.store %v, %out[%c0, %col0] : memref<2x1000xbf16>
      memref.store %v, %out[%c1, %col0] : memref<2x1000xbf16>
    }
    %in1 = arith.cmpi ult, %col1, %c1000 : index
    %ok1 = arith.andi %in1, %first : i1
    scf.if %ok1 {
      memref.store %v, %out[%c0, %col1] : memref<2x1000xbf16>
      memref.store %v, %out[%c1, %col1] : memref<2x1000xbf16>
    }
    gpu.return
  }
}

// -----

// Bug: the second column is bid + 264 w + 1, the first column of the next
// block (the two stores make one range, which meets the next block's).
gpu.module @m {
  gpu.func @columns_overlap_next_block(%out: memref<2x1000xbf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 132, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c264 = arith.constant 264 : index
    %c1000 = arith.constant 1000 : index
    %v = arith.constant 1.0 : bf16
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %lane = arith.remui %tid, %c32 : index
    %warp = arith.divui %tid, %c32 : index
    %w264 = arith.muli %warp, %c264 : index
    %col0 = arith.addi %bid, %w264 : index
    %col1 = arith.addi %col0, %c1 : index
    %first = arith.cmpi eq, %lane, %c0 : index
    %in0 = arith.cmpi ult, %col0, %c1000 : index
    %ok0 = arith.andi %in0, %first : i1
    scf.if %ok0 {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with itself in another block on kernel argument #0}}
      memref.store %v, %out[%c0, %col0] : memref<2x1000xbf16>
    }
    %in1 = arith.cmpi ult, %col1, %c1000 : index
    %ok1 = arith.andi %in1, %first : i1
    scf.if %ok1 {
      memref.store %v, %out[%c0, %col1] : memref<2x1000xbf16>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck grid=4 args=f32[2x512],f32[2x512] expect=clean
// Twin: a megakernel's elementwise step after a product: each block
// writes the columns bid + 4 s of %h, then (after a barrier) reads the
// same columns back: only its own block wrote them, so no counter is due.
gpu.module @m {
  gpu.func @reads_own_columns(%h: memref<2x512xf32>, %y: memref<2x512xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %v = arith.constant 1.0 : f32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %s4 = arith.muli %tid, %c4 : index
    %col = arith.addi %bid, %s4 : index
    // expected-warning-re @+1 {{[AMK-UNCOALESCED] global store of memref<2x512xf32> is uncoalesced}}
    memref.store %v, %h[%c0, %col] : memref<2x512xf32>
    gpu.barrier
    scf.for %e = %tid to %c256 step %c128 {
      %slot = arith.divui %e, %c2 : index
      %row = arith.remui %e, %c2 : index
      %slot4 = arith.muli %slot, %c4 : index
      %mine = arith.addi %bid, %slot4 : index
      %x = memref.load %h[%row, %mine] : memref<2x512xf32>
      memref.store %x, %y[%row, %mine] : memref<2x512xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the same step reading the columns of the next block (bid + 1),
// which no counter orders: the read may see the neighbour's column before
// or after its write. Invisible to the sanitizers (global memory, every
// access in bounds); the result depends on block timing.
gpu.module @m {
  gpu.func @reads_next_blocks_columns(%h: memref<2x512xf32>, %y: memref<2x512xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %v = arith.constant 1.0 : f32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %s4 = arith.muli %tid, %c4 : index
    %col = arith.addi %bid, %s4 : index
    // expected-warning-re @+2 {{[AMK-UNCOALESCED] global store of memref<2x512xf32> is uncoalesced}}
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with the 'memref.load'}}
    memref.store %v, %h[%c0, %col] : memref<2x512xf32>
    gpu.barrier
    %next = arith.addi %bid, %c1 : index
    %wrapped = arith.remui %next, %c4 : index
    scf.for %e = %tid to %c256 step %c128 {
      %slot = arith.divui %e, %c2 : index
      %row = arith.remui %e, %c2 : index
      %slot4 = arith.muli %slot, %c4 : index
      %theirs = arith.addi %wrapped, %slot4 : index
      %x = memref.load %h[%row, %theirs] : memref<2x512xf32>
      memref.store %x, %y[%row, %theirs] : memref<2x512xf32>
    }
    gpu.return
  }
}

// -----
// Twin: a clamp tied to its guard. Blocks write their own runs of one row;
// a run's column is clamped to 0 where it leaves the row (select), and the
// store runs only where it does not, so no block's clamp reaches column 0.
gpu.module @m {
  gpu.func @clamp_under_guard(%y: memref<1x?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %v = arith.constant dense<1.0> : vector<4xf32>
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c256 : index
    %run = arith.addi %base, %tid : index
    %col = arith.muli %run, %c4 : index
    %last = arith.addi %col, %c3 : index
    %n = memref.dim %y, %c1 : memref<1x?xf32>
    %inside = arith.cmpi ult, %last, %n : index
    %clamped = arith.select %inside, %col, %c0 : index
    %clampedLast = arith.addi %clamped, %c3 : index
    %fits = arith.cmpi ult, %clampedLast, %n : index
    scf.if %inside {
     scf.if %fits {
      vector.store %v, %y[%c0, %clamped] : memref<1x?xf32>, vector<4xf32>
     }
    }
    gpu.return
  }
}

// -----
// Bug: the clamp tests more than the guard does: a run whose last element
// is in the row but not 4 past it writes columns 0 to 3 over block 0's.
gpu.module @m {
  gpu.func @clamp_past_guard(%y: memref<1x?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c256 = arith.constant 256 : index
    %v = arith.constant dense<1.0> : vector<4xf32>
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c256 : index
    %run = arith.addi %base, %tid : index
    %col = arith.muli %run, %c4 : index
    %last = arith.addi %col, %c3 : index
    %beyond = arith.addi %col, %c7 : index
    %n = memref.dim %y, %c1 : memref<1x?xf32>
    %inside = arith.cmpi ult, %last, %n : index
    %early = arith.cmpi ult, %beyond, %n : index
    %clamped = arith.select %early, %col, %c0 : index
    %clampedLast = arith.addi %clamped, %c3 : index
    %fits = arith.cmpi ult, %clampedLast, %n : index
    scf.if %inside {
     scf.if %fits {
      // The clamp sends every thread past the last full run to column 0,
      // where thread 0 writes too.
      // expected-error-re @+2 {{[AMK-GLOBAL-RACE] 'vector.store' at line {{[0-9]+}} races with itself in another block on kernel argument #0{{.*}}element [0, 0]{{.*}}}}
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'vector.store' at line {{[0-9]+}} touches the element that 'vector.store' at line {{[0-9]+}} writes in another thread of its block{{.*}}}}
      vector.store %v, %y[%c0, %clamped] : memref<1x?xf32>, vector<4xf32>
     }
    }
    gpu.return
  }
}

// -----
// Twin: two versions chosen by the buffer's length (uniform over the
// grid): one writes out[bid], the other out[bid + 1]. Each alone gives
// every block its own element; only blocks of different versions would
// meet, and no launch runs both.
gpu.module @m {
  gpu.func @uniform_versions(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %out, %c0 : memref<?xf32>
    %rem = arith.remui %n, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    %next = arith.addi %bid, %c1 : index
    scf.if %first {
      scf.if %even {
        %in = arith.cmpi ult, %bid, %n : index
        scf.if %in {
          memref.store %one, %out[%bid] : memref<?xf32>
        }
      } else {
        %in = arith.cmpi ult, %next, %n : index
        scf.if %in {
          memref.store %one, %out[%next] : memref<?xf32>
        }
      }
    }
    gpu.return
  }
}

// -----
// Bug: the version is chosen by the block id's parity, so block 0 (first
// version) and block 1 (second) both write out[1].
gpu.module @m {
  gpu.func @block_versions(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %out, %c0 : memref<?xf32>
    %rem = arith.remui %bid, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    %next = arith.addi %bid, %c1 : index
    scf.if %first {
      scf.if %even {
        %in = arith.cmpi ult, %bid, %n : index
        scf.if %in {
          // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with {{.*}}on kernel argument #0{{.*}}}}
          memref.store %one, %out[%bid] : memref<?xf32>
        }
      } else {
        %in = arith.cmpi ult, %next, %n : index
        scf.if %in {
          memref.store %one, %out[%next] : memref<?xf32>
        }
      }
    }
    gpu.return
  }
}

// -----
// Bug: the version is chosen by the loop's iteration, uniform over the grid
// in each iteration but not across them: block 1 in the first iteration
// and block 0 in the second both write out[1].
gpu.module @m {
  gpu.func @iteration_versions(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 8, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %out, %c0 : memref<?xf32>
    %first = arith.cmpi eq, %tid, %c0 : index
    %next = arith.addi %bid, %c1 : index
    scf.if %first {
      scf.for %i = %c0 to %c2 step %c1 {
        %early = arith.cmpi eq, %i, %c0 : index
        scf.if %early {
          %in = arith.cmpi ult, %bid, %n : index
          scf.if %in {
            // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with {{.*}}on kernel argument #0{{.*}}}}
            memref.store %one, %out[%bid] : memref<?xf32>
          }
        } else {
          %in = arith.cmpi ult, %next, %n : index
          scf.if %in {
            memref.store %one, %out[%next] : memref<?xf32>
          }
        }
      }
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=7,4 args=f32[128x200],f32[200x128] expect=clean
// Bug: a transposing copy whose blocks step 8 rows of K (not 32) per
// 32-row tile: neighbouring blocks write the same elements of the copy.
// Invisible to the sanitizers: every access is in bounds, and racecheck
// sees shared memory only.
gpu.module @m {
  gpu.func @transpose_overlapping_tiles(%b: memref<128x200xf32>, %bt: memref<200x128xf32>) workgroup(%tile: memref<32x33xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 7, 4, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c200 = arith.constant 200 : index
    %tid = gpu.thread_id x
    %lane = arith.remui %tid, %c32 : index
    %warp = arith.divui %tid, %c32 : index
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %n0 = arith.muli %bx, %c32 : index
    %k0 = arith.muli %by, %c8 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %row = arith.addi %warp, %i : index
      %k = arith.addi %k0, %row : index
      %n = arith.addi %n0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        %v = memref.load %b[%k, %n] : memref<128x200xf32>
        memref.store %v, %tile[%row, %lane] : memref<32x33xf32, #gpu.address_space<workgroup>>
      }
    }
    gpu.barrier
    scf.for %i = %c0 to %c32 step %c8 {
      %col = arith.addi %warp, %i : index
      %n = arith.addi %n0, %col : index
      %k = arith.addi %k0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        %v = memref.load %tile[%lane, %col] : memref<32x33xf32, #gpu.address_space<workgroup>>
        // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} races with itself in another block on kernel argument #1: blocks of a launch are not ordered, so either write may land last (blocks ({{[0-9]+}}, {{[0-9]+}}, 0) and ({{[0-9]+}}, {{[0-9]+}}, 0), element [{{[0-9]+}}, {{[0-9]+}}]); give each block its own elements, or update them atomically}}
        memref.store %v, %bt[%n, %k] : memref<200x128xf32>
      }
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=7,4 args=f32[128x200],f32[200x128]
// Twin: 32-row steps, each block its own tile of the copy.
gpu.module @m {
  gpu.func @transpose_own_tiles(%b: memref<128x200xf32>, %bt: memref<200x128xf32>) workgroup(%tile: memref<32x33xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 7, 4, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c200 = arith.constant 200 : index
    %tid = gpu.thread_id x
    %lane = arith.remui %tid, %c32 : index
    %warp = arith.divui %tid, %c32 : index
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %n0 = arith.muli %bx, %c32 : index
    %k0 = arith.muli %by, %c32 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %row = arith.addi %warp, %i : index
      %k = arith.addi %k0, %row : index
      %n = arith.addi %n0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        %v = memref.load %b[%k, %n] : memref<128x200xf32>
        memref.store %v, %tile[%row, %lane] : memref<32x33xf32, #gpu.address_space<workgroup>>
      }
    }
    gpu.barrier
    scf.for %i = %c0 to %c32 step %c8 {
      %col = arith.addi %warp, %i : index
      %n = arith.addi %n0, %col : index
      %k = arith.addi %k0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        %v = memref.load %tile[%lane, %col] : memref<32x33xf32, #gpu.address_space<workgroup>>
        memref.store %v, %bt[%n, %k] : memref<200x128xf32>
      }
    }
    gpu.return
  }
}
