// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// setmaxnreg (AMK-RES-REGS, RegisterSplit.cpp): the counts the warpgroups end
// with fit the registers the block was launched with, each set by whole
// warpgroups. Each bug next to its twin.

// Twin: the producer warpgroup drops to 40 registers, the two consumer
// warpgroups rise to 232: 128 x (40 + 2 x 232) = 64512 = 168 x 384.
gpu.module @m {
  gpu.func @split() kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %wg = arith.divui %tid, %c128 : index
    %producer = arith.cmpi eq, %wg, %c2 : index
    scf.if %producer {
      nvvm.setmaxregister decrease 40
    }
    %consumer = arith.cmpi ult, %wg, %c2 : index
    scf.if %consumer {
      nvvm.setmaxregister increase 232
    }
    gpu.return
  }
}

// -----

// Bug: the consumers ask for 240: 66560 registers of a pool of 64512; the
// second .inc waits for registers no one frees.
gpu.module @m {
  gpu.func @split_overdrawn() kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %wg = arith.divui %tid, %c128 : index
    %producer = arith.cmpi eq, %wg, %c2 : index
    scf.if %producer {
      nvvm.setmaxregister decrease 40
    }
    %consumer = arith.cmpi ult, %wg, %c2 : index
    scf.if %consumer {
      // expected-error-re @+1 {{[AMK-RES-REGS] after setmaxnreg the warpgroups hold 66560 registers (240 + 240 + 40 per thread), but the block was launched with 64512 (168 x 384 threads): a setmaxnreg.inc waits for registers no warpgroup frees, and the block hangs}}
      nvvm.setmaxregister increase 240
    }
    gpu.return
  }
}

// -----

// Bug: an .inc to fewer registers than the launch gave.
gpu.module @m {
  gpu.func @split_inc_lowers() kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %wg = arith.divui %tid, %c128 : index
    %producer = arith.cmpi eq, %wg, %c2 : index
    scf.if %producer {
      nvvm.setmaxregister decrease 40
    }
    %consumer = arith.cmpi ult, %wg, %c2 : index
    scf.if %consumer {
      // expected-error-re @+1 {{[AMK-RES-REGS] setmaxnreg.inc to 160 registers in warpgroup 0, which holds 168: .inc must not lower the count and .dec must not raise it}}
      nvvm.setmaxregister increase 160
    }
    gpu.return
  }
}

// -----

// Bug: setmaxnreg for the first 64 threads only, half a warpgroup.
gpu.module @m {
  gpu.func @split_partial_warpgroup() kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %wg = arith.divui %tid, %c128 : index
    %producer = arith.cmpi eq, %wg, %c2 : index
    scf.if %producer {
      nvvm.setmaxregister decrease 40
    }
    %consumer = arith.cmpi ult, %tid, %c64 : index
    scf.if %consumer {
      // expected-error-re @+2 {{[AMK-CONVERGENCE] warpgroup-level 'nvvm.setmaxregister' at line {{[0-9]+}} is under control that can differ within a warpgroup: 'scf.if' at line {{[0-9]+}} decides by a value the threads of one warpgroup may not share whether (or how often) it runs; every thread of the warpgroup must execute it together}}
      // expected-error-re @+1 {{[AMK-CONVERGENCE] setmaxnreg runs for threads [0, 64), not whole warpgroups: every warp of a warpgroup must run it}}
      nvvm.setmaxregister increase 232
    }
    gpu.return
  }
}

// -----

// Bug: no nvvm.maxnreg: the pool the counts must fit is not known.
gpu.module @m {
  gpu.func @split_no_launch_count() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %wg = arith.divui %tid, %c128 : index
    %producer = arith.cmpi eq, %wg, %c2 : index
    scf.if %producer {
      // expected-error-re @+1 {{[AMK-UNPROVABLE] setmaxnreg in a kernel without a 1-D known_block_size of whole warpgroups and a launch register count (nvvm.maxnreg): the register pool is not known}}
      nvvm.setmaxregister decrease 40
    }
    %consumer = arith.cmpi ult, %wg, %c2 : index
    scf.if %consumer {
      nvvm.setmaxregister increase 232
    }
    gpu.return
  }
}

