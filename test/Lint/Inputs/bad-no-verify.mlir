// Planted mistake: a diagnostic directive, but the RUN line does not pass
// -verify-diagnostics, so nothing checks it.
// RUN: not amk-opt %s

func.func @f(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>) {
  // expected-error @below {{does not match}}
  amk.matmul %a, %b into %c : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>
  return
}
