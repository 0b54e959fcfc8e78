// RUN: amk-opt %s --split-input-file --verify-diagnostics
// Every size a problem, a kernel config or a target states is bounded where
// it is read, so no product the planner, the cost model, the resources or
// the synthesizer form of them can wrap: a problem operand holds at most
// 1 TiB, a config field is at most 65536, a target field at most a bound
// far past any GPU. (Before, M = N = 2^40 divided by zero in the cost model,
// swizzle = 2^62 lowered to a division by zero, and block = [2^61 + 16, ..]
// verified because the thread count wrapped.)

func.func @matmul_c_over_1tib(%a: memref<1099511627776x64xf32>, %b: memref<64x1099511627776xf32>, %c: memref<1099511627776x1099511627776xf32>) {
  // expected-error @+1 {{'amk.matmul' op operand #0 of type 'memref<1099511627776x64xf32>' is larger than 1 TiB (1099511627776 bytes), more than any GPU holds}}
  amk.matmul %a, %b into %c : memref<1099511627776x64xf32>, memref<64x1099511627776xf32>, memref<1099511627776x1099511627776xf32>
  return
}

// -----

// The static extents of a dynamic operand count too, and a product past
// int64 is caught, not wrapped.
func.func @matmul_product_past_int64(%a: memref<?x4611686018427387904x4xf16>, %b: memref<?x4x64xf16>, %c: memref<?x4611686018427387904x64xf32>) {
  // expected-error @+1 {{operand #0 of type 'memref<?x4611686018427387904x4xf16>' is larger than 1 TiB}}
  amk.matmul %a, %b into %c : memref<?x4611686018427387904x4xf16>, memref<?x4x64xf16>, memref<?x4611686018427387904x64xf32>
  return
}

// -----

// Exactly 1 TiB is allowed (the bound is inclusive).
func.func @matmul_exactly_1tib(%a: memref<262144x1048576xf32>, %b: memref<1048576x16xf32>, %c: memref<262144x16xf32>) {
  amk.matmul %a, %b into %c : memref<262144x1048576xf32>, memref<1048576x16xf32>, memref<262144x16xf32>
  return
}

// -----

func.func @rows_over_1tib(%x: memref<1099511627776x64xbf16>, %y: memref<1099511627776x64xbf16>) {
  // expected-error @+1 {{'amk.row_reduce' op operand #0 of type 'memref<1099511627776x64xbf16>' is larger than 1 TiB}}
  amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<1099511627776x64xbf16>, memref<1099511627776x64xbf16>
  return
}

// -----

func.func @block_past_bound(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{tile sizes must be in [1, 65536]}}
  amk.kernel "k" config(#amk.gemm_config<block = [2305843009213693968, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @swizzle_past_bound(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{swizzle = 4611686018427387904 exceeds 65536}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128, swizzle = 4611686018427387904>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @split_past_bound(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{split_k = 65537 exceeds 65536}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 128, split_k = 65537>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @threads_past_bound(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{threads = 4611686018427387904 exceeds 65536}}
  amk.kernel "k" config(#amk.gemm_config<block = [64, 64, 8], warp = [32, 32], math = simt, thread = [4, 8], stages = 2, vector = 4, threads = 4611686018427387904>) {
    amk.matmul %a, %b into %c : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

// expected-error @+1 {{invalid target 'h200': sm_count = 4611686018427387904 exceeds 65536, more than any GPU has}}
module attributes {amk.target = #amk.target<"h200", sm_count = 4611686018427387904>} {}

// -----

// expected-error @+1 {{invalid target 'h200': smem_per_sm_bytes = 1099511627776 exceeds 4294967296, more than any GPU has}}
module attributes {amk.target = #amk.target<"h200", smem_per_sm_bytes = 1099511627776>} {}
