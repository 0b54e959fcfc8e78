// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// AMK-GLOBAL-RACE within one block: a plain write whose element is the
// same in every thread (its address uniform over the block) that more than
// one thread of a block runs, and any access of one thread at an element
// another thread of the block writes, with no barrier between (at the
// end). Each planted bug next to its correct twin.
// The sanitizers cannot see these: racecheck covers shared memory only.

// Bug: every thread of the block writes element 0 (a "done" flag or a
// result written without the thread guard).
gpu.module @m {
  gpu.func @every_thread(%out: memref<4xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %i = arith.index_cast %t : index to i32
    %f = arith.sitofp %i : i32 to f32
    %c0 = arith.constant 0 : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} writes the same element in every thread that runs it (its address is uniform over the block), and more than one thread of a block runs it (threads {{[0-9]+}} and {{[0-9]+}}): their writes are unordered{{.*}}}}
    memref.store %f, %out[%c0] : memref<4xf32>
    gpu.return
  }
}

// -----

// Twin: thread 0 writes it, each block its own element.
gpu.module @m {
  gpu.func @thread_zero(%out: memref<4xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      memref.store %one, %out[%b] : memref<4xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the guard lets two threads through.
gpu.module @m {
  gpu.func @two_threads(%out: memref<4xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    %few = arith.cmpi ult, %t, %c2 : index
    scf.if %few {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} writes the same element {{.*}} (threads 0 and 1){{.*}}}}
      memref.store %one, %out[%c0] : memref<4xf32>
    }
    gpu.return
  }
}

// -----

// Twin: a cluster's rank picks the block, the thread's lane in the row
// picks the thread (rank * 256 + tid mod 256 == 0: one thread of rank 0's
// block), as the row family writes a row's result.
gpu.module @m {
  gpu.func @first_of_row(%out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 128, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1.0 : f32
    %row = arith.divui %b, %c2 : index
    %rank = arith.remui %b, %c2 : index
    %lane = arith.remui %t, %c256 : index
    %base = arith.muli %rank, %c256 : index
    %rowLane = arith.addi %base, %lane : index
    %first = arith.cmpi eq, %rowLane, %c0 : index
    scf.if %first {
      memref.store %one, %out[%row] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

// Bug: a guard on data, which any number of threads may pass.
gpu.module @m {
  gpu.func @data_guard(%x: memref<128xf32>, %out: memref<4xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %v = memref.load %x[%t] : memref<128xf32>
    %pos = arith.cmpf ogt, %v, %zero : f32
    scf.if %pos {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} writes the same element {{.*}}}}
      memref.store %v, %out[%c0] : memref<4xf32>
    }
    gpu.return
  }
}

// -----

// Twin: an atomic update of one element from every thread.
gpu.module @m {
  gpu.func @atomic_sum(%x: memref<128xf32>, %out: memref<4xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%t] : memref<128xf32>
    %old = memref.atomic_rmw addf %v, %out[%c0] : (f32, memref<4xf32>) -> f32
    gpu.return
  }
}

// -----

// Bug: thread 0 writes a flag that every thread then reads, with no
// barrier between: the other threads may read it before the write.
gpu.module @m {
  gpu.func @read_before_barrier(%flag: memref<4xf32>, %res: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      memref.store %one, %flag[%c0] : memref<4xf32>
    }
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads 0 and {{[0-9]+}}): the read may see the value before or after the write{{.*}}}}
    %v = memref.load %flag[%c0] : memref<4xf32>
    memref.store %v, %res[%t] : memref<128xf32>
    gpu.return
  }
}

// -----

// Twin: a barrier between the write and the reads.
gpu.module @m {
  gpu.func @read_after_barrier(%flag: memref<4xf32>, %res: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      memref.store %one, %flag[%c0] : memref<4xf32>
    }
    gpu.barrier
    %v = memref.load %flag[%c0] : memref<4xf32>
    memref.store %v, %res[%t] : memref<128xf32>
    gpu.return
  }
}

// -----

// Bug: pairs of threads write one element (tid / 2): the index is the
// thread's, but not one-to-one.
gpu.module @m {
  gpu.func @half_index(%out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %h = arith.divui %t, %c2 : index
    %one = arith.constant 1.0 : f32
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} writes one element from two threads of a block (threads 0 and 1): their writes are unordered{{.*}}}}
    memref.store %one, %out[%h] : memref<64xf32>
    gpu.return
  }
}

// -----

// Twin: only the even threads write tid / 2, each block its own row.
gpu.module @m {
  gpu.func @even_threads(%out: memref<4x64xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %h = arith.divui %t, %c2 : index
    %r = arith.remui %t, %c2 : index
    %even = arith.cmpi eq, %r, %c0 : index
    %one = arith.constant 1.0 : f32
    scf.if %even {
      memref.store %one, %out[%b, %h] : memref<4x64xf32>
    }
    gpu.return
  }
}

// -----

// Bug: vectors of two at consecutive elements: thread t's second element
// is thread t + 1's first.
gpu.module @m {
  gpu.func @overlapping_vectors(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %v = arith.constant dense<1.0> : vector<2xf32>
    // expected-error-re @+2 {{[AMK-GLOBAL-RACE] 'vector.store' at line {{[0-9]+}} writes one element from two threads of a block (threads 0 and 1){{.*}}}}
    // expected-error-re @+1 {{[AMK-MISALIGNED] vector store{{.*}}}}
    vector.store %v, %out[%t] : memref<256xf32>, vector<2xf32>
    gpu.return
  }
}

// -----

// Twin: vectors of two at 2 * tid.
gpu.module @m {
  gpu.func @strided_vectors(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %i = arith.muli %t, %c2 : index
    %v = arith.constant dense<1.0> : vector<2xf32>
    vector.store %v, %out[%i] : memref<256xf32>, vector<2xf32>
    gpu.return
  }
}

// -----

// Bug: each thread writes its own element, then reads its neighbour's
// with no barrier between: the neighbour may not have written it yet.
gpu.module @m {
  gpu.func @neighbour_read(%buf: memref<129xf32>, %res: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %buf[%t] : memref<129xf32>
    %n = arith.addi %t, %c1 : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads {{[0-9]+}} and {{[0-9]+}}): the read may see the value before or after the write{{.*}}}}
    %v = memref.load %buf[%n] : memref<129xf32>
    memref.store %v, %res[%t] : memref<128xf32>
    gpu.return
  }
}

// -----

// Twin: a barrier between the writes and the reads.
gpu.module @m {
  gpu.func @neighbour_after_barrier(%buf: memref<129xf32>, %res: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %buf[%t] : memref<129xf32>
    gpu.barrier
    %n = arith.addi %t, %c1 : index
    %v = memref.load %buf[%n] : memref<129xf32>
    memref.store %v, %res[%t] : memref<128xf32>
    gpu.return
  }
}

// -----

// Twin: each thread reads back what it wrote itself (a GEMM epilogue's
// beta read and store), through a block's offset.
gpu.module @m {
  gpu.func @own_elements(%c: memref<4x256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c2 = arith.constant 2 : index
    %two = arith.constant 2.0 : f32
    %col = arith.muli %t, %c2 : index
    %v = vector.load %c[%b, %col] : memref<4x256xf32>, vector<2xf32>
    %s = vector.broadcast %two : f32 to vector<2xf32>
    %w = arith.mulf %v, %s : vector<2xf32>
    vector.store %w, %c[%b, %col] : memref<4x256xf32>, vector<2xf32>
    gpu.return
  }
}

// -----

// Bug: every thread reads element 0, which thread 0 writes as a part of
// its own element, with no barrier between.
gpu.module @m {
  gpu.func @read_thread_zeros(%buf: memref<128xf32>, %res: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %buf[%t] : memref<128xf32>
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block{{.*}}}}
    %v = memref.load %buf[%c0] : memref<128xf32>
    memref.store %v, %res[%t] : memref<128xf32>
    gpu.return
  }
}

// -----

// Bug: a loop moves each thread's element by one per iteration: thread 1
// in iteration 0 and thread 0 in iteration 1 write one element.
gpu.module @m {
  gpu.func @sliding_writes(%buf: memref<132xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1.0 : f32
    scf.for %i = %c0 to %c4 step %c1 {
      %e = arith.addi %t, %i : index
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block{{.*}}either write may land last{{.*}}}}
      memref.store %one, %buf[%e] : memref<132xf32>
    }
    gpu.return
  }
}

// -----

// Twin: a loop that strides by the block: the threads' elements never
// meet in any iteration.
gpu.module @m {
  gpu.func @block_stride_writes(%buf: memref<512xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1.0 : f32
    scf.for %i = %c0 to %c4 step %c1 {
      %base = arith.muli %i, %c128 : index
      %e = arith.addi %base, %t : index
      memref.store %one, %buf[%e] : memref<512xf32>
      %v = memref.load %buf[%e] : memref<512xf32>
      %w = arith.addf %v, %one : f32
      memref.store %w, %buf[%e] : memref<512xf32>
    }
    gpu.return
  }
}

// -----

// Twin: a sliding window with a barrier in each iteration, reads of the
// neighbours' elements before it and writes after.
gpu.module @m {
  gpu.func @sliding_with_barrier(%buf: memref<132xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %e = arith.addi %t, %i : index
      %n = arith.addi %e, %c1 : index
      %v = memref.load %buf[%n] : memref<132xf32>
      gpu.barrier
      memref.store %v, %buf[%e] : memref<132xf32>
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Bug: the writes and the neighbours' reads meet in two threads, and the
// while loop between them (the scf.for from 0 to %n it is) runs its
// barrier %n times: none when %n is 0.
gpu.module @m {
  gpu.func @uncounted_barriers(%buf: memref<129xf32>, %res: memref<128xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %buf[%t] : memref<129xf32>
    %end = scf.while (%i = %c0) : (index) -> index {
      %more = arith.cmpi ult, %i, %n : index
      scf.condition(%more) %i : index
    } do {
    ^bb0(%i: index):
      gpu.barrier
      %next = arith.addi %i, %c1 : index
      scf.yield %next : index
    }
    %m = arith.addi %t, %c1 : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them{{.*}}}}
    %v = memref.load %buf[%m] : memref<129xf32>
    memref.store %v, %res[%t] : memref<128xf32>
    gpu.return
  }
}

// -----

// The pairs below are outside the thread-part sweep (a view that differs
// per thread, two views of one buffer, an index that mixes the thread with
// a loop or with data, a block of unknown size): the two-thread system
// alone asks them, in the buffer's coordinates.

// Bug: each thread's view starts at t / 2, so threads 2k and 2k + 1 write
// one element.
gpu.module @m {
  gpu.func @view_per_thread(%out: memref<132xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    %h = arith.divui %t, %c2 : index
    %v = memref.subview %out[%h] [4] [1] : memref<132xf32> to memref<4xf32, strided<[1], offset: ?>>
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads {{[0-9]+}} and {{[0-9]+}}): either write may land last}}
    memref.store %one, %v[%c0] : memref<4xf32, strided<[1], offset: ?>>
    gpu.return
  }
}

// -----

// Twin: each thread's view is its own four elements.
gpu.module @m {
  gpu.func @view_per_thread_own(%out: memref<512xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1.0 : f32
    %at = arith.muli %t, %c4 : index
    %v = memref.subview %out[%at] [4] [1] : memref<512xf32> to memref<4xf32, strided<[1], offset: ?>>
    memref.store %one, %v[%c0] : memref<4xf32, strided<[1], offset: ?>>
    memref.store %one, %v[%c3] : memref<4xf32, strided<[1], offset: ?>>
    gpu.return
  }
}

// -----

// Bug: two views of one buffer, one element apart: thread t reads through
// the second what thread t + 1 writes through the first.
gpu.module @m {
  gpu.func @two_views(%out: memref<256xf32>, %res: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    %a = memref.subview %out[0] [128] [1] : memref<256xf32> to memref<128xf32, strided<[1]>>
    %b = memref.subview %out[1] [128] [1] : memref<256xf32> to memref<128xf32, strided<[1], offset: 1>>
    memref.store %one, %a[%t] : memref<128xf32, strided<[1]>>
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads {{[0-9]+}} and {{[0-9]+}}): the read may see the value before or after the write}}
    %x = memref.load %b[%t] : memref<128xf32, strided<[1], offset: 1>>
    memref.store %x, %res[%t] : memref<128xf32>
    gpu.return
  }
}

// -----

// Twin: the second view is the other half of the buffer; and a barrier
// orders a read of the first half through a view of the whole.
gpu.module @m {
  gpu.func @two_views_apart(%out: memref<256xf32>, %res: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %one = arith.constant 1.0 : f32
    %a = memref.subview %out[0] [128] [1] : memref<256xf32> to memref<128xf32, strided<[1]>>
    %b = memref.subview %out[128] [128] [1] : memref<256xf32> to memref<128xf32, strided<[1], offset: 128>>
    memref.store %one, %a[%t] : memref<128xf32, strided<[1]>>
    %x = memref.load %b[%t] : memref<128xf32, strided<[1], offset: 128>>
    gpu.barrier
    %r = arith.subi %c127, %t : index
    %y = memref.load %out[%r] : memref<256xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %res[%t] : memref<128xf32>
    gpu.return
  }
}

// -----

// Bug: a loop strided by 64 over a block of 128 threads: threads t and
// t + 64 write one element in different iterations.
gpu.module @m {
  gpu.func @short_stride(%out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %one = arith.constant 1.0 : f32
    scf.for %i = %t to %c1024 step %c64 {
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block{{.*}}}}
      memref.store %one, %out[%i] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// Twin: strided by the block, clamped as the row family clamps its runs
// (minui of a sum the range analysis lets wrap), and a loop over each
// thread's own four elements.
gpu.module @m {
  gpu.func @block_stride(%out: memref<?xf32>, %own: memref<512xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1.0 : f32
    %n = memref.dim %out, %c0 : memref<?xf32>
    %lane = arith.remui %t, %c32 : index
    %warp = arith.divui %t, %c32 : index
    %lead = arith.cmpi eq, %warp, %c0 : index
    scf.if %lead {
      scf.for %i = %lane to %n step %c128 {
        %j = arith.addi %i, %c32 : index
        %m = arith.minui %j, %n : index
        %in = arith.cmpi ult, %m, %n : index
        scf.if %in {
          memref.store %one, %out[%m] : memref<?xf32>
        }
        %k = arith.minui %i, %n : index
        %in2 = arith.cmpi ult, %k, %n : index
        scf.if %in2 {
          memref.store %one, %out[%k] : memref<?xf32>
        }
      }
    }
    %lb = arith.muli %t, %c4 : index
    %ub = arith.addi %lb, %c4 : index
    scf.for %i = %lb to %ub step %c1 {
      memref.store %one, %own[%i] : memref<512xf32>
    }
    gpu.return
  }
}

// -----

// Bug: the thread times the iteration (iteration 0 sends every thread to
// element 0). The product is not linear: AMK-UNPROVABLE, not silence.
gpu.module @m {
  gpu.func @thread_times_iteration(%out: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1.0 : f32
    scf.for %k = %c0 to %c4 step %c1 {
      %i = arith.muli %t, %k : index
      // expected-warning @+2 {{[AMK-UNCOALESCED]}}
      // expected-error-re @+1 {{[AMK-UNPROVABLE] the race check within a block gave up on 'memref.store' at line {{[0-9]+}} against 'memref.store' at line {{[0-9]+}}: the result of 'arith.muli' at line {{[0-9]+}} differs between threads in a way the check does not model{{.*}}}}
      memref.store %one, %out[%i] : memref<1024xf32>
    }
    gpu.return
  }
}

// -----

// Not decided: a scatter through indices read from memory (a repeated
// index is a race, a permutation is not): AMK-UNPROVABLE.
gpu.module @m {
  gpu.func @scatter(%ind: memref<128xindex>, %out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c127 = arith.constant 127 : index
    %one = arith.constant 1.0 : f32
    %i = memref.load %ind[%t] : memref<128xindex>
    %j = arith.minui %i, %c127 : index
    // expected-error-re @+1 {{[AMK-UNPROVABLE] the race check within a block gave up on 'memref.store' at line {{[0-9]+}} against 'memref.store' at line {{[0-9]+}}: the result of 'memref.load' at line {{[0-9]+}} differs between threads{{.*}}}}
    memref.store %one, %out[%j] : memref<128xf32>
    gpu.return
  }
}

// -----

// Twin: the scatter adds atomically (two atomic updates never race).
gpu.module @m {
  gpu.func @scatter_add(%ind: memref<128xindex>, %out: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c127 = arith.constant 127 : index
    %one = arith.constant 1.0 : f32
    %i = memref.load %ind[%t] : memref<128xindex>
    %j = arith.minui %i, %c127 : index
    %old = memref.atomic_rmw addf %one, %out[%j] : (f32, memref<128xf32>) -> f32
    gpu.return
  }
}

// -----

// Bug: a block of unknown size, each thread on element t mod 256: threads
// t and t + 256 of a wider block write one element.
gpu.module @m {
  gpu.func @unknown_block(%out: memref<256xf32>) kernel attributes {known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c256 = arith.constant 256 : index
    %one = arith.constant 1.0 : f32
    %i = arith.remui %t, %c256 : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.store' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads ({{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}) and ({{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}})){{.*}}}}
    memref.store %one, %out[%i] : memref<256xf32>
    gpu.return
  }
}

// -----

// Twin: the first row of the block, each thread its own element.
gpu.module @m {
  gpu.func @unknown_block_row(%out: memref<256xf32>) kernel attributes {known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %y = gpu.thread_id y
    %z = gpu.thread_id z
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1.0 : f32
    %y0 = arith.cmpi eq, %y, %c0 : index
    %z0 = arith.cmpi eq, %z, %c0 : index
    %in = arith.cmpi ult, %t, %c256 : index
    %row = arith.andi %y0, %z0 : i1
    %ok = arith.andi %row, %in : i1
    scf.if %ok {
      memref.store %one, %out[%t] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Bug: a view that runs the buffer backwards (stride -1 from element 200):
// thread 73 reads through it the element thread 127 writes.
gpu.module @m {
  gpu.func @backwards_view(%out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    // expected-error @+1 {{[AMK-UNPROVABLE] subview of memref<256xf32>}}
    %r = memref.subview %out[200] [128] [-1] : memref<256xf32> to memref<128xf32, strided<[-1], offset: 200>>
    memref.store %one, %out[%t] : memref<256xf32>
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads 127 and 73){{.*}}}}
    %x = memref.load %r[%t] : memref<128xf32, strided<[-1], offset: 200>>
    gpu.return
  }
}

// -----

// Bug: a barrier between the write and the read of each iteration, but
// none between one iteration's read and the next one's write: thread t
// may overwrite its element while thread t - 1 still reads it.
gpu.module @m {
  gpu.func @loop_war(%out: memref<128xf32>, %acc: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %f = arith.constant 1.0 : f32
    %t1 = arith.addi %t, %c1 : index
    %next = arith.remui %t1, %c128 : index
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %f, %out[%t] : memref<128xf32>
      gpu.barrier
      // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'memref.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads {{[0-9]+}} and {{[0-9]+}}){{.*}}}}
      %v = memref.load %out[%next] : memref<128xf32>
      memref.store %v, %acc[%t] : memref<128xf32>
    }
    gpu.return
  }
}

// -----

// Twin: a second barrier closes each iteration.
gpu.module @m {
  gpu.func @loop_closed(%out: memref<128xf32>, %acc: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %f = arith.constant 1.0 : f32
    %t1 = arith.addi %t, %c1 : index
    %next = arith.remui %t1, %c128 : index
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %f, %out[%t] : memref<128xf32>
      gpu.barrier
      %v = memref.load %out[%next] : memref<128xf32>
      memref.store %v, %acc[%t] : memref<128xf32>
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Collective accesses: a warp makes a wmma fragment access as one, a
// warpgroup its accumulator store. Bug: both warps store the same
// fragment.
gpu.module @m {
  gpu.func @fragment_both_warps(%out: memref<32x16xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %f = arith.constant 0.0 : f32
    %acc = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf32, "COp">
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'gpu.subgroup_mma_store_matrix' at line {{[0-9]+}} touches the element that 'gpu.subgroup_mma_store_matrix' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads {{[0-9]+}} and {{[0-9]+}}): either write may land last{{.*}}}}
    gpu.subgroup_mma_store_matrix %acc, %out[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x16xf32>
    gpu.return
  }
}

// -----

// Twin: each warp its own 16 rows, which it loads back as one fragment
// (the warp's own accesses are in its program order).
gpu.module @m {
  gpu.func @fragment_per_warp(%out: memref<32x16xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %t = gpu.thread_id x
    %w = arith.divui %t, %c32 : index
    %row = arith.muli %w, %c16 : index
    %f = arith.constant 0.0 : f32
    %acc = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %acc, %out[%row, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x16xf32>
    %back = gpu.subgroup_mma_load_matrix %out[%row, %c0] {leadDimension = 16 : index} : memref<32x16xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %back, %out[%row, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x16xf32>
    gpu.return
  }
}

// -----

// Bug: warpgroup 0 stores its accumulator; threads of warpgroup 1 read it
// with no barrier between.
gpu.module @m {
  gpu.func @accumulator_read_by_other(%out: memref<64x8xf32>, %res: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %first = arith.cmpi ult, %t, %c128 : index
    scf.if %first {
      %acc = nvgpu.warpgroup.mma.init.accumulator -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x8xf32>>
      nvgpu.warpgroup.mma.store %acc, %out : !nvgpu.warpgroup.accumulator<fragmented = vector<64x8xf32>> to memref<64x8xf32>
    }
    %m = arith.muli %t, %c2 : index
    %r = arith.divui %m, %c8 : index
    %c = arith.remui %m, %c8 : index
    // expected-error-re @+1 {{[AMK-GLOBAL-RACE] 'memref.load' at line {{[0-9]+}} touches the element that 'nvgpu.warpgroup.mma.store' at line {{[0-9]+}} writes in another thread of its block, with no barrier between them (threads {{[0-9]+}} and {{[0-9]+}}){{.*}}}}
    %v = memref.load %out[%r, %c] : memref<64x8xf32>
    memref.store %v, %res[%t] : memref<256xf32>
    gpu.return
  }
}

// -----

// Twin: a barrier between (and the store, guarded to warpgroup 0, fits
// its 64 rows: warpgroup 1 never runs it).
gpu.module @m {
  gpu.func @accumulator_then_barrier(%out: memref<64x8xf32>, %res: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %first = arith.cmpi ult, %t, %c128 : index
    scf.if %first {
      %acc = nvgpu.warpgroup.mma.init.accumulator -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x8xf32>>
      nvgpu.warpgroup.mma.store %acc, %out : !nvgpu.warpgroup.accumulator<fragmented = vector<64x8xf32>> to memref<64x8xf32>
    }
    gpu.barrier
    %m = arith.muli %t, %c2 : index
    %r = arith.divui %m, %c8 : index
    %c = arith.remui %m, %c8 : index
    %v = memref.load %out[%r, %c] : memref<64x8xf32>
    memref.store %v, %res[%t] : memref<256xf32>
    gpu.return
  }
}

// -----

// Not decided: the same loop, but its count is used after it (the scf.for
// it would be cannot give it): AMK-UNPROVABLE, never silence.
gpu.module @m {
  gpu.func @uncounted_barriers_used(%buf: memref<129xf32>, %res: memref<128xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %buf[%t] : memref<129xf32>
    // expected-error-re @+1 {{[AMK-UNPROVABLE] a loop that is not an scf.for ('scf.while' at line {{[0-9]+}}{{.*}}}}
    %end = scf.while (%i = %c0) : (index) -> index {
      %more = arith.cmpi ult, %i, %n : index
      scf.condition(%more) %i : index
    } do {
    ^bb0(%i: index):
      gpu.barrier
      %next = arith.addi %i, %c1 : index
      scf.yield %next : index
    }
    %m = arith.addi %t, %c1 : index
    // expected-error-re @+1 {{[AMK-UNPROVABLE] the race check within a block gave up on 'memref.load' at line {{[0-9]+}} against 'memref.store' at line {{[0-9]+}}: the barriers in 'scf.while' do not run a known number of times}}
    %v = memref.load %buf[%m] : memref<129xf32>
    %few = arith.cmpi ult, %end, %c127 : index
    scf.if %few {
      memref.store %v, %res[%t] : memref<128xf32>
    }
    gpu.return
  }
}
