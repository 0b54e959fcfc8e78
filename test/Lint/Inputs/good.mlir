// Valid but unusual directives the lint must accept: custom and multiple
// prefixes, suffixes with numbers, COM: lines, diagnostics with offsets, and
// prose that mentions an unexpected-error or a CHECK in the middle of a line.
// RUN: amk-opt %s -split-input-file -verify-diagnostics | \
// RUN:   FileCheck %s --check-prefixes=CHECK,TGT
// RUN: amk-opt %s | FileCheck %s -check-prefix OTHER
// REQUIRES: ptxas
// COM: CHECK this is commented out
// CHECK-LABEL: func.func @f
// CHECK-COUNT-2: return
// TGT-SAME: {
// TGT-NOT: amk.kernel
// OTHER-EMPTY:
func.func @f() {
  // expected-remark @below {{a remark}}
  // expected-note @-1 {{a note}}
  // expected-warning@+1 {{a warning}}
  return
}
// expected-error@+1 {{an error}}
