// A GEMM whose M the concurrency test substitutes for MSIZE.
module {
  func.func @f(%a: memref<MSIZEx128xf16>, %b: memref<128x256xf16>, %c: memref<MSIZEx256xf32>) {
    amk.matmul %a, %b into %c : memref<MSIZEx128xf16>, memref<128x256xf16>, memref<MSIZEx256xf32>
    return
  }
}
