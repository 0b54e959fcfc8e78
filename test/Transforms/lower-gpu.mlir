// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s
// RUN: amk-opt %s --split-input-file --amk-lower=stop-at=gpu | FileCheck %s --check-prefix=ODD-A
// What the synthesizer generates, before NVVM lowering. Every gpu.func gets
// the harness's register estimate as its budget (nvvm.maxnreg; the formula is
// estimateGemmRegisters in lib/Analysis/GemmResources.cpp).

// mma_sync: cp.async ring, ldmatrix, m16n8k16 MMAs, launched on the tile grid.
// Registers: acc 128 + fragments 32 + cp.async addresses 16 + overhead 40 =
// 216 x 1.15 -> 249, which rounds up to 256 but is capped at 255.
// CHECK-LABEL: func.func @mma
// CHECK:         %[[SMEM:.*]] = arith.constant 65536 : i32
// CHECK:         gpu.launch_func @gemm_mma::@gemm_mma blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %[[SMEM]] args(%{{.*}} : memref<4096x4096xbf16>, %{{.*}} : memref<4096x4096xbf16>, %{{.*}} : memref<4096x4096xbf16>)
// CHECK:       gpu.module @gemm_mma
// CHECK:         gpu.func @gemm_mma({{.*}}) kernel attributes {amk.dynamic_smem_bytes = 65536 : i64, known_block_size = array<i32: 128, 1, 1>, nvvm.maxnreg = 255 : i32}
// CHECK:           gpu.dynamic_shared_memory
// CHECK:           nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1}
// CHECK:           scf.for
// CHECK:             nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK-NEXT:        gpu.barrier
// CHECK:             nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:             nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK:             nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<bf16>
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:           vector.store {{.*}} : memref<4096x4096xbf16>, vector<2xbf16>
module attributes {amk.target = #amk.target<"h200">} {
  func.func @mma(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xbf16>) {
    amk.kernel "gemm_mma" config(#amk.gemm_config<block = [128, 128, 32], warp = [64, 64], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xbf16>
    }
    return
  }
}

// -----

// simt on dynamic sizes: grid from memref.dim, register-staged double buffer,
// masked loads (branch-free: an out-of-bounds element loads (0, 0) and is
// replaced by 0), FMAs, guarded scalar stores (N unknown).
// Registers: acc 64 + fragments 32 + staging 16 + overhead 40 = 152 x 1.15
// -> 175, rounded up to 176.
// CHECK-LABEL: func.func @simt_dynamic
// CHECK-DAG:     %[[M:.*]] = memref.dim %{{.*}}, %c0 : memref<?x?xf32>
// CHECK-DAG:     %[[N:.*]] = memref.dim %{{.*}}, %c1 : memref<?x?xf32>
// CHECK:         gpu.launch_func @gemm_simt::@gemm_simt
// CHECK:       gpu.func @gemm_simt
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>, nvvm.maxnreg = 176 : i32
// CHECK:         %[[OK:.*]] = arith.andi
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[OK]], %{{.*}}, %c0 : index
// CHECK-NEXT:    %[[C:.*]] = arith.select %[[OK]], %{{.*}}, %c0 : index
// CHECK-NEXT:    %[[V:.*]] = memref.load %{{.*}}[%[[R]], %[[C]]] : memref<?x?xf32>
// CHECK-NEXT:    arith.select %[[OK]], %[[V]], %{{.*}} : f32
// CHECK:         gpu.barrier
// CHECK:         scf.for {{.*}} step %c2
// CHECK:           vector.fma {{.*}} : vector<8xf32>
// CHECK:         memref.store {{.*}} : memref<?x?xf32>
module attributes {amk.target = #amk.target<"a100">} {
  func.func @simt_dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
    amk.kernel "gemm_simt" config(#amk.gemm_config<block = [128, 128, 8], warp = [32, 64], math = simt, thread = [8, 8], stages = 2, vector = 1, threads = 256>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
    }
    return
  }
}

// -----

// Batched, transposed B, epilogue: the batch selects subviews on blockIdx.z.
// Registers: acc 32 + fragments 16 + cp.async addresses 16 + overhead 40 =
// 104 x 1.15 -> 120.
// CHECK-LABEL: func.func @batched_epilogue
// CHECK:         %[[B:.*]] = arith.constant 4 : index
// CHECK:         gpu.launch_func @gemm_batched::@gemm_batched blocks in (%{{.*}}, %{{.*}}, %[[B]])
// CHECK:       gpu.func @gemm_batched
// CHECK-SAME:      nvvm.maxnreg = 120 : i32
// CHECK:         gpu.block_id z
// CHECK:         memref.subview
// CHECK:         nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK-NOT:     transpose = true
// CHECK:         math.erf
// CHECK:         arith.truncf {{.*}} f32 to f16
module attributes {amk.target = #amk.target<"rtx4060ti">} {
  func.func @batched_epilogue(%a: memref<4x64x256xf16>, %b: memref<4x128x256xf16>, %bias: memref<4x128xf16>, %c: memref<4x64x128xf16>) {
    amk.kernel "gemm_batched" config(#amk.gemm_config<block = [64, 64, 64], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 3, vector = 8, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b bias(%bias) into %c {transpose_b, activation = #amk.activation<gelu>, alpha = 0.5}
        : memref<4x64x256xf16>, memref<4x128x256xf16>, memref<4x128xf16>, memref<4x64x128xf16>
    }
    return
  }
}

// -----

// An odd K leaves A's rows unaligned: no cp.async for A; each thread reads
// the aligned 16-byte chunks around 8 elements from a flat view of the
// buffer, and one k-tile later (the loads stay in flight as loop-carried
// values) shifts them into place on 32-bit words, masks the part outside
// the matrix and stores them. B's rows (N = 1000) keep 16-byte cp.async.
// Registers: acc 32 + fragments 16 + A's 2 chunks x (10 x 2 k-tiles in
// flight + a 64-bit address) 44 + B's 2 cp.async x 2 + overhead 40 = 136 x
// 1.15 = 156.4, rounded up to 160.
// CHECK-LABEL: func.func @odd_k
// CHECK:       gpu.func @gemm_odd
// CHECK-SAME:      nvvm.maxnreg = 160 : i32
// CHECK:         memref.reinterpret_cast %arg0 to offset: [0], sizes: [999000], strides: [1] : memref<1000x999xf16>
// CHECK:         vector.load {{.*}} {alignment = 16 : i64} : memref<999000xf16, strided<[1]>>, vector<8xf16>
// CHECK:         nvgpu.device_async_copy %arg1{{.*}}, 8,
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (f32, {{.*}}, vector<8xf16>, vector<8xf16>, index, index, {{.*}})
// CHECK:           gpu.barrier
// CHECK:           vector.bitcast %arg{{[0-9]+}} : vector<8xf16> to vector<4xi32>
// CHECK:           arith.shrui %{{.*}}, %c16_i32 : i32
// CHECK:           arith.shli %{{.*}}, %c16_i32 : i32
// CHECK:           scf.if %{{.*}} -> (vector<8xf16>)
// CHECK:             arith.cmpi sgt, %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK:           vector.store {{.*}} : memref<16384xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK:           nvvm.mma.sync
// ODD-A-LABEL: gpu.func @gemm_odd
// ODD-A-NOT:     nvgpu.device_async_copy %arg0
// ODD-A:         gpu.return
module attributes {amk.target = #amk.target<"h100">} {
  func.func @odd_k(%a: memref<1000x999xf16>, %b: memref<999x1000xf16>, %c: memref<1000x1000xf32>) {
    amk.kernel "gemm_odd" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<1000x999xf16>, memref<999x1000xf16>, memref<1000x1000xf32>
    }
    return
  }
}

// -----

// Dynamic rows: one uniform test of both row lengths picks the cp.async
// version of the main loop when they are multiples of 8 (the harness proves
// its 16-byte copies in bounds and aligned under that test), the realigning
// version otherwise; one epilogue stores the accumulators either yields.
// The register budget is the realigning version's.
// CHECK-LABEL: func.func @dynamic_versions
// CHECK:       gpu.func @gemm_dyn
// CHECK-SAME:      nvvm.maxnreg = 208 : i32
// CHECK:         %[[KA:.*]] = memref.dim %arg0, %c1 : memref<?x?xf16>
// CHECK:         %[[RA:.*]] = arith.remui %[[KA]], %c8 : index
// CHECK:         %[[OKA:.*]] = arith.cmpi eq, %[[RA]], %c0 : index
// CHECK:         %[[NB:.*]] = memref.dim %arg1, %c1 : memref<?x?xf16>
// CHECK:         %[[RB:.*]] = arith.remui %[[NB]], %c8 : index
// CHECK:         %[[OKB:.*]] = arith.cmpi eq, %[[RB]], %c0 : index
// CHECK:         %[[OK:.*]] = arith.andi %[[OKA]], %[[OKB]] : i1
// CHECK:         %[[ACC:.*]]:32 = scf.if %[[OK]] -> (f32,
// CHECK:           nvgpu.device_async_copy %arg0{{.*}}, 8,
// CHECK:           nvgpu.device_async_copy %arg1{{.*}}, 8,
// CHECK:           nvvm.mma.sync
// CHECK:           scf.yield
// CHECK:         } else {
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK:           vector.load %reinterpret_cast{{.*}} {alignment = 16 : i64} : memref<?xf16>, vector<8xf16>
// CHECK:           nvvm.mma.sync
// CHECK:           scf.yield
// CHECK:         }
// CHECK:         memref.store %[[ACC]]#0, %arg2
// CHECK:         gpu.return
module attributes {amk.target = #amk.target<"h100">} {
  func.func @dynamic_versions(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
    amk.kernel "gemm_dyn" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 3, vector = 8, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>
    }
    return
  }
}

// -----

// Rows of B that break 16 bytes (N = 999) and a dynamic K: B is read through
// a flat view whose size (K - 1) * 999 + 999 is 0 when K is. The realigned
// chunks at the very end of the matrix fall back to one element at a time,
// each load under its own test against the view's end (a clamp to the last
// element is no bound on an empty matrix, and the harness rejects it).
// CHECK-LABEL: func.func @flat_view_dynamic_rows
// CHECK:       gpu.func @gemm_flat_dyn
// CHECK:         %[[END:.*]] = arith.addi %{{.*}}, %c999 : index
// CHECK:         %[[FLAT:.*]] = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%[[END]]], strides: [1] : memref<?x999xf16> to memref<?xf16>
// CHECK:         scf.for %[[E:.*]] = %c0 to %c8 step %c1
// CHECK:           %[[AT:.*]] = arith.addi %{{.*}}, %[[E]] : index
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[AT]], %[[END]] : index
// CHECK:           scf.if %[[IN]] -> (f16) {
// CHECK:             memref.load %[[FLAT]][%[[AT]]] : memref<?xf16>
// CHECK:           } else {
// CHECK:             scf.yield %{{.*}} : f16
module attributes {amk.target = #amk.target<"h100">} {
  func.func @flat_view_dynamic_rows(%a: memref<7x?xf16>, %b: memref<?x999xf16>, %c: memref<7x999xf32>) {
    amk.kernel "gemm_flat_dyn" config(#amk.gemm_config<block = [16, 64, 64], warp = [16, 16], math = mma_sync, inst = [16, 8, 16], stages = 3, vector = 8, threads = 128, split_k = 4>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<7x?xf16>, memref<?x999xf16>, memref<7x999xf32>
    }
    return
  }
}
