// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// A dependent launch (`amk.dependent_launch`: the runtime launches it while
// the kernel before it on the stream still runs) sees that kernel's writes
// only after `nvvm.griddepcontrol wait`: nothing that touches memory may run
// before the wait. Each planted bug next to its correct twin.

// Twin: the wait comes first (index arithmetic before it is harmless).
gpu.module @m {
  gpu.func @waits_first(%in: memref<256xf32>, %out: memref<256xf32>) kernel attributes {amk.dependent_launch, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    nvvm.griddepcontrol wait
    nvvm.griddepcontrol launch_dependents
    %x = memref.load %in[%tid] : memref<256xf32>
    memref.store %x, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: the load of the previous kernel's output runs before the wait.
gpu.module @m {
  gpu.func @reads_early(%in: memref<256xf32>, %out: memref<256xf32>) kernel attributes {amk.dependent_launch, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} runs before the kernel waits for the one before it (nvvm.griddepcontrol wait): a dependent launch (amk.dependent_launch) starts while that kernel still runs, so its writes may not be visible yet}}
    %x = memref.load %in[%tid] : memref<256xf32>
    nvvm.griddepcontrol wait
    memref.store %x, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: the wait is under a branch (threads that skip it run unordered).
gpu.module @m {
  gpu.func @waits_in_branch(%in: memref<256xf32>, %out: memref<256xf32>) kernel attributes {amk.dependent_launch, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'scf.if' at line {{[0-9]+}} runs before the kernel waits for the one before it}}
    scf.if %first {
      nvvm.griddepcontrol wait
    }
    %x = memref.load %in[%tid] : memref<256xf32>
    memref.store %x, %out[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: a dependent launch that never waits.
gpu.module @m {
  // expected-error @+1 {{[AMK-GLOBAL-RACE] the kernel is a dependent launch (amk.dependent_launch) but never waits for the kernel before it (nvvm.griddepcontrol wait at the top of its body)}}
  gpu.func @never_waits(%out: memref<256xf32>) kernel attributes {amk.dependent_launch, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    nvvm.griddepcontrol launch_dependents
    gpu.return
  }
}
