gpu.module @m {
  gpu.func @signal_after_poll(%data: memref<1024xf32>, %out: memref<1024xf32>, %ctr: memref<1xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<index: 4, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %count = arith.constant 4 : i32
    %f = arith.constant 1.0 : f32
    %base = arith.muli %bid, %c256 : index
    %i = arith.addi %base, %tid : index
    %nb = arith.addi %bid, %c1 : index
    %next = arith.remui %nb, %c4 : index
    %nbase = arith.muli %next, %c256 : index
    %j = arith.addi %nbase, %tid : index
    memref.store %f, %data[%i] : memref<1024xf32>
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      scf.while : () -> () {
        %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<1xi32>) -> i32
        %wait = arith.cmpi ult, %v, %count : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      nvvm.memory.barrier #nvvm.mem_scope<gpu>
      %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32>) -> i32
    }
    gpu.barrier
    %x = memref.load %data[%j] : memref<1024xf32>
    memref.store %x, %out[%i] : memref<1024xf32>
    gpu.return
  }
}

