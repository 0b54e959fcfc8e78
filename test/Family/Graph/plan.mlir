// RUN: amk-opt %s --amk-target=h200 --amk-plan=explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: rm -rf %t && amk-opt %s --amk-pipeline="target=h200 bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/graph_1x14336x4096_bf16_gelu_1x4096x14336s0_bf16.json
// RUN: FileCheck %s --check-prefix=BLOCK < %t/graph_rms_norm1x4096_bf16_1x14336x4096s0_bf16_silu_1x14336x4096s0_bf16_mul1x14336s1s2_bf16_1x4096x14336s3_bf16_add1x4096s4_bf16.json
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
// EXPLAIN: note: step 1: 1x4096x14336, A from step 0, weights input #2, after step 0's counter, into output #3

// The Llama-style block (planned after the MLP): the steps' orderings.
// EXPLAIN: note: step 0: rms_norm 1x4096 of input #0, weight input #1, a row per block, into buffer 0, then signals its counter
// EXPLAIN: note: step 1: 1x14336x4096 silu, A from step 0, weights input #2, after step 0's counter, into buffer 1
// EXPLAIN: note: step 2: 1x14336x4096, A from step 0, weights input #3, into buffer 2
// EXPLAIN: note: step 3: mul 1x14336 of step 1 and step 2, after a barrier (its block wrote what it reads), into buffer 3, then signals its counter
// EXPLAIN: note: step 4: 1x4096x14336, A from step 3, weights input #4, after step 3's counter, into buffer 4
// EXPLAIN: note: step 5: add 1x4096 of input #0 and step 4, after a barrier (its block wrote what it reads), into output #5
// A graph without products plans the simt body only (the bodies differ
// in products alone): no math = mma_sync, no stages.
// EXPLAIN: remark: planned graph_softmax7x333_f16f32_mul7x333s0_f32: #amk.graph_config<blocks = {{[0-9]+}}, threads = {{[0-9]+}}, rows_per_warp = {{[0-9]}}, unroll = {{[0-9]+}}>, predicted
// EXPLAIN: note: step 0: softmax 7x333 of input #0, a row per block, into buffer 0, then signals its counter
// EXPLAIN: note: step 1: mul 7x333 of step 0 and input #1, after step 0's counter, into output #2

// The block's manifest: each step's op, its sources and its parameters.
// BLOCK:      "steps": [
// BLOCK-NEXT:   {
// BLOCK-NEXT:     "a_input": 0,
// BLOCK-NEXT:     "c_buffer": 0,
// BLOCK-NEXT:     "eps": 9.99{{[0-9]*}}e-07,
// BLOCK:          "op": "rms_norm",
// BLOCK:          "weights": 1
// BLOCK:          "op": "matmul",
// BLOCK:          "op": "matmul",
// BLOCK:        {
// BLOCK-NEXT:     "a_step": 1,
// BLOCK-NEXT:     "b_step": 2,
// BLOCK-NEXT:     "b_type": "bf16",
// BLOCK-NEXT:     "c_buffer": 3,
// BLOCK:          "op": "mul",
// BLOCK:          "op": "matmul",
// BLOCK:        {
// BLOCK-NEXT:     "a_input": 0,
// BLOCK-NEXT:     "b_step": 4,
// BLOCK:          "c_output": 5,
// BLOCK:          "op": "add",

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
// MANIFEST-NEXT:       "op": "matmul",
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

func.func @llama_block(%x: memref<1x4096xbf16>, %g: memref<4096xbf16>, %wg: memref<14336x4096xbf16>, %wu: memref<14336x4096xbf16>, %wd: memref<4096x14336xbf16>, %y: memref<1x4096xbf16>) {
  amk.graph ins(%x, %g, %wg, %wu, %wd : memref<1x4096xbf16>, memref<4096xbf16>, memref<14336x4096xbf16>, memref<14336x4096xbf16>, memref<4096x14336xbf16>) outs(%y : memref<1x4096xbf16>) {
  ^bb0(%xa: memref<1x4096xbf16>, %ga: memref<4096xbf16>, %wga: memref<14336x4096xbf16>, %wua: memref<14336x4096xbf16>, %wda: memref<4096x14336xbf16>, %ya: memref<1x4096xbf16>):
    %n = amk.graph_buffer : memref<1x4096xbf16>
    %gate = amk.graph_buffer : memref<1x14336xbf16>
    %up = amk.graph_buffer : memref<1x14336xbf16>
    %hid = amk.graph_buffer : memref<1x14336xbf16>
    %down = amk.graph_buffer : memref<1x4096xbf16>
    amk.row_reduce %xa weight(%ga) into %n {kind = #amk.row_op<rms_norm>, eps = 1.0e-6} : memref<1x4096xbf16>, memref<4096xbf16>, memref<1x4096xbf16>
    amk.matmul %n, %wga into %gate {transpose_b, activation = #amk.activation<silu>} : memref<1x4096xbf16>, memref<14336x4096xbf16>, memref<1x14336xbf16>
    amk.matmul %n, %wua into %up {transpose_b} : memref<1x4096xbf16>, memref<14336x4096xbf16>, memref<1x14336xbf16>
    linalg.mul ins(%gate, %up : memref<1x14336xbf16>, memref<1x14336xbf16>) outs(%hid : memref<1x14336xbf16>)
    amk.matmul %hid, %wda into %down {transpose_b} : memref<1x14336xbf16>, memref<4096x14336xbf16>, memref<1x4096xbf16>
    linalg.add ins(%xa, %down : memref<1x4096xbf16>, memref<1x4096xbf16>) outs(%ya : memref<1x4096xbf16>)
  }
  return
}

func.func @softmax_scale(%x: memref<7x333xf16>, %r: memref<7x333xf32>, %y: memref<7x333xf32>) {
  amk.graph ins(%x, %r : memref<7x333xf16>, memref<7x333xf32>) outs(%y : memref<7x333xf32>) {
  ^bb0(%xa: memref<7x333xf16>, %ra: memref<7x333xf32>, %ya: memref<7x333xf32>):
    %s = amk.graph_buffer : memref<7x333xf32>
    amk.row_reduce %xa into %s {kind = #amk.row_op<softmax>} : memref<7x333xf16>, memref<7x333xf32>
    linalg.mul ins(%s, %ra : memref<7x333xf32>, memref<7x333xf32>) outs(%ya : memref<7x333xf32>)
  }
  return
}
