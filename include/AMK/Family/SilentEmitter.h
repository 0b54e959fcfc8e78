//===- SilentEmitter.h - Ask an attribute verifier without reporting -*- C++
//-*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Planners enumerate candidate configs and keep those the attribute's own
// verifier accepts (`getChecked`), so the rules live in one place. The
// verifier streams its reason into the diagnostic it is handed, and an
// inactive `InFlightDiagnostic()` must not be streamed into; this emitter
// hands it an active diagnostic of a private context whose engine drops
// everything, so nothing reaches the user's handlers and it is thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_SILENTEMITTER_H
#define AMK_FAMILY_SILENTEMITTER_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::amk {

/// An error emitter for `getChecked` whose diagnostics go nowhere.
llvm::function_ref<InFlightDiagnostic()> getSilentEmitter();

} // namespace mlir::amk

#endif // AMK_FAMILY_SILENTEMITTER_H
