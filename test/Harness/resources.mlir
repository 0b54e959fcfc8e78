// RUN: amk-opt %s --split-input-file --amk-verify --verify-diagnostics
// Launch resources of lowered kernels against the module's target, at the
// limit (accepted) and one past it (rejected).

// Bug: dynamic shared memory 1 B over the opt-in limit of an RTX 4060 Ti.
module attributes {amk.target = #amk.target<"rtx4060ti">} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-SMEM] dynamic shared memory 101377 B exceeds the opt-in limit 101376 B of target 'rtx4060ti'}}
    gpu.func @smem_over() kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 101377 : i64} {
      gpu.return
    }
  }
}

// -----

// Twin: exactly the opt-in limit.
module attributes {amk.target = #amk.target<"rtx4060ti">} {
  gpu.module @m {
    gpu.func @smem_at_limit() kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 101376 : i64} {
      gpu.return
    }
  }
}

// -----

// Bug: one thread more than a target limited to 512 threads per block.
module attributes {amk.target = #amk.target<"h200", max_threads_per_block = 512, max_block_dim_x = 512>} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-THREADS] 513 threads per block exceed the limit 512 of target 'h200'}}
    gpu.func @threads_over() kernel attributes {known_block_size = array<i32: 513, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// Twin: exactly 512 threads.
module attributes {amk.target = #amk.target<"h200", max_threads_per_block = 512, max_block_dim_x = 512>} {
  gpu.module @m {
    gpu.func @threads_at_limit() kernel attributes {known_block_size = array<i32: 512, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// Bug: a 1-D block of 2048 threads (the per-SM thread count, not the
// per-block limit of 1024).
module attributes {amk.target = #amk.target<"h200">} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-THREADS] 2048 threads per block exceed the limit 1024 of target 'h200'}}
    gpu.func @block_2048() kernel attributes {known_block_size = array<i32: 2048, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// Twin: 1024 threads, the most a block may have.
module attributes {amk.target = #amk.target<"h200">} {
  gpu.module @m {
    gpu.func @block_1024() kernel attributes {known_block_size = array<i32: 1024, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// Bug: a 2-D block of 32x64 threads: each dimension is allowed, the product
// (2048) is not.
module attributes {amk.target = #amk.target<"rtx4060ti">} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-THREADS] 2048 threads per block exceed the limit 1024 of target 'rtx4060ti'}}
    gpu.func @tile_32x64() kernel attributes {known_block_size = array<i32: 32, 64, 1>} {
      gpu.return
    }
  }
}

// -----

// Twin: a 32x32 tile of threads.
module attributes {amk.target = #amk.target<"rtx4060ti">} {
  gpu.module @m {
    gpu.func @tile_32x32() kernel attributes {known_block_size = array<i32: 32, 32, 1>} {
      gpu.return
    }
  }
}

// -----

// Bug: 128 threads on block dimension z, whose limit is 64 (the total, 512,
// is fine).
module attributes {amk.target = #amk.target<"h200">} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-THREADS] 128 threads on block dimension z exceed the limit 64 of target 'h200'}}
    gpu.func @deep_z() kernel attributes {known_block_size = array<i32: 2, 2, 128>} {
      gpu.return
    }
  }
}

// -----

// Twin: 64 threads on z, exactly its limit.
module attributes {amk.target = #amk.target<"h200">} {
  gpu.module @m {
    gpu.func @z_at_limit() kernel attributes {known_block_size = array<i32: 4, 2, 64>} {
      gpu.return
    }
  }
}

// -----

// Bug: dynamic shared memory 1 B over the H200's opt-in limit (227 KiB).
module attributes {amk.target = #amk.target<"h200">} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-SMEM] dynamic shared memory 232449 B exceeds the opt-in limit 232448 B of target 'h200'}}
    gpu.func @h200_smem_over() kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 232449 : i64} {
      gpu.return
    }
  }
}

// -----

// Twin: exactly 227 KiB.
module attributes {amk.target = #amk.target<"h200">} {
  gpu.module @m {
    gpu.func @h200_smem_at_limit() kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 232448 : i64} {
      gpu.return
    }
  }
}

// -----

// Bug: within the opt-in limit, but 1 B more than an SM holds for a block
// next to the driver's 1 KiB reservation.
module attributes {amk.target = #amk.target<"h200", smem_per_block_optin_bytes = 232448, smem_per_sm_bytes = 232448>} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-SMEM] dynamic shared memory 231425 B exceeds the 231424 B an SM of target 'h200' holds per block (232448 B per SM, 1024 B reserved per block)}}
    gpu.func @smem_over_sm() kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 231425 : i64} {
      gpu.return
    }
  }
}

// -----

// Twin: exactly what the SM holds next to the reservation.
module attributes {amk.target = #amk.target<"h200", smem_per_block_optin_bytes = 232448, smem_per_sm_bytes = 232448>} {
  gpu.module @m {
    gpu.func @smem_at_sm_limit() kernel attributes {known_block_size = array<i32: 256, 1, 1>, amk.dynamic_smem_bytes = 231424 : i64} {
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

// -----

// Bug: static shared memory (a workgroup attribution of 101600 B) over the
// opt-in limit of an RTX 4060 Ti; no dynamic shared memory at all.
module attributes {amk.target = #amk.target<"rtx4060ti">} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-SMEM] shared memory 101600 B (101600 B static) exceeds the opt-in limit 101376 B of target 'rtx4060ti'}}
    gpu.func @static_smem_over() workgroup(%buf : memref<25400xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// Twin: an attribution of exactly the opt-in limit.
module attributes {amk.target = #amk.target<"rtx4060ti">} {
  gpu.module @m {
    gpu.func @static_smem_at_limit() workgroup(%buf : memref<25344xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// Bug: a shared global and dynamic shared memory that fit apart but not
// together (100352 + 15 alignment + 1024 > 101376).
module attributes {amk.target = #amk.target<"rtx4060ti">} {
  gpu.module @m {
    memref.global "private" @tile : memref<100352xi8, #gpu.address_space<workgroup>>
    // expected-error @+1 {{[AMK-RES-SMEM] shared memory 101391 B (100352 B static + 1024 B dynamic + up to 15 B alignment) exceeds the opt-in limit 101376 B of target 'rtx4060ti'}}
    gpu.func @global_plus_dynamic() kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 1024 : i64} {
      %g = memref.get_global @tile : memref<100352xi8, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// Twin: 16 B less dynamic shared memory.
module attributes {amk.target = #amk.target<"rtx4060ti">} {
  gpu.module @m {
    memref.global "private" @tile : memref<100352xi8, #gpu.address_space<workgroup>>
    gpu.func @global_plus_less_dynamic() kernel attributes {known_block_size = array<i32: 128, 1, 1>, amk.dynamic_smem_bytes = 1008 : i64} {
      %g = memref.get_global @tile : memref<100352xi8, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// Bug: a hand-written kernel that declares a grid of 65536 blocks on y,
// one more than any launch may have.
module attributes {amk.target = #amk.target<"h200">} {
  gpu.module @m {
    // expected-error @+1 {{[AMK-RES-GRID] grid 1x65536x1 exceeds max_grid_dim_y = 65535 of target 'h200'}}
    gpu.func @grid_over() kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 65536, 1>} {
      gpu.return
    }
  }
}

// -----

// Twin: 65535 blocks on y.
module attributes {amk.target = #amk.target<"h200">} {
  gpu.module @m {
    gpu.func @grid_at_limit() kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 65535, 1>} {
      gpu.return
    }
  }
}
