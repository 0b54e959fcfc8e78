// RUN: amk-opt %s --split-input-file --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// Row-wise kernels: a row's threads fold their runs of the row, combine by
// xor shuffles (and across warps through shared memory with one barrier),
// then write.

// A sum with 4 lanes per row, 8 rows per block: shuffles at offsets 2 and
// 1 only, no shared memory, the row's first lane stores.
// CHECK-LABEL: func.func @sum
// CHECK:         gpu.launch_func @sum_rows::@sum_rows blocks in (%c128, %c1, %c1{{.*}}) threads in (%c32,
// CHECK:       gpu.func @sum_rows(%[[X:.*]]: memref<1024x1000xf32>, %[[Y:.*]]: memref<1024xf32>)
// CHECK-NOT:     gpu.dynamic_shared_memory
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c250 step %c16 iter_args
// CHECK-COUNT-4:   vector.load %[[X]][{{.*}}] {alignment = 16 : i64} : memref<1024x1000xf32>, vector<4xf32>
// CHECK:         gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NOT:     gpu.shuffle
// CHECK-NOT:     gpu.barrier
// CHECK:         scf.if
// CHECK:           memref.store %{{.*}}, %[[Y]][%{{.*}}] : memref<1024xf32>
module attributes {amk.target = #amk.target<"h200">} {
func.func @sum(%x: memref<1024x1000xf32>, %y: memref<1024xf32>) {
  amk.kernel "sum_rows" config(#amk.row_config<threads_per_row = 4, rows_per_block = 8, vector = 4>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<sum>} : memref<1024x1000xf32>, memref<1024xf32>
  }
  return
}
}

// -----

// Softmax of 4096-wide bf16 rows, a block per row (8 warps): the online
// (max, sum) pass, warps combined through shared memory after one barrier,
// then the output pass; 8-wide loads and stores, four runs loaded at once
// in each iteration of a pass.
// CHECK-LABEL: func.func @softmax
// CHECK:         gpu.launch_func @softmax_block::@softmax_block {{.*}} threads in (%c256, {{.*}} dynamic_shared_memory_size %c128_i32
// CHECK:       gpu.func @softmax_block(
// CHECK:         gpu.dynamic_shared_memory
// CHECK:         scf.for {{.*}} to %c512 step %c1024 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)
// CHECK-COUNT-4:   vector.load {{.*}} : memref<64x4096xbf16>, vector<8xbf16>
// CHECK:           math.exp
// CHECK:         gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:         gpu.barrier
// CHECK:         scf.for {{.*}} to %c512 step %c1024 {
// CHECK:           math.exp
// CHECK:           vector.store {{.*}} : memref<64x4096xbf16>, vector<8xbf16>
// CHECK-NOT:     gpu.barrier
module attributes {amk.target = #amk.target<"h200">} {
func.func @softmax(%x: memref<64x4096xbf16>, %y: memref<64x4096xbf16>) {
  amk.kernel "softmax_block" config(#amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 8>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<64x4096xbf16>, memref<64x4096xbf16>
  }
  return
}
}

// -----

// Two-pass softmax: a max pass, then a sum of exponentials (its own shared
// memory region, so a second barrier suffices), then the output.
// CHECK-LABEL: func.func @softmax_two_pass
// CHECK:       gpu.func @softmax_two(
// CHECK:         scf.for {{.*}} -> (f32)
// CHECK:           arith.maximumf
// CHECK:         gpu.barrier
// CHECK:         scf.for {{.*}} -> (f32)
// CHECK:           math.exp
// CHECK:         gpu.barrier
module attributes {amk.target = #amk.target<"h200">} {
func.func @softmax_two_pass(%x: memref<8x2048xf32>, %y: memref<8x2048xf32>) {
  amk.kernel "softmax_two" config(#amk.row_config<threads_per_row = 128, rows_per_block = 2, vector = 4, passes = 2>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<8x2048xf32>, memref<8x2048xf32>
  }
  return
}
}

// -----

// A batched LayerNorm with dynamic sizes: the batch guard, the row guard on
// both buffers, loads clamped by the sizes they index, y's store guarded.
// CHECK-LABEL: func.func @layer_norm
// CHECK:       gpu.func @ln_dynamic(%[[X:.*]]: memref<?x?x?xf16>, %[[W:.*]]: memref<?xf16>, %[[B:.*]]: memref<?xf16>, %[[Y:.*]]: memref<?x?x?xf16>)
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK:         memref.dim %[[X]], %c0
// CHECK:         memref.dim %[[Y]], %c0
// CHECK:         scf.if
// CHECK:           memref.subview %[[X]][%[[Z]], 0, 0]
// CHECK:           memref.load %{{.*}} : memref<?x?xf16, strided<[?, 1], offset: ?>>
// CHECK:           memref.dim %[[W]], %c0
// CHECK:           memref.load %[[W]]
// CHECK:           memref.load %[[B]]
// CHECK:           memref.store %{{.*}} : memref<?x?xf16, strided<[?, 1], offset: ?>>
module attributes {amk.target = #amk.target<"h200">} {
func.func @layer_norm(%x: memref<?x?x?xf16>, %w: memref<?xf16>, %b: memref<?xf16>, %y: memref<?x?x?xf16>) {
  amk.kernel "ln_dynamic" config(#amk.row_config<threads_per_row = 32, rows_per_block = 4, vector = 1>) {
    amk.row_reduce %x weight(%w) bias(%b) into %y {kind = #amk.row_op<layer_norm>} : memref<?x?x?xf16>, memref<?xf16>, memref<?xf16>, memref<?x?x?xf16>
  }
  return
}
}

// -----

// A cached row: each thread loads its runs once (clamped to the last run,
// kept as bf16), the statistics fold only the runs that exist (selects),
// and each existing run is written from registers: no second read.
// CHECK-LABEL: func.func @cached
// CHECK:       gpu.func @softmax_cached(%[[X:.*]]: memref<16x1000xbf16>, %[[Y:.*]]: memref<16x1000xbf16>)
// CHECK-SAME:    nvvm.maxnreg = 64
// CHECK:         arith.minui %{{.*}}, %c124 : index
// CHECK:         scf.if %{{.*}} -> (bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16)
// CHECK-COUNT-2:   vector.load %[[X]]{{.*}} : memref<16x1000xbf16>, vector<8xbf16>
// CHECK-NOT:       vector.load %[[X]]
// CHECK:         arith.select
// CHECK:         gpu.shuffle  xor
// CHECK-NOT:     vector.load %[[X]]
// CHECK:         vector.store %{{.*}}, %[[Y]]
module attributes {amk.target = #amk.target<"h200">} {
func.func @cached(%x: memref<16x1000xbf16>, %y: memref<16x1000xbf16>) {
  amk.kernel "softmax_cached" config(#amk.row_config<threads_per_row = 64, rows_per_block = 1, vector = 8, cached_runs = 2>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<16x1000xbf16>, memref<16x1000xbf16>
  }
  return
}
}

// -----

// A dynamic row length with vector runs: one uniform test of every
// buffer's row length picks the vector version (runs clamped by their last
// element, stores guarded by y's size), else element by element.
// CHECK-LABEL: func.func @dynamic_vector
// CHECK:       gpu.func @rms_dynamic(%[[X:.*]]: memref<?x?xf32>, %[[W:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?x?xf32>)
// CHECK:         %[[NX:.*]] = memref.dim %[[X]], %c1
// CHECK:         arith.remui %[[NX]], %c4
// CHECK:         %[[NW:.*]] = memref.dim %[[W]], %c0
// CHECK:         arith.remui %[[NW]], %c4
// CHECK:         scf.if %{{.*}} {
// CHECK:           vector.load %[[X]]{{.*}} : memref<?x?xf32>, vector<4xf32>
// CHECK:           gpu.shuffle
// CHECK:           vector.load %[[W]]{{.*}} : memref<?xf32>, vector<4xf32>
// CHECK:           vector.store {{.*}}, %[[Y]]{{.*}} : memref<?x?xf32>, vector<4xf32>
// CHECK:         } else {
// CHECK:           memref.load %[[X]]{{.*}} : memref<?x?xf32>
// CHECK-NOT:       vector.load
// CHECK:           memref.store {{.*}}, %[[Y]]{{.*}} : memref<?x?xf32>
// CHECK:         }
module attributes {amk.target = #amk.target<"h200">} {
func.func @dynamic_vector(%x: memref<?x?xf32>, %w: memref<?xf32>, %y: memref<?x?xf32>) {
  amk.kernel "rms_dynamic" config(#amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 4>) {
    amk.row_reduce %x weight(%w) into %y {kind = #amk.row_op<rms_norm>} : memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>
  }
  return
}
}

// -----

// A dynamic row length with cached runs: the vector version holds rows of
// 1 to 4 x 32 x 4 elements, each run loaded under its own guard, and
// streams longer ones (online), four runs an iteration. Where 4 does not
// divide the length (rows start anywhere), the element version caches as
// many elements (16 scalar runs, rows up to 512), and streams longer rows
// with the vector's runs loaded element by element (each index clamped on
// its own), then the last n mod 4 elements one at a time.
// CHECK-LABEL: gpu.func @dyn_cached
// CHECK:         %[[N:.*]] = memref.dim %{{.*}}, %c1 : memref<?x?xf32>
// CHECK:         scf.if
// CHECK:           %[[GE:.*]] = arith.cmpi uge, %{{.*}}, %c1 : index
// CHECK:           %[[LE:.*]] = arith.cmpi ule, %{{.*}}, %c512 : index
// CHECK:           %[[FITS:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK:           scf.if %[[FITS]] {
// CHECK:             scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT:          vector.load
// CHECK:           } else {
// CHECK:             scf.for %{{.*}} step %c128
// CHECK:         } else {
// CHECK:           arith.cmpi ule, %{{.*}}, %c512 : index
// CHECK:             scf.if %{{.*}} -> (f32) {
// CHECK-NEXT:          memref.load
// CHECK:           } else {
// CHECK:             scf.for %{{.*}} step %c128
// CHECK-COUNT-4:       memref.load %{{.*}} : memref<?x?xf32>
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[N]] step %c32
// CHECK:               memref.load %{{.*}} : memref<?x?xf32>
module attributes {amk.target = #amk.target<"h200">} {
func.func @dyn(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  amk.kernel "dyn_cached" config(#amk.row_config<threads_per_row = 32, rows_per_block = 1, vector = 4, passes = 2, cached_runs = 4>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<?x?xf32>, memref<?x?xf32>
  }
  return
}
}

// -----

// A row staged in shared memory: the first pass loads each run, copies it
// to the thread's own (unclamped) slot of its row's staged copy and folds
// it; the output pass reads the copy back, under the run's guard, with no
// barrier between the copy and the read beyond the combine's. The staged
// rows come first in shared memory, the combine's statistics after them.
// CHECK-LABEL: func.func @staged
// CHECK:       gpu.func @rms_staged(%[[X:.*]]: memref<16x1000xbf16>, %[[W:.*]]: memref<1000xbf16>, %[[Y:.*]]: memref<16x1000xbf16>)
// CHECK-SAME:    amk.dynamic_smem_bytes = 4160
// CHECK-SAME:    nvvm.maxnreg = 64
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c64
// CHECK:         %[[RAW:.*]] = gpu.dynamic_shared_memory
// CHECK:         %[[STAGED:.*]] = memref.view %[[RAW]][%c0][] {{.*}} to memref<2x1024xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[STATS:.*]] = memref.view %[[RAW]][%c4096][] {{.*}} to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[CLAMPED:.*]] = arith.minui %[[LANE]], %c124
// CHECK:         %[[COL:.*]] = arith.muli %[[CLAMPED]], %c8
// CHECK:         %[[VALID:.*]] = arith.cmpi ult, %[[LANE]], %c125
// CHECK:         %[[SLOT:.*]] = arith.muli %[[LANE]], %c8
// CHECK:         scf.if %{{.*}} -> (vector<8xbf16>, vector<8xbf16>)
// CHECK-NEXT:      %[[LOADED:.*]] = vector.load %[[X]][%{{.*}}, %[[COL]]]
// CHECK-NEXT:      vector.load %[[X]]
// CHECK-NEXT:      vector.store %[[LOADED]], %[[STAGED]][%{{.*}}, %[[SLOT]]]
// CHECK-NEXT:      vector.store
// CHECK:         arith.select %[[VALID]]
// CHECK:         memref.store %{{.*}}, %[[STATS]]
// CHECK:         gpu.barrier
// CHECK:         scf.if %[[VALID]] {
// CHECK-NEXT:      vector.load %[[STAGED]][%{{.*}}, %[[SLOT]]]
// CHECK:           vector.load %[[W]][%[[COL]]]
// CHECK:           vector.store %{{.*}}, %[[Y]]
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
module attributes {amk.target = #amk.target<"h200">} {
func.func @staged(%x: memref<16x1000xbf16>, %w: memref<1000xbf16>, %y: memref<16x1000xbf16>) {
  amk.kernel "rms_staged" config(#amk.row_config<threads_per_row = 64, rows_per_block = 2, vector = 8, cached_runs = 2, cache = shared>) {
    amk.row_reduce %x weight(%w) into %y {kind = #amk.row_op<rms_norm>} : memref<16x1000xbf16>, memref<1000xbf16>, memref<16x1000xbf16>
  }
  return
}
}

// -----

// A row spread over a cluster of 2 blocks: the row is bid / 2, the block's
// rank bid mod 2, its threads take the row's runs rank * 256 and on (runs
// strided by both blocks' 512 threads). Each block's first thread
// publishes its part in its own workspace slots, a cluster barrier, then
// every thread folds both parts in rank order; rank 0's first thread
// writes the sum.
// CHECK-LABEL: func.func @clustered
// CHECK:       gpu.func @sum_cluster(%[[X:.*]]: memref<4x6000xf32>, %[[Y:.*]]: memref<4xf32>, %[[WS:.*]]: memref<4x8xf32>)
// CHECK-SAME:    known_cluster_size = array<i32: 2, 1, 1>
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %c256
// CHECK:         %[[BID:.*]] = gpu.block_id  x
// CHECK:         %[[ROW:.*]] = arith.divui %[[BID]], %c2
// CHECK:         %[[RANK:.*]] = arith.remui %[[BID]], %c2
// CHECK:         %[[BASE:.*]] = arith.muli %[[RANK]], %c256
// CHECK:         %[[ROWLANE:.*]] = arith.addi %[[BASE]], %[[LANE]]
// CHECK:         scf.for %{{.*}} = %[[ROWLANE]] to %c1500 step %c2048
// CHECK:         gpu.barrier
// CHECK:         %[[SLOT:.*]] = arith.muli %[[RANK]], %c2
// CHECK-NEXT:    memref.store %{{.*}}, %[[WS]][%[[ROW]], %[[SLOT]]]
// CHECK:         nvvm.cluster.arrive {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}
// CHECK:         memref.load %[[WS]][%[[ROW]], %c0]
// CHECK-NEXT:    memref.load %[[WS]][%[[ROW]], %c2]
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[ROWLANE]], %c0
// CHECK:         memref.store %{{.*}}, %[[Y]][%[[ROW]]]
module attributes {amk.target = #amk.target<"h200">} {
func.func @clustered(%x: memref<4x6000xf32>, %y: memref<4xf32>) {
  amk.kernel "sum_cluster" config(#amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 4, cluster = 2>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<sum>} : memref<4x6000xf32>, memref<4xf32>
  }
  return
}
}

// -----

// A dynamic row over a cluster of 4: the same indexing, in both versions
// (the vector's and the element by element one). The element version's
// split stores of a run share one column, inside by y's guard of the
// run's last element (so the race check takes the run as one box), and
// its tail strides over all the cluster's 1024 threads.
// CHECK-LABEL: func.func @clustered_dynamic
// CHECK:       gpu.func @softmax_cluster_dyn(%{{.*}}: memref<?x?xbf16>, %[[Y:.*]]: memref<?x?xbf16>, %{{.*}}: memref<?x16xf32>)
// CHECK-SAME:    known_cluster_size = array<i32: 4, 1, 1>
// CHECK:         %[[BID:.*]] = gpu.block_id  x
// CHECK:         %[[ROW:.*]] = arith.divui %[[BID]], %c4
// CHECK:         nvvm.cluster.arrive {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}
// CHECK:         } else {
// CHECK:         nvvm.cluster.arrive {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         %[[LAST:.*]] = arith.addi %[[COL:.*]], %c7
// CHECK-NEXT:    %[[INSIDE:.*]] = arith.cmpi ult, %[[LAST]], %{{.*}}
// CHECK-NEXT:    scf.if %[[INSIDE]] {
// CHECK-NEXT:      memref.store %{{.*}}, %[[Y]][%[[ROW]], %[[COL]]]
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[COL]], %c1
// CHECK-NEXT:      memref.store %{{.*}}, %[[Y]][%[[ROW]], %[[NEXT]]]
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1024
module attributes {amk.target = #amk.target<"h200">} {
func.func @clustered_dynamic(%x: memref<?x?xbf16>, %y: memref<?x?xbf16>) {
  amk.kernel "softmax_cluster_dyn" config(#amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 8, cluster = 4>) {
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<?x?xbf16>, memref<?x?xbf16>
  }
  return
}
}
