// RUN: amk-opt %s --split-input-file --allow-unregistered-dialect --amk-verify --verify-diagnostics
// RUN: amk-opt %s --split-input-file --allow-unregistered-dialect --amk-verify=allow-unprovable 2>&1 | FileCheck %s --check-prefix=WARN
// What the harness cannot analyse is reported as AMK-UNPROVABLE, never
// accepted silently (an error; a warning with allow-unprovable).

// Bug: a loop of branches (a back edge), which lifts to scf.while: only
// scf.for loops are modelled (branch diamonds are: branches.mlir).
// WARN: warning: [AMK-UNPROVABLE] a loop that is not an scf.for
gpu.module @m {
  gpu.func @branch_loop(%n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    cf.br ^head(%c0 : index)
  ^head(%i: index):
    %p = arith.cmpi ult, %i, %n : index
    cf.cond_br %p, ^body, ^exit
  ^body:
    %j = arith.addi %i, %c1 : index
    // expected-error @+1 {{[AMK-UNPROVABLE] a loop that is not an scf.for ('scf.while' at line 20, or branches with a back edge) is not modelled: the harness analyses loops as scf.for}}
    cf.br ^head(%j : index)
  ^exit:
    gpu.return
  }
}

// -----

// Twin: the same branch as an scf.if (on a kernel argument, uniform).
gpu.module @m {
  gpu.func @branches_scf(%c: i1) kernel {
    scf.if %c {
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Bug: a call to an external helper, which the harness cannot look into.
// WARN: warning: [AMK-UNPROVABLE] calls 'helper'
gpu.module @m {
  func.func private @helper()
  gpu.func @calls() kernel {
    // expected-error @+1 {{[AMK-UNPROVABLE] calls 'helper': the harness does not analyse calls}}
    func.call @helper() : () -> ()
    gpu.return
  }
}

// -----

// Twin: the helper's work (none) inlined: nothing left to call.
gpu.module @m {
  func.func private @helper()
  gpu.func @inlined() kernel {
    gpu.return
  }
}

// -----

// Bug: an op of a dialect the harness does not know.
// WARN: warning: [AMK-UNPROVABLE] op 'mystery.op'
gpu.module @m {
  gpu.func @unknown_op() kernel {
    // expected-error @+1 {{[AMK-UNPROVABLE] op 'mystery.op' at line 68 is not modelled by the harness}}
    "mystery.op"() : () -> ()
    gpu.return
  }
}

// -----

// Twin: the same kernel without the unknown op.
gpu.module @m {
  gpu.func @known_ops() kernel {
    gpu.return
  }
}

// -----

// Bug: a multi-way branch (cf.switch, lifted to scf.index_switch).
// WARN: warning: [AMK-UNPROVABLE] a multi-way branch
gpu.module @m {
  gpu.func @switch_blocks(%a: memref<256xf32>, %f: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    // expected-error @+1 {{[AMK-UNPROVABLE] a multi-way branch ('scf.index_switch' at line 90, or a cf.switch) is not modelled: the harness analyses branches as scf.if}}
    cf.switch %f : i32, [
      default: ^x,
      1: ^y
    ]
  ^x:
    %v = memref.load %a[%tid] : memref<256xf32>
    gpu.return
  ^y:
    gpu.return
  }
}

// -----

// Twin: one block.
gpu.module @m {
  gpu.func @one_block(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %x = memref.load %a[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: a helper defined in the gpu.module is still a call.
// WARN: warning: [AMK-UNPROVABLE] calls 'scale'
gpu.module @m {
  func.func @scale(%x: f32) -> f32 {
    %c2 = arith.constant 2.0 : f32
    %y = arith.mulf %x, %c2 : f32
    return %y : f32
  }
  gpu.func @calls_defined(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %x = memref.load %a[%tid] : memref<256xf32>
    // expected-error @+1 {{[AMK-UNPROVABLE] calls 'scale': the harness does not analyse calls}}
    %y = func.call @scale(%x) : (f32) -> f32
    memref.store %y, %a[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Twin: the helper inlined into the kernel.
gpu.module @m {
  gpu.func @scale_inlined(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2.0 : f32
    %x = memref.load %a[%tid] : memref<256xf32>
    %y = arith.mulf %x, %c2 : f32
    memref.store %y, %a[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: inline PTX reading %warpid, opaque to the harness.
// WARN: warning: [AMK-UNPROVABLE] op 'llvm.inline_asm'
gpu.module @m {
  gpu.func @inline_asm(%a: memref<256xi32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    // expected-error @+1 {{[AMK-UNPROVABLE] op 'llvm.inline_asm' at line 155 is not modelled by the harness}}
    %w = llvm.inline_asm "mov.u32 $0, %warpid;", "=r" : () -> i32
    memref.store %w, %a[%tid] : memref<256xi32>
    gpu.return
  }
}

// -----

// Twin: the warp index computed from the thread id.
gpu.module @m {
  gpu.func @warp_from_tid(%a: memref<256xi32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %wi = arith.divui %tid, %c32 : index
    %w = arith.index_cast %wi : index to i32
    memref.store %w, %a[%tid] : memref<256xi32>
    gpu.return
  }
}

// -----

// Bug: a whole-buffer memref.copy, an access the bounds check does not model.
// WARN: warning: [AMK-UNPROVABLE] memory access by 'memref.copy'
gpu.module @m {
  gpu.func @copy_op(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    // expected-error @+1 {{[AMK-UNPROVABLE] memory access by 'memref.copy' is not modelled by the bounds check}}
    memref.copy %a, %b : memref<256xf32> to memref<256xf32>
    gpu.return
  }
}

// -----

// Twin: each thread copies its element with a load and a store.
gpu.module @m {
  gpu.func @copy_by_thread(%a: memref<256xf32>, %b: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %x = memref.load %a[%tid] : memref<256xf32>
    memref.store %x, %b[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Bug: a vector.transfer_read under an explicit mask operand, which the
// bounds check does not model (masked-off elements are not accessed; a
// transfer with in_bounds = false is modelled: vector-nd.mlir).
// WARN: warning: [AMK-UNPROVABLE] memory access by 'vector.transfer_read'
gpu.module @m {
  gpu.func @transfer_read(%a: memref<1024xf32>, %mask: vector<4xi1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %pad = arith.constant 0.0 : f32
    %i = arith.muli %tid, %c4 : index
    // expected-error @+1 {{[AMK-UNPROVABLE] memory access by 'vector.transfer_read' is not modelled by the bounds check}}
    %v = vector.transfer_read %a[%i], %pad, %mask {in_bounds = [true]} : memref<1024xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

// Twin: the same read as a vector.load.
gpu.module @m {
  gpu.func @vector_load(%a: memref<1024xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %i = arith.muli %tid, %c4 : index
    %v = vector.load %a[%i] : memref<1024xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

// Bug: a view into dynamic shared memory of a kernel that does not say how
// much the launch provides.
// WARN: warning: [AMK-UNPROVABLE] dynamic shared memory without 'amk.dynamic_smem_bytes'
gpu.module @m {
  gpu.func @smem_size_unknown() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-UNPROVABLE] dynamic shared memory without 'amk.dynamic_smem_bytes' on the kernel: its size is unknown}}
    %buf = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %zero, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Twin: the kernel states the 1024 B its launch provides.
gpu.module @m {
  gpu.func @smem_size_known() kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %buf = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %zero, %buf[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Bug: a memref.cast of a dynamic buffer to a static size nothing proves:
// every access through it would be checked against a size it may not have.
// WARN: warning: [AMK-UNPROVABLE] memref.cast claims size 256
gpu.module @m {
  gpu.func @cast_unguarded(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    // expected-error @+1 {{[AMK-UNPROVABLE] memref.cast claims size 256 for the dynamic dimension 0 of memref<?xf32>: no guard proves the real size is at least that}}
    %s = memref.cast %a : memref<?xf32> to memref<256xf32>
    %x = memref.load %s[%tid] : memref<256xf32>
    gpu.return
  }
}

// -----

// Twin: the cast under a guard on the real size.
gpu.module @m {
  gpu.func @cast_guarded(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %big = arith.cmpi uge, %n, %c256 : index
    scf.if %big {
      %s = memref.cast %a : memref<?xf32> to memref<256xf32>
      %x = memref.load %s[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// Casts keep the real sizes: a load through a cast to a dynamic size is
// checked against the argument's 256 elements.
gpu.module @m {
  gpu.func @cast_to_dynamic(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %d = memref.cast %a : memref<256xf32> to memref<?xf32>
    %x = memref.load %d[%tid] : memref<?xf32>
    gpu.return
  }
}

// -----

// Bug: a gather (an index per lane), which the bounds check does not model
// (n-D vector loads are, as their rows: vector-nd.mlir).
// WARN: warning: [AMK-UNPROVABLE] memory access by 'vector.gather'
gpu.module @m {
  gpu.func @vector_gather(%a: memref<64x64xf32>, %lanes: vector<4xindex>, %mask: vector<4xi1>, %pass: vector<4xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{[AMK-UNPROVABLE] memory access by 'vector.gather' is not modelled by the bounds check}}
    %v = vector.gather %a[%tid, %c0] [%lanes], %mask, %pass : memref<64x64xf32>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
    gpu.return
  }
}

// -----

// Twin: the same two rows as 1-D vector loads.
gpu.module @m {
  gpu.func @vector_rows(%a: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %row = arith.muli %tid, %c2 : index
    %next = arith.addi %row, %c1 : index
    %v0 = vector.load %a[%row, %c0] : memref<64x64xf32>, vector<4xf32>
    %v1 = vector.load %a[%next, %c0] : memref<64x64xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

// Bug: a flat view of a matrix's buffer one row longer than the matrix
// (offset + rows * stride + cols): it reaches past the matrix's last element.
// WARN: warning: [AMK-UNPROVABLE] memref.reinterpret_cast other than a flat view
gpu.module @m {
  gpu.func @flat_view_too_long(%a: memref<?x?xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a : memref<?x?xf16> -> memref<f16>, index, index, index, index, index
    %span = arith.muli %sizes#0, %strides#0 : index
    %tail = arith.addi %span, %sizes#1 : index
    %end = arith.addi %offset, %tail : index
    // expected-error @+1 {{[AMK-UNPROVABLE] memref.reinterpret_cast other than a flat view of a row-major matrix's own elements is not modelled}}
    %flat = memref.reinterpret_cast %a to offset: [0], sizes: [%end], strides: [1] : memref<?x?xf16> to memref<?xf16>
    gpu.return
  }
}

// -----

// Twin: the flat view of one batch of a batched operand, sized offset +
// (rows - 1) * stride + cols from the batch's strided metadata, the view
// taken on the batch itself (as canonicalization leaves it).
gpu.module @m {
  gpu.func @flat_view_of_batch(%a: memref<?x?x?xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = gpu.block_id z
    %batches = memref.dim %a, %c0 : memref<?x?x?xf16>
    %inside = arith.cmpi ult, %z, %batches : index
    scf.if %inside {
      %rows = memref.dim %a, %c1 : memref<?x?x?xf16>
      %c2 = arith.constant 2 : index
      %cols = memref.dim %a, %c2 : memref<?x?x?xf16>
      %batch = memref.subview %a[%z, 0, 0] [1, %rows, %cols] [1, 1, 1] : memref<?x?x?xf16> to memref<?x?xf16, strided<[?, 1], offset: ?>>
      %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %batch : memref<?x?xf16, strided<[?, 1], offset: ?>> -> memref<f16>, index, index, index, index, index
      %last = arith.subi %sizes#0, %c1 : index
      %span = arith.muli %last, %strides#0 : index
      %tail = arith.addi %span, %sizes#1 : index
      %end = arith.addi %offset, %tail : index
      %flat = memref.reinterpret_cast %batch to offset: [0], sizes: [%end], strides: [1] : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<?xf16>
      %tid = gpu.thread_id x
      %i = arith.addi %offset, %tid : index
      %ok = arith.cmpi ult, %i, %end : index
      scf.if %ok {
        %x = memref.load %flat[%i] : memref<?xf16>
      }
    }
    gpu.return
  }
}

// -----

// Twin: a flat view whose size folded to (rows - 1) * 999 + 999 (a static
// row length), read at indices clamped to its last element.
gpu.module @m {
  gpu.func @flat_view_folded(%a: memref<?x999xf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c1 = arith.constant 1 : index
    %c998 = arith.constant 998 : index
    %c999 = arith.constant 999 : index
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a : memref<?x999xf16> -> memref<f16>, index, index, index, index, index
    %last = arith.subi %sizes#0, %c1 : index
    %span = arith.muli %last, %c999 : index
    %end = arith.addi %span, %c999 : index
    %flat = memref.reinterpret_cast %a to offset: [0], sizes: [%end], strides: [1] : memref<?x999xf16> to memref<?xf16>
    %tid = gpu.thread_id x
    %final = arith.addi %span, %c998 : index
    %i = arith.minui %tid, %final : index
    %x = memref.load %flat[%i] : memref<?xf16>
    gpu.return
  }
}

// With allow-unprovable, the JSON says warning too.
// RUN: amk-opt %s --split-input-file --allow-unregistered-dialect --amk-verify="allow-unprovable json=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=JSON
// JSON: "check": "AMK-UNPROVABLE"
// JSON-NOT: "severity": "error"
// JSON: "severity": "warning"
