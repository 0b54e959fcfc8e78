func.func @f(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
  amk.matmul %a, %b into %c : memref<256x256xf32>, memref<256x256xf32>, memref<256x256xf32>
  return
}
