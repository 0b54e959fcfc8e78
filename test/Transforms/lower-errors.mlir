// RUN: amk-opt %s --split-input-file --amk-lower --verify-diagnostics

module attributes {amk.target = #amk.target<"h200">} {
  func.func @unverified(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    // expected-error @+1 {{has not been verified against the target; run --amk-verify before --amk-lower}}
    amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
      amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
    }
    return
  }
}

// -----

// expected-error @+1 {{[AMK-NO-TARGET] the module has no #amk.target}}
module {
  func.func @no_target(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
    amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
    }
    return
  }
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
  // TMA rows are a multiple of 16 bytes: a dynamic K cannot be shown one
  // (a static K that breaks it is padded by a copy first).
  func.func @wgmma_pitch(%a: memref<128x?xbf16>, %b: memref<128x?xbf16>, %c: memref<128x128xf32>) {
    // expected-error @+1 {{wgmma needs operands whose rows (their contiguous extent) are static and a multiple of 16 bytes (TMA's rule)}}
    amk.kernel "k" config(#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 3, vector = 4, threads = 256>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {transpose_b} : memref<128x?xbf16>, memref<128x?xbf16>, memref<128x128xf32>
    }
    return
  }
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
  // A tf32 B as [K, N] is repacked by a kernel whose grid y holds K's
  // 32-row tiles: at most 65535 of them.
  func.func @wgmma_repack_k(%a: memref<64x2097152xf32>, %b: memref<2097152x64xf32>, %c: memref<64x64xf32>) {
    // expected-error @+1 {{wgmma repacks operands it cannot read as stored (A as [K, M], a tf32 B as [K, N], rows that break TMA's 16-byte rule) for K up to 2097120, static}}
    amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 32], warp = [64, 64], math = wgmma, inst = [64, 64, 8], stages = 3, vector = 4, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<64x2097152xf32>, memref<2097152x64xf32>, memref<64x64xf32>
    }
    return
  }
}

// -----

module attributes {amk.target = #amk.target<"h200">} {
  func.func @misaligned_vector(%a: memref<64x60xf16>, %b: memref<60x60xf16>, %c: memref<64x60xf32>) {
    // expected-error @+1 {{vector width 8 divides the contiguous extent of neither A nor B}}
    amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 8, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<64x60xf16>, memref<60x60xf16>, memref<64x60xf32>
    }
    return
  }
}

// -----

// A tensor-core kernel marked verified for an arch without cp.async: the
// synthesizer asks the arch table too, so no cp.async reaches LLVM (which
// would abort with "Cannot select").
module attributes {amk.target = #amk.target<"h100", arch = "sm_75">} {
  func.func @arch_lacks_cp_async(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
    // expected-error @+1 {{cannot synthesize #amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>: mma_sync kernels use cp.async, which sm_75 (target 'h100') lacks: it needs sm_80 or later}}
    amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, threads = 128>) attributes {amk.verified} {
      amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
    }
    return
  }
}
