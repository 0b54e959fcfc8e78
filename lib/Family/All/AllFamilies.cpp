//===- AllFamilies.cpp - Every family AMK has -----------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The one list a new family is added to.
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Family.h"
#include "AMK/Family/Gemm/GemmFamily.h"
#include "AMK/Family/Graph/GraphModel.h"
#include "AMK/Family/RowReduce/RowReduceModel.h"

#include <mutex>

using namespace mlir;
using namespace mlir::amk;

llvm::Error mlir::amk::registerAllFamilies() {
  static std::once_flag once;
  static std::string error;
  std::call_once(once, [] {
    std::unique_ptr<KernelFamily> families[] = {
        createGemmFamily(), createRowReduceFamily(), createGraphFamily()};
    for (std::unique_ptr<KernelFamily> &family : families)
      if (llvm::Error e = registerFamily(std::move(family)))
        error = llvm::toString(std::move(e));
  });
  if (!error.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  return llvm::Error::success();
}
