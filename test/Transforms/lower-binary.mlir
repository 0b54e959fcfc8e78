// REQUIRES: ptxas
// RUN: rm -rf %t && amk-opt %s --amk-lower="bundle-dir=%t" | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/gemm_256x512x128_f16_f32_f32_nt.json
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_256x512x128_f16_f32_f32_nt.ptx
// RUN: test -s %t/gemm_256x512x128_f16_f32_f32_nt.cubin
// The same kernel assembles for every preset's arch.
// RUN: for t in a100 rtx4060ti l4 h100 b200 rtx5060ti; do sed "s/\"h200\"/\"$t\"/" %s | amk-opt --amk-lower | FileCheck %s --check-prefix=ANY || exit 1; done

// CHECK: module attributes {amk.target = #amk.target<"h200">, gpu.container_module}
// CHECK: gpu.launch_func @gemm_256x512x128_f16_f32_f32_nt::@gemm_256x512x128_f16_f32_f32_nt
// CHECK: gpu.binary @gemm_256x512x128_f16_f32_f32_nt  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, bin = "{{.*}}">, #gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, assembly = "{{.*}}">]
// CHECK-NOT: gpu.module
// ANY: gpu.binary
// ANY-SAME: bin =

// The manifest (schema 2; keys print sorted): the buffers, one kernel, the
// family's problem and sizes, one variant that runs the kernel.
// MANIFEST: "arch": "sm_90a",
// MANIFEST: "args": [
// MANIFEST: "name": "A",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "M",
// MANIFEST-NEXT: "K"
// MANIFEST: "name": "B",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "N",
// MANIFEST-NEXT: "K"
// MANIFEST: "family": "gemm",
// MANIFEST: "kernels": [
// MANIFEST: "block": [
// MANIFEST-NEXT: 128,
// MANIFEST: "cache_key": "{{[0-9a-f]+}}",
// MANIFEST: "config": "#amk.gemm_config<block = [64, 128, 32], warp = [32, 64], math = mma_sync, inst = [16, 8, 16], stages = 3, vector = 8, threads = 128>",
// MANIFEST: "cubin": "gemm_256x512x128_f16_f32_f32_nt.cubin",
// MANIFEST: "dynamic_smem_bytes": 36864,
// MANIFEST: "entry": "gemm_256x512x128_f16_f32_f32_nt",
// MANIFEST: "grid": [
// MANIFEST-NEXT: "((M+63)/64)*((N+127)/128)",
// MANIFEST-NEXT: "1",
// MANIFEST-NEXT: "B"
// MANIFEST: "params": [
// MANIFEST-NEXT: "A",
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: "C"
// MANIFEST: "tile": [
// MANIFEST-NEXT: 64,
// MANIFEST: "problem": {
// MANIFEST: "batched": false,
// MANIFEST: "family": "gemm",
// MANIFEST: "signature": "gemm_256x512x128_f16_f32_f32_nt",
// MANIFEST: "transpose_b": true
// MANIFEST: "schema": 2,
// MANIFEST: "sizes": {
// MANIFEST-NEXT: "B": 1,
// MANIFEST-NEXT: "K": 128,
// MANIFEST-NEXT: "M": 256,
// MANIFEST-NEXT: "N": 512
// MANIFEST: "variants": [
// MANIFEST: "steps": [
// MANIFEST: "id": "run",
// MANIFEST-NEXT: "kernel": "gemm_256x512x128_f16_f32_f32_nt"

// PTX: .target sm_90a
// PTX: cp.async.cg.shared.global
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

module attributes {amk.target = #amk.target<"h200">} {
  func.func @f(%a: memref<256x128xf16>, %b: memref<512x128xf16>, %c: memref<256x512xf32>) {
    amk.kernel "gemm_256x512x128_f16_f32_f32_nt" config(#amk.gemm_config<block = [64, 128, 32], warp = [32, 64], math = mma_sync, inst = [16, 8, 16], stages = 3, vector = 8, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {transpose_b} : memref<256x128xf16>, memref<512x128xf16>, memref<256x512xf32>
    }
    return
  }
}
