// RUN: amk-opt %s --amk-target=h200 | FileCheck %s --check-prefix=H200
// RUN: amk-opt %s --amk-target="target=rtx5060ti" | FileCheck %s --check-prefix=LONG
// RUN: amk-opt %s --pass-pipeline="builtin.module(amk-target{target=l4})" | FileCheck %s --check-prefix=PIPE
// RUN: amk-opt %s --amk-target=%S/Inputs/h200-device.json | FileCheck %s --check-prefix=DEVICE
// RUN: amk-opt %s --amk-target=%S/Inputs/half-h100.json | FileCheck %s --check-prefix=BASE
// A later --amk-target replaces an earlier one.
// RUN: amk-opt %s --amk-target=a100 --amk-target=b200 | FileCheck %s --check-prefix=LAST

// H200: module attributes {amk.target = #amk.target<"h200">}
// LONG: module attributes {amk.target = #amk.target<"rtx5060ti">}
// PIPE: module attributes {amk.target = #amk.target<"l4">}
// The GPU's own description: its name, and the rates it derives from its clock.
// DEVICE: module attributes {amk.target = #amk.target<"NVIDIA H200", arch = "sm_90a", sm_count = 132,
// DEVICE-SAME: smem_per_block_optin_bytes = 232448, smem_per_sm_bytes = 233472,
// DEVICE-SAME: l2_bytes = 62914560
// BASE: module attributes {amk.target = #amk.target<"half-h100", arch = "sm_90a", sm_count = 66,
// LAST: module attributes {amk.target = #amk.target<"b200">}
module {}
