// RUN: amk-opt %s --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// RUN: rm -rf %t && amk-opt %s --amk-verify --amk-lower="bundle-dir=%t cache=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/ring_k.json
// The tensor-core body on a TMA ring (stages = 3): the weights' tensor map
// comes last, as a pointer; each stage holds a box of 8 x 256 weights per
// warp (4 x 4 KB, one mbarrier armed with 16384 bytes) and A's 16 x 256
// for those columns (cp.async, 16 bytes per copy, four per thread). Thread
// 0 fills the first stages; each entry waits for its stage's phase, runs
// the products from shared memory, waits for the next entry's A and
// barriers; thread 0 refills the stage with the entry 3 later.

// CHECK:       nvgpu.tma.create.descriptor %{{.*}} box[%c8, %c256] : memref<*xbf16> -> <tensor = memref<8x256xbf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:       gpu.launch_func @ring_k::@ring_k blocks in (%c4, {{.*}} threads in (%c128, {{.*}} dynamic_shared_memory_size %c73728_i32
// CHECK:       gpu.func @ring_k(%[[X:[^:]*]]: memref<16x512xbf16>, %{{[^:]*}}: memref<256x512xbf16>, %[[Y:[^:]*]]: memref<16x256xbf16>, %{{[^:]*}}: memref<1xi32> {amk.counter}, %[[MAP:[^:]*]]: !llvm.ptr) kernel attributes {amk.cooperative, amk.dynamic_smem_align = 128 : i64
// CHECK:         %[[DESC:.*]] = builtin.unrealized_conversion_cast %[[MAP]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<8x256xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK-COUNT-3:   nvgpu.mbarrier.init %[[BARS]][%{{.*}}], %c1
// CHECK:           nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:         gpu.barrier
// CHECK:           nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%c0], %c16384
// CHECK-COUNT-4:   nvgpu.tma.async.load %[[DESC]][%c0, %{{.*}}], %[[BARS]][%c0] to %{{.*}} : <tensor = memref<8x256xbf16
// CHECK:           nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%c1], %c16384
// CHECK:           nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%c2], %c16384
// A's first three entries, then entry 0's has landed.
// CHECK:         nvgpu.device_async_copy %[[X]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<16x512xbf16> to memref<16x256xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_create_group
// CHECK:         nvgpu.device_async_create_group
// CHECK:         %[[G:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT:    nvgpu.device_async_wait %[[G]] {numGroups = 2 : i32}
// CHECK-NEXT:    gpu.barrier
// Entry 0: its stage's phase 0, products from the stage, entry 1's A.
// CHECK:         nvgpu.mbarrier.try_wait.parity %[[BARS]][%c0], %false
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64} : memref<8x256xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK:         nvvm.mma.sync
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT:    gpu.barrier
// Entry 0 refills its stage with entry 3.
// CHECK:           nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%c0], %c16384
// Entry 1 ends the first round of tiles (K = 512: two entries of 256
// columns), whose epilogue follows; entries 2 and 3 are the second round,
// entry 3 in stage 0's second phase.
// CHECK:         nvgpu.mbarrier.try_wait.parity %[[BARS]][%c1], %false
// CHECK:         memref.store %{{.*}}, %[[Y]]
// CHECK:         nvgpu.mbarrier.try_wait.parity %[[BARS]][%c2], %false
// CHECK:         nvgpu.mbarrier.try_wait.parity %[[BARS]][%c0], %true
// CHECK:         memref.store %{{.*}}, %[[Y]]
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:         gpu.return

// MANIFEST:      "tensor_maps": [
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "box": [
// MANIFEST-NEXT:       256,
// MANIFEST-NEXT:       8
// MANIFEST-NEXT:     ],
// MANIFEST-NEXT:     "buffer": "in1",
// MANIFEST-NEXT:     "name": "w0_tma",
// MANIFEST-NEXT:     "swizzle_bytes": 0
module attributes {amk.target = #amk.target<"h200">} {
func.func @ring(%x: memref<16x512xbf16>, %w: memref<256x512xbf16>, %y: memref<16x256xbf16>) {
  amk.kernel "ring_k" config(#amk.graph_config<blocks = 4, threads = 128, rows_per_warp = 1, unroll = 1, math = mma_sync, stages = 3>) {
    amk.graph ins(%x, %w : memref<16x512xbf16>, memref<256x512xbf16>) outs(%y : memref<16x256xbf16>) {
    ^bb0(%xa: memref<16x512xbf16>, %wa: memref<256x512xbf16>, %ya: memref<16x256xbf16>):
      amk.matmul %xa, %wa into %ya {transpose_b} : memref<16x512xbf16>, memref<256x512xbf16>, memref<16x256xbf16>
    }
  }
  return
}
}
