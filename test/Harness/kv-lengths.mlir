// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Loops bounded by lengths read at run time (decode attention's KV caches):
// a length from memory or a parameter may be anything, so it bounds an
// index into a cache of L positions only once clamped to [0, L]. Each
// planted bug next to its correct twin. The lengths buffer holds 0, 1, 2,
// 3 (the corpus's pattern for integers), past the cache's 2 positions in
// block 3.

// SANITIZE: tool=memcheck args=f32[4x2x8],i32[4],f32[4x8]
// Twin: the length clamped to [0, 2] (max, then min, then an unsigned
// cast), so every position indexes the cache.
gpu.module @m {
  gpu.func @clamped(%cache: memref<4x2x8xf32>, %len: memref<4xi32>, %out: memref<4x8xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %d = gpu.thread_id x
    %m = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0 : i32
    %cap = arith.constant 2 : i32
    %zero = arith.constant 0.0 : f32
    %l = memref.load %len[%m] : memref<4xi32>
    %lo = arith.maxsi %l, %z : i32
    %hi = arith.minsi %lo, %cap : i32
    %n = arith.index_castui %hi : i32 to index
    %s = scf.for %p = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
      %x = memref.load %cache[%m, %p, %d] : memref<4x2x8xf32>
      %a = arith.addf %acc, %x : f32
      scf.yield %a : f32
    }
    memref.store %s, %out[%m, %d] : memref<4x8xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=f32[4x2x8],i32[4],f32[4x8]
// Bug: the length unclamped: block 3 reads position 2 of a cache of 2,
// past the buffer.
gpu.module @m {
  gpu.func @unclamped(%cache: memref<4x2x8xf32>, %len: memref<4xi32>, %out: memref<4x8xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %d = gpu.thread_id x
    %m = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %l = memref.load %len[%m] : memref<4xi32>
    %n = arith.index_castui %l : i32 to index
    %s = scf.for %p = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
      // expected-error @+1 {{[AMK-OOB] load of memref<4x2x8xf32> may leave the buffer in dimension 1}}
      %x = memref.load %cache[%m, %p, %d] : memref<4x2x8xf32>
      %a = arith.addf %acc, %x : f32
      scf.yield %a : f32
    }
    memref.store %s, %out[%m, %d] : memref<4x8xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=f32[4x2x8],i32=-3,f32[4x8]
// Bug: clamped above only: a negative length (-3 here) stays below the
// cache's 2, and its unsigned cast is near 2^32 positions.
gpu.module @m {
  gpu.func @negative(%cache: memref<4x2x8xf32>, %len: i32, %out: memref<4x8xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %d = gpu.thread_id x
    %m = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cap = arith.constant 2 : i32
    %zero = arith.constant 0.0 : f32
    %hi = arith.minsi %len, %cap : i32
    %n = arith.index_castui %hi : i32 to index
    %s = scf.for %p = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
      // expected-error @+1 {{[AMK-OOB] load of memref<4x2x8xf32> may leave the buffer in dimension 1}}
      %x = memref.load %cache[%m, %p, %d] : memref<4x2x8xf32>
      %a = arith.addf %acc, %x : f32
      scf.yield %a : f32
    }
    memref.store %s, %out[%m, %d] : memref<4x8xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=f32[4x2x8],i32=-3,f32[4x8]
// Twin: the same parameter clamped below first.
gpu.module @m {
  gpu.func @negative_clamped(%cache: memref<4x2x8xf32>, %len: i32, %out: memref<4x8xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %d = gpu.thread_id x
    %m = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0 : i32
    %cap = arith.constant 2 : i32
    %zero = arith.constant 0.0 : f32
    %lo = arith.maxsi %len, %z : i32
    %hi = arith.minsi %lo, %cap : i32
    %n = arith.index_castui %hi : i32 to index
    %s = scf.for %p = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
      %x = memref.load %cache[%m, %p, %d] : memref<4x2x8xf32>
      %a = arith.addf %acc, %x : f32
      scf.yield %a : f32
    }
    memref.store %s, %out[%m, %d] : memref<4x8xf32>
    gpu.return
  }
}
