func.func @f(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  linalg.reduce ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) dimensions = module
}
