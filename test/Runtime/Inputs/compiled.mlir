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
