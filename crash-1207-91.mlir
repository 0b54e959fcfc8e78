gpu.module @m {
  gpu.func @other_thread_signals(%data: memref<256xf32>, %out: memref<256xf32>, %ctr: memref<2xi32> {amk.counter}) kernel attributes {amk.cooperative, known_block_size = array<index: 256, 1, 1>, known_grid_size = array<i32: 3, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %f = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %b1 = arith.cmpi eq, %bid, %c1 : index
    %b2 = arith.cmpi eq, %bid, %c2 : index
    scf.if %b0 {
      memref.store %f, %data[%tid] : memref<256xf32>
      gpu.barrier
      scf.if %first {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<2xi32>) -> i32
      }
    }
    scf.if %b1 {
      scf.if %first {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%c0] : (i32, memref<2xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : bf16
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      %second = arith.cmpi eq, %tid, %c1 : index
      scf.if %second {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %old = memref.atomic_rmw addi %one, %ctr[%c1] : (i32, memref<2xi32>) -> i32
      }
    }
    scf.if %b2 {
      scf.if %first {
        scf.while : () -> () {
          %v = memref.atomic_rmw addi %zero, %ctr[%c1] : (i32, memref<2xi32>) -> i32
          %wait = arith.cmpi ult, %v, %one : i32
          scf.condition(%wait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      gpu.barrier
      %x = memref.load %data[%tid] : memref<256xf32>
      memref.store %x, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

