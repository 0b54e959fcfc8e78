func.func @near(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<1024x1024xf32>) {
  amk.matmul %a, %b into %c : memref<1024x1024xf32>, memref<1024x1024xf32>, memref<1024x1024xf32>
  return
}
