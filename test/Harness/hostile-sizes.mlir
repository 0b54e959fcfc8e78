// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-verify --verify-diagnostics
// Sizes in hand-written kernels are counted without wrapping: launch
// dimensions past the target's limits stop the checks before they
// enumerate threads, shared-memory sizes past int64 saturate and are
// reported as such, and a view's end is computed checked. (Before, 2^31-1
// cubed threads printed as 4611686024869838847, and two 2^64-byte shared
// attributions verified clean.)

gpu.module @m {
  // expected-error @+2 {{[AMK-RES-THREADS] more than 2^63 threads per block exceed the limit 1024 of target 'h200'}}
  // expected-error @+1 {{[AMK-RES-GRID] grid 1x1x2147483647 exceeds max_grid_dim_z = 65535 of target 'h200'}}
  gpu.func @huge_launch(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 2147483647, 2147483647, 2147483647>, known_grid_size = array<i32: 1, 1, 2147483647>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{[AMK-RES-SMEM] shared memory more than 2^63 B (more than 2^63 B static) exceeds the opt-in limit 232448 B of target 'h200'}}
  gpu.func @huge_shared(%a: memref<?xf32>) workgroup(%s: memref<4611686018427387904xf32, #gpu.address_space<workgroup>>, %s2: memref<4611686018427387904xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %t = gpu.thread_id x
    %x = memref.load %s[%t] : memref<4611686018427387904xf32, #gpu.address_space<workgroup>>
    memref.store %x, %s2[%t] : memref<4611686018427387904xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{[AMK-RES-SMEM] shared memory 4294967296 B (4294967296 B static) exceeds the opt-in limit 232448 B of target 'h200'}}
  gpu.func @big_shared(%a: memref<?xf32>) workgroup(%s: memref<1073741824xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %t = gpu.thread_id x
    %x = memref.load %s[%t] : memref<1073741824xf32, #gpu.address_space<workgroup>>
    memref.store %x, %s[%t] : memref<1073741824xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @huge_view() kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-OOB] shared-memory view of memref<4611686018427387904xf32, #gpu.address_space<workgroup>> holds more than 2^63 bytes: it cannot fit in shared memory}}
    %buf = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4611686018427387904xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @view_end_past_int64() kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %shift = arith.constant 9223372036854775000 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-OOB] shared-memory view of 1024 B at offset up to 9223372036854775000 ends at more than 2^63 B, past the 1024 B the launch provides}}
    %buf = memref.view %smem[%shift][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
