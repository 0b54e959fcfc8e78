// A module whose one kernel passes every check (verify-json.mlir).
module attributes {amk.target = #amk.target<"h200">} {
func.func @clean(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xf32>) {
  amk.kernel "fine" config(#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], math = mma_sync, inst = [16, 8, 16], stages = 2, vector = 8, threads = 128>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xf32>
  }
  return
}
}
