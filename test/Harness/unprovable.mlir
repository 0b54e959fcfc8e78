// RUN: amk-opt %s --split-input-file --allow-unregistered-dialect --amk-verify --verify-diagnostics
// RUN: amk-opt %s --split-input-file --allow-unregistered-dialect --amk-verify=allow-unprovable 2>&1 | FileCheck %s --check-prefix=WARN
// What the harness cannot analyse is reported as AMK-UNPROVABLE, never
// accepted silently (an error; a warning with allow-unprovable).

// WARN: warning: [AMK-UNPROVABLE] unstructured control flow
gpu.module @m {
  // expected-error @+1 {{[AMK-UNPROVABLE] unstructured control flow (a region of 'gpu.func' at line 9 has 3 blocks): lower to scf to let the harness analyse it}}
  gpu.func @branches(%c: i1) kernel {
    cf.cond_br %c, ^a, ^b
  ^a:
    gpu.barrier
    gpu.return
  ^b:
    gpu.return
  }
}

// -----

// WARN: warning: [AMK-UNPROVABLE] calls 'helper'
gpu.module @m {
  func.func private @helper()
  gpu.func @calls() kernel {
    // expected-error @+1 {{[AMK-UNPROVABLE] calls 'helper': the harness does not analyse calls}}
    func.call @helper() : () -> ()
    gpu.return
  }
}

// -----

// WARN: warning: [AMK-UNPROVABLE] op 'mystery.op'
gpu.module @m {
  gpu.func @unknown_op() kernel {
    // expected-error @+1 {{[AMK-UNPROVABLE] op 'mystery.op' at line 37 is not modelled by the harness}}
    "mystery.op"() : () -> ()
    gpu.return
  }
}
