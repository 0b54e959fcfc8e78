// RUN: amk-opt %s --amk-pipeline="target=h100 stop-at=gpu" | FileCheck %s --check-prefix=GPU
// RUN: amk-opt %s --amk-pipeline="target=l4 stop-at=nvvm" | FileCheck %s --check-prefix=NVVM
// RUN: amk-opt %s --amk-pipeline="target=h200 stop-at=gpu explain verify-json=-" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: amk-opt %s --amk-pipeline="target=a100 ladder-size=1 explain stop-at=gpu" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LADDER
// RUN: not amk-opt %s --amk-pipeline="stop-at=gpu" 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not amk-opt %s --amk-pipeline="target=h200 stop-at=ptx" 2>&1 | FileCheck %s --check-prefix=STOP
// The whole flow in one flag, from amk.matmul and from linalg.matmul.

// GPU: module attributes {amk.target = #amk.target<"h100">, gpu.container_module}
// GPU-LABEL: func.func @from_amk
// GPU: gpu.launch_func @gemm_512x256x128_bf16_f32_bf16_nn::@gemm_512x256x128_bf16_f32_bf16_nn
// GPU-LABEL: func.func @from_linalg
// GPU-NOT: linalg.fill
// GPU: gpu.launch_func @gemm_Dx64x32_f32_f32_f32_nn::@gemm_Dx64x32_f32_f32_f32_nn
// GPU: gpu.module @gemm_512x256x128_bf16_f32_bf16_nn
// GPU: nvgpu.tma.async.load
// GPU: nvgpu.warpgroup.mma
// GPU: gpu.module @gemm_Dx64x32_f32_f32_f32_nn
// GPU: vector.fma

// NVVM: gpu.module @gemm_512x256x128_bf16_f32_bf16_nn [#nvvm.target<O = 3, chip = "sm_89", features = "+ptx80">]
// NVVM: llvm.func @gemm_512x256x128_bf16_f32_bf16_nn
// NVVM: nvvm.mma.sync

// EXPLAIN: remark: planned gemm_512x256x128_bf16_f32_bf16_nn
// EXPLAIN: remark: planned gemm_Dx64x32_f32_f32_f32_nn
// EXPLAIN: "kernels": 2,
// EXPLAIN: "verified": 2

// LADDER: note: ladder #1
// LADDER-NOT: ladder #2

// NOTARGET: error: no #amk.target to plan for: use --amk-plan="target=<preset>" or run --amk-target=<preset> first (presets: a100,
// STOP: error: --amk-lower: stop-at must be gpu, nvvm or binary, not 'ptx'

func.func @from_amk(%a: memref<512x128xbf16>, %b: memref<128x256xbf16>, %c: memref<512x256xbf16>) {
  amk.matmul %a, %b into %c : memref<512x128xbf16>, memref<128x256xbf16>, memref<512x256xbf16>
  return
}

func.func @from_linalg(%a: memref<?x32xf32>, %b: memref<32x64xf32>, %c: memref<?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x64xf32>)
  linalg.matmul ins(%a, %b : memref<?x32xf32>, memref<32x64xf32>) outs(%c : memref<?x64xf32>)
  return
}
