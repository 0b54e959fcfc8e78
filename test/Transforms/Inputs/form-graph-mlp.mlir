// The decode MLP of form-graph.mlir, alone: through the whole pipeline.
func.func @mlp(%x: memref<1x256xbf16>, %w1: memref<512x256xbf16>, %w2: memref<256x512xbf16>, %y: memref<1x256xbf16>) {
  %h = memref.alloc() : memref<1x512xbf16>
  amk.matmul %x, %w1 into %h {transpose_b, activation = #amk.activation<gelu>} : memref<1x256xbf16>, memref<512x256xbf16>, memref<1x512xbf16>
  amk.matmul %h, %w2 into %y {transpose_b} : memref<1x512xbf16>, memref<256x512xbf16>, memref<1x256xbf16>
  memref.dealloc %h : memref<1x512xbf16>
  return
}
