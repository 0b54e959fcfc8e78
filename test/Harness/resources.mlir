// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Launch resources of lowered kernels against the module's target, at the
// limit (accepted) and one past it (rejected).

module attributes {amk.target = #amk.target<"rtx4060ti">} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-SMEM] dynamic shared memory 101377 B exceeds the opt-in limit 101376 B of target 'rtx4060ti'}}
    gpu.func @smem_over() kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 101377 : i64} {
      gpu.return
    }
    gpu.func @smem_at_limit() kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 101376 : i64} {
      gpu.return
    }
  }
}

// -----

module attributes {amk.target = #amk.target<"h200", max_threads_per_block = 512, max_block_dim_x = 512>} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-THREADS] 513 threads per block exceed the limit 512 of target 'h200'}}
    gpu.func @threads_over() kernel attributes {known_block_size = array<i32: 513, 1, 1>} {
      gpu.return
    }
    gpu.func @threads_at_limit() kernel attributes {known_block_size = array<i32: 512, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// Regression (found by python/amk/fuzz.py): a kernel without known_block_size
// under a target is checked, not a crash.
module attributes {amk.target = #amk.target<"h200">} {
  gpu.module @m {
    gpu.func @no_block_size() kernel {
      gpu.return
    }
  }
}
