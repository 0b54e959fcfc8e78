//===- amk-fuzz.cpp - The fuzz target of AMK's pipeline
//--------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// One input is an MLIR module in text. It is parsed with amk-opt's dialects
// and run through the pipeline of
//
//   amk-opt --amk-pipeline="target=h200 stop-at=gpu"
//
// (plan -> verify -> lower to gpu.func), and what the pipeline returns is
// printed (to nowhere). Diagnostics are swallowed: a rejected input is a
// success, only a crash, an assertion, a sanitizer report, a timeout or a
// blown memory limit is a finding. With AMK_FUZZ_VERBOSE=1 in the
// environment the diagnostics are printed, and how far each input got.
//
// Linked with libFuzzer (-DAMK_ENABLE_FUZZING=ON) this is a coverage-guided
// fuzzer; otherwise DummyMain.cpp runs the files and directories named on the
// command line through the same function (regression mode), like the dummy
// main of upstream's llvm_add_fuzzer.
//
//===----------------------------------------------------------------------===//

#include "../amk-opt/Registration.h"
#include "../amk-opt/UpstreamCrashes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

/// The pass pipeline of `amk-opt --amk-pipeline="target=h200 stop-at=gpu"`
/// (amk-opt anchors it on the builtin.module it parses).
static constexpr llvm::StringLiteral kPipeline =
    "amk-pipeline{target=h200 stop-at=gpu}";

#if LLVM_ADDRESS_SANITIZER_BUILD
/// AddressSanitizer's defaults for this binary. LLVM's BumpPtrAllocator
/// poisons and unpoisons its slabs by hand in ASan builds; the LLVM/MLIR
/// libraries are not such builds, so the inline copies in AMK's (ASan) code
/// would see their allocations as poisoned: manual poisoning is off.
extern "C" LLVM_ATTRIBUTE_USED const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
#endif

/// amk-opt's dialects; built once (LLVMFuzzerInitialize).
static DialectRegistry *registry = nullptr;

/// AMK_FUZZ_VERBOSE=1: print diagnostics and each input's outcome (triage).
static bool verbose = false;

/// How far one input got, when verbose.
static void report(llvm::StringRef outcome) {
  if (verbose)
    llvm::errs() << "amk-fuzz: " << outcome << "\n";
}

extern "C" LLVM_ATTRIBUTE_USED int LLVMFuzzerInitialize(int *, char ***) {
  if (llvm::Error error = amk::tools::registerAMKOptPassesAndFamilies())
    llvm::report_fatal_error(llvm::Twine("amk-fuzz: ") +
                             llvm::toString(std::move(error)));
  const char *env = std::getenv("AMK_FUZZ_VERBOSE");
  verbose = env && llvm::StringRef(env) != "0" && *env;
  registry = new DialectRegistry();
  amk::tools::registerAMKOptDialects(*registry);
  return 0;
}

extern "C" LLVM_ATTRIBUTE_USED int LLVMFuzzerTestOneInput(const uint8_t *data,
                                                          size_t size) {
  if (!registry)
    LLVMFuzzerInitialize(nullptr, nullptr);
  // A std::string ends in the NUL the MLIR lexer expects at the end of its
  // buffer.
  std::string text(reinterpret_cast<const char *>(data), size);
  // (Inputs that crash MLIR's own parsers are skipped, so that a run goes
  // on to find AMK's bugs.)
  if (std::optional<amk::tools::UpstreamCrash> bug =
          amk::tools::findUpstreamCrash(text)) {
    report(("skipped: a known MLIR parser crash, " + bug->issue).str());
    return 0;
  }

  // A context per input: nothing an input interns outlives it. One thread,
  // so that a finding replays the same way.
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  context.getDiagEngine().registerHandler([](Diagnostic &diag) {
    if (verbose)
      llvm::errs() << diag.getLocation() << ": " << diag << "\n";
  });

  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, config, "fuzz-input");
  if (!module) {
    report("parse failed");
    return 0;
  }

  PassManager pm(&context, ModuleOp::getOperationName());
  std::string pipelineError;
  llvm::raw_string_ostream errorStream(pipelineError);
  if (failed(parsePassPipeline(kPipeline, pm, errorStream)))
    llvm::report_fatal_error(llvm::Twine("amk-fuzz: bad pipeline '") +
                             kPipeline + "': " + pipelineError);
  if (failed(pm.run(*module))) {
    report("pipeline failed");
    return 0;
  }
  // amk-opt prints what the pipeline returns: the printers are on the path.
  module->print(llvm::nulls());
  report("pipeline succeeded");
  return 0;
}
