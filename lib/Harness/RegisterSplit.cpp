//===- RegisterSplit.cpp - setmaxnreg within the block's registers --------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// AMK-RES-REGS for `setmaxnreg` (nvvm.setmaxregister): a warp-specialized
// kernel moves registers between its warpgroups, from a pool that holds
// what the block was launched with (`nvvm.maxnreg` per thread). The model:
// each warpgroup runs at most one setmaxnreg, outside loops, under thread
// guards that take whole warpgroups (the convergence check asks that all of
// a warpgroup's threads run it together); `.inc` may not lower the count
// and `.dec` may not raise it; the counts the warpgroups end with fit the
// pool, else an `.inc` waits for registers no one frees: the block hangs.
//
//===----------------------------------------------------------------------===//

#include "MBarrier.h"

#include "AMK/Harness/Harness.h"
#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;

void mlir::amk::checkRegisterSplit(
    Operation *kernel,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report) {
  SmallVector<NVVM::SetMaxRegisterOp> ops;
  kernel->walk([&](NVVM::SetMaxRegisterOp op) { ops.push_back(op); });
  if (ops.empty())
    return;
  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  DenseI32ArrayAttr block = func ? func.getKnownBlockSizeAttr() : nullptr;
  auto launch = kernel->getAttrOfType<IntegerAttr>(
      NVVM::NVVMDialect::getMaxnregAttrName());
  if (!block || block.size() != 3 || block[1] != 1 || block[2] != 1 ||
      block[0] % 128 != 0 || !launch) {
    report(check::kUnprovable, ops.front(),
           "setmaxnreg in a kernel without a 1-D known_block_size of whole "
           "warpgroups and a launch register count (nvvm.maxnreg): the "
           "register pool is not known");
    return;
  }
  int64_t threads = block[0], pool = launch.getInt() * threads;
  SmallVector<int64_t> regs(threads / 128, launch.getInt());
  SmallVector<Operation *> setBy(threads / 128, nullptr);
  for (NVVM::SetMaxRegisterOp op : ops) {
    // The warpgroups that run it: thread guards only, no loops.
    ThreadRange range{0, threads};
    for (Operation *child = op, *parent = op->getParentOp(); parent != kernel;
         child = parent, parent = parent->getParentOp()) {
      auto ifOp = dyn_cast<scf::IfOp>(parent);
      std::optional<ThreadRange> r =
          ifOp ? getThreadGuardRange(
                     ifOp.getCondition(),
                     child->getParentRegion() == &ifOp.getThenRegion(), threads)
               : std::nullopt;
      if (!r || r->onePerWarp) {
        report(check::kUnprovable, op,
               "setmaxnreg inside " + describeOp(parent) +
                   ", which is not a guard on whole warpgroups: which "
                   "warpgroups run it is not known");
        return;
      }
      range = {std::max(range.lo, r->lo), std::min(range.hi, r->hi)};
    }
    if (range.lo >= range.hi)
      continue;
    if (range.lo % 128 != 0 || range.hi % 128 != 0) {
      report(check::kConvergence, op,
             llvm::formatv("setmaxnreg runs for threads [{0}, {1}), not whole "
                           "warpgroups: every warp of a warpgroup must run "
                           "it",
                           range.lo, range.hi)
                 .str());
      return;
    }
    int64_t count = op.getRegCount();
    bool increase = op.getAction() == NVVM::SetMaxRegisterAction::increase;
    for (int64_t w = range.lo / 128; w < range.hi / 128; ++w) {
      if (setBy[w]) {
        report(check::kUnprovable, op,
               llvm::formatv("warpgroup {0} runs setmaxnreg twice (also {1}): "
                             "not modelled",
                             w, describeOp(setBy[w]))
                   .str());
        return;
      }
      if (increase ? count < regs[w] : count > regs[w]) {
        report(check::kRegs, op,
               llvm::formatv("setmaxnreg.{0} to {1} registers in warpgroup "
                             "{2}, which holds {3}: .inc must not lower the "
                             "count and .dec must not raise it",
                             increase ? "inc" : "dec", count, w, regs[w])
                   .str());
        return;
      }
      setBy[w] = op;
      regs[w] = count;
    }
  }
  int64_t total = 0;
  for (int64_t r : regs)
    total += r * 128;
  if (total > pool)
    report(check::kRegs, setBy[0] ? setBy[0] : ops.front().getOperation(),
           llvm::formatv("after setmaxnreg the warpgroups hold {0} registers "
                         "({1} per thread), but the block was launched with "
                         "{2} ({3} x {4} threads): a setmaxnreg.inc waits for "
                         "registers no warpgroup frees, and the block hangs",
                         total,
                         llvm::join(llvm::map_range(regs,
                                                    [](int64_t r) {
                                                      return std::to_string(r);
                                                    }),
                                    " + "),
                         pool, launch.getInt(), threads)
               .str());
}
