// RUN: amk-opt %s --split-input-file --amk-test-kernel-analyses --verify-diagnostics -o /dev/null
// What the harness's analyses conclude (test/lib/Harness): the kernel range
// analysis every check reads, UniformityInfo per thread group, and the byte
// addresses of AddressModel (terms in text order). Ops marked amk.test get
// one remark each.

// Ranges: thread ids from known_block_size, block dimensions folded, loop
// variables from their bounds (not their step: [0, 15], not [0, 12]); interval arithmetic loses relations (the
// bounds check's prover keeps them: 2 t - 8 (t / 4) is 2 (t mod 4)).
gpu.module @m {
  gpu.func @ranges(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    // expected-remark @+1 {{result #0: range [0, 127], divergent in every warp}}
    %t = gpu.thread_id x {amk.test}
    // expected-remark @+1 {{result #0: range [128, 128], uniform over grid, cluster, block, warpgroup, warp}}
    %d = gpu.block_dim x {amk.test}
    %q = arith.divui %t, %c4 : index
    %a = arith.muli %t, %c2 : index
    %b = arith.muli %q, %c8 : index
    // expected-remark @+1 {{result #0: range [-248, 254], divergent in every warp}}
    %lane2 = arith.subi %a, %b {amk.test} : index
    scf.for %i = %c0 to %c16 step %c4 { // i = 0, 4, 8, 12
      // expected-remark @+1 {{result #0: range [0, 12], uniform over grid, cluster, block, warpgroup, warp}}
      %j = arith.addi %i, %c0 {amk.test} : index
    }
    gpu.return
  }
}

// -----

// Uniformity: a block id is uniform within a block, not over the grid; a
// warp index is uniform within a warp; a value read from memory is
// divergent over the grid (another block may write it) and, at an index of
// the thread, within a warp.
gpu.module @m {
  gpu.func @uniformity(%a: memref<256xi32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %t = gpu.thread_id x
    // expected-remark @+1 {{result #0: range [0, 4294967294], uniform over block, warpgroup, warp}}
    %b = gpu.block_id x {amk.test}
    // expected-remark @+1 {{result #0: range [0, 7], uniform over warp}}
    %w = arith.divui %t, %c32 {amk.test} : index
    // expected-remark @+1 {{result #0: range [0, 1], uniform over warpgroup, warp}}
    %g = arith.divui %t, %c128 {amk.test} : index
    // A test of the thread id at a group boundary is uniform over the group
    // (tid < 128: warpgroup 0; 95 < tid: warps 3 on; tid <= 40: neither).
    // expected-remark @+1 {{result #0: range [-1, 0], uniform over warpgroup, warp}}
    %first = arith.cmpi ult, %t, %c128 {amk.test} : index
    %c95 = arith.constant 95 : index
    // expected-remark @+1 {{result #0: range [-1, 0], uniform over warp}}
    %late = arith.cmpi ult, %c95, %t {amk.test} : index
    %c40 = arith.constant 40 : index
    // expected-remark @+1 {{result #0: range [-1, 0], divergent in every warp}}
    %some = arith.cmpi ule, %t, %c40 {amk.test} : index
    // expected-remark @+1 {{result #0: range [-2147483648, 2147483647], uniform over block, warpgroup, warp; address 0 bytes}}
    %x = memref.load %a[%c0] {amk.test} : memref<256xi32>
    // expected-remark @+1 {{result #0: range [-2147483648, 2147483647], divergent in every warp; address 4 * ('gpu.thread_id' at line 45) bytes}}
    %y = memref.load %a[%t] {amk.test} : memref<256xi32>
    gpu.return
  }
}

// -----

// Cluster scope (known_cluster_size 2): the cluster id and a block id over
// a multiple of the cluster's extent are the same for the cluster's
// blocks; the block's rank in it, another division, and a value read from
// memory are not.
gpu.module @m {
  gpu.func @cluster_uniformity(%a: memref<256xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %b = gpu.block_id x
    // expected-remark @+1 {{result #0: range [0, 2147483647], uniform over cluster, block, warpgroup, warp}}
    %row = arith.divui %b, %c2 {amk.test} : index
    // expected-remark @+1 {{result #0: range [0, 1073741823], uniform over cluster, block, warpgroup, warp}}
    %pair = arith.divui %b, %c4 {amk.test} : index
    // expected-remark @+1 {{result #0: range [0, 1431655764], uniform over block, warpgroup, warp}}
    %third = arith.divui %b, %c3 {amk.test} : index
    // expected-remark @+1 {{result #0: range [0, 1], uniform over block, warpgroup, warp}}
    %rank = arith.remui %b, %c2 {amk.test} : index
    // expected-remark @+1 {{result #0: range [0, 4294967294], uniform over cluster, block, warpgroup, warp}}
    %cid = gpu.cluster_id x {amk.test}
    // expected-remark @+1 {{result #0: range [-2147483648, 2147483647], uniform over block, warpgroup, warp; address 0 bytes}}
    %x = memref.load %a[%c0] {amk.test} : memref<256xi32>
    gpu.return
  }
}

// -----

// Addresses: a dynamic row pitch is the size of the argument's last
// dimension; a subview adds its offsets (rows 4, columns 8 and 4: 16 pitches
// and 48 bytes); a vector store's address is its first element's.
gpu.module @m {
  gpu.func @addresses(%a: memref<?x?xf32>, %i: index, %j: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %t = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    // expected-remark @+1 {{address 4 * ('gpu.thread_id' at line 106) + 4 * (argument 1) * (the dynamic size of dimension 1 of argument 0) bytes}}
    %v = memref.load %a[%i, %t] {amk.test} : memref<?x?xf32>
    %s = memref.subview %a[%c4, %c8] [16, 16] [1, 1] : memref<?x?xf32> to memref<16x16xf32, strided<[?, 1], offset: ?>>
    %f = arith.constant dense<1.0> : vector<4xf32>
    // expected-remark @+1 {{address 16 * (the dynamic size of dimension 1 of argument 0) + 4 * (argument 2) * (the dynamic size of dimension 1 of argument 0) + 48 bytes}}
    vector.store %f, %s[%j, %c4] {amk.test} : memref<16x16xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
    gpu.return
  }
}

// -----

// Slots (SlotCounters): %count only takes adds, and the launch zeroes it:
// 16 x 256 adds of 1 to element 0 bound its slots by 4095, 16 adds of 256
// (one thread per block) element 1's by 3840, and the block's reservation
// read back from shared memory is element 1's slot too. %bins' elements
// vary with the data (not zeroed: no range); %seen is also loaded, so its
// counts are no slots.
gpu.module @m {
  gpu.func @slots(%count: memref<2xi32> {amk.counter}, %bins: memref<16xi32>, %seen: memref<1xi32>, %key: memref<4096xi32>) workgroup(%base: memref<1xi32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 256 : i32
    // expected-remark @+1 {{result #0: range [0, 4095], divergent in every warp; address 0 bytes; slot of counter 0, element 0, adding 1}}
    %s = memref.atomic_rmw addi %one, %count[%c0] {amk.test} : (i32, memref<2xi32>) -> i32
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      // expected-remark @+1 {{result #0: range [0, 3840], divergent in every warp; address 4 bytes; slot of counter 0, element 1, adding 256}}
      %r = memref.atomic_rmw addi %n, %count[%c1] {amk.test} : (i32, memref<2xi32>) -> i32
      memref.store %r, %base[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // expected-remark @+1 {{result #0: range [0, 3840], uniform over block, warpgroup, warp; address 0 bytes; slot of counter 0, element 1, adding 256, shared by the block}}
    %b = memref.load %base[%c0] {amk.test} : memref<1xi32, #gpu.address_space<workgroup>>
    %k = memref.load %key[%tid] : memref<4096xi32>
    %c16 = arith.constant 16 : i32
    %bin32 = arith.remui %k, %c16 : i32
    %bin = arith.index_cast %bin32 : i32 to index
    // expected-remark @+1 {{slot of counter 1, a varying element, adding 1}}
    %p = memref.atomic_rmw addi %one, %bins[%bin] {amk.test} : (i32, memref<16xi32>) -> i32
    // expected-remark @+1 {{result #0: range [-2147483648, 2147483647], divergent in every warp; address 0 bytes}}
    %q = memref.atomic_rmw addi %one, %seen[%c0] {amk.test} : (i32, memref<1xi32>) -> i32
    %z = memref.load %seen[%c0] : memref<1xi32>
    gpu.return
  }
}
