// RUN: amk-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// #amk.target: presets by name, overrides, fully custom targets, errors.

// CHECK: module attributes {amk.target = #amk.target<"a100">, t.b200 = #amk.target<"b200">, t.h100 = #amk.target<"h100">, t.l4 = #amk.target<"l4">, t.rtx4060ti = #amk.target<"rtx4060ti">, t.rtx5060ti = #amk.target<"rtx5060ti">}
module attributes {amk.target = #amk.target<"a100">, t.b200 = #amk.target<"b200">, t.h100 = #amk.target<"h100">, t.l4 = #amk.target<"l4">, t.rtx4060ti = #amk.target<"rtx4060ti">, t.rtx5060ti = #amk.target<"rtx5060ti">} {}

// -----

// An override equal to the preset disappears; others stay.
// CHECK: module attributes {amk.target = #amk.target<"h200", smem_per_block_optin_bytes = 101376>}
module attributes {amk.target = #amk.target<"h200", sm_count = 132, smem_per_block_optin_bytes = 101376>} {}

// -----

// A target that is not a preset gives every field, and prints them all.
// CHECK: module attributes {amk.target = #amk.target<"my-gpu", arch = "sm_86", sm_count = 84, clock_mhz = 1860, warp_size = 32, max_threads_per_block = 1024, max_threads_per_sm = 1536, max_blocks_per_sm = 16,
// CHECK-SAME: fp8_gflops = 0>}
module attributes {amk.target = #amk.target<"my-gpu", arch = "sm_86", sm_count = 84, clock_mhz = 1860, warp_size = 32,
    max_threads_per_block = 1024, max_threads_per_sm = 1536, max_blocks_per_sm = 16,
    max_block_dim_x = 1024, max_block_dim_y = 1024, max_block_dim_z = 64,
    max_grid_dim_x = 2147483647, max_grid_dim_y = 65535, max_grid_dim_z = 65535,
    regs_per_sm = 65536, regs_per_block = 65536, regs_per_thread = 255,
    smem_per_block_bytes = 49152, smem_per_block_optin_bytes = 101376, smem_per_sm_bytes = 102400,
    smem_reserved_per_block_bytes = 1024, l2_bytes = 6291456, hbm_gbps = 936,
    fp32_gflops = 35600, tf32_gflops = 35600, fp16_gflops = 71000, bf16_gflops = 71000, fp8_gflops = 0>} {}

// -----

// expected-error @+1 {{target 'my-gpu' is not a preset (a100, rtx4060ti, l4, h100, h200, b200, rtx5060ti) and does not give field 'arch'}}
module attributes {amk.target = #amk.target<"my-gpu", sm_count = 84>} {}

// -----

// expected-error @+1 {{unknown target field 'sm_cnt'}}
module attributes {amk.target = #amk.target<"h200", sm_cnt = 84>} {}

// -----

// expected-error @+1 {{target field 'sm_count' given twice}}
module attributes {amk.target = #amk.target<"h200", sm_count = 84, sm_count = 66>} {}

// -----

// expected-error @+1 {{invalid target 'h200': sm_count = 0 must be positive}}
module attributes {amk.target = #amk.target<"h200", sm_count = 0>} {}

// -----

// expected-error @+1 {{invalid target 'h200': smem_per_block_optin_bytes = 300000 exceeds smem_per_sm_bytes = 233472}}
module attributes {amk.target = #amk.target<"h200", smem_per_block_optin_bytes = 300000>} {}

// -----

// expected-error @+1 {{invalid target 'h200': arch 'gfx942' is not of the form sm_<version>[a|f]}}
module attributes {amk.target = #amk.target<"h200", arch = "gfx942">} {}

// -----

// expected-error @+1 {{invalid target 'h200': arch 'sm_60' is older than sm_70}}
module attributes {amk.target = #amk.target<"h200", arch = "sm_60">} {}

// -----

// Only archs of the table (lib/Target/Archs.cpp): LLVM would ignore an arch
// it does not know and the synthesizer would not know what it may use.
// expected-error @+1 {{invalid target 'h200': unknown arch 'sm_90b' (known: sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_101, sm_101a, sm_120, sm_120a)}}
module attributes {amk.target = #amk.target<"h200", arch = "sm_90b">} {}

// -----

// expected-error @+1 {{invalid target 'h200': unknown arch 'sm_99999'}}
module attributes {amk.target = #amk.target<"h200", arch = "sm_99999">} {}

// -----

// Known to LLVM, but it needs a newer PTX ISA than the lowering emits.
// expected-error @+1 {{invalid target 'h200': arch 'sm_121' is not supported yet: LLVM needs PTX ISA 8.8 for it, and AMK emits 8.7}}
module attributes {amk.target = #amk.target<"h200", arch = "sm_121">} {}

// -----

// An older arch AMK knows is accepted, with its own feature set.
// CHECK: module attributes {amk.target = #amk.target<"h200", arch = "sm_75">}
module attributes {amk.target = #amk.target<"h200", arch = "sm_75">} {}

// -----

// expected-error @+1 {{expected string}}
module attributes {amk.target = #amk.target<"h200", arch = 90>} {}
