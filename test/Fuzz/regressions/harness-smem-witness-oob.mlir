gpu.module @m {
  gpu.func @pipeline_no_trailing_barrier(%in: memref<1024xf32>, %out: memref<1024xf32>) workgroup(%buf: memref<2x256xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %t0 = nvgpu.device_async_copy %in[%tid], %buf[%c0, %tid], 1 : memref<1024xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
    scf.for %k = %c0 to %c4 step %c1 {
      %k1 = arith.addi %k, %c1 : index
      %tile = arith.minui %k1, %c3 : index
      %src0 = arith.muli %tile, %c256 : index
      %src = arith.addi %src0, %tid : index
      %stage1 = arith.remui %k1, %c2 : index
      %t = nvgpu.device_async_copy %in[%src], %buf[%stage1, %tid], 1 : memref<1024xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}
