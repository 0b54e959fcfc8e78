// Planted mistake: a directive of a custom prefix (from --check-prefixes)
// without a colon.
// RUN: amk-opt %s --amk-target=h100 | FileCheck %s --check-prefixes=CHECK,TGT

// CHECK-LABEL: func.func @f
// TGT-SAME amk.target
func.func @f() {
  return
}
