// Planted mistake: a diagnostic directive with a misspelled kind.
// RUN: not amk-opt %s -verify-diagnostics

func.func @f(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>) {
  // expected-eror @below {{does not match}}
  amk.matmul %a, %b into %c : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>
  return
}
