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
#include "UpstreamCrashes.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
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
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "AMK optimizer driver\n", registry);
  // Input that would crash MLIR's parser is refused before it is parsed.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::WithColor::error(llvm::errs(), "amk-opt") << error << "\n";
    return 1;
  }
  if (std::optional<mlir::amk::tools::UpstreamCrash> crash =
          mlir::amk::tools::findUpstreamCrash(input->getBuffer())) {
    llvm::WithColor::error(llvm::errs(), "amk-opt")
        << (inputFilename == "-" ? "<stdin>" : inputFilename) << ": "
        << crash->what << " is not accepted: the MLIR parser crashes on it ("
        << crash->issue << "); nothing was parsed\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::WithColor::error(llvm::errs(), "amk-opt") << error << "\n";
    return 1;
  }
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
