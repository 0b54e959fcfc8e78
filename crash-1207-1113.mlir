gpu.module @m {
  gpu.func @lookback_skips_one(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<4xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<index: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %base = arith.muli %bid, %c256 : index
    %mine = arith.addi %base, %tid : index
    memref.store %f, %data[%mine] : memref<1024xf32>
    gpu.barrier
    %notfirst = arith.cmpi uge, %bid, %c2 : index
    scf.if %first {
      scf.if %notfirst {
        %prev = arith.subi %bid, %c1 : index
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%prev] : (i32, memref<4xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%bid] : (i32, memref<4xi32>) -> i32
    }
    gpu.barrier
    %late = arith.cmpi uge, %bid, %c2 : index
    scf.if %late {
      %back = arith.subi %base, %c256 : index
      %back2 = arith.subi %back, %c256 : index
      %i = arith.addi %back2, %tid : index
      %x = memref.load %data[%i] : memref<1024xf32>
      memref.store %x, %out[%mine] : memref<1024xf32>
    }
    gpu.return
  }
}

