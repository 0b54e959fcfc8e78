// Input of ../embed.test (not a test itself: lit skips Inputs directories).

func.func @roundtrip(%a: memref<64x32xf16>, %b: memref<16x32xf16>,
                     %c: memref<64x16xf32>) {
  amk.matmul %a, %b into %c {transpose_b}
      : memref<64x32xf16>, memref<16x32xf16>, memref<64x16xf32>
  return
}

func.func @from_linalg(%a: memref<128x64xbf16>, %b: memref<64x32xbf16>,
                       %c: memref<128x32xf32>) {
  linalg.matmul ins(%a, %b : memref<128x64xbf16>, memref<64x32xbf16>)
                outs(%c : memref<128x32xf32>)
  return
}
