// Planted mistake: a CHECK-NEXT without a colon, which FileCheck ignores.
// RUN: amk-opt %s | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK-NEXT return
func.func @f() {
  return
}
