//===- consumer-opt.cpp - An out-of-tree tool embedding AMK ---------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The smallest mlir-opt-like tool another project would write to use AMK:
// it registers the amk dialect and AMK's passes next to the upstream dialects
// it needs. Built by test/Embed/embed.test through find_package(AMK).
//
//===----------------------------------------------------------------------===//

#include "AMK/Dialect/AMK/IR/AMKDialect.h"
#include "AMK/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::amk::AMKDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                  mlir::memref::MemRefDialect>();
  mlir::amk::registerAMKPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "consumer-opt: an out-of-tree tool using AMK\n", registry));
}
