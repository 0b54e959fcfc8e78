//===- DummyMain.cpp - amk-fuzz without libFuzzer --------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
//   amk-fuzz [FILE | DIRECTORY]...
//
// Regression mode: every file named, and every regular file directly inside
// a directory named (in name order), goes once through the fuzz target, as
// libFuzzer would run it; arguments starting with '-' (libFuzzer's flags) are
// ignored. The exit status is 0 when every input ran; a crash ends the run
// with the input's name as the last "Running:" line and a stack trace.
// This is upstream's dummy fuzzer main (llvm::runFuzzerOnInputs), with
// directories expanded first.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/STLExtras.h"
#include "llvm/FuzzMutate/FuzzerCLI.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);

/// The regular files directly inside `dir`, sorted by name.
static std::vector<std::string> listInputs(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::ErrorOr<llvm::sys::fs::basic_file_status> status = it->status();
    if (status && llvm::sys::fs::is_regular_file(*status))
      files.push_back(it->path());
  }
  if (ec)
    llvm::errs() << "amk-fuzz: cannot list " << dir << ": " << ec.message()
                 << "\n";
  llvm::sort(files);
  return files;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  std::vector<std::string> args = {argv[0]};
  size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.empty() || arg[0] == '-' || !llvm::sys::fs::is_directory(arg)) {
      args.push_back(arg);
      inputs += !arg.empty() && arg[0] != '-';
      continue;
    }
    std::vector<std::string> files = listInputs(arg);
    inputs += files.size();
    args.insert(args.end(), files.begin(), files.end());
  }
  std::vector<char *> cargs;
  for (std::string &arg : args)
    cargs.push_back(arg.data());
  cargs.push_back(nullptr);
  int rc = llvm::runFuzzerOnInputs(static_cast<int>(args.size()), cargs.data(),
                                   LLVMFuzzerTestOneInput,
                                   LLVMFuzzerInitialize);
  if (rc == 0)
    llvm::errs() << "amk-fuzz: " << inputs << " input(s), no crash\n";
  return rc;
}
