// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Planted out-of-bounds bugs (AMK-OOB), each next to its correct twin.
// SANITIZE: tool=memcheck grid=4 args=f32[1000]
// Bug: off by one: the guard lets index n through (ule instead of ult).
gpu.module @m {
  gpu.func @off_by_one(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %ok = arith.cmpi ule, %i, %n : index
    scf.if %ok {
      // expected-error @+2 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0: index: its range [0, 1099511627519] is not guarded by the dynamic size it indexes}}
      // expected-error @+2 {{[AMK-OOB] store of memref<?xf32> may leave the buffer}}
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %a[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=4 args=f32[1000]
// Twin: the right guard, for every size.
gpu.module @m {
  gpu.func @guarded(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %a[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=4 args=f32[1000]
// Bug: a missing edge mask: the last block runs past a 1000-element buffer.
gpu.module @m {
  gpu.func @missing_mask(%a: memref<1000xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    // expected-error @+1 {{[AMK-OOB] load of memref<1000xf32> may leave the buffer in dimension 0: index: its range [0, 1023] + 1 exceeds 1000}}
    %x = memref.load %a[%i] : memref<1000xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=4 args=f32[1000]
// Twin: with the mask (a select of an in-bounds index, as AMK's kernels do).
gpu.module @m {
  gpu.func @masked(%a: memref<1000xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %c1000 = arith.constant 1000 : index
    %c0 = arith.constant 0 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %ok = arith.cmpi ult, %i, %c1000 : index
    %safe = arith.select %ok, %i, %c0 : index
    %x = memref.load %a[%safe] : memref<1000xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1024
// Bug: a wrong stride into shared memory (two floats per thread, one slot).
gpu.module @m {
  gpu.func @wrong_stride() kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0.0 : f32
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    %i = arith.muli %tid, %c2 : index
    // expected-error @+1 {{[AMK-OOB] store of memref<256xf32, #gpu.address_space<workgroup>> may leave the buffer in dimension 0: index: its range [0, 510] + 1 exceeds 256}}
    memref.store %zero, %buf[%i] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1024
// Twin: one slot per thread.
gpu.module @m {
  gpu.func @right_stride() kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %zero, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: a shared-memory view larger than the launch provides.
gpu.module @m {
  gpu.func @view_too_big() kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %c512 = arith.constant 512 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-OOB] shared-memory view of 1024 B at offset up to 512 ends at 1536 B, past the 1024 B the launch provides}}
    %buf = memref.view %smem[%c512][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Twin: the launch provides the 1536 B the view ends at.
gpu.module @m {
  gpu.func @view_fits() kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 1536 : i64} {
    %c512 = arith.constant 512 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c512][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1024]
// Bug: a vector load of 4 that the last thread starts 2 elements early.
gpu.module @m {
  gpu.func @vector_past_end(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.muli %tid, %c4 : index
    %i = arith.addi %i0, %c2 : index
    // expected-error @+2 {{[AMK-OOB] vector load of memref<1024xf32> may leave the buffer in dimension 0: index (+4 elements): its range [2, 1022] + 4 exceeds 1024}}
    // expected-error @+1 {{[AMK-MISALIGNED] vector load of memref<1024xf32> (16 B) is misaligned: its address is 8 mod 16}}
    %v = vector.load %a[%i] : memref<1024xf32>, vector<4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1024]
// Twin: 4-aligned vectors end exactly at the buffer's end.
gpu.module @m {
  gpu.func @vector_aligned(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %i = arith.muli %tid, %c4 : index
    %v = vector.load %a[%i] : memref<1024xf32>, vector<4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[64x256]
// Bug: the guard checks the wrong dimension of a dynamic matrix.
gpu.module @m {
  gpu.func @wrong_dim(%a: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cols = memref.dim %a, %c1 : memref<?x?xf32>
    %ok = arith.cmpi ult, %tid, %cols : index
    scf.if %ok {
      // expected-error @+2 {{[AMK-OOB] load of memref<?x?xf32> may leave the buffer in dimension 0: index: its range [0, 255] is not guarded by the dynamic size it indexes}}
      // expected-warning @+1 {{[AMK-UNCOALESCED] global load of memref<?x?xf32> is uncoalesced}}
      %x = memref.load %a[%tid, %c0] : memref<?x?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[64x256]
// Twin: the guard checks the dimension the thread id indexes.
gpu.module @m {
  gpu.func @right_dim(%a: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %rows = memref.dim %a, %c0 : memref<?x?xf32>
    %ok = arith.cmpi ult, %tid, %rows : index
    scf.if %ok {
      // A column walk: correct, but slow (a warning only).
      // expected-warning @+1 {{[AMK-UNCOALESCED] global load of memref<?x?xf32> is uncoalesced}}
      %x = memref.load %a[%tid, %c0] : memref<?x?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=8 smem=4096 args=f32[8x64]
// Bug: an async copy of 4 floats with no zero-fill outside the rows.
gpu.module @m {
  gpu.func @copy_unguarded(%a: memref<?x64xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 4096 : i64} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c4 = arith.constant 4 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<512xf32, #gpu.address_space<workgroup>>
    %r0 = arith.divui %tid, %c16 : index
    %c = arith.remui %tid, %c16 : index
    %col = arith.muli %c, %c4 : index
    %row = arith.addi %bid, %r0 : index
    %dst = arith.muli %tid, %c4 : index
    // expected-error @+1 {{[AMK-OOB] cp.async source of memref<?x64xf32> may leave the buffer in dimension 0}}
    %t = nvgpu.device_async_copy %a[%row, %col], %buf[%dst], 4 : memref<?x64xf32> to memref<512xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=8 smem=4096 args=f32[8x64]
// Twin: zero-fill outside the rows (src elements 0, source index clamped).
gpu.module @m {
  gpu.func @copy_guarded(%a: memref<?x64xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 4096 : i64} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c4 = arith.constant 4 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<512xf32, #gpu.address_space<workgroup>>
    %r0 = arith.divui %tid, %c16 : index
    %c = arith.remui %tid, %c16 : index
    %col = arith.muli %c, %c4 : index
    %row = arith.addi %bid, %r0 : index
    %rows = memref.dim %a, %c0 : memref<?x64xf32>
    %ok = arith.cmpi ult, %row, %rows : index
    %srow = arith.select %ok, %row, %c0 : index
    %n = arith.select %ok, %c4, %c0 : index
    %dst = arith.muli %tid, %c4 : index
    %t = nvgpu.device_async_copy %a[%srow, %col], %buf[%dst], 4, %n : memref<?x64xf32> to memref<512xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=3,2 args=f32[32x40]
// Bug: a 16x16 tile of a dynamic matrix whose column guard uses `<=`: the
// column equal to the width gets through.
gpu.module @m {
  gpu.func @tile_col_ule(%a: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %r0 = arith.muli %by, %c16 : index
    %row = arith.addi %r0, %ty : index
    %q0 = arith.muli %bx, %c16 : index
    %col = arith.addi %q0, %tx : index
    %rows = memref.dim %a, %c0 : memref<?x?xf32>
    %cols = memref.dim %a, %c1 : memref<?x?xf32>
    %rok = arith.cmpi ult, %row, %rows : index
    %cok = arith.cmpi ule, %col, %cols : index
    %ok = arith.andi %rok, %cok : i1
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<?x?xf32> may leave the buffer in dimension 1: index: its range [0, 68719476719] is not guarded by the dynamic size it indexes}}
      %x = memref.load %a[%row, %col] : memref<?x?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=3,2 args=f32[32x40]
// Twin: both guards strict.
gpu.module @m {
  gpu.func @tile_col_ult(%a: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %r0 = arith.muli %by, %c16 : index
    %row = arith.addi %r0, %ty : index
    %q0 = arith.muli %bx, %c16 : index
    %col = arith.addi %q0, %tx : index
    %rows = memref.dim %a, %c0 : memref<?x?xf32>
    %cols = memref.dim %a, %c1 : memref<?x?xf32>
    %rok = arith.cmpi ult, %row, %rows : index
    %cok = arith.cmpi ult, %col, %cols : index
    %ok = arith.andi %rok, %cok : i1
    scf.if %ok {
      %x = memref.load %a[%row, %col] : memref<?x?xf32>
    }
    gpu.return
  }
}

// -----

// Bug: row and column swapped on a read of a 64x128 matrix: the thread id
// (0..127) indexes the 64 rows.
gpu.module @m {
  gpu.func @copy_swapped(%a: memref<64x128xf32>, %b: memref<64x128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    // expected-error @+2 {{[AMK-OOB] load of memref<64x128xf32> may leave the buffer in dimension 0: index: its range [0, 127] + 1 exceeds 64}}
    // expected-warning @+1 {{[AMK-UNCOALESCED] global load of memref<64x128xf32> is uncoalesced: adjacent threads access addresses 512 B (128 elements) apart}}
    %x = memref.load %a[%tid, %bid] : memref<64x128xf32>
    memref.store %x, %b[%bid, %tid] : memref<64x128xf32>
    gpu.return
  }
}

// -----

// Twin: the block id picks the row, the thread id the column.
gpu.module @m {
  gpu.func @copy_rows(%a: memref<64x128xf32>, %b: memref<64x128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %x = memref.load %a[%bid, %tid] : memref<64x128xf32>
    memref.store %x, %b[%bid, %tid] : memref<64x128xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1,1,8 args=f32[8x4x64]
// Bug: the batch index is off by one (block_id z + 1) on an 8-batch tensor.
gpu.module @m {
  gpu.func @batch_off_by_one(%a: memref<8x?x?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 8>} {
    %tid = gpu.thread_id x
    %bz = gpu.block_id z
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %b = arith.addi %bz, %c1 : index
    %cols = memref.dim %a, %c2 : memref<8x?x?xf32>
    %ok = arith.cmpi ult, %tid, %cols : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<8x?x?xf32> may leave the buffer in dimension 0: index: its range [1, 8] + 1 exceeds 8}}
      %x = memref.load %a[%b, %c0, %tid] : memref<8x?x?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1,1,8 args=f32[8x4x64]
// Twin: block z is the batch.
gpu.module @m {
  gpu.func @batch(%a: memref<8x?x?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 8>} {
    %tid = gpu.thread_id x
    %bz = gpu.block_id z
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %cols = memref.dim %a, %c2 : memref<8x?x?xf32>
    %ok = arith.cmpi ult, %tid, %cols : index
    scf.if %ok {
      %x = memref.load %a[%bz, %c0, %tid] : memref<8x?x?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[256],f32[256]
// Bug: the left neighbour `tid - 1` without a guard: thread 0 reads index -1.
gpu.module @m {
  gpu.func @left_neighbour(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %j = arith.subi %tid, %c1 : index
    // expected-error @+1 {{[AMK-OOB] load of memref<256xf32> may leave the buffer in dimension 0: index: it can be negative (-1)}}
    %x = memref.load %a[%j] : memref<256xf32>
    memref.store %x, %b[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[256],f32[256]
// Twin: the unsigned guard `tid - 1 < 256` leaves thread 0 out (its index
// wraps around to the largest index).
gpu.module @m {
  gpu.func @left_neighbour_guarded(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %j = arith.subi %tid, %c1 : index
    %ok = arith.cmpi ult, %j, %c256 : index
    scf.if %ok {
      %x = memref.load %a[%j] : memref<256xf32>
      memref.store %x, %b[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1022]
// Bug: vector stores of 4 over 1022 floats with no tail: the last thread
// writes elements 1020..1023.
gpu.module @m {
  gpu.func @vector_no_tail(%a: memref<1022xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %z = arith.constant dense<0.0> : vector<4xf32>
    %i = arith.muli %tid, %c4 : index
    // expected-error @+1 {{[AMK-OOB] vector store of memref<1022xf32> may leave the buffer in dimension 0: index (+4 elements): its range [0, 1020] + 4 exceeds 1022}}
    vector.store %z, %a[%i] : memref<1022xf32>, vector<4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1022]
// Twin: full vectors where all 4 fit, a scalar tail loop for the rest.
gpu.module @m {
  gpu.func @vector_with_tail(%a: memref<1022xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c1022 = arith.constant 1022 : index
    %z = arith.constant dense<0.0> : vector<4xf32>
    %zs = arith.constant 0.0 : f32
    %i = arith.muli %tid, %c4 : index
    %last = arith.addi %i, %c3 : index
    %full = arith.cmpi ult, %last, %c1022 : index
    scf.if %full {
      vector.store %z, %a[%i] : memref<1022xf32>, vector<4xf32>
    } else {
      scf.for %e = %i to %c1022 step %c1 {
        memref.store %zs, %a[%e] : memref<1022xf32>
      }
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1022]
// Bug: a vector store of 4 into a buffer of dynamic length guarded only on
// its first element: the length need not be a multiple of 4.
gpu.module @m {
  gpu.func @vector_first_guard(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1024 = arith.constant 1024 : index
    %z = arith.constant dense<0.0> : vector<4xf32>
    %n = memref.dim %a, %c0 : memref<?xf32>
    %base = arith.muli %bid, %c1024 : index
    %t4 = arith.muli %tid, %c4 : index
    %i = arith.addi %base, %t4 : index
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] vector store of memref<?xf32> may leave the buffer in dimension 0: index (+4 elements): its range [0, 4398046510076] is not guarded by the dynamic size it indexes}}
      vector.store %z, %a[%i] : memref<?xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1022]
// Twin: the guard checks the vector's last element.
gpu.module @m {
  gpu.func @vector_last_guard(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c1024 = arith.constant 1024 : index
    %z = arith.constant dense<0.0> : vector<4xf32>
    %n = memref.dim %a, %c0 : memref<?xf32>
    %base = arith.muli %bid, %c1024 : index
    %t4 = arith.muli %tid, %c4 : index
    %i = arith.addi %base, %t4 : index
    %last = arith.addi %i, %c3 : index
    %ok = arith.cmpi ult, %last, %n : index
    scf.if %ok {
      vector.store %z, %a[%i] : memref<?xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1024]
// Bug: a block-strided loop over 1024 elements runs one chunk too many
// (5 chunks of 256 instead of 4).
gpu.module @m {
  gpu.func @loop_one_too_many(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c256 = arith.constant 256 : index
    %zs = arith.constant 0.0 : f32
    scf.for %k = %c0 to %c5 step %c1 {
      %base = arith.muli %k, %c256 : index
      %j = arith.addi %base, %tid : index
      // expected-error @+1 {{[AMK-OOB] store of memref<1024xf32> may leave the buffer in dimension 0: index: its range [0, 1279] + 1 exceeds 1024}}
      memref.store %zs, %a[%j] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1024]
// Twin: 4 chunks of 256.
gpu.module @m {
  gpu.func @loop_exact(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %zs = arith.constant 0.0 : f32
    scf.for %k = %c0 to %c4 step %c1 {
      %base = arith.muli %k, %c256 : index
      %j = arith.addi %base, %tid : index
      memref.store %zs, %a[%j] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1024 expect=clean
// Bug: ldmatrix row addresses of two warps into a 32x16 f16 tile, but the
// second warp starts at row 32 (warp * 32 instead of warp * 16).
gpu.module @m {
  gpu.func @ldmatrix_past_tile() kernel attributes {known_block_size = array<i32: 64, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xf16, #gpu.address_space<workgroup>>
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %r = arith.remui %lane, %c16 : index
    %half = arith.divui %lane, %c16 : index
    %col = arith.muli %half, %c8 : index
    %wr = arith.muli %warp, %c32 : index
    %row = arith.addi %wr, %r : index
    // expected-error @+1 {{[AMK-OOB] ldmatrix row of memref<32x16xf16, #gpu.address_space<workgroup>> may leave the buffer in dimension 0: index: its range [0, 47] + 1 exceeds 32}}
    %v = nvgpu.ldmatrix %tile[%row, %col] {numTiles = 4 : i32, transpose = false} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1024
// Twin: each warp reads its own 16 rows.
gpu.module @m {
  gpu.func @ldmatrix_in_tile() kernel attributes {known_block_size = array<i32: 64, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xf16, #gpu.address_space<workgroup>>
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %r = arith.remui %lane, %c16 : index
    %half = arith.divui %lane, %c16 : index
    %col = arith.muli %half, %c8 : index
    %wr = arith.muli %warp, %c16 : index
    %row = arith.addi %wr, %r : index
    %v = nvgpu.ldmatrix %tile[%row, %col] {numTiles = 4 : i32, transpose = false} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=4 args=f32[1024],f32[1024]
// Bug: a 2-point stencil reads its right neighbour `i + 1` at the last
// element too.
gpu.module @m {
  gpu.func @halo_unguarded(%a: memref<1024xf32>, %b: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %ip = arith.addi %i, %c1 : index
    %x = memref.load %a[%i] : memref<1024xf32>
    // expected-error @+1 {{[AMK-OOB] load of memref<1024xf32> may leave the buffer in dimension 0: index: its range [1, 1024] + 1 exceeds 1024}}
    %y = memref.load %a[%ip] : memref<1024xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %b[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=4 args=f32[1024],f32[1024]
// Twin: the neighbour is read only where it exists (the last element uses
// itself, a clamped boundary).
gpu.module @m {
  gpu.func @halo_guarded(%a: memref<1024xf32>, %b: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %ip = arith.addi %i, %c1 : index
    %x = memref.load %a[%i] : memref<1024xf32>
    %in = arith.cmpi ult, %ip, %c1024 : index
    %y = scf.if %in -> f32 {
      %v = memref.load %a[%ip] : memref<1024xf32>
      scf.yield %v : f32
    } else {
      scf.yield %x : f32
    }
    %s = arith.addf %x, %y : f32
    memref.store %s, %b[%i] : memref<1024xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1024
// Bug: the first step of a shared-memory reduction tree adds the partner at
// `tid + 256` (the block size) instead of `tid + 128` (half of it), past the
// 256-element array.
gpu.module @m {
  gpu.func @reduce_wrong_stride() kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %sdata = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    %ok = arith.cmpi ult, %tid, %c128 : index
    scf.if %ok {
      %j = arith.addi %tid, %c256 : index
      %x = memref.load %sdata[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{[AMK-OOB] load of memref<256xf32, #gpu.address_space<workgroup>> may leave the buffer in dimension 0: index: its range [256, 511] + 1 exceeds 256}}
      %y = memref.load %sdata[%j] : memref<256xf32, #gpu.address_space<workgroup>>
      %z = arith.addf %x, %y : f32
      memref.store %z, %sdata[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1024
// Twin: the first 128 threads add the partner 128 elements up.
gpu.module @m {
  gpu.func @reduce_right_stride() kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %sdata = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    %ok = arith.cmpi ult, %tid, %c128 : index
    scf.if %ok {
      %j = arith.addi %tid, %c128 : index
      %x = memref.load %sdata[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      %y = memref.load %sdata[%j] : memref<256xf32, #gpu.address_space<workgroup>>
      %z = arith.addf %x, %y : f32
      memref.store %z, %sdata[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    gpu.return
  }
}

// -----

// Bug: a subview of a dynamic buffer with a static window (elements 8 to
// 23) and no guard that the buffer has 24 elements.
gpu.module @m {
  gpu.func @subview_past_source(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    // expected-error @+1 {{[AMK-OOB] subview of memref<?xf32> (16 elements in dimension 0) may reach past its source: offset 8 + 16 elements exceeds the dynamic size}}
    %s = memref.subview %a[8] [16] [1] : memref<?xf32> to memref<16xf32, strided<[1], offset: 8>>
    %x = memref.load %s[%tid] : memref<16xf32, strided<[1], offset: 8>>
    gpu.return
  }
}

// -----

// Twin: under a guard that the buffer holds elements 8 to 23.
gpu.module @m {
  gpu.func @subview_guarded(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c24 = arith.constant 24 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %fits = arith.cmpi sge, %n, %c24 : index
    scf.if %fits {
      %s = memref.subview %a[8] [16] [1] : memref<?xf32> to memref<16xf32, strided<[1], offset: 8>>
      %x = memref.load %s[%tid] : memref<16xf32, strided<[1], offset: 8>>
    }
    gpu.return
  }
}

// -----

// Bug: a per-block subview at a dynamic offset: 17 blocks of 64 elements
// over a 1024-element buffer (the accesses inside the subview are in
// bounds of the subview; the subview itself is not).
gpu.module @m {
  gpu.func @subview_dynamic_offset(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 17, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c64 = arith.constant 64 : index
    %off = arith.muli %bid, %c64 : index
    // expected-error @+1 {{[AMK-OOB] subview of memref<1024xf32> (64 elements in dimension 0) may reach past its source: offset: its range [0, 1024] + 64 exceeds 1024}}
    %s = memref.subview %a[%off] [64] [1] : memref<1024xf32> to memref<64xf32, strided<[1], offset: ?>>
    %x = memref.load %s[%tid] : memref<64xf32, strided<[1], offset: ?>>
    gpu.return
  }
}

// -----

// Twin: 16 blocks cover the buffer exactly.
gpu.module @m {
  gpu.func @subview_per_block(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c64 = arith.constant 64 : index
    %off = arith.muli %bid, %c64 : index
    %s = memref.subview %a[%off] [64] [1] : memref<1024xf32> to memref<64xf32, strided<[1], offset: ?>>
    %x = memref.load %s[%tid] : memref<64xf32, strided<[1], offset: ?>>
    gpu.return
  }
}

// -----

// Bug: a batch subview whose batch index is the block id, launched with
// one block too many on z (the grid comes from the module's launch).
module attributes {gpu.container_module} {
  func.func @host(%a: memref<4x64xf32>) {
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@batch_past_end blocks in (%c1, %c1, %c5) threads in (%c64, %c1, %c1) args(%a : memref<4x64xf32>)
    return
  }
  gpu.module @m {
    gpu.func @batch_past_end(%a: memref<4x64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %b = gpu.block_id z
      // expected-error @+1 {{[AMK-OOB] subview of memref<4x64xf32> (1 elements in dimension 0) may reach past its source: offset: its range [0, 4] + 1 exceeds 4}}
      %s = memref.subview %a[%b, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      %x = memref.load %s[%tid] : memref<64xf32, strided<[1], offset: ?>>
      gpu.return
    }
  }
}

// -----

// Twin: one block per batch.
module attributes {gpu.container_module} {
  func.func @host(%a: memref<4x64xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@batch_per_block blocks in (%c1, %c1, %c4) threads in (%c64, %c1, %c1) args(%a : memref<4x64xf32>)
    return
  }
  gpu.module @m {
    gpu.func @batch_per_block(%a: memref<4x64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %b = gpu.block_id z
      %s = memref.subview %a[%b, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      %x = memref.load %s[%tid] : memref<64xf32, strided<[1], offset: ?>>
      gpu.return
    }
  }
}

// -----

// Bug: a view of dynamic shared memory at a negative byte shift.
gpu.module @m {
  gpu.func @view_negative_shift() kernel attributes {known_block_size = array<i32: 64, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %tid = gpu.thread_id x
    %zero = arith.constant 0.0 : f32
    %cm16 = arith.constant -16 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-OOB] shared-memory view at a byte shift that can be negative (-16) starts before dynamic shared memory}}
    %buf = memref.view %smem[%cm16][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %zero, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Twin: the view at byte 16.
gpu.module @m {
  gpu.func @view_positive_shift() kernel attributes {known_block_size = array<i32: 64, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %tid = gpu.thread_id x
    %zero = arith.constant 0.0 : f32
    %c16 = arith.constant 16 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c16][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %zero, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: an atomic add one element past the guard (split-K style partial
// sums into the wrong column).
gpu.module @m {
  gpu.func @atomic_off_by_one(%c: memref<?xf32>, %x: f32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %c, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %tid, %n : index
    scf.if %ok {
      %i = arith.addi %tid, %c1 : index
      // expected-error @+1 {{[AMK-OOB] atomic read-modify-write of memref<?xf32> may leave the buffer in dimension 0}}
      %old = memref.atomic_rmw addf %x, %c[%i] : (f32, memref<?xf32>) -> f32
    }
    gpu.return
  }
}

// -----

// Twin: the atomic add at the guarded index.
gpu.module @m {
  gpu.func @atomic_guarded(%c: memref<?xf32>, %x: f32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %n = memref.dim %c, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %tid, %n : index
    scf.if %ok {
      %old = memref.atomic_rmw addf %x, %c[%tid] : (f32, memref<?xf32>) -> f32
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=7,4 args=f32[128x200],f32[200x128]
// Twin: a transposing copy through a 32 x 32 shared tile: warp w (of 8)
// moves rows w + i for i = 0, 8, 16, 24 (a loop of step 8 below 32), so
// every row index is below 32.
gpu.module @m {
  gpu.func @transpose_tiles(%b: memref<128x200xf32>, %bt: memref<200x128xf32>) workgroup(%tile: memref<32x33xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 7, 4, 1>} {
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

// -----
// SANITIZE: tool=memcheck grid=7,4 args=f32[128x200],f32[200x128]
// Bug: the copy's first loop runs to 33 (not 32) in steps of 8: i = 32
// takes warp w to row 32 + w, past the 32-row tile.
gpu.module @m {
  gpu.func @stepped_past_tile(%b: memref<128x200xf32>, %bt: memref<200x128xf32>) workgroup(%tile: memref<32x33xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 7, 4, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c33 = arith.constant 33 : index
    %c128 = arith.constant 128 : index
    %c200 = arith.constant 200 : index
    %tid = gpu.thread_id x
    %lane = arith.remui %tid, %c32 : index
    %warp = arith.divui %tid, %c32 : index
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %n0 = arith.muli %bx, %c32 : index
    %k0 = arith.muli %by, %c32 : index
    scf.for %i = %c0 to %c33 step %c8 {
      %row = arith.addi %warp, %i : index
      %k = arith.addi %k0, %row : index
      %n = arith.addi %n0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        %v = memref.load %b[%k, %n] : memref<128x200xf32>
        // expected-error @+1 {{[AMK-OOB] store of memref<32x33xf32, #gpu.address_space<workgroup>> may leave the buffer in dimension 0: index: its range [0, 39] + 1 exceeds 32}}
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

// -----
// SANITIZE: tool=memcheck grid=4 args=f32[1000],f32[1000]
// Twin: a reversing copy, b[n - 1 - i] = a[i] under i < n and n == size
// of b: proven from one system over i, n and b's size (the guard's i < n
// makes n - 1 - i >= 0, n == m bounds it by b's size).
gpu.module @m {
  gpu.func @reverse(%a: memref<?xf32>, %b: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %m = memref.dim %b, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %i, %n : index
    %ok2 = arith.cmpi eq, %n, %m : index
    %both = arith.andi %ok, %ok2 : i1
    scf.if %both {
      %nm1 = arith.subi %n, %c1 : index
      %j = arith.subi %nm1, %i : index
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %b[%j] : memref<?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=4 args=f32[1000],f32[1000]
// Bug: the reversing copy under i <= n: thread n reads a[n] and writes
// b[-1].
gpu.module @m {
  gpu.func @reverse_off_by_one(%a: memref<?xf32>, %b: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %m = memref.dim %b, %c0 : memref<?xf32>
    %ok = arith.cmpi ule, %i, %n : index
    %ok2 = arith.cmpi eq, %n, %m : index
    %both = arith.andi %ok, %ok2 : i1
    scf.if %both {
      %nm1 = arith.subi %n, %c1 : index
      %j = arith.subi %nm1, %i : index
      // expected-error @+2 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0: index: its range [0, 1099511627519] is not guarded by the dynamic size it indexes}}
      // expected-error @+2 {{[AMK-OOB] store of memref<?xf32> may leave the buffer in dimension 0: index: it can be negative (-1099511627520)}}
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %b[%j] : memref<?xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=4 args=f32[1000],f32[600]
// Bug: the reversing copy under n >= size of b (not ==): b is shorter than
// a, and n - 1 - i reaches past its end.
gpu.module @m {
  gpu.func @reverse_into_shorter(%a: memref<?xf32>, %b: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %m = memref.dim %b, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %i, %n : index
    %ok2 = arith.cmpi uge, %n, %m : index
    %both = arith.andi %ok, %ok2 : i1
    scf.if %both {
      %nm1 = arith.subi %n, %c1 : index
      %j = arith.subi %nm1, %i : index
      %x = memref.load %a[%i] : memref<?xf32>
      // expected-error @+1 {{[AMK-OOB] store of memref<?xf32> may leave the buffer in dimension 0: index: its range [-1099511627520, 2305843009213693950] is not guarded by the dynamic size it indexes}}
      memref.store %x, %b[%j] : memref<?xf32>
    }
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=i16[3]@zero
// Bug: three i16 counters, six bytes: a 16-bit atomic add is a 32-bit
// compare-and-swap of the aligned word around its element, and the word
// of counter 2 holds bytes 4-7 (memcheck sees the read past the buffer).
gpu.module @m {
  gpu.func @count_i16_odd(%ctr: memref<3xi16>) kernel attributes {known_block_size = array<i32: 96, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %one = arith.constant 1 : i16
    %which = arith.divui %tid, %c32 : index
    // expected-error @+1 {{updates an i16 by a 32-bit compare-and-swap of the aligned 4-byte word around it (sub-word atomics are widened): memref<3xi16> holds 6 bytes, so its last element's word reaches 2 bytes past the buffer}}
    %old = memref.atomic_rmw addi %one, %ctr[%which] : (i16, memref<3xi16>) -> i16
    gpu.return
  }
}

// -----

// SANITIZE: tool=run,memcheck args=i16[4]@zero
// Twin: four i16 counters fill two whole words.
gpu.module @m {
  gpu.func @count_i16_words(%ctr: memref<4xi16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %one = arith.constant 1 : i16
    %which = arith.divui %tid, %c32 : index
    %old = memref.atomic_rmw addi %one, %ctr[%which] : (i16, memref<4xi16>) -> i16
    gpu.return
  }
}
