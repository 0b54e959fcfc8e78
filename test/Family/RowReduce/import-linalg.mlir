// RUN: amk-opt %s --split-input-file --amk-import-linalg | FileCheck %s
// RUN: amk-opt %s --split-input-file --amk-import-linalg --verify-diagnostics -o /dev/null --mlir-print-debuginfo 2>&1 | FileCheck %s --check-prefix=DIAG --allow-empty
// Upstream linalg.softmax and linalg.reduce (addf, maximumf) over the last
// dimension of memrefs become amk.row_reduce; the zero or -inf fill that
// linalg.reduce folds into is dropped (AMK's reductions overwrite).

// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    amk.row_reduce %arg0 into %arg1 {kind = #amk.row_op<softmax>} : memref<64x1000xbf16>, memref<64x1000xbf16>
// CHECK-NEXT:    return
func.func @softmax(%x: memref<64x1000xbf16>, %y: memref<64x1000xbf16>) {
  linalg.softmax dimension(1) ins(%x : memref<64x1000xbf16>) outs(%y : memref<64x1000xbf16>)
  return
}

// CHECK-LABEL: func.func @sum
// CHECK-NOT:     linalg.fill
// CHECK:         amk.row_reduce %arg0 into %arg1 {kind = #amk.row_op<sum>} : memref<4x?x512xf32>, memref<4x?xf32>
// CHECK-NEXT:    return
func.func @sum(%x: memref<4x?x512xf32>, %y: memref<4x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<4x?xf32>)
  linalg.reduce ins(%x : memref<4x?x512xf32>) outs(%y : memref<4x?xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
  return
}

// CHECK-LABEL: func.func @max
// CHECK-NOT:     linalg.fill
// CHECK:         amk.row_reduce %arg0 into %arg1 {kind = #amk.row_op<max>} : memref<128x77xf16>, memref<128xf16>
func.func @max(%x: memref<128x77xf16>, %y: memref<128xf16>) {
  %ninf = arith.constant 0xFC00 : f16
  linalg.fill ins(%ninf : f16) outs(%y : memref<128xf16>)
  linalg.reduce ins(%x : memref<128x77xf16>) outs(%y : memref<128xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %m = arith.maximumf %in, %acc : f16
      linalg.yield %m : f16
    }
  return
}

// On tensors: left for another pipeline, with a warning.
// CHECK-LABEL: func.func @tensors
// CHECK:         linalg.softmax
func.func @tensors(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-warning @+1 {{not imported into AMK: operates on tensors; bufferize first (amk.row_reduce takes memrefs)}}
  %r = linalg.softmax dimension(1) ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
// DIAG-NOT: error
