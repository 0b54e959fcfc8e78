module {
  func.func @fp32_256x256x256(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
    amk.matmul %a, %b into %c : memref<256x256xf32>, memref<256x256xf32>, memref<256x256xf32>
    return
  }
  func.func @fp32_512x512x512(%a: memref<512x512xf32>, %b: memref<512x512xf32>, %c: memref<512x512xf32>) {
    amk.matmul %a, %b into %c : memref<512x512xf32>, memref<512x512xf32>, memref<512x512xf32>
    return
  }
  func.func @fp32_1024x1024x1024(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<1024x1024xf32>) {
    amk.matmul %a, %b into %c : memref<1024x1024xf32>, memref<1024x1024xf32>, memref<1024x1024xf32>
    return
  }
  func.func @fp32_2048x2048x2048(%a: memref<2048x2048xf32>, %b: memref<2048x2048xf32>, %c: memref<2048x2048xf32>) {
    amk.matmul %a, %b into %c : memref<2048x2048xf32>, memref<2048x2048xf32>, memref<2048x2048xf32>
    return
  }
  func.func @fp32_4096x4096x4096(%a: memref<4096x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<4096x4096xf32>) {
    amk.matmul %a, %b into %c : memref<4096x4096xf32>, memref<4096x4096xf32>, memref<4096x4096xf32>
    return
  }
  func.func @fp32_1000x1000x999(%a: memref<1000x999xf32>, %b: memref<999x1000xf32>, %c: memref<1000x1000xf32>) {
    amk.matmul %a, %b into %c : memref<1000x999xf32>, memref<999x1000xf32>, memref<1000x1000xf32>
    return
  }
  func.func @fp32_1x4096x4096(%a: memref<1x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<1x4096xf32>) {
    amk.matmul %a, %b into %c : memref<1x4096xf32>, memref<4096x4096xf32>, memref<1x4096xf32>
    return
  }
  func.func @fp32_16x4096x4096(%a: memref<16x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<16x4096xf32>) {
    amk.matmul %a, %b into %c : memref<16x4096xf32>, memref<4096x4096xf32>, memref<16x4096xf32>
    return
  }
  func.func @fp32_128x4096x4096(%a: memref<128x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<128x4096xf32>) {
    amk.matmul %a, %b into %c : memref<128x4096xf32>, memref<4096x4096xf32>, memref<128x4096xf32>
    return
  }
  func.func @tf32_256x256x256(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<256x256xf32>, memref<256x256xf32>, memref<256x256xf32>
    return
  }
  func.func @tf32_512x512x512(%a: memref<512x512xf32>, %b: memref<512x512xf32>, %c: memref<512x512xf32>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<512x512xf32>, memref<512x512xf32>, memref<512x512xf32>
    return
  }
  func.func @tf32_1024x1024x1024(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<1024x1024xf32>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<1024x1024xf32>, memref<1024x1024xf32>, memref<1024x1024xf32>
    return
  }
  func.func @tf32_2048x2048x2048(%a: memref<2048x2048xf32>, %b: memref<2048x2048xf32>, %c: memref<2048x2048xf32>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<2048x2048xf32>, memref<2048x2048xf32>, memref<2048x2048xf32>
    return
  }
  func.func @tf32_4096x4096x4096(%a: memref<4096x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<4096x4096xf32>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<4096x4096xf32>, memref<4096x4096xf32>, memref<4096x4096xf32>
    return
  }
  func.func @tf32_1000x1000x999(%a: memref<1000x999xf32>, %b: memref<999x1000xf32>, %c: memref<1000x1000xf32>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<1000x999xf32>, memref<999x1000xf32>, memref<1000x1000xf32>
    return
  }
  func.func @tf32_1x4096x4096(%a: memref<1x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<1x4096xf32>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<1x4096xf32>, memref<4096x4096xf32>, memref<1x4096xf32>
    return
  }
  func.func @tf32_16x4096x4096(%a: memref<16x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<16x4096xf32>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<16x4096xf32>, memref<4096x4096xf32>, memref<16x4096xf32>
    return
  }
  func.func @tf32_128x4096x4096(%a: memref<128x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<128x4096xf32>) {
    amk.matmul %a, %b into %c {precision = #amk.precision<tf32>} : memref<128x4096xf32>, memref<4096x4096xf32>, memref<128x4096xf32>
    return
  }
  func.func @fp16_256x256x256(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf16>) {
    amk.matmul %a, %b into %c : memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf16>
    return
  }
  func.func @fp16_512x512x512(%a: memref<512x512xf16>, %b: memref<512x512xf16>, %c: memref<512x512xf16>) {
    amk.matmul %a, %b into %c : memref<512x512xf16>, memref<512x512xf16>, memref<512x512xf16>
    return
  }
  func.func @fp16_1024x1024x1024(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>) {
    amk.matmul %a, %b into %c : memref<1024x1024xf16>, memref<1024x1024xf16>, memref<1024x1024xf16>
    return
  }
  func.func @fp16_2048x2048x2048(%a: memref<2048x2048xf16>, %b: memref<2048x2048xf16>, %c: memref<2048x2048xf16>) {
    amk.matmul %a, %b into %c : memref<2048x2048xf16>, memref<2048x2048xf16>, memref<2048x2048xf16>
    return
  }
  func.func @fp16_4096x4096x4096(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf16>) {
    amk.matmul %a, %b into %c : memref<4096x4096xf16>, memref<4096x4096xf16>, memref<4096x4096xf16>
    return
  }
  func.func @fp16_8192x8192x8192(%a: memref<8192x8192xf16>, %b: memref<8192x8192xf16>, %c: memref<8192x8192xf16>) {
    amk.matmul %a, %b into %c : memref<8192x8192xf16>, memref<8192x8192xf16>, memref<8192x8192xf16>
    return
  }
  func.func @fp16_1000x1000x999(%a: memref<1000x999xf16>, %b: memref<999x1000xf16>, %c: memref<1000x1000xf16>) {
    amk.matmul %a, %b into %c : memref<1000x999xf16>, memref<999x1000xf16>, memref<1000x1000xf16>
    return
  }
  func.func @fp16_4097x4097x4097(%a: memref<4097x4097xf16>, %b: memref<4097x4097xf16>, %c: memref<4097x4097xf16>) {
    amk.matmul %a, %b into %c : memref<4097x4097xf16>, memref<4097x4097xf16>, memref<4097x4097xf16>
    return
  }
  func.func @fp16_1x4096x4096(%a: memref<1x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1x4096xf16>) {
    amk.matmul %a, %b into %c : memref<1x4096xf16>, memref<4096x4096xf16>, memref<1x4096xf16>
    return
  }
  func.func @fp16_16x4096x4096(%a: memref<16x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<16x4096xf16>) {
    amk.matmul %a, %b into %c : memref<16x4096xf16>, memref<4096x4096xf16>, memref<16x4096xf16>
    return
  }
  func.func @fp16_128x4096x4096(%a: memref<128x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<128x4096xf16>) {
    amk.matmul %a, %b into %c : memref<128x4096xf16>, memref<4096x4096xf16>, memref<128x4096xf16>
    return
  }
  func.func @fp16_2048x14336x4096(%a: memref<2048x4096xf16>, %b: memref<4096x14336xf16>, %c: memref<2048x14336xf16>) {
    amk.matmul %a, %b into %c : memref<2048x4096xf16>, memref<4096x14336xf16>, memref<2048x14336xf16>
    return
  }
  func.func @fp16_2048x4096x14336(%a: memref<2048x14336xf16>, %b: memref<14336x4096xf16>, %c: memref<2048x4096xf16>) {
    amk.matmul %a, %b into %c : memref<2048x14336xf16>, memref<14336x4096xf16>, memref<2048x4096xf16>
    return
  }
  func.func @fp16_8192x6144x4096(%a: memref<8192x4096xf16>, %b: memref<4096x6144xf16>, %c: memref<8192x6144xf16>) {
    amk.matmul %a, %b into %c : memref<8192x4096xf16>, memref<4096x6144xf16>, memref<8192x6144xf16>
    return
  }
  func.func @bf16_256x256x256(%a: memref<256x256xbf16>, %b: memref<256x256xbf16>, %c: memref<256x256xbf16>) {
    amk.matmul %a, %b into %c : memref<256x256xbf16>, memref<256x256xbf16>, memref<256x256xbf16>
    return
  }
  func.func @bf16_512x512x512(%a: memref<512x512xbf16>, %b: memref<512x512xbf16>, %c: memref<512x512xbf16>) {
    amk.matmul %a, %b into %c : memref<512x512xbf16>, memref<512x512xbf16>, memref<512x512xbf16>
    return
  }
  func.func @bf16_1024x1024x1024(%a: memref<1024x1024xbf16>, %b: memref<1024x1024xbf16>, %c: memref<1024x1024xbf16>) {
    amk.matmul %a, %b into %c : memref<1024x1024xbf16>, memref<1024x1024xbf16>, memref<1024x1024xbf16>
    return
  }
  func.func @bf16_2048x2048x2048(%a: memref<2048x2048xbf16>, %b: memref<2048x2048xbf16>, %c: memref<2048x2048xbf16>) {
    amk.matmul %a, %b into %c : memref<2048x2048xbf16>, memref<2048x2048xbf16>, memref<2048x2048xbf16>
    return
  }
  func.func @bf16_4096x4096x4096(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xbf16>) {
    amk.matmul %a, %b into %c : memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xbf16>
    return
  }
  func.func @bf16_8192x8192x8192(%a: memref<8192x8192xbf16>, %b: memref<8192x8192xbf16>, %c: memref<8192x8192xbf16>) {
    amk.matmul %a, %b into %c : memref<8192x8192xbf16>, memref<8192x8192xbf16>, memref<8192x8192xbf16>
    return
  }
  func.func @bf16_1000x1000x999(%a: memref<1000x999xbf16>, %b: memref<999x1000xbf16>, %c: memref<1000x1000xbf16>) {
    amk.matmul %a, %b into %c : memref<1000x999xbf16>, memref<999x1000xbf16>, memref<1000x1000xbf16>
    return
  }
  func.func @bf16_4097x4097x4097(%a: memref<4097x4097xbf16>, %b: memref<4097x4097xbf16>, %c: memref<4097x4097xbf16>) {
    amk.matmul %a, %b into %c : memref<4097x4097xbf16>, memref<4097x4097xbf16>, memref<4097x4097xbf16>
    return
  }
  func.func @bf16_1x4096x4096(%a: memref<1x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<1x4096xbf16>) {
    amk.matmul %a, %b into %c : memref<1x4096xbf16>, memref<4096x4096xbf16>, memref<1x4096xbf16>
    return
  }
  func.func @bf16_16x4096x4096(%a: memref<16x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<16x4096xbf16>) {
    amk.matmul %a, %b into %c : memref<16x4096xbf16>, memref<4096x4096xbf16>, memref<16x4096xbf16>
    return
  }
  func.func @bf16_128x4096x4096(%a: memref<128x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<128x4096xbf16>) {
    amk.matmul %a, %b into %c : memref<128x4096xbf16>, memref<4096x4096xbf16>, memref<128x4096xbf16>
    return
  }
  func.func @bf16_2048x14336x4096(%a: memref<2048x4096xbf16>, %b: memref<4096x14336xbf16>, %c: memref<2048x14336xbf16>) {
    amk.matmul %a, %b into %c : memref<2048x4096xbf16>, memref<4096x14336xbf16>, memref<2048x14336xbf16>
    return
  }
  func.func @bf16_2048x4096x14336(%a: memref<2048x14336xbf16>, %b: memref<14336x4096xbf16>, %c: memref<2048x4096xbf16>) {
    amk.matmul %a, %b into %c : memref<2048x14336xbf16>, memref<14336x4096xbf16>, memref<2048x4096xbf16>
    return
  }
  func.func @bf16_8192x6144x4096(%a: memref<8192x4096xbf16>, %b: memref<4096x6144xbf16>, %c: memref<8192x6144xbf16>) {
    amk.matmul %a, %b into %c : memref<8192x4096xbf16>, memref<4096x6144xbf16>, memref<8192x6144xbf16>
    return
  }
}
