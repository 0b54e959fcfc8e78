// RUN: amk-opt %s --amk-target=h200 --amk-plan=explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: rm -rf %t && amk-opt %s --amk-pipeline="target=h200 bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/graph_1x14336x4096_bf16_gelu_1x4096x14336s0_bf16.json
// The decode MLP y = W2 gelu(W1 x) planned as one megakernel: the explain
// output gives the memory model's terms against the HBM floor, and the
// bundle carries the wiring, the workspace (the buffer and the zeroed
// counters) and a cooperative kernel.

// EXPLAIN: remark: planned graph_1x14336x4096_bf16_gelu_1x4096x14336s0_bf16: #amk.graph_config<blocks = {{[0-9]+}}, threads = {{[0-9]+}}, rows_per_warp = {{[0-9]}}, unroll = {{[0-9]}}{{.*}}>, predicted {{.*}} us ({{[0-9]+}} candidates, {{[0-9]+}} rejected)
// EXPLAIN: note: ladder #1: #amk.graph_config<{{.*}}>: {{.*}} us (hbm {{.*}}, latency {{.*}}, compute {{.*}}, steps {{.*}}, sync 1.5 us; {{.*}}, 2 steps, floor {{.*}} us at the HBM peak)
// Co-residency is part of the plan: grids the GPU cannot hold at once are
// rejected, with the reason.
// EXPLAIN: note: rejected: {{[0-9]+}} AMK-SYNTH-UNSUPPORTED
// The graph: where each step reads and writes, and what waits for what.
// EXPLAIN: note: step 0: 1x14336x4096 gelu, A from input #0, weights input #1, into buffer 0, then signals its counter
// EXPLAIN: note: step 1: 1x4096x14336, A from step 0, after its counter, weights input #2, into output #3

// MANIFEST:      "family": "graph",
// MANIFEST:      "kernels": [
// MANIFEST:          "cooperative": true,
// MANIFEST:          "params": [
// MANIFEST-NEXT:       "in0",
// MANIFEST-NEXT:       "in1",
// MANIFEST-NEXT:       "in2",
// MANIFEST-NEXT:       "out0",
// MANIFEST-NEXT:       "buf0",
// MANIFEST-NEXT:       "counters"
// MANIFEST-NEXT:     ],
// MANIFEST:            "status": "verified"
// MANIFEST:      "problem": {
// MANIFEST:        "steps": [
// MANIFEST-NEXT:     {
// MANIFEST-NEXT:       "a_input": 0,
// MANIFEST-NEXT:       "activation": "gelu",
// MANIFEST-NEXT:       "alpha": 1,
// MANIFEST-NEXT:       "c_buffer": 0,
// MANIFEST-NEXT:       "in_type": "bf16",
// MANIFEST-NEXT:       "k": 4096,
// MANIFEST-NEXT:       "m": 1,
// MANIFEST-NEXT:       "n": 14336,
// MANIFEST-NEXT:       "out_type": "bf16",
// MANIFEST-NEXT:       "weights": 1
// MANIFEST-NEXT:     },
// MANIFEST-NEXT:     {
// MANIFEST-NEXT:       "a_step": 0,
// MANIFEST:            "c_output": 3,
// MANIFEST:            "weights": 2
// MANIFEST:      "variants": [
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "steps": [
// MANIFEST-NEXT:       {
// MANIFEST-NEXT:         "id": "zero_counters",
// MANIFEST-NEXT:         "zero": "counters"
// MANIFEST-NEXT:       },
// MANIFEST:      "workspace": [
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "elem": "bf16",
// MANIFEST-NEXT:     "kind": "memref",
// MANIFEST-NEXT:     "name": "buf0",
// MANIFEST-NEXT:     "shape": [
// MANIFEST-NEXT:       1,
// MANIFEST-NEXT:       14336
// MANIFEST-NEXT:     ]
// MANIFEST-NEXT:   },
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "elem": "i32",
// MANIFEST-NEXT:     "kind": "memref",
// MANIFEST-NEXT:     "name": "counters",
func.func @mlp(%x: memref<1x4096xbf16>, %w1: memref<14336x4096xbf16>, %w2: memref<4096x14336xbf16>, %y: memref<1x4096xbf16>) {
  amk.graph ins(%x, %w1, %w2 : memref<1x4096xbf16>, memref<14336x4096xbf16>, memref<4096x14336xbf16>) outs(%y : memref<1x4096xbf16>) {
  ^bb0(%xa: memref<1x4096xbf16>, %w1a: memref<14336x4096xbf16>, %w2a: memref<4096x14336xbf16>, %ya: memref<1x4096xbf16>):
    %h = amk.graph_buffer : memref<1x14336xbf16>
    amk.matmul %xa, %w1a into %h {transpose_b, activation = #amk.activation<gelu>} : memref<1x4096xbf16>, memref<14336x4096xbf16>, memref<1x14336xbf16>
    amk.matmul %h, %w2a into %ya {transpose_b} : memref<1x14336xbf16>, memref<4096x14336xbf16>, memref<1x4096xbf16>
  }
  return
}
