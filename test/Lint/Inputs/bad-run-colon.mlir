// Planted mistake: the second RUN line has no colon, so lit never runs it.
// RUN: amk-opt %s | FileCheck %s
// RUN amk-opt %s --amk-target=h100 | FileCheck %s

// CHECK-LABEL: func.func @f
func.func @f() {
  return
}
