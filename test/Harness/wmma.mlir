// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// wmma fragments (gpu.subgroup_mma_load_matrix / store_matrix): a warp
// reads or writes a rows x cols tile at [i, j], a row every leadDimension
// elements, which must be the memref's own row pitch. The bounds check
// covers every row and column of the tile; the race check takes the tile as
// one access of the warp. Each correct kernel is next to a bug of its shape.

// SANITIZE: tool=memcheck args=f16[64x64],f16[64x64],f32[64x64]
// Twin: 4 warps, each the 16 x 16 tile (warp / 2, warp % 2) of a 32 x 32
// product: loads of A and B, one MMA, the store of C.
gpu.module @m {
  gpu.func @tiles(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %warp = arith.divui %tid, %c32 : index
    %wr = arith.divui %warp, %c2 : index
    %wc = arith.remui %warp, %c2 : index
    %row = arith.muli %wr, %c16 : index
    %col = arith.muli %wc, %c16 : index
    %fa = gpu.subgroup_mma_load_matrix %a[%row, %c0] {leadDimension = 64 : index} : memref<64x64xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %fb = gpu.subgroup_mma_load_matrix %b[%c0, %col] {leadDimension = 64 : index} : memref<64x64xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %zero = arith.constant 0.0 : f32
    %fc = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %fd = gpu.subgroup_mma_compute %fa, %fb, %fc : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %fd, %c[%row, %col] {leadDimension = 64 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<64x64xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=f16[56x64],f16[64x64],f32[64x64]
// Bug: tiles 48 rows apart over an A of 56 rows: warps 2 and 3 read its
// rows 48 to 63.
gpu.module @m {
  gpu.func @tile_past_end(%a: memref<56x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c48 = arith.constant 48 : index
    %warp = arith.divui %tid, %c32 : index
    %wr = arith.divui %warp, %c2 : index
    %wc = arith.remui %warp, %c2 : index
    %row = arith.muli %wr, %c48 : index
    %col = arith.muli %wc, %c16 : index
    // expected-error @+1 {{[AMK-OOB] wmma fragment load of memref<56x64xf16> may leave the buffer in dimension 0: index (+16 elements): its range [0, 48] + 16 exceeds 56}}
    %fa = gpu.subgroup_mma_load_matrix %a[%row, %c0] {leadDimension = 64 : index} : memref<56x64xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %fb = gpu.subgroup_mma_load_matrix %b[%c0, %col] {leadDimension = 64 : index} : memref<64x64xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %zero = arith.constant 0.0 : f32
    %fc = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %fd = gpu.subgroup_mma_compute %fa, %fb, %fc : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %fd, %c[%row, %col] {leadDimension = 64 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<64x64xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=memcheck args=f16[16x64],f16[16x64]
// Bug: a B tile at column 56 of a 16 x 64 B: its columns 64 to 71 lie past
// each row (and the last row's, past the buffer).
gpu.module @m {
  gpu.func @tile_past_row(%b: memref<16x64xf16>, %out: memref<16x64xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c56 = arith.constant 56 : index
    // expected-error @+1 {{[AMK-OOB] wmma fragment load of memref<16x64xf16> may leave the buffer in dimension 1: index (+16 elements): its range [56, 56] + 16 exceeds 64}}
    %fb = gpu.subgroup_mma_load_matrix %b[%c0, %c56] {leadDimension = 64 : index} : memref<16x64xf16> -> !gpu.mma_matrix<16x16xf16, "COp">
    gpu.subgroup_mma_store_matrix %fb, %out[%c0, %c0] {leadDimension = 64 : index} : !gpu.mma_matrix<16x16xf16, "COp">, memref<16x64xf16>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck args=f32[16x32],f32=1.0
// Twin: two warps store their tiles of a shared buffer, a barrier, then a
// third warp-wide load of both.
gpu.module @m {
  gpu.func @shared_tiles(%out: memref<16x32xf32>, %x: f32) workgroup(%s: memref<16x32xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %warp = arith.divui %tid, %c32 : index
    %col = arith.muli %warp, %c16 : index
    %f = gpu.subgroup_mma_constant_matrix %x : !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %f, %s[%c0, %col] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %other = arith.subi %c16, %col : index
    %g = gpu.subgroup_mma_load_matrix %s[%c0, %other] {leadDimension = 32 : index} : memref<16x32xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %g, %out[%c0, %col] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x32xf32>
    gpu.return
  }
}

// -----
// SANITIZE: tool=racecheck args=f32[16x32],f32=1.0
// Bug: the same without the barrier: a warp loads the other's tile while
// the other may still be storing it.
gpu.module @m {
  gpu.func @shared_tiles_no_barrier(%out: memref<16x32xf32>, %x: f32) workgroup(%s: memref<16x32xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %warp = arith.divui %tid, %c32 : index
    %col = arith.muli %warp, %c16 : index
    %f = gpu.subgroup_mma_constant_matrix %x : !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %f, %s[%c0, %col] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x32xf32, #gpu.address_space<workgroup>>
    %other = arith.subi %c16, %col : index
    // expected-error @+1 {{[AMK-SMEM-RACE]}}
    %g = gpu.subgroup_mma_load_matrix %s[%c0, %other] {leadDimension = 32 : index} : memref<16x32xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %g, %out[%c0, %col] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x32xf32>
    gpu.return
  }
}

// -----

// Bug: a leadDimension other than the buffer's row pitch reads rows the
// indices do not name: not modelled.
gpu.module @m {
  gpu.func @lead_mismatch(%b: memref<64x64xf16>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{[AMK-UNPROVABLE] memory access by 'gpu.subgroup_mma_load_matrix' is not modelled by the bounds check}}
    %fb = gpu.subgroup_mma_load_matrix %b[%c0, %c0] {leadDimension = 128 : index} : memref<64x64xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    gpu.return
  }
}
