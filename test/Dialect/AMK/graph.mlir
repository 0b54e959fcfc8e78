// RUN: amk-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// amk.graph: steps wired through inputs, outputs and internal buffers;
// what the verifier accepts prints back as written, each defect of the
// wiring is an error at the step or buffer that has it.

// CHECK-LABEL: func.func @mlp
// CHECK: amk.graph ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<2x64xbf16>, memref<128x64xbf16>, memref<128xbf16>, memref<64x128xbf16>) outs(%{{.*}}, %{{.*}} : memref<2x128xbf16>, memref<2x64xf32>) {
// CHECK:   %[[H:.*]] = amk.graph_buffer : memref<2x128xbf16>
// CHECK:   amk.matmul %{{.*}}, %{{.*}} bias(%{{.*}}) into %[[H]] {activation = #amk.activation<silu>, transpose_b}
// CHECK:   amk.matmul %[[H]], %{{.*}} into %{{.*}} {alpha = 5.000000e-01 : f64, transpose_b}
// An output may also feed a later step.
// CHECK:   amk.matmul %{{.*}}, %{{.*}} into %{{.*}} {transpose_b}
func.func @mlp(%x: memref<2x64xbf16>, %w1: memref<128x64xbf16>, %b1: memref<128xbf16>, %w2: memref<64x128xbf16>,
               %h2: memref<2x128xbf16>, %y: memref<2x64xf32>) {
  amk.graph ins(%x, %w1, %b1, %w2 : memref<2x64xbf16>, memref<128x64xbf16>, memref<128xbf16>, memref<64x128xbf16>)
            outs(%h2, %y : memref<2x128xbf16>, memref<2x64xf32>) {
  ^bb0(%xa: memref<2x64xbf16>, %w1a: memref<128x64xbf16>, %b1a: memref<128xbf16>, %w2a: memref<64x128xbf16>,
       %h2a: memref<2x128xbf16>, %ya: memref<2x64xf32>):
    %h = amk.graph_buffer : memref<2x128xbf16>
    amk.matmul %xa, %w1a bias(%b1a) into %h {transpose_b, activation = #amk.activation<silu>}
      : memref<2x64xbf16>, memref<128x64xbf16>, memref<128xbf16>, memref<2x128xbf16>
    amk.matmul %h, %w2a into %ya {transpose_b, alpha = 0.5}
      : memref<2x128xbf16>, memref<64x128xbf16>, memref<2x64xf32>
    amk.matmul %xa, %w1a into %h2a {transpose_b}
      : memref<2x64xbf16>, memref<128x64xbf16>, memref<2x128xbf16>
  }
  return
}

// -----

func.func @reads_before_write(%x: memref<2x64xbf16>, %w: memref<64x64xbf16>, %y: memref<2x64xbf16>) {
  amk.graph ins(%x, %w : memref<2x64xbf16>, memref<64x64xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %wa: memref<64x64xbf16>, %ya: memref<2x64xbf16>):
    %h = amk.graph_buffer : memref<2x64xbf16>
    // expected-error @+1 {{reads A before any step writes it (steps run in order)}}
    amk.matmul %h, %wa into %ya {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
    amk.matmul %xa, %wa into %h {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
  }
  return
}

// -----

func.func @two_writers(%x: memref<2x64xbf16>, %w: memref<64x64xbf16>, %y: memref<2x64xbf16>) {
  amk.graph ins(%x, %w : memref<2x64xbf16>, memref<64x64xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %wa: memref<64x64xbf16>, %ya: memref<2x64xbf16>):
    // expected-note @+1 {{written first here}}
    amk.matmul %xa, %wa into %ya {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
    // expected-error @+1 {{writes a buffer an earlier step already wrote (each output and buffer has one writer)}}
    amk.matmul %xa, %wa into %ya {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
  }
  return
}

// -----

func.func @writes_input(%x: memref<2x64xbf16>, %w: memref<64x64xbf16>, %y: memref<2x64xbf16>) {
  amk.graph ins(%x, %w : memref<2x64xbf16>, memref<64x64xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %wa: memref<64x64xbf16>, %ya: memref<2x64xbf16>):
    amk.matmul %xa, %wa into %ya {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
    // expected-error @+1 {{writes a graph input (inputs are read-only)}}
    amk.matmul %ya, %wa into %xa {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
  }
  return
}

// -----

func.func @weights_from_a_step(%x: memref<64x64xbf16>, %w: memref<64x64xbf16>, %y: memref<64x64xbf16>) {
  amk.graph ins(%x, %w : memref<64x64xbf16>, memref<64x64xbf16>) outs(%y : memref<64x64xbf16>) {
  ^bb0(%xa: memref<64x64xbf16>, %wa: memref<64x64xbf16>, %ya: memref<64x64xbf16>):
    %h = amk.graph_buffer : memref<64x64xbf16>
    amk.matmul %xa, %wa into %h {transpose_b} : memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>
    // expected-error @+1 {{its weights must be a graph input (steps write outputs and buffers only)}}
    amk.matmul %xa, %h into %ya {transpose_b} : memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xbf16>
  }
  return
}

// -----

func.func @not_transposed(%x: memref<2x64xbf16>, %w: memref<64x64xbf16>, %y: memref<2x64xbf16>) {
  amk.graph ins(%x, %w : memref<2x64xbf16>, memref<64x64xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %wa: memref<64x64xbf16>, %ya: memref<2x64xbf16>):
    // expected-error @+1 {{cannot be a graph step: a step takes A as [M, K] and its weights as [N, K] (transpose_b, not transpose_a)}}
    amk.matmul %xa, %wa into %ya : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
  }
  return
}

// -----

func.func @beta(%x: memref<2x64xbf16>, %w: memref<64x64xbf16>, %y: memref<2x64xbf16>) {
  amk.graph ins(%x, %w : memref<2x64xbf16>, memref<64x64xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %wa: memref<64x64xbf16>, %ya: memref<2x64xbf16>):
    // expected-error @+1 {{cannot be a graph step: beta reads the old output, and a graph's outputs are only written}}
    amk.matmul %xa, %wa into %ya {transpose_b, beta = 1.0} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
  }
  return
}

// -----

func.func @dynamic(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x64xbf16>) {
  amk.graph ins(%x, %w : memref<?x64xbf16>, memref<64x64xbf16>) outs(%y : memref<?x64xbf16>) {
  ^bb0(%xa: memref<?x64xbf16>, %wa: memref<64x64xbf16>, %ya: memref<?x64xbf16>):
    // expected-error @+1 {{cannot be a graph step: graph sizes are static, got 'memref<?x64xbf16>'}}
    amk.matmul %xa, %wa into %ya {transpose_b} : memref<?x64xbf16>, memref<64x64xbf16>, memref<?x64xbf16>
  }
  return
}

// -----

func.func @unknown_step(%x: memref<2x64xbf16>, %y: memref<2x64xbf16>) {
  amk.graph ins(%x : memref<2x64xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %ya: memref<2x64xbf16>):
    // expected-error @+1 {{'amk.row_reduce' op cannot be a step of amk.graph (its steps are amk.matmul; amk.graph_buffer declares buffers)}}
    amk.row_reduce %xa into %ya {kind = #amk.row_op<softmax>} : memref<2x64xbf16>, memref<2x64xbf16>
  }
  return
}

// -----

func.func @unwritten_output(%x: memref<2x64xbf16>, %w: memref<64x64xbf16>, %y: memref<2x64xbf16>, %z: memref<2x64xbf16>) {
  // expected-error @+1 {{output #1 is never written}}
  amk.graph ins(%x, %w : memref<2x64xbf16>, memref<64x64xbf16>) outs(%y, %z : memref<2x64xbf16>, memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %wa: memref<64x64xbf16>, %ya: memref<2x64xbf16>, %za: memref<2x64xbf16>):
    amk.matmul %xa, %wa into %ya {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
  }
  return
}

// -----

func.func @unread_buffer(%x: memref<2x64xbf16>, %w: memref<64x64xbf16>, %y: memref<2x64xbf16>) {
  amk.graph ins(%x, %w : memref<2x64xbf16>, memref<64x64xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %wa: memref<64x64xbf16>, %ya: memref<2x64xbf16>):
    // expected-error @+1 {{is written but never read (make it an output of the graph)}}
    %h = amk.graph_buffer : memref<2x64xbf16>
    amk.matmul %xa, %wa into %h {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
    amk.matmul %xa, %wa into %ya {transpose_b} : memref<2x64xbf16>, memref<64x64xbf16>, memref<2x64xbf16>
  }
  return
}

// -----

func.func @no_steps(%x: memref<2x64xbf16>, %y: memref<2x64xbf16>) {
  // expected-error @+1 {{has no steps (amk.matmul ops in its body)}}
  amk.graph ins(%x : memref<2x64xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %ya: memref<2x64xbf16>):
  }
  return
}

// -----

func.func @arg_mismatch(%x: memref<2x64xbf16>, %w: memref<64x64xbf16>, %y: memref<2x64xbf16>) {
  // expected-error @+1 {{body argument #1 is 'memref<64x32xbf16>' but operand #1 is 'memref<64x64xbf16>'}}
  amk.graph ins(%x, %w : memref<2x64xbf16>, memref<64x64xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %wa: memref<64x32xbf16>, %ya: memref<2x64xbf16>):
  }
  return
}

// -----

func.func @strided_buffer(%x: memref<2x64xbf16>, %y: memref<2x64xbf16>) {
  amk.graph ins(%x : memref<2x64xbf16>) outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %ya: memref<2x64xbf16>):
    // expected-error @+1 {{must be a contiguous row-major buffer in global memory (identity layout, no memory space), got 'memref<2x64xbf16, 3>'}}
    %h = amk.graph_buffer : memref<2x64xbf16, 3>
  }
  return
}

// -----

// expected-error @+1 {{unroll must be in [1, 16], got 17}}
func.func private @bad_config() attributes {c = #amk.graph_config<blocks = 132, threads = 256, rows_per_warp = 1, unroll = 17>}

// -----

// expected-error @+1 {{math must be simt or mma_sync, got wgmma}}
func.func private @bad_math() attributes {c = #amk.graph_config<blocks = 132, threads = 256, rows_per_warp = 1, unroll = 4, math = wgmma>}

// -----

// expected-error @+1 {{blocks must be in [1, 65536], got 0}}
func.func private @no_blocks() attributes {c = #amk.graph_config<blocks = 0, threads = 256, rows_per_warp = 1, unroll = 4>}
