//===- MBarrier.cpp - mbarrier arrive/wait phases match -------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// AMK-MBARRIER-PHASE. The model (anything else is AMK-UNPROVABLE):
//
//  - an mbarrier is `nvgpu.mbarrier.create` (workgroup memory) at a constant
//    index, initialized once with a constant count C, by one thread (an
//    `scf.if` or predicate `thread_id x == c` in a 1-D block) or by all,
//    outside loops; a block barrier at the top level follows the init and
//    precedes every other use (the init is visible to every thread);
//  - arrives (`nvgpu.mbarrier.arrive`) run at the top level or in one
//    uniform scf.for, by all threads or under one thread guard (`thread_id
//    x == c`, `< c`): that many threads arrive each time, which must be C,
//    so every arrive statement completes exactly one phase; one arrive
//    statement per loop;
//  - waits (`nvgpu.mbarrier.try_wait.parity`, which the NVVM lowering
//    spins until the phase completes) come after the arrive of their round:
//    at the top level after m arrives, parity (m - 1) mod 2; in the arrive's
//    loop, after it in the body, parity (P0 + k) mod 2 in iteration k, P0
//    the arrives before the loop. The parity is evaluated as (a k + b) mod 2
//    through the induction variable, a loop-carried toggle (`xori %p,
//    true`), + - * by constants, `remui`/`andi` by powers of two, casts;
//  - when fewer threads arrive than the block has, a phase could complete
//    again before a slow thread has seen it (its parity flips back): a
//    block barrier must separate one round's wait from the next arrive.
//
//===----------------------------------------------------------------------===//

#include "MBarrier.h"

#include "AMK/Analysis/Uniformity.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::amk;

namespace {

std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (v && matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// "1 thread arrives", "128 threads arrive".
std::string threadsArrive(int64_t n) {
  return llvm::formatv("{0} {1}", n,
                       n == 1 ? "thread arrives" : "threads arrive")
      .str();
}

bool isBlockBarrier(Operation *op) {
  return isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::BarrierOp>(op);
}

/// (a k + b) mod 2 over the iteration k of one loop.
struct Parity {
  int64_t a = 0, b = 0;
  Parity operator+(const Parity &o) const {
    return {(a + o.a) & 1, (b + o.b) & 1};
  }
};

class MBarrierChecker {
public:
  MBarrierChecker(
      Operation *kernel, const UniformityInfo &uniformity,
      llvm::function_ref<void(StringRef, Operation *, const Twine &)> report)
      : kernel(kernel), uniformity(uniformity), report(report) {
    if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
      if (DenseI32ArrayAttr size = func.getKnownBlockSizeAttr())
        for (auto [i, d] : llvm::enumerate(size.asArrayRef()))
          if (i < 3)
            block[i] = d;
  }

  void run();

private:
  struct Uses {
    std::string name;
    SmallVector<Operation *> inits, arrives, waits;
  };

  /// The op's ancestor in the kernel's body block.
  Operation *topLevel(Operation *op) const {
    while (op->getParentOp() != kernel)
      op = op->getParentOp();
    return op;
  }
  /// Threads that pass `cond` (true branch), when it is a thread guard.
  std::optional<int64_t> guardThreads(Value cond, bool truth) const;
  /// Threads that run `op` each time its loops run, with its one loop (or
  /// null); reports and returns nullopt outside the model.
  std::optional<std::pair<int64_t, scf::ForOp>>
  executors(Operation *op, StringRef what, bool counts = true);
  std::optional<Parity> parity(Value v, scf::ForOp loop, int depth = 0) const;

  /// An arrive statement: each completes one phase.
  struct Round {
    Operation *op;
    scf::ForOp loop;
    int64_t threads;
  };
  void check(Uses &uses);
  /// The init of `uses` and its count C: one init, a positive constant
  /// count, by one thread or all, outside loops.
  std::optional<std::pair<nvgpu::MBarrierInitOp, int64_t>>
  checkInit(Uses &uses);
  /// Whether a block barrier after the init precedes every other use.
  bool checkVisible(Uses &uses, nvgpu::MBarrierInitOp init);
  /// The arrives: each by C threads, at most one per loop.
  std::optional<SmallVector<Round>>
  getRounds(Uses &uses, nvgpu::MBarrierInitOp init, int64_t count);
  /// Whether `wait` waits for the parity of the phase its round completes.
  bool checkWait(nvgpu::MBarrierTryWaitParityOp wait, const std::string &name,
                 ArrayRef<Round> rounds);
  /// In `loop`: the round's arrive is before the wait in the iteration and,
  /// when fewer threads than the block's arrive, a block barrier separates
  /// the wait from the next iteration's arrive.
  bool checkLoopRound(nvgpu::MBarrierTryWaitParityOp wait, scf::ForOp loop,
                      const std::string &name, ArrayRef<Round> rounds);
  /// At the top level: after `before` arrives, at least one.
  bool checkTopLevelRounds(nvgpu::MBarrierTryWaitParityOp wait,
                           const std::string &name, int64_t before,
                           ArrayRef<Round> rounds);
  /// In iteration k the wait needs phase before + k (top level: before - 1).
  bool checkParity(nvgpu::MBarrierTryWaitParityOp wait, scf::ForOp loop,
                   const std::string &name, int64_t before);

  Operation *kernel;
  const UniformityInfo &uniformity;
  llvm::function_ref<void(StringRef, Operation *, const Twine &)> report;
  int64_t block[3] = {0, 0, 0};
};

std::optional<int64_t> MBarrierChecker::guardThreads(Value cond,
                                                     bool truth) const {
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp || !truth || block[0] <= 0 || block[1] != 1 || block[2] != 1)
    return std::nullopt;
  auto tid = cmp.getLhs().getDefiningOp<gpu::ThreadIdOp>();
  std::optional<int64_t> c = constantOf(cmp.getRhs());
  if (!tid || tid.getDimension() != gpu::Dimension::x || !c || *c < 0)
    return std::nullopt;
  using P = arith::CmpIPredicate;
  switch (cmp.getPredicate()) {
  case P::eq:
    return *c < block[0] ? 1 : 0;
  case P::ult:
  case P::slt:
    return std::min(*c, block[0]);
  case P::ule:
  case P::sle:
    return std::min(*c + 1, block[0]);
  default:
    return std::nullopt;
  }
}

std::optional<std::pair<int64_t, scf::ForOp>>
MBarrierChecker::executors(Operation *op, StringRef what, bool counts) {
  int64_t threads = block[0] * block[1] * block[2];
  scf::ForOp loop;
  bool guarded = false;
  Operation *child = op;
  for (Operation *parent = op->getParentOp(); parent != kernel;
       child = parent, parent = parent->getParentOp()) {
    if (auto ifOp = dyn_cast<scf::IfOp>(parent)) {
      bool truth = child->getParentRegion() == &ifOp.getThenRegion();
      std::optional<int64_t> n = guardThreads(ifOp.getCondition(), truth);
      if (n && !guarded && !loop) {
        threads = *n;
        guarded = true;
        continue;
      }
      // A wait by some threads only is fine: waiting counts for nothing.
      if (!counts)
        continue;
      if (uniformity.isDivergent(ifOp.getCondition())) {
        report(check::kMBarrierPhase, op,
               what + " is under divergent control (" + describeOp(ifOp) +
                   "): how many threads arrive per phase is not known, so "
                   "the count the mbarrier completes on cannot be matched");
        return std::nullopt;
      }
      report(check::kUnprovable, op,
             what + " under a data-dependent " + describeOp(ifOp) +
                 " is not modelled by the mbarrier check");
      return std::nullopt;
    }
    auto forOp = dyn_cast<scf::ForOp>(parent);
    if (!forOp || loop) {
      report(check::kUnprovable, op,
             what + " inside " + describeOp(parent) +
                 " is not modelled by the mbarrier check (top level or one "
                 "scf.for only)");
      return std::nullopt;
    }
    if (uniformity.hasDivergentControl(forOp)) {
      report(check::kMBarrierPhase, op,
             what + " is in a loop whose trip count differs between threads (" +
                 describeOp(forOp) + "): arrivals per phase are not known");
      return std::nullopt;
    }
    loop = forOp;
  }
  return std::make_pair(threads, loop);
}

std::optional<Parity> MBarrierChecker::parity(Value v, scf::ForOp loop,
                                              int depth) const {
  if (depth > 16)
    return std::nullopt;
  if (std::optional<int64_t> c = constantOf(v))
    return Parity{0, *c & 1};
  if (loop && v == loop.getInductionVar()) {
    std::optional<int64_t> lb = constantOf(loop.getLowerBound()),
                           step = constantOf(loop.getStep());
    if (!lb || !step)
      return std::nullopt;
    return Parity{*step & 1, *lb & 1};
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // A loop-carried phase bit: constant start, toggled (or kept) by the
    // yield.
    if (!loop || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0)
      return std::nullopt;
    unsigned i = arg.getArgNumber() - 1;
    std::optional<int64_t> init = constantOf(loop.getInitArgs()[i]);
    Value yielded =
        cast<scf::YieldOp>(loop.getBody()->getTerminator()).getOperand(i);
    if (!init)
      return std::nullopt;
    if (yielded == arg)
      return Parity{0, *init & 1};
    Operation *def = yielded.getDefiningOp();
    if (isa_and_nonnull<arith::XOrIOp, arith::AddIOp>(def))
      for (unsigned j = 0; j < 2; ++j)
        if (def->getOperand(j) == arg)
          if (std::optional<int64_t> c = constantOf(def->getOperand(1 - j)))
            return Parity{*c & 1, *init & 1};
    return std::nullopt;
  }
  Operation *op = v.getDefiningOp();
  // Values of the loop body only (or constants): others are not functions
  // of k the check knows.
  if (!op || (loop && !loop->isProperAncestor(op)) || (!loop))
    return std::nullopt;
  auto operand = [&](unsigned i) {
    return parity(op->getOperand(i), loop, depth + 1);
  };
  if (isa<arith::AddIOp, arith::SubIOp, arith::XOrIOp>(op)) {
    std::optional<Parity> x = operand(0), y = operand(1);
    if (x && y)
      return *x + *y;
    return std::nullopt;
  }
  if (isa<arith::MulIOp>(op))
    for (unsigned j = 0; j < 2; ++j)
      if (std::optional<int64_t> c = constantOf(op->getOperand(j)))
        if (std::optional<Parity> x = operand(1 - j))
          return Parity{(x->a * *c) & 1, (x->b * *c) & 1};
  // Low bit kept: x mod 2^n, x & odd, casts.
  if (auto rem = dyn_cast<arith::RemUIOp>(op))
    if (std::optional<int64_t> c = constantOf(rem.getRhs());
        c && *c > 1 && llvm::isPowerOf2_64(*c))
      return operand(0);
  if (auto andOp = dyn_cast<arith::AndIOp>(op))
    for (unsigned j = 0; j < 2; ++j)
      if (std::optional<int64_t> c = constantOf(op->getOperand(j))) {
        if (!(*c & 1))
          return Parity{0, 0};
        return operand(1 - j);
      }
  if (isa<arith::TruncIOp, arith::ExtUIOp, arith::ExtSIOp, arith::IndexCastOp,
          arith::IndexCastUIOp>(op))
    return operand(0);
  // (x mod 2) != 0 and == 0, for x known to be 0 or 1.
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    Operation *lhs = cmp.getLhs().getDefiningOp();
    bool bit = false;
    if (auto rem = dyn_cast_or_null<arith::RemUIOp>(lhs))
      bit = constantOf(rem.getRhs()) == 2;
    if (auto andOp = dyn_cast_or_null<arith::AndIOp>(lhs))
      bit = constantOf(andOp.getRhs()) == 1;
    if (!bit || constantOf(cmp.getRhs()) != 0)
      return std::nullopt;
    std::optional<Parity> x = operand(0);
    if (!x)
      return std::nullopt;
    if (cmp.getPredicate() == arith::CmpIPredicate::ne)
      return x;
    if (cmp.getPredicate() == arith::CmpIPredicate::eq)
      return *x + Parity{0, 1};
  }
  return std::nullopt;
}

void MBarrierChecker::run() {
  // Every mbarrier op names a created barrier at a constant index.
  std::map<std::pair<const void *, int64_t>, Uses> all;
  bool modelled = true;
  kernel->walk([&](Operation *op) {
    Value group, id;
    if (auto init = dyn_cast<nvgpu::MBarrierInitOp>(op))
      group = init.getBarriers(), id = init.getMbarId();
    else if (auto arrive = dyn_cast<nvgpu::MBarrierArriveOp>(op))
      group = arrive.getBarriers(), id = arrive.getMbarId();
    else if (auto wait = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(op))
      group = wait.getBarriers(), id = wait.getMbarId();
    else if (auto create = dyn_cast<nvgpu::MBarrierCreateOp>(op)) {
      auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
          create.getBarriers().getType().getMemorySpace());
      if (!space || space.getValue() != gpu::AddressSpace::Workgroup) {
        report(check::kUnprovable, op,
               "an mbarrier outside workgroup memory is not modelled");
        modelled = false;
      }
      return;
    } else
      return;
    auto create = group.getDefiningOp<nvgpu::MBarrierCreateOp>();
    std::optional<int64_t> index = constantOf(id);
    unsigned count =
        create ? create.getBarriers().getType().getNumBarriers() : 0;
    if (!create || !index || *index < 0 || *index >= int64_t(count)) {
      report(check::kUnprovable, op,
             "an mbarrier that is not one of an nvgpu.mbarrier.create group "
             "at a constant index in range is not modelled");
      modelled = false;
      return;
    }
    Uses &uses = all[{create.getOperation(), *index}];
    uses.name =
        llvm::formatv("mbarrier {0} of {1}", *index, describeOp(create)).str();
    if (isa<nvgpu::MBarrierInitOp>(op))
      uses.inits.push_back(op);
    else if (isa<nvgpu::MBarrierArriveOp>(op))
      uses.arrives.push_back(op);
    else
      uses.waits.push_back(op);
  });
  if (!modelled || all.empty())
    return;
  if (block[0] <= 0) {
    report(check::kUnprovable, kernel,
           "mbarriers in a kernel without known_block_size: arrivals per "
           "phase cannot be counted");
    return;
  }
  for (auto &[key, uses] : all)
    check(uses);
}

std::optional<std::pair<nvgpu::MBarrierInitOp, int64_t>>
MBarrierChecker::checkInit(Uses &uses) {
  const std::string &name = uses.name;
  Operation *firstUse = !uses.arrives.empty() ? uses.arrives.front()
                        : !uses.waits.empty() ? uses.waits.front()
                                              : nullptr;
  if (uses.inits.empty()) {
    if (firstUse)
      report(check::kMBarrierPhase, firstUse,
             name + " is used but never initialized (nvgpu.mbarrier.init)");
    return std::nullopt;
  }
  if (uses.inits.size() > 1) {
    report(check::kUnprovable, uses.inits[1],
           name + " is initialized more than once: not modelled");
    return std::nullopt;
  }
  auto init = cast<nvgpu::MBarrierInitOp>(uses.inits.front());
  std::optional<int64_t> count = constantOf(init.getCount());
  if (!count || *count < 1) {
    report(check::kUnprovable, init,
           name + " is initialized with a count that is not a positive "
                  "constant: not modelled");
    return std::nullopt;
  }
  // The init: by one thread or all, outside loops.
  int64_t threads = block[0] * block[1] * block[2];
  {
    std::optional<std::pair<int64_t, scf::ForOp>> by =
        executors(init, "the mbarrier init");
    if (!by)
      return std::nullopt;
    int64_t initThreads = by->first;
    if (Value pred = init.getPredicate()) {
      std::optional<int64_t> n = guardThreads(pred, true);
      initThreads = n && by->first == threads ? *n : -1;
    }
    if (by->second || (initThreads != 1 && initThreads != threads)) {
      report(check::kUnprovable, init,
             name + " is initialized in a loop, or by neither one thread nor "
                    "all: not modelled");
      return std::nullopt;
    }
  }
  return std::make_pair(init, *count);
}

bool MBarrierChecker::checkVisible(Uses &uses, nvgpu::MBarrierInitOp init) {
  const std::string &name = uses.name;
  // A block barrier after the init makes it visible to every thread.
  Operation *initTop = topLevel(init);
  Operation *visible = nullptr;
  for (Operation *op = initTop->getNextNode(); op && !visible;
       op = op->getNextNode())
    if (isBlockBarrier(op))
      visible = op;
  bool ordered = true;
  for (Operation *use : llvm::concat<Operation *>(uses.arrives, uses.waits)) {
    Operation *top = topLevel(use);
    if (!visible || !visible->isBeforeInBlock(top)) {
      report(check::kMBarrierPhase, use,
             describeOp(use) + " uses " + name +
                 " before a block barrier makes its initialization (" +
                 describeOp(init) + ") visible to every thread");
      ordered = false;
    }
  }
  return ordered;
}

std::optional<SmallVector<MBarrierChecker::Round>>
MBarrierChecker::getRounds(Uses &uses, nvgpu::MBarrierInitOp init,
                           int64_t count) {
  const std::string &name = uses.name;
  SmallVector<Round> rounds;
  for (Operation *arrive : uses.arrives) {
    std::optional<std::pair<int64_t, scf::ForOp>> by =
        executors(arrive, "the arrive on " + name);
    if (!by)
      return std::nullopt;
    if (by->first != count) {
      report(check::kMBarrierPhase, arrive,
             llvm::formatv("{0} on {1} each time, but it was "
                           "initialized with count {2} ({3}): {4}",
                           threadsArrive(by->first), name, count,
                           describeOp(init),
                           by->first < count
                               ? "the phase never completes"
                               : "phases complete early, before the threads "
                                 "that wait on them arrived")
                 .str());
      return std::nullopt;
    }
    if (by->second && llvm::any_of(rounds, [&](const Round &r) {
          return r.loop == by->second;
        })) {
      report(check::kUnprovable, arrive,
             "more than one arrive on " + name +
                 " in one loop is not modelled");
      return std::nullopt;
    }
    rounds.push_back({arrive, by->second, by->first});
  }
  return rounds;
}

bool MBarrierChecker::checkLoopRound(nvgpu::MBarrierTryWaitParityOp wait,
                                     scf::ForOp loop, const std::string &name,
                                     ArrayRef<Round> rounds) {
  const Round *own = nullptr;
  for (const Round &r : rounds)
    if (r.loop == loop)
      own = &r;
  Block *body = loop.getBody();
  auto inBody = [&](Operation *x) { return body->findAncestorOpInBlock(*x); };
  if (!own || !inBody(own->op)->isBeforeInBlock(inBody(wait))) {
    report(check::kUnprovable, wait,
           "a wait on " + name +
               " in a loop without an arrive before it in the same "
               "iteration is not modelled");
    return false;
  }
  // Fewer arrivers than threads: a barrier must keep the next round's
  // arrive behind every thread's wait.
  if (own->threads < block[0] * block[1] * block[2]) {
    Operation *a = inBody(own->op), *w = inBody(wait);
    bool separated = false;
    for (Operation &x : *body)
      if (isBlockBarrier(&x) &&
          (x.isBeforeInBlock(a) || w->isBeforeInBlock(&x)))
        separated = true;
    if (!separated) {
      report(check::kMBarrierPhase, wait,
             llvm::formatv("{0} on {1} per iteration, "
                           "fewer than the block's, and no block barrier "
                           "separates a wait from the next iteration's "
                           "arrive: the phase can complete again (its "
                           "parity flip back) before a slow thread waits",
                           threadsArrive(own->threads), name)
                 .str());
      return false;
    }
  }
  return true;
}

bool MBarrierChecker::checkTopLevelRounds(nvgpu::MBarrierTryWaitParityOp wait,
                                          const std::string &name,
                                          int64_t before,
                                          ArrayRef<Round> rounds) {
  if (before == 0) {
    report(check::kMBarrierPhase, wait,
           "waits on " + name +
               " before any arrive on it: no phase has completed for it "
               "to see");
    return false;
  }
  if (before > 1 && llvm::any_of(rounds, [&](const Round &r) {
        return r.threads < block[0] * block[1] * block[2];
      })) {
    report(check::kUnprovable, wait,
           "repeated arrives by fewer threads than the block outside a "
           "loop are not modelled");
    return false;
  }
  return true;
}

bool MBarrierChecker::checkParity(nvgpu::MBarrierTryWaitParityOp wait,
                                  scf::ForOp loop, const std::string &name,
                                  int64_t before) {
  std::optional<Parity> p = parity(wait.getPhaseParity(), loop);
  if (!p) {
    report(check::kUnprovable, wait,
           "the parity this wait on " + name +
               " expects is not a function of the loop iteration the "
               "mbarrier check evaluates");
    return false;
  }
  // In iteration k the wait needs phase before + k (top level: before - 1).
  Parity want = loop ? Parity{1, before & 1} : Parity{0, (before - 1) & 1};
  if (p->a != want.a || p->b != want.b) {
    auto text = [&](Parity x) {
      if (!loop)
        return std::to_string(x.b);
      return x.a ? (x.b ? std::string("(k + 1) mod 2") : std::string("k mod 2"))
                 : std::to_string(x.b);
    };
    report(check::kMBarrierPhase, wait,
           llvm::formatv("waits on {0} for parity {1}{2}, but the phase "
                         "its arrive completes has parity {3}: the wait "
                         "{4}",
                         name, text(*p), loop ? " in iteration k" : "",
                         text(want),
                         loop ? "passes early or blocks for good in some "
                                "iterations"
                              : "passes before the phase completes, or "
                                "blocks for good")
               .str());
    return false;
  }
  return true;
}

bool MBarrierChecker::checkWait(nvgpu::MBarrierTryWaitParityOp wait,
                                const std::string &name,
                                ArrayRef<Round> rounds) {
  std::optional<std::pair<int64_t, scf::ForOp>> by =
      executors(wait, "the wait on " + name, /*counts=*/false);
  if (!by)
    return false;
  scf::ForOp loop = by->second;
  Operation *top = topLevel(wait);
  // Phases completed before `top` at the top level; loops of arrives
  // before it are not counted statically.
  int64_t before = 0;
  bool counted = true;
  for (const Round &r : rounds) {
    Operation *rtop = topLevel(r.op);
    if (rtop == top && loop && r.loop == loop)
      continue;
    if (!rtop->isBeforeInBlock(top) && rtop != top)
      continue;
    if (r.loop)
      counted = false;
    else
      ++before;
  }
  if (!counted) {
    report(check::kUnprovable, wait,
           "a wait on " + name + " after a loop of its phases is not modelled");
    return false;
  }
  if (loop ? !checkLoopRound(wait, loop, name, rounds)
           : !checkTopLevelRounds(wait, name, before, rounds))
    return false;
  return checkParity(wait, loop, name, before);
}

void MBarrierChecker::check(Uses &uses) {
  std::optional<std::pair<nvgpu::MBarrierInitOp, int64_t>> initAndCount =
      checkInit(uses);
  if (!initAndCount)
    return;
  auto [init, count] = *initAndCount;
  if (!checkVisible(uses, init))
    return;
  std::optional<SmallVector<Round>> rounds = getRounds(uses, init, count);
  if (!rounds)
    return;
  // Waits: the parity of the phase their round completes.
  for (Operation *op : uses.waits)
    if (!checkWait(cast<nvgpu::MBarrierTryWaitParityOp>(op), uses.name,
                   *rounds))
      return;
}

} // namespace

void mlir::amk::checkMBarriers(
    Operation *kernel, const UniformityInfo &uniformity,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report) {
  MBarrierChecker(kernel, uniformity, report).run();
}
