// RUN: amk-opt %s --amk-target=h200 --amk-plan=explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: amk-opt %s --amk-pipeline="target=h200 bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/softmax_4096x4096_bf16_bf16.json
// RUN: FileCheck %s --check-prefix=CLUSTER < %t/softmax_64x100000_bf16_bf16.json
// The planner ranks row configs with the family's memory model and the
// pipeline exports a verified bundle of the family's problem.

// EXPLAIN: remark: planned softmax_4096x4096_bf16_bf16: #amk.row_config<threads_per_row = {{[0-9]+}}, rows_per_block = {{[0-9]+}}, vector = 8{{.*}}>, predicted {{.*}} us ({{[0-9]+}} candidates, {{[0-9]+}} rejected)
// EXPLAIN: note: ladder #1: #amk.row_config<{{.*}}>: {{.*}} us (hbm {{.*}}, l2 re-reads {{.*}}, latency {{.*}}, l1 {{.*}}, chain {{.*}}, sfu {{.*}}, combine {{.*}} us; {{.*}}, 4096 rows, {{[12]}} read pass(es))
func.func @softmax(%x: memref<4096x4096xbf16>, %y: memref<4096x4096xbf16>) {
  amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<4096x4096xbf16>, memref<4096x4096xbf16>
  return
}

// A dynamic row length gets at least 256 threads and is planned long (a
// cached row is tested against the length in the kernel); its vector runs
// are versioned in the kernel; the plan says at what size it was made.
// EXPLAIN: remark: planned rms_norm_Dx{{.*}}: #amk.row_config<threads_per_row = {{256|512|1024}}, rows_per_block = 1, vector = 4{{(, cached_runs = [0-9]+)?}}>
// EXPLAIN: note: rejected: {{.*}}heuristic:dynamic-row-narrow
// EXPLAIN: note: dynamic sizes planned as 4096 rows of 32768 (a dynamic batch as 1)
func.func @rms(%x: memref<?x?xf32>, %w: memref<?xf32>, %y: memref<?x?xf32>) {
  amk.row_reduce %x weight(%w) into %y {kind = #amk.row_op<rms_norm>} : memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>
  return
}

// MANIFEST:      "args": [
// MANIFEST:          "name": "x",
// MANIFEST:          "shape": [
// MANIFEST-NEXT:       "M",
// MANIFEST-NEXT:       "N"
// MANIFEST:          "name": "y",
// MANIFEST:      "family": "row_reduce",
// MANIFEST:          "grid": [
// MANIFEST-NEXT:       "M",
// MANIFEST-NEXT:       "1",
// MANIFEST-NEXT:       "B"
// MANIFEST:      "problem": {
// MANIFEST-NEXT:   "batch": 1,
// MANIFEST-NEXT:   "batched": false,
// MANIFEST-NEXT:   "bias": false,
// MANIFEST-NEXT:   "eps": 1.0000000000000001e-05,
// MANIFEST-NEXT:   "family": "row_reduce",
// MANIFEST-NEXT:   "in_type": "bf16",
// MANIFEST-NEXT:   "kind": "softmax",
// MANIFEST-NEXT:   "m": 4096,
// MANIFEST-NEXT:   "n": 4096,
// MANIFEST-NEXT:   "out_type": "bf16",
// MANIFEST-NEXT:   "signature": "softmax_4096x4096_bf16_bf16",
// MANIFEST-NEXT:   "weight": false
// MANIFEST:      "sizes": {
// MANIFEST-NEXT:   "B": 1,
// MANIFEST-NEXT:   "M": 4096,
// MANIFEST-NEXT:   "N": 4096

// A dynamic row length also gets kernels for rows up to 64, 512 and 4096
// (through the generic dispatch variants, each planned at its bound and
// caching the row), and a dynamic row count one for up to an eighth of
// the SMs (16 of h200's 132) of rows longer than 8192, a cluster of 8
// blocks per row; the launch picks the first whose bounds hold.
// RUN: amk-opt %s --amk-target=h200 --amk-plan | FileCheck %s --check-prefix=DISPATCH
// DISPATCH-LABEL: func.func @rms
// DISPATCH:         amk.kernel "rms_norm_DxD_f32_f32" config(#amk.row_config<threads_per_row = {{256|512|1024}},
// DISPATCH-SAME:      amk.dispatch = [{config = #amk.row_config<threads_per_row = {{[0-9]+}}, rows_per_block = {{[0-9]+}}, vector = 4, cached_runs = {{[0-9]+}}>, predicted_ns = {{[0-9]+}} : i64, symbol = "N", up_to = 64 : i64, when = "N <= 64"},
// DISPATCH-SAME:        {config = #amk.row_config<{{.*}}cached_runs = {{[0-9]+}}>, predicted_ns = {{[0-9]+}} : i64, symbol = "N", up_to = 512 : i64, when = "N <= 512"},
// DISPATCH-SAME:        {config = #amk.row_config<{{.*}}cached_runs = {{[0-9]+}}>, predicted_ns = {{[0-9]+}} : i64, symbol = "N", up_to = 4096 : i64, when = "N <= 4096"},
// DISPATCH-SAME:        {above = 8192 : i64, above_symbol = "N", config = #amk.row_config<{{.*}}cluster = 8>, predicted_ns = {{[0-9]+}} : i64, symbol = "M", up_to = 16 : i64, when = "M <= 16 && N > 8192"}]

// A long 16-bit row is staged in shared memory where registers would hold
// one row per SM: two blocks share an SM, their loads overlap each other's
// passes. Narrow staged blocks, and ones alone on their SM, are pruned.
// EXPLAIN: remark: planned softmax_8192x32768_bf16_bf16: #amk.row_config<threads_per_row = {{512|1024}}, rows_per_block = 1, vector = 8, passes = 2, cached_runs = {{[0-9]+}}, cache = shared>
// EXPLAIN: note: ladder #1: {{.*}}; 2 block(s)/SM limited by {{.*}}, {{[0-9]+}} B smem, 8192 rows, 1 read pass(es))
// EXPLAIN: note: rejected: {{.*}}heuristic:staged-narrow
func.func @long_softmax(%x: memref<8192x32768xbf16>, %y: memref<8192x32768xbf16>) {
  amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<8192x32768xbf16>, memref<8192x32768xbf16>
  return
}

// Few rows too long for a block each (64 on 132 SMs): a cluster of blocks
// per row, whose parts meet through a workspace the launch allocates; the
// grid has a block per row and rank.
// EXPLAIN: remark: planned softmax_64x100000_bf16_bf16: #amk.row_config<{{.*}}, cluster = {{2|4|8}}>
// CLUSTER:      "grid": [
// CLUSTER-NEXT:   "(M)*{{2|4|8}}",
// CLUSTER:      "params": [
// CLUSTER-NEXT:   "x",
// CLUSTER-NEXT:   "y",
// CLUSTER-NEXT:   "partials"
// CLUSTER:      "workspace": [
// CLUSTER:          "elem": "f32",
// CLUSTER:          "name": "partials",
// CLUSTER:          "shape": [
// CLUSTER-NEXT:       "M",
// CLUSTER-NEXT:       {{8|16|32}}
func.func @few_long_rows(%x: memref<64x100000xbf16>, %y: memref<64x100000xbf16>) {
  amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<64x100000xbf16>, memref<64x100000xbf16>
  return
}
