// Planted mistake: REQUIRES without a colon; lit would run the test anywhere.
// REQUIRES cuda-gpu
// RUN: amk-opt %s | FileCheck %s

// CHECK-LABEL: func.func @f
func.func @f() {
  return
}
