//===- GlobalGates.cpp - The last block to arrive -------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Gates of the counter protocol (GlobalProtocol::Gate): a block publishes
// its part, fences and signals a counter; the signal returns the count
// before its add, and the block that sees the count every other signal
// makes is the last: it alone runs the gated branch, after all the others
// published.
//
//   if (tid == 0) { part[b] = s; fence.gpu; n = atomic add c[0], 1;
//                   fence.gpu; last = (n == blocks - 1) }   (flag in smem)
//   barrier
//   if (last) { read every part; out[0] = sum }
//
// Nothing waits, so no block needs another resident. The counts (the sum
// of the signals, the threshold the same in every block) are checked with
// the protocol's other counts (GlobalProtocol::enumerate).
//
//===----------------------------------------------------------------------===//

#include "BoundsProver.h"
#include "GlobalProtocolPoints.h"
#include "ProgramOrder.h"
#include "SharedMemoryModel.h"

#include "AMK/Analysis/Address.h"
#include "AMK/Analysis/LaunchIndex.h"
#include "AMK/Harness/Harness.h"
#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/FormatVariadic.h"
#include <set>

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::smem;
using namespace mlir::amk::protocol;

std::optional<std::vector<bool>>
protocol::getRunningThreads(Operation *op, const Model &model,
                            ThreadEvaluator &threads, ArrayRef<Value> known,
                            bool must) {
  int64_t count = model.block[0] * model.block[1] * model.block[2];
  std::vector<bool> active(count, true);
  auto keep = [&](Value cond, bool truth) {
    const std::vector<int64_t> *values = threads.values(cond);
    if (!values || int64_t(values->size()) != count)
      return false;
    for (int64_t t = 0; t < count; ++t)
      active[t] = active[t] && (((*values)[t] != 0) == truth);
    return true;
  };
  for (Operation *child = op, *parent = op->getParentOp();
       parent && child != model.kernel;
       child = parent, parent = parent->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(parent);
    if (!ifOp) {
      if (must && parent != model.kernel)
        return std::nullopt;
      continue;
    }
    Value cond = ifOp.getCondition();
    bool truth = child->getParentRegion() == &ifOp.getThenRegion();
    if (threads.isThreadOnly(cond)) {
      if (!keep(cond, truth))
        return std::nullopt;
      continue;
    }
    if (!truth) {
      if (must || model.uniformity.isDivergent(cond, ThreadScope::Block))
        return std::nullopt;
      continue;
    }
    SmallVector<Value> parts;
    bounds::conjuncts(cond, parts);
    for (Value part : parts) {
      if (llvm::is_contained(known, part))
        continue;
      if (threads.isThreadOnly(part)) {
        if (!keep(part, true))
          return std::nullopt;
        continue;
      }
      if (must || model.uniformity.isDivergent(part, ThreadScope::Block))
        return std::nullopt;
    }
  }
  return active;
}

/// The tests `arrival + offset == T` of the count `rmw` returned (through
/// additions and subtractions of constants): (test, T, offset).
static SmallVector<std::tuple<arith::CmpIOp, Value, int64_t>>
getArrivalTests(memref::AtomicRMWOp rmw) {
  SmallVector<std::tuple<arith::CmpIOp, Value, int64_t>> tests;
  SmallVector<Value> derived = {rmw.getResult()};
  llvm::SmallPtrSet<Operation *, 8> seen;
  for (size_t i = 0; i < derived.size() && i < 16; ++i) {
    for (Operation *user : derived[i].getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (isa<arith::AddIOp, arith::SubIOp>(user)) {
        derived.push_back(user->getResult(0));
        continue;
      }
      auto cmp = dyn_cast<arith::CmpIOp>(user);
      if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
        continue;
      for (int side : {0, 1}) {
        std::optional<std::pair<Value, int64_t>> split =
            splitConstantOffset(cmp->getOperand(side));
        if (split && split->first == rmw.getResult()) {
          tests.push_back({cmp, cmp->getOperand(1 - side), split->second});
          break;
        }
      }
    }
  }
  return tests;
}

void GlobalProtocol::collectGatedCounters() {
  model.kernel->walk([&](memref::AtomicRMWOp rmw) {
    // (A signal of a positive constant to a kernel argument.)
    if (!getPositiveAdd(rmw) ||
        !getKernelArgument(rmw.getMemref(), model.kernel) ||
        getArrivalTests(rmw).empty())
      return;
    const void *counter =
        getKernelArgument(rmw.getMemref(), model.kernel).getAsOpaquePointer();
    // (A polled counter's signals take no gates.)
    if (counters.contains(counter) && !gatedCounters.contains(counter))
      return;
    gatedCounters.insert(counter);
    counters.insert(counter);
  });
}

/// The conditions that hold exactly where the test `cmp` held in the block:
/// `cmp` itself, and where the one thread that runs `cmp` stores it (as an
/// i1, or widened by extui) into a shared-memory flag no other op writes,
/// in `signal`'s block after it and in every block (`everyBlock`), the
/// flag read after a barrier (as the i1, or compared `!= 0`).
static SmallVector<Value, 2>
getGateConditions(arith::CmpIOp cmp, Operation *signal, Operation *kernel,
                  function_ref<bool(Operation *)> everyBlock,
                  function_ref<bool(Operation *)> isBarrier) {
  SmallVector<Value, 2> conditions = {cmp.getResult()};
  SmallVector<Value, 2> stored = {cmp.getResult()};
  for (Operation *user : cmp->getUsers())
    if (isa<arith::ExtUIOp>(user))
      stored.push_back(user->getResult(0));
  for (Value v : stored) {
    for (Operation *user : v.getUsers()) {
      auto store = dyn_cast<memref::StoreOp>(user);
      if (!store || store.getValue() != v ||
          store->getBlock() != signal->getBlock() ||
          !signal->isBeforeInBlock(store) || !everyBlock(store))
        continue;
      for (memref::LoadOp load : getSharedLoads(store, kernel, isBarrier)) {
        if (v == cmp.getResult()) {
          conditions.push_back(load.getResult());
          continue;
        }
        for (Operation *test : load->getUsers()) {
          auto ne = dyn_cast<arith::CmpIOp>(test);
          if (!ne || ne.getPredicate() != arith::CmpIPredicate::ne)
            continue;
          Value other =
              ne.getLhs() == load.getResult() ? ne.getRhs() : ne.getLhs();
          if (getConstantIntValue(other) == 0)
            conditions.push_back(ne.getResult());
        }
      }
    }
  }
  return conditions;
}

void GlobalProtocol::collectGates() {
  Operation *kernel = model.kernel;
  // (Threads are evaluated one by one: a known block, as the counts need.)
  if (!model.blockKnown || model.block[0] * model.block[1] * model.block[2] >
                               1024)
    return;
  for (const Point &s : points) {
    // (Its element may vary per block: a split-K tile's counter. The counts
    // then prove each element's last block.)
    if (s.poll || !gatedCounters.contains(s.counter.getAsOpaquePointer()))
      continue;
    // Once per block, by one thread (the branches around it tell which).
    std::optional<std::vector<bool>> runs =
        getRunningThreads(s.access, model, threads, {}, /*must=*/false);
    bool inLoop = false;
    for (Operation *p = s.access->getParentOp(); p && p != kernel;
         p = p->getParentOp())
      inLoop |= !isa<scf::IfOp>(p);
    if (!runs || llvm::count(*runs, true) != 1 || inLoop)
      continue;
    // The conditions of the branches around the signal hold in the gated
    // block (its signal ran).
    SmallVector<Value> around;
    for (Operation *child = s.access, *p = child->getParentOp();
         p && p != kernel; child = p, p = p->getParentOp())
      if (auto ifOp = dyn_cast<scf::IfOp>(p);
          ifOp && child->getParentRegion() == &ifOp.getThenRegion())
        bounds::conjuncts(ifOp.getCondition(), around);
    for (auto [cmp, threshold, offset] : getArrivalTests(s.access)) {
      Gate gate;
      gate.signal = &s;
      gate.threshold = threshold;
      gate.offset = offset;
      // (A flag some block never stores holds whatever its memory held:
      // the store must run in every block, under tests of the thread
      // alone that some thread passes.)
      gate.conditions = getGateConditions(
          cmp, s.access, kernel,
          [&](Operation *store) {
            std::optional<std::vector<bool>> runners =
                getRunningThreads(store, model, threads, {}, /*must=*/true);
            return runners && llvm::is_contained(*runners, true);
          },
          [&](Operation *op) { return isBarrier(op); });
      gate.thread = llvm::find(*runs, true) - runs->begin();
      SmallVector<Value> known(gate.conditions.begin(), gate.conditions.end());
      known.append(around);
      kernel->walk([&](Operation *op) {
        if (!isGpuFence(op) ||
            !(isGated(gate, op) || precedes(s.access, op, kernel)))
          return;
        std::optional<std::vector<bool>> fencing =
            getRunningThreads(op, model, threads, known, /*must=*/true);
        if (fencing && (*fencing)[gate.thread])
          gate.fences.push_back(op);
      });
      gates.push_back(std::move(gate));
    }
  }
}

/// The grid dimension whose size `v` is (through casts to 32 bits or
/// more, which hold any grid size), if it is one.
static std::optional<int> getGridDim(Value v) {
  auto wide = [](Value x) {
    return x.getType().isIndex() || x.getType().getIntOrFloatBitWidth() >= 32;
  };
  while (isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp,
                         arith::ExtUIOp, arith::ExtSIOp>(v.getDefiningOp())) {
    if (!wide(v))
      return std::nullopt;
    v = v.getDefiningOp()->getOperand(0);
  }
  std::optional<LaunchIndex> index = getLaunchIndex(v.getDefiningOp());
  if (!index || index->kind != LaunchIndex::Kind::GridDim)
    return std::nullopt;
  return index->dim;
}

std::optional<bool> GlobalProtocol::countGatesOverGrid(ArrayRef<int64_t> grid) {
  // One dimension not known, every other of one block.
  int unknown = -1;
  for (int d = 0; d < 3; ++d) {
    int64_t size = d < int(grid.size()) ? grid[d] : 1;
    if (size > 1 || (size <= 0 && unknown >= 0))
      return std::nullopt;
    if (size <= 0)
      unknown = d;
  }
  if (unknown < 0 || !model.blockKnown ||
      model.block[0] * model.block[1] * model.block[2] > 1024)
    return std::nullopt;
  // Signals of gated counters alone, each to an element no other signals,
  // run once in every block by one thread: under no loop and no branch but
  // tests of the thread.
  std::set<std::pair<const void *, SmallVector<int64_t, 2>>> elements;
  for (Point &p : points) {
    if (p.poll || !gatedCounters.contains(p.counter.getAsOpaquePointer()) ||
        !p.element ||
        !elements.insert({p.counter.getAsOpaquePointer(), *p.element}).second)
      return std::nullopt;
    for (Operation *parent = p.op()->getParentOp(); parent != model.kernel;
         parent = parent->getParentOp()) {
      auto ifOp = dyn_cast<scf::IfOp>(parent);
      if (!ifOp || !threads.isThreadOnly(ifOp.getCondition()))
        return std::nullopt;
    }
    std::optional<std::vector<bool>> runs =
        getRunningThreads(p.op(), model, threads, {}, /*must=*/true);
    if (!runs || llvm::count(*runs, true) != 1)
      return std::nullopt;
    p.threads = 1;
  }
  // Each element's signals add their amount once per block of the grid, G
  // blocks (below 2^31). A threshold G + k is the same in every block, so
  // one block at most passes the gate where the counter holds G without
  // wrapping; the last, for every G, where the add is 1 and G + k - offset
  // is the last arrival's count, G - 1.
  for (Gate &gate : gates) {
    const Point &s = *gate.signal;
    std::optional<std::pair<Value, int64_t>> split =
        splitConstantOffset(gate.threshold);
    std::optional<int> dim = split ? getGridDim(split->first) : std::nullopt;
    gate.exclusive = dim && *dim == unknown && getCounterBits(s) >= 32;
    gate.last =
        gate.exclusive && s.amount == 1 && split->second == gate.offset - 1;
  }
  return true;
}

bool GlobalProtocol::isGated(const Gate &gate, Operation *op) const {
  for (Operation *child = op, *p = op->getParentOp(); p && p != model.kernel;
       child = p, p = p->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(p);
    if (!ifOp || child->getParentRegion() != &ifOp.getThenRegion())
      continue;
    SmallVector<Value> parts;
    bounds::conjuncts(ifOp.getCondition(), parts);
    if (llvm::any_of(parts, [&](Value part) {
          return llvm::is_contained(gate.conditions, part);
        }))
      return true;
  }
  return false;
}

bool GlobalProtocol::runsAfterAny(const Gate &gate, ArrayRef<Operation *> from,
                                  Operation *op) const {
  SmallVector<Operation *, 2> before;
  for (Operation *f : from)
    if (precedes(f, op, model.kernel))
      before.push_back(f);
  if (before.empty())
    return false;
  if (llvm::any_of(before, [&](Operation *f) {
        return barrierBetween(f, op, model.kernel,
                              [&](Operation *o) { return isBarrier(o); });
      }))
    return true;
  // Or in the signalling thread alone.
  std::optional<std::vector<bool>> runners =
      getRunningThreads(op, model, threads, gate.conditions, /*must=*/false);
  return runners && llvm::count(*runners, true) == 1 && (*runners)[gate.thread];
}

bool GlobalProtocol::isAcquired(const Gate &gate, Operation *op) const {
  return runsAfterAny(gate, gate.fences, op);
}

bool GlobalProtocol::followsArrival(const Gate &gate, Operation *op) const {
  Operation *signal = gate.signal->access;
  return runsAfterAny(gate, signal, op);
}

bool GlobalProtocol::inOneBlock(ArrayRef<Operation *> a,
                                ArrayRef<Operation *> b) const {
  if (!proved)
    return false;
  // (A gate of an element that varies runs in one block per element.)
  return llvm::any_of(gates, [&](const Gate &gate) {
    auto gated = [&](Operation *op) { return isGated(gate, op); };
    return gate.exclusive && gate.signal->element && llvm::all_of(a, gated) &&
           llvm::all_of(b, gated);
  });
}

SmallVector<ValueRange>
GlobalProtocol::getGateElements(ArrayRef<Operation *> a,
                                ArrayRef<Operation *> b) const {
  SmallVector<ValueRange> elements;
  if (!proved)
    return elements;
  for (const Gate &gate : gates) {
    auto gated = [&](Operation *op) { return isGated(gate, op); };
    if (gate.exclusive && !gate.signal->element && llvm::all_of(a, gated) &&
        llvm::all_of(b, gated))
      elements.push_back(gate.signal->access.getIndices());
  }
  return elements;
}

bool GlobalProtocol::checkCounterStarts() {
  auto func = dyn_cast<FunctionOpInterface>(model.kernel);
  bool ok = true;
  // A reset: a store of 0 to the element a last gate tests, in its branch
  // past its acquire (after the last add of the launch).
  llvm::DenseSet<const void *> reset;
  for (memref::StoreOp store : resets) {
    std::optional<SmallVector<int64_t>> at =
        getConstantIntValues(getAsOpFoldResult(store.getIndices()));
    // The gate's element: the same constants, or the same index values.
    auto sameElement = [&](const Point &signal) {
      if (signal.element)
        return at &&
               ArrayRef<int64_t>(*at) == ArrayRef<int64_t>(*signal.element);
      return llvm::equal(store.getIndices(), signal.access.getIndices());
    };
    bool valid = llvm::any_of(gates, [&](const Gate &gate) {
      return gate.last && gate.signal->counter == store.getMemref() &&
             sameElement(*gate.signal) && isGated(gate, store) &&
             followsArrival(gate, store);
    });
    if (valid) {
      reset.insert(store.getMemref().getAsOpaquePointer());
      continue;
    }
    report(check::kGlobalSync, store,
           describeOp(store) +
               " resets a counter outside the branch only the last block to "
               "arrive runs (past its signal in the signalling thread, or a "
               "barrier after it): a block that signals later sees the "
               "reset, and the next launch starts from another count");
    ok = false;
  }
  llvm::SmallPtrSet<const void *, 4> told;
  for (const Point &p : points) {
    const void *counter = p.counter.getAsOpaquePointer();
    if (!func || func.getArgAttr(p.counter.getArgNumber(), "amk.counter") ||
        reset.contains(counter) || !told.insert(counter).second)
      continue;
    report(check::kGlobalSync, p.op(),
           describeOp(p.op()) + " uses " + describeArgument(p.counter) +
               " as a counter, but the argument is not marked "
               "`amk.counter`: its counts start at zero only if the launch "
               "zeroes it, which the mark asks of it (or the last block to "
               "arrive resets it)");
    ok = false;
  }
  return ok;
}
