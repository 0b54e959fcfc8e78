// AMK's main example: two GEMMs to plan, verify and lower for one GPU.
//   amk-opt examples/gemm.mlir --amk-pipeline="target=h200 explain"
// One states the problem with amk.matmul; the other comes from another MLIR
// compiler as linalg.matmul (on buffers), which AMK imports.
module {
  // An LLM projection: bf16 activations times bf16 weights, bf16 out.
  func.func @mlp_up(%x: memref<2048x4096xbf16>, %w: memref<4096x14336xbf16>,
                    %y: memref<2048x14336xbf16>) {
    amk.matmul %x, %w into %y : memref<2048x4096xbf16>, memref<4096x14336xbf16>, memref<2048x14336xbf16>
    return
  }

  // A decode-sized fp32 product, any M (dynamic), as linalg writes it.
  func.func @decode(%a: memref<?x4096xf32>, %b: memref<4096x4096xf32>,
                    %c: memref<?x4096xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<?x4096xf32>)
    linalg.matmul ins(%a, %b : memref<?x4096xf32>, memref<4096x4096xf32>)
                  outs(%c : memref<?x4096xf32>)
    return
  }
}
