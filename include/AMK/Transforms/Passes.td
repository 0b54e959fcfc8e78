//===- Passes.td - AMK passes ------------------------------*- tablegen -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_PASSES_TD
#define AMK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// Keep alphabetical.

def AMKImportLinalgPass : Pass<"amk-import-linalg"> {
  let summary = "Raise linalg matmul ops on buffers to amk.matmul";
  let description = [{
    Rewrites `linalg.matmul` and `linalg.batch_matmul` on memrefs, including
    their transposed forms (`indexing_maps` that transpose A or B), into
    `amk.matmul`, so that other MLIR compilers can feed AMK without learning
    its ops. linalg's semantics accumulate into C (`beta = 1`); a zero
    `linalg.fill` of C right before the product is folded away (`beta = 0`).
    Matmuls AMK cannot take (tensors, broadcasts, integer types) are left
    alone with a warning.
  }];
  let dependentDialects = ["::mlir::amk::AMKDialect"];
}

def AMKSetTargetPass : Pass<"amk-target", "::mlir::ModuleOp"> {
  let summary = "Attach the #amk.target the kernels are planned for";
  let description = [{
    Sets the module's `amk.target` attribute from a preset name or a JSON
    file written by `amk-device-info`: `--amk-target=h200` or
    `--amk-target=path/to/gpu.json` (the long form
    `--amk-target="target=h200"` works too). An unknown preset or bad JSON is
    an error that lists the presets.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"",
           "a preset name or a JSON file">,
  ];
  let dependentDialects = ["::mlir::amk::AMKDialect"];
}

#endif // AMK_TRANSFORMS_PASSES_TD
