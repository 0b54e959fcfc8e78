//===- NamedBarriers.cpp - Barriers of some of a block's threads ---------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Which threads reach a named barrier, and under which id, is evaluated for
// every thread of the (known) block: the scf.if branches around it whose
// conditions differ between threads must be functions of the thread id
// alone, as must its id; every other control above it is the same for the
// whole block (UniformityInfo). `bar.sync` is aligned: a warp's threads run
// it together, so the threads of each id are whole warps.
//
//===----------------------------------------------------------------------===//

#include "NamedBarriers.h"

#include "SharedMemoryModel.h"

#include "AMK/Analysis/Uniformity.h"
#include "AMK/Harness/Harness.h"
#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::amk;

namespace {
/// The id every thread runs a barrier with (none: it does not reach it).
using ThreadIds = std::vector<std::optional<int64_t>>;

/// The barrier's id for every thread of the block, or why not.
FailureOr<ThreadIds> getThreadIds(NVVM::BarrierOp bar,
                                  const UniformityInfo &uniformity,
                                  smem::ThreadEvaluator &threads,
                                  int64_t blockThreads, std::string &why) {
  SmallVector<std::pair<Value, bool>> guards;
  for (Operation *at = bar; Operation *branch = uniformity.getDivergentAncestor(
                                at, ThreadScope::Block);
       at = branch) {
    auto ifOp = dyn_cast<scf::IfOp>(branch);
    if (!ifOp || !threads.isThreadOnly(ifOp.getCondition()) ||
        !threads.values(ifOp.getCondition())) {
      why = describeOp(branch) + " decides by a value not of the thread id "
                                 "alone whether (or how often) it runs";
      return failure();
    }
    guards.push_back({ifOp.getCondition(),
                      ifOp.getThenRegion().isAncestor(at->getParentRegion())});
  }
  std::optional<std::vector<bool>> active = threads.passing(guards);
  const std::vector<int64_t> *ids = nullptr;
  Value id = bar.getBarrierId();
  std::optional<int64_t> constantId =
      id ? getConstantIntValue(id) : std::optional<int64_t>(0);
  if (!constantId && (!threads.isThreadOnly(id) || !(ids = threads.values(id)))) {
    why = "its id is neither a constant nor a function of the thread id";
    return failure();
  }
  if (!active) {
    why = "the conditions around it cannot be evaluated per thread";
    return failure();
  }
  ThreadIds out(blockThreads);
  for (int64_t t = 0; t < blockThreads; ++t)
    if ((*active)[t])
      out[t] = constantId ? *constantId : (*ids)[t];
  return out;
}

/// The first lane of a warp whose threads do not all run the barrier under
/// one id (or do not all skip it), or nullopt.
std::optional<int64_t> getSplitWarp(const ThreadIds &ids) {
  for (size_t t = 0; t < ids.size(); ++t)
    if (ids[t] != ids[t - t % 32])
      return int64_t(t);
  return std::nullopt;
}
/// The ids of the barriers every thread of the block reaches (-1: one
/// whose id is not a constant), each with one such barrier.
std::map<int64_t, Operation *> getWholeBlockIds(Operation *kernel) {
  std::map<int64_t, Operation *> ids;
  kernel->walk([&](Operation *op) {
    if (isa<gpu::BarrierOp, NVVM::Barrier0Op>(op))
      ids.try_emplace(0, op);
    auto bar = dyn_cast<NVVM::BarrierOp>(op);
    if (!bar || !isBlockBarrier(bar))
      return;
    Value id = bar.getBarrierId();
    std::optional<int64_t> c =
        id ? getConstantIntValue(id) : std::optional<int64_t>(0);
    ids.try_emplace(c ? *c : -1, op);
  });
  return ids;
}

/// The threads of `in` as one run of linear ids [first, last], if they are.
std::optional<std::pair<int64_t, int64_t>> getRun(const std::vector<bool> &in) {
  int64_t first = llvm::find(in, true) - in.begin();
  int64_t n = llvm::count(in, true);
  for (int64_t t = first; t < first + n; ++t)
    if (!in[t])
      return std::nullopt;
  return std::make_pair(first, first + n - 1);
}
} // namespace

bool NamedBarriers::ordersItsBlock(const NamedBarriers *named, Operation *op) {
  return isBlockBarrier(op) || (named && named->wholeGroup.contains(op));
}

NamedBarriers::NamedBarriers(
    Operation *kernel, const UniformityInfo &uniformity,
    function_ref<void(StringRef, Operation *, const Twine &)> report) {
  SmallVector<NVVM::BarrierOp> bars;
  kernel->walk([&](NVVM::BarrierOp bar) {
    if (bar.getNumberOfThreads() && !isBlockBarrier(bar))
      bars.push_back(bar);
  });
  if (bars.empty())
    return;
  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  DenseI32ArrayAttr size = func ? func.getKnownBlockSizeAttr() : nullptr;
  if (!size || size.size() != 3) {
    for (NVVM::BarrierOp bar : bars)
      report(check::kUnprovable, bar,
             "which threads named barrier " + describeOp(bar) +
                 " waits for is not known: the kernel states no "
                 "known_block_size");
    return;
  }
  SmallVector<int64_t, 3> dims(size.asArrayRef());
  int64_t blockThreads = dims[0] * dims[1] * dims[2];
  smem::ThreadEvaluator threads(dims);

  // The ids of the barriers every thread reaches: none may be a group's.
  std::map<int64_t, Operation *> wholeBlockIds = getWholeBlockIds(kernel);

  // Per id, the threads of its first barrier and that barrier; ids found
  // wrong order nothing.
  llvm::MapVector<int64_t, std::pair<std::vector<bool>, Operation *>> byId;
  llvm::DenseSet<int64_t> wrong;
  bool unknown = false;
  auto fail = [&](Operation *bar, const Twine &why) {
    report(check::kBarrierDivergent, bar,
           "named barrier " + describeOp(bar) + " " + why +
               ": its threads can wait forever or complete it with others");
  };
  for (NVVM::BarrierOp bar : bars) {
    std::optional<int64_t> count = getConstantIntValue(bar.getNumberOfThreads());
    if (!count) {
      report(check::kUnprovable, bar,
             "the thread count of named barrier " + describeOp(bar) +
                 " is not a constant: which threads it waits for is not "
                 "known");
      unknown = true;
      continue;
    }
    partial.insert(bar);
    if (*count <= 0 || *count % 32 != 0) {
      fail(bar, llvm::formatv("declares {0} threads, not a positive multiple "
                              "of the warp size",
                              *count));
      unknown = true;
      continue;
    }
    std::string why;
    FailureOr<ThreadIds> ids =
        getThreadIds(bar, uniformity, threads, blockThreads, why);
    if (failed(ids)) {
      report(check::kBarrierDivergent, bar,
             "named barrier " + describeOp(bar) +
                 " is under control that can differ between its threads: " +
                 why + ", so the threads it counts can wait forever");
      unknown = true;
      continue;
    }
    if (std::optional<int64_t> t = getSplitWarp(*ids)) {
      fail(bar, llvm::formatv("is reached apart by the threads of warp {0} "
                              "(thread {1} differs from its lane 0); a warp "
                              "runs bar.sync together",
                              *t / 32, *t));
      unknown = true;
      continue;
    }
    std::map<int64_t, std::vector<bool>> members;
    for (int64_t t = 0; t < blockThreads; ++t)
      if ((*ids)[t]) {
        auto [it, inserted] = members.try_emplace(*(*ids)[t]);
        if (inserted)
          it->second.assign(blockThreads, false);
        it->second[t] = true;
      }
    for (auto &[id, in] : members) {
      int64_t n = llvm::count(in, true);
      int64_t first = llvm::find(in, true) - in.begin();
      if (id < 0 || id > 15) {
        fail(bar, llvm::formatv("runs under id {0} in thread {1}; the block "
                                "has barriers 0 to 15",
                                id, first));
        unknown = true;
        continue;
      }
      if (auto it = wholeBlockIds.find(id); it != wholeBlockIds.end()) {
        fail(bar, llvm::formatv("uses id {0}, which {1} uses for the whole "
                                "block",
                                id, describeOp(it->second)));
        wrong.insert(id);
      } else if (wholeBlockIds.count(-1)) {
        fail(bar, "may share its id with " +
                      describeOp(wholeBlockIds.at(-1)) +
                      ", a barrier of the whole block whose id is not a "
                      "constant");
        wrong.insert(id);
      }
      if (n != *count) {
        fail(bar, llvm::formatv("declares {0} threads, but {1} threads of "
                                "the block reach it under id {2} (the first "
                                "thread {3})",
                                *count, n, id, first));
        wrong.insert(id);
      }
      auto [it, inserted] = byId.try_emplace(id, in, bar);
      if (!inserted && it->second.first != in) {
        fail(bar, llvm::formatv("shares id {0} with {1}, but not its threads: "
                                "the arrivals of both count together",
                                id, describeOp(it->second.second)));
        wrong.insert(id);
      }
      idsOf[bar].push_back(id);
    }
  }
  // A barrier not modelled may arrive at any id.
  if (unknown) {
    idsOf.clear();
    return;
  }
  for (auto &[id, entry] : byId)
    if (std::optional<std::pair<int64_t, int64_t>> run = getRun(entry.first);
        run && !wrong.contains(id))
      ordering.push_back({id, run->first, run->second});
  for (auto &[op, ids] : idsOf) {
    int64_t only = ids.size() == 1 ? ids.front() : -1;
    if (llvm::any_of(ordering, [&](const Group &g) { return g.id == only; }))
      wholeGroup.insert(op);
    llvm::erase_if(ids, [&](int64_t id) {
      return llvm::none_of(ordering, [&](const Group &g) { return g.id == id; });
    });
  }
}
