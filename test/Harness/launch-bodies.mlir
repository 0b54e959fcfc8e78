// RUN: amk-opt %s --split-input-file --amk-target=h200 --amk-verify --verify-diagnostics
// RUN: not amk-opt %s --split-input-file --amk-target=h200 --amk-verify="json=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=JSON
// Kernels still inside gpu.launch are checked like outlined ones: the
// harness outlines a copy (upstream's gpu-kernel-outlining, which turns the
// launch's constant sizes into known_block_size and known_grid_size) and
// reports at the original ops. (Before, such a module verified with
// "kernels": 0.)

// JSON: "check": "AMK-OOB"
// JSON: "kernels": 1
// JSON-NEXT: "verified": 0
func.func @off_by_one(%buf: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    %next = arith.addi %tx, %c1 : index
    // expected-error @+1 {{[AMK-OOB] store of memref<256xf32> may leave the buffer in dimension 0}}
    memref.store %zero, %buf[%next] : memref<256xf32>
    gpu.terminator
  }
  return
}

// -----

// JSON: "findings": []
// JSON-NEXT: "kernels": 1
// JSON-NEXT: "verified": 1
func.func @in_bounds(%buf: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %buf[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}

// -----

// A size spelled as a discardable attribute is not the gpu.func's: said.
gpu.module @m {
  // expected-warning @+2 {{'gpu.known_block_size' is not the gpu.func's known_block_size/known_grid_size: the harness does not read it}}
  // expected-error @+1 {{[AMK-RES-THREADS]}}
  gpu.func @foreign(%buf: memref<256xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>, known_block_size = array<i32: 2048, 1, 1>} {
    gpu.return
  }
}
