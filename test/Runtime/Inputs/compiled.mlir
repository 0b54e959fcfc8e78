// Problems of test/Runtime/compiled.test.
func.func @tensor_cores(%a: memref<256x128xf16>, %b: memref<512x128xf16>, %c: memref<256x512xf32>) {
  amk.matmul %a, %b into %c {transpose_b} : memref<256x128xf16>, memref<512x128xf16>, memref<256x512xf32>
  return
}
func.func @decode(%a: memref<1x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<1x4096xf32>) {
  amk.matmul %a, %b into %c : memref<1x4096xf32>, memref<4096x4096xf32>, memref<1x4096xf32>
  return
}
func.func @dynamic(%a: memref<?x512xbf16>, %b: memref<512x1024xbf16>, %c: memref<?x1024xbf16>) {
  amk.matmul %a, %b into %c : memref<?x512xbf16>, memref<512x1024xbf16>, memref<?x1024xbf16>
  return
}
func.func @batched_bias(%a: memref<4x64x32xf16>, %b: memref<4x32x128xf16>, %bias: memref<4x128xf16>, %c: memref<4x64x128xf16>) {
  amk.matmul %a, %b bias(%bias) into %c : memref<4x64x32xf16>, memref<4x32x128xf16>, memref<4x128xf16>, memref<4x64x128xf16>
  return
}
func.func @split_workspace(%a: memref<16x1024xbf16>, %b: memref<1024x512xbf16>, %c: memref<16x512xbf16>) {
  amk.kernel "split_ws" config(#amk.gemm_config<block = [16, 64, 64], warp = [16, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 64, split_k = 4, split_reduce = workspace>) {
    amk.matmul %a, %b into %c : memref<16x1024xbf16>, memref<1024x512xbf16>, memref<16x512xbf16>
  }
  return
}
func.func @split_last_arrival(%a: memref<16x1024xbf16>, %b: memref<1024x512xbf16>, %c: memref<16x512xbf16>) {
  amk.kernel "split_last" config(#amk.gemm_config<block = [16, 64, 64], warp = [16, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 64, split_k = 4, split_reduce = last>) {
    amk.matmul %a, %b into %c : memref<16x1024xbf16>, memref<1024x512xbf16>, memref<16x512xbf16>
  }
  return
}
