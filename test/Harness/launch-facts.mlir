// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// What a kernel states about its launches (amk.dynamic_smem_bytes, the
// shared memory it was checked against; known_grid_size) must hold for
// every gpu.launch_func of it in the module. Each bug next to its twin.

// Twin: the launch provides the stated shared memory and grid.
module attributes {gpu.container_module} {
  func.func @host(%a: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %s = arith.constant 1024 : i32
    gpu.launch_func @m::@k blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %s args(%a : memref<256xf32>)
    return
  }
  gpu.module @m {
    gpu.func @k(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 2, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
      gpu.return
    }
  }
}

// -----

// Bug: the kernel was checked against 1024 bytes of dynamic shared memory,
// the launch gives 512.
module attributes {gpu.container_module} {
  func.func @host(%a: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %s = arith.constant 512 : i32
    // expected-error @+1 {{[AMK-RES-SMEM] the kernel was checked against 1024 bytes of dynamic shared memory (amk.dynamic_smem_bytes), but this launch provides 512}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %s args(%a : memref<256xf32>)
    return
  }
  gpu.module @m {
    gpu.func @k(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
      gpu.return
    }
  }
}

// -----

// Bug: known_grid_size says one block; the launch runs two (a persistent
// kernel proved for its stated grid would race on the second).
module attributes {gpu.container_module} {
  func.func @host(%a: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    // expected-error @+1 {{[AMK-RES-GRID] the kernel states known_grid_size 1 in dimension 0, but this launch's grid there is 2}}
    gpu.launch_func @m::@k blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<256xf32>)
    return
  }
  gpu.module @m {
    gpu.func @k(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// Bug: the launch's shared memory size is a function argument: whether it
// covers what the kernel was checked against is not known.
module attributes {gpu.container_module} {
  func.func @host(%a: memref<256xf32>, %s: i32) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    // expected-error @+1 {{[AMK-UNPROVABLE] the kernel was checked against 64 bytes of dynamic shared memory (amk.dynamic_smem_bytes), but this launch's size is not a constant}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %s args(%a : memref<256xf32>)
    return
  }
  gpu.module @m {
    gpu.func @k(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 64 : i64} {
      gpu.return
    }
  }
}
