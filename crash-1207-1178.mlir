gpu.module @m {
  gpu.func @transpose_barrier(%b: memref<128x200xindex>, %bt: memref<200x128xf32>) workgroup(%tile: memref<32x33xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<index: 2147483647, 65535, 65535>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c200 = arith.constant 200 : index
    %tid = gpu.thread_id x
    %lane = arith.remui %tid, %c32 : index
    %warp = arith.divui %tid, %c32 : index
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %n0 = arith.muli %bx, %c32 : index
    %k0 = arith.muli %by, %c32 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %row = arith.addi %warp, %i : index
      %k = arith.addi %k0, %row : index
      %n = arith.addi %n0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        %v = memref.load %b[%k, %n] : memref<128x200xf32>
        memref.store %v, %tile[%row, %lane] : memref<32x33xf32, #gpu.address_space<workgroup>>
      }
    }
    gpu.barrier
    scf.for %i = %c0 to %c32 step %c8 {
      %col = arith.addi %warp, %i : index
      %n = arith.addi %n0, %col : index
      %k = arith.addi %k0, %lane : index
      %kin = arith.cmpi ult, %k, %c128 : index
      %nin = arith.cmpi ult, %n, %c200 : index
      %in = arith.andi %kin, %nin : i1
      scf.if %in {
        %v = memref.load %tile[%lane, %col] : memref<32x33xf32, #gpu.address_space<workgroup>>
        memref.store %v, %bt[%n, %k] : memref<200x128xf32>
      }
    }
    gpu.return
  }
}
