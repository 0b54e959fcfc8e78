// Planted mistake: a misspelled diagnostic directive, which
// -verify-diagnostics ignores.
// RUN: amk-opt %s --amk-target=h100 -verify-diagnostics

func.func @f() {
  // expeted-remark @below {{never checked}}
  return
}
