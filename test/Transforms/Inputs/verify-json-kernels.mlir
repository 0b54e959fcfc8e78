// Kernels for verify-json.mlir: one finding of each kind the JSON report
// details (an out-of-bounds index range, a misaligned address, a stride).
gpu.module @m {
  gpu.func @oob(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %i = arith.addi %tid, %c1 : index
    %x = memref.load %a[%i] : memref<256xf32>
    gpu.return
  }
  gpu.func @misaligned(%a: memref<1040xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %i0 = arith.muli %tid, %c4 : index
    %i = arith.addi %i0, %c2 : index
    %v = vector.load %a[%i] : memref<1040xf32>, vector<4xf32>
    gpu.return
  }
  gpu.func @column(%a: memref<256x64xf16>, %out: memref<256xf16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%tid, %c0] : memref<256x64xf16>
    memref.store %x, %out[%tid] : memref<256xf16>
    gpu.return
  }
}
