// RUN: amk-opt %s --split-input-file --amk-import-linalg --verify-diagnostics
// RUN: not amk-opt %s --amk-pipeline=target=h200 -o /dev/null 2>&1 | FileCheck %s
// What the row-wise family cannot serve is an error at the op (and the
// pipeline exits non-zero), not a silent leftover.
// CHECK: error: the row-wise family cannot compute this op

func.func @not_last(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
  // expected-error @+1 {{the row-wise family cannot compute this op: softmax over dimension 0: AMK normalizes rows, the last dimension (1)}}
  linalg.softmax dimension(0) ins(%x : memref<64x1000xf32>) outs(%y : memref<64x1000xf32>)
  return
}

// -----

func.func @product(%x: memref<16x64xf32>, %y: memref<16xf32>) {
  // expected-error @+1 {{the row-wise family cannot compute this op: the combiner is not a known one (one arith.addf or arith.maximumf of the two block arguments)}}
  linalg.reduce ins(%x : memref<16x64xf32>) outs(%y : memref<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %acc : f32
      linalg.yield %p : f32
    }
  return
}

// -----

func.func @columns(%x: memref<16x64xf32>, %y: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<64xf32>)
  // expected-error @+1 {{the row-wise family cannot compute this op: reduces dimensions other than exactly the last; AMK reduces rows (the last dimension)}}
  linalg.reduce ins(%x : memref<16x64xf32>) outs(%y : memref<64xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

func.func @accumulates(%x: memref<16x64xf32>, %y: memref<16xf32>) {
  // expected-error @+1 {{the row-wise family cannot compute this op: folds into the init's contents; AMK's row sum overwrites it: fill the init with 0.0 right before the reduce}}
  linalg.reduce ins(%x : memref<16x64xf32>) outs(%y : memref<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

func.func @wrong_identity(%x: memref<16x64xf32>, %y: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<16xf32>)
  // expected-error @+1 {{the row-wise family cannot compute this op: folds into the init's contents; AMK's row max overwrites it: fill the init with -inf right before the reduce}}
  linalg.reduce ins(%x : memref<16x64xf32>) outs(%y : memref<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return
}

// -----

func.func @ints(%x: memref<16x64xi32>, %y: memref<16xi32>) {
  // expected-error @+1 {{the row-wise family cannot compute this op: element types must be f32, f16 or bf16}}
  linalg.reduce ins(%x : memref<16x64xi32>) outs(%y : memref<16xi32>) dimensions = [1]
    (%in: i32, %acc: i32) {
      %s = arith.addi %in, %acc : i32
      linalg.yield %s : i32
    }
  return
}
