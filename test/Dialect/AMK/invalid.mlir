// RUN: amk-opt %s --split-input-file --verify-diagnostics
// One case per verifier rule of amk.matmul, amk.kernel, #amk.gemm_config and
// #amk.candidate.

func.func @c_rank(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{C must be rank 2 ([M, N]) or rank 3 ([batch, M, N]), got rank 1}}
  amk.matmul %a, %b into %c : memref<4xf32>, memref<4xf32>, memref<4xf32>
  return
}

// -----

func.func @a_rank(%a: memref<2x4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{A has rank 3 but C has rank 2}}
  amk.matmul %a, %b into %c : memref<2x4x8xf32>, memref<8x4xf32>, memref<4x4xf32>
  return
}

// -----

func.func @empty(%a: memref<0x8xf32>, %b: memref<8x4xf32>, %c: memref<0x4xf32>) {
  // expected-error @+1 {{A has an empty dimension: 'memref<0x8xf32>'}}
  amk.matmul %a, %b into %c : memref<0x8xf32>, memref<8x4xf32>, memref<0x4xf32>
  return
}

// -----

func.func @inner_stride(%a: memref<4x8xf32, strided<[1, 4]>>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{A must be contiguous in its innermost dimension}}
  amk.matmul %a, %b into %c : memref<4x8xf32, strided<[1, 4]>>, memref<8x4xf32>, memref<4x4xf32>
  return
}

// -----

func.func @k_mismatch(%a: memref<4x8xf32>, %b: memref<6x4xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{K of A (8) does not match K of B (6)}}
  amk.matmul %a, %b into %c : memref<4x8xf32>, memref<6x4xf32>, memref<4x4xf32>
  return
}

// -----

func.func @k_mismatch_transposed(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{K of A (8) does not match K of B (6)}}
  amk.matmul %a, %b into %c {transpose_a, transpose_b} : memref<8x4xf32>, memref<4x6xf32>, memref<4x4xf32>
  return
}

// -----

func.func @m_mismatch(%a: memref<5x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{M of A (5) does not match M of C (4)}}
  amk.matmul %a, %b into %c : memref<5x8xf32>, memref<8x4xf32>, memref<4x4xf32>
  return
}

// -----

func.func @n_mismatch(%a: memref<4x8xf32>, %b: memref<8x?xf32>, %c: memref<4x4xf32>, %b2: memref<8x5xf32>) {
  // Dynamic sizes are compatible with anything.
  amk.matmul %a, %b into %c : memref<4x8xf32>, memref<8x?xf32>, memref<4x4xf32>
  // expected-error @+1 {{N of B (5) does not match N of C (4)}}
  amk.matmul %a, %b2 into %c : memref<4x8xf32>, memref<8x5xf32>, memref<4x4xf32>
  return
}

// -----

func.func @batch_mismatch(%a: memref<2x4x8xf32>, %b: memref<3x8x4xf32>, %c: memref<2x4x4xf32>) {
  // expected-error @+1 {{batch of B (3) does not match batch of C (2)}}
  amk.matmul %a, %b into %c : memref<2x4x8xf32>, memref<3x8x4xf32>, memref<2x4x4xf32>
  return
}

// -----

func.func @input_types_differ(%a: memref<4x8xf16>, %b: memref<8x4xbf16>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{A and B element types differ: 'f16' vs 'bf16'}}
  amk.matmul %a, %b into %c : memref<4x8xf16>, memref<8x4xbf16>, memref<4x4xf32>
  return
}

// -----

func.func @unsupported_type(%a: memref<4x8xi8>, %b: memref<8x4xi8>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{element type 'i8' is not supported (f32, f16, bf16)}}
  amk.matmul %a, %b into %c : memref<4x8xi8>, memref<8x4xi8>, memref<4x4xf32>
  return
}

// -----

func.func @output_type(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf16>) {
  // expected-error @+1 {{C element type 'f16' must be f32 or the input type 'f32'}}
  amk.matmul %a, %b into %c : memref<4x8xf32>, memref<8x4xf32>, memref<4x4xf16>
  return
}

// -----

func.func @acc_type(%a: memref<4x8xbf16>, %b: memref<8x4xbf16>, %c: memref<4x4xbf16>) {
  // expected-error @+1 {{accumulator type 'bf16' must be f32 (or f16 for f16 inputs)}}
  amk.matmul %a, %b into %c {acc = bf16} : memref<4x8xbf16>, memref<8x4xbf16>, memref<4x4xbf16>
  return
}

// -----

func.func @f16_acc_f32_out(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{an f16 accumulator needs an f16 C}}
  amk.matmul %a, %b into %c {acc = f16} : memref<4x8xf16>, memref<8x4xf16>, memref<4x4xf32>
  return
}

// -----

func.func @tf32_on_f16(%a: memref<4x8xf16>, %b: memref<8x4xf16>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{#amk.precision<tf32> applies to f32 inputs, not 'f16'}}
  amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<4x8xf16>, memref<8x4xf16>, memref<4x4xf32>
  return
}

// -----

func.func @bias_type(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %bias: memref<4xf16>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{bias element type 'f16' must match C's 'f32'}}
  amk.matmul %a, %b bias(%bias) into %c : memref<4x8xf32>, memref<8x4xf32>, memref<4xf16>, memref<4x4xf32>
  return
}

// -----

func.func @bias_rank(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %bias: memref<4x4xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{bias must be [N], got 'memref<4x4xf32>'}}
  amk.matmul %a, %b bias(%bias) into %c : memref<4x8xf32>, memref<8x4xf32>, memref<4x4xf32>, memref<4x4xf32>
  return
}

// -----

func.func @bias_size(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %bias: memref<5xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{N of bias (5) does not match N of C (4)}}
  amk.matmul %a, %b bias(%bias) into %c : memref<4x8xf32>, memref<8x4xf32>, memref<5xf32>, memref<4x4xf32>
  return
}

// -----

func.func @kernel_empty() {
  // expected-error @+1 {{body must hold exactly one problem op (such as amk.matmul)}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
  }
  return
}

// -----

func.func @kernel_two_problems(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) {
  // expected-error @+1 {{body must hold exactly one problem op (such as amk.matmul)}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<4x8xf32>, memref<8x4xf32>, memref<4x4xf32>
    amk.matmul %a, %b into %c : memref<4x8xf32>, memref<8x4xf32>, memref<4x4xf32>
  }
  return
}

// -----

func.func @kernel_vector_too_wide(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{vector width 8 of 'f32' exceeds a 16-byte access}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @kernel_mma_exact_f32(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{mma_sync needs f16/bf16 inputs or f32 with #amk.precision<tf32>; use simt for exact f32}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 16], warp = [32, 32], math = mma_sync, inst = [16, 8, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @kernel_tf32_k(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{tf32 mma_sync has no K = 16 instruction}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 16], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @kernel_f16_k(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{'f16' mma_sync has no K = 4 instruction}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 16], warp = [32, 32], math = mma_sync, inst = [16, 8, 4], stages = 2, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf16>, memref<64x64xf16>, memref<64x64xf32>
  }
  return
}

// -----

func.func @kernel_wgmma_k(%a: memref<128x128xbf16>, %b: memref<128x128xbf16>, %c: memref<128x128xf32>) {
  // expected-error @+1 {{'bf16' wgmma has no K = 32 instruction}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 32], stages = 2, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<128x128xbf16>, memref<128x128xbf16>, memref<128x128xf32>
  }
  return
}

// -----

func.func @kernel_bad_ladder(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{mma_sync needs f16/bf16 inputs}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>)
      ladder [#amk.candidate<config = #amk.gemm_config<block = [64, 64, 16], warp = [32, 32], math = mma_sync, inst = [16, 8, 8], stages = 2, vector = 4, threads = 128>, predicted_ns = 5>] {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

// expected-error @+1 {{block tile must be [BM, BN, BK], got 2 sizes}}
#c = #amk.gemm_config<block = [64, 64], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>

// -----

// expected-error @+1 {{warp tile must be [WM, WN], got 3 sizes}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32, 8], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>

// -----

// expected-error @+1 {{tile sizes must be in [1, 65536]}}
#c = #amk.gemm_config<block = [64, 64, 0], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>

// -----

// expected-error @+1 {{warp tile 48x32 does not divide block tile 64x64}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [48, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>

// -----

// expected-error @+1 {{stages must be at least 1, got 0}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 0, vector = 4, threads = 128>

// -----

// expected-error @+1 {{vector width must be 1, 2, 4, 8 or 16 elements, got 3}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 3, threads = 128>

// -----

// expected-error @+1 {{swizzle must be at least 1, got 0}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128, swizzle = 0>

// -----

// expected-error @+1 {{split_k must be at least 1, got 0}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128, split_k = 0>

// -----

// expected-error @+1 {{split_reduce = workspace needs split_k > 1}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128, split_reduce = workspace>

// -----

// expected-error @+2 {{expected ::mlir::amk::SplitReduce to be one of: atomic, workspace}}
// expected-error @+1 {{failed to parse AMK_GemmConfigAttr parameter 'split_reduce'}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128, split_k = 2, split_reduce = tree>

// -----

// expected-error @+1 {{simt takes a thread tile, not an instruction shape}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, inst = [16, 8, 8], thread = [4, 8], stages = 2, vector = 4, threads = 128>

// -----

// expected-error @+1 {{simt needs a thread tile [TM, TN]}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, stages = 2, vector = 4, threads = 128>

// -----

// expected-error @+1 {{thread tile 4x4 does not spread warp tile 32x32 over 32 threads}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 4], stages = 2, vector = 4, threads = 128>

// -----

// expected-error @+1 {{a thread tile is only for simt}}
#c = #amk.gemm_config<block = [64, 64, 16], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], thread = [4, 8], stages = 2, vector = 8, threads = 128>

// -----

// expected-error @+1 {{invalid mma_sync instruction shape [16, 16, 16]; expected [16, 8, K] with K in {4, 8, 16}}}
#c = #amk.gemm_config<block = [64, 64, 16], warp = [32, 32], math = mma_sync, inst = [16, 16, 16], stages = 2, vector = 8, threads = 128>

// -----

// expected-error @+1 {{invalid wgmma instruction shape [64, 12, 16]}}
#c = #amk.gemm_config<block = [64, 64, 16], warp = [64, 64], math = wgmma, inst = [64, 12, 16], stages = 2, vector = 8, threads = 128>

// -----

// expected-error @+1 {{instruction shape 64x64 does not divide warp tile 32x64}}
#c = #amk.gemm_config<block = [64, 64, 16], warp = [32, 64], math = wgmma, inst = [64, 64, 16], stages = 2, vector = 8, threads = 256>

// -----

// expected-error @+1 {{instruction K 16 does not divide block K 8}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 8, threads = 128>

// -----

// expected-error @+1 {{wgmma with 2 warpgroup tiles needs 256 threads (or 384 with a producer warpgroup), got 128}}
#c = #amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 2, vector = 8, threads = 128>

// -----

// expected-error @+1 {{warp layout 2x2 needs 128 threads, got 96}}
#c = #amk.gemm_config<block = [64, 64, 16], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 8, threads = 96>

// -----

// expected-error @+1 {{predicted time must be non-negative, got -1}}
#c = #amk.candidate<config = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>, predicted_ns = -1>

// -----

// expected-error @+1 {{struct is missing required parameter: threads}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4>

// -----

// expected-error @+2 {{expected ::mlir::amk::MathInst to be one of: simt, mma_sync, wgmma}}
// expected-error @+1 {{failed to parse AMK_GemmConfigAttr parameter 'math'}}
#c = #amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = tensorcore, thread = [4, 8], stages = 2, vector = 4, threads = 128>

// -----

// C leaves the batch dynamic; A and B still disagree on it.
func.func @batch_ab_mismatch(%a: memref<3x8x4xf32>, %b: memref<4x4x8xf32>, %c: memref<?x8x8xf32>) {
  // expected-error @+1 {{batch of A (3) does not match batch of B (4)}}
  amk.matmul %a, %b into %c : memref<3x8x4xf32>, memref<4x4x8xf32>, memref<?x8x8xf32>
  return
}

// -----

// C leaves N dynamic; B and the bias still disagree on it.
func.func @bias_b_mismatch(%a: memref<8x4xf32>, %b: memref<4x8xf32>, %bias: memref<16xf32>, %c: memref<8x?xf32>) {
  // expected-error @+1 {{N of bias (16) does not match N of B (8)}}
  amk.matmul %a, %b bias(%bias) into %c : memref<8x4xf32>, memref<4x8xf32>, memref<16xf32>, memref<8x?xf32>
  return
}
