gpu.module @m {
  gpu.func @unit_stride(%out:memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<index: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %x = memref.load %out[%tid] : memref<256xf32>
    memref.store %x, %buf[%tid] : memref<31xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

