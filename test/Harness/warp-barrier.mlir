// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// `bar.warp.sync 0xffffffff` (__syncwarp) orders the threads of each warp
// as a block barrier orders the block: a warp exchanges through shared
// memory with no block barrier. Threads of other warps it does not order,
// nor does a barrier of some of the warp's lanes. Each planted bug next to
// its correct twin.

// SANITIZE: tool=racecheck args=f32[128]
// Twin: each lane reads its neighbour's element after the warp's barrier,
// and the warp syncs again before the next round overwrites it.
gpu.module @m {
  memref.global "private" @s : memref<128xf32, #gpu.address_space<workgroup>>
  gpu.func @warp_exchange(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<128xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %full = arith.constant -1 : i32
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %ki = arith.index_cast %k : index to i32
      %x = arith.sitofp %ki : i32 to f32
      memref.store %x, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
      nvvm.bar.warp.sync %full : i32
      %j = arith.xori %tid, %c1 : index
      %v = memref.load %s[%j] : memref<128xf32, #gpu.address_space<workgroup>>
      nvvm.bar.warp.sync %full : i32
      %next = arith.addf %acc, %v : f32
      scf.yield %next : f32
    }
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck args=f32[128]
// Bug: a lane reads the element of a lane in another warp (tid ^ 32),
// which the warp's barrier does not order.
gpu.module @m {
  memref.global "private" @s : memref<128xf32, #gpu.address_space<workgroup>>
  gpu.func @other_warp(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<128xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %full = arith.constant -1 : i32
    %f = arith.constant 1.0 : f32
    memref.store %f, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    nvvm.bar.warp.sync %full : i32
    %j = arith.xori %tid, %c32 : index
    // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them{{.*}}}}
    %v = memref.load %s[%j] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=racecheck args=f32[128]
// Bug: the exchange of the twin without the second barrier: the next
// round's store meets the neighbour's read of this one.
gpu.module @m {
  memref.global "private" @s : memref<128xf32, #gpu.address_space<workgroup>>
  gpu.func @one_barrier(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<128xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %full = arith.constant -1 : i32
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %ki = arith.index_cast %k : index to i32
      %x = arith.sitofp %ki : i32 to f32
      memref.store %x, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
      nvvm.bar.warp.sync %full : i32
      %j = arith.xori %tid, %c1 : index
      // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them{{.*}}}}
      %v = memref.load %s[%j] : memref<128xf32, #gpu.address_space<workgroup>>
      %next = arith.addf %acc, %v : f32
      scf.yield %next : f32
    }
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// Bug: a barrier of half the warp's lanes (mask 0xffff) orders nothing
// the checks rely on.
gpu.module @m {
  memref.global "private" @s : memref<128xf32, #gpu.address_space<workgroup>>
  gpu.func @half_mask(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %s = memref.get_global @s : memref<128xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %half = arith.constant 65535 : i32
    %f = arith.constant 1.0 : f32
    memref.store %f, %s[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    nvvm.bar.warp.sync %half : i32
    %j = arith.xori %tid, %c1 : index
    // expected-error-re @+1 {{[AMK-SMEM-RACE] 'memref.load' at line {{[0-9]+}} races with the 'memref.store' at line {{[0-9]+}}: no barrier between them{{.*}}}}
    %v = memref.load %s[%j] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// SANITIZE: tool=memcheck args=f32[128]
// Twin: a warp's exchange through a global buffer, within one block.
gpu.module @m {
  gpu.func @global_exchange(%buf: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %full = arith.constant -1 : i32
    %f = arith.constant 1.0 : f32
    memref.store %f, %buf[%tid] : memref<128xf32>
    nvvm.bar.warp.sync %full : i32
    %j = arith.xori %tid, %c1 : index
    %v = memref.load %buf[%j] : memref<128xf32>
    nvvm.bar.warp.sync %full : i32
    memref.store %v, %buf[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// Bug: the warp's barrier under a branch some of its lanes skip.
gpu.module @m {
  gpu.func @divergent(%out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %tid = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %full = arith.constant -1 : i32
    %lane = arith.remui %tid, %c16 : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %lane, %c0 : index
    scf.if %first {
      // expected-error-re @+1 {{[AMK-CONVERGENCE] warp-level 'nvvm.bar.warp.sync' at line {{[0-9]+}} is under control that can differ within a warp{{.*}}}}
      nvvm.bar.warp.sync %full : i32
    }
    gpu.return
  }
}
