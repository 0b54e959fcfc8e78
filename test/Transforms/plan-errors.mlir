// RUN: amk-opt %s --split-input-file --amk-plan --verify-diagnostics

// No target on the module and none given: the presets are listed.
// expected-error @below {{no #amk.target to plan for: use --amk-plan="target=<preset>" or run --amk-target=<preset> first (presets: a100, rtx4060ti, l4, h100, h200, b200, rtx5060ti)}}
module {
func.func @no_target(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  return
}
}

// -----

// A GPU with 1 KiB of shared memory: no tile fits, and the error says why,
// counted by reason, with an example of each.
module attributes {amk.target = #amk.target<"h200", smem_per_block_optin_bytes = 1024, smem_per_block_bytes = 1024, smem_per_sm_bytes = 1024>} {
func.func @no_fit(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xf32>) {
  // expected-error-re @+1 {{no GEMM config fits target 'h200': {{[0-9]+}} candidates rejected ({{[0-9]+}} AMK-RES-SMEM (e.g. dynamic shared memory {{[0-9]+}} B exceeds the opt-in limit 1024 B of target 'h200'){{.*}}}}
  amk.matmul %a, %b into %c : memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xf32>
  return
}
}
