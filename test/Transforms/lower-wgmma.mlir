// REQUIRES: ptxas
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=BATCHED
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=BNN
// RUN: rm -rf %t && amk-opt %s --split-input-file --amk-lower="bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_wgmma_nn.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/gemm_wgmma_nn.json
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=WS
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=SPLIT
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=REPACK
// RUN: FileCheck %s --check-prefix=REPACK-MANIFEST < %t/gemm_wgmma_tf32_nn.json
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=REPACK-A
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=TN
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=TT
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=PAD
// The Hopper kernel (math = wgmma): A [M, K] and B [K, N] (MN-major, loaded
// in 64-column chunks and transposed by wgmma), three stages, two
// warpgroups, bias and GELU in the epilogue.

// The host encodes a tensor map per operand and passes it as a pointer.
// CHECK-LABEL: func.func @nn
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK:         gpu.launch_func @gemm_wgmma_nn::@gemm_wgmma_nn {{.*}} dynamic_shared_memory_size %c98304_i32 args({{.*}}, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr)

// The kernel: its dynamic shared memory 1024-aligned, one mbarrier per
// stage armed with the stage's 32 KB (A 128x64, B 2 chunks of 64x64).
// CHECK:       gpu.func @gemm_wgmma_nn({{.*}}, %[[MA:.*]]: !llvm.ptr, %[[MB:.*]]: !llvm.ptr) kernel attributes {amk.dynamic_smem_align = 1024 : i64, amk.dynamic_smem_bytes = 98304 : i64, known_block_size = array<i32: 256, 1, 1>
// CHECK:         builtin.unrealized_conversion_cast %[[MA]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16
// CHECK:         nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK:         nvgpu.mbarrier.init
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:         gpu.barrier
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%c0], %c32768
// CHECK-COUNT-3: nvgpu.tma.async.load
// k-tile 0: four k16 steps, each leaving the k-tile's groups in flight;
// B's k-steps are 16 rows of both chunks.
// CHECK:         nvgpu.mbarrier.try_wait.parity %{{.*}}[%c0], %false
// CHECK:         memref.subview %{{.*}}[0, 16, 0] [2, 16, 64] [1, 1, 1] : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.warpgroup.mma {{.*}} {transposeB, waitGroup = 4 : i64}
// Whole rounds of the ring in a loop, refilling the stage before.
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %false
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK:           gpu.barrier
// CHECK:           scf.if
// CHECK:             nvgpu.mbarrier.arrive.expect_tx
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// The epilogue reads the accumulator registers, transposes each quad's
// four n8 tiles by shuffles (xor 2, then 1), so that each lane holds eight
// columns: bias, GELU, 16-byte bf16 stores.
// CHECK:         builtin.unrealized_conversion_cast %{{.*}} : !nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>> to !llvm.struct<(struct<(f32
// CHECK:         llvm.extractvalue %{{.*}}[0, 0]
// CHECK-COUNT-4: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK-COUNT-4: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:         math.erf
// CHECK:         vector.store {{.*}} {alignment = 16 : i64} : memref<256x512xbf16>, vector<8xbf16>

// The PTX has the swizzle-aligned dynamic shared memory, bulk tensor copies and
// transposed-B wgmma (imm-trans-b = 1).
// PTX: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  1;

// The manifest: the kernel's tensor maps (boxes innermost first) and its
// parameters, the maps last.
// MANIFEST:      "params": [
// MANIFEST-NEXT:   "A",
// MANIFEST-NEXT:   "B",
// MANIFEST-NEXT:   "bias",
// MANIFEST-NEXT:   "C",
// MANIFEST-NEXT:   "A_tma",
// MANIFEST-NEXT:   "B_tma"
// MANIFEST:      "tensor_maps": [
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "box": [
// MANIFEST-NEXT:       64,
// MANIFEST-NEXT:       128
// MANIFEST-NEXT:     ],
// MANIFEST-NEXT:     "buffer": "A",
// MANIFEST-NEXT:     "name": "A_tma",
// MANIFEST-NEXT:     "swizzle_bytes": 128
// MANIFEST:          "buffer": "B",
module attributes {amk.target = #amk.target<"h200">} {
  func.func @nn(%a: memref<256x1024xbf16>, %b: memref<1024x512xbf16>, %bias: memref<512xbf16>, %c: memref<256x512xbf16>) {
    amk.kernel "gemm_wgmma_nn" config(#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 3, vector = 8, threads = 256>) attributes {amk.verified} {
      amk.matmul %a, %b bias(%bias) into %c {activation = #amk.activation<gelu>} : memref<256x1024xbf16>, memref<1024x512xbf16>, memref<512xbf16>, memref<256x512xbf16>
    }
    return
  }
}

// -----

// Batched (B as [B, N, K]): 3-D tensor maps with the batch outermost, one
// per box (the manifest's boxes end in 1), coordinates (k, row, batch);
// the wgmma descriptors take the same maps typed by the 2-D tile.
// BATCHED-LABEL: gpu.func @gemm_wgmma_batched
// BATCHED:         builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x128x64xbf16
// BATCHED:         builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16
// BATCHED:         nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}, %[[BATCH:.*]]], %{{.*}}[%c0] to %{{.*}} : {{.*}} -> memref<1x128x64xbf16, #gpu.address_space<workgroup>>
module attributes {amk.target = #amk.target<"h200">} {
  func.func @batched(%a: memref<4x256x256xbf16>, %b: memref<4x256x256xbf16>, %c: memref<4x256x256xbf16>) {
    amk.kernel "gemm_wgmma_batched" config(#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 2, vector = 8, threads = 256>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {transpose_b} : memref<4x256x256xbf16>, memref<4x256x256xbf16>, memref<4x256x256xbf16>
    }
    return
  }
}

// -----

// Batched with B as [B, K, N]: B's 3-D map moves 64-column chunks of 64 k
// rows (coordinates (column, k, batch)), which wgmma reads transposed.
// BNN-LABEL: gpu.func @gemm_wgmma_batched_nn
// BNN:         builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x128x64xbf16
// BNN-NEXT:    builtin.unrealized_conversion_cast %{{.*}} : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x64x64xbf16
// BNN:         nvgpu.tma.async.load %{{.*}}[%c0, %{{.*}}, %[[BATCH:block_id_z]]], %{{.*}}[%c0] to %{{.*}} : <tensor = memref<1x128x64xbf16
// BNN:         nvgpu.tma.async.load %{{.*}}[%{{.*}}, %c0, %[[BATCH]]], %{{.*}}[%c0] to %{{.*}} : <tensor = memref<1x64x64xbf16
module attributes {amk.target = #amk.target<"h200">} {
  func.func @batched_nn(%a: memref<4x256x256xbf16>, %b: memref<4x256x384xbf16>, %c: memref<4x256x384xbf16>) {
    amk.kernel "gemm_wgmma_batched_nn" config(#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 2, vector = 8, threads = 256>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<4x256x256xbf16>, memref<4x256x384xbf16>, memref<4x256x384xbf16>
    }
    return
  }
}

// -----

// Warp specialized (threads = 2 x 128 + 128): a producer thread fills the
// ring, two consumer warpgroups drain it; stage s has a full barrier (one
// expect_tx arrival) and an empty one (the 256 consumer threads). 64 x 256
// accumulators per consumer need more than an even share of registers: the
// producer's warpgroup drops to 40, the consumers rise to 232. Static M
// and N: persistent, min(tiles, SMs) = 8 blocks, each role looping over
// the tiles bid, bid + 8, ... around its rounds, the phase bit carried on.
// WS:       gpu.func @gemm_wgmma_ws({{.*}} known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, nvvm.maxnreg = 168 : i32}
// WS:         %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// WS:         %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// WS:           nvgpu.mbarrier.init %[[FULL]][%c0], %c1
// WS:           nvgpu.mbarrier.init %[[EMPTY]][%c0], %c256
// WS:         gpu.barrier
// WS:         %[[BID:.*]] = gpu.block_id  x
// The producer: round r waits for each stage's empty phase r - 1 (parity
// 1 first: a fresh barrier's preceding phase), then arms and loads it;
// the last stage's phase r (its round r - 1 k-tile is freed in round r).
// WS:           nvvm.setmaxregister  decrease 40
// WS:             %[[PT:.*]] = scf.for %{{.*}} = %[[BID]] to %c8 step %c8 iter_args(%[[PO:.*]] = %true) -> (i1) {
// WS:               %[[PR:.*]] = scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%[[PP:.*]] = %[[PO]]) -> (i1) {
// WS:                 nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%c0], %[[PP]]
// WS:                 nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%c0], %c49152
// WS-COUNT-2:         nvgpu.tma.async.load
// WS:                 %[[NEXT:.*]] = arith.xori %[[PP]], %true
// WS-NEXT:            nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%c3], %[[NEXT]]
// WS:               scf.yield %[[PR]] : i1
// The consumers: each k-tile's wgmmas retire the previous k-tile's, whose
// stage is then freed (at stage 0, the previous round's last): no drain
// inside the loop; one wait for every group, then the tile's epilogue.
// WS:           nvvm.setmaxregister  increase 232
// WS:           scf.for %{{.*}} = %[[BID]] to %c8 step %c8 iter_args(%[[CO:.*]] = %false) -> (i1) {
// WS:             %[[CR:.*]]:2 = scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}} = %[[CO]], %{{.*}} = %{{.*}}) -> (i1, !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>) {
// WS:               nvgpu.mbarrier.try_wait.parity %[[FULL]][%c0]
// WS-COUNT-4:       nvgpu.warpgroup.mma {{.*}} {waitGroup = 4 : i64}
// WS-NEXT:          nvgpu.mbarrier.arrive %[[EMPTY]][%c3]
// WS:               nvgpu.mbarrier.try_wait.parity %[[FULL]][%c1]
// WS-COUNT-4:       nvgpu.warpgroup.mma
// WS-NEXT:          nvgpu.mbarrier.arrive %[[EMPTY]][%c0]
// WS-NOT:           nvvm.wgmma.wait.group.sync.aligned
// WS:               scf.yield
// WS:             nvvm.wgmma.wait.group.sync.aligned 0
// WS:             vector.store
// WS:             scf.yield %[[CR]]#0 : i1
module attributes {amk.target = #amk.target<"h200">} {
  func.func @ws(%a: memref<256x1024xbf16>, %b: memref<1024x1024xbf16>, %c: memref<256x1024xbf16>) {
    amk.kernel "gemm_wgmma_ws" config(#amk.gemm_config<block = [128, 256, 64], warp = [64, 256], math = wgmma, inst = [64, 256, 16], stages = 4, vector = 8, threads = 384>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {transpose_b} : memref<256x1024xbf16>, memref<1024x1024xbf16>, memref<256x1024xbf16>
    }
    return
  }
}

// -----

// Split-K on the warp-specialized ring (not persistent: grid z enumerates
// the splits). 13 k-tiles in 2 splits of 7 each, from k-tile 7 z; split 1's
// seventh lies past K. 7 k-tiles in rounds of 4 stages pad one k-tile,
// which loads K's end (k-tile 13: TMA's zeros), not the next split's first.
// The tensor maps follow the operands and the workspace comes last, as the
// launch passes them; the partial tiles go to the workspace, which the
// second kernel sums.
// SPLIT:      gpu.launch_func @gemm_wgmma_split::@gemm_wgmma_split blocks in (%c2, %c1, %c2{{.*}}) {{.*}} args(%arg0 : memref<16x832xbf16>, %arg1 : memref<128x832xbf16>, %arg2 : memref<16x128xbf16>, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[WORK:.*]] : memref<1x2x16x128xf32>)
// SPLIT:      gpu.launch_func @gemm_wgmma_split::@gemm_wgmma_split_reduce {{.*}} args(%[[WORK]] : memref<1x2x16x128xf32>, %arg2 : memref<16x128xbf16>)
// SPLIT:      gpu.func @gemm_wgmma_split(%{{.*}}: memref<16x832xbf16>, %{{.*}}: memref<128x832xbf16>, %{{.*}}: memref<16x128xbf16>, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[PARTIALS:.*]]: memref<1x2x16x128xf32>)
// SPLIT-NOT:  known_grid_size
// SPLIT:        %[[Z:.*]] = gpu.block_id  z
// SPLIT:        %[[SPLIT:.*]] = arith.remui %[[Z]], %c2
// SPLIT:        %[[BEGIN:.*]] = arith.muli %[[SPLIT]], %c7
// SPLIT:          scf.for %[[ROUND:.*]] = %c0 to %c2 step %c1
// SPLIT:            %[[KT:.*]] = arith.muli %[[ROUND]], %c4
// SPLIT-NEXT:       %[[TILE:.*]] = arith.addi %[[BEGIN]], %[[KT]]
// SPLIT-NEXT:       %[[MINE:.*]] = arith.cmpi ult, %[[KT]], %c7
// SPLIT-NEXT:       %[[LOADED:.*]] = arith.select %[[MINE]], %[[TILE]], %c13
// SPLIT-NEXT:       %[[K0:.*]] = arith.muli %[[LOADED]], %c64
// SPLIT:            nvgpu.tma.async.load %{{.*}}[%[[K0]], %{{.*}}]
// SPLIT:        vector.store %{{.*}}, %[[PARTIALS]][%c0, %[[SPLIT]], %{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<1x2x16x128xf32>, vector<2xf32>
module attributes {amk.target = #amk.target<"h200">} {
  func.func @split(%a: memref<16x832xbf16>, %b: memref<128x832xbf16>, %c: memref<16x128xbf16>) {
    amk.kernel "gemm_wgmma_split" config(#amk.gemm_config<block = [64, 64, 64], warp = [64, 64], math = wgmma, inst = [64, 64, 16], stages = 4, vector = 8, threads = 256, split_k = 2, split_reduce = workspace>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {transpose_b} : memref<16x832xbf16>, memref<128x832xbf16>, memref<16x128xbf16>
    }
    return
  }
}

// -----

// Warp specialized over one k-tile per tile (K = 64): a ring of one stage.
// There is no previous stage to free, so each consumer retires its own
// wgmmas (wait_group 0) before it frees the stage, and the producer waits
// for the phase of the tile before (parity as carried, not flipped).
// WS-LABEL: gpu.func @gemm_wgmma_ws_one_stage
// WS:         %[[FULL1:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>>
// WS:         %[[EMPTY1:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>>
// WS:           scf.for %{{.*}} iter_args(%[[PP:.*]] = %true)
// WS:             nvgpu.mbarrier.try_wait.parity %[[EMPTY1]][%c0], %[[PP]]
// WS:             nvgpu.tma.async.load
// WS:           scf.for %{{.*}} iter_args(%[[CP:.*]] = %false
// WS:             nvgpu.mbarrier.try_wait.parity %[[FULL1]][%c0], %[[CP]]
// WS-COUNT-4:     nvgpu.warpgroup.mma
// WS-NEXT:        nvvm.wgmma.wait.group.sync.aligned 0
// WS-NEXT:        nvgpu.mbarrier.arrive %[[EMPTY1]][%c0]
module attributes {amk.target = #amk.target<"h200">} {
  func.func @ws_one_stage(%a: memref<512x64xbf16>, %b: memref<64x512xbf16>, %c: memref<512x512xbf16>) {
    amk.kernel "gemm_wgmma_ws_one_stage" config(#amk.gemm_config<block = [64, 64, 64], warp = [64, 64], math = wgmma, inst = [64, 64, 16], stages = 4, vector = 8, threads = 256, swizzle = 8>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<512x64xbf16>, memref<64x512xbf16>, memref<512x512xbf16>
    }
    return
  }
}

// -----

// tf32 with B as [K, N]: wgmma reads tf32 K-major only, so a first kernel
// copies B as [N, K] into a workspace (32 x 32 tiles through a padded
// shared tile, every element under its bounds' guard: N = 200 ends inside
// a tile), and the product's kernel takes the copy in B's place and its
// tensor map K-major boxes.
// REPACK:      %[[PACKED:.*]] = gpu.alloc () : memref<200x128xf32>
// REPACK:      gpu.launch_func @gemm_wgmma_tf32_nn::@gemm_wgmma_tf32_nn_repack_b blocks in (%c7, %c4, %c1) threads in (%c256, {{.*}}) {{.*}} args(%arg1 : memref<128x200xf32>, %[[PACKED]] : memref<200x128xf32>)
// REPACK:      %[[CAST:.*]] = memref.cast %[[PACKED]] : memref<200x128xf32> to memref<*xf32>
// REPACK-NEXT: arith.constant 64
// REPACK-NEXT: arith.constant 32
// REPACK-NEXT: nvgpu.tma.create.descriptor %[[CAST]]
// REPACK:      gpu.launch_func @gemm_wgmma_tf32_nn::@gemm_wgmma_tf32_nn blocks {{.*}} args(%arg0 : memref<256x128xf32>, %[[PACKED]] : memref<200x128xf32>, %arg2 : memref<256x200xf32>
// REPACK:      gpu.dealloc %[[PACKED]]
// REPACK:      gpu.func @gemm_wgmma_tf32_nn_repack_b(%[[B:.*]]: memref<128x200xf32>, %[[OUT:.*]]: memref<200x128xf32>) kernel attributes {amk.dynamic_smem_bytes = 4224 : i64, known_block_size = array<i32: 256, 1, 1>
// REPACK:        memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x33xf32, #gpu.address_space<workgroup>>
// REPACK-COUNT-4: memref.load %[[B]]
// REPACK:        gpu.barrier
// REPACK-COUNT-4: memref.store %{{.*}}, %[[OUT]]
// REPACK:      gpu.func @gemm_wgmma_tf32_nn(%{{.*}}: memref<256x128xf32>, %{{.*}}: memref<200x128xf32>,
// REPACK:        !nvgpu.tensormap.descriptor<tensor = memref<64x32xf32
// REPACK:        nvgpu.warpgroup.mma
// REPACK-NOT:    transposeB
// REPACK:        return
// REPACK-MANIFEST:   "name": "gemm_wgmma_tf32_nn_repack_b",
// REPACK-MANIFEST:   "params": [
// REPACK-MANIFEST-NEXT: "B",
// REPACK-MANIFEST-NEXT: "B_packed"
// REPACK-MANIFEST:   "buffer": "B_packed",
// REPACK-MANIFEST:   "run_repack_b"
// REPACK-MANIFEST:   "after": [
// REPACK-MANIFEST-NEXT: "run_repack_b"
// REPACK-MANIFEST:   "workspace": [
// REPACK-MANIFEST:     "elem": "f32",
// REPACK-MANIFEST:     "name": "B_packed",
// REPACK-MANIFEST-NEXT: "shape": [
// REPACK-MANIFEST-NEXT:   "N",
// REPACK-MANIFEST-NEXT:   "K"
module attributes {amk.target = #amk.target<"h200">} {
  func.func @tf32_nn(%a: memref<256x128xf32>, %b: memref<128x200xf32>, %c: memref<256x200xf32>) {
    amk.kernel "gemm_wgmma_tf32_nn" config(#amk.gemm_config<block = [128, 64, 32], warp = [64, 64], math = wgmma, inst = [64, 64, 8], stages = 3, vector = 4, threads = 256>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<256x128xf32>, memref<128x200xf32>, memref<256x200xf32>
    }
    return
  }
}

// -----

// A as [K, M] and a tf32 B as [K, N]: wgmma reads tf32 K-major only, so A
// is copied as [M, K] first, then B; the product's kernel takes both
// copies and their tensor maps (K-major boxes) in A's and B's places. M =
// 130 and N = 200 end inside a repack tile.
// REPACK-A:      %[[PA:.*]] = gpu.alloc () : memref<130x96xf32>
// REPACK-A:      %[[PB:.*]] = gpu.alloc () : memref<200x96xf32>
// REPACK-A:      gpu.launch_func @gemm_wgmma_tf32_tt::@gemm_wgmma_tf32_tt_repack_a blocks in (%c5, %c3, %c1) {{.*}} args(%arg0 : memref<96x130xf32>, %[[PA]] : memref<130x96xf32>)
// REPACK-A:      gpu.launch_func @gemm_wgmma_tf32_tt::@gemm_wgmma_tf32_tt_repack_b blocks in (%c7, %{{.*}}, %{{.*}}) {{.*}} args(%arg1 : memref<96x200xf32>, %[[PB]] : memref<200x96xf32>)
// REPACK-A:      gpu.launch_func @gemm_wgmma_tf32_tt::@gemm_wgmma_tf32_tt blocks {{.*}} args(%[[PA]] : memref<130x96xf32>, %[[PB]] : memref<200x96xf32>, %arg2 : memref<130x200xf32>
// REPACK-A:      gpu.dealloc %[[PA]]
// REPACK-A:      gpu.dealloc %[[PB]]
// REPACK-A:      gpu.func @gemm_wgmma_tf32_tt_repack_a(%{{.*}}: memref<96x130xf32>, %{{.*}}: memref<130x96xf32>)
// REPACK-A:      gpu.func @gemm_wgmma_tf32_tt_repack_b(%{{.*}}: memref<96x200xf32>, %{{.*}}: memref<200x96xf32>)
// REPACK-A:      gpu.func @gemm_wgmma_tf32_tt(%{{.*}}: memref<130x96xf32>, %{{.*}}: memref<200x96xf32>, %{{.*}}: memref<130x200xf32>,
// REPACK-A:        !nvgpu.tensormap.descriptor<tensor = memref<64x32xf32
// REPACK-A:        !nvgpu.tensormap.descriptor<tensor = memref<64x32xf32
module attributes {amk.target = #amk.target<"h200">} {
  func.func @tf32_tt(%a: memref<96x130xf32>, %b: memref<96x200xf32>, %c: memref<130x200xf32>) {
    amk.kernel "gemm_wgmma_tf32_tt" config(#amk.gemm_config<block = [64, 64, 32], warp = [64, 64], math = wgmma, inst = [64, 64, 8], stages = 3, vector = 4, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {transpose_a, precision = #amk.precision<tf32>} : memref<96x130xf32>, memref<96x200xf32>, memref<130x200xf32>
    }
    return
  }
}

// -----

// A 16-bit A as [K, M] beside a B as [K, N] is read in place: TMA copies
// 64-row chunks of both, and each wgmma transposes both through their
// descriptors. No repack kernel, no workspace.
// TN-LABEL:  func.func @bf16_tn
// TN-NOT:      gpu.alloc
// TN:          gpu.launch_func @gemm_wgmma_tn::@gemm_wgmma_tn blocks {{.*}} args(%arg0 : memref<128x192xbf16>, %arg1 : memref<128x256xbf16>, %arg2 : memref<192x256xbf16>,
// TN-NOT:    gpu.func @gemm_wgmma_tn_repack
// TN:        gpu.func @gemm_wgmma_tn(
// TN:          memref.view {{.*}} to memref<2x64x64xbf16, #gpu.address_space<workgroup>>
// TN:          nvgpu.warpgroup.mma {{.*}} {transposeA, transposeB, waitGroup = 4 : i64} : <tensor = memref<64x16xbf16
module attributes {amk.target = #amk.target<"h200">} {
  func.func @bf16_tn(%a: memref<128x192xbf16>, %b: memref<128x256xbf16>, %c: memref<192x256xbf16>) {
    amk.kernel "gemm_wgmma_tn" config(#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 2, vector = 8, threads = 256>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {transpose_a} : memref<128x192xbf16>, memref<128x256xbf16>, memref<192x256xbf16>
    }
    return
  }
}

// -----

// Beside a B as [N, K], nvgpu's wgmma takes A K-major only: A is copied as
// [M, K] first, and the product reads both K-major.
// TT-LABEL:  func.func @bf16_tt
// TT:          %[[PA:.*]] = gpu.alloc () : memref<192x128xbf16>
// TT:          gpu.launch_func @gemm_wgmma_tt::@gemm_wgmma_tt_repack_a blocks in (%c6, %c4, %c1) {{.*}} args(%arg0 : memref<128x192xbf16>, %[[PA]] : memref<192x128xbf16>)
// TT:          gpu.launch_func @gemm_wgmma_tt::@gemm_wgmma_tt blocks {{.*}} args(%[[PA]] : memref<192x128xbf16>, %arg1 : memref<256x128xbf16>, %arg2 : memref<192x256xbf16>,
// TT-NOT:    gpu.func @gemm_wgmma_tt_repack_b
// TT:          nvgpu.warpgroup.mma {{.*}} {waitGroup = 4 : i64}
module attributes {amk.target = #amk.target<"h200">} {
  func.func @bf16_tt(%a: memref<128x192xbf16>, %b: memref<256x128xbf16>, %c: memref<192x256xbf16>) {
    amk.kernel "gemm_wgmma_tt" config(#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 2, vector = 8, threads = 256>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {transpose_a, transpose_b} : memref<128x192xbf16>, memref<256x128xbf16>, memref<192x256xbf16>
    }
    return
  }
}

// -----

// K = 71 breaks TMA's 16-byte rule for A's rows (142 bytes): both operands
// are copied K-major with K padded by zeros to 72; A, already K-major, row
// by row; B as [K, N] through the transposing tiles. The product reads the
// copies as A [M, 72] and B [N, 72].
// PAD-LABEL: func.func @bf16_odd_k
// PAD:         %[[PA:.*]] = gpu.alloc () : memref<64x72xbf16>
// PAD:         %[[PB:.*]] = gpu.alloc () : memref<136x72xbf16>
// PAD:         gpu.launch_func @gemm_wgmma_pad::@gemm_wgmma_pad_repack_a blocks in (%c2, %c3, %c1) {{.*}} args(%arg0 : memref<64x71xbf16>, %[[PA]] : memref<64x72xbf16>)
// PAD:         gpu.launch_func @gemm_wgmma_pad::@gemm_wgmma_pad_repack_b blocks in (%c5, %{{.*}}, %{{.*}}) {{.*}} args(%arg1 : memref<71x136xbf16>, %[[PB]] : memref<136x72xbf16>)
// PAD:         gpu.launch_func @gemm_wgmma_pad::@gemm_wgmma_pad blocks {{.*}} args(%[[PA]] : memref<64x72xbf16>, %[[PB]] : memref<136x72xbf16>, %arg2 : memref<64x136xbf16>
// PAD:       gpu.func @gemm_wgmma_pad_repack_a(%[[SRC:.*]]: memref<64x71xbf16>, %[[DST:.*]]: memref<64x72xbf16>)
// PAD:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : bf16
// PAD:         %[[INK:.*]] = arith.cmpi ult, %[[K:.*]], %c71 : index
// PAD:         %[[V:.*]] = scf.if %[[INK]] -> (bf16) {
// PAD:           memref.load %[[SRC]][%{{.*}}, %[[K]]] : memref<64x71xbf16>
// PAD:         } else {
// PAD:           scf.yield %[[ZERO]] : bf16
// PAD:         memref.store %[[V]], %[[DST]][%{{.*}}, %[[K]]] : memref<64x72xbf16>
// PAD:       gpu.func @gemm_wgmma_pad_repack_b(
// PAD:         gpu.barrier
// PAD:       gpu.func @gemm_wgmma_pad(%{{.*}}: memref<64x72xbf16>, %{{.*}}: memref<136x72xbf16>, %{{.*}}: memref<64x136xbf16>,
// PAD:         nvgpu.warpgroup.mma {{.*}} {waitGroup = 4 : i64}
module attributes {amk.target = #amk.target<"h200">} {
  func.func @bf16_odd_k(%a: memref<64x71xbf16>, %b: memref<71x136xbf16>, %c: memref<64x136xbf16>) {
    amk.kernel "gemm_wgmma_pad" config(#amk.gemm_config<block = [64, 64, 64], warp = [64, 64], math = wgmma, inst = [64, 64, 16], stages = 2, vector = 8, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<64x71xbf16>, memref<71x136xbf16>, memref<64x136xbf16>
    }
    return
  }
}
