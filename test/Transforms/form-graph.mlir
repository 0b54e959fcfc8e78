// RUN: amk-opt %s --split-input-file --amk-form-graph --verify-diagnostics | FileCheck %s
// RUN: amk-opt %s --split-input-file --amk-form-graph --amk-target=h200 --amk-plan 2>/dev/null | FileCheck %s --check-prefix=PLAN
// The pipeline's form-graph option, to a bundle of one megakernel:
// RUN: rm -rf %t && amk-opt %S/Inputs/form-graph-mlp.mlir --amk-pipeline="form-graph=true target=h200 bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/graph_1x512x256_bf16_gelu_1x256x512s0_bf16.json

// A decode MLP as another compiler writes it: two products through an
// allocated buffer. The arguments no step writes are the inputs, the one
// written the output; the buffer is the graph's own.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<1x256xbf16>, %[[W1:[a-z0-9]+]]: memref<512x256xbf16>, %[[W2:[a-z0-9]+]]: memref<256x512xbf16>, %[[Y:[a-z0-9]+]]: memref<1x256xbf16>)
// CHECK-NOT:     memref.alloc
// CHECK:         amk.graph ins(%[[X]], %[[W1]], %[[W2]] : {{.*}}) outs(%[[Y]] : memref<1x256xbf16>) {
// CHECK-NEXT:    ^bb0(%[[XA:.*]]: memref<1x256xbf16>, %[[W1A:.*]]: memref<512x256xbf16>, %[[W2A:.*]]: memref<256x512xbf16>, %[[YA:.*]]: memref<1x256xbf16>):
// CHECK-NEXT:      %[[H:.*]] = amk.graph_buffer : memref<1x512xbf16>
// CHECK-NEXT:      amk.matmul %[[XA]], %[[W1A]] into %[[H]] {activation = #amk.activation<gelu>, transpose_b}
// CHECK-NEXT:      amk.matmul %[[H]], %[[W2A]] into %[[YA]] {transpose_b}
// CHECK-NEXT:    }
// CHECK-NOT:     memref.dealloc
// CHECK-NEXT:    return
// PLAN-LABEL: func.func @mlp(
// PLAN:         amk.kernel "graph_1x512x256_bf16_gelu_1x256x512s0_bf16" config(#amk.graph_config<
// PLAN-NEXT:      amk.graph ins(
// BUNDLE:       "family": "graph"
// BUNDLE:       "workspace"
func.func @mlp(%x: memref<1x256xbf16>, %w1: memref<512x256xbf16>, %w2: memref<256x512xbf16>, %y: memref<1x256xbf16>) {
  %h = memref.alloc() : memref<1x512xbf16>
  amk.matmul %x, %w1 into %h {transpose_b, activation = #amk.activation<gelu>} : memref<1x256xbf16>, memref<512x256xbf16>, memref<1x512xbf16>
  amk.matmul %h, %w2 into %y {transpose_b} : memref<1x512xbf16>, memref<256x512xbf16>, memref<1x256xbf16>
  memref.dealloc %h : memref<1x512xbf16>
  return
}

// -----

// An output a later step reads (the norm's result feeds both products) and
// an elementwise step: the output stays an output.
// CHECK-LABEL: func.func @norm_then_products(
// CHECK:         amk.graph ins(%arg0, %arg1, %arg3, %arg4 : {{.*}}) outs(%arg2, %arg5, %arg6, %arg7 : {{.*}}) {
// CHECK:           amk.row_reduce
// CHECK:           amk.matmul
// CHECK:           amk.matmul
// CHECK:           linalg.mul
// CHECK:         }
// CHECK-NEXT:    return
func.func @norm_then_products(%x: memref<2x128xf32>, %g: memref<128xf32>, %n: memref<2x128xf32>, %wa: memref<64x128xf32>, %wb: memref<64x128xf32>, %a: memref<2x64xf32>, %b: memref<2x64xf32>, %p: memref<2x64xf32>) {
  amk.row_reduce %x weight(%g) into %n {kind = #amk.row_op<rms_norm>} : memref<2x128xf32>, memref<128xf32>, memref<2x128xf32>
  amk.matmul %n, %wa into %a {transpose_b} : memref<2x128xf32>, memref<64x128xf32>, memref<2x64xf32>
  amk.matmul %n, %wb into %b {transpose_b} : memref<2x128xf32>, memref<64x128xf32>, memref<2x64xf32>
  linalg.mul ins(%a, %b : memref<2x64xf32>, memref<2x64xf32>) outs(%p : memref<2x64xf32>)
  return
}

// -----

// An op that is not a step: left alone, with the reason.
// CHECK-LABEL: func.func @other_op(
// CHECK-NOT:     amk.graph
// CHECK:         memref.copy
// expected-remark @+1 {{not made one amk.graph: 'memref.copy' is not a graph step}}
func.func @other_op(%x: memref<1x64xf32>, %w: memref<64x64xf32>, %h: memref<1x64xf32>, %y: memref<1x64xf32>, %z: memref<1x64xf32>) {
  amk.matmul %x, %w into %h {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  amk.matmul %h, %w into %y {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  memref.copy %y, %z : memref<1x64xf32> to memref<1x64xf32>
  return
}

// -----

// An argument read before a step writes it: a graph runs its steps on
// what they wrote, so the function stays (the graph's verifier says why).
// CHECK-LABEL: func.func @read_then_written(
// CHECK-NOT:     amk.graph
// expected-remark @+1 {{not made one amk.graph: 'amk.matmul' op reads an activation before any step writes it (steps run in order)}}
func.func @read_then_written(%x: memref<1x64xf32>, %w: memref<64x64xf32>, %h: memref<1x64xf32>, %y: memref<1x64xf32>) {
  amk.matmul %h, %w into %y {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  amk.matmul %x, %w into %h {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  return
}

// -----

// A buffer used by an op that is not a step, and a lone step: left alone.
// expected-remark @+1 {{not made one amk.graph: 'memref.copy' is not a graph step}}
func.func @buffer_escapes(%x: memref<1x64xf32>, %w: memref<64x64xf32>, %y: memref<1x64xf32>) {
  %h = memref.alloc() : memref<1x64xf32>
  amk.matmul %x, %w into %h {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  amk.matmul %h, %w into %y {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  memref.copy %h, %y : memref<1x64xf32> to memref<1x64xf32>
  return
}

// expected-remark @+1 {{not made one amk.graph: it has fewer than two steps}}
func.func @one_step(%x: memref<1x64xf32>, %w: memref<64x64xf32>, %y: memref<1x64xf32>) {
  amk.matmul %x, %w into %y {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  return
}

// A function without steps is not this pass's business: no remark.
func.func @no_steps(%x: memref<4xf32>, %y: memref<4xf32>) {
  memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  return
}

// -----

// A buffer of dynamic size or in shared memory, a buffer read before it is
// written, and a function that returns a value: left alone, each with its
// reason.
// expected-remark @+1 {{not made one amk.graph: a buffer it allocates is dynamic, strided, aligned or in another memory space (graph buffers are static, contiguous and global)}}
func.func @dynamic_buffer(%x: memref<?x64xf32>, %w: memref<64x64xf32>, %y: memref<?x64xf32>, %n: index) {
  %h = memref.alloc(%n) : memref<?x64xf32>
  amk.matmul %x, %w into %h {transpose_b} : memref<?x64xf32>, memref<64x64xf32>, memref<?x64xf32>
  amk.matmul %h, %w into %y {transpose_b} : memref<?x64xf32>, memref<64x64xf32>, memref<?x64xf32>
  return
}

// expected-remark @+1 {{not made one amk.graph: a buffer it allocates is dynamic, strided, aligned or in another memory space (graph buffers are static, contiguous and global)}}
func.func @shared_buffer(%x: memref<1x64xf32>, %w: memref<64x64xf32>, %y: memref<1x64xf32>) {
  %h = memref.alloc() : memref<1x64xf32, #gpu.address_space<workgroup>>
  amk.matmul %x, %w into %h {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32, #gpu.address_space<workgroup>>
  amk.matmul %h, %w into %y {transpose_b} : memref<1x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32>, memref<1x64xf32>
  return
}

// expected-remark @+1 {{not made one amk.graph: 'amk.matmul' op reads an activation before any step writes it (steps run in order)}}
func.func @unwritten_buffer(%w: memref<64x64xf32>, %y: memref<1x64xf32>, %z: memref<1x64xf32>) {
  %h = memref.alloc() : memref<1x64xf32>
  amk.matmul %h, %w into %y {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  amk.matmul %y, %w into %z {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  return
}

// expected-remark @+1 {{not made one amk.graph: it returns values (a graph writes its outputs in place)}}
func.func @returns(%x: memref<1x64xf32>, %w: memref<64x64xf32>, %y: memref<1x64xf32>) -> memref<1x64xf32> {
  %h = memref.alloc() : memref<1x64xf32>
  amk.matmul %x, %w into %h {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  amk.matmul %h, %w into %y {transpose_b} : memref<1x64xf32>, memref<64x64xf32>, memref<1x64xf32>
  return %h : memref<1x64xf32>
}

// -----

// As other compilers write it: linalg.matmul with B transposed by its
// indexing maps, each after a zero fill of its output. The pass imports
// them first (quietly: linalg.mul is a graph step, not a family's), so it
// is a graph; the zero the fills took stays behind, unused.
// CHECK-LABEL: func.func @linalg_mlp(
// CHECK:         arith.constant
// CHECK-NEXT:    amk.graph ins(%arg0, %arg1, %arg2 : {{.*}}) outs(%arg3 : memref<1x256xf32>) {
// CHECK:           amk.graph_buffer : memref<1x512xf32>
// CHECK-NEXT:      amk.matmul %{{.*}} {transpose_b}
// CHECK-NEXT:      amk.matmul %{{.*}} {transpose_b}
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @linalg_mlp(%x: memref<1x256xf32>, %w1: memref<512x256xf32>, %w2: memref<256x512xf32>, %y: memref<1x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %h = memref.alloc() : memref<1x512xf32>
  linalg.fill ins(%zero : f32) outs(%h : memref<1x512xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%x, %w1 : memref<1x256xf32>, memref<512x256xf32>) outs(%h : memref<1x512xf32>)
  linalg.fill ins(%zero : f32) outs(%y : memref<1x256xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%h, %w2 : memref<1x512xf32>, memref<256x512xf32>) outs(%y : memref<1x256xf32>)
  memref.dealloc %h : memref<1x512xf32>
  return
}
