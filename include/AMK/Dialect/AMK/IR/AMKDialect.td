//===- AMKDialect.td - The AMK dialect ---------------------*- tablegen -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMK_IR_AMKDIALECT_TD
#define AMK_DIALECT_AMK_IR_AMKDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def AMK_Dialect : Dialect {
  let name = "amk";
  let cppNamespace = "::mlir::amk";
  let summary = "Kernel descriptors for planned, verified GPU kernels";
  let description = [{
    The `amk` dialect describes *what* to compute (problem ops such as
    `amk.matmul`), *where* (`#amk.target`, attached to the module), and the
    kernel design chosen for it (`amk.kernel` holding a config attribute such
    as `#amk.gemm_config`). `--amk-plan` writes the descriptors,
    `--amk-verify` checks them against the target and `--amk-lower`
    synthesizes GPU code from them.
  }];
  let useDefaultAttributePrinterParser = 1;
  // `amk.target` must hold a #amk.target.
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let extraClassDeclaration = [{
    /// The discardable attribute that carries a module's `#amk.target`.
    static constexpr ::llvm::StringLiteral kTargetAttrName = "amk.target";
    /// The unit attribute `--amk-verify` puts on each kernel it accepted;
    /// `--amk-lower` synthesizes only kernels that carry it.
    static constexpr ::llvm::StringLiteral kVerifiedAttrName = "amk.verified";

  private:
    void registerAttributes();
  public:
  }];
}

class AMK_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<AMK_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class AMK_Op<string mnemonic, list<Trait> traits = []>
    : Op<AMK_Dialect, mnemonic, traits>;

#endif // AMK_DIALECT_AMK_IR_AMKDIALECT_TD
