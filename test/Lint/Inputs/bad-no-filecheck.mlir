// Planted mistake: CHECK lines, but the RUN line never pipes into FileCheck.
// RUN: amk-opt %s

// CHECK-LABEL: func.func @f
func.func @f() {
  return
}
