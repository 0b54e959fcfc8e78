// RUN: not amk-opt %s --amk-target=h300 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not amk-opt %s --amk-target=%S/Inputs/bad-syntax.json 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not amk-opt %s --amk-target=%S/Inputs/bad-key.json 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: not amk-opt %s --amk-target=%S/Inputs/bad-limits.json 2>&1 | FileCheck %s --check-prefix=LIMITS
// RUN: not amk-opt %s --amk-target=%S/Inputs/missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not amk-opt %s --amk-target="target=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not amk-opt %s --amk-target="tagret=h200" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not amk-opt %s --amk-target=%S/Inputs/unknown-arch.json 2>&1 | FileCheck %s --check-prefix=ARCH
// A file nested 50,000 deep is an error, not a stack overflow in the parser.
// RUN: %python -c "import sys; sys.stdout.write('{\"name\": \"x\", \"info\":' + '[' * 50000)" > %t-deep.json
// RUN: not amk-opt %s --amk-target=%t-deep.json 2>&1 | FileCheck %s --check-prefix=DEEP

// UNKNOWN: error: unknown target 'h300': expected a preset (a100, rtx4060ti, l4, h100, h200, b200, rtx5060ti) or a .json file
// SYNTAX: error: in target file '{{.*}}bad-syntax.json': invalid JSON: {{.*}}
// KEY: error: in target file '{{.*}}bad-key.json': unknown key 'sm_cuont'
// LIMITS: error: in target file '{{.*}}bad-limits.json': smem_per_block_bytes = 300000 exceeds smem_per_block_optin_bytes = 232448
// MISSING: error: cannot read target file '{{.*}}missing.json': No such file or directory
// EMPTY: error: no target given: use --amk-target=<preset> or --amk-target=<file.json> (presets: a100,
// OPTION: no such option tagret
// ARCH: error: in target file '{{.*}}unknown-arch.json': unknown arch 'sm_99999' (known: sm_70,
// DEEP: error: in target file '{{.*}}-deep.json': invalid JSON: nested deeper than 256 levels at line 1, column 277
module {}
