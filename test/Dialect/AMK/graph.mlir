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
    // expected-error @+1 {{reads an activation before any step writes it (steps run in order)}}
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
    // expected-error @+1 {{'linalg.copy' op cannot be a step of amk.graph (its steps are amk.matmul, amk.row_reduce, amk.decode_attention and the elementwise linalg.add, sub, mul, div, max and min; amk.graph_buffer declares buffers)}}
    linalg.copy ins(%xa : memref<2x64xbf16>) outs(%ya : memref<2x64xbf16>)
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
  // expected-error @+1 {{has no steps (amk.matmul, amk.row_reduce or elementwise linalg ops in its body)}}
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

// -----

// A Llama-style MLP block: RMSNorm, gate (SiLU) and up products, their
// product, the down product and the residual add, all steps of one graph.
// CHECK-LABEL: func.func @llama_block
// CHECK:   %[[N:.*]] = amk.graph_buffer : memref<2x64xbf16>
// CHECK:   amk.row_reduce %{{.*}} weight(%{{.*}}) into %[[N]] {eps = 9.9999999999999995E-7 : f64, kind = #amk.row_op<rms_norm>}
// CHECK:   amk.matmul %[[N]], %{{.*}} into %[[G:.*]] {activation = #amk.activation<silu>, transpose_b}
// CHECK:   amk.matmul %[[N]], %{{.*}} into %[[U:.*]] {transpose_b}
// CHECK:   linalg.mul ins(%[[G]], %[[U]] : memref<2x128xbf16>, memref<2x128xbf16>) outs(%[[H:.*]] : memref<2x128xbf16>)
// CHECK:   amk.matmul %[[H]], %{{.*}} into %[[D:.*]] {transpose_b}
// CHECK:   linalg.add ins(%{{.*}}, %[[D]] : memref<2x64xbf16>, memref<2x64xbf16>) outs(%{{.*}} : memref<2x64xbf16>)
func.func @llama_block(%x: memref<2x64xbf16>, %g: memref<64xbf16>, %wg: memref<128x64xbf16>, %wu: memref<128x64xbf16>,
                       %wd: memref<64x128xbf16>, %y: memref<2x64xbf16>) {
  amk.graph ins(%x, %g, %wg, %wu, %wd : memref<2x64xbf16>, memref<64xbf16>, memref<128x64xbf16>, memref<128x64xbf16>, memref<64x128xbf16>)
            outs(%y : memref<2x64xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %ga: memref<64xbf16>, %wga: memref<128x64xbf16>, %wua: memref<128x64xbf16>,
       %wda: memref<64x128xbf16>, %ya: memref<2x64xbf16>):
    %n = amk.graph_buffer : memref<2x64xbf16>
    %gate = amk.graph_buffer : memref<2x128xbf16>
    %up = amk.graph_buffer : memref<2x128xbf16>
    %h = amk.graph_buffer : memref<2x128xbf16>
    %down = amk.graph_buffer : memref<2x64xbf16>
    amk.row_reduce %xa weight(%ga) into %n {kind = #amk.row_op<rms_norm>, eps = 1.0e-6}
      : memref<2x64xbf16>, memref<64xbf16>, memref<2x64xbf16>
    amk.matmul %n, %wga into %gate {transpose_b, activation = #amk.activation<silu>}
      : memref<2x64xbf16>, memref<128x64xbf16>, memref<2x128xbf16>
    amk.matmul %n, %wua into %up {transpose_b} : memref<2x64xbf16>, memref<128x64xbf16>, memref<2x128xbf16>
    linalg.mul ins(%gate, %up : memref<2x128xbf16>, memref<2x128xbf16>) outs(%h : memref<2x128xbf16>)
    amk.matmul %h, %wda into %down {transpose_b} : memref<2x128xbf16>, memref<64x128xbf16>, memref<2x64xbf16>
    linalg.add ins(%xa, %down : memref<2x64xbf16>, memref<2x64xbf16>) outs(%ya : memref<2x64xbf16>)
  }
  return
}

// -----

func.func @row_reduction(%x: memref<2x64xbf16>, %y: memref<2xbf16>) {
  amk.graph ins(%x : memref<2x64xbf16>) outs(%y : memref<2xbf16>) {
  ^bb0(%xa: memref<2x64xbf16>, %ya: memref<2xbf16>):
    // expected-error @+1 {{cannot be a graph step: graph row steps are softmax, rms_norm and layer_norm (y has x's shape), got sum}}
    amk.row_reduce %xa into %ya {kind = #amk.row_op<sum>} : memref<2x64xbf16>, memref<2xbf16>
  }
  return
}

// -----

func.func @batched_row(%x: memref<3x2x64xf32>, %y: memref<3x2x64xf32>) {
  amk.graph ins(%x : memref<3x2x64xf32>) outs(%y : memref<3x2x64xf32>) {
  ^bb0(%xa: memref<3x2x64xf32>, %ya: memref<3x2x64xf32>):
    // expected-error @+1 {{cannot be a graph step: graph steps are not batched}}
    amk.row_reduce %xa into %ya {kind = #amk.row_op<softmax>} : memref<3x2x64xf32>, memref<3x2x64xf32>
  }
  return
}

// -----

func.func @norm_weight_from_a_step(%x: memref<2x64xf32>, %y: memref<2x64xf32>) {
  amk.graph ins(%x : memref<2x64xf32>) outs(%y : memref<2x64xf32>) {
  ^bb0(%xa: memref<2x64xf32>, %ya: memref<2x64xf32>):
    %w = amk.graph_buffer : memref<64xf32>
    // expected-error @+1 {{its weight must be a graph input (steps write outputs and buffers only)}}
    amk.row_reduce %xa weight(%w) into %ya {kind = #amk.row_op<rms_norm>} : memref<2x64xf32>, memref<64xf32>, memref<2x64xf32>
  }
  return
}

// -----

func.func @elementwise_rank(%x: memref<128xf32>, %y: memref<128xf32>) {
  amk.graph ins(%x : memref<128xf32>) outs(%y : memref<128xf32>) {
  ^bb0(%xa: memref<128xf32>, %ya: memref<128xf32>):
    // expected-error @+1 {{cannot be a graph step: elementwise steps work on [M, N] activations, got 'memref<128xf32>'}}
    linalg.max ins(%xa, %xa : memref<128xf32>, memref<128xf32>) outs(%ya : memref<128xf32>)
  }
  return
}

// -----

func.func @elementwise_reads_unwritten(%x: memref<2x64xf32>, %y: memref<2x64xf32>) {
  amk.graph ins(%x : memref<2x64xf32>) outs(%y : memref<2x64xf32>) {
  ^bb0(%xa: memref<2x64xf32>, %ya: memref<2x64xf32>):
    %h = amk.graph_buffer : memref<2x64xf32>
    // expected-error @+1 {{reads an activation before any step writes it (steps run in order)}}
    linalg.sub ins(%xa, %h : memref<2x64xf32>, memref<2x64xf32>) outs(%ya : memref<2x64xf32>)
    linalg.div ins(%xa, %xa : memref<2x64xf32>, memref<2x64xf32>) outs(%h : memref<2x64xf32>)
  }
  return
}

// -----

// expected-error @+1 {{stages (a TMA ring of the weights) needs math = mma_sync}}
func.func private @ring_simt() attributes {c = #amk.graph_config<blocks = 132, threads = 256, rows_per_warp = 1, unroll = 1, stages = 3>}

// -----

// expected-error @+1 {{stages must be 0 (direct loads) or in [2, 8], got 1}}
func.func private @one_stage() attributes {c = #amk.graph_config<blocks = 132, threads = 256, rows_per_warp = 1, unroll = 1, math = mma_sync, stages = 1>}

// -----

// expected-error @+1 {{warp_staged (weight rows loaded whole and transposed by shuffles) needs math = mma_sync and no stages}}
func.func private @staged_simt() attributes {c = #amk.graph_config<blocks = 132, threads = 256, rows_per_warp = 1, unroll = 1, warp_staged = true>}

// -----

// expected-error @+1 {{warp_staged (weight rows loaded whole and transposed by shuffles) needs math = mma_sync and no stages}}
func.func private @staged_ring() attributes {c = #amk.graph_config<blocks = 132, threads = 256, rows_per_warp = 1, unroll = 1, math = mma_sync, stages = 3, warp_staged = true>}
