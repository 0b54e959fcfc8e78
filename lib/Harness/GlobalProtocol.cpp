//===- GlobalProtocol.cpp - Counters that order blocks --------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// AMK-GLOBAL-SYNC. A counter is a kernel argument marked `amk.counter` (the
// launch gives it zeroed) that the kernel only signals, with atomic adds of
// positive constants, and polls, with an `scf.while` spinning on an atomic
// read until the count reaches a threshold. The protocol orders blocks:
//
//   writes; barrier; fence.gpu; signal c[f]    (one block, release)
//   poll c[g] >= T; fence.gpu; barrier; reads   (another block, acquire)
//
// LLVM 22's NVPTX emits an atomicrmw as a relaxed `atom` with no fence
// whatever its ordering (acq_rel included; checked with llc), so the
// fences are what makes these a release and an acquire pattern of the PTX
// memory model; the barriers carry the other threads' writes and reads to
// the fencing thread. Then, when the poll's threshold is exactly the sum of
// the signals to its counter element, seeing the threshold means seeing
// every signal, and whatever a signal releases happens before whatever the
// poll acquires when f = g (GlobalProtocol::getEdges, which the global race
// check asks).
//
// The counts are checked by running the protocol's control: for every block
// of the known grid, every iteration of the loops around a signal or poll
// and every branch on block values, the indices, thresholds and thread
// counts are computed. A poll must see exactly its threshold, and the
// waits-for graph must be acyclic: each block's instances in the order it
// runs them, each signal before its counter element, the element before the
// waits on it. Then a topological order ranks the instances, every block
// runs its own in increasing rank and every wait's signals rank below it,
// so the lowest waiting instance always has its signals coming, and no
// interleaving of resident blocks deadlocks. That every block is resident
// is the launch's to ensure: a polling kernel must be `amk.cooperative`,
// launched cooperatively (a grid too large then fails to launch instead of
// hanging). A counter may also be read by the count a signal returns: the
// last block to arrive (GlobalGates.cpp).
//
//===----------------------------------------------------------------------===//

#include "GlobalProtocolPoints.h"

#include "BoundsProver.h"
#include "SharedMemoryModel.h"

#include "AMK/Analysis/Address.h"
#include "AMK/Analysis/LaunchIndex.h"
#include "AMK/Harness/Harness.h"
#include "AMK/Harness/KernelSafety.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"
#include <set>

#include <map>

#define DEBUG_TYPE "amk-global-sync"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::smem;
using namespace mlir::amk::protocol;

/// More signal and poll instances than this: the counts are not checked
/// (AMK-UNPROVABLE).
constexpr int64_t kMaxInstances = 1 << 20;

GlobalProtocol::~GlobalProtocol() = default;

/// The element of a counter that `indices` name, when they are constants.
static std::optional<SmallVector<int64_t, 2>>
getConstantElement(ValueRange indices) {
  SmallVector<int64_t, 2> at;
  for (Value v : indices) {
    std::optional<int64_t> c = getConstantIntValue(v);
    if (!c)
      return std::nullopt;
    at.push_back(*c);
  }
  return at;
}

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

memref::AtomicRMWOp mlir::amk::getPollRead(scf::WhileOp loop,
                                           Value *threshold) {
  if (loop->getNumOperands() || loop->getNumResults() ||
      !llvm::hasSingleElement(loop.getBefore()) ||
      !llvm::hasSingleElement(loop.getAfter()) ||
      !llvm::hasSingleElement(loop.getAfter().front()))
    return {};
  Block &before = loop.getBefore().front();
  auto condition = dyn_cast<scf::ConditionOp>(before.getTerminator());
  if (!condition || !condition.getArgs().empty())
    return {};
  auto cmp = condition.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return {};
  using P = arith::CmpIPredicate;
  // Continue while read < T (or T > read).
  for (bool swapped : {false, true}) {
    auto read = cmp.getOperand(swapped).getDefiningOp<memref::AtomicRMWOp>();
    Value bound = cmp.getOperand(!swapped);
    P pred = cmp.getPredicate();
    bool below = swapped ? pred == P::ugt || pred == P::sgt || pred == P::ne
                         : pred == P::ult || pred == P::slt || pred == P::ne;
    if (!read || !below ||
        loop->isAncestor(bound.getParentRegion()->getParentOp()))
      continue;
    std::optional<int64_t> zero = getConstantIntValue(read.getValue());
    if (zero != 0 || (read.getKind() != arith::AtomicRMWKind::addi &&
                      read.getKind() != arith::AtomicRMWKind::ori))
      continue;
    bool onlyRead = llvm::all_of(before, [&](Operation &op) {
      return &op == read || &op == cmp || &op == condition ||
             isa<arith::ConstantOp>(op);
    });
    if (!onlyRead)
      return {};
    if (threshold)
      *threshold = bound;
    return read;
  }
  return {};
}

bool protocol::isGpuFence(Operation *op) {
  auto membar = dyn_cast<NVVM::MembarOp>(op);
  return membar && (membar.getScope() == NVVM::MemScopeKind::GPU ||
                    membar.getScope() == NVVM::MemScopeKind::SYS);
}

BlockArgument protocol::getKernelArgument(Value memref, Operation *kernel) {
  auto arg = dyn_cast<BlockArgument>(memref);
  if (!arg || arg.getOwner()->getParentOp() != kernel)
    return {};
  return arg;
}

std::string protocol::describeArgument(BlockArgument arg) {
  return "kernel argument #" + std::to_string(arg.getArgNumber());
}

std::optional<std::pair<Value, int64_t>>
protocol::splitConstantOffset(Value v) {
  int64_t offset = 0;
  for (int depth = 0; depth < 8; ++depth) {
    Operation *op = v.getDefiningOp();
    if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op))
      break;
    std::optional<int64_t> c = getConstantIntValue(op->getOperand(1));
    Value base = op->getOperand(0);
    if (!c && isa<arith::AddIOp>(op)) {
      c = getConstantIntValue(op->getOperand(0));
      base = op->getOperand(1);
    }
    if (!c)
      break;
    if (*c == INT64_MIN ||
        llvm::AddOverflow(offset, isa<arith::AddIOp>(op) ? *c : -*c, offset))
      return std::nullopt;
    v = base;
  }
  return std::make_pair(v, offset);
}

/// The kernel argument a view chain starts at (null: none).
static BlockArgument getBaseArgument(Value memref, Operation *kernel) {
  for (int depth = 0; depth < 64; ++depth) {
    if (BlockArgument arg = getKernelArgument(memref, kernel))
      return arg;
    Operation *def = memref.getDefiningOp();
    if (auto view = dyn_cast_if_present<ViewLikeOpInterface>(def))
      memref = view.getViewSource();
    else if (auto meta =
                 dyn_cast_if_present<memref::ExtractStridedMetadataOp>(def))
      memref = meta.getSource();
    else
      return {};
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Collection
//===----------------------------------------------------------------------===//

GlobalProtocol::GlobalProtocol(
    const Model &model, ThreadEvaluator &threads, ArrayRef<int64_t> grid,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report)
    : model(model), threads(threads), report(report),
      grid(grid.begin(), grid.end()) {
  collect();
  if (points.empty())
    return;
  bool ok = checkAccesses();
  for (Point &p : points)
    ok &= p.poll ? locateAcquire(p) : locateRelease(p);
  collectGates();
  collectTicketPolls();
  ok &= enumerate(grid);
  // (Resets are judged by the gates the counts proved.)
  ok = checkCounterStarts() && ok;
  proved = ok;
  if (proved) {
    collectChains();
    collectRelays();
    collectGathers();
  }
}

void GlobalProtocol::collect() {
  Operation *kernel = model.kernel;
  kernel->walk([&](scf::WhileOp loop) {
    Point p;
    p.poll = loop;
    p.access = getPollRead(loop, &p.threshold);
    if (!p.access)
      return; // the structure check reports it.
    p.counter = getKernelArgument(p.access.getMemref(), kernel);
    if (!p.counter) {
      report(check::kUnprovable, loop,
             describeOp(loop) +
                 " polls a buffer that is not a kernel argument: the "
                 "protocol check models counters that are arguments");
      return;
    }
    counters.insert(p.counter.getAsOpaquePointer());
    points.push_back(p);
  });
  collectGatedCounters();
  if (counters.empty())
    return;
  llvm::SmallPtrSet<Operation *, 8> reads;
  for (const Point &p : points)
    reads.insert(p.access);
  kernel->walk([&](memref::AtomicRMWOp rmw) {
    BlockArgument counter = getKernelArgument(rmw.getMemref(), kernel);
    if (!counter || !isCounter(counter.getAsOpaquePointer()) ||
        reads.contains(rmw))
      return;
    std::optional<int64_t> amount = getPositiveAdd(rmw);
    if (!amount)
      return; // checkAccesses reports it.
    Point p;
    p.access = rmw;
    p.amount = *amount;
    p.counter = counter;
    points.push_back(p);
  });
  for (Point &p : points)
    p.element = getConstantElement(p.access.getIndices());
}

bool GlobalProtocol::checkAccesses() {
  Operation *kernel = model.kernel;
  bool ok = true;
  llvm::SmallPtrSet<Operation *, 8> known;
  for (const Point &p : points)
    known.insert(p.access);
  kernel->walk([&](Operation *op) {
    FailureOr<SmallVector<MemoryAccess>> list = getMemoryAccesses(op);
    if (failed(list) || known.contains(op))
      return;
    for (const MemoryAccess &access : *list) {
      BlockArgument base = getBaseArgument(access.memref, kernel);
      if (!base || !isCounter(base.getAsOpaquePointer()))
        continue;
      // A gated counter's reset (checkCounterStarts judges where it is).
      auto store = dyn_cast<memref::StoreOp>(op);
      if (store && store.getMemref() == base &&
          gatedCounters.contains(base.getAsOpaquePointer()) &&
          getConstantIntValue(store.getValue()) == 0) {
        resets.push_back(store);
        return;
      }
      report(check::kGlobalSync, op,
             describeOp(op) + " touches " + describeArgument(base) +
                 ", a counter of the protocol between blocks: a counter "
                 "may only be signalled (memref.atomic_rmw addi of a "
                 "positive constant on the argument itself), polled, and "
                 "reset to 0 by the last block to arrive, or the counts "
                 "blocks wait for or test are not the ones they see");
      ok = false;
      return;
    }
  });
  // (Gates wait for nothing: their blocks need no others resident.)
  auto poll = llvm::find_if(points, [](const Point &p) { return p.poll; });
  if (poll != points.end() && !kernel->hasAttr("amk.cooperative")) {
    report(check::kGlobalSync, poll->op(),
           describeOp(poll->op()) +
               " waits for other blocks, so every block of the launch must "
               "be resident at once: mark the kernel `amk.cooperative` (it "
               "is then launched cooperatively, and a grid the GPU cannot "
               "hold at once fails to launch instead of hanging)");
    ok = false;
  }
  return ok;
}

/// The nearest op after `op` in its block (before it, unless `forward`)
/// that `match` accepts, or null.
static Operation *findInBlock(Operation *op, bool forward,
                              llvm::function_ref<bool(Operation *)> match) {
  for (Operation *o = forward ? op->getNextNode() : op->getPrevNode(); o;
       o = forward ? o->getNextNode() : o->getPrevNode())
    if (match(o))
      return o;
  return nullptr;
}

/// The gpu fence nearest `op` in its thread, after it (before it, unless
/// `forward`), in its block or in that of an ancestor up to `anchor`.
static Operation *findFence(Operation *op, Operation *anchor, bool forward) {
  for (Operation *c = op;; c = c->getParentOp()) {
    if (Operation *fence = findInBlock(c, forward, isGpuFence))
      return fence;
    if (c == anchor)
      return nullptr;
  }
}

/// `op`, or its outermost ancestor reached through scf.ifs on the thread
/// alone.
static Operation *getAnchor(Operation *op, ThreadEvaluator &threads) {
  Operation *anchor = op;
  while (auto ifOp = dyn_cast_if_present<scf::IfOp>(anchor->getParentOp())) {
    if (!threads.isThreadOnly(ifOp.getCondition()))
      break;
    anchor = ifOp;
  }
  return anchor;
}

bool GlobalProtocol::locateRelease(Point &s) {
  s.anchor = getAnchor(s.access, threads);
  Operation *fence = findFence(s.access, s.anchor, /*forward=*/false);
  if (!fence) {
    report(check::kGlobalSync, s.access,
           describeOp(s.access) +
               " signals a counter with no gpu-scope fence before it in its "
               "thread: a relaxed atomic alone releases nothing, so a block "
               "that sees the count may not see the writes before it (put "
               "nvvm.memory.barrier #nvvm.mem_scope<gpu> before the signal)");
    return false;
  }
  s.fence = fence;
  // The barrier that brings the block's writes to the fencing thread: the
  // last one before the fence (or before the anchor, when the fence is in
  // it).
  Operation *from =
      fence->getBlock() == s.anchor->getBlock() ? fence : s.anchor;
  s.limit = findInBlock(from, /*forward=*/false, isBlockBarrier);
  // Inside the anchor (the branches on the thread), the nearest barrier of
  // every thread that runs its block (a named barrier of a warp-specialized
  // kernel's consumers) brings their writes to the fencing thread too.
  for (Operation *at = fence; at != s.anchor; at = at->getParentOp())
    if (Operation *bar = findInBlock(at, /*forward=*/false, [&](Operation *o) {
          return isBarrier(o);
        })) {
      s.innerAnchor = at;
      s.innerLimit = bar;
      break;
    }
  return true;
}

bool GlobalProtocol::isBarrier(Operation *op) const {
  return NamedBarriers::ordersItsBlock(model.named, op);
}

/// What a relay runs along: a block id (`dim`), or the induction variable
/// of a tile loop (`value`, dim -1): `for t = block id d to n step (blocks
/// along d)` with n the same in every block, whose iterations over the
/// grid take every t in [0, n).
struct Coordinate {
  Value value;
  int dim = -1;
  bool operator==(const Coordinate &o) const {
    return dim >= 0 ? dim == o.dim : value == o.value;
  }
};

/// The tile loop `iv` belongs to, if it is one (`grid`: the known grid).
static scf::ForOp getTileLoop(Value iv, ArrayRef<int64_t> grid,
                              const Model &model) {
  auto arg = dyn_cast<BlockArgument>(iv);
  auto loop =
      arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
  if (!loop || loop.getInductionVar() != iv ||
      model.uniformity.isDivergent(loop.getUpperBound(), ThreadScope::Grid))
    return {};
  std::optional<LaunchIndex> lb =
      getLaunchIndex(loop.getLowerBound().getDefiningOp());
  if (!lb || lb->kind != LaunchIndex::Kind::BlockId)
    return {};
  std::optional<LaunchIndex> step =
      getLaunchIndex(loop.getStep().getDefiningOp());
  std::optional<int64_t> constant = getConstantIntValue(loop.getStep());
  bool blocks =
      step ? step->kind == LaunchIndex::Kind::GridDim && step->dim == lb->dim
           : constant && lb->dim < int(grid.size()) &&
                 *constant == grid[lb->dim];
  return blocks ? loop : scf::ForOp();
}

/// A coordinate plus a constant.
struct CoordinateOffset {
  Coordinate at;
  int64_t offset;
};
static std::optional<CoordinateOffset>
getCoordinateOffset(Value v, ArrayRef<int64_t> grid, const Model &model) {
  std::optional<std::pair<Value, int64_t>> split = splitConstantOffset(v);
  if (!split)
    return std::nullopt;
  auto [base, offset] = *split;
  if (auto id = base.getDefiningOp<gpu::BlockIdOp>())
    return CoordinateOffset{{base, static_cast<int>(id.getDimension())},
                            offset};
  if (getTileLoop(base, grid, model))
    return CoordinateOffset{{base, -1}, offset};
  return std::nullopt;
}

/// The lower bounds on coordinates (coordinate, first value) that `cond`
/// states, when it is a conjunction of tests of the thread alone and of
/// `coordinate >= c` (or `> c`) with constants c >= 0: some thread of every
/// block that passes the bounds takes the branch.
static std::optional<SmallVector<std::pair<Coordinate, int64_t>, 2>>
getLowerBounds(Value cond, ThreadEvaluator &threads, ArrayRef<int64_t> grid,
               const Model &model) {
  SmallVector<Value> parts;
  bounds::conjuncts(cond, parts);
  SmallVector<std::pair<Coordinate, int64_t>, 2> out;
  using P = arith::CmpIPredicate;
  for (Value part : parts) {
    if (threads.isThreadOnly(part))
      continue;
    auto cmp = part.getDefiningOp<arith::CmpIOp>();
    std::optional<int64_t> c =
        cmp ? getConstantIntValue(cmp.getRhs()) : std::nullopt;
    std::optional<CoordinateOffset> at =
        cmp ? getCoordinateOffset(cmp.getLhs(), grid, model) : std::nullopt;
    if (!c || !at || at->offset != 0 || *c < 0 || *c == INT64_MAX ||
        !llvm::is_contained({P::sge, P::uge, P::sgt, P::ugt},
                            cmp.getPredicate()))
      return std::nullopt;
    bool strict = cmp.getPredicate() == P::sgt || cmp.getPredicate() == P::ugt;
    out.push_back({at->at, strict ? *c + 1 : *c});
  }
  return out;
}

bool GlobalProtocol::locateAcquire(Point &p) {
  p.anchor = getAnchor(p.poll, threads);
  Operation *fence = findFence(p.poll, p.anchor, /*forward=*/true);
  if (!fence) {
    report(check::kGlobalSync, p.poll,
           describeOp(p.poll) +
               " polls a counter with no gpu-scope fence after it in its "
               "thread: a relaxed atomic alone acquires nothing, so the "
               "reads after it may see older values than the signals it saw "
               "(put nvvm.memory.barrier #nvvm.mem_scope<gpu> after the "
               "poll)");
    return false;
  }
  p.fence = fence;
  bool atAnchor = fence->getBlock() == p.anchor->getBlock();
  // Every thread polled and fenced: what follows the fence is acquired.
  // Else a barrier after the fence brings the acquire to the other threads.
  p.limit = atAnchor && p.anchor == p.poll
                ? fence
                : findInBlock(atAnchor ? fence : p.anchor, /*forward=*/true,
                              isBlockBarrier);
  // Past branches that bound block ids (and test the thread), a barrier
  // after them brings the acquire to the blocks that pass the bounds.
  Operation *outer = p.anchor;
  SmallVector<std::pair<int, int64_t>, 2> guards;
  while (auto ifOp = dyn_cast_if_present<scf::IfOp>(outer->getParentOp())) {
    std::optional<SmallVector<std::pair<Coordinate, int64_t>, 2>> bounds =
        outer->getParentRegion() == &ifOp.getThenRegion()
            ? getLowerBounds(ifOp.getCondition(), threads, grid, model)
            : std::nullopt;
    // (Bounds on block ids only: a loop's iterations are not blocks.)
    if (!bounds || llvm::any_of(*bounds, [](const auto &bound) {
          return bound.first.dim < 0;
        }))
      break;
    for (auto [at, from] : *bounds)
      guards.push_back({at.dim, from});
    outer = ifOp;
  }
  if (outer != p.anchor && !guards.empty() && outer->isAncestor(fence)) {
    p.guardedAnchor = outer;
    p.guardedLimit = findInBlock(outer, /*forward=*/true, isBlockBarrier);
    p.guards = std::move(guards);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Counting
//===----------------------------------------------------------------------===//

namespace {
/// Runs the control around the protocol's points for every block.
class Enumeration {
public:
  using TicketPolls = llvm::DenseMap<const GlobalProtocol::Point *,
                                     const GlobalProtocol::Point *>;
  using GateThresholds =
      llvm::DenseMap<const GlobalProtocol::Point *, SmallVector<Value, 1>>;
  Enumeration(const Model &model, ThreadEvaluator &threads,
              ArrayRef<int64_t> grid, const TicketPolls &ticketPoll,
              const GateThresholds &gateThresholds)
      : model(model), threads(threads), ticketPoll(ticketPoll),
        gateThresholds(gateThresholds) {
    for (int d = 0; d < 3; ++d)
      this->grid[d] = d < int(grid.size()) ? grid[d] : 1;
  }

  /// A poll instance: where it waits, for what, and in which block.
  struct Wait {
    const GlobalProtocol::Point *poll;
    std::vector<int64_t> index;
    int64_t threshold;
    int64_t block[3];
    unsigned node;
  };
  /// What the signals add to one counter element, and its node; the
  /// signals' tickets and nodes (unticketed: some signal has none, or adds
  /// more than 1).
  struct Tally {
    int64_t sum = 0;
    unsigned node;
    std::vector<std::pair<int64_t, unsigned>> tickets;
    bool unticketed = false;
  };

  bool run(ArrayRef<GlobalProtocol::Point> points);
  /// Whether the signals of `tally` take turns: tickets 0, 1, ..., sum - 1
  /// (sorted by `run`), so that a wait for `threshold` <= sum has seen
  /// exactly those below it.
  static bool takesTurns(const Tally &tally, int64_t threshold) {
    if (tally.unticketed || threshold > tally.sum ||
        int64_t(tally.tickets.size()) != tally.sum)
      return false;
    for (auto [i, ticket] : llvm::enumerate(tally.tickets))
      if (ticket.first != int64_t(i))
        return false;
    return true;
  }
  /// Whether each node can complete: the waits-for graph (each block's
  /// instances in program order; each signal before its counter element,
  /// the element before each wait on it) ordered topologically, a node on
  /// or behind a cycle never completes.
  std::vector<bool> completing() const;

  int64_t grid[3];
  std::vector<Wait> waits;
  /// How many instances of each point ran over the grid.
  llvm::DenseMap<const GlobalProtocol::Point *, int64_t> instancesOf;
  /// The counter elements each signal reached.
  llvm::DenseMap<const GlobalProtocol::Point *, std::set<std::vector<int64_t>>>
      elementsOf;
  std::map<std::pair<const void *, std::vector<int64_t>>, Tally> tallies;
  /// Each gate threshold's value, the same at every instance of its signal
  /// (nullopt: it differs between them, or is not computed).
  llvm::DenseMap<Value, std::optional<int64_t>> gateValues;
  /// Why the counts could not be computed, and where.
  std::string whyNot;
  Operation *at = nullptr;

private:
  bool visit(Block &block);
  bool record(const GlobalProtocol::Point &p);
  /// The waits' edges: from their element (every signal to it), or, where
  /// its signals take turns, from the signals of the tickets below.
  void linkWaits();
  std::optional<int64_t> evaluate(Value v);
  bool fail(Operation *op, const Twine &why) {
    at = op;
    whyNot = why.str();
    return false;
  }

  const Model &model;
  ThreadEvaluator &threads;
  const TicketPolls &ticketPoll;
  const GateThresholds &gateThresholds;
  /// This block's latest instance of each poll: its element and threshold.
  llvm::DenseMap<const GlobalProtocol::Point *,
                 std::pair<std::vector<int64_t>, int64_t>>
      latestPoll;
  llvm::DenseMap<Operation *, const GlobalProtocol::Point *> pointAt;
  llvm::SmallPtrSet<Operation *, 16> holders;
  unsigned addNode() {
    successors.emplace_back();
    return successors.size() - 1;
  }

  llvm::DenseMap<Value, int64_t> inductions;
  int64_t block[3] = {0, 0, 0};
  int64_t instances = 0;
  std::vector<SmallVector<unsigned, 2>> successors;
  /// The block's latest instance (none: -1).
  int64_t previous = -1;
};
} // namespace

std::optional<int64_t> Enumeration::evaluate(Value v) {
  auto leaf = [&](Value x) -> std::optional<int64_t> {
    if (std::optional<int64_t> c = getConstantIntValue(x))
      return c;
    if (auto it = inductions.find(x); it != inductions.end())
      return it->second;
    // (A thread id has no value here: it is not uniform over the block.)
    std::optional<LaunchIndex> index = getLaunchIndex(x.getDefiningOp());
    if (!index)
      return std::nullopt;
    switch (index->kind) {
    case LaunchIndex::Kind::BlockId:
      return block[index->dim];
    case LaunchIndex::Kind::GridDim:
      return grid[index->dim];
    case LaunchIndex::Kind::BlockDim:
      return model.block[index->dim];
    case LaunchIndex::Kind::ThreadId:
      return std::nullopt;
    }
    return std::nullopt;
  };
  return evaluateInteger(v, leaf, /*maxDepth=*/65);
}

bool Enumeration::record(const GlobalProtocol::Point &p) {
  if (++instances > kMaxInstances)
    return fail(p.op(), llvm::formatv("more than {0} signal and poll "
                                      "instances to count",
                                      kMaxInstances));
  std::vector<int64_t> index;
  for (Value i : p.access.getIndices()) {
    std::optional<int64_t> x = evaluate(i);
    if (!x)
      return fail(p.access, "its counter index is not computed from block "
                            "ids, loop indices and constants");
    index.push_back(*x);
  }
  if (p.poll) {
    std::optional<int64_t> threshold = evaluate(p.threshold);
    if (!threshold)
      return fail(p.poll, "its threshold is not computed from block ids, "
                          "loop indices and constants");
  }
  auto [it, fresh] =
      tallies.try_emplace({p.counter.getAsOpaquePointer(), index});
  Tally &tally = it->second;
  if (fresh)
    tally.node = addNode();
  unsigned node = addNode();
  if (previous >= 0)
    successors[previous].push_back(node);
  previous = node;
  ++instancesOf[&p];
  if (p.poll) {
    std::optional<int64_t> threshold = evaluate(p.threshold);
    if (!threshold)
      return fail(p.poll, "its threshold is not computed from block ids, "
                          "loop indices and constants");
    waits.push_back(
        {&p, index, *threshold, {block[0], block[1], block[2]}, node});
    latestPoll[&p] = {index, *threshold};
    return true;
  }
  successors[node].push_back(tally.node);
  elementsOf[&p].insert(index);
  if (auto it = gateThresholds.find(&p); it != gateThresholds.end())
    for (Value threshold : it->second) {
      std::optional<int64_t> value = evaluate(threshold);
      auto [at, fresh] = gateValues.try_emplace(threshold, value);
      if (!fresh && at->second != value)
        at->second = std::nullopt;
    }
  int64_t added;
  if (llvm::MulOverflow(p.amount, p.threads, added) ||
      llvm::AddOverflow(tally.sum, added, tally.sum))
    return fail(p.access, "its counts overflow");
  // Its ticket: the threshold of its poll's latest instance in this block,
  // on the same element; 0 where that poll did not run (a signal that
  // waited for nothing may land first), which the poll's threshold must
  // then also say (the race check reads the ticket from it).
  if (added != 1) {
    tally.unticketed = true;
    return true;
  }
  const GlobalProtocol::Point *poll = ticketPoll.lookup(&p);
  auto latest = poll ? latestPoll.find(poll) : latestPoll.end();
  bool polled = latest != latestPoll.end() && latest->second.first == index;
  int64_t ticket = polled ? latest->second.second : 0;
  // (The poll's threshold as evaluated here must be the ticket: an instance
  // from an earlier iteration may have waited for another count.)
  std::optional<int64_t> stated =
      poll ? evaluate(poll->threshold) : std::optional<int64_t>(0);
  if (stated == ticket)
    tally.tickets.push_back({ticket, node});
  else
    tally.unticketed = true;
  return true;
}

void Enumeration::linkWaits() {
  for (auto &[key, tally] : tallies)
    llvm::sort(tally.tickets);
  for (const Wait &w : waits) {
    auto it = tallies.find({w.poll->counter.getAsOpaquePointer(), w.index});
    if (it == tallies.end())
      continue; // nothing signals it: the wait fails its count.
    const Tally &tally = it->second;
    if (tally.sum != w.threshold && takesTurns(tally, w.threshold)) {
      for (auto [ticket, node] : tally.tickets)
        if (ticket < w.threshold)
          successors[node].push_back(w.node);
      continue;
    }
    successors[tally.node].push_back(w.node);
  }
}

bool Enumeration::visit(Block &body) {
  for (auto [position, op] : llvm::enumerate(body)) {
    if (auto it = pointAt.find(&op); it != pointAt.end()) {
      if (!record(*it->second))
        return false;
      continue;
    }
    if (!holders.contains(&op))
      continue;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> lb = evaluate(loop.getLowerBound()),
                             ub = evaluate(loop.getUpperBound()),
                             step = evaluate(loop.getStep());
      if (!lb || !ub || !step || *step <= 0)
        return fail(loop, "its bounds and step are not computed from block "
                          "ids and constants (or the step is not positive)");
      Value iv = loop.getInductionVar();
      for (int64_t i = *lb; i < *ub; i += *step) {
        inductions[iv] = i;
        if (!visit(*loop.getBody()))
          return false;
        if (++instances > kMaxInstances)
          return fail(loop, "too many iterations to count");
      }
      inductions.erase(iv);
    } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      // A branch on the thread runs both sides (the points' thread counts
      // hold its conditions); a branch on block values runs one.
      bool both = threads.isThreadOnly(ifOp.getCondition());
      std::optional<int64_t> cond;
      if (!both && !(cond = evaluate(ifOp.getCondition())))
        return fail(ifOp, "its condition is neither a function of the thread "
                          "alone nor of block ids and constants");
      // (The sides of a branch on the thread, which threads of one block
      // run at once, in program order then before else: conservative.)
      for (auto [i, region] : llvm::enumerate(ifOp->getRegions())) {
        if (region.empty() || (!both && (*cond != 0) != (i == 0)))
          continue;
        if (!visit(region.front()))
          return false;
      }
    } else {
      return fail(&op, "a signal or poll inside " + describeOp(&op) +
                           " is not modelled (only scf.for and scf.if)");
    }
  }
  return true;
}

std::vector<bool> Enumeration::completing() const {
  std::vector<unsigned> pending(successors.size(), 0);
  for (const auto &next : successors)
    for (unsigned n : next)
      ++pending[n];
  std::vector<bool> done(successors.size(), false);
  std::vector<unsigned> ready;
  for (unsigned n = 0; n < successors.size(); ++n)
    if (!pending[n])
      ready.push_back(n);
  while (!ready.empty()) {
    unsigned n = ready.back();
    ready.pop_back();
    done[n] = true;
    for (unsigned m : successors[n])
      if (!--pending[m])
        ready.push_back(m);
  }
  return done;
}

bool Enumeration::run(ArrayRef<GlobalProtocol::Point> points) {
  for (const GlobalProtocol::Point &p : points) {
    pointAt[p.op()] = &p;
    for (Operation *a = p.op()->getParentOp(); a && a != model.kernel;
         a = a->getParentOp())
      holders.insert(a);
  }
  Block &entry = model.kernel->getRegion(0).front();
  for (block[2] = 0; block[2] < grid[2]; ++block[2])
    for (block[1] = 0; block[1] < grid[1]; ++block[1])
      for (block[0] = 0; block[0] < grid[0]; ++block[0]) {
        // (Blocks count too: a huge grid whose points few blocks reach.)
        if (++instances > kMaxInstances)
          return fail(model.kernel,
                      llvm::formatv("more than {0} blocks and instances to "
                                    "run",
                                    kMaxInstances));
        previous = -1;
        latestPoll.clear();
        if (!visit(entry))
          return false;
      }
  linkWaits();
  return true;
}

/// The threads of a block that run `op`: those for which every scf.if on
/// the thread alone around it takes the branch it is in (null: unknown).
static std::optional<int64_t> countThreads(Operation *op, const Model &model,
                                           ThreadEvaluator &threads) {
  int64_t count = model.block[0] * model.block[1] * model.block[2];
  std::vector<bool> active(count, true);
  for (Operation *child = op, *parent = op->getParentOp();
       parent && child != model.kernel;
       child = parent, parent = parent->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(parent);
    if (!ifOp || !threads.isThreadOnly(ifOp.getCondition()))
      continue;
    const std::vector<int64_t> *values = threads.values(ifOp.getCondition());
    if (!values)
      return std::nullopt;
    bool truth = child->getParentRegion() == &ifOp.getThenRegion();
    for (int64_t t = 0; t < count; ++t)
      active[t] = active[t] && (((*values)[t] != 0) == truth);
  }
  return llvm::count(active, true);
}

bool GlobalProtocol::enumerate(ArrayRef<int64_t> grid) {
  Operation *first = points.front().op();
  bool gridKnown =
      grid.size() >= 1 && llvm::all_of(grid, [](int64_t g) { return g > 0; });
  // (A block of more threads than CUDA allows is AMK-RES-THREADS; its
  // threads are not counted one by one.)
  if (!gridKnown)
    if (std::optional<bool> counted = countGatesOverGrid(grid))
      return *counted;
  if (!model.blockKnown || !gridKnown ||
      model.block[0] * model.block[1] * model.block[2] > 1024) {
    report(check::kUnprovable, first,
           "the counter protocol of " + describeOp(first) +
               " is checked for a known block of at most 1024 threads and a "
               "known grid (known_block_size and known_grid_size): without "
               "them its counts cannot be computed");
    return false;
  }
  for (Point &p : points) {
    std::optional<int64_t> count = countThreads(p.op(), model, threads);
    if (!count) {
      report(check::kUnprovable, p.op(),
             "the threads that run " + describeOp(p.op()) +
                 " could not be counted");
      return false;
    }
    p.threads = *count;
    // (A poll no thread runs would order what follows it by nothing.)
    if (*count == 0) {
      report(check::kGlobalSync, p.op(),
             describeOp(p.op()) + " is run by no thread of the block");
      return false;
    }
  }
  Enumeration::GateThresholds gateThresholds;
  for (const Gate &gate : gates)
    gateThresholds[gate.signal].push_back(gate.threshold);
  Enumeration counts(model, threads, grid, ticketPoll, gateThresholds);
  if (!counts.run(points)) {
    report(check::kUnprovable, counts.at,
           "the protocol's counts could not be checked at " +
               describeOp(counts.at) + ": " + counts.whyNot);
    return false;
  }
  std::vector<bool> completing = counts.completing();
  for (const Point &p : points)
    instances[&p] = counts.instancesOf.lookup(&p);
  // A gate's threshold the same in every block: one block at most passes;
  // the last to arrive when the signal's count completes its element's sum.
  for (Gate &gate : gates) {
    std::optional<int64_t> value = counts.gateValues.lookup(gate.threshold);
    const Point &s = *gate.signal;
    // Every element the signal reaches (one, or one per tile), with its
    // sum: one block at most passes per element; the last where every
    // element's sum completes at the threshold. (Counts that wrap would
    // let two signals see one count.)
    SmallVector<int64_t> sums;
    for (const std::vector<int64_t> &index : counts.elementsOf.lookup(&s))
      if (auto it =
              counts.tallies.find({s.counter.getAsOpaquePointer(), index});
          it != counts.tallies.end())
        sums.push_back(it->second.sum);
    int64_t arrival;
    gate.exclusive = value && s.threads == 1 && !sums.empty() &&
                     llvm::all_of(sums, [&](int64_t sum) {
                       return holdsCount(getCounterBits(s), sum);
                     });
    gate.last =
        gate.exclusive && !llvm::SubOverflow(*value, gate.offset, arrival) &&
        llvm::all_of(sums,
                     [&](int64_t sum) { return arrival == sum - s.amount; });
  }
  bool ok = true;
  llvm::SmallPtrSet<Operation *, 4> reported;
  for (const Enumeration::Wait &w : counts.waits) {
    const Point &p = *w.poll;
    if (reported.contains(p.poll))
      continue;
    auto it = counts.tallies.find({p.counter.getAsOpaquePointer(), w.index});
    Enumeration::Tally tally =
        it == counts.tallies.end() ? Enumeration::Tally() : it->second;
    std::string element;
    for (int64_t i : w.index)
      element += (element.empty() ? "" : ", ") + std::to_string(i);
    std::string where =
        llvm::formatv("in block ({0}, {1}, {2}) {3} waits for {4}[{5}] to "
                      "reach {6}",
                      w.block[0], w.block[1], w.block[2], describeOp(p.poll),
                      describeArgument(p.counter), element, w.threshold)
            .str();
    unsigned width = getCounterBits(p);
    bool turns =
        tally.sum != w.threshold && Enumeration::takesTurns(tally, w.threshold);
    if (turns)
      ticketCounters.insert(p.counter.getAsOpaquePointer());
    // (Turns: some signal waits for a count first.)
    bool someTurns =
        !tally.unticketed &&
        llvm::any_of(tally.tickets, [](const auto &t) { return t.first > 0; });
    if (tally.sum != w.threshold && !turns && someTurns) {
      std::string list;
      for (auto [ticket, node] : tally.tickets)
        list += (list.empty() ? "" : ", ") + std::to_string(ticket);
      report(check::kGlobalSync, p.poll,
             where + llvm::formatv(", but the launch's signals add {0} to it "
                                   "in turns {1} (a signal's turn: the count "
                                   "its thread waited for first): only turns "
                                   "0 to {2} in order "
                                   "let every wait see the turns below its "
                                   "threshold, so blocks can wait forever "
                                   "or order nothing",
                                   tally.sum, list, tally.sum - 1)
                         .str());
    } else if (tally.sum != w.threshold && !turns) {
      report(check::kGlobalSync, p.poll,
             where + llvm::formatv(
                         ", but the launch's signals add {0} to it: {1}",
                         tally.sum,
                         tally.sum < w.threshold
                             ? "the block waits forever"
                             : "it can stop waiting before every signal it "
                               "counts on has landed, so it orders nothing")
                         .str());
    } else if (!holdsCount(width, tally.sum)) {
      report(check::kGlobalSync, p.poll,
             where +
                 llvm::formatv(", which a {0}-bit counter cannot hold", width)
                     .str());
    } else if (!completing[w.node]) {
      report(check::kGlobalSync, p.poll,
             where + ", but some of its signals come only after a wait that "
                     "depends on this one (a cycle of waits and the program "
                     "order of blocks): blocks can wait for each other "
                     "forever (signal every count a wait needs before it, "
                     "in an earlier task)");
    } else {
      continue;
    }
    reported.insert(p.poll);
    ok = false;
  }
  LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << points.size() << " points, "
                          << counts.waits.size() << " waits, "
                          << counts.tallies.size() << " counter elements, "
                          << (ok ? "proved" : "failed") << "\n");
  return ok;
}

//===----------------------------------------------------------------------===//
// Orderings
//===----------------------------------------------------------------------===//

/// Whether the acquire of poll `p` reaches signal `s`: after its fence in
/// its thread, or after its limit in its block.
static bool follows(const GlobalProtocol::Point &p,
                    const GlobalProtocol::Point &s) {
  Operation *a = p.fence->getBlock()->findAncestorOpInBlock(*s.access);
  if (a && p.fence->isBeforeInBlock(a))
    return true;
  if (!p.limit)
    return false;
  Operation *b = p.anchor->getBlock()->findAncestorOpInBlock(*s.access);
  return b && p.limit->isBeforeInBlock(b);
}

/// The signal follows the poll's fence in its thread: in its block, or in a
/// block around it past branches uniform over the block (for a relay, their
/// bounds of its coordinate are the poll's first) or that test the thread,
/// which the thread that polled runs to the signal; the signal itself under
/// no other branches than uniform ones and the same branches of the
/// thread's own tests the poll is under (`if (tid == 0) poll; ...; if (tid
/// == 0) signal`: the same condition value holds in the same thread; a test
/// that differs may pass another thread).
bool GlobalProtocol::reaches(const Point &poll, const Point &signal) const {
  return reachesFrom(poll.fence, {}, signal);
}

bool GlobalProtocol::reachesFrom(Operation *start, ArrayRef<Branch> tested,
                                 const Point &signal) const {
  SmallVector<Branch> polled(tested);
  auto uniformBranches = [&](Operation *from, Operation *to) {
    for (Operation *child = from, *op = from->getParentOp(); op && op != to;
         child = op, op = op->getParentOp()) {
      auto ifOp = dyn_cast<scf::IfOp>(op);
      if (!ifOp)
        return false;
      Branch branch{ifOp.getCondition(),
                    child->getParentRegion() == &ifOp.getThenRegion()};
      if (model.uniformity.isDivergent(branch.first, ThreadScope::Block) &&
          !llvm::is_contained(polled, branch))
        return false;
    }
    return true;
  };
  for (Operation *at = start;;) {
    Operation *a = at->getBlock()->findAncestorOpInBlock(*signal.access);
    if (a && at->isBeforeInBlock(a))
      return a == signal.access.getOperation() ||
             uniformBranches(signal.access, a->getParentOp());
    auto ifOp = dyn_cast<scf::IfOp>(at->getParentOp());
    if (!ifOp)
      return false;
    if (model.uniformity.isDivergent(ifOp.getCondition(), ThreadScope::Block)) {
      // Past a test of the thread: only a signal under the same test runs
      // in the thread that polled.
      if (!threads.isThreadOnly(ifOp.getCondition()))
        return false;
      polled.push_back({ifOp.getCondition(),
                        at->getParentRegion() == &ifOp.getThenRegion()});
    }
    at = ifOp;
  }
}

void GlobalProtocol::collectGathers() {
  for (const Point &poll : points) {
    if (!poll.poll || !poll.fence || poll.access.getIndices().size() != 1 ||
        ticketCounters.contains(poll.counter.getAsOpaquePointer()))
      continue;
    // The element: a loop's induction variable plus a constant.
    std::optional<std::pair<Value, int64_t>> split =
        splitConstantOffset(poll.access.getIndices().front());
    if (!split)
      continue;
    auto [index, offset] = *split;
    auto iv = dyn_cast<BlockArgument>(index);
    auto loop =
        iv ? dyn_cast<scf::ForOp>(iv.getOwner()->getParentOp()) : scf::ForOp();
    if (!loop || loop.getInductionVar() != iv ||
        getConstantIntValue(loop.getStep()) != 1 ||
        !loop->isAncestor(poll.fence))
      continue;
    std::optional<int64_t> lo = getConstantIntValue(loop.getLowerBound()),
                           hi = getConstantIntValue(loop.getUpperBound());
    int64_t from, to;
    if (!lo || !hi || *lo >= *hi || llvm::AddOverflow(*lo, offset, from) ||
        llvm::AddOverflow(*hi, offset, to))
      continue;
    // Every iteration polls: only tests of the thread between.
    SmallVector<Branch> tested;
    bool everyIteration = true;
    for (Operation *child = poll.op(), *parent = child->getParentOp();
         parent != loop; child = parent, parent = parent->getParentOp()) {
      auto ifOp = dyn_cast<scf::IfOp>(parent);
      if (!ifOp || !threads.isThreadOnly(ifOp.getCondition())) {
        everyIteration = false;
        break;
      }
      tested.push_back({ifOp.getCondition(),
                        child->getParentRegion() == &ifOp.getThenRegion()});
    }
    if (!everyIteration)
      continue;
    for (const Point &signal : points) {
      if (signal.poll || !signal.element || !instances.lookup(&signal) ||
          ticketCounters.contains(signal.counter.getAsOpaquePointer()) ||
          !reachesFrom(loop, tested, signal))
        continue;
      // The only signal to its element: seeing any signal to it means a
      // gathering thread finished its loop.
      bool only = llvm::all_of(points, [&](const Point &q) {
        return q.poll || &q == &signal || q.counter != signal.counter ||
               (q.element && q.element != signal.element);
      });
      if (only)
        gathers.push_back({&poll, &signal, from, to});
    }
  }
}

void GlobalProtocol::collectTicketPolls() {
  for (const Point &s : points) {
    if (s.poll)
      continue;
    const Point *only = nullptr;
    for (const Point &p : points)
      if (p.poll && p.fence && p.counter == s.counter &&
          p.access.getIndices() == s.access.getIndices() &&
          (follows(p, s) || reaches(p, s))) {
        if (only) {
          only = nullptr;
          break;
        }
        only = &p;
      }
    if (only)
      ticketPoll[&s] = only;
  }
}

void GlobalProtocol::collectChains() {
  // Every poll waits for every signal to its element, so a signal to
  // element e happens before a poll of e, before the signals its acquire
  // reaches, before the polls of their elements, and so on.
  // (A ticket wait acquires only the turns before its own.)
  auto ticketed = [&](const Point &p) {
    return ticketCounters.contains(p.counter.getAsOpaquePointer());
  };
  for (const Point &first : points) {
    if (!first.poll || !first.fence || !first.element || ticketed(first))
      continue;
    Chain chain{&first, *first.element, {}};
    SmallVector<const Point *> frontier{&first};
    while (!frontier.empty()) {
      const Point *poll = frontier.pop_back_val();
      for (const Point &next : points) {
        if (next.poll || !next.element || ticketed(next) ||
            !follows(*poll, next))
          continue;
        std::pair<BlockArgument, SmallVector<int64_t, 2>> element{
            next.counter, *next.element};
        if (llvm::is_contained(chain.reached, element))
          continue;
        chain.reached.push_back(element);
        for (const Point &q : points)
          if (q.poll && q.counter == next.counter && q.fence &&
              q.element == next.element)
            frontier.push_back(&q);
      }
    }
    if (!chain.reached.empty())
      chains.push_back(std::move(chain));
  }
}

void GlobalProtocol::collectRelays() {
  // The lower bound on the coordinate `along` a branch of `ifOp` implies,
  // where its condition tests only that and the thread (getLowerBounds);
  // none for any other condition, which may fail in a block between.
  auto branchBound = [&](scf::IfOp ifOp, bool inThen,
                         Coordinate along) -> std::optional<int64_t> {
    std::optional<SmallVector<std::pair<Coordinate, int64_t>, 2>> bounds =
        inThen ? getLowerBounds(ifOp.getCondition(), threads, grid, model)
               : std::nullopt;
    if (!bounds)
      return std::nullopt;
    int64_t from = 0;
    for (auto [at, first] : *bounds) {
      if (!(at == along))
        return std::nullopt;
      from = std::max(from, first);
    }
    return from;
  };
  // The first coordinate that runs `op` (through every branch around it up
  // to the kernel, or to the tile loop of a loop coordinate: a relay runs
  // once per block or tile, so no other loop may hold it).
  auto firstBlock = [&](Operation *op,
                        Coordinate along) -> std::optional<int64_t> {
    Operation *top =
        along.dim >= 0 ? model.kernel : getTileLoop(along.value, grid, model);
    int64_t from = 0;
    for (Operation *child = op, *parent = op->getParentOp(); parent != top;
         child = parent, parent = parent->getParentOp()) {
      auto ifOp = dyn_cast_if_present<scf::IfOp>(parent);
      std::optional<int64_t> bound =
          ifOp ? branchBound(ifOp,
                             child->getParentRegion() == &ifOp.getThenRegion(),
                             along)
               : std::nullopt;
      if (!bound)
        return std::nullopt;
      from = std::max(from, *bound);
    }
    return from;
  };
  for (const Point &poll : points) {
    if (!poll.poll || !poll.fence || poll.access.getIndices().size() != 1 ||
        ticketCounters.contains(poll.counter.getAsOpaquePointer()))
      continue;
    // The relay runs along the coordinate its poll names.
    std::optional<CoordinateOffset> beta =
        getCoordinateOffset(poll.access.getIndices().front(), grid, model);
    if (!beta)
      continue;
    Coordinate along = beta->at;
    std::optional<int64_t> pollFrom = firstBlock(poll.op(), along);
    if (!pollFrom)
      continue;
    // What the poll acquires in the blocks that run it: past the branches
    // around it (on the thread, or bounding that block id), after a barrier
    // that brings the acquire to the block's other threads (or after the
    // fence, where every thread polls).
    Operation *anchor = poll.op();
    while (auto ifOp = dyn_cast_if_present<scf::IfOp>(anchor->getParentOp())) {
      if (!branchBound(ifOp, anchor->getParentRegion() == &ifOp.getThenRegion(),
                       along))
        break;
      anchor = ifOp;
    }
    Operation *limit =
        anchor == poll.anchor
            ? poll.limit
            : findInBlock(anchor, /*forward=*/true, isBlockBarrier);
    if (!limit)
      continue;
    // Or any thread's signal past that barrier: the barrier orders it after
    // the polling thread's fence.
    auto pastLimit = [&](const Point &signal) {
      Operation *a = anchor->getBlock()->findAncestorOpInBlock(*signal.access);
      return a && limit->isBeforeInBlock(a);
    };
    for (const Point &signal : points) {
      if (signal.poll || signal.counter != poll.counter ||
          signal.access.getIndices().size() != 1 ||
          !(reaches(poll, signal) || pastLimit(signal)))
        continue;
      std::optional<CoordinateOffset> alpha =
          getCoordinateOffset(signal.access.getIndices().front(), grid, model);
      if (!alpha || !(alpha->at == along))
        continue;
      std::optional<int64_t> signalFrom = firstBlock(signal.op(), along);
      int64_t step;
      if (signalFrom && !llvm::SubOverflow(alpha->offset, beta->offset, step) &&
          step > 0)
        relays.push_back({&poll, &signal, anchor, limit, along.value, step,
                          std::max(*pollFrom, *signalFrom), *pollFrom,
                          *signalFrom});
    }
  }
}

SmallVector<GlobalProtocol::Edge>
GlobalProtocol::getEdges(ArrayRef<Operation *> before,
                         ArrayRef<Operation *> after) const {
  SmallVector<Edge> edges;
  if (!proved)
    return edges;
  // What a signal releases: the ops of its anchor's block before its
  // limit (every thread's, through the barrier), and those of its fence's
  // block before the fence (in the fencing thread).
  auto releases = [&](const Point &s) {
    return !s.poll && llvm::all_of(before, [&](Operation *op) {
      Operation *a =
          s.limit ? s.anchor->getBlock()->findAncestorOpInBlock(*op) : nullptr;
      if (a && a->isBeforeInBlock(s.limit))
        return true;
      Operation *inner =
          s.innerLimit ? s.innerAnchor->getBlock()->findAncestorOpInBlock(*op)
                       : nullptr;
      if (inner && inner->isBeforeInBlock(s.innerLimit))
        return true;
      Operation *f = s.fence->getBlock()->findAncestorOpInBlock(*op);
      return f && f->isBeforeInBlock(s.fence);
    });
  };
  // Whether every op of `after` follows `limit` in `anchor`'s block.
  auto acquiredPast = [&](Operation *anchor, Operation *limit) {
    return limit && llvm::all_of(after, [&](Operation *op) {
             Operation *a = anchor->getBlock()->findAncestorOpInBlock(*op);
             return a && limit->isBeforeInBlock(a);
           });
  };
  auto acquires = [&](const Point &p) {
    return p.poll && acquiredPast(p.anchor, p.limit);
  };
  // Or, in the blocks past its guards, through the barrier after them.
  auto acquiresGuarded = [&](const Point &p) {
    return p.poll && acquiredPast(p.guardedAnchor, p.guardedLimit);
  };
  SmallVector<const Point *> signals, polls, guardedPolls;
  for (const Point &x : points) {
    if (releases(x))
      signals.push_back(&x);
    else if (acquires(x))
      polls.push_back(&x);
    else if (acquiresGuarded(x))
      guardedPolls.push_back(&x);
  }
  // An element a point is known to be at, other than `at`, orders nothing.
  auto mayBeAt = [](const Point &x, ArrayRef<int64_t> at) {
    return !x.element || ArrayRef<int64_t>(*x.element) == at;
  };
  // One edge that orders every instance (constant elements that agree) is
  // the whole answer.
  auto orderAlways = [&](const Point &s, const Point &p,
                         ArrayRef<int64_t> signalAt, ArrayRef<int64_t> pollAt) {
    bool always =
        s.element && p.element &&
        (signalAt.empty() ? s.element == p.element
                          : mayBeAt(s, signalAt) && mayBeAt(p, pollAt));
    if (always)
      edges.assign(1, Edge{s.access.getIndices(), p.access.getIndices(),
                           SmallVector<int64_t, 2>(signalAt),
                           SmallVector<int64_t, 2>(pollAt)});
    return always;
  };
  // A signal and a poll of one counter whose elements may agree: ordered
  // where they do, and, on a counter whose signals take turns, where the
  // signal's turn came before the threshold (turn 0 for a signal that
  // polls nothing).
  auto mayMeet = [](const Point *s, const Point *p) {
    return p->counter == s->counter &&
           (!s->element || !p->element || s->element == p->element);
  };
  auto directEdge = [&](const Point *s, const Point *p) {
    Edge edge{s->access.getIndices(), p->access.getIndices()};
    if (ticketCounters.contains(s->counter.getAsOpaquePointer())) {
      edge.ticketed = true;
      if (const Point *turn = ticketPoll.lookup(s))
        edge.signalTicket = turn->threshold;
      edge.pollThreshold = p->threshold;
    }
    return edge;
  };
  // Gates whose last block runs every op of `after` past its acquire.
  SmallVector<const Gate *> lastGates;
  for (const Gate &gate : gates)
    if (gate.last && llvm::all_of(after, [&](Operation *op) {
          return isGated(gate, op) && isAcquired(gate, op);
        }))
      lastGates.push_back(&gate);
  for (const Point *s : signals) {
    // Every signal to the gate's element landed before the last arrival.
    for (const Gate *gate : lastGates) {
      if (!mayMeet(s, gate->signal))
        continue;
      if (orderAlways(*s, *gate->signal, {}, {}))
        return edges;
      edges.push_back(
          Edge{s->access.getIndices(), gate->signal->access.getIndices()});
    }
    for (const Point *p : polls) {
      if (!mayMeet(s, p))
        continue;
      if (!ticketCounters.contains(s->counter.getAsOpaquePointer()) &&
          orderAlways(*s, *p, {}, {}))
        return edges;
      edges.push_back(directEdge(s, p));
    }
    // Guarded polls: as above, in the blocks past their guards only.
    for (const Point *p : guardedPolls) {
      if (!mayMeet(s, p))
        continue;
      Edge edge = directEdge(s, p);
      edge.pollGuards.assign(p->guards.begin(), p->guards.end());
      edges.push_back(std::move(edge));
    }
    // Relays: the poll's acquire past its branches on the block.
    for (const Relay &relay : relays)
      if (relay.signal == s && acquiredPast(relay.anchor, relay.limit))
        edges.push_back(Edge{s->access.getIndices(),
                             relay.poll->access.getIndices(),
                             {},
                             {},
                             relay.coordinate,
                             relay.step,
                             relay.from,
                             relay.signalFrom,
                             relay.pollFrom});
    // Chains (a hb b hb c): one edge per element reached, the signal at
    // the chain's first element, the poll at the last.
    for (const Chain &chain : chains) {
      if (chain.first->counter != s->counter || !mayBeAt(*s, chain.start))
        continue;
      for (const auto &[counter, at] : chain.reached)
        for (const Point *p : polls) {
          if (p->counter != counter || !mayBeAt(*p, at))
            continue;
          if (orderAlways(*s, *p, chain.start, at))
            return edges;
          Edge edge{s->access.getIndices(), p->access.getIndices(), chain.start,
                    at};
          if (!llvm::any_of(edges, [&](const Edge &e) {
                return e.signalIndex == edge.signalIndex &&
                       e.pollIndex == edge.pollIndex &&
                       e.signalAt == edge.signalAt && e.pollAt == edge.pollAt;
              }))
            edges.push_back(std::move(edge));
        }
    }
    // Gathers: a signal to an element the gathering loop polls, before
    // every poll of the element its thread signals after the loop.
    for (const Gather &g : gathers) {
      if (g.poll->counter != s->counter)
        continue;
      for (const Point *p : polls) {
        if (p->counter != g.signal->counter || p->element != g.signal->element)
          continue;
        Edge edge{s->access.getIndices(), p->access.getIndices()};
        edge.signalRange = std::make_pair(g.from, g.to);
        edges.push_back(std::move(edge));
      }
    }
  }
  return edges;
}
