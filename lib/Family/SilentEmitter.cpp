//===- SilentEmitter.cpp - Ask an attribute verifier without reporting ----===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/SilentEmitter.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;

/// The location of the sink: a context made once and never destroyed (the
/// planners may run until exit), whose only handler drops what it gets.
static Location getSinkLocation() {
  static Location loc = [] {
    auto *sink = new MLIRContext(MLIRContext::Threading::DISABLED);
    sink->getDiagEngine().registerHandler(
        [](Diagnostic &) { return success(); });
    return Location(UnknownLoc::get(sink));
  }();
  return loc;
}

static InFlightDiagnostic emitSilently() {
  return mlir::emitError(getSinkLocation());
}

llvm::function_ref<InFlightDiagnostic()> mlir::amk::getSilentEmitter() {
  return emitSilently;
}
