//===- KernelSafety.cpp - The harness on GPU kernels ----------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/KernelSafety.h"

#include "AMK/Analysis/Uniformity.h"
#include "Address.h"
#include "Alignment.h"
#include "Bounds.h"
#include "SharedMemory.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::amk;

std::string mlir::amk::describeOp(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "'" << op->getName() << "'";
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at line " << loc.getLine();
  return s;
}

/// Dialects whose ops the harness models (every op of them is either pure
/// arithmetic, a memory access the checks understand, structured control
/// flow, or a GPU primitive).
static bool isModelled(Operation *op) {
  static const llvm::StringSet<> dialects = {
      "arith", "math", "memref", "vector", "scf", "gpu", "index",
      "affine", "ub",
      // Branches only occur in multi-block regions, reported as such.
      "cf"};
  StringRef dialect = op->getName().getDialectNamespace();
  if (dialects.contains(dialect))
    return true;
  // The NVVM ops AMK's kernels use: special registers, barriers, MMAs.
  // nvgpu: the async copies, their groups and waits, ldmatrix and mma.sync;
  // not mbarriers, TMA or wgmma (their phases are not modelled).
  if (dialect == "nvgpu")
    return isa<nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncCreateGroupOp,
               nvgpu::DeviceAsyncWaitOp, nvgpu::LdMatrixOp, nvgpu::MmaSyncOp>(
        op);
  if (dialect == "nvvm")
    return isa<NVVM::Barrier0Op, NVVM::BarrierOp, NVVM::MmaOp,
               NVVM::ThreadIdXOp, NVVM::ThreadIdYOp, NVVM::ThreadIdZOp,
               NVVM::BlockIdXOp, NVVM::BlockIdYOp, NVVM::BlockIdZOp,
               NVVM::BlockDimXOp, NVVM::BlockDimYOp, NVVM::BlockDimZOp,
               NVVM::LaneIdOp>(op);
  // Value plumbing of the NVVM MMA results.
  return isa<LLVM::ExtractValueOp, LLVM::InsertValueOp, LLVM::UndefOp,
             LLVM::PoisonOp>(op);
}

static bool isBarrier(Operation *op) {
  return isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::BarrierOp>(op);
}

LogicalResult
mlir::amk::checkKernelSafety(Operation *kernel, const TargetSpec *target,
                             SmallVectorImpl<HarnessFinding> &findings) {
  size_t before = findings.size();
  std::string name;
  if (auto sym = SymbolTable::getSymbolName(kernel))
    name = sym.str();
  auto report = [&](StringRef check, Operation *at, const Twine &message) {
    findings.push_back(
        HarnessFinding{check.str(), at->getLoc(), name, message.str(), 0, 0});
  };
  auto errors = [&] {
    return llvm::count_if(llvm::drop_begin(findings, before),
                          [](const HarnessFinding &f) { return f.isError(); });
  };

  // Launch resources against the target: the block from known_block_size,
  // shared memory from what the launch provides.
  if (target) {
    SmallVector<int64_t, 3> block;
    if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
      if (DenseI32ArrayAttr size = func.getKnownBlockSizeAttr())
        block.assign(size.asArrayRef().begin(), size.asArrayRef().end());
    int64_t smem = 0;
    if (auto attr = kernel->getAttrOfType<IntegerAttr>(kDynamicSmemAttrName))
      smem = attr.getInt();
    checkLaunchResources(block, smem, *target, kernel->getLoc(), name,
                         findings);
  }

  // Structure first: the analyses below need structured control flow and
  // known ops; anything else is unprovable, not accepted.
  bool structured = true;
  kernel->walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      if (!region.empty() && !region.hasOneBlock()) {
        report(check::kUnprovable, op,
               "unstructured control flow (a region of " + describeOp(op) +
                   " has " +
                   Twine(std::distance(region.begin(), region.end())) +
                   " blocks): lower to scf to let the harness analyse it");
        structured = false;
      }
    if (op == kernel)
      return;
    if (auto call = dyn_cast<CallOpInterface>(op)) {
      std::string callee = "an indirect callee";
      if (auto sym =
              dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee()))
        callee = "'" + sym.getLeafReference().str() + "'";
      report(check::kUnprovable, op,
             "calls " + callee + ": the harness does not analyse calls");
      return;
    }
    if (!isModelled(op))
      report(check::kUnprovable, op,
             "op " + describeOp(op) + " is not modelled by the harness");
  });
  if (!structured)
    return failure();

  UniformityInfo uniformity(kernel);
  kernel->walk([&](Operation *op) {
    if (!isBarrier(op))
      return;
    if (Operation *branch = uniformity.getDivergentAncestor(op))
      report(check::kBarrierDivergent, op,
             "barrier " + describeOp(op) +
                 " is under thread-dependent control: " + describeOp(branch) +
                 " decides by a value derived from the thread id whether (or "
                 "how often) it runs, so threads of the block can wait "
                 "forever");
  });

  // One integer range analysis for every check: thread ids bounded by
  // known_block_size, loop variables by their bounds.
  DataFlowSolver solver;
  dataflow::loadBaselineAnalyses(solver);
  solver.load<dataflow::IntegerRangeAnalysis>();
  if (failed(solver.initializeAndRun(kernel))) {
    report(check::kUnprovable, kernel, "integer range analysis failed");
    return failure();
  }

  // Ops the bounds check cannot model are not asked about again.
  llvm::DenseSet<Operation *> unprovable;
  checkKernelBounds(kernel, solver,
                    [&](StringRef check, Operation *at, const Twine &message,
                        int64_t found, int64_t limit,
                        llvm::json::Object details) {
                      if (check == check::kUnprovable)
                        unprovable.insert(at);
                      HarnessFinding f{check.str(),   at->getLoc(), name,
                                       message.str(), found,        limit};
                      f.details = std::move(details);
                      findings.push_back(std::move(f));
                    });

  auto add = [&](HarnessFinding f) {
    f.op = name;
    findings.push_back(std::move(f));
  };
  AddressModel addresses;
  checkKernelAlignment(kernel, solver, addresses, unprovable, add);

  // Races and async ordering assume barriers every thread reaches.
  if (llvm::none_of(llvm::drop_begin(findings, before),
                    [](const HarnessFinding &f) {
                      return f.check == check::kBarrierDivergent;
                    }))
    checkSharedMemory(
        kernel, uniformity, solver,
        [&](StringRef check, Operation *at, const Twine &message) {
          report(check, at, message);
        });

  // Performance, not safety: warnings.
  checkKernelCoalescing(kernel, uniformity, addresses, add);
  return success(errors() == 0);
}
