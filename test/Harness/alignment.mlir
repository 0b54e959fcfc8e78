// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Planted misaligned accesses (AMK-MISALIGNED), each next to its correct
// twin, and uncoalesced global accesses (AMK-UNCOALESCED, a warning: the
// kernel is still accepted) next to coalesced twins. The misaligned bugs
// declare the alignment their width needs (as AMK's own kernels do), so the
// GPU executes them as one wide access and faults.
// SANITIZE: tool=memcheck grid=1 args=f32[1040]
// Bug: a vector load of 4 floats one element off its 16-byte grid.
gpu.module @m {
  gpu.func @vector_off_by_one(%a: memref<1040xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.muli %tid, %c4 : index
    %i = arith.addi %i0, %c1 : index
    // expected-error @+1 {{[AMK-MISALIGNED] vector load of memref<1040xf32> (16 B) is misaligned: its address is 4 mod 16, and it needs 16-byte alignment}}
    %v = vector.load %a[%i] {alignment = 16} : memref<1040xf32>, vector<4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1040]
// Twin: vectors at multiples of 4 elements.
gpu.module @m {
  gpu.func @vector_on_grid(%a: memref<1040xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %i = arith.muli %tid, %c4 : index
    %v = vector.load %a[%i] {alignment = 16} : memref<1040xf32>, vector<4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f16[1032]
// Bug: a 16-byte cp.async from an odd element offset of the source.
gpu.module @m {
  gpu.func @cp_async_odd_source(%a: memref<1032xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 2048 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf16, #gpu.address_space<workgroup>>
    %dst = arith.muli %tid, %c8 : index
    %src = arith.addi %dst, %c1 : index
    // expected-error @+1 {{[AMK-MISALIGNED] cp.async source of memref<1032xf16> (16 B) is misaligned: its address is 2 mod 16, and it needs 16-byte alignment}}
    %t = nvgpu.device_async_copy %a[%src], %buf[%dst], 8 : memref<1032xf16> to memref<1024xf16, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g {numGroups = 0 : i32}
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f16[1032]
// Twin: source chunks at multiples of 8 elements.
gpu.module @m {
  gpu.func @cp_async_aligned(%a: memref<1032xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 2048 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf16, #gpu.address_space<workgroup>>
    %dst = arith.muli %tid, %c8 : index
    %t = nvgpu.device_async_copy %a[%dst], %buf[%dst], 8 : memref<1032xf16> to memref<1024xf16, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g {numGroups = 0 : i32}
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1024 expect=clean
// Bug: ldmatrix rows that start half way into a 16-byte chunk.
gpu.module @m {
  gpu.func @ldmatrix_row_misaligned() kernel attributes {known_block_size = array<i32: 32, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %lane = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-MISALIGNED] ldmatrix row of memref<32x16xf16, #gpu.address_space<workgroup>> (16 B) is misaligned: its address is 8 mod 16, and it needs 16-byte alignment}}
    %frag = nvgpu.ldmatrix %tile[%lane, %c4] {numTiles = 4 : i32, transpose = false} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1024
// Twin: every row address at a 16-byte chunk.
gpu.module @m {
  gpu.func @ldmatrix_row_aligned() kernel attributes {known_block_size = array<i32: 32, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %lane = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xf16, #gpu.address_space<workgroup>>
    %frag = nvgpu.ldmatrix %tile[%lane, %c8] {numTiles = 4 : i32, transpose = false} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1024]
// Bug: a vector store through a subview that starts one element in.
gpu.module @m {
  gpu.func @subview_odd_offset(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %view = memref.subview %a[1] [1020] [1] : memref<1024xf32> to memref<1020xf32, strided<[1], offset: 1>>
    %i = arith.muli %tid, %c4 : index
    // expected-error @+1 {{[AMK-MISALIGNED] vector store of memref<1020xf32, strided<[1], offset: 1>> (16 B) is misaligned: its address is 4 mod 16, and it needs 16-byte alignment}}
    vector.store %zero, %view[%i] {alignment = 16} : memref<1020xf32, strided<[1], offset: 1>>, vector<4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 args=f32[1024]
// Twin: the subview starts at a 16-byte boundary.
gpu.module @m {
  gpu.func @subview_aligned_offset(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %view = memref.subview %a[4] [1020] [1] : memref<1024xf32> to memref<1020xf32, strided<[1], offset: 4>>
    %i = arith.muli %tid, %c4 : index
    vector.store %zero, %view[%i] {alignment = 16} : memref<1020xf32, strided<[1], offset: 4>>, vector<4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=2 args=f32[2x258]
// Bug: vector rows of a matrix whose leading dimension is dynamic: with 258
// columns, row 1 starts 8 bytes past a 16-byte boundary.
gpu.module @m {
  gpu.func @dynamic_ld_unchecked(%a: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %row = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %rows = memref.dim %a, %c0 : memref<?x?xf32>
    %cols = memref.dim %a, %c1 : memref<?x?xf32>
    %col = arith.muli %tid, %c4 : index
    %last = arith.addi %col, %c3 : index
    %in_rows = arith.cmpi ult, %row, %rows : index
    %in_cols = arith.cmpi ult, %last, %cols : index
    %ok = arith.andi %in_rows, %in_cols : i1
    scf.if %ok {
      // expected-error @+1 {{[AMK-MISALIGNED] vector load of memref<?x?xf32> (16 B) needs 16-byte alignment, but its address is only provably a multiple of 4 B: the term 4 x ('gpu.block_id' at line 143) x (the dynamic size of dimension 1 of argument 0) B is only known to be a multiple of 4 B}}
      %v = vector.load %a[%row, %col] {alignment = 16} : memref<?x?xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=2 args=f32[2x260]
// SANITIZE: tool=memcheck grid=2 args=f32[2x258]
// Twin: the kernel checks that the leading dimension keeps rows 16-byte
// aligned before it takes the vector path.
gpu.module @m {
  gpu.func @dynamic_ld_checked(%a: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %row = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %rows = memref.dim %a, %c0 : memref<?x?xf32>
    %cols = memref.dim %a, %c1 : memref<?x?xf32>
    %col = arith.muli %tid, %c4 : index
    %last = arith.addi %col, %c3 : index
    %in_rows = arith.cmpi ult, %row, %rows : index
    %in_cols = arith.cmpi ult, %last, %cols : index
    %ok = arith.andi %in_rows, %in_cols : i1
    %rem = arith.remui %cols, %c4 : index
    %ld_ok = arith.cmpi eq, %rem, %c0 : index
    %vec_ok = arith.andi %ok, %ld_ok : i1
    scf.if %vec_ok {
      %v = vector.load %a[%row, %col] {alignment = 16} : memref<?x?xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1032 args=f32[256]
// Bug: a shared-memory view 8 bytes into dynamic shared memory, read with
// 16-byte vectors.
gpu.module @m {
  gpu.func @view_shift_8(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, amk.dynamic_smem_bytes = 1032 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c8][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x4xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-MISALIGNED] vector load of memref<64x4xf32, #gpu.address_space<workgroup>> (16 B) is misaligned: its address is 8 mod 16, and it needs 16-byte alignment}}
    %v = vector.load %tile[%tid, %c0] {alignment = 16} : memref<64x4xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %c4 = arith.constant 4 : index
    %o = arith.muli %tid, %c4 : index
    vector.store %v, %out[%o] : memref<256xf32>, vector<4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1040 args=f32[256]
// Twin: the view starts 16 bytes in.
gpu.module @m {
  gpu.func @view_shift_16(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, amk.dynamic_smem_bytes = 1040 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c16][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x4xf32, #gpu.address_space<workgroup>>
    %v = vector.load %tile[%tid, %c0] {alignment = 16} : memref<64x4xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %c4 = arith.constant 4 : index
    %o = arith.muli %tid, %c4 : index
    vector.store %v, %out[%o] : memref<256xf32>, vector<4xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1028
// Bug: a float view at a byte shift of 2: even scalar loads are misaligned.
gpu.module @m {
  gpu.func @scalar_view_shift_2() kernel attributes {known_block_size = array<i32: 64, 1, 1>, amk.dynamic_smem_bytes = 1028 : i64} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c2][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-MISALIGNED] load of memref<256xf32, #gpu.address_space<workgroup>> (4 B) is misaligned: its address is 2 mod 4, and it needs 4-byte alignment}}
    %x = memref.load %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck grid=1 smem=1028
// Twin: the view at a byte shift of 4.
gpu.module @m {
  gpu.func @scalar_view_shift_4() kernel attributes {known_block_size = array<i32: 64, 1, 1>, amk.dynamic_smem_bytes = 1028 : i64} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c4][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    %x = memref.load %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: 16-byte vectors from a workgroup attribution that only promises the
// alignment of its floats (4 bytes).
gpu.module @m {
  gpu.func @attribution_unaligned() workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %i = arith.muli %tid, %c4 : index
    // expected-error @+1 {{[AMK-MISALIGNED] vector load of memref<256xf32, #gpu.address_space<workgroup>> (16 B) needs 16-byte alignment, but its address is only provably a multiple of 4 B: its base is a workgroup attribution without llvm.align, aligned to its element (4 B) only}}
    %v = vector.load %buf[%i] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.return
  }
}

// -----

// Twin: the attribution declares 16-byte alignment.
gpu.module @m {
  gpu.func @attribution_aligned() workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %i = arith.muli %tid, %c4 : index
    %v = vector.load %buf[%i] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.return
  }
}

// -----

// Bug: every thread walks its own row of a row-major matrix, so a warp's
// loads are a column: 32 lanes 1 KiB apart, one 32-byte sector each.
gpu.module @m {
  gpu.func @column_walk(%a: memref<256x256xf32>, %out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (f32) {
      // expected-warning @+1 {{[AMK-UNCOALESCED] global load of memref<256x256xf32> is uncoalesced: adjacent threads access addresses 1024 B (256 elements) apart, so warp 0 touches 32 sectors of 32 B for the 128 B it reads (4 would do)}}
      %x = memref.load %a[%tid, %k] : memref<256x256xf32>
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Twin: every thread walks a column, so a warp reads a row: 128 contiguous
// bytes, 4 sectors.
gpu.module @m {
  gpu.func @row_walk(%a: memref<256x256xf32>, %out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%k, %tid] : memref<256x256xf32>
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: the same column walk over a matrix with a dynamic leading dimension:
// the stride is the row length.
gpu.module @m {
  gpu.func @column_walk_dynamic(%a: memref<?x?xf32>, %out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %rows = memref.dim %a, %c0 : memref<?x?xf32>
    %ok = arith.cmpi ult, %tid, %rows : index
    scf.if %ok {
      // expected-warning @+1 {{[AMK-UNCOALESCED] global load of memref<?x?xf32> is uncoalesced: adjacent threads access addresses 4 x (the dynamic size of dimension 1 of argument 0) B apart, so warp 0 touches 32 sectors of 32 B for the 128 B it reads (4 would do)}}
      %x = memref.load %a[%tid, %c0] : memref<?x?xf32>
      memref.store %x, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Twin: the first row, read along the row.
gpu.module @m {
  gpu.func @row_dynamic(%a: memref<?x?xf32>, %out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cols = memref.dim %a, %c1 : memref<?x?xf32>
    %ok = arith.cmpi ult, %tid, %cols : index
    scf.if %ok {
      %x = memref.load %a[%c0, %tid] : memref<?x?xf32>
      memref.store %x, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: each thread stores one float every 8: a warp spreads 128 B over
// 32 sectors.
gpu.module @m {
  gpu.func @strided_store(%out: memref<2048xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %i = arith.muli %tid, %c8 : index
    // expected-warning @+1 {{[AMK-UNCOALESCED] global store of memref<2048xf32> is uncoalesced: adjacent threads access addresses 32 B (8 elements) apart, so warp 0 touches 32 sectors of 32 B for the 128 B it writes (4 would do)}}
    memref.store %zero, %out[%i] : memref<2048xf32>
    gpu.return
  }
}

// -----

// Twin: each thread stores 8 contiguous floats (two 16-byte vectors): the
// warp's 1 KiB fill 32 sectors exactly.
gpu.module @m {
  gpu.func @strided_vector_store(%out: memref<2048xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %i = arith.muli %tid, %c8 : index
    %j = arith.addi %i, %c4 : index
    vector.store %zero, %out[%i] : memref<2048xf32>, vector<4xf32>
    vector.store %zero, %out[%j] : memref<2048xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

// Bug: an alignment assumption too weak for the access: 8 bytes promised,
// 16-byte vectors loaded.
gpu.module @m {
  gpu.func @assume_too_weak() workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %i = arith.muli %tid, %c4 : index
    %a = memref.assume_alignment %buf, 8 : memref<256xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-MISALIGNED] vector load of memref<256xf32, #gpu.address_space<workgroup>> (16 B) needs 16-byte alignment, but its address is only provably a multiple of 8 B: its base is memref.assume_alignment 8 on a workgroup attribution without llvm.align, aligned to its element (4 B) only}}
    %v = vector.load %a[%i] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.return
  }
}

// -----

// Twin: memref.assume_alignment promises 16 bytes, taken as a fact.
gpu.module @m {
  gpu.func @assume_aligned() workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %i = arith.muli %tid, %c4 : index
    %a = memref.assume_alignment %buf, 16 : memref<256xf32, #gpu.address_space<workgroup>>
    %v = vector.load %a[%i] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.return
  }
}
