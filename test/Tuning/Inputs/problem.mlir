func.func @odd(%a: memref<1000x999xf32>, %b: memref<999x1000xf32>, %c: memref<1000x1000xf32>) {
  amk.matmul %a, %b into %c : memref<1000x999xf32>, memref<999x1000xf32>, memref<1000x1000xf32>
  return
}
