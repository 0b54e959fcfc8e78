// RUN: amk-opt %s --amk-verify="time" -o /dev/null 2>&1 | FileCheck %s
// RUN: amk-opt %s --amk-verify="time json=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=JSON
// RUN: amk-opt %s --amk-verify="json=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=PLAIN
// `time`: the harness's wall time per lowered kernel and phase, as a remark
// and in the JSON report (only when asked: times differ from run to run).

// CHECK: remark: harness time of copy: {{[0-9]+\.[0-9]}} ms (structure {{[0-9.]+}}, uniformity {{[0-9.]+}}, convergence {{[0-9.]+}}, mbarriers {{[0-9.]+}}, ranges {{[0-9.]+}}, bounds {{[0-9.]+}}, alignment {{[0-9.]+}}, races {{[0-9.]+}}, global races {{[0-9.]+}}, coalescing {{[0-9.]+}})
// JSON:      "timing": {
// JSON-NEXT:   "kernels": [
// JSON-NEXT:     {
// JSON-NEXT:       "kernel": "copy",
// JSON-NEXT:       "phases": {
// JSON:              "races": {{[0-9.e-]+}},
// JSON:          "total_ms": {{[0-9.e-]+}}
// PLAIN-NOT: "timing"
gpu.module @m {
  gpu.func @copy(%a: memref<1024xf32>, %b: memref<1024xf32>) workgroup(%s: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c256 = arith.constant 256 : index
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %v = memref.load %a[%i] : memref<1024xf32>
    memref.store %v, %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %s[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %w, %b[%i] : memref<1024xf32>
    gpu.return
  }
}
