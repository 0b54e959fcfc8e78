//===- SharedMemoryModel.h - What the race check models ---------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The parts of the shared-memory checks: the per-kernel model, the builder
// that turns op instances, addresses and guards into one Presburger system
// (SharedMemoryConstraints.cpp), the synchronisation events it counts
// (SharedMemorySync.cpp), the split of addresses into a uniform and a
// thread-only part (SharedMemoryThreads.cpp), and the check that composes
// them: the pairs of accesses (SharedMemory.cpp) and one question about a
// pair (SharedMemorySolve.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_SHAREDMEMORYMODEL_H
#define AMK_LIB_HARNESS_SHAREDMEMORYMODEL_H

#include "AMK/Analysis/Uniformity.h"
#include "Bounds.h"
#include "IntegerSystem.h"
#include "MBarrier.h"
#include "NamedBarriers.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DataFlowSolver;
} // namespace mlir

namespace mlir::amk {
class SlotCounters;
} // namespace mlir::amk

namespace mlir::amk::smem {

//===----------------------------------------------------------------------===//
// Synchronization events
//===----------------------------------------------------------------------===//

/// Commit and Wait are cp.async's groups, WgmmaCommit and WgmmaWait
/// wgmma's (nvgpu.warpgroup.mma is both: it commits its group, then waits
/// for all but its waitGroup newest). MBarrierWait: a proved wait on one
/// mbarrier (SystemBuilder::waitBarrier); only the latest-event search
/// takes it. NamedBarrier: a barrier of one group of threads
/// (SystemBuilder::group), which counts it like Barrier for its threads;
/// WarpBarrier: `bar.warp.sync` of the whole warp (isWarpBarrier).
enum class Event {
  Barrier,
  Commit,
  Wait,
  MBarrierWait,
  WgmmaCommit,
  WgmmaWait,
  NamedBarrier,
  WarpBarrier
};
inline constexpr unsigned kNumEvents = 8;
/// The counts' caches: one per kind, NamedBarrier's one per barrier id.
inline constexpr unsigned kNumCounted = kNumEvents + 16;

/// Whether `op` is an event of `kind` (a block barrier, an async-group
/// commit, an async wait).
bool isEvent(Event kind, Operation *op);
/// Whether `op` is `bar.warp.sync` of every lane (a constant full mask):
/// under control the warp shares (the convergence check), it orders the
/// warp's threads as a block barrier orders the block's.
bool isWarpBarrier(Operation *op);
/// The events of `kind`, plural, for messages.
StringRef eventName(Event kind);
/// The groups a `wait_group N` (cp.async or wgmma) leaves in flight: N.
int64_t waitGroups(Operation *wait);
/// The group events of an async access: cp.async's or wgmma's.
std::pair<Event, Event> groupEvents(const MemoryAccess &access);

//===----------------------------------------------------------------------===//
// Accesses, instances and the kernel
//===----------------------------------------------------------------------===//

/// A shared-memory access of the kernel.
struct SharedAccess {
  MemoryAccess access;
  int64_t elementBytes;
  unsigned index;
};

/// An op instance: the iteration of each enclosing scf.for.
struct Instance {
  Operation *op = nullptr;
  unsigned thread = 0;
  llvm::DenseMap<Operation *, Lin> iteration;
};

/// The iteration k of `in` in `loop` as the mbarrier phases count it: its
/// iteration of `loop`, plus R times its iteration of the outer loop
/// (mbarrier::outerLoop; R the constant trips of `loop`); nullopt where
/// the instance has no such iterations.
std::optional<Lin> flatIteration(const Instance &in, scf::ForOp loop);

/// The latest event of a kind before an instance, on one structured path
/// (`op` null: none), valid under `conditions` (each >= 0 or == 0).
struct Latest {
  Operation *op = nullptr;
  Instance instance;
  SmallVector<Lin> atLeastZero, equalZero;
};

/// Per-kernel facts shared by every system.
class Model {
public:
  Model(Operation *kernel, const UniformityInfo &uniformity,
        const DataFlowSolver &solver, const MBarrierPhases &phases);

  std::optional<std::pair<int64_t, int64_t>> range(Value v) const;
  /// A memref type's strides and offset (null: not strided), computed once
  /// per type: getStridesAndOffset builds affine expressions in the
  /// context, which the race check's many systems would otherwise repeat.
  struct Layout {
    SmallVector<int64_t> strides;
    int64_t offset;
  };
  const Layout *layout(MemRefType type) const;
  /// Whether `v` is never negative: by its signed minimum, however large
  /// its maximum (an induction variable up to a dynamic bound is).
  bool nonNegative(Value v) const;
  /// Whether `op` is or holds an event of `kind` (not NamedBarrier's, which
  /// SystemBuilder::containsHere asks of its group).
  bool contains(Event kind, Operation *op) const;
  /// The first memref.dim in the kernel of dimension `dim` of `memref`
  /// (null: none): every such op's value is that one.
  Value dimValue(Value memref, int64_t dim) const;

  Operation *kernel;
  const UniformityInfo &uniformity;
  const DataFlowSolver &solver;
  /// The phases of mbarrier waits and TMA loads the mbarrier check proved.
  const MBarrierPhases &phases;
  /// The block's dimensions: `known_block_size`, else the largest a
  /// target allows in each (the linear thread id is then not the real one).
  int64_t block[3] = {kMaxBlockDims[0], kMaxBlockDims[1], kMaxBlockDims[2]};
  bool blockKnown = false;
  /// What the two instances of a system share: the values uniform over the
  /// block (two threads of one block: the shared-memory checks), or only
  /// those uniform over the grid (two blocks: the global-memory check).
  ThreadScope sharing = ThreadScope::Block;
  /// The grid per dimension, when known (0: any size a launch allows).
  int64_t grid[3] = {0, 0, 0};
  /// The kernel's slot counters (null: none modelled); see
  /// SystemBuilder::distinct.
  const SlotCounters *slots = nullptr;
  /// The kernel's named barriers of some of its threads (null: none
  /// modelled); their groups order their own threads (Event::NamedBarrier).
  const NamedBarriers *named = nullptr;
  mutable llvm::DenseMap<Type, std::optional<Layout>> layouts;
  mutable std::optional<llvm::DenseMap<std::pair<Value, int64_t>, Value>> dims;
  mutable llvm::DenseMap<Operation *, bool> containsCache[kNumEvents];
  /// For the latest-event search: the op at or before an op in its block
  /// that is an event of a kind (of one mbarrier's waits) or a loop that
  /// holds one in every iteration (null: none), keyed by the op, the kind
  /// and the barrier.
  mutable llvm::DenseMap<
      std::tuple<Operation *, unsigned, Operation *, int64_t>, Operation *>
      stops;
  /// Event counts of ops that do not depend on symbolic trip counts.
  mutable llvm::DenseMap<Operation *, int64_t> constantTotals[kNumCounted];
  /// The events the ops before an op in its block run, when a constant.
  mutable llvm::DenseMap<Operation *, std::optional<int64_t>>
      prefixTotals[kNumCounted];
};

/// Builds one system: variables, translated expressions, counts.
class SystemBuilder {
public:
  SystemBuilder(const Model &model) : model(model) {}

  System sys;
  /// The low bits of an xor: r = x ^ y for x, y < 2^n, in thread `thread`.
  struct XorTerm {
    Value value;
    unsigned thread;
    Lin x, y, r;
  };
  std::vector<XorTerm> xors;
  /// x / d and x % d for a non-constant d >= 1 (the value `divisor`):
  /// q >= 0 and 0 <= r < d hold; x = d q + r is not linear, so what a check
  /// needs of it is split by cases (getCaseSplits). A
  /// loop of symbolic step d is one too: iv - lb = d k, so q = k, r = 0.
  struct DivTerm {
    Value divisor;
    unsigned thread;
    Lin x, d, q, r;
  };
  std::vector<DivTerm> divs;
  /// m = min(a, b) (or max): m <= a and m <= b (>=) hold; that m is one of
  /// them is split by cases (getCaseSplits).
  struct ChoiceTerm {
    Lin m, a, b;
  };
  std::vector<ChoiceTerm> choices;
  /// A linear constraint: form >= 0, or form == 0.
  struct Constraint {
    Lin form;
    bool equality;
  };
  /// m = select(c, a, b): m = a where c holds, m = b where it does not;
  /// both alternatives are split by cases (getCaseSplits), each with what its
  /// truth of c says (so a clamp is tied to the guard that makes it a
  /// no-op).
  struct SelectTerm {
    Lin m, a, b;
    SmallVector<Constraint, 2> ifTrue, ifFalse;
  };
  std::vector<SelectTerm> selects;
  /// Further case splits (getCaseSplits): each a list of alternatives.
  std::vector<SmallVector<SmallVector<Constraint, 3>, 2>> orderSplits;
  /// Why a count or address could not be modelled (empty: fine).
  std::string whyNot;
  /// What the two instances always are: different executions, in two
  /// threads of a block or in two blocks. Then two slots of one counter
  /// element (SlotCounters) differ between them, a split of getCaseSplits;
  /// a block's reservation differs from another slot only in another
  /// block (in its own block it is its thread's slot).
  enum class Distinct { None, Threads, Blocks };
  Distinct distinct = Distinct::None;
  struct SlotLeaf {
    unsigned var, counter, thread;
    std::optional<unsigned> element;
    int64_t amount;
    bool shared;
    /// The element's indices, in the instance that took the slot (for a
    /// block's reservation, a constant element: its op's constants).
    SmallVector<Lin, 1> at;
  };
  std::vector<SlotLeaf> slotLeaves;
  /// Values that differ between threads and became free variables (loads
  /// from memory, products of two variables, ...): each thread's is any
  /// value in its range, so a solution may be no real pair of threads.
  SmallVector<Value, 2> inexact;

  // Constraints (SharedMemoryConstraints.cpp).
  Instance instance(Operation *op, unsigned thread,
                    const llvm::DenseMap<Operation *, Lin> &fixed);
  Lin expr(Value v, const Instance &in, int depth = 0);
  /// The conditions of the scf.if branches around the instance (only those
  /// `keep` accepts, when given: leaving one out only adds points).
  void addGuards(const Instance &in, function_ref<bool(Value)> keep = nullptr);
  void condition(Value cond, bool truth, const Instance &in);
  /// What `cond` == `truth` says as linear constraints (disjunctions and
  /// comparisons the system cannot order are dropped: fewer constraints).
  void constraintsOf(Value cond, bool truth, const Instance &in,
                     SmallVectorImpl<Constraint> &out);
  /// An injective linear id; the real one when the block size is known.
  Lin threadId(const Instance &in);
  /// The warpgroup of the thread (linear id / 128; the block size known).
  Lin warpgroupOf(const Instance &in);
  /// The warp of the thread (linear id / 32; the block size known).
  Lin warpOf(const Instance &in);
  Lin threadDim(const Instance &in, int d);
  /// The block id in dimension d: one variable per instance when the
  /// instances are blocks of their own (Model::sharing), else one.
  Lin blockId(const Instance &in, int d);
  /// gpu.block_dim: a constant, or one variable when the size is unknown.
  Lin blockDim(int d);
  /// gpu.grid_dim: a constant, or one variable above every block id when
  /// the grid is unknown.
  Lin gridDim(int d);
  /// floor(x / d), or x mod d, for x >= 0 and a constant d >= 1.
  Lin divMod(const Lin &x, int64_t d, bool wantRemainder);
  FailureOr<std::pair<Value, Lin>> address(const SharedAccess &a,
                                           const Instance &in);
  /// The element offset of `memref`'s layout from its allocation: static,
  /// or through subviews with dynamic offsets (sharedRoot checked it).
  Lin elementOffset(Value memref, const Instance &in);

  // Synchronization (SharedMemorySync.cpp).
  /// The group whose barriers Event::NamedBarrier counts.
  const NamedBarriers::Group *group = nullptr;
  std::optional<Lin> count(Event kind, Operation *op, const Instance &in);
  /// Adds to orderSplits that no named barrier or (unless `warps` is false)
  /// warp barrier orders `a` and `b` (two threads of the known block): a
  /// thread is outside the group (another warp), or the two have run its
  /// barriers equally often. Barriers not counted at either order nothing.
  void addNamedBarrierSplit(const Instance &a, const Instance &b,
                            bool warps = true);
  /// The warp barriers `a` and `b` have passed (nullopt: none in the
  /// kernel, or not counted at one of them).
  std::optional<std::pair<Lin, Lin>> countWarpBarriers(const Instance &a,
                                                       const Instance &b);
  std::optional<int64_t> prefix(Event kind, Operation *op);
  void latest(Event kind, Operation *op, const Instance &in,
              std::vector<Latest> &out);
  /// The latest proved waits on `barrier` before `in`.
  void latestWait(MBarrierPhases::Barrier barrier, Operation *op,
                  const Instance &in, std::vector<Latest> &out);
  /// The phase of a proved wait or TMA load instance (base + k).
  std::optional<Lin> phaseOf(const Instance &in) const;

private:
  unsigned leaf(Value v, const Instance &in, bool *created = nullptr);
  Lin symbolicDivMod(Operation *op, const Lin &x, Value divisor,
                     const Instance &in, bool wantRemainder, int depth);
  Lin choice(Operation *op, const Instance &in, int depth);
  Lin select(arith::SelectOp op, const Instance &in, int depth);
  /// minui(x, size) for a non-negative size: a select on 0 <= x <= size.
  Lin unsignedMin(Operation *op, Value x, Value size, const Instance &in,
                  int depth);
  /// The induction variable of a loop whose step is not a constant.
  Lin symbolicStepInduction(scf::ForOp loop, const Instance &in, int depth);
  std::vector<int64_t> contextKey(Value v, const Instance &in);
  Lin translate(Value v, const Instance &in, int depth);

  std::optional<Lin> tripCount(scf::ForOp loop);
  std::optional<Lin> total(Event kind, Operation *op);
  std::optional<Lin> computeTotal(Event kind, Operation *op);
  std::optional<int64_t> bodyTotal(Event kind, scf::ForOp loop);
  /// The events a block runs, when a constant.
  std::optional<int64_t> blockTotal(Event kind, Block &block);
  bool unconditional(Event kind, Block &body);
  /// The cache of `kind`'s counts (kNumCounted).
  unsigned counted(Event kind) const;
  /// isEvent and Model::contains, with MBarrierWait's barrier and
  /// NamedBarrier's group.
  bool isEventHere(Event kind, Operation *op) const;
  bool containsHere(Event kind, Operation *op) const;
  bool scanBack(Event kind, Operation *from, Block *block, Instance in,
                Latest conditions, std::vector<Latest> &out);
  /// `op` or the closest op before it in its block that scanBack stops at
  /// (an event, or a loop that holds one unconditionally; null: none).
  Operation *stopAtOrBefore(Event kind, Operation *op);

  const Model &model;
  MBarrierPhases::Barrier waitBarrier{nullptr, 0};
  std::map<std::pair<const void *, std::vector<int64_t>>, unsigned> leaves;
  llvm::DenseMap<Operation *, Lin> trips;
  /// Per scf.if outside loops whose condition its block shares: which
  /// branch the block took (a variable in [0, 1], the same for every
  /// thread of the block).
  llvm::DenseMap<Operation *, Lin> branches;
  std::map<std::pair<const void *, std::vector<int64_t>>, Lin> exprs;
  std::map<std::pair<std::vector<int64_t>, int64_t>, std::pair<Lin, Lin>>
      divisions;
};

/// The constraints of one alternative of a case split.
using Alternative = SmallVector<SystemBuilder::Constraint, 3>;

/// The cases that decide the builder's selects, divisions and min/max (the
/// divisions' between two instances only): each split's alternatives cover
/// every point, so a system is empty when every combination is.
SmallVector<SmallVector<Alternative, 2>, 4>
getCaseSplits(const SystemBuilder &builder);

/// The scf.for ops around `op` inside `kernel`, outermost first.
SmallVector<scf::ForOp> enclosingLoops(Operation *op, Operation *kernel);
/// The allocation a shared access's view chain starts at (a workgroup
/// attribution when the chain ends at a block argument), or failure when
/// the access's layout or a view in the chain is not modelled.
FailureOr<Value> sharedRoot(const SharedAccess &a, const Model &model);

//===----------------------------------------------------------------------===//
// Addresses split by thread (SharedMemoryThreads.cpp)
//===----------------------------------------------------------------------===//

/// An address (or guard) split into a part every thread of the block
/// shares and a part that depends on the thread id alone, evaluated for
/// every thread: then two threads' accesses overlap only if the difference
/// of the shared parts is one of finitely many thread differences, and the
/// Presburger systems need no thread variables at all.
struct Separated {
  /// bytes = sum(coefficient * uniform value) + constant + perThread[t].
  SmallVector<std::pair<Value, int64_t>> uniform;
  int64_t constant = 0;
  std::vector<int64_t> perThread;
  /// Threads whose thread-only guards hold.
  std::vector<bool> active;
  /// Guards that do not depend on the thread (condition, truth).
  SmallVector<std::pair<Value, bool>> guards;
};

/// Evaluates thread-only index arithmetic for every thread of the block.
class ThreadEvaluator {
public:
  ThreadEvaluator(const Model &model) : ThreadEvaluator(model.block) {}
  /// For a block of these dimensions (x, y, z).
  explicit ThreadEvaluator(ArrayRef<int64_t> block)
      : block{block[0], block[1], block[2]} {}

  /// Whether `v` is a function of the thread id and constants alone.
  bool isThreadOnly(Value v, int depth = 0);

  /// The value for every thread of the block (linear thread order), or
  /// null when some thread divides by zero or the value uses an op the
  /// evaluator does not know (the caller then falls back to the full
  /// system). Computed once per value for all threads, so the accesses that
  /// share index arithmetic share its evaluation.
  const std::vector<int64_t> *values(Value v);

  /// For every thread of the block, whether each (condition, truth) of
  /// `guards`, all of the thread alone, holds; nullopt when one cannot be
  /// evaluated.
  std::optional<std::vector<bool>>
  passing(ArrayRef<std::pair<Value, bool>> guards);

private:
  std::unique_ptr<std::vector<int64_t>> compute(Value v);

  int64_t block[3];
  llvm::DenseMap<Value, bool> threadOnly;
  llvm::DenseMap<Value, std::unique_ptr<std::vector<int64_t>>> all;
};

/// `a`'s address and guards split by thread, or nullopt when a part mixes
/// thread and uniform values (the access then needs the full system).
std::optional<Separated> separate(const SharedAccess &a, const Model &model,
                                  ThreadEvaluator &threads);

/// Adds `coefficient * v` to `out` (uniform terms, constant, and perThread,
/// sized for the block): false when a term mixes thread and uniform values,
/// a thread value cannot be evaluated, or the arithmetic overflows. Uniform
/// sums and multiples by constants are split too (`base + 64 * tile` is
/// two terms); terms are merged by value, in order of first appearance.
bool separateIndex(Value v, int64_t coefficient, Separated &out,
                   const Model &model, ThreadEvaluator &threads);

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

enum class Question {
  /// Two threads, a plain write and any plain access, no barrier between.
  Race,
  /// An async copy in flight (or a wgmma's operand read in flight), read
  /// or written (written) by another thread.
  AsyncOtherThread,
  /// An async copy in flight, read or written by its own thread.
  AsyncSameThread,
  /// Either of the two, relaxed (any threads, not visible to them): a cheap
  /// screen, as both imply it.
  AsyncAnyThread,
  /// A TMA load's box in flight, read or written by any thread that has not
  /// waited for the mbarrier phase it completes in.
  TmaUnwaited,
  /// A plain write to bytes a wgmma reads, with no proxy fence after it in
  /// its thread before the next barrier (whatever the timing).
  CrossProxy,
};

enum class Threads { Distinct, Same, Any };
/// Which warps a case's two threads are in (the thread-separated question
/// picks its threads concretely).
enum class Warps { Any, Same, Different };

/// Accesses of one kind (async or not, write or not) in one block between
/// the same two synchronization ops, with the same uniform address part:
/// they share every count, so one system answers for all of them, and their
/// thread parts (with the constants) become one set of byte intervals.
struct Group {
  const SharedAccess *representative;
  SmallVector<const SharedAccess *> members;
  SmallVector<std::pair<Value, int64_t>> uniform;
  SmallVector<std::pair<Value, bool>> guards;
  struct Item {
    int64_t offset, width;
    int32_t thread, member;
  };
  /// Sorted by offset.
  std::vector<Item> items;
  int64_t maxWidth = 0;
};

/// Accesses that are not split by thread, of one kind, in one block with no
/// synchronization, fence, mbarrier op or region between them, under one
/// condition, whose addresses differ by constants (a k-tile's wgmma operands,
/// a stage's TMA boxes): their timing is the representative's, so the union
/// of their bytes, [address + lo, address + hi), screens a pair of them at
/// once; only a pair the screen cannot clear is asked member by member.
struct ByteSpan {
  const SharedAccess *representative;
  SmallVector<const SharedAccess *> members;
  int64_t lo = 0, hi = 0;
};

/// The checks of one kernel: the pairs of accesses (SharedMemory.cpp) and
/// the questions asked about each (SharedMemorySolve.cpp).
class Checker {
public:
  Checker(
      Operation *kernel, const UniformityInfo &uniformity,
      const DataFlowSolver &solver, const MBarrierPhases &phases,
      const NamedBarriers &named,
      llvm::function_ref<void(StringRef, Operation *, const Twine &)> report)
      : model(kernel, uniformity, solver, phases), threads(model),
        report(report) {
    model.named = &named;
  }

  void run();

private:
  /// What the checks compare: a group (thread-separated) or one access.
  struct Unit {
    const SharedAccess *access;
    const Group *group = nullptr;
    /// Set for a span of several accesses (`access` its representative).
    const ByteSpan *span = nullptr;
  };
  /// A solution: the two accesses and a witness.
  struct Hit {
    Operation *a = nullptr, *b = nullptr;
    std::string witness;
  };
  /// One system of a question: both op instances in one builder, and the
  /// overlap's terms: the byte addresses (full system), or the uniform
  /// address parts and their difference `delta` (thread-separated).
  struct Pair {
    Pair(const Model &model) : builder(model) {}
    SystemBuilder builder;
    const SharedAccess *accessA = nullptr;
    /// Both in the same iteration of every loop around them.
    bool sameIterations = false;
    /// Thread-separated: the threads are no variables of the systems; a
    /// case's warps (`warps`, one per case, empty: any) filter them.
    bool separated = false;
    std::vector<Warps> warps;
    Instance ia, ib;
    Lin addrA, addrB, delta;
  };
  using Relation = llvm::DenseMap<Operation *, int>;
  using GroupMap =
      llvm::MapVector<std::string, Group, std::map<std::string, unsigned>>;

  // The pairs of accesses.
  /// The kernel's shared-memory accesses.
  void collectAccesses(std::deque<SharedAccess> &accesses);
  /// The units to compare: thread-separable accesses grouped, the others
  /// one by one. False when an address is not modelled (reported).
  bool groupAccesses(std::deque<SharedAccess> &accesses, GroupMap &groups,
                     std::vector<Unit> &units);
  /// Merges the single units into spans where their members allow.
  void mergeSpans(std::vector<Unit> &units, std::deque<ByteSpan> &spans);
  /// Checks every pair with a write.
  void checkPairs(ArrayRef<Unit> units);
  bool check(const Unit &a, const Unit &b);
  /// The bytes [lo, end) `a` may touch in any instance and thread: its
  /// address's interval by the variables' own bounds, plus its span; nullopt
  /// when that is unbounded or not modelled. Computed once per access: most
  /// pairs of a kernel's accesses touch disjoint slices of its shared
  /// memory, which this decides before any question's system is built.
  std::optional<std::pair<int64_t, int64_t>> footprint(const SharedAccess &a);
  /// The bytes a unit (an access, or every member of a span) may touch.
  std::optional<std::pair<int64_t, int64_t>> footprint(const Unit &u);
  /// Whether the footprints of two units (not groups) are known and
  /// disjoint: a screen before any system.
  bool disjointFootprints(const Unit &a, const Unit &b);
  /// Whether any question check() asks can have a solution for the pair
  /// (spans as the union of their members' bytes); reports nothing.
  bool mayConflict(const Unit &a, const Unit &b);

  // One question about a pair.
  /// Whether the question has a solution.
  bool ask(Question q, const Unit &a, const Unit &b, Hit &hit);
  bool solve(Question q, const Unit &a, const Unit &b, const Relation &relation,
             Hit &hit);
  /// Both instances, b's iterations at `relation` to a's.
  void addInstances(Pair &p, const Unit &ua, const Unit &ub,
                    const Relation &relation, bool sameThread);
  /// Constrains the two accesses to overlap (for thread order `order` of
  /// the full system); false when they cannot, whatever the timing.
  bool addOverlap(Pair &p, const Unit &ua, const Unit &ub, Threads threadsOf,
                  unsigned order);
  /// x's instance k happens before y's instance k + offset through the
  /// mbarriers (iterations of loopX and loopY).
  struct MBarrierOrder {
    int64_t offset;
    scf::ForOp loopX, loopY;
  };
  /// The mbarrier chain from x's release (its thread's later arrives, an
  /// async access retired first; a TMA load's bytes) to y's acquire (its
  /// thread's earlier waits) with the least offset, when there is one.
  std::optional<MBarrierOrder> mbarrierOrder(const SharedAccess &x,
                                             const SharedAccess &y);
  /// Constrains the pair to instances the mbarriers order neither way.
  void addMBarrierOrder(Pair &p, const SharedAccess &b);
  /// The events of `kind` before `in`, or nullopt (reported unprovable).
  std::optional<Lin> countEvents(SystemBuilder &builder, Event kind,
                                 const Instance &in);
  /// The cases to try, each a system with the question's timing: no barrier
  /// between the two, or the copy not yet retired. Nullopt when a count is
  /// not modelled.
  std::optional<std::vector<System>> timingCases(Question q, Pair &p,
                                                 const SharedAccess &b);
  /// TmaUnwaited's cases: b not behind a barrier a follows, and b's thread's
  /// latest proved wait on a's mbarrier (if any) for an earlier phase.
  std::optional<std::vector<System>> tmaTimingCases(Pair &p,
                                                    const SharedAccess &b,
                                                    const Lin &barA,
                                                    const Lin &barB);
  /// The cases where, b being a TMA load, a's thread had not waited for
  /// b's mbarrier phase before a (a TMA write a waited for is done).
  std::vector<System> withoutPhaseWaited(Pair &p, const SharedAccess &b,
                                         std::vector<System> cases);
  /// Each case, split by `waiter`'s latest proved wait on `load`'s
  /// mbarrier before it: kept where there is none or it waited for a phase
  /// before `phase`, the load's.
  std::vector<System> notWaitedFor(Pair &p, const Instance &load,
                                   const Lin &phase, const Instance &waiter,
                                   ArrayRef<System> cases);
  /// The thread-separated search: delta's feasible values against the
  /// groups' thread parts.
  bool solveSeparated(const Pair &p, const Group &groupA, const Group &groupB,
                      Threads threadsOf, std::vector<System> &cases, Hit &hit);

  Model model;
  ThreadEvaluator threads;
  llvm::function_ref<void(StringRef, Operation *, const Twine &)> report;
  bool unprovable = false;
  llvm::DenseSet<Operation *> reported;
  llvm::DenseMap<const SharedAccess *,
                 std::optional<std::pair<int64_t, int64_t>>>
      footprints;
  /// mbarrierOrder per (x, y) op pair: every question of a pair asks it.
  llvm::DenseMap<std::pair<Operation *, Operation *>,
                 std::optional<MBarrierOrder>>
      orders;

  /// Straight-line order of a TMA load and an access outside loops, without
  /// a system (a ring unrolled in straight-line code asks it of every stage
  /// read): every thread that runs `b` waited first for the load's phase or
  /// a later one, or a block barrier runs after `b` and before the load is
  /// issued and the async proxy needs no fence for `b`.
  bool tmaOrderedInLine(const SharedAccess &load, const SharedAccess &b);
  /// What the ops of a block before `op` did: the latest phase of each
  /// barrier they waited for, and the block barriers among them (each block
  /// walked once).
  struct InLine {
    llvm::SmallDenseMap<MBarrierPhases::Barrier, int64_t, 2> waited;
    int64_t barriers = 0;
  };
  const InLine &inLineOf(Operation *op);
  llvm::DenseMap<Operation *, InLine> inLine;
};

} // namespace mlir::amk::smem

#endif // AMK_LIB_HARNESS_SHAREDMEMORYMODEL_H
