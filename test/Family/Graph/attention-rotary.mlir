// RUN: amk-opt %s --split-input-file --amk-verify --amk-lower=stop-at=gpu | FileCheck %s
// RUN: amk-opt %s --split-input-file --amk-verify --amk-lower=stop-at=gpu | amk-opt --split-input-file --amk-verify -o /dev/null
// Decode attention with rotary embeddings (rotate-half, as Llama): q and
// the new keys are rotated at the new token's position n_m by the cos and
// sin tables' row n_m: x * cos + rotate_half(x) * sin. A lane's partner
// run (D/2 away) is on the lane lanes / 2 away, or within the run when a
// head is one run; an appending attention writes the rotated keys.

// f32 heads of 64: runs of 4 on 16 lanes, the partner 8 lanes away; the
// lengths are read first (the tables' row), each query run is rotated
// before its scale.
// CHECK-LABEL: gpu.func @k_rotary_f32(
// CHECK-SAME:    %[[Q:[^:]*]]: memref<3x256xf32>, %{{[^:]*}}: memref<3x128xf32>, %{{[^:]*}}: memref<3x128xf32>, %{{[^:]*}}: memref<3x5x2x64xf32>, %{{[^:]*}}: memref<3x5x2x64xf32>, %[[LEN:[^:]*]]: memref<3xi32>, %[[COS:[^:]*]]: memref<6x64xf32>, %[[SIN:[^:]*]]: memref<6x64xf32>
// CHECK:         %[[PART:.*]] = arith.remui %{{.*}}, %c16
// CHECK:         %[[COL:.*]] = arith.muli %[[PART]], %c4
// CHECK:           memref.load %[[LEN]]
// CHECK:           %[[N:.*]] = arith.index_castui
// CHECK:           vector.load %[[Q]]
// CHECK-COUNT-4:   gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32
// CHECK-NEXT:      vector.load %[[COS]][%[[N]], %[[COL]]] {alignment = 16 : i64} : memref<6x64xf32>, vector<4xf32>
// CHECK:           vector.load %[[SIN]][%[[N]], %[[COL]]] {alignment = 16 : i64} : memref<6x64xf32>, vector<4xf32>
// CHECK:           %[[NEG:.*]] = arith.negf %shuffleResult
// CHECK-NEXT:      arith.select %{{.*}}, %[[NEG]], %shuffleResult
// CHECK:           math.fma
// CHECK:           arith.mulf %{{.*}}, %cst

module attributes {amk.target = #amk.target<"h200">} {
func.func @rotary_f32(%q: memref<3x256xf32>, %k: memref<3x128xf32>, %v: memref<3x128xf32>, %kc: memref<3x5x2x64xf32>, %vc: memref<3x5x2x64xf32>, %len: memref<3xi32>, %cos: memref<6x64xf32>, %sin: memref<6x64xf32>, %o: memref<3x256xf32>) {
  amk.kernel "k_rotary_f32" config(#amk.graph_config<blocks = 4, threads = 64, rows_per_warp = 1, unroll = 1>) {
  amk.graph ins(%q, %k, %v, %kc, %vc, %len, %cos, %sin : memref<3x256xf32>, memref<3x128xf32>, memref<3x128xf32>, memref<3x5x2x64xf32>, memref<3x5x2x64xf32>, memref<3xi32>, memref<6x64xf32>, memref<6x64xf32>) outs(%o : memref<3x256xf32>) {
  ^bb0(%qa: memref<3x256xf32>, %ka: memref<3x128xf32>, %va: memref<3x128xf32>, %kca: memref<3x5x2x64xf32>, %vca: memref<3x5x2x64xf32>, %lena: memref<3xi32>, %cosa: memref<6x64xf32>, %sina: memref<6x64xf32>, %oa: memref<3x256xf32>):
    amk.decode_attention %qa, %ka, %va cache(%kca, %vca) lengths(%lena) rotary(%cosa, %sina) into %oa {heads = 4, kv_heads = 2} : memref<3x256xf32>, memref<3x128xf32>, memref<3x128xf32>, memref<3x5x2x64xf32>, memref<3x5x2x64xf32>, memref<3xi32>, memref<6x64xf32>, memref<6x64xf32>, memref<3x256xf32>
  }
  }
  return
}
}

// -----

// bf16 heads of 16 on 2 lanes, appending: the kernel's end writes the
// rotated new keys (each run's partner loaded from D/2 on, wrapping within
// the head, then narrowed to bf16) and the values as they are.
// CHECK-LABEL: gpu.func @k_rotary_append(
// CHECK:         scf.if
// CHECK:           %[[LOW:.*]] = arith.cmpi ult, %[[COL:.*]], %c8
// CHECK-NEXT:      %[[UP:.*]] = arith.addi %[[COL]], %c8
// CHECK-NEXT:      %[[DOWN:.*]] = arith.subi %[[COL]], %c8
// CHECK-NEXT:      %[[OTHER:.*]] = arith.select %[[LOW]], %[[UP]], %[[DOWN]]
// CHECK:           arith.negf
// CHECK:           math.fma
// CHECK:           %[[ROTATED:.*]] = vector.from_elements {{.*}} : vector<8xbf16>
// CHECK-NEXT:      vector.store %[[ROTATED]], %{{.*}} : memref<2x9x2x16xbf16>, vector<8xbf16>
// CHECK-NEXT:      %[[VALUES:.*]] = vector.load
// CHECK-NEXT:      vector.store %[[VALUES]]
// CHECK:         gpu.return

module attributes {amk.target = #amk.target<"h200">} {
func.func @rotary_append(%q: memref<2x64xbf16>, %k: memref<2x32xbf16>, %v: memref<2x32xbf16>, %len: memref<2xi32>, %cos: memref<10x16xf32>, %sin: memref<10x16xf32>, %o: memref<2x64xbf16>, %kc: memref<2x9x2x16xbf16>, %vc: memref<2x9x2x16xbf16>) {
  amk.kernel "k_rotary_append" config(#amk.graph_config<blocks = 4, threads = 64, rows_per_warp = 1, unroll = 1>) {
  amk.graph ins(%q, %k, %v, %len, %cos, %sin : memref<2x64xbf16>, memref<2x32xbf16>, memref<2x32xbf16>, memref<2xi32>, memref<10x16xf32>, memref<10x16xf32>) outs(%o, %kc, %vc : memref<2x64xbf16>, memref<2x9x2x16xbf16>, memref<2x9x2x16xbf16>) {
  ^bb0(%qa: memref<2x64xbf16>, %ka: memref<2x32xbf16>, %va: memref<2x32xbf16>, %lena: memref<2xi32>, %cosa: memref<10x16xf32>, %sina: memref<10x16xf32>, %oa: memref<2x64xbf16>, %kca: memref<2x9x2x16xbf16>, %vca: memref<2x9x2x16xbf16>):
    amk.decode_attention %qa, %ka, %va cache(%kca, %vca) lengths(%lena) rotary(%cosa, %sina) into %oa {heads = 4, kv_heads = 2, append} : memref<2x64xbf16>, memref<2x32xbf16>, memref<2x32xbf16>, memref<2x9x2x16xbf16>, memref<2x9x2x16xbf16>, memref<2xi32>, memref<10x16xf32>, memref<10x16xf32>, memref<2x64xbf16>
  }
  }
  return
}
}

// -----

// bf16 heads of 8: one run a head on one lane; the partner of element e is
// element (e + 4) % 8 of the same run, no shuffle.
// CHECK-LABEL: gpu.func @k_rotary_one_lane(
// CHECK-NOT:     gpu.shuffle  xor %{{.*}}, %c0_i32
// CHECK:         arith.negf
// CHECK:         gpu.return

module attributes {amk.target = #amk.target<"h200">} {
func.func @rotary_one_lane(%q: memref<2x32xbf16>, %k: memref<2x16xbf16>, %v: memref<2x16xbf16>, %len: memref<2xi32>, %cos: memref<9x8xf32>, %sin: memref<9x8xf32>, %o: memref<2x32xbf16>, %kc: memref<2x8x2x8xbf16>, %vc: memref<2x8x2x8xbf16>) {
  amk.kernel "k_rotary_one_lane" config(#amk.graph_config<blocks = 4, threads = 64, rows_per_warp = 1, unroll = 1>) {
  amk.graph ins(%q, %k, %v, %len, %cos, %sin : memref<2x32xbf16>, memref<2x16xbf16>, memref<2x16xbf16>, memref<2xi32>, memref<9x8xf32>, memref<9x8xf32>) outs(%o, %kc, %vc : memref<2x32xbf16>, memref<2x8x2x8xbf16>, memref<2x8x2x8xbf16>) {
  ^bb0(%qa: memref<2x32xbf16>, %ka: memref<2x16xbf16>, %va: memref<2x16xbf16>, %lena: memref<2xi32>, %cosa: memref<9x8xf32>, %sina: memref<9x8xf32>, %oa: memref<2x32xbf16>, %kca: memref<2x8x2x8xbf16>, %vca: memref<2x8x2x8xbf16>):
    amk.decode_attention %qa, %ka, %va cache(%kca, %vca) lengths(%lena) rotary(%cosa, %sina) into %oa {heads = 4, kv_heads = 2, append} : memref<2x32xbf16>, memref<2x16xbf16>, memref<2x16xbf16>, memref<2x8x2x8xbf16>, memref<2x8x2x8xbf16>, memref<2xi32>, memref<9x8xf32>, memref<9x8xf32>, memref<2x32xbf16>
  }
  }
  return
}
}
