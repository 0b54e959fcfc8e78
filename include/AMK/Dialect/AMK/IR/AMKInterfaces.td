//===- AMKInterfaces.td - AMK attribute and op interfaces --*- tablegen -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMK_IR_AMKINTERFACES_TD
#define AMK_DIALECT_AMK_IR_AMKINTERFACES_TD

include "mlir/IR/OpBase.td"

def AMK_ProblemOpInterface : OpInterface<"ProblemOpInterface"> {
  let cppNamespace = "::mlir::amk";
  let description = [{
    An op that states a problem AMK can plan a kernel for (a GEMM, later a
    softmax, a convolution, ...). Every problem belongs to one family; a
    kernel config of the same family describes how to compute it.
  }];
  let methods = [
    InterfaceMethod<"The problem family, e.g. \"gemm\".",
      "::llvm::StringRef", "getProblemFamily">,
    InterfaceMethod<[{
        A stable, human-readable signature of the problem (family, sizes,
        element types, layout, epilogue); dynamic sizes print as `?`. Used in
        kernel names, cache keys and tuning-database lookups.
      }], "std::string", "getProblemSignature">,
    InterfaceMethod<[{
        The operands a kernel computing this problem takes, in order (GEMM:
        A, B, [bias], C).
      }], "::llvm::SmallVector<::mlir::Value, 4>", "getKernelOperands">,
  ];
  // Every family's sizes are bounded in one place, so no planner, cost
  // model or synthesizer product of them can wrap.
  let verify = [{ return ::mlir::amk::verifyProblemOperands($_op); }];
}

def AMK_KernelConfigAttrInterface : AttrInterface<"KernelConfigAttrInterface"> {
  let cppNamespace = "::mlir::amk";
  let description = [{
    A planned kernel design for one problem family (`#amk.gemm_config`, ...).
    The harness and the lowering read every family's config through this
    interface; family-specific details stay in the attribute itself.
  }];
  let methods = [
    InterfaceMethod<"The problem family this config computes.",
      "::llvm::StringRef", "getProblemFamily">,
    InterfaceMethod<"Threads per block of the kernel.",
      "int64_t", "getThreadsPerBlock">,
    InterfaceMethod<[{
        Check that this config can compute `problem` (an op implementing
        ProblemOpInterface of the same family): element types the math
        instruction supports, layouts the data movement handles, ...
        Target-independent; target limits are checked by `--amk-verify`.
      }], "::llvm::LogicalResult", "verifyForProblem",
      (ins "::mlir::Operation *":$problem,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>,
  ];
}

#endif // AMK_DIALECT_AMK_IR_AMKINTERFACES_TD
