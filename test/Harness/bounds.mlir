// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Planted out-of-bounds bugs (AMK-OOB), each next to its correct twin.

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
      // expected-error @+2 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0: index its range [0, 1099511627519] is not guarded by the dynamic size it indexes}}
      // expected-error @+2 {{[AMK-OOB] store of memref<?xf32> may leave the buffer}}
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %a[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----

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

// Bug: a missing edge mask: the last block runs past a 1000-element buffer.
gpu.module @m {
  gpu.func @missing_mask(%a: memref<1000xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    // expected-error @+1 {{[AMK-OOB] load of memref<1000xf32> may leave the buffer in dimension 0: index its range [0, 1023] + 1 exceeds 1000}}
    %x = memref.load %a[%i] : memref<1000xf32>
    gpu.return
  }
}

// -----

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
    // expected-error @+1 {{[AMK-OOB] store of memref<256xf32, #gpu.address_space<workgroup>> may leave the buffer in dimension 0: index its range [0, 510] + 1 exceeds 256}}
    memref.store %zero, %buf[%i] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

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

// Bug: a vector load of 4 that the last thread starts 2 elements early.
gpu.module @m {
  gpu.func @vector_past_end(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.muli %tid, %c4 : index
    %i = arith.addi %i0, %c2 : index
    // expected-error @+1 {{[AMK-OOB] vector load of memref<1024xf32> may leave the buffer in dimension 0: index (+4 elements) its range [2, 1022] + 4 exceeds 1024}}
    %v = vector.load %a[%i] : memref<1024xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

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

// Bug: the guard checks the wrong dimension of a dynamic matrix.
gpu.module @m {
  gpu.func @wrong_dim(%a: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cols = memref.dim %a, %c1 : memref<?x?xf32>
    %ok = arith.cmpi ult, %tid, %cols : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<?x?xf32> may leave the buffer in dimension 0: index its range [0, 255] is not guarded by the dynamic size it indexes}}
      %x = memref.load %a[%tid, %c0] : memref<?x?xf32>
    }
    gpu.return
  }
}

// -----

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
