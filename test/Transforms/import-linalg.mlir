// RUN: amk-opt %s --split-input-file --amk-import-linalg --verify-diagnostics | FileCheck %s

// linalg.matmul accumulates into C: beta = 1.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: memref<128x64xf16>, %[[B:.*]]: memref<64x256xf16>, %[[C:.*]]: memref<128x256xf32>)
// CHECK-NEXT:    amk.matmul %[[A]], %[[B]] into %[[C]] {beta = 1.000000e+00 : f64} : memref<128x64xf16>, memref<64x256xf16>, memref<128x256xf32>
// CHECK-NEXT:    return
func.func @matmul(%a: memref<128x64xf16>, %b: memref<64x256xf16>, %c: memref<128x256xf32>) {
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x256xf16>) outs(%c : memref<128x256xf32>)
  return
}

// -----

// A zero fill right before the product folds away: beta = 0.
// CHECK-LABEL: func.func @fill_matmul
// CHECK-NOT:     linalg.fill
// CHECK:         amk.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
// CHECK-NEXT:    return
func.func @fill_matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// A fill of another value, or of another buffer, stays.
// CHECK-LABEL: func.func @fill_not_zero
// CHECK:         linalg.fill
// CHECK-NEXT:    amk.matmul {{.*}} {beta = 1.000000e+00 : f64}
func.func @fill_not_zero(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  %one = arith.constant 1.0 : f32
  // expected-warning @+1 {{not imported into AMK: no AMK family takes 'linalg.fill'}}
  linalg.fill ins(%one : f32) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @transpose_b
// CHECK:         amk.matmul {{.*}} {beta = 1.000000e+00 : f64, transpose_b} : memref<16x4096xbf16>, memref<14336x4096xbf16>, memref<16x14336xf32>
func.func @transpose_b(%a: memref<16x4096xbf16>, %b: memref<14336x4096xbf16>, %c: memref<16x14336xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<16x4096xbf16>, memref<14336x4096xbf16>) outs(%c : memref<16x14336xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @transpose_a
// CHECK:         amk.matmul {{.*}} {beta = 1.000000e+00 : f64, transpose_a} : memref<64x32xf32>, memref<64x16xf32>, memref<32x16xf32>
func.func @transpose_a(%a: memref<64x32xf32>, %b: memref<64x16xf32>, %c: memref<32x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<64x32xf32>, memref<64x16xf32>) outs(%c : memref<32x16xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @batch
// CHECK:         amk.matmul {{.*}} {beta = 1.000000e+00 : f64} : memref<4x32x64xf16>, memref<4x64x16xf16>, memref<4x32x16xf16>
// CHECK:         amk.matmul {{.*}} {beta = 1.000000e+00 : f64, transpose_a, transpose_b} : memref<4x64x32xf16>, memref<4x16x64xf16>, memref<4x32x16xf16>
func.func @batch(%a: memref<4x32x64xf16>, %b: memref<4x64x16xf16>, %c: memref<4x32x16xf16>,
                 %at: memref<4x64x32xf16>, %bt: memref<4x16x64xf16>) {
  linalg.batch_matmul ins(%a, %b : memref<4x32x64xf16>, memref<4x64x16xf16>) outs(%c : memref<4x32x16xf16>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%at, %bt : memref<4x64x32xf16>, memref<4x16x64xf16>) outs(%c : memref<4x32x16xf16>)
  return
}

// -----

// What AMK cannot take stays, with a warning that says why.
// CHECK-LABEL: func.func @not_imported
// CHECK-COUNT-3: linalg.matmul
func.func @not_imported(%t: tensor<8x8xf32>, %a: memref<8x8xi8>, %c: memref<8x8xi32>,
                        %v: memref<8xf32>, %b: memref<8x8xf32>, %cf: memref<8x8xf32>) -> tensor<8x8xf32> {
  // expected-warning @+1 {{not imported into AMK: operates on tensors; bufferize first (amk.matmul takes memrefs)}}
  %r = linalg.matmul ins(%t, %t : tensor<8x8xf32>, tensor<8x8xf32>) outs(%t : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-warning @+1 {{not imported into AMK: has element types amk.matmul does not take}}
  linalg.matmul ins(%a, %a : memref<8x8xi8>, memref<8x8xi8>) outs(%c : memref<8x8xi32>)
  // expected-warning @+1 {{not imported into AMK: has indexing maps other than a plain or transposed product (broadcasts are not supported)}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%v, %b : memref<8xf32>, memref<8x8xf32>) outs(%cf : memref<8x8xf32>)
  return %r : tensor<8x8xf32>
}

// -----

// Every linalg op no family takes stays, with a warning: a linalg.generic
// that computes a product, an elementwise add.
// CHECK-LABEL: func.func @generic_matmul
// CHECK:         linalg.generic
// CHECK:         linalg.add
func.func @generic_matmul(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  // expected-warning @+1 {{not imported into AMK: no AMK family takes 'linalg.generic'}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  // expected-warning @+1 {{not imported into AMK: no AMK family takes 'linalg.add'}}
  linalg.add ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// C also read as A: the imported product would race (and the fill must not
// fold into beta = 0 of a C that is an input): refused.
func.func @fill_c_read_as_a(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<64x64xf32>)
  // expected-error @+1 {{'amk.matmul' op writes operand #2, which may alias operand #0}}
  linalg.matmul ins(%c, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// A buffer over 1 TiB: the imported op fails its bound, at the linalg op.
func.func @over_1tib(%a: memref<1099511627776x64xf32>, %b: memref<64x64xf32>, %c: memref<1099511627776x64xf32>) {
  // expected-error @+1 {{'amk.matmul' op operand #0 of type 'memref<1099511627776x64xf32>' is larger than 1 TiB}}
  linalg.matmul ins(%a, %b : memref<1099511627776x64xf32>, memref<64x64xf32>) outs(%c : memref<1099511627776x64xf32>)
  return
}
