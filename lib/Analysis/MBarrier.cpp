//===- MBarrier.cpp - mbarrier phase check --------------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// An mbarrier completes a phase when its count of arrivals is reached; a
// `try_wait.parity p` blocks until the phase of parity p completes (and
// returns at once if that parity's latest phase is already done). The model:
//
//  - each barrier of an `nvgpu.mbarrier.create` group (constant index) is
//    initialized once, at the kernel's top level, by one thread (a guard or
//    predicate `thread_id == c` on every dimension the block spans), and a
//    block barrier separates the init from every other use;
//  - its arrives and waits run in one "round scope": the kernel's top level,
//    or the body of one scf.for at the top level, with one arrive per
//    iteration; arrives and waits run unguarded: every thread of the known
//    block arrives, then waits. (So no thread can lap another: a phase needs
//    every thread's arrive, which follows its wait for the phase before.
//    One-thread arrives, as TMA producers use, need a second barrier to stop
//    the producer from running phases ahead: not modelled yet.)
//  - rounds are counted in program order: the n-th arrive completes phase
//    n - 1, so a wait after it must name parity (n - 1) mod 2; in a loop,
//    parity (rounds before the loop + iteration) mod 2, which the parity
//    algebra below proves for every iteration at once.
//
//===----------------------------------------------------------------------===//

#include "MBarrier.h"

#include "AMK/Analysis/Harness.h"
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

bool mlir::amk::isModelledMBarrierOp(Operation *op) {
  return isa<nvgpu::MBarrierCreateOp, nvgpu::MBarrierInitOp,
             nvgpu::MBarrierArriveOp, nvgpu::MBarrierTryWaitParityOp>(op);
}

namespace {

std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (v && matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// A value modulo 2 as a function of a loop's iteration number i:
/// (a * i + b) mod 2. `bit` says the value is its own low bit (0 or 1).
struct Parity {
  int a = 0, b = 0;
  bool bit = false;
};

/// Parity of `v` in terms of the iterations of `loop` (null: none).
std::optional<Parity> parityOf(Value v, scf::ForOp loop, int depth = 0) {
  if (depth > 16)
    return std::nullopt;
  if (std::optional<int64_t> c = constantOf(v))
    return Parity{0, int(*c & 1), *c == 0 || *c == 1};
  if (loop && v == loop.getInductionVar()) {
    std::optional<int64_t> lb = constantOf(loop.getLowerBound()),
                           step = constantOf(loop.getStep());
    if (!lb || !step)
      return std::nullopt;
    return Parity{int(*step & 1), int(*lb & 1), false};
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  auto sub = [&](unsigned i) { return parityOf(op->getOperand(i), loop, depth + 1); };
  if (isa<arith::AddIOp, arith::SubIOp, arith::XOrIOp>(op)) {
    auto x = sub(0), y = sub(1);
    if (!x || !y)
      return std::nullopt;
    bool bit = isa<arith::XOrIOp>(op) && x->bit && y->bit;
    return Parity{(x->a + y->a) & 1, (x->b + y->b) & 1, bit};
  }
  if (isa<arith::MulIOp>(op)) {
    auto x = sub(0), y = sub(1);
    if (!x || !y)
      return std::nullopt;
    // One factor must be a constant (its parity is then its b).
    if (x->a == 0 && constantOf(op->getOperand(0)))
      return Parity{(x->b * y->a) & 1, (x->b * y->b) & 1, false};
    if (y->a == 0 && constantOf(op->getOperand(1)))
      return Parity{(y->b * x->a) & 1, (y->b * x->b) & 1, false};
    return std::nullopt;
  }
  // x mod 2, x & 1 and truncation to i1 keep the low bit (x >= 0 for remui).
  if (isa<arith::RemUIOp, arith::AndIOp>(op) && constantOf(op->getOperand(1)) &&
      *constantOf(op->getOperand(1)) == (isa<arith::RemUIOp>(op) ? 2 : 1)) {
    auto x = sub(0);
    if (!x)
      return std::nullopt;
    return Parity{x->a, x->b, true};
  }
  if (auto trunc = dyn_cast<arith::TruncIOp>(op)) {
    auto x = sub(0);
    if (!x || !trunc.getType().isInteger(1))
      return std::nullopt;
    return Parity{x->a, x->b, true};
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp>(op))
    return sub(0);
  // bit == 1 is the bit; bit == 0 (or bit != 1) its negation.
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    auto x = sub(0);
    std::optional<int64_t> c = constantOf(cmp.getRhs());
    if (!x || !x->bit || !c || (*c != 0 && *c != 1))
      return std::nullopt;
    bool same;
    if (cmp.getPredicate() == arith::CmpIPredicate::eq)
      same = *c == 1;
    else if (cmp.getPredicate() == arith::CmpIPredicate::ne)
      same = *c == 0;
    else
      return std::nullopt;
    return Parity{x->a, same ? x->b : x->b ^ 1, true};
  }
  return std::nullopt;
}

/// One mbarrier (a group and an index) and its uses, in program order.
struct Barrier {
  Operation *create = nullptr;
  int64_t index = 0;
  SmallVector<Operation *> uses; // init, arrive, try_wait
};

class Checker {
public:
  Checker(Operation *kernel, const UniformityInfo &uniformity,
          llvm::function_ref<void(StringRef, Operation *, const Twine &)>
              report)
      : kernel(kernel), uniformity(uniformity), report(report) {
    if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
      if (DenseI32ArrayAttr size = func.getKnownBlockSizeAttr())
        block.assign(size.asArrayRef().begin(), size.asArrayRef().end());
  }

  void run();

private:
  void check(Barrier &bar);
  /// The op's ancestor in the kernel's entry block.
  Operation *topLevel(Operation *op) const {
    while (op->getParentOp() != kernel)
      op = op->getParentOp();
    return op;
  }
  /// Whether `cond` holds for exactly one thread of the block.
  bool isOneThread(Value cond) const;
  /// How many threads run `op` each time its scope runs it: the block, or
  /// one under a one-thread guard; nullopt when not modelled (reported).
  std::optional<int64_t> arrivingThreads(Operation *op, Operation *scope,
                                         bool allowOneThread);
  void mbarrierError(Operation *at, const Twine &message) {
    report(check::kMBarrier, at, message);
    failed = true;
  }
  void unprovable(Operation *at, const Twine &message) {
    report(check::kUnprovable, at, message);
    failed = true;
  }

  Operation *kernel;
  const UniformityInfo &uniformity;
  llvm::function_ref<void(StringRef, Operation *, const Twine &)> report;
  SmallVector<int64_t, 3> block;
  bool failed = false;
};

bool Checker::isOneThread(Value cond) const {
  if (block.size() != 3)
    return false;
  // Conjuncts `thread_id d == c`, one per dimension the block spans.
  SmallVector<Value> parts{cond};
  SmallVector<bool, 3> pinned(3, false);
  while (!parts.empty()) {
    Value part = parts.pop_back_val();
    if (auto andOp = part.getDefiningOp<arith::AndIOp>()) {
      parts.push_back(andOp.getLhs());
      parts.push_back(andOp.getRhs());
      continue;
    }
    auto cmp = part.getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
      return false;
    Value id = cmp.getLhs();
    std::optional<int64_t> c = constantOf(cmp.getRhs());
    if (!c) {
      id = cmp.getRhs();
      c = constantOf(cmp.getLhs());
    }
    auto tid = id.getDefiningOp<gpu::ThreadIdOp>();
    if (!tid || !c)
      return false;
    unsigned d = static_cast<unsigned>(tid.getDimension());
    if (*c < 0 || *c >= block[d])
      return false; // no thread at all
    pinned[d] = true;
  }
  for (unsigned d = 0; d < 3; ++d)
    if (block[d] > 1 && !pinned[d])
      return false;
  return true;
}

std::optional<int64_t> Checker::arrivingThreads(Operation *op,
                                                Operation *scope,
                                                bool allowOneThread) {
  SmallVector<Value> guards;
  for (Operation *p = op->getParentOp(); p != scope; p = p->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(p);
    if (!ifOp || !ifOp.getThenRegion().isAncestor(op->getParentRegion())) {
      unprovable(op, llvm::formatv("'{0}' under '{1}' is not modelled by the "
                                   "mbarrier check",
                                   op->getName(), p->getName()));
      return std::nullopt;
    }
    guards.push_back(ifOp.getCondition());
  }
  if (auto init = dyn_cast<nvgpu::MBarrierInitOp>(op))
    if (Value pred = init.getPredicate())
      guards.push_back(pred);
  if (guards.empty()) {
    if (block.size() != 3) {
      unprovable(op, "the mbarrier check needs the block size "
                     "(known_block_size) to count arrivals");
      return std::nullopt;
    }
    return block[0] * block[1] * block[2];
  }
  if (allowOneThread && guards.size() == 1 && isOneThread(guards.front()))
    return 1;
  if (llvm::none_of(guards,
                    [&](Value g) { return uniformity.isDivergent(g); })) {
    unprovable(op, llvm::formatv("'{0}' under a uniform condition is not "
                                 "modelled by the mbarrier check",
                                 op->getName()));
    return std::nullopt;
  }
  mbarrierError(op, llvm::formatv("'{0}' runs under thread-dependent control: "
                                  "not every thread of the block reaches it{1}",
                                  op->getName(),
                                  allowOneThread ? " (nor exactly one)" : ""));
  return std::nullopt;
}

void Checker::run() {
  std::map<std::pair<Operation *, int64_t>, Barrier> barriers;
  SmallVector<std::pair<Operation *, int64_t>> order;
  kernel->walk([&](Operation *op) {
    Value group;
    Value index;
    if (auto init = dyn_cast<nvgpu::MBarrierInitOp>(op)) {
      group = init.getBarriers();
      index = init.getMbarId();
    } else if (auto arrive = dyn_cast<nvgpu::MBarrierArriveOp>(op)) {
      group = arrive.getBarriers();
      index = arrive.getMbarId();
    } else if (auto wait = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(op)) {
      group = wait.getBarriers();
      index = wait.getMbarId();
    } else {
      return;
    }
    auto create = group.getDefiningOp<nvgpu::MBarrierCreateOp>();
    if (!create) {
      unprovable(op, "an mbarrier group not created by nvgpu.mbarrier.create "
                     "in this kernel is not modelled");
      return;
    }
    std::optional<int64_t> id = constantOf(index);
    int64_t count = create.getBarriers().getType().getNumBarriers();
    if (!id) {
      unprovable(op, "a dynamic mbarrier index is not modelled");
      return;
    }
    if (*id < 0 || *id >= count) {
      report(check::kOOB, op,
             llvm::formatv("mbarrier index {0} is outside the group of {1}",
                           *id, count));
      failed = true;
      return;
    }
    auto key = std::make_pair(create.getOperation(), *id);
    Barrier &bar = barriers[key];
    if (!bar.create) {
      bar.create = create;
      bar.index = *id;
      order.push_back(key);
    }
    bar.uses.push_back(op);
  });
  for (auto key : order)
    check(barriers[key]);
}

void Checker::check(Barrier &bar) {
  // Initialization: once, by one thread, at the top level, first.
  auto isInit = [](Operation *op) { return isa<nvgpu::MBarrierInitOp>(op); };
  SmallVector<Operation *> inits;
  for (Operation *op : bar.uses)
    if (isInit(op))
      inits.push_back(op);
  if (inits.empty())
    return mbarrierError(bar.uses.front(),
                         llvm::formatv("mbarrier {0} is used but never "
                                       "initialized",
                                       bar.index));
  if (inits.size() > 1)
    return mbarrierError(inits[1], llvm::formatv("mbarrier {0} is initialized "
                                                 "more than once",
                                                 bar.index));
  auto init = cast<nvgpu::MBarrierInitOp>(inits.front());
  Operation *initTop = topLevel(init);
  if (initTop != init && !isa<scf::IfOp>(initTop))
    return unprovable(init, "an mbarrier init inside a loop is not modelled");
  std::optional<int64_t> initThreads =
      arrivingThreads(init, kernel, /*allowOneThread=*/true);
  if (!initThreads)
    return;
  if (*initThreads != 1)
    return mbarrierError(init, llvm::formatv(
                                   "every thread of the block initializes "
                                   "mbarrier {0}: the inits race with each "
                                   "other and with early arrivals; guard it "
                                   "to one thread",
                                   bar.index));
  std::optional<int64_t> expected = constantOf(init.getCount());
  if (!expected)
    return unprovable(init, "a dynamic mbarrier count is not modelled");

  // Every other use at the top level (or in one top-level loop), after a
  // block barrier that follows the init.
  bool visible = false;
  int64_t rounds = 0;    // arrives completed so far, in program order
  bool roundsKnown = true;
  for (Operation *it = initTop->getNextNode(); it; it = it->getNextNode()) {
    if (isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::BarrierOp>(it))
      visible = true;
    SmallVector<Operation *> uses;
    for (Operation *use : bar.uses)
      if (use != init && topLevel(use) == it)
        uses.push_back(use);
    if (uses.empty())
      continue;
    if (!visible)
      return mbarrierError(uses.front(),
                           llvm::formatv("mbarrier {0} is used before a block "
                                         "barrier makes its initialization "
                                         "visible to every thread",
                                         bar.index));
    if (!roundsKnown)
      return unprovable(uses.front(),
                        "mbarrier use after a loop of unknown trip count");
    auto loop = dyn_cast<scf::ForOp>(it);
    Operation *scope = loop ? loop.getOperation() : kernel;
    if (!loop && uses.front() != it && !isa<scf::IfOp>(it))
      return unprovable(uses.front(), llvm::formatv(
                                          "mbarrier use under '{0}' is not "
                                          "modelled",
                                          it->getName()));
    // In a loop: one arrive per iteration, waits after it, all directly in
    // the body (arrives may sit under a one-thread guard).
    int64_t loopArrives = 0;
    for (Operation *use : uses) {
      bool arrive = isa<nvgpu::MBarrierArriveOp>(use);
      Operation *direct = use;
      while (direct->getParentOp() != scope)
        direct = direct->getParentOp();
      if (arrive) {
        std::optional<int64_t> threads =
            arrivingThreads(use, scope, /*allowOneThread=*/false);
        if (!threads)
          return;
        if (*threads != *expected)
          return mbarrierError(
              use, llvm::formatv("mbarrier {0} expects {1} arrivals per "
                                 "phase, but {2} thread(s) arrive here",
                                 bar.index, *expected, *threads));
        if (loop) {
          if (++loopArrives > 1)
            return unprovable(use, "more than one arrive on an mbarrier per "
                                   "loop iteration is not modelled");
        } else {
          ++rounds;
        }
        continue;
      }
      auto wait = cast<nvgpu::MBarrierTryWaitParityOp>(use);
      if (direct != use)
        return unprovable(use, "an mbarrier wait under control flow is not "
                               "modelled");
      if (loop && loopArrives == 0)
        return unprovable(use, "a loop that waits on an mbarrier without "
                               "arriving on it is not modelled");
      if (rounds == 0 && !loop)
        return mbarrierError(use, llvm::formatv(
                                      "waits on mbarrier {0} before this "
                                      "thread's arrive on it: the phase cannot "
                                      "complete",
                                      bar.index));
      // The phase this wait sees complete: rounds - 1 at the top level;
      // rounds-before-the-loop + i in iteration i of a loop.
      std::optional<Parity> parity =
          parityOf(wait.getPhaseParity(), loop ? loop : scf::ForOp());
      if (!parity)
        return unprovable(use, "the parity of this mbarrier wait is not a "
                               "form the check can evaluate");
      int wantA = loop ? 1 : 0;
      int wantB = int((loop ? rounds : rounds - 1) & 1);
      if (parity->a != wantA || parity->b != wantB) {
        std::string want =
            loop ? llvm::formatv("({0} + iteration) mod 2", rounds).str()
                 : std::to_string(wantB);
        return mbarrierError(
            use, llvm::formatv("waits on mbarrier {0} for the wrong phase: "
                               "the phase completing here has parity {1}",
                               bar.index, want));
      }
    }
    if (loop) {
      std::optional<int64_t> lb = constantOf(loop.getLowerBound()),
                             ub = constantOf(loop.getUpperBound()),
                             step = constantOf(loop.getStep());
      if (lb && ub && step && *step > 0)
        rounds += *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
      else
        roundsKnown = false;
    }
  }
}

} // namespace

void mlir::amk::checkKernelMBarriers(
    Operation *kernel, const UniformityInfo &uniformity,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report) {
  Checker(kernel, uniformity, report).run();
}
