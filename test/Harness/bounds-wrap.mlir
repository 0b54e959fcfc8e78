// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Index arithmetic that wraps modulo 2^64, guards whose sides wrap or whose
// signedness differs from the bound's, and casts that claim what the source
// does not promise: the bounds check once proved each of these bugs in
// bounds. Each planted bug, and the correct kernels (twins) that the fixes
// must still accept.

// Bug: a guard `j ult -1` holds for every j: it says nothing of j's sign (a[-5] at thread 0).
gpu.module @m {
  gpu.func @k(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c5 = arith.constant 5 : index
    %cm1 = arith.constant -1 : index
    %j = arith.subi %i, %c5 : index
    %ok = arith.cmpi ult, %j, %cm1 : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<256xf32> may leave the buffer in dimension 0: index: it can be negative (-5)}}
      %x = memref.load %a[%j] : memref<256xf32>
      memref.store %x, %b[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: a signed guard whose side wraps: tid + INT64_MAX < n holds for tid >= 1 (a[255] of a 1-element buffer).
gpu.module @m {
  gpu.func @k(%a: memref<?xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %big = arith.constant 9223372036854775807 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %g = arith.addi %i, %big : index
    %ok = arith.cmpi slt, %g, %n : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0: index: its range [0, 255] is not}}
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %b[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: an unsigned guard against a signed minimum: i <u minsi(n, -1) always holds.
gpu.module @m {
  gpu.func @k(%a: memref<?xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %cm1 = arith.constant -1 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %m = arith.minsi %n, %cm1 : index
    %ok = arith.cmpi ult, %i, %m : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0: index: its range [0, 255] is not}}
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %b[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: x + c is not non-negative when it can pass INT64_MAX (tid + INT64_MAX).
gpu.module @m {
  gpu.func @k(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c256 = arith.constant 256 : index
    %big = arith.constant 9223372036854775807 : index
    %j = arith.addi %i, %big : index
    %ok = arith.cmpi slt, %j, %c256 : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<256xf32> may leave the buffer in dimension 0: index: it can be negative (-92}}
      %x = memref.load %a[%j] : memref<256xf32>
      memref.store %x, %b[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: x * c is not non-negative when it can pass INT64_MAX ((tid + 2^61) * 4).
gpu.module @m {
  gpu.func @k(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c256 = arith.constant 256 : index
    %c4 = arith.constant 4 : index
    %big = arith.constant 2305843009213693952 : index
    %x0 = arith.addi %i, %big : index
    %j = arith.muli %x0, %c4 : index
    %ok = arith.cmpi slt, %j, %c256 : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<256xf32> may leave the buffer in dimension 0: index: it can be negative (-92}}
      %x = memref.load %a[%j] : memref<256xf32>
      memref.store %x, %b[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: size - c with c negative is no smaller than the size (n + 2^63 - 1 wraps).
gpu.module @m {
  gpu.func @k(%a: memref<?xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %k = arith.constant -9223372036854775807 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %j = arith.subi %n, %k : index
    %ok = arith.cmpi slt, %j, %n : index
    scf.if %ok {
      // expected-error @+1 {{[AMK-OOB] load of memref<?xf32> may leave the buffer in dimension 0: index: it can be negative (-9223}}
      %x = memref.load %a[%j] : memref<?xf32>
      memref.store %x, %b[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: a vector of 3 at (-3 tid) mod 6 (unsigned): 3 divides -3 tid but not its 64-bit value, and tid 2 reads elements 4..6 of 6.
gpu.module @m {
  gpu.func @k(%a: memref<6xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
    %i = gpu.thread_id x
    %cm3 = arith.constant -3 : index
    %c6 = arith.constant 6 : index
    %t = arith.muli %i, %cm3 : index
    %j = arith.remui %t, %c6 : index
    // expected-error @+1 {{[AMK-OOB] vector load of memref<6xf32> may leave the buffer in dimension 0: index (+3 elements): its }}
    %v = vector.load %a[%j] : memref<6xf32>, vector<3xf32>
    %e = vector.extract %v[0] : f32 from vector<3xf32>
    memref.store %e, %b[%i] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: an access of a static size 0.
gpu.module @m {
  gpu.func @k(%a: memref<0xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{[AMK-OOB] load of memref<0xf32> may leave the buffer in dimension 0: index: its range [0, 0] + 1 exce}}
    %x = memref.load %a[%c0] : memref<0xf32>
    memref.store %x, %b[%i] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: a subview of 0 elements read at 0 (its offset unchecked): reads a[1000 tid].
gpu.module @m {
  gpu.func @k(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1000 = arith.constant 1000 : index
    %o = arith.muli %i, %c1000 : index
    %s = memref.subview %a[%o] [0] [1] : memref<256xf32> to memref<0xf32, strided<[1], offset: ?>>
    // expected-warning @+2 {{[AMK-UNCOALESCED] global load of memref<0xf32, strided<[1], offset: ?>> is uncoalesced}}
    // expected-error @+1 {{[AMK-OOB] load of memref<0xf32, strided<[1], offset: ?>> may leave the buffer in dimension 0}}
    %x = memref.load %s[%c0] : memref<0xf32, strided<[1], offset: ?>>
    memref.store %x, %b[%i] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: a cast through an unranked memref claims 4096 elements of a 16-byte buffer.
gpu.module @m {
  gpu.func @k(%a: memref<16xi8>, %b: memref<256xi8>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %u = memref.cast %a : memref<16xi8> to memref<*xi8>
    // expected-error @+1 {{[AMK-UNPROVABLE] memref.cast from an unranked memref to memref<4096xi8>: the real sizes and layout a}}
    %big = memref.cast %u : memref<*xi8> to memref<4096xi8>
    %x = memref.load %big[%i] : memref<4096xi8>
    memref.store %x, %b[%i] : memref<256xi8>
    gpu.return
  }
}

// -----

// Bug: a cast claims a static row stride the source leaves dynamic (a view with row stride 1 read as 256).
gpu.module @m {
  gpu.func @k(%w: memref<4x256xf32, strided<[?, 1]>>, %b: memref<4x256xf32>) kernel attributes {known_block_size = array<i32: 256, 4, 1>} {
    %i = gpu.thread_id y
    %j = gpu.thread_id x
    // expected-error @+1 {{[AMK-UNPROVABLE] memref.cast from memref<4x256xf32, strided<[?, 1]>> to memref<4x256xf32> claims a s}}
    %a = memref.cast %w : memref<4x256xf32, strided<[?, 1]>> to memref<4x256xf32>
    %x = memref.load %a[%i, %j] : memref<4x256xf32>
    memref.store %x, %b[%i, %j] : memref<4x256xf32>
    gpu.return
  }
}

// -----

// Twin: a[iv + 1] in a loop up to n - 1 (the bound, a size less 1, guards iv + 1 < n).
gpu.module @m {
  gpu.func @k(%a: memref<?xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %ub = arith.subi %n, %c1 : index
    scf.for %iv = %c0 to %ub step %c1 {
      %j = arith.addi %iv, %c1 : index
      %x = memref.load %a[%j] : memref<?xf32>
      memref.store %x, %b[%i] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Twin: the reverse index n - 1 - i under i < n, in [0, n - 1].
gpu.module @m {
  gpu.func @k(%a: memref<?xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      %m = arith.subi %n, %c1 : index
      %j = arith.subi %m, %i : index
      %x = memref.load %a[%j] : memref<?xf32>
      memref.store %x, %b[%i] : memref<256xf32>
    }
    gpu.return
  }
}
