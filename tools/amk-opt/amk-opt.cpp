//===- amk-opt.cpp - The AMK optimizer driver -----------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with only what AMK pipelines parse and run: the amk dialect and
// passes, and the upstream dialects of AMK's input and output
// (Registration.h, shared with the amk-fuzz fuzz target).
//
//===----------------------------------------------------------------------===//

#include "Registration.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/WithColor.h"

namespace mlir::amk::test {
void registerTestKernelAnalysesPass();
} // namespace mlir::amk::test

int main(int argc, char **argv) {
  if (llvm::Error error = mlir::amk::tools::registerAMKOptPassesAndFamilies()) {
    llvm::WithColor::error(llvm::errs(), "amk-opt")
        << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  // Test-only passes (test/lib): what the harness's analyses conclude.
  mlir::amk::test::registerTestKernelAnalysesPass();
  mlir::DialectRegistry registry;
  mlir::amk::tools::registerAMKOptDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "AMK optimizer driver\n", registry));
}
