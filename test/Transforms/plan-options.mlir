// RUN: amk-opt %s --amk-plan="target=h200 ladder-size=1" | FileCheck %s --check-prefix=ONE
// RUN: amk-opt %s --amk-plan=h200 | FileCheck %s --check-prefix=FOUR
// RUN: amk-opt %s --amk-plan="ladder-size=2 target=rtx4060ti" | FileCheck %s --check-prefix=RTX

// `target` replaces the module's target like --amk-target; a bare word is the
// target; `ladder-size` sets the rungs (the winner is the first). The ladder
// descends in shared memory, so its last rung is the leanest.

// ONE:  module attributes {amk.target = #amk.target<"h200">}
// ONE:    amk.kernel "gemm_2048x2048x2048_f16_f32_f32_nn" config(#amk.gemm_config<[[BEST:[^>]*]]>) ladder [#amk.candidate<config = #amk.gemm_config<[[BEST]]>, predicted_ns = {{[0-9]+}}>] {

// FOUR: amk.kernel "gemm_2048x2048x2048_f16_f32_f32_nn" config(#amk.gemm_config<[[BEST:[^>]*]]>) ladder [#amk.candidate<config = #amk.gemm_config<[[BEST]]>, predicted_ns = {{[0-9]+}}>, #amk.candidate<config = #amk.gemm_config<{{[^>]*}}>, predicted_ns = {{[0-9]+}}>, #amk.candidate<config = #amk.gemm_config<{{[^>]*}}>, predicted_ns = {{[0-9]+}}>, #amk.candidate<config = #amk.gemm_config<{{[^>]*}}>, predicted_ns = {{[0-9]+}}>] {

// RTX:  module attributes {amk.target = #amk.target<"rtx4060ti">}
// RTX:    amk.kernel "gemm_2048x2048x2048_f16_f32_f32_nn" config({{.*}}) ladder [#amk.candidate<config = #amk.gemm_config<{{[^>]*}}>, predicted_ns = {{[0-9]+}}>, #amk.candidate<config = #amk.gemm_config<{{[^>]*}}>, predicted_ns = {{[0-9]+}}>] {
module attributes {amk.target = #amk.target<"a100">} {
func.func @square(%a: memref<2048x2048xf16>, %b: memref<2048x2048xf16>, %c: memref<2048x2048xf32>) {
  amk.matmul %a, %b into %c : memref<2048x2048xf16>, memref<2048x2048xf16>, memref<2048x2048xf32>
  return
}
}
