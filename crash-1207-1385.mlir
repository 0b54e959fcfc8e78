gpu.module @m {
  gpu.func @double_buffer(%in: memref<1024xf32>) workgroup(%buf: memref<2x256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<index: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %next = arith.addi %tid, %c1 : index
    %nb = arith.remui %next, %c256 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %stage = arith.remui %k, %c2 : index
      %base = arith.muli %k, %c256 : index
      %i = arith.addi %base, %tid : index
      %x = memref.load %in[%i] : memref<1024xf32>
      memref.store %x, %buf[%stage, %tid] : memref<2x256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %y = memref.load %buf[%stage, %nb] : memref<2x256xf32, #gpu.address_space<workgroup>>
      memref.store %y, %in[%i] : memref<1024xf32>
    }
    gpu.return
  }
}

