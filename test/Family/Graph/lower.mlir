// RUN: amk-opt %s --split-input-file --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// Megakernels: the steps of an amk.graph in one cooperative kernel. Block
// b owns columns b, b + blocks, ...; a step that reads an earlier step's
// buffer first waits on that step's counter, which every block signals
// once after its part (barrier, gpu fence, atomic add by thread 0).

// The decode MLP on the simt body: each lane folds 16-byte runs of its
// weight rows, xor shuffles add the lanes, lane 0 stores; step 1 signals
// counter 0, step 2 waits until all 8 blocks did. The launch zeroes the
// counters, then runs the kernel.
// CHECK-LABEL: func.func @mlp
// CHECK:         %[[CTR:.*]] = gpu.alloc  () : memref<2xi32>
// CHECK:         gpu.memset %[[CTR]], %{{.*}} : memref<2xi32>, i32
// CHECK:         gpu.launch_func @mlp_k::@mlp_k blocks in (%c8, %c1{{.*}}, %c1{{.*}}) threads in (%c128,{{.*}}args({{.*}}%[[CTR]] : memref<2xi32>)
// CHECK:       gpu.func @mlp_k(%[[X:.*]]: memref<1x256xbf16>, %[[W1:.*]]: memref<512x256xbf16>, %[[W2:.*]]: memref<256x512xbf16>, %[[Y:.*]]: memref<1x256xbf16>, %[[H:.*]]: memref<1x512xbf16>, %[[C:.*]]: memref<2xi32> {amk.counter}) kernel attributes {amk.cooperative, {{.*}}known_grid_size = array<i32: 8, 1, 1>
// CHECK:         scf.for
// CHECK:           vector.load %[[W1]][{{.*}}] {alignment = 16 : i64} : memref<512x256xbf16>, vector<8xbf16>
// CHECK:           arith.shli %{{.*}}, %c16_i32 : i32
// CHECK:           math.fma
// CHECK:         gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:         arith.addf
// CHECK:         math.erf
// CHECK:         memref.store %{{.*}}, %[[H]][%c0, %{{.*}}] : memref<1x512xbf16>
// CHECK:         gpu.barrier
// CHECK:         scf.if
// CHECK-NEXT:      nvvm.memory.barrier <gpu>
// CHECK-NEXT:      memref.atomic_rmw addi %c1_i32, %[[C]][%c0] : (i32, memref<2xi32>) -> i32
// CHECK-NEXT:      scf.while : () -> () {
// CHECK-NEXT:        %[[SEEN:.*]] = memref.atomic_rmw addi %c0_i32, %[[C]][%c0] : (i32, memref<2xi32>) -> i32
// CHECK-NEXT:        %[[WAIT:.*]] = arith.cmpi ult, %[[SEEN]], %c8_i32 : i32
// CHECK-NEXT:        scf.condition(%[[WAIT]])
// CHECK:           nvvm.memory.barrier <gpu>
// CHECK:         gpu.barrier
// CHECK:         vector.load %[[H]][{{.*}}] {alignment = 16 : i64} : memref<1x512xbf16>, vector<8xbf16>
// CHECK:         memref.store %{{.*}}, %[[Y]][%c0, %{{.*}}] : memref<1x256xbf16>
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         gpu.return
module attributes {amk.target = #amk.target<"h200">} {
func.func @mlp(%x: memref<1x256xbf16>, %w1: memref<512x256xbf16>, %w2: memref<256x512xbf16>, %y: memref<1x256xbf16>) {
  amk.kernel "mlp_k" config(#amk.graph_config<blocks = 8, threads = 128, rows_per_warp = 2, unroll = 2>) {
    amk.graph ins(%x, %w1, %w2 : memref<1x256xbf16>, memref<512x256xbf16>, memref<256x512xbf16>) outs(%y : memref<1x256xbf16>) {
    ^bb0(%xa: memref<1x256xbf16>, %w1a: memref<512x256xbf16>, %w2a: memref<256x512xbf16>, %ya: memref<1x256xbf16>):
      %h = amk.graph_buffer : memref<1x512xbf16>
      amk.matmul %xa, %w1a into %h {transpose_b, activation = #amk.activation<gelu>} : memref<1x256xbf16>, memref<512x256xbf16>, memref<1x512xbf16>
      amk.matmul %h, %w2a into %ya {transpose_b} : memref<1x512xbf16>, memref<256x512xbf16>, memref<1x256xbf16>
    }
  }
  return
}
}

// -----

// The tensor-core body: m16n8k16 products on 16-byte loads (bf16 words as
// i32 registers), a partial last chunk of K (40 = 32 + 8) zero-filled by
// selects, stores guarded by row < M and column < N; a single step
// signals nothing.
// CHECK-LABEL: func.func @gemv
// CHECK:       gpu.func @gemv_k(%[[X:.*]]: memref<3x40xbf16>, %[[W:.*]]: memref<100x40xbf16>, %[[Y:.*]]: memref<3x100xf32>, %{{.*}}: memref<1xi32> {amk.counter})
// CHECK:         vector.load %[[W]][{{.*}}] {alignment = 16 : i64} : memref<100x40xbf16>, vector<8xbf16>
// CHECK:         vector.bitcast %{{.*}} : vector<8xbf16> to vector<4xi32>
// CHECK:         nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK:         arith.select
// CHECK:         nvvm.mma.sync
// CHECK:         arith.cmpi ult, %{{.*}}, %c3 : index
// CHECK:         arith.cmpi ult, %{{.*}}, %c100 : index
// CHECK:         memref.store %{{.*}}, %[[Y]][%{{.*}}, %{{.*}}] : memref<3x100xf32>
// CHECK-NOT:     memref.atomic_rmw
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
module attributes {amk.target = #amk.target<"h200">} {
func.func @gemv(%x: memref<3x40xbf16>, %w: memref<100x40xbf16>, %y: memref<3x100xf32>) {
  amk.kernel "gemv_k" config(#amk.graph_config<blocks = 4, threads = 64, rows_per_warp = 2, unroll = 1, math = mma_sync>) {
    amk.graph ins(%x, %w : memref<3x40xbf16>, memref<100x40xbf16>) outs(%y : memref<3x100xf32>) {
    ^bb0(%xa: memref<3x40xbf16>, %wa: memref<100x40xbf16>, %ya: memref<3x100xf32>):
      amk.matmul %xa, %wa into %ya {transpose_b} : memref<3x40xbf16>, memref<100x40xbf16>, memref<3x100xf32>
    }
  }
  return
}
}
