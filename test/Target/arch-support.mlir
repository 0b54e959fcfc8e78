// RUN: amk-opt %s --split-input-file --amk-plan --amk-verify --verify-diagnostics | FileCheck %s
// What an arch supports comes from one table (lib/Target/Archs.cpp): a config
// whose instructions the target's arch lacks is AMK-SYNTH-UNSUPPORTED, so the
// planner never picks it and verify rejects it. (Before, f16 on sm_75 was
// planned with cp.async and ended in "LLVM ERROR: Cannot select".)

// f16 on sm_75 (Turing: ldmatrix, but no cp.async or m16n8k16): no config.
module attributes {amk.target = #amk.target<"h100", arch = "sm_75">} {
func.func @f16_sm75(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
  // expected-error-re @+1 {{no GEMM config fits target 'h100': {{[0-9]+}} candidates rejected ({{[0-9]+}} AMK-SYNTH-UNSUPPORTED (e.g. the synthesizer cannot generate this config: mma_sync kernels use cp.async, which sm_75 (target 'h100') lacks: it needs sm_80 or later))}}
  amk.matmul %a, %b into %c : memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf32>
  return
}
}

// -----

// bf16 on sm_70 (Volta): no config either.
module attributes {amk.target = #amk.target<"h100", arch = "sm_70">} {
func.func @bf16_sm70(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error-re @+1 {{no GEMM config fits target 'h100': {{.*}}mma_sync kernels use cp.async, which sm_70 (target 'h100') lacks: it needs sm_80 or later}}
  amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  return
}
}

// -----

// f32 on sm_75 and sm_70: simt kernels, which every arch can run.
// CHECK-LABEL: func.func @f32_sm75
// CHECK: amk.kernel "gemm_256x256x256_f32_f32_f32_nn" config(#amk.gemm_config<{{.*}}math = simt{{.*}}attributes {amk.verified}
module attributes {amk.target = #amk.target<"h100", arch = "sm_75">} {
func.func @f32_sm75(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
  amk.matmul %a, %b into %c : memref<256x256xf32>, memref<256x256xf32>, memref<256x256xf32>
  return
}
}

// -----

// A hand-written tensor-core kernel for sm_75 is rejected by verify.
module attributes {amk.target = #amk.target<"h100", arch = "sm_75">} {
func.func @mma_sm75(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  // expected-error @+1 {{[AMK-SYNTH-UNSUPPORTED] the synthesizer cannot generate this config: mma_sync kernels use cp.async, which sm_75 (target 'h100') lacks: it needs sm_80 or later}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}

// -----

// The same kernel on sm_80 verifies.
// CHECK-LABEL: func.func @mma_sm80
// CHECK: amk.kernel "k" {{.*}} attributes {amk.verified}
module attributes {amk.target = #amk.target<"h100", arch = "sm_80">} {
func.func @mma_sm80(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}
