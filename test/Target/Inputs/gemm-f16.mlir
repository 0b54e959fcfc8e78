func.func @f(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
  amk.matmul %a, %b into %c : memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf32>
  return
}
