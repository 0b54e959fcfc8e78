// RUN: amk-opt %s --split-input-file --verify-diagnostics
// A problem op's output may not view the same buffer as another of its
// operands: the kernel would read what other blocks are writing. Distinct
// function arguments are checked at launch by the runtime (it refuses
// overlapping buffers); views of one buffer are refused here.

func.func @c_is_a(%a: memref<64x64xf32>) {
  // expected-error @+1 {{'amk.matmul' op writes operand #2, which may alias operand #0 (both view the same buffer): the kernel would race}}
  amk.matmul %a, %a into %a : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  return
}

// -----

func.func @c_views_b(%a: memref<64x64xf32>, %b: memref<128x64xf32>) {
  %c = memref.subview %b[64, 0] [64, 64] [1, 1] : memref<128x64xf32> to memref<64x64xf32, strided<[64, 1], offset: 4096>>
  %b0 = memref.subview %b[0, 0] [64, 64] [1, 1] : memref<128x64xf32> to memref<64x64xf32, strided<[64, 1]>>
  // expected-error @+1 {{writes operand #2, which may alias operand #1}}
  amk.matmul %a, %b0 into %c : memref<64x64xf32>, memref<64x64xf32, strided<[64, 1]>>, memref<64x64xf32, strided<[64, 1], offset: 4096>>
  return
}

// -----

func.func @y_is_x(%x: memref<64x128xf32>) {
  // expected-error @+1 {{'amk.row_reduce' op writes operand #1, which may alias operand #0}}
  amk.row_reduce %x into %x {kind = #amk.row_op<softmax>} : memref<64x128xf32>, memref<64x128xf32>
  return
}

// -----

// Inputs may share a buffer: only reads.
func.func @a_is_b(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  amk.matmul %a, %a into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  return
}

// -----

// A transpose (not a ViewLikeOpInterface op) or a select of two buffers
// still views them.
func.func @c_is_a_transposed(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  %t = memref.transpose %a (i, j) -> (j, i) : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
  // expected-error @+1 {{writes operand #2, which may alias operand #0}}
  amk.matmul %t, %b into %a : memref<64x64xf32, strided<[1, 64]>>, memref<64x64xf32>, memref<64x64xf32>
  return
}

// -----

func.func @c_selects_b(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>, %p: i1) {
  %out = arith.select %p, %b, %c : memref<64x64xf32>
  // expected-error @+1 {{writes operand #2, which may alias operand #1}}
  amk.matmul %a, %b into %out : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  return
}

// -----

// Two allocations are two buffers.
func.func @two_allocs(%a: memref<64x64xf32>) {
  %b = memref.alloc() : memref<64x64xf32>
  %c = memref.alloc() : memref<64x64xf32>
  amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  return
}
