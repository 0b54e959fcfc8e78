// RUN: not amk-opt %s --amk-verify="json=-" -o /dev/null 2>/dev/null | FileCheck %s
// RUN: not amk-opt %s --amk-verify=json -o /dev/null 2>/dev/null | FileCheck %s
// RUN: not amk-opt %s --amk-verify="json=%t.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s < %t.json
// RUN: amk-opt %S/Inputs/verify-clean.mlir --amk-verify="json=-" -o /dev/null | FileCheck %s --check-prefix=CLEAN

// The JSON report: one object per finding, keys sorted, with the kernel's
// name as "op" and the location of the kernel.

// CHECK:      {
// CHECK-NEXT:   "findings": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "check": "AMK-RES-SMEM",
// CHECK-NEXT:       "col": 3,
// CHECK-NEXT:       "file": "{{.*}}verify-json.mlir",
// CHECK-NEXT:       "found": 32768,
// CHECK-NEXT:       "limit": 32767,
// CHECK-NEXT:       "line": [[# @LINE + 27]],
// CHECK-NEXT:       "message": "dynamic shared memory 32768 B exceeds the opt-in limit 32767 B of target 'h200'",
// CHECK-NEXT:       "op": "too_much_smem"
// CHECK-NEXT:     },
// CHECK-NEXT:     {
// CHECK-NEXT:       "check": "AMK-SYNTH-UNSUPPORTED",
// CHECK-NEXT:       "col": 3,
// CHECK-NEXT:       "file": "{{.*}}verify-json.mlir",
// CHECK-NEXT:       "found": 0,
// CHECK-NEXT:       "limit": 0,
// CHECK-NEXT:       "line": [[# @LINE + 20]],
// CHECK-NEXT:       "message": "the synthesizer cannot generate this config: simt synthesizes f32 inputs only",
// CHECK-NEXT:       "op": "simt_bf16"
// CHECK-NEXT:     }
// CHECK-NEXT:   ],
// CHECK-NEXT:   "kernels": 3,
// CHECK-NEXT:   "verified": 1
// CHECK-NEXT: }

// CLEAN:      {
// CLEAN-NEXT:   "findings": [],
// CLEAN-NEXT:   "kernels": 1,
// CLEAN-NEXT:   "verified": 1
// CLEAN-NEXT: }

module attributes {amk.target = #amk.target<"h200", smem_per_block_bytes = 16384, smem_per_block_optin_bytes = 32767>} {
func.func @kernels(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  amk.kernel "too_much_smem" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  amk.kernel "simt_bf16" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  amk.kernel "fine" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}
