// Input of test/Fuzz/corpus-replay.test: parses, and the lowering rejects it
// (TMA moves rows of a multiple of 16 bytes: a dynamic K cannot be shown
// one).
module attributes {amk.target = #amk.target<"h200">} {
  func.func @not_synthesized(%a: memref<128x?xbf16>, %b: memref<128x?xbf16>, %c: memref<128x128xf32>) {
    amk.kernel "k" config(#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], math = wgmma, inst = [64, 128, 16], stages = 3, vector = 8, threads = 256>) attributes {amk.verified} {
      amk.matmul %a, %b into %c {transpose_b} : memref<128x?xbf16>, memref<128x?xbf16>, memref<128x128xf32>
    }
    return
  }
}
