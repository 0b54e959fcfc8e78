func.func @ints(%x: memref<16x64xi32>, %y: memref<16xi32>) {
  linalg.reduce ins(%x : memref<16x64xi32>) outs(%y : memref<16xi32>) dimensions = [  ( 
1] %in: i32, %acc: i32) {
      %s = arith.addi %in, %acc : i32
      linalg.yield %s : i32
    }
  return
}
