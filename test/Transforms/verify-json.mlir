// RUN: not amk-opt %s --amk-verify="json=-" -o /dev/null 2>/dev/null | FileCheck %s
// RUN: not amk-opt %s --amk-verify=json -o /dev/null 2>/dev/null | FileCheck %s
// RUN: not amk-opt %s --amk-verify="json=%t.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s < %t.json
// RUN: amk-opt %S/Inputs/verify-clean.mlir --amk-verify="json=-" -o /dev/null | FileCheck %s --check-prefix=CLEAN
// RUN: not amk-opt %S/Inputs/verify-json-kernels.mlir --amk-verify="json=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=KERNELS

// The JSON report: one object per finding, keys sorted, with the kernel's
// name as "op", the location of the kernel (of the access, for the kernel
// checks) and the severity; findings of the kernel checks add what they
// found: the index range against the bound (AMK-OOB), the address's residue
// and alignment against the one required (AMK-MISALIGNED), the stride
// between adjacent threads and the sectors a warp touches (AMK-UNCOALESCED,
// a warning: its kernel still counts as verified).

// CHECK:      {
// CHECK-NEXT:   "findings": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "check": "AMK-RES-SMEM",
// CHECK-NEXT:       "col": 3,
// CHECK-NEXT:       "file": "{{.*}}verify-json.mlir",
// CHECK-NEXT:       "found": 32768,
// CHECK-NEXT:       "limit": 32767,
// CHECK-NEXT:       "line": [[# @LINE + 29]],
// CHECK-NEXT:       "message": "dynamic shared memory 32768 B exceeds the opt-in limit 32767 B of target 'h200'",
// CHECK-NEXT:       "op": "too_much_smem",
// CHECK-NEXT:       "severity": "error"
// CHECK-NEXT:     },
// CHECK-NEXT:     {
// CHECK-NEXT:       "check": "AMK-SYNTH-UNSUPPORTED",
// CHECK-NEXT:       "col": 3,
// CHECK-NEXT:       "file": "{{.*}}verify-json.mlir",
// CHECK-NEXT:       "found": 0,
// CHECK-NEXT:       "limit": 0,
// CHECK-NEXT:       "line": [[# @LINE + 21]],
// CHECK-NEXT:       "message": "the synthesizer cannot generate this config: simt synthesizes f32 inputs only",
// CHECK-NEXT:       "op": "simt_bf16",
// CHECK-NEXT:       "severity": "error"
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

// KERNELS:      "findings": [
// KERNELS-NEXT:     {
// KERNELS-NEXT:       "bound": 256,
// KERNELS-NEXT:       "check": "AMK-OOB",
// KERNELS-NEXT:       "col": 10,
// KERNELS-NEXT:       "dimension": 0,
// KERNELS-NEXT:       "file": "{{.*}}verify-json-kernels.mlir",
// KERNELS-NEXT:       "found": 257,
// KERNELS-NEXT:       "limit": 256,
// KERNELS-NEXT:       "line": 8,
// KERNELS-NEXT:       "message": "load of memref<256xf32> may leave the buffer in dimension 0: index: its range [1, 256] + 1 exceeds 256",
// KERNELS-NEXT:       "op": "oob",
// KERNELS-NEXT:       "range": {
// KERNELS-NEXT:         "max": 256,
// KERNELS-NEXT:         "min": 1
// KERNELS-NEXT:       },
// KERNELS-NEXT:       "severity": "error",
// KERNELS-NEXT:       "unit": "elements"
// KERNELS-NEXT:     },
// KERNELS-NEXT:     {
// KERNELS-NEXT:       "alignment": {
// KERNELS-NEXT:         "proven": 8,
// KERNELS-NEXT:         "required": 16,
// KERNELS-NEXT:         "residue": 8
// KERNELS-NEXT:       },
// KERNELS-NEXT:       "bytes": 16,
// KERNELS-NEXT:       "check": "AMK-MISALIGNED",
// KERNELS-NEXT:       "col": 10,
// KERNELS-NEXT:       "file": "{{.*}}verify-json-kernels.mlir",
// KERNELS-NEXT:       "found": 8,
// KERNELS-NEXT:       "limit": 16,
// KERNELS-NEXT:       "line": 17,
// KERNELS-NEXT:       "message": "vector load of memref<1040xf32> (16 B) is misaligned: its address is 8 mod 16, and it needs 16-byte alignment",
// KERNELS-NEXT:       "op": "misaligned",
// KERNELS-NEXT:       "severity": "error"
// KERNELS-NEXT:     },
// KERNELS-NEXT:     {
// KERNELS-NEXT:       "accesses": 1,
// KERNELS-NEXT:       "check": "AMK-UNCOALESCED",
// KERNELS-NEXT:       "col": 10,
// KERNELS-NEXT:       "file": "{{.*}}verify-json-kernels.mlir",
// KERNELS-NEXT:       "found": 32,
// KERNELS-NEXT:       "idealSectors": 2,
// KERNELS-NEXT:       "limit": 2,
// KERNELS-NEXT:       "line": 23,
// KERNELS-NEXT:       "message": "global load of memref<256x64xf16> is uncoalesced: adjacent threads access addresses 128 B (64 elements) apart, so warp 0 touches 32 sectors of 32 B for the 64 B it reads (2 would do)",
// KERNELS-NEXT:       "op": "column",
// KERNELS-NEXT:       "sectors": 32,
// KERNELS-NEXT:       "severity": "warning",
// KERNELS-NEXT:       "stride": {
// KERNELS-NEXT:         "bytes": 128,
// KERNELS-NEXT:         "elements": 64
// KERNELS-NEXT:       },
// KERNELS-NEXT:       "warp": 0
// KERNELS-NEXT:     }
// KERNELS-NEXT:   ],
// KERNELS-NEXT:   "kernels": 3,
// KERNELS-NEXT:   "verified": 1
