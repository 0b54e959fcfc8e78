// RUN: amk-opt %s --split-input-file --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-plan --amk-verify --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=PLAN
// Split-K: grid z = batch x split_k, each split takes its share of the
// k-tiles and adds its partial sums into C, which the launch zeroes first.

// CHECK-LABEL: func.func @decode
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         gpu.memset %[[C:.*]], %[[ZERO]] : memref<1x4096xf32>, f32
// CHECK:         gpu.launch_func @{{.*}} blocks in (%{{.*}}, %{{.*}}, %c8)
// CHECK:       gpu.func @split
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK:         %[[SPLIT:.*]] = arith.remui %[[Z]], %c8
// CHECK:         %[[FIRST:.*]] = arith.muli %[[SPLIT]]
// CHECK:         scf.for
// CHECK:         memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : (f32, memref<1x4096xf32>) -> f32
// CHECK-NOT:     memref.store {{.*}} : memref<1x4096xf32>
module attributes {amk.target = #amk.target<"h200">} {
func.func @decode(%a: memref<1x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<1x4096xf32>) {
  amk.kernel "split" config(#amk.gemm_config<block = [16, 32, 32], warp = [16, 32], math = simt, thread = [2, 8], stages = 2, vector = 4, threads = 32, split_k = 8>) {
    amk.matmul %a, %b into %c : memref<1x4096xf32>, memref<4096x4096xf32>, memref<1x4096xf32>
  }
  return
}
}

// -----

// A static batch: z / split_k is clamped to batch - 1 (a no-op that the
// range analysis needs to bound the batch subviews).
// CHECK-LABEL: func.func @batched
// CHECK:         gpu.launch_func @{{.*}} blocks in (%{{.*}}, %{{.*}}, %c12)
// CHECK:       gpu.func @split_batched
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK:         %[[B:.*]] = arith.divui %[[Z]], %c4
// CHECK:         %[[BATCH:.*]] = arith.minui %[[B]], %c2
// CHECK:         memref.subview %{{.*}}[%[[BATCH]], 0, 0]
// CHECK:         memref.atomic_rmw addf
module attributes {amk.target = #amk.target<"h200">} {
func.func @batched(%a: memref<3x16x2048xf32>, %b: memref<3x2048x64xf32>, %c: memref<3x16x64xf32>) {
  amk.kernel "split_batched" config(#amk.gemm_config<block = [16, 32, 32], warp = [16, 32], math = mma_sync, inst = [16, 8, 8], stages = 4, vector = 4, threads = 32, split_k = 4>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<3x16x2048xf32>, memref<3x2048x64xf32>, memref<3x16x64xf32>
  }
  return
}
}

// -----

// The planner splits K where the output grid leaves most SMs idle (a
// decode-like shape: one row of C).
// PLAN-LABEL: func.func @planned
// PLAN:         gpu.memset
// PLAN:         gpu.launch_func @gemm_1x4096x4096_f32_f32_f32_nn
// PLAN:       gpu.func @gemm_1x4096x4096_f32_f32_f32_nn
// PLAN:         memref.atomic_rmw addf
module attributes {amk.target = #amk.target<"h200">} {
func.func @planned(%a: memref<1x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<1x4096xf32>) {
  amk.matmul %a, %b into %c : memref<1x4096xf32>, memref<4096x4096xf32>, memref<1x4096xf32>
  return
}
}

// -----

// A workspace split (any output type and epilogue): the launch allocates
// the [B, split_k, M, N] partial tiles, the main kernel stores its split's
// tile there (nothing atomic, nothing zeroed), a second kernel sums the
// splits in order and applies the epilogue, and the workspace is freed.
// The second kernel is a dependent launch (sm_90): it waits for the first
// before anything else; the first, one wave of blocks, lets it launch from
// its start.
// CHECK-LABEL: func.func @workspace
// CHECK-NOT:     gpu.memset
// CHECK:         %[[WS:.*]] = gpu.alloc  () : memref<1x8x16x4096xf32>
// CHECK:         gpu.launch_func @ws::@ws blocks in (%{{.*}}, %{{.*}}, %c8){{.*}}args({{.*}}, %[[WS]] : memref<1x8x16x4096xf32>)
// CHECK:         gpu.launch_func @ws::@ws_reduce blocks in (%c64{{[_0-9]*}}, %{{.*}}, %{{.*}}) threads in (%c256, {{.*}}args(%[[WS]] : memref<1x8x16x4096xf32>, %{{.*}} : memref<4096xbf16>, %{{.*}} : memref<16x4096xbf16>)
// CHECK:         gpu.dealloc  %[[WS]]
// CHECK:       gpu.func @ws(
// CHECK-NOT:     amk.dependent_launch
// CHECK:         nvvm.griddepcontrol  launch_dependents
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         vector.store %{{.*}}, %arg4[%c0, %{{.*}}, %{{.*}}, %{{.*}}] {{.*}} : memref<1x8x16x4096xf32>, vector<2xf32>
// CHECK:       gpu.func @ws_reduce(%[[P:.*]]: memref<1x8x16x4096xf32>, %{{.*}}: memref<4096xbf16>, %[[C:.*]]: memref<16x4096xbf16>)
// CHECK-SAME:    amk.dependent_launch
// CHECK-SAME:    known_block_size = array<i32: 256, 1, 1>
// CHECK-NOT:     memref.load
// CHECK-NOT:     vector.load
// CHECK:         nvvm.griddepcontrol  wait
// CHECK:         vector.load %[[P]][%c0, %c0, {{.*}}] {alignment = 16 : i64} : memref<1x8x16x4096xf32>, vector<4xf32>
// CHECK:         vector.load %[[P]][%c0, %c7, {{.*}}] {alignment = 16 : i64} : memref<1x8x16x4096xf32>, vector<4xf32>
// CHECK:         math.erf
// CHECK:         vector.store %{{.*}}, %[[C]]{{.*}} : memref<16x4096xbf16>, vector<4xbf16>
module attributes {amk.target = #amk.target<"h200">} {
func.func @workspace(%a: memref<16x4096xbf16>, %b: memref<4096x4096xbf16>, %bias: memref<4096xbf16>, %c: memref<16x4096xbf16>) {
  amk.kernel "ws" config(#amk.gemm_config<block = [16, 64, 64], warp = [16, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 64, split_k = 8, split_reduce = workspace>) {
    amk.matmul %a, %b bias(%bias) into %c {activation = #amk.activation<gelu>} : memref<16x4096xbf16>, memref<4096x4096xbf16>, memref<4096xbf16>, memref<16x4096xbf16>
  }
  return
}
}

// -----

// Dynamic sizes and batch: the workspace takes them from the operands, the
// reduction runs a block row per batch and guards by the workspace's sizes.
// A grid of unknown size lets the next kernel launch only as its blocks
// finish (no early launch_dependents).
// CHECK-LABEL: func.func @workspace_dynamic
// CHECK:         %[[WS:.*]] = gpu.alloc  (%{{.*}}, %{{.*}}, %{{.*}}) : memref<?x3x?x?xf32>
// CHECK:         gpu.launch_func @ws_dynamic::@ws_dynamic
// CHECK:         gpu.launch_func @ws_dynamic::@ws_dynamic_reduce
// CHECK:         gpu.dealloc  %[[WS]]
// CHECK:       gpu.func @ws_dynamic(
// CHECK-NOT:     griddepcontrol
// CHECK:       gpu.func @ws_dynamic_reduce(%[[P:.*]]: memref<?x3x?x?xf32>
// CHECK-SAME:    amk.dependent_launch
// CHECK:         nvvm.griddepcontrol  wait
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK:         memref.dim %[[P]], %c0
// CHECK:         memref.load %[[P]][%[[Z]], %c2, %{{.*}}, %{{.*}}] : memref<?x3x?x?xf32>
module attributes {amk.target = #amk.target<"h200">} {
func.func @workspace_dynamic(%a: memref<?x?x333xf32>, %b: memref<?x333x?xf32>, %c: memref<?x?x?xf32>) {
  amk.kernel "ws_dynamic" config(#amk.gemm_config<block = [16, 32, 32], warp = [16, 32], math = simt, thread = [2, 8], stages = 2, vector = 1, threads = 32, split_k = 3, split_reduce = workspace>) {
    amk.matmul %a, %b into %c {beta = 2.0} : memref<?x?x333xf32>, memref<?x333x?xf32>, memref<?x?x?xf32>
  }
  return
}
}

// -----

// A serial split (split_reduce = serial): one kernel. The launch allocates
// one f32 running-sum tile per output and a counter per tile, zeroes the
// counters, and launches the kernel over its known grid, cooperatively
// (every block resident). Split s waits until the counter of its tile
// reaches s (thread 0, then a gpu-scope fence and the block's barrier),
// adds the running sum to its partial, stores it back (s < last) or
// finishes C, and signals (barrier, fence, +1): turns in split order.
// CHECK-LABEL: func.func @serial
// CHECK-DAG:     %[[RS:.*]] = gpu.alloc  () : memref<1x1x64x4096xf32>
// CHECK-DAG:     %[[CTR:.*]] = gpu.alloc  () : memref<64xi32>
// CHECK:         gpu.memset %[[CTR]]
// CHECK:         gpu.launch_func @sr::@sr blocks in (%c64{{[_0-9]*}}, %c1{{[_0-9]*}}, %c2{{[_0-9]*}}){{.*}}args({{.*}}, %[[RS]] : memref<1x1x64x4096xf32>, %[[CTR]] : memref<64xi32>)
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.func @sr({{.*}}, %[[P:.*]]: memref<1x1x64x4096xf32>, %[[C:.*]]: memref<64xi32> {amk.counter})
// CHECK-SAME:    amk.cooperative
// CHECK-SAME:    known_grid_size = array<i32: 64, 1, 2>
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK:         %[[SPLIT:.*]] = arith.remui %[[Z]], %c2
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         %[[TURN:.*]] = arith.index_cast %[[SPLIT]] : index to i32
// CHECK:         scf.if
// CHECK-NEXT:      scf.while
// CHECK-NEXT:        %[[SEEN:.*]] = memref.atomic_rmw addi %c0_i32, %[[C]][%[[TILE:.*]]] : (i32, memref<64xi32>) -> i32
// CHECK-NEXT:        %[[WAIT:.*]] = arith.cmpi ult, %[[SEEN]], %[[TURN]] : i32
// CHECK-NEXT:        scf.condition(%[[WAIT]])
// CHECK:           nvvm.memory.barrier <gpu>
// CHECK:         gpu.barrier
// CHECK:         %[[LAST:.*]] = arith.cmpi eq, %[[SPLIT]], %c1
// CHECK:         scf.if %[[LAST]] {
// CHECK:           vector.load %[[P]]
// CHECK:           vector.store {{.*}} : memref<64x4096xbf16>, vector<8xbf16>
// CHECK:         } else {
// CHECK-NOT:       memref<64x4096xbf16>
// CHECK:           vector.store {{.*}}, %[[P]]
// CHECK-NOT:       memref<64x4096xbf16>
// CHECK:         gpu.barrier
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      nvvm.memory.barrier <gpu>
// CHECK-NEXT:      memref.atomic_rmw addi %c1_i32, %[[C]][%[[TILE]]]
module attributes {amk.target = #amk.target<"h100">} {
func.func @serial(%a: memref<64x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<64x4096xbf16>) {
  amk.kernel "sr" config(#amk.gemm_config<block = [64, 64, 64], warp = [64, 64], math = wgmma, inst = [64, 64, 16], stages = 6, vector = 8, threads = 128, split_k = 2, split_reduce = serial>) {
    amk.matmul %a, %b into %c {transpose_b} : memref<64x4096xbf16>, memref<4096x4096xbf16>, memref<64x4096xbf16>
  }
  return
}
}

// -----

// Summed by the last split to arrive (split_reduce = last): one kernel, not
// cooperative. Every split stores its partial tile to its slot of the
// workspace; then thread 0 fences, adds 1 to its tile's counter, fences
// again and tells the block, through a shared flag, whether it saw the
// count of the last arrival (split_k - 1). That block resets the tile's
// counter, sums the partials of every split in split order and finishes C.
// The counters stay zeroed from their allocation on (the runtime zeroes
// them once, kept_zero; a launch that allocates them anew, as here, zeroes
// them first), and are no `amk.counter` the launch must zero.
// CHECK-LABEL: func.func @last
// CHECK-DAG:     %[[WS:.*]] = gpu.alloc  () : memref<1x2x64x4096xf32>
// CHECK-DAG:     %[[CTR:.*]] = gpu.alloc  () : memref<64xi32>
// CHECK:         gpu.memset %[[CTR]]
// CHECK:         gpu.launch_func @ls::@ls blocks in (%c64{{[_0-9]*}}, %c1{{[_0-9]*}}, %c2{{[_0-9]*}}){{.*}}args({{.*}}, %[[WS]] : memref<1x2x64x4096xf32>, %[[CTR]] : memref<64xi32>)
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.func @ls({{.*}}, %[[P:.*]]: memref<1x2x64x4096xf32>, %[[C:.*]]: memref<64xi32>) workgroup(%[[FLAG:.*]] : memref<1xi1, #gpu.address_space<workgroup>>)
// CHECK-NOT:     amk.cooperative
// CHECK-SAME:    known_grid_size = array<i32: 64, 1, 2>
// CHECK:         %[[Z:.*]] = gpu.block_id  z
// CHECK:         %[[SPLIT:.*]] = arith.remui %[[Z]], %c2
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         vector.store {{.*}}, %[[P]][%{{.*}}, %[[SPLIT]], {{.*}}] {{.*}} : memref<1x2x64x4096xf32>, vector<2xf32>
// CHECK-NOT:     memref<64x4096xbf16>
// CHECK:         gpu.barrier
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      nvvm.memory.barrier <gpu>
// CHECK-NEXT:      %[[N:.*]] = memref.atomic_rmw addi %c1_i32, %[[C]][%[[TILE:.*]]] : (i32, memref<64xi32>) -> i32
// CHECK-NEXT:      nvvm.memory.barrier <gpu>
// CHECK-NEXT:      %[[IS:.*]] = arith.cmpi eq, %[[N]], %c1_i32
// CHECK-NEXT:      memref.store %[[IS]], %[[FLAG]]
// CHECK:         gpu.barrier
// CHECK-NEXT:    %[[LAST:.*]] = memref.load %[[FLAG]]
// CHECK-NEXT:    scf.if %[[LAST]] {
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        memref.store %c0_i32, %[[C]][%[[TILE]]] : memref<64xi32>
// CHECK:           vector.load %[[P]][%{{.*}}, %c0{{[_0-9]*}}, {{.*}}] {{.*}} : memref<1x2x64x4096xf32>, vector<8xf32>
// CHECK:           vector.load %[[P]][%{{.*}}, %c1{{[_0-9]*}}, {{.*}}] {{.*}} : memref<1x2x64x4096xf32>, vector<8xf32>
// CHECK:           vector.store {{.*}} : memref<64x4096xbf16>, vector<8xbf16>
module attributes {amk.target = #amk.target<"h100">} {
func.func @last(%a: memref<64x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<64x4096xbf16>) {
  amk.kernel "ls" config(#amk.gemm_config<block = [64, 64, 64], warp = [64, 64], math = wgmma, inst = [64, 64, 16], stages = 6, vector = 8, threads = 128, split_k = 2, split_reduce = last>) {
    amk.matmul %a, %b into %c {transpose_b} : memref<64x4096xbf16>, memref<4096x4096xbf16>, memref<64x4096xbf16>
  }
  return
}
}

// -----

// Before sm_90 there is no griddepcontrol: the reduction is an ordinary
// launch after the product.
// CHECK-LABEL: func.func @workspace_sm80
// CHECK:       gpu.func @ws80(
// CHECK-NOT:     griddepcontrol
// CHECK:       gpu.func @ws80_reduce(
// CHECK-NOT:     amk.dependent_launch
// CHECK-NOT:     griddepcontrol
// CHECK:         gpu.return
module attributes {amk.target = #amk.target<"a100">} {
func.func @workspace_sm80(%a: memref<16x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<16x4096xbf16>) {
  amk.kernel "ws80" config(#amk.gemm_config<block = [16, 64, 64], warp = [16, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 64, split_k = 8, split_reduce = workspace>) {
    amk.matmul %a, %b into %c : memref<16x4096xbf16>, memref<4096x4096xbf16>, memref<16x4096xbf16>
  }
  return
}
}

// -----

// The last split in a warp-specialized kernel: the producer warpgroup
// (threads 256-383) never reaches the epilogue, so the consumers' arrival
// meets at named barrier 1 of their 256 threads, before the signal and
// before the flag is read; the harness proves the gate through them.
// CHECK-LABEL: func.func @last_specialized
// CHECK:       gpu.func @lws(
// CHECK-SAME:    known_block_size = array<i32: 384, 1, 1>
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         nvvm.barrier id = %[[ID:.*]] number_of_threads = %[[N:.*]]
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      nvvm.memory.barrier <gpu>
// CHECK-NEXT:      memref.atomic_rmw addi
// CHECK:         nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
// CHECK-NEXT:    memref.load
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
module attributes {amk.target = #amk.target<"h100">} {
func.func @last_specialized(%a: memref<256x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<256x4096xbf16>) {
  amk.kernel "lws" config(#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 4, vector = 8, threads = 384, split_k = 2, split_reduce = last>) {
    amk.matmul %a, %b into %c {transpose_b} : memref<256x4096xbf16>, memref<4096x4096xbf16>, memref<256x4096xbf16>
  }
  return
}
}
