// RUN: amk-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect | FileCheck %s
// amk.row_reduce: reductions of the last dimension, softmax and norms; what
// the verifier accepts prints back as written.

// CHECK-LABEL: func.func @accepted
// CHECK: amk.row_reduce %{{.*}} into %{{.*}} {kind = #amk.row_op<sum>} : memref<?x4096xbf16>, memref<?xf32>
// CHECK: amk.row_reduce %{{.*}} into %{{.*}} {kind = #amk.row_op<softmax>} : memref<2x?x1000xf16>, memref<2x?x1000xf32>
// CHECK: amk.row_reduce %{{.*}} weight(%{{.*}}) bias(%{{.*}}) into %{{.*}} {eps = 9.9999999999999995E-7 : f64, kind = #amk.row_op<layer_norm>}
func.func @accepted(%a: memref<?x4096xbf16>, %s: memref<?xf32>, %x: memref<2x?x1000xf16>, %y: memref<2x?x1000xf32>,
                    %n: memref<8x512xf32>, %w: memref<512xf32>, %b: memref<512xf32>, %o: memref<8x512xf32>) {
  amk.row_reduce %a into %s {kind = #amk.row_op<sum>} : memref<?x4096xbf16>, memref<?xf32>
  amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<2x?x1000xf16>, memref<2x?x1000xf32>
  amk.row_reduce %n weight(%w) bias(%b) into %o {kind = #amk.row_op<layer_norm>, eps = 1.0e-6} : memref<8x512xf32>, memref<512xf32>, memref<512xf32>, memref<8x512xf32>
  return
}

// CHECK: #amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 4>
// CHECK: #amk.row_config<threads_per_row = 8, rows_per_block = 16, vector = 2, passes = 2>
"test.configs"() {a = #amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 4>,
                  b = #amk.row_config<threads_per_row = 8, rows_per_block = 16, vector = 2, passes = 2>} : () -> ()

// -----

func.func @rank(%x: memref<4096xf32>, %y: memref<f32>) {
  // expected-error @+1 {{x must be rank 2 ([M, N]) or rank 3 ([batch, M, N]) with the reduced dimension last, got rank 1}}
  amk.row_reduce %x into %y {kind = #amk.row_op<sum>} : memref<4096xf32>, memref<f32>
  return
}

// -----

func.func @reduction_shape(%x: memref<16x64xf32>, %y: memref<16x64xf32>) {
  // expected-error @+1 {{y of max must have rank 1 (one value per row), got 'memref<16x64xf32>'}}
  amk.row_reduce %x into %y {kind = #amk.row_op<max>} : memref<16x64xf32>, memref<16x64xf32>
  return
}

// -----

func.func @mismatch(%x: memref<16x64xf32>, %y: memref<15x64xf32>) {
  // expected-error @+1 {{size 0 of x (16) does not match size 0 of y (15)}}
  amk.row_reduce %x into %y {kind = #amk.row_op<softmax>} : memref<16x64xf32>, memref<15x64xf32>
  return
}

// -----

func.func @weight_length(%x: memref<16x64xf32>, %w: memref<63xf32>, %y: memref<16x64xf32>) {
  // expected-error @+1 {{weight has 63 elements but rows have 64}}
  amk.row_reduce %x weight(%w) into %y {kind = #amk.row_op<rms_norm>} : memref<16x64xf32>, memref<63xf32>, memref<16x64xf32>
  return
}

// -----

func.func @no_weight(%x: memref<16x64xf32>, %y: memref<16x64xf32>) {
  // expected-error @+1 {{rms_norm needs a weight}}
  amk.row_reduce %x into %y {kind = #amk.row_op<rms_norm>} : memref<16x64xf32>, memref<16x64xf32>
  return
}

// -----

func.func @bias_on_rms(%x: memref<16x64xf32>, %w: memref<64xf32>, %b: memref<64xf32>, %y: memref<16x64xf32>) {
  // expected-error @+1 {{only layer_norm takes a bias}}
  amk.row_reduce %x weight(%w) bias(%b) into %y {kind = #amk.row_op<rms_norm>} : memref<16x64xf32>, memref<64xf32>, memref<64xf32>, memref<16x64xf32>
  return
}

// -----

func.func @eps_range(%x: memref<16x64xf32>, %w: memref<64xf32>, %y: memref<16x64xf32>) {
  // expected-error @+1 {{eps must be in (0, 1], got -1.000000e-05}}
  amk.row_reduce %x weight(%w) into %y {kind = #amk.row_op<rms_norm>, eps = -1.0e-5} : memref<16x64xf32>, memref<64xf32>, memref<16x64xf32>
  return
}

// -----

func.func @eps_nan(%x: memref<16x64xf32>, %w: memref<64xf32>, %y: memref<16x64xf32>) {
  // expected-error @+1 {{eps must be in (0, 1], got nan}}
  amk.row_reduce %x weight(%w) into %y {kind = #amk.row_op<layer_norm>, eps = 0x7FF8000000000000 : f64} : memref<16x64xf32>, memref<64xf32>, memref<16x64xf32>
  return
}

// -----

func.func @eps_on_softmax(%x: memref<16x64xf32>, %y: memref<16x64xf32>) {
  // expected-error @+1 {{softmax takes no eps}}
  amk.row_reduce %x into %y {kind = #amk.row_op<softmax>, eps = 1.0e-5} : memref<16x64xf32>, memref<16x64xf32>
  return
}

// -----

func.func @strided(%x: memref<16x64xf32, strided<[128, 1]>>, %y: memref<16xf32>) {
  // expected-error @+1 {{x must be a contiguous row-major buffer (identity layout), got 'memref<16x64xf32, strided<[128, 1]>>'}}
  amk.row_reduce %x into %y {kind = #amk.row_op<sum>} : memref<16x64xf32, strided<[128, 1]>>, memref<16xf32>
  return
}

// -----

func.func @int(%x: memref<16x64xi32>, %y: memref<16xi32>) {
  // expected-error @+1 {{x element type 'i32' is not supported (f32, f16, bf16)}}
  amk.row_reduce %x into %y {kind = #amk.row_op<sum>} : memref<16x64xi32>, memref<16xi32>
  return
}

// -----

// expected-error @+1 {{threads_per_row must be a power of two in [1, 1024], got 48}}
#c = #amk.row_config<threads_per_row = 48, rows_per_block = 1, vector = 4>

// -----

// expected-error @+1 {{a block of 4 x 4 = 16 threads must be whole warps, at most 1024}}
#c = #amk.row_config<threads_per_row = 4, rows_per_block = 4, vector = 4>

// -----

// expected-error @+1 {{rows_per_block must be in [1, 1024], got 4611686018427387904}}
#c = #amk.row_config<threads_per_row = 4, rows_per_block = 4611686018427387904, vector = 4>

// -----

// expected-error @+1 {{passes must be 1 or 2, got 3}}
#c = #amk.row_config<threads_per_row = 32, rows_per_block = 1, vector = 4, passes = 3>

// -----

// expected-error @+1 {{cache = shared needs cached_runs >= 1}}
#c = #amk.row_config<threads_per_row = 32, rows_per_block = 1, vector = 4, cache = shared>

// -----

// expected-error @+2 {{expected ::mlir::amk::RowCache to be one of: registers, shared}}
// expected-error @+1 {{failed to parse AMK_RowConfigAttr parameter 'cache'}}
#c = #amk.row_config<threads_per_row = 32, rows_per_block = 1, vector = 4, cached_runs = 1, cache = global>

// -----

// expected-error @+1 {{cluster must be 1, 2, 4 or 8 blocks, got 3}}
#c = #amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 4, cluster = 3>

// -----

// expected-error @+1 {{a row spread over a cluster of 2 blocks needs rows_per_block = 1, got 2}}
#c = #amk.row_config<threads_per_row = 256, rows_per_block = 2, vector = 4, cluster = 2>
