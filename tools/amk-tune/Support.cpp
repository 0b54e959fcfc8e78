//===- Support.cpp - What amk-tune's subcommands share --------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "amk-tune.h"

#include "AMK/Dialect/AMK/IR/AMKDialect.h"
#include "AMK/Target/JSONDepth.h"
#include "AMK/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::tune;
namespace json = llvm::json;

int tune::fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "amk-tune") << message << "\n";
  return 1;
}

void Progress::step() {
  size_t done = ++count;
  if (!showProgress)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  size_t width = 30, filled = total ? width * done / total : width;
  llvm::errs() << "\r[" << std::string(filled, '=')
               << std::string(width - filled, ' ') << "] " << done << "/"
               << total << " " << label;
  if (done == total)
    llvm::errs() << "\n";
}

void tune::registerDialects(DialectRegistry &registry) {
  registry.insert<AMKDialect, arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect,
                  scf::SCFDialect, vector::VectorDialect>();
  registerLoweringExtensions(registry);
}

llvm::Error tune::loadDB(TuningDB &db, llvm::StringRef path) {
  if (path.empty())
    return llvm::Error::success();
  if (llvm::Error e = db.load(path))
    return e;
  for (const TuningLoadIssue &issue : db.issues())
    llvm::WithColor::warning(llvm::errs(), "amk-tune")
        << issue.file << ":" << issue.line << " skipped: " << issue.message
        << "\n";
  return llvm::Error::success();
}

llvm::Expected<json::Value> tune::readJSON(llvm::StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return llvm::createStringError(file.getError(),
                                   "cannot read '" + path +
                                       "': " + file.getError().message());
  llvm::Expected<json::Value> value = parseJSON((*file)->getBuffer());
  if (!value)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "'" + path + "' is not JSON: " + llvm::toString(value.takeError()));
  return value;
}

llvm::Error tune::writeJSON(llvm::StringRef path, json::Value value) {
  std::string error;
  auto out = openOutputFile(path, &error);
  if (!out)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  out->os() << llvm::formatv("{0:2}", value) << "\n";
  out->keep();
  return llvm::Error::success();
}
