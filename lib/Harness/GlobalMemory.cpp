//===- GlobalMemory.cpp - Races between blocks on global memory -----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// AMK-GLOBAL-RACE: no two blocks of a launch touch one element of a global
// buffer where one of them writes it plainly (two atomic updates never
// race). Blocks run in any order and at once, so there is no timing to ask
// about, only whether two accesses can meet:
//
//  - An access is a box of its buffer's elements: per dimension of the
//    buffer it was cut from (a kernel argument, through subviews of static
//    strides), the coordinate its indices give and the span it covers. The
//    bounds check proves every index inside its dimension, so two boxes
//    meet exactly when they meet in every dimension, and buffers of dynamic
//    sizes need no nonlinear address (row * ld + col).
//  - Accesses of one kind in the same loops whose coordinates differ by
//    constants (an unrolled epilogue's stores) are one box, their union.
//  - A question is one system of two instances in blocks b1 != b2 (a case
//    per dimension where they first differ), of any threads and loop
//    iterations, each under the conditions of the scf.ifs around it. Index
//    arithmetic is translated as for the shared-memory systems
//    (SharedMemoryConstraints.cpp), the two instances sharing only values
//    uniform over the grid.
//  - Divisions by a size (pid / tiles_n, pid % tiles_n), min/max and
//    selects are not linear: the system bounds them, and is split by the
//    cases that decide them (m is a or b; a select is its first value where
//    its condition holds, its second where not, so a clamp is tied to the
//    guard that makes it a no-op; for two divisions by one d, x1 < x2
//    exactly when (q1, r1) < (q2, r2)) as long as some case is not refuted.
//
// Assumed, as the runtime's launches provide: distinct buffer arguments do
// not overlap, no two in-bounds elements of a written buffer share an
// address, and what TMA loads read the kernel does not write.
//
//===----------------------------------------------------------------------===//

#include "GlobalMemory.h"

#include "AMK/Harness/KernelSafety.h"
#include "BoundsProver.h"
#include "GlobalProtocol.h"
#include "MBarrierChecker.h"
#include "SharedMemoryModel.h"
#include "SlotCounters.h"

#include "AMK/Analysis/Address.h"
#include "AMK/Analysis/Uniformity.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "amk-global-race"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::smem;

static std::optional<int> getBlockIndexDim(Operation *op);

/// The threads that make one instance of `access` together: a warp's for a
/// wmma fragment, a warpgroup's for its accumulator store, else one.
static int64_t getThreadsPerUnit(const MemoryAccess &access) {
  return access.warpgroupCollective ? 128 : access.warpCollective ? 32 : 1;
}

namespace {

enum class Kind { Read, Write, Atomic };

/// One dimension of a box: the elements [sum(coefficient * value) + lo,
/// sum + hi).
struct Span {
  SmallVector<std::pair<Value, int64_t>> terms;
  int64_t lo = 0, hi = 1;
};

/// Accesses of one buffer, one kind and the same loops whose spans differ
/// by constants: one box, the union of theirs.
struct Box {
  const void *root;
  Value rootValue;
  Kind kind;
  Operation *loop;
  Operation *representative;
  SmallVector<Operation *> members;
  SmallVector<Span> dims;
  /// The members' own condition (a predicated copy), when they share one.
  Value condition;
  bool mixedConditions = false;
  /// Each member's own spans and condition, and whether the box is exactly
  /// their union (members that meet or touch in one dimension). A box that
  /// is not (two stores a block count apart cover the columns of the blocks
  /// between) is a screen only: a race it finds is asked member by member.
  SmallVector<SmallVector<Span>> memberDims;
  SmallVector<Value> memberConditions;
  bool exact = true;
};

using Constraint = SystemBuilder::Constraint;

/// More systems than this for one pair: the check gives up (unprovable).
constexpr unsigned kMaxSystems = 4096;
/// A found race's witness is sought first among the blocks up to this id
/// in each dimension.
constexpr int64_t kWitnessBlock = 15;
/// ... and elements up to this coordinate.
constexpr int64_t kWitnessElement = 1 << 20;

class GlobalChecker {
public:
  GlobalChecker(
      Operation *kernel, const UniformityInfo &uniformity,
      const DataFlowSolver &solver, const MBarrierPhases &phases,
      const NamedBarriers &named, ArrayRef<int64_t> grid,
      llvm::function_ref<void(StringRef, Operation *, const Twine &)> report)
      : model(kernel, uniformity, solver, phases),
        inBlock(kernel, uniformity, solver, phases), slots(kernel),
        report(report) {
    model.sharing = ThreadScope::Grid;
    model.slots = inBlock.slots = &slots;
    model.named = inBlock.named = &named;
    for (auto [d, size] : llvm::enumerate(grid))
      if (d < 3)
        model.grid[d] = size;
    // A dimension of an unknown grid that the kernel never reads is taken
    // as 1: its blocks could not tell themselves apart (a larger launch
    // would run identical blocks, the launch's defect).
    bool reads[3] = {false, false, false};
    kernel->walk([&](Operation *op) {
      if (std::optional<int> d = getBlockIndexDim(op))
        reads[*d] = true;
    });
    for (int d = 0; d < 3; ++d)
      if (model.grid[d] <= 0 && !reads[d])
        model.grid[d] = 1;
    llvm::copy(model.grid, inBlock.grid);
    protocol.emplace(model, threads, ArrayRef<int64_t>(model.grid), report);
    if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
      if (DenseI32ArrayAttr size = func.getKnownClusterSizeAttr();
          size && size.size() == 3 &&
          llvm::all_of(size.asArrayRef(), [](int32_t c) { return c >= 1; }))
        cluster.assign(size.asArrayRef().begin(), size.asArrayRef().end());
    kernel->walk([&](Operation *op) {
      if (isClusterBarrier(op))
        clusterBarriers.push_back(op);
    });
  }

  void run();

private:
  bool collect();
  void addAccess(const MemoryAccess &access);
  /// Within a block: a plain write whose element is the same in every
  /// thread (its view and indices uniform over the block) that more than
  /// one thread runs. Those threads write one element, unordered.
  void checkUniformWrite(const MemoryAccess &access);
  /// Two threads of one block that may run the same instance of `access`
  /// (its guards and predicate hold in both), as "threads a and b"; none
  /// when there are none, or the search gave up (`gaveUp`).
  std::optional<std::string> twoRunners(const MemoryAccess &access);
  /// Two threads of one block that may run `write` and `other` (through
  /// views of one buffer) at one element with no barrier between them, as
  /// "threads a and b"; none when there are none, or the search gave up
  /// (`gaveUp`, also when two threads meet there but the barriers between them
  /// cannot be counted).
  /// `needExact`: a pair found through values the system does not model
  /// per thread (an index read from memory) is given up on, not reported.
  std::optional<std::string> unorderedPair(const MemoryAccess &write,
                                           const MemoryAccess &other,
                                           bool needExact = false);
  /// Two threads of one block running `a` and `b` (one instance of one
  /// access with `sameInstance`) under their guards and what `relate` adds
  /// (false: not asked), as "threads x and y"; none when there are none,
  /// or the search gave up (`gaveUp`).
  /// `unit`: the threads of a warp (32) or warpgroup (128) run a
  /// collective access as one, so the two must be in different ones.
  std::optional<std::string> twoThreads(
      const MemoryAccess &a, const MemoryAccess &b, bool sameInstance,
      function_ref<bool(SystemBuilder &, const Instance &, const Instance &)>
          relate,
      int64_t unit = 1);
  /// Uniform writes (checkUniformWrite) against the other accesses of
  /// their view.
  void checkUniformWritePairs();
  /// Within a block: a plain write (through a view uniform over the block)
  /// whose index is a uniform part plus a part of the thread alone, where
  /// two threads of the block get one element. Each index's thread part is
  /// evaluated for every thread (the uniform parts are the same in both).
  void checkThreadWrite(const MemoryAccess &access);
  /// Within a block: every pair of accesses through one block-uniform view,
  /// one of them a write, that two threads may make at one element with no
  /// barrier between (checkUniformWritePairs asks the uniform writes).
  void checkThreadPairs();
  /// Within a block: every other pair of accesses of one buffer, one of
  /// them a plain write, that the checks above do not ask (views that
  /// differ per thread or from each other, indices that mix the thread with
  /// loops or data, a block of unknown size): the two-thread system alone,
  /// in the buffer's coordinates. A pair it finds only through values it
  /// does not model per thread is AMK-UNPROVABLE.
  void checkOtherPairs();
  /// The pairs of `members` (x <= y, `wanted`) that two threads may make
  /// at one element, as far as their thread parts, with the uniform parts
  /// of each dimension d equal up to a multiple of modulus[d] (0: equal).
  void sweepPairs(ArrayRef<unsigned> members, ArrayRef<int64_t> modulus,
                  ArrayRef<SmallVector<Separated>> separated,
                  ArrayRef<std::vector<bool>> active,
                  function_ref<bool(unsigned, unsigned)> wanted,
                  llvm::SetVector<std::pair<unsigned, unsigned>> &pairs);
  /// The two-thread system for a pair the sweep found (one instance of one
  /// access when `same`); reports a race or gives up.
  /// Asks unorderedPair(w, o) and reports the race it finds (the message
  /// ends in `advice`), or that it gave up; either adds `o` to `reported`.
  void reportUnorderedPair(const MemoryAccess &w, const MemoryAccess &o,
                           llvm::SmallPtrSetImpl<Operation *> &reported,
                           StringRef advice, bool needExact = false);
  void askThreadPair(const MemoryAccess &ax, const MemoryAccess &ay, bool same);
  /// `access`'s indices as block-uniform terms, a constant and a part of
  /// the thread alone (for every thread); nullopt when an index mixes them.
  std::optional<SmallVector<Separated>>
  separateIndices(const MemoryAccess &access);
  /// The threads of the block whose guards of the thread alone let them
  /// run `access` (guards uniform or mixed keep every thread).
  std::vector<bool> activeThreads(const MemoryAccess &access);
  /// Whether `v` has one value per thread for the whole kernel: defined
  /// outside every loop (and, in a kernel of several blocks, in the entry
  /// block), so two threads' instances of a uniform `v` are equal.
  bool isOncePerThread(Value v) const;
  std::vector<MemoryAccess> uniformWrites, globalAccesses;
  /// The ops of uniformWrites.
  llvm::SmallPtrSet<Operation *, 8> uniformWriteOps;
  /// The globalAccesses that checkThreadPairs sweeps (by index).
  llvm::DenseSet<unsigned> swept;
  llvm::SmallPtrSet<Operation *, 8> reportedWithin;
  /// Adds `scale * v` to `span`: sums and multiples by constants are
  /// followed (so that unrolled accesses share their terms), constants
  /// widen it. False on an overflow.
  bool addLinear(Value v, int64_t scale, Span &span, int depth = 0);
  /// `span` with its terms of the thread id alone replaced by their range
  /// over the block (the span of every thread of the block at once), when
  /// it has some.
  std::optional<Span> blockCover(const Span &span);
  /// `spans` (in `sub`'s dimensions) in those of its source; false on an
  /// overflow.
  bool throughSubview(memref::SubViewOp sub, SmallVector<Span> &spans);
  /// The spans of `access` in its own view's dimensions, or a reason.
  FailureOr<SmallVector<Span>> viewSpans(const MemoryAccess &access,
                                         std::string &whyNot);
  /// Whether the two boxes can meet in two blocks (a witness in `why`);
  /// sets `gaveUp` when the cases ran out.
  bool meet(const Box &a, const Box &b, bool cover, std::string &why);
  /// Whether no two blocks run an op of `a` and one of `b`: versions of a
  /// kernel chosen uniformly over the grid never meet, nor do the ops of a
  /// branch one block at most runs.
  bool neverInTwoBlocks(ArrayRef<Operation *> a, ArrayRef<Operation *> b) const;
  /// The first pair of members of `a` and `b` that meet, as boxes (`why`
  /// then says where); none when no pair does (or the search gave up).
  std::optional<std::pair<Box, Box>> meetMembers(const Box &a, const Box &b,
                                                 std::string &why);
  bool search(System s, ArrayRef<SmallVector<Alternative, 2>> splits,
              unsigned next, SmallVector<int64_t> &point);

  /// Whether each access of `before` and each of `after` are ordered by a
  /// cluster barrier between them (on every path that runs them: the
  /// barrier's block holds both, it is in no loop, and the convergence
  /// check has every thread of the cluster reach it), or lie in branches
  /// that no cluster both takes.
  bool clusterBarrierBetween(ArrayRef<Operation *> before,
                             ArrayRef<Operation *> after) const;

  Model model;
  /// The same kernel for two threads of one block (the values uniform over
  /// the block shared): the questions within a block.
  Model inBlock;
  SlotCounters slots;
  ThreadEvaluator threads{model};
  /// known_cluster_size (empty: clusters of one block) and the kernel's
  /// cluster barriers.
  SmallVector<int64_t, 3> cluster;
  SmallVector<Operation *> clusterBarriers;
  llvm::function_ref<void(StringRef, Operation *, const Twine &)> report;
  /// The counters between blocks and the orderings they make.
  std::optional<GlobalProtocol> protocol;
  std::vector<Box> boxes;
  /// Accesses whose boxes are not modelled, and why.
  std::vector<std::pair<MemoryAccess, std::string>> unmodelled;
  unsigned systems = 0;
  bool gaveUp = false;
  /// Why, when it was not the count of systems.
  std::string gaveUpWhy;
};

} // namespace

//===----------------------------------------------------------------------===//
// Boxes
//===----------------------------------------------------------------------===//

/// The grid dimension whose block index `op` reads (a block, cluster or
/// global id), if any.
static std::optional<int> getBlockIndexDim(Operation *op) {
  if (auto id = dyn_cast<gpu::BlockIdOp>(op))
    return int(id.getDimension());
  if (auto id = dyn_cast<gpu::GlobalIdOp>(op))
    return int(id.getDimension());
  if (auto id = dyn_cast<gpu::ClusterIdOp>(op))
    return int(id.getDimension());
  if (auto id = dyn_cast<gpu::ClusterBlockIdOp>(op))
    return int(id.getDimension());
  if (isa<NVVM::BlockIdXOp, NVVM::ClusterIdXOp, NVVM::BlockInClusterIdXOp>(op))
    return 0;
  if (isa<NVVM::BlockIdYOp, NVVM::ClusterIdYOp, NVVM::BlockInClusterIdYOp>(op))
    return 1;
  if (isa<NVVM::BlockIdZOp, NVVM::ClusterIdZOp, NVVM::BlockInClusterIdZOp>(op))
    return 2;
  return std::nullopt;
}

/// lo += a * scale and hi += b * scale, a <= b (false on an overflow).
static bool widen(Span &span, int64_t a, int64_t b, int64_t scale) {
  int64_t x, y;
  if (llvm::MulOverflow(a, scale, x) || llvm::MulOverflow(b, scale, y))
    return false;
  return !llvm::AddOverflow(span.lo, std::min(x, y), span.lo) &&
         !llvm::AddOverflow(span.hi, std::max(x, y), span.hi);
}

std::optional<Span> GlobalChecker::blockCover(const Span &span) {
  Span cover = span;
  cover.terms.clear();
  bool threadPart = false;
  for (auto [v, c] : span.terms) {
    const std::vector<int64_t> *values =
        model.blockKnown && threads.isThreadOnly(v) ? threads.values(v)
                                                    : nullptr;
    if (!values || values->empty()) {
      cover.terms.push_back({v, c});
      continue;
    }
    auto [lo, hi] = std::minmax_element(values->begin(), values->end());
    if (!widen(cover, *lo, *hi, c))
      return std::nullopt;
    threadPart = true;
  }
  if (!threadPart)
    return std::nullopt;
  return cover;
}

bool GlobalChecker::addLinear(Value v, int64_t scale, Span &span, int depth) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return widen(span, *c, *c, scale);
  Operation *def = v.getDefiningOp();
  if (def && depth < 32) {
    if (isa<arith::AddIOp, arith::SubIOp>(def))
      return addLinear(def->getOperand(0), scale, span, depth + 1) &&
             addLinear(def->getOperand(1),
                       isa<arith::SubIOp>(def) ? -scale : scale, span,
                       depth + 1);
    if (isa<arith::MulIOp, arith::ShLIOp>(def))
      if (std::optional<int64_t> c = getConstantIntValue(def->getOperand(1))) {
        int64_t factor = *c;
        if (isa<arith::ShLIOp>(def))
          factor = *c >= 0 && *c < 62 ? int64_t(1) << *c : 0;
        int64_t product;
        if (factor != 0 && !llvm::MulOverflow(scale, factor, product))
          return addLinear(def->getOperand(0), product, span, depth + 1);
      }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
      return addLinear(def->getOperand(0), scale, span, depth + 1);
  }
  for (auto &[value, c] : span.terms)
    if (value == v)
      return !llvm::AddOverflow(c, scale, c);
  span.terms.push_back({v, scale});
  return true;
}

FailureOr<SmallVector<Span>>
GlobalChecker::viewSpans(const MemoryAccess &access, std::string &whyNot) {
  auto type = cast<MemRefType>(access.memref.getType());
  SmallVector<Span> dims(type.getRank());
  if (access.wholeView) {
    // The whole view (the bounds check proves what it writes inside it).
    if (!type.hasStaticShape()) {
      whyNot = "a whole-view access of a view with a dynamic shape";
      return failure();
    }
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      dims[d].hi = size;
    return dims;
  }
  for (auto [d, index] : llvm::enumerate(access.indices))
    if (!addLinear(index, 1, dims[d])) {
      whyNot = "index arithmetic that overflows";
      return failure();
    }
  if (!dims.empty())
    dims.back().hi += access.width - 1;
  if (dims.size() >= 2)
    dims[dims.size() - 2].hi += access.rows - 1;
  return dims;
}

namespace {
/// A view of a global buffer as the race checks follow it: the subviews
/// between the view and the buffer (innermost first; casts are skipped)
/// and the buffer.
struct ViewChain {
  SmallVector<memref::SubViewOp> subviews;
  Value root;
  /// The buffer: a kernel argument or one from outside the kernel (its
  /// value), or a memref.get_global (its name).
  const void *key = nullptr;
};
} // namespace

/// The chain from `memref` to its buffer, or why it cannot be followed (a
/// view op other than a cast or a subview of static strides).
static FailureOr<ViewChain> followViews(Value memref, Operation *kernel,
                                        std::string &whyNot) {
  ViewChain chain;
  for (int depth = 0; depth <= 64; ++depth) {
    Operation *def = memref.getDefiningOp();
    if (!def || !kernel->isAncestor(def)) {
      chain.root = memref;
      chain.key = memref.getAsOpaquePointer();
      return chain;
    }
    if (auto global = dyn_cast<memref::GetGlobalOp>(def)) {
      chain.root = memref;
      chain.key = global.getNameAttr().getAsOpaquePointer();
      return chain;
    }
    if (isa<memref::CastOp, memref::AssumeAlignmentOp,
            memref::MemorySpaceCastOp>(def)) {
      memref = def->getOperand(0);
      continue;
    }
    auto sub = dyn_cast<memref::SubViewOp>(def);
    if (!sub || llvm::any_of(sub.getStaticStrides(), ShapedType::isDynamic)) {
      whyNot = "a view through " + describeOp(def) +
               " (the global race check models subviews of static strides "
               "and casts)";
      return failure();
    }
    chain.subviews.push_back(sub);
    memref = sub.getSource();
  }
  whyNot = "a view chain too deep to follow";
  return failure();
}

bool GlobalChecker::throughSubview(memref::SubViewOp sub,
                                   SmallVector<Span> &spans) {
  llvm::SmallBitVector dropped = sub.getDroppedDims();
  SmallVector<Span> source;
  unsigned next = 0;
  for (auto [d, offset] : llvm::enumerate(sub.getMixedOffsets())) {
    int64_t stride = sub.getStaticStrides()[d];
    // Source element = offset + stride * view element.
    Span s;
    bool ok = isa<Value>(offset) ? addLinear(cast<Value>(offset), 1, s)
                                 : widen(s, *getConstantIntValue(offset),
                                         *getConstantIntValue(offset), 1);
    if (ok && !dropped.test(d)) {
      const Span &v = spans[next++];
      for (auto [value, c] : v.terms) {
        int64_t scaled;
        ok &= !llvm::MulOverflow(c, stride, scaled) &&
              addLinear(value, scaled, s);
      }
      ok &= widen(s, v.lo, v.hi - 1, stride);
    }
    if (!ok)
      return false;
    source.push_back(std::move(s));
  }
  spans = std::move(source);
  return true;
}

void GlobalChecker::addAccess(const MemoryAccess &access) {
  std::string whyNot;
  FailureOr<SmallVector<Span>> spans = viewSpans(access, whyNot);
  // Through the views to the buffer: spans in its coordinates.
  FailureOr<ViewChain> chain = failure();
  if (succeeded(spans))
    chain = followViews(access.memref, model.kernel, whyNot);
  if (failed(chain))
    spans = failure();
  else
    for (memref::SubViewOp sub : chain->subviews)
      if (!throughSubview(sub, *spans)) {
        whyNot = "a subview whose offsets overflow";
        spans = failure();
        break;
      }
  const void *root = succeeded(spans) ? chain->key : nullptr;
  Value rootValue = succeeded(spans) ? chain->root : Value();
  // The protocol check alone decides a counter's accesses.
  if (root && protocol->isCounter(root))
    return;
  if (failed(spans)) {
    unmodelled.push_back({access, whyNot});
    return;
  }
  Kind kind = isAtomicAccess(access) ? Kind::Atomic
              : access.write         ? Kind::Write
                                     : Kind::Read;
  SmallVector<scf::ForOp> loops = enclosingLoops(access.op, model.kernel);
  Operation *loop = loops.empty() ? nullptr : loops.back().getOperation();
  auto sameTerms = [](const Span &x, const Span &y) {
    if (x.terms.size() != y.terms.size())
      return false;
    return llvm::all_of(x.terms,
                        [&](auto t) { return llvm::is_contained(y.terms, t); });
  };
  // Whether the box stays exactly its members' union with `spans`: they
  // meet or touch it in one dimension and equal it in the others.
  auto extendsExactly = [](const Box &box, ArrayRef<Span> spans) {
    unsigned differing = 0;
    for (auto [d, s] : llvm::zip(box.dims, spans)) {
      if (d.lo == s.lo && d.hi == s.hi)
        continue;
      if (++differing > 1 || s.lo > d.hi || d.lo > s.hi)
        return false;
    }
    return true;
  };
  for (Box &box : boxes) {
    if (box.root != root || box.kind != kind || box.loop != loop ||
        box.dims.size() != spans->size() ||
        !llvm::all_of(llvm::zip(box.dims, *spans), [&](auto pair) {
          return sameTerms(std::get<0>(pair), std::get<1>(pair));
        }))
      continue;
    box.exact &= extendsExactly(box, *spans);
    for (auto [d, s] : llvm::zip(box.dims, *spans)) {
      d.lo = std::min(d.lo, s.lo);
      d.hi = std::max(d.hi, s.hi);
    }
    if (!llvm::is_contained(box.members, access.op)) {
      box.members.push_back(access.op);
      box.memberDims.push_back(*spans);
      box.memberConditions.push_back(access.condition);
    }
    if (box.condition != access.condition)
      box.mixedConditions = true;
    return;
  }
  boxes.push_back(Box{root,
                      rootValue,
                      kind,
                      loop,
                      access.op,
                      {access.op},
                      *spans,
                      access.condition,
                      false,
                      {*spans},
                      {access.condition},
                      true});
  return;
}

/// The buffer a view is made of, through every view op (null: not known).
static const void *getBaseBuffer(Value memref, Operation *kernel) {
  for (int depth = 0; depth < 64; ++depth) {
    Operation *def = memref.getDefiningOp();
    if (!def || !kernel->isAncestor(def))
      return memref.getAsOpaquePointer();
    if (auto global = dyn_cast<memref::GetGlobalOp>(def))
      return global.getNameAttr().getAsOpaquePointer();
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      memref = view.getViewSource();
    else if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(def))
      memref = meta.getSource();
    else
      return nullptr;
  }
  return nullptr;
}

bool GlobalChecker::collect() {
  model.kernel->walk([&](Operation *op) {
    FailureOr<SmallVector<MemoryAccess>> list = getMemoryAccesses(op);
    if (failed(list))
      return; // the bounds check reports it.
    for (const MemoryAccess &access : *list)
      if (isGlobalMemRef(access.memref.getType())) {
        addAccess(access);
        checkUniformWrite(access);
        globalAccesses.push_back(access);
      }
  });
  checkUniformWritePairs();
  checkThreadPairs();
  checkOtherPairs();
  // An access the boxes do not model matters where its buffer (any buffer,
  // when that is not known) is written.
  llvm::DenseSet<const void *> written;
  bool writes = false;
  for (const Box &box : boxes)
    if (box.kind != Kind::Read) {
      written.insert(box.root);
      writes = true;
    }
  for (const auto &[access, whyNot] : unmodelled)
    if (access.write) {
      written.insert(getBaseBuffer(access.memref, model.kernel));
      writes = true;
    }
  bool modelled = true;
  for (const auto &[access, whyNot] : unmodelled) {
    const void *base = getBaseBuffer(access.memref, model.kernel);
    if (!access.write && !(base ? written.contains(base) : writes))
      continue;
    report(check::kUnprovable, access.op,
           "the race check between blocks does not model the global memory "
           "this " +
               access.what + " touches: " + whyNot);
    modelled = false;
  }
  return modelled;
}

//===----------------------------------------------------------------------===//
// The question
//===----------------------------------------------------------------------===//

/// The scf.if conditions every member of `box` runs under.
static SmallVector<std::pair<Value, bool>> commonGuards(const Box &box,
                                                        Operation *kernel) {
  SmallVector<std::pair<Value, bool>> guards;
  for (Operation *child = box.representative, *parent = child->getParentOp();
       parent && child != kernel;
       child = parent, parent = parent->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(parent);
    if (!ifOp)
      continue;
    Region *branch = child->getParentRegion();
    if (llvm::all_of(box.members, [&](Operation *m) {
          return branch->isAncestor(m->getParentRegion());
        }))
      guards.push_back({ifOp.getCondition(), branch == &ifOp.getThenRegion()});
  }
  return guards;
}

bool GlobalChecker::search(System s,
                           ArrayRef<SmallVector<Alternative, 2>> splits,
                           unsigned next, SmallVector<int64_t> &point) {
  if (++systems > kMaxSystems) {
    gaveUp = true;
    return false;
  }
  if (next == splits.size()) {
    std::optional<SmallVector<int64_t>> sample = s.sample();
    if (sample)
      point = std::move(*sample);
    return sample.has_value();
  }
  if (s.provablyEmpty())
    return false;
  for (const Alternative &alt : splits[next]) {
    System c = s;
    for (const Constraint &k : alt)
      k.equality ? c.eq0(k.form) : c.ge0(k.form);
    if (search(std::move(c), splits, next + 1, point))
      return true;
    if (gaveUp)
      return false;
  }
  return false;
}

/// Whether a race found for `box` as a whole must be asked member by
/// member: its union is not exact, or its members are not all in one
/// block (so not all under the same guards).
static bool isScreen(const Box &box) {
  return !box.exact || llvm::any_of(box.members, [&](Operation *m) {
    return m->getBlock() != box.representative->getBlock();
  });
}

/// The alternatives that two counter elements differ, from their
/// per-dimension differences: one of them at least 1 or at most -1 (a
/// constant difference needs none: 0 never differs, another always does).
/// `same` stays true only where every difference is 0, and `apart` becomes
/// true where one is a constant other than 0.
static void addDiffering(ArrayRef<Lin> deltas,
                         SmallVectorImpl<Alternative> &differ, bool &same,
                         bool &apart) {
  for (const Lin &delta : deltas) {
    std::optional<int64_t> constant = delta.asConstant();
    same &= constant == 0;
    apart |= constant && *constant != 0;
    if (constant)
      continue;
    differ.push_back({{delta - 1, false}});
    differ.push_back({{delta * -1 - 1, false}});
  }
}

bool GlobalChecker::meet(const Box &a, const Box &b, bool cover,
                         std::string &why) {
  SystemBuilder builder(model);
  builder.distinct = SystemBuilder::Distinct::Blocks;
  System &sys = builder.sys;
  llvm::DenseMap<Operation *, Lin> independent;
  Instance ia = builder.instance(a.representative, 0, independent);
  Instance ib = builder.instance(b.representative, 1, independent);
  for (auto [box, in] : {std::make_pair(&a, &ia), std::make_pair(&b, &ib)}) {
    for (auto [cond, truth] : commonGuards(*box, model.kernel))
      builder.condition(cond, truth, *in);
    if (box->condition && !box->mixedConditions)
      builder.condition(box->condition, true, *in);
  }
  // The boxes meet in every dimension; `at` is a common element.
  SmallVector<std::pair<Lin, Lin>> starts;
  for (auto [spanA, spanB] : llvm::zip(a.dims, b.dims)) {
    // Each block's accesses as one box first: its threads' part is no
    // variable then (and a found overlap is asked again exactly).
    std::optional<Span> coverA = cover ? blockCover(spanA) : std::nullopt,
                        coverB = cover ? blockCover(spanB) : std::nullopt;
    const Span &da = coverA ? *coverA : spanA, &db = coverB ? *coverB : spanB;
    Lin xa = Lin::of(da.lo), xb = Lin::of(db.lo);
    for (auto [v, c] : da.terms)
      xa = xa + builder.expr(v, ia) * c;
    for (auto [v, c] : db.terms)
      xb = xb + builder.expr(v, ib) * c;
    sys.ge0(xb + (db.hi - db.lo - 1) - xa);
    sys.ge0(xa + (da.hi - da.lo - 1) - xb);
    starts.push_back({xa, xb});
  }
  Lin ba[3], bb[3];
  for (int d = 0; d < 3; ++d) {
    ba[d] = builder.blockId(ia, d);
    bb[d] = builder.blockId(ib, d);
  }
  // Instances a counter orders race only where the signal's and the poll's
  // counter elements differ (translated before the splits are taken, so
  // that their divisions are split too).
  // An edge whose counter elements differ by a constant orders nothing
  // (no split); one whose elements are always the same orders every pair.
  SmallVector<SmallVector<Alternative, 2>, 4> unordered;
  bool alwaysOrdered = false;
  auto addOrderings = [&](const Box &x, const Instance &ix, const Box &y,
                          const Instance &iy) {
    for (const GlobalProtocol::Edge &e :
         protocol->getEdges(x.members, y.members)) {
      if (e.relayStep) {
        // Ordered when c - a = K d (K >= 1), a runs the signal, c the
        // poll, and, for K >= 2, every block between the relay (a + d >=
        // from): unordered otherwise.
        int64_t d = e.relayStep;
        Lin a = builder.expr(e.relayCoordinate, ix),
            c = builder.expr(e.relayCoordinate, iy);
        Lin gap = c - a;
        SmallVector<Alternative, 2> apart;
        apart.push_back({{gap * -1 + (d - 1), false}});
        apart.push_back({{a * -1 + (e.signalFrom - 1), false}});
        apart.push_back({{c * -1 + (e.pollFrom - 1), false}});
        if (d > 1)
          apart.push_back({{builder.divMod(gap, d, true) - 1, false}});
        apart.push_back(
            {{gap - 2 * d, false}, {a * -1 + (e.relayFrom - d - 1), false}});
        unordered.push_back(std::move(apart));
        continue;
      }
      SmallVector<Alternative, 2> differ;
      bool same = true, apart = false;
      // The two counter elements equal, or (a chain) each at its constant.
      SmallVector<Lin> deltas;
      if (e.signalRange) {
        // A gather edge: unordered where the signal's element is outside
        // the gathered range (the poll's element is the gather's constant).
        same = false;
        Lin at = builder.expr(e.signalIndex.front(), ix);
        differ.push_back({{at * -1 + (e.signalRange->first - 1), false}});
        differ.push_back({{at - e.signalRange->second, false}});
      } else if (e.signalAt.empty()) {
        for (auto [f, g] : llvm::zip(e.signalIndex, e.pollIndex))
          deltas.push_back(builder.expr(f, ix) - builder.expr(g, iy));
      } else {
        for (auto [f, c] : llvm::zip(e.signalIndex, e.signalAt))
          deltas.push_back(builder.expr(f, ix) - c);
        for (auto [g, c] : llvm::zip(e.pollIndex, e.pollAt))
          deltas.push_back(builder.expr(g, iy) - c);
      }
      addDiffering(deltas, differ, same, apart);
      // A guarded poll: unordered in the blocks its guards skip.
      for (auto [dim, from] : e.pollGuards) {
        same = false;
        differ.push_back({{builder.blockId(iy, dim) * -1 + (from - 1), false}});
      }
      // A ticket edge: unordered also where the signal's turn is not below
      // the poll's threshold.
      if (e.ticketed) {
        Lin ticket =
            e.signalTicket ? builder.expr(e.signalTicket, ix) : Lin::of(0);
        Lin late = ticket - builder.expr(e.pollThreshold, iy);
        std::optional<int64_t> constant = late.asConstant();
        same = false;
        apart |= constant && *constant >= 0;
        differ.push_back({{late, false}});
      }
      if (same)
        alwaysOrdered = true;
      else if (!apart)
        unordered.push_back(std::move(differ));
    }
  };
  addOrderings(a, ia, b, ib);
  addOrderings(b, ib, a, ia);
  if (alwaysOrdered)
    return false;
  // Two blocks in the branch of one gate per element (a split-K tile's
  // last block) signalled different elements.
  for (ValueRange index : protocol->getGateElements(a.members, b.members)) {
    SmallVector<Lin> deltas;
    for (Value i : index)
      deltas.push_back(builder.expr(i, ia) - builder.expr(i, ib));
    SmallVector<Alternative, 2> differ;
    bool same = true, apart = false;
    addDiffering(deltas, differ, same, apart);
    if (same)
      return false; // the same element in both blocks: one block
    if (!apart)
      unordered.push_back(std::move(differ));
  }
  // A cluster barrier between the two orders the blocks of one cluster:
  // only blocks of different clusters can race then.
  if (!cluster.empty() && (clusterBarrierBetween(a.members, b.members) ||
                           clusterBarrierBetween(b.members, a.members))) {
    SmallVector<Alternative, 2> apart;
    for (int d = 0; d < 3; ++d) {
      Lin qa =
          cluster[d] == 1 ? ba[d] : builder.divMod(ba[d], cluster[d], false);
      Lin qb =
          cluster[d] == 1 ? bb[d] : builder.divMod(bb[d], cluster[d], false);
      apart.push_back({{qa - qb - 1, false}});
      apart.push_back({{qb - qa - 1, false}});
    }
    unordered.push_back(std::move(apart));
  }
  SmallVector<SmallVector<Alternative, 2>, 4> splits = getCaseSplits(builder);
  splits.append(unordered.begin(), unordered.end());

  // The blocks differ: first in dimension d (a's before b's, or either way
  // round for two boxes).
  bool symmetric = &a == &b;
  for (int d = 0; d < 3; ++d) {
    if (ba[d].asConstant() && bb[d].asConstant())
      continue; // one block in this dimension
    for (int dir : {-1, 1}) {
      if (dir > 0 && symmetric)
        continue;
      System s = sys;
      for (int e = 0; e < d; ++e)
        s.eq0(ba[e] - bb[e]);
      s.ge0(dir < 0 ? bb[d] - ba[d] - 1 : ba[d] - bb[d] - 1);
      SmallVector<int64_t> point;
      if (!search(s, splits, 0, point)) {
        if (gaveUp)
          return false;
        continue;
      }
      // The witness of a block's cover, or of a box whose race is asked
      // member by member, is never shown.
      if (cover || isScreen(a) || isScreen(b))
        return true;
      // A witness among small block ids reads better, when there is one (the
      // search's budget is spent on it only for a found race).
      System small = std::move(s);
      for (int e = 0; e < 3; ++e) {
        small.ge0(Lin::of(kWitnessBlock) - ba[e]);
        small.ge0(Lin::of(kWitnessBlock) - bb[e]);
      }
      for (auto [xa, xb] : starts)
        small.ge0(Lin::of(kWitnessElement) - xa);
      unsigned spent = systems;
      SmallVector<int64_t> smallPoint;
      if (search(std::move(small), splits, 0, smallPoint))
        point = std::move(smallPoint);
      systems = spent;
      gaveUp = false;
      auto triple = [&](const Lin *x) {
        return llvm::formatv("({0}, {1}, {2})", System::eval(x[0], point),
                             System::eval(x[1], point),
                             System::eval(x[2], point))
            .str();
      };
      std::string element;
      for (auto [xa, xb] : starts)
        element += (element.empty() ? "" : ", ") +
                   std::to_string(std::max(System::eval(xa, point),
                                           System::eval(xb, point)));
      why = llvm::formatv("blocks {0} and {1}, element [{2}]", triple(ba),
                          triple(bb), element)
                .str();
      return true;
    }
  }
  return false;
}

/// Whether `a` and `b` lie in different branches of an scf.if whose
/// condition is uniform over `scope` (a cluster, the grid) and the same in
/// every iteration of the loops around the if (blocks in different
/// iterations could take different branches): no such group of blocks
/// runs both.
static bool inExclusiveBranches(Operation *a, Operation *b,
                                const UniformityInfo &uniformity,
                                ThreadScope scope) {
  for (auto ifOp = a->getParentOfType<scf::IfOp>(); ifOp;
       ifOp = ifOp->getParentOfType<scf::IfOp>()) {
    Region *branchOfA = &ifOp.getThenRegion();
    if (!branchOfA->isAncestor(a->getParentRegion()))
      branchOfA = &ifOp.getElseRegion();
    Region *other = branchOfA == &ifOp.getThenRegion() ? &ifOp.getElseRegion()
                                                       : &ifOp.getThenRegion();
    if (!other->isAncestor(b->getParentRegion()))
      continue;
    Value cond = ifOp.getCondition();
    Region *defined = cond.getParentRegion();
    for (auto loop = ifOp->getParentOfType<LoopLikeOpInterface>(); loop;
         loop = loop->getParentOfType<LoopLikeOpInterface>())
      if (loop->isAncestor(defined->getParentOp()))
        return false;
    return !uniformity.isDivergent(cond, scope);
  }
  return false;
}

bool GlobalChecker::neverInTwoBlocks(ArrayRef<Operation *> a,
                                     ArrayRef<Operation *> b) const {
  return llvm::all_of(a,
                      [&](Operation *x) {
                        return llvm::all_of(b, [&](Operation *y) {
                          return inExclusiveBranches(x, y, model.uniformity,
                                                     ThreadScope::Grid);
                        });
                      }) ||
         protocol->inOneBlock(a, b);
}

bool GlobalChecker::clusterBarrierBetween(ArrayRef<Operation *> before,
                                          ArrayRef<Operation *> after) const {
  // Each pair is ordered by a barrier between them, or never meets in one
  // cluster (the versions of a kernel, chosen uniformly).
  auto ordered = [&](Operation *first, Operation *second) {
    if (inExclusiveBranches(first, second, model.uniformity,
                            ThreadScope::Cluster))
      return true;
    return llvm::any_of(clusterBarriers, [&](Operation *barrier) {
      // Not in a loop: there the next iteration's accesses before it meet
      // this one's after it, between the same two barriers.
      if (barrier->getParentOfType<LoopLikeOpInterface>())
        return false;
      Block *block = barrier->getBlock();
      Operation *x = block->findAncestorOpInBlock(*first);
      Operation *y = block->findAncestorOpInBlock(*second);
      return x && y && x->isBeforeInBlock(barrier) &&
             barrier->isBeforeInBlock(y);
    });
  };
  return llvm::all_of(before, [&](Operation *first) {
    return llvm::all_of(
        after, [&](Operation *second) { return ordered(first, second); });
  });
}

/// Box `box`'s member `i` as a box of its own.
static Box memberBox(const Box &box, size_t i) {
  Box m = box;
  m.representative = box.members[i];
  m.members = {box.members[i]};
  m.dims = box.memberDims[i];
  m.condition = box.memberConditions[i];
  m.mixedConditions = false;
  m.memberDims = {box.memberDims[i]};
  m.memberConditions = {box.memberConditions[i]};
  m.exact = true;
  return m;
}

std::optional<std::pair<Box, Box>>
GlobalChecker::meetMembers(const Box &a, const Box &b, std::string &why) {
  for (size_t i = 0; i < a.members.size(); ++i)
    for (size_t j = &a == &b ? i : 0; j < b.members.size(); ++j) {
      if (neverInTwoBlocks(a.members[i], b.members[j]))
        continue;
      Box ma = memberBox(a, i), mb = memberBox(b, j);
      systems = 0;
      // (Exactly at once: a member's block cover screens out too few pairs
      // to pay for its system, 8% of the ring megakernels' time.)
      if (meet(ma, mb, /*cover=*/false, why))
        return std::make_pair(std::move(ma), std::move(mb));
      if (gaveUp)
        return std::nullopt;
    }
  return std::nullopt;
}

void GlobalChecker::checkUniformWrite(const MemoryAccess &access) {
  if (!access.write || access.wholeView || access.warpgroupCollective ||
      access.warpCollective || isAtomicAccess(access))
    return;
  auto uniform = [&](Value v) {
    return !model.uniformity.isDivergent(v, ThreadScope::Block);
  };
  if (!uniform(access.memref))
    return;
  if (!llvm::all_of(access.indices, uniform))
    return checkThreadWrite(access);
  // The protocol check alone decides a counter's accesses.
  if (protocol->isCounter(getBaseBuffer(access.memref, model.kernel)))
    return;
  uniformWrites.push_back(access);
  uniformWriteOps.insert(access.op);
  std::optional<std::string> threadsWhy = twoRunners(access);
  if (gaveUp) {
    gaveUp = false;
    report(check::kUnprovable, access.op,
           llvm::formatv("the race check within a block gave up on whether "
                         "more than one thread runs {0}, which writes one "
                         "element in every thread that runs it",
                         describeOp(access.op))
               .str());
    return;
  }
  if (!threadsWhy)
    return;
  report(check::kGlobalRace, access.op,
         llvm::formatv("{0} writes the same element in every thread that "
                       "runs it (its address is uniform over the block), "
                       "and more than one thread of a block runs it ({1}): "
                       "their writes are unordered; let one thread write it "
                       "(thread_id x == 0), or give each thread its own "
                       "element",
                       describeOp(access.op), *threadsWhy)
             .str());
}

std::optional<SmallVector<Separated>>
GlobalChecker::separateIndices(const MemoryAccess &access) {
  int64_t count = model.block[0] * model.block[1] * model.block[2];
  if (!model.blockKnown || count > 1024 || access.indices.empty() ||
      access.rows != 1)
    return std::nullopt;
  SmallVector<Separated> dims(access.indices.size());
  for (auto [index, dim] : llvm::zip(access.indices, dims)) {
    if (!separateIndex(index, 1, dim, model, threads))
      return std::nullopt;
    dim.perThread.resize(count, 0);
  }
  return dims;
}

std::vector<bool> GlobalChecker::activeThreads(const MemoryAccess &access) {
  int64_t count = model.block[0] * model.block[1] * model.block[2];
  // The conjuncts of a condition that holds; guards the same in every
  // thread, or mixed, keep all, as does one that cannot be evaluated.
  SmallVector<std::pair<Value, bool>> threadGuards;
  auto addGuard = [&](Value cond, bool truth) {
    SmallVector<Value> parts;
    if (truth)
      bounds::conjuncts(cond, parts);
    else
      parts.push_back(cond);
    for (Value part : parts)
      if (threads.isThreadOnly(part) && threads.values(part))
        threadGuards.push_back({part, truth});
  };
  if (access.condition)
    addGuard(access.condition, true);
  for (Operation *child = access.op, *parent = child->getParentOp();
       parent && parent != model.kernel;
       child = parent, parent = parent->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(parent))
      addGuard(ifOp.getCondition(),
               child->getParentRegion() == &ifOp.getThenRegion());
  return threads.passing(threadGuards).value_or(std::vector<bool>(count, true));
}

void GlobalChecker::checkThreadWrite(const MemoryAccess &access) {
  std::optional<SmallVector<Separated>> dims = separateIndices(access);
  if (!dims)
    return; // not separable: not asked (see ARCHITECTURE.md)
  std::vector<bool> active = activeThreads(access);
  // Threads sorted by their element: two that share the leading indices
  // and whose runs of `width` along the last one overlap write one element
  // (one instance: the uniform parts are the same in both).
  std::vector<std::pair<SmallVector<int64_t, 4>, int64_t>> elements;
  for (int64_t t = 0; t < int64_t(active.size()); ++t) {
    if (!active[t])
      continue;
    SmallVector<int64_t, 4> element;
    for (const Separated &d : *dims)
      element.push_back(d.perThread[t]);
    elements.push_back({std::move(element), t});
  }
  llvm::sort(elements);
  for (size_t i = 1; i < elements.size(); ++i) {
    ArrayRef<int64_t> a = elements[i - 1].first, b = elements[i].first;
    if (a.drop_back() != b.drop_back() || b.back() - a.back() >= access.width)
      continue;
    reportedWithin.insert(access.op);
    report(check::kGlobalRace, access.op,
           llvm::formatv("{0} writes one element from two threads of a block "
                         "(threads {1} and {2}): their writes are unordered; "
                         "give each thread its own element",
                         describeOp(access.op), elements[i - 1].second,
                         elements[i].second)
               .str());
    return;
  }
}

bool GlobalChecker::isOncePerThread(Value v) const {
  Block *block = isa<BlockArgument>(v) ? cast<BlockArgument>(v).getOwner()
                                       : v.getDefiningOp()->getBlock();
  Region &body = model.kernel->getRegion(0);
  for (;;) {
    Operation *parent = block->getParentOp();
    if (!parent || parent == model.kernel)
      return block->getParent() != &body || body.hasOneBlock() ||
             block == &body.front();
    // A value of a region that runs at most once per thread; a block
    // argument there is a region's entry value (a loop's iv) or unknown.
    if (!isa<scf::IfOp, scf::ExecuteRegionOp, scf::IndexSwitchOp>(parent) ||
        (isa<BlockArgument>(v) && cast<BlockArgument>(v).getOwner() == block))
      return false;
    block = parent->getBlock();
  }
}

/// What an unordered write does to the other access of a race.
static StringRef raceOutcome(bool otherWrites) {
  return otherWrites ? "either write may land last"
                     : "the read may see the value before or after the write";
}

void GlobalChecker::checkUniformWritePairs() {
  llvm::SmallPtrSet<Operation *, 8> reported;
  for (const MemoryAccess &w : uniformWrites)
    for (const MemoryAccess &o : globalAccesses) {
      if (o.op == w.op || o.memref != w.memref || o.wholeView ||
          o.warpgroupCollective || o.warpCollective ||
          reported.contains(o.op) ||
          inExclusiveBranches(w.op, o.op, model.uniformity,
                              ThreadScope::Block) ||
          (isAtomicAccess(o) && !o.write))
        continue;
      reportUnorderedPair(w, o, reported, "");
    }
}

void GlobalChecker::sweepPairs(
    ArrayRef<unsigned> members, ArrayRef<int64_t> modulus,
    ArrayRef<SmallVector<Separated>> separated,
    ArrayRef<std::vector<bool>> active,
    function_ref<bool(unsigned, unsigned)> wanted,
    llvm::SetVector<std::pair<unsigned, unsigned>> &pairs) {
  // Each run of elements each active thread touches, its coordinates
  // reduced by the moduli: two runs of different threads that overlap may
  // touch one element. A last dimension with a modulus has its runs cut
  // into single elements (a run may wrap around the modulus).
  struct Item {
    size_t key; // into `keys`, `rank` coordinates; the last: the run's start
    int64_t width;
    int64_t thread;
    unsigned access;
    /// Other threads than `thread` touch this run too.
    bool manyThreads = false;
  };
  std::vector<Item> items;
  std::vector<int64_t> keys;
  size_t rank = modulus.size();
  bool runs = modulus.back() == 0;
  for (unsigned i : members) {
    const MemoryAccess &a = globalAccesses[i];
    for (int64_t t = 0; t < int64_t(active[i].size()); ++t) {
      if (!active[i][t])
        continue;
      for (int64_t off = 0; off < (runs ? 1 : a.width); ++off) {
        items.push_back(Item{keys.size(), runs ? a.width : 1, t, i});
        for (size_t d = 0; d < rank; ++d) {
          const Separated &x = separated[i][d];
          int64_t e;
          // An element past int64: the bounds check reports it.
          if (llvm::AddOverflow(x.constant, x.perThread[t], e) ||
              (d + 1 == rank && llvm::AddOverflow(e, off, e)))
            return;
          int64_t m = modulus[d];
          keys.push_back(m ? (e % m + m) % m : e);
        }
      }
    }
  }
  auto key = [&](const Item &item) {
    return ArrayRef<int64_t>(keys).slice(item.key, rank);
  };
  llvm::sort(items, [&](const Item &x, const Item &y) {
    ArrayRef<int64_t> kx = key(x), ky = key(y);
    if (kx != ky)
      return std::lexicographical_compare(kx.begin(), kx.end(), ky.begin(),
                                          ky.end());
    return std::tie(x.access, x.thread) < std::tie(y.access, y.thread);
  });
  // The threads of one access at one run are one item (many threads that
  // read one element are one item, not a quadratic number of pairs).
  size_t kept = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (kept && items[kept - 1].access == items[i].access &&
        items[kept - 1].width == items[i].width &&
        key(items[kept - 1]) == key(items[i])) {
      items[kept - 1].manyThreads |= items[kept - 1].thread != items[i].thread;
      continue;
    }
    items[kept++] = items[i];
  }
  items.resize(kept);
  auto addPair = [&](unsigned p, unsigned q) {
    unsigned x = std::min(p, q), y = std::max(p, q);
    const MemoryAccess &ax = globalAccesses[x], &ay = globalAccesses[y];
    if ((ax.write || ay.write) && !(isAtomicAccess(ax) && isAtomicAccess(ay)) &&
        wanted(x, y))
      pairs.insert({x, y});
  };
  for (size_t i = 0; i < items.size(); ++i) {
    const Item &p = items[i];
    if (p.manyThreads)
      addPair(p.access, p.access);
    ArrayRef<int64_t> prefix = key(p).drop_back();
    int64_t end = key(p).back() + p.width;
    for (size_t j = i + 1; j < items.size(); ++j) {
      const Item &q = items[j];
      if (key(q).drop_back() != prefix || key(q).back() >= end)
        break;
      if (q.thread != p.thread || p.manyThreads || q.manyThreads)
        addPair(p.access, q.access);
    }
  }
}

void GlobalChecker::checkThreadPairs() {
  // The separable accesses of each block-uniform view, in program order,
  // in classes of the same uniform terms (per dimension).
  using Terms = SmallVector<SmallVector<std::pair<Value, int64_t>>>;
  struct Class {
    Terms terms;
    SmallVector<unsigned> members;
  };
  llvm::MapVector<Value, std::vector<Class>> views;
  std::vector<SmallVector<Separated>> separated(globalAccesses.size());
  std::vector<std::vector<bool>> active(globalAccesses.size());
  for (auto [i, a] : llvm::enumerate(globalAccesses)) {
    if (a.wholeView || a.warpgroupCollective || a.warpCollective ||
        model.uniformity.isDivergent(a.memref, ThreadScope::Block) ||
        protocol->isCounter(getBaseBuffer(a.memref, model.kernel)))
      continue;
    std::optional<SmallVector<Separated>> dims = separateIndices(a);
    if (!dims)
      continue; // not separable: not asked (see ARCHITECTURE.md)
    Terms terms;
    for (Separated &d : *dims) {
      llvm::erase_if(d.uniform, [](auto &t) { return t.second == 0; });
      llvm::sort(d.uniform, [](auto &x, auto &y) {
        return x.first.getAsOpaquePointer() < y.first.getAsOpaquePointer();
      });
      terms.push_back(d.uniform);
    }
    separated[i] = std::move(*dims);
    active[i] = activeThreads(a);
    swept.insert(i);
    std::vector<Class> &classes = views[a.memref];
    auto it = llvm::find_if(classes,
                            [&](const Class &c) { return c.terms == terms; });
    if (it == classes.end())
      classes.push_back(Class{std::move(terms), {unsigned(i)}});
    else
      it->members.push_back(i);
  }
  auto plainWrite = [&](unsigned i) {
    const MemoryAccess &a = globalAccesses[i];
    return a.write && !isAtomicAccess(a) && !uniformWriteOps.contains(a.op);
  };
  for (auto &[view, classes] : views) {
    // Pairs of classes, a class with itself included: the uniform terms
    // both have with one coefficient and one value in every thread cancel;
    // the others differ between two instances by a multiple of the gcd of
    // their coefficients.
    llvm::SetVector<std::pair<unsigned, unsigned>> pairs;
    for (size_t ci = 0; ci < classes.size(); ++ci)
      for (size_t cj = ci; cj < classes.size(); ++cj) {
        const Class &a = classes[ci], &b = classes[cj];
        if (llvm::none_of(a.members, plainWrite) &&
            llvm::none_of(b.members, plainWrite))
          continue;
        SmallVector<int64_t> modulus(a.terms.size(), 0);
        for (size_t d = 0; d < modulus.size(); ++d) {
          int64_t &m = modulus[d];
          auto fold = [&](ArrayRef<std::pair<Value, int64_t>> mine,
                          ArrayRef<std::pair<Value, int64_t>> theirs) {
            for (auto [v, c] : mine)
              if (!llvm::is_contained(theirs, std::make_pair(v, c)) ||
                  !isOncePerThread(v))
                m = std::gcd(m, c < 0 ? -c : c);
          };
          fold(a.terms[d], b.terms[d]);
          fold(b.terms[d], a.terms[d]);
        }
        SmallVector<unsigned> members(a.members);
        if (ci != cj)
          llvm::append_range(members, b.members);
        llvm::DenseSet<unsigned> inA(a.members.begin(), a.members.end());
        bool self = ci == cj;
        sweepPairs(
            members, modulus, separated, active,
            [&](unsigned x, unsigned y) {
              return self || inA.contains(x) != inA.contains(y);
            },
            pairs);
      }
    for (auto [x, y] : pairs)
      askThreadPair(globalAccesses[x], globalAccesses[y], x == y);
  }
}

void GlobalChecker::askThreadPair(const MemoryAccess &ax,
                                  const MemoryAccess &ay, bool same) {
  if (uniformWriteOps.contains(ax.op) || uniformWriteOps.contains(ay.op) ||
      (same && reportedWithin.contains(ax.op)) ||
      inExclusiveBranches(ax.op, ay.op, model.uniformity, ThreadScope::Block))
    return;
  // The write (a plain one when the other is atomic) and the other access.
  bool xWrites =
      ax.write && !(isAtomicAccess(ax) && !isAtomicAccess(ay) && ay.write);
  const MemoryAccess &w = xWrites ? ax : ay, &o = xWrites ? ay : ax;
  if (!reportedWithin.contains(o.op))
    reportUnorderedPair(w, o, reportedWithin,
                        ", or give each thread its own elements");
}

/// `v` as a value plus a constant (a null value: the constant alone).
static std::pair<Value, int64_t> splitConstant(Value v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return {Value(), *c};
  if (auto add = v.getDefiningOp<arith::AddIOp>())
    for (unsigned i = 0; i < 2; ++i)
      if (std::optional<int64_t> c =
              getConstantIntValue(add->getOperand(1 - i)))
        return {add->getOperand(i), *c};
  return {v, 0};
}

/// Whether `to` follows `from` in its block with no barrier between.
static bool noBarrierBetween(Operation *from, Operation *to) {
  if (from->getBlock() != to->getBlock() || !from->isBeforeInBlock(to))
    return false;
  for (Operation *op = from->getNextNode(); op != to; op = op->getNextNode()) {
    WalkResult found = op->walk([](Operation *inner) {
      return isBlockBarrier(inner) ? WalkResult::interrupt()
                                   : WalkResult::advance();
    });
    if (found.wasInterrupted())
      return false;
  }
  return true;
}

/// Whether a block barrier runs between every instance of `a` and every
/// instance of `b` in another thread, either way round: in the block that
/// holds both, one lies between them and, where that block can run again
/// (in a loop or a branch graph), one also lies outside the stretch between
/// them. Barriers directly in that block run whenever it does (one that
/// only some threads reach is AMK-BARRIER-DIVERGENT). A fast path: the
/// barrier counts of the constraint system decide the rest.
/// (A barrier here orders every thread that runs its block: a block
/// barrier, or a named barrier of every thread that reaches it; both
/// accesses' threads run the block that holds it.)
static bool separatedByBarriers(Operation *a, Operation *b, Operation *kernel,
                                const NamedBarriers *named) {
  for (Operation *x = a; x && x != kernel; x = x->getParentOp()) {
    Operation *y = x->getBlock()->findAncestorOpInBlock(*b);
    if (!y)
      continue;
    if (x == y)
      return false;
    Operation *first = x->isBeforeInBlock(y) ? x : y;
    Operation *second = first == x ? y : x;
    auto barrierIn = [&](Operation *from, Operation *to) {
      for (Operation *op = from; op && op != to; op = op->getNextNode())
        if (NamedBarriers::ordersItsBlock(named, op))
          return true;
      return false;
    };
    if (!barrierIn(first->getNextNode(), second))
      return false;
    bool once = true;
    for (Operation *p = first; p != kernel; p = p->getParentOp())
      once &= p->getBlock()->getParent()->hasOneBlock() &&
              (p->getParentOp() == kernel || isa<scf::IfOp>(p->getParentOp()));
    return once || barrierIn(&first->getBlock()->front(), first) ||
           barrierIn(second->getNextNode(), nullptr);
  }
  return false;
}

void GlobalChecker::checkOtherPairs() {
  auto plainWrite = [](const MemoryAccess &a) {
    return a.write && !isAtomicAccess(a);
  };
  // The accesses to ask, an unrolled run of those the sweep leaves (one
  // block, one view and guard, no barrier between, the last indices a
  // value plus constants whose runs touch) as one access over its union:
  // its pairs are asked once, not once per element.
  struct Candidate {
    MemoryAccess access;
    const void *base;
    bool swept, uniformWrite;
    /// The run's last index as value + [lo, hi), and its last member.
    Value offsetBase;
    int64_t lo, hi;
    Operation *last;
  };
  std::vector<Candidate> candidates;
  for (auto [i, a] : llvm::enumerate(globalAccesses)) {
    const void *base = getBaseBuffer(a.memref, model.kernel);
    if (!base || protocol->isCounter(base))
      continue;
    bool isSwept = swept.contains(i), uniform = uniformWriteOps.contains(a.op);
    // Collective accesses (fragments, a warpgroup's accumulator store), as
    // they are: neither swept nor merged.
    if (getThreadsPerUnit(a) > 1 || a.wholeView || a.indices.empty()) {
      if (getThreadsPerUnit(a) > 1 || a.wholeView)
        candidates.push_back(
            Candidate{a, base, false, false, Value(), 0, 0, a.op});
      continue;
    }
    auto [offsetBase, c] = splitConstant(a.indices.back());
    int64_t end;
    if (llvm::AddOverflow(c, a.width, end))
      continue; // (the bounds check rejects such an index)
    if (!isSwept && !uniform && !candidates.empty()) {
      Candidate &g = candidates.back();
      if (!g.swept && !g.uniformWrite && !g.access.indices.empty() &&
          getThreadsPerUnit(g.access) == 1 && g.access.memref == a.memref &&
          g.access.write == a.write &&
          isAtomicAccess(g.access) == isAtomicAccess(a) &&
          g.access.rows == a.rows && g.access.condition == a.condition &&
          g.offsetBase == offsetBase &&
          ArrayRef(g.access.indices).drop_back() ==
              ArrayRef(a.indices).drop_back() &&
          c <= g.hi && end >= g.lo && noBarrierBetween(g.last, a.op)) {
        if (c < g.lo) {
          g.lo = c;
          g.access.indices.back() = a.indices.back();
        }
        g.hi = std::max(g.hi, end);
        g.access.width = g.hi - g.lo;
        g.last = a.op;
        continue;
      }
    }
    candidates.push_back(
        Candidate{a, base, isSwept, uniform, offsetBase, c, end, a.op});
  }
  for (size_t x = 0; x < candidates.size(); ++x)
    for (size_t y = x; y < candidates.size(); ++y) {
      const Candidate &cx = candidates[x], &cy = candidates[y];
      const MemoryAccess &ax = cx.access, &ay = cy.access;
      if (cx.base != cy.base || !(plainWrite(ax) || plainWrite(ay)))
        continue;
      // What checkThreadPairs, checkUniformWrite(Pairs) ask (not
      // collective accesses).
      bool collective = getThreadsPerUnit(ax) > 1 || ax.wholeView ||
                        getThreadsPerUnit(ay) > 1 || ay.wholeView;
      if (ax.memref == ay.memref && !collective &&
          ((cx.swept && cy.swept) || cx.uniformWrite || cy.uniformWrite))
        continue;
      if (inExclusiveBranches(ax.op, ay.op, model.uniformity,
                              ThreadScope::Block))
        continue;
      // The plain write, and the other access.
      bool xWrites = plainWrite(ax);
      const MemoryAccess &w = xWrites ? ax : ay, &o = xWrites ? ay : ax;
      if (reportedWithin.contains(o.op))
        continue;
      reportUnorderedPair(w, o, reportedWithin,
                          ", or give each thread its own elements",
                          /*needExact=*/true);
    }
}

void GlobalChecker::reportUnorderedPair(
    const MemoryAccess &w, const MemoryAccess &o,
    llvm::SmallPtrSetImpl<Operation *> &reported, StringRef advice,
    bool needExact) {
  if (separatedByBarriers(w.op, o.op, model.kernel, inBlock.named))
    return;
  std::optional<std::string> threadsWhy = unorderedPair(w, o, needExact);
  if (gaveUp) {
    gaveUp = false;
    reported.insert(o.op);
    report(check::kUnprovable, o.op,
           llvm::formatv("the race check within a block gave up on {0} "
                         "against {1}{2}",
                         describeOp(o.op), describeOp(w.op),
                         gaveUpWhy.empty() ? "" : ": " + gaveUpWhy)
               .str());
    gaveUpWhy.clear();
    return;
  }
  if (!threadsWhy)
    return;
  reported.insert(o.op);
  report(check::kGlobalRace, o.op,
         llvm::formatv("{0} touches the element that {1} writes in another "
                       "thread of its block, with no barrier between them "
                       "({2}): {3}; put a barrier between them{4}",
                       describeOp(o.op), describeOp(w.op), *threadsWhy,
                       raceOutcome(o.write), advice)
             .str());
}

std::optional<std::string> GlobalChecker::twoThreads(
    const MemoryAccess &a, const MemoryAccess &b, bool sameInstance,
    function_ref<bool(SystemBuilder &, const Instance &, const Instance &)>
        relate,
    int64_t unit) {
  SystemBuilder builder(inBlock);
  builder.distinct = SystemBuilder::Distinct::Threads;
  llvm::DenseMap<Operation *, Lin> none;
  Instance ia = builder.instance(a.op, 0, none);
  Instance ib = builder.instance(b.op, 1, sameInstance ? ia.iteration : none);
  for (auto [access, in] : {std::make_pair(&a, &ia), std::make_pair(&b, &ib)}) {
    builder.addGuards(*in);
    if (access->condition)
      builder.condition(access->condition, true, *in);
  }
  if (!relate(builder, ia, ib))
    return std::nullopt;
  // Two threads: one instance is the same either way round.
  Lin ta = builder.threadId(ia), tb = builder.threadId(ib);
  // (The warpgroup ops number warpgroups by thread id x alone.)
  Lin ua = unit == 1     ? ta
           : unit == 128 ? builder.divMod(builder.threadDim(ia, 0), 128, false)
                         : builder.divMod(ta, unit, false);
  Lin ub = unit == 1     ? tb
           : unit == 128 ? builder.divMod(builder.threadDim(ib, 0), 128, false)
                         : builder.divMod(tb, unit, false);
  SmallVector<SmallVector<Alternative, 2>, 4> splits = getCaseSplits(builder);
  if (sameInstance)
    builder.sys.ge0(ub - ua - 1);
  else
    splits.push_back({{{ua - ub - 1, false}}, {{ub - ua - 1, false}}});
  // A block of unknown size has no linear ids to name: its coordinates.
  Lin dims[2][3];
  if (!model.blockKnown)
    for (int d = 0; d < 3; ++d) {
      dims[0][d] = builder.threadDim(ia, d);
      dims[1][d] = builder.threadDim(ib, d);
    }
  systems = 0;
  SmallVector<int64_t> point;
  if (!search(builder.sys, splits, 0, point))
    return std::nullopt;
  if (!model.blockKnown) {
    auto name = [&](Lin(&thread)[3]) {
      return llvm::formatv("({0}, {1}, {2})", System::eval(thread[0], point),
                           System::eval(thread[1], point),
                           System::eval(thread[2], point))
          .str();
    };
    return "threads " + name(dims[0]) + " and " + name(dims[1]);
  }
  return llvm::formatv("threads {0} and {1}", System::eval(ta, point),
                       System::eval(tb, point))
      .str();
}

/// One dimension of the elements an access touches in the buffer its view
/// is cut from: start + [0, extent].
struct RunDim {
  Lin start;
  int64_t extent = 0;
};

/// The elements `access` touches in instance `in`, in the dimensions of the
/// buffer its view is cut from: through casts and subviews of static
/// strides, as the boxes between blocks (collect() reports the accesses
/// through other views). None where a view is not modelled.
static std::optional<SmallVector<RunDim>> bufferRun(SystemBuilder &builder,
                                                    const MemoryAccess &access,
                                                    const Instance &in,
                                                    Operation *kernel) {
  size_t rank = access.indices.size();
  SmallVector<RunDim> run;
  for (auto [d, index] : llvm::enumerate(access.indices))
    run.push_back({builder.expr(index, in), d + 1 == rank   ? access.width - 1
                                            : d + 2 == rank ? access.rows - 1
                                                            : 0});
  if (access.wholeView) {
    // The whole view; a warpgroup's accumulator store, its rows alone:
    // [64 g, 64 g + M) for warpgroup g (as the bounds check takes them).
    auto type = cast<MemRefType>(access.memref.getType());
    if (!type.hasStaticShape())
      return std::nullopt;
    for (int64_t size : type.getShape())
      run.push_back({Lin::of(0), size - 1});
    if (auto store = dyn_cast<nvgpu::WarpgroupMmaStoreOp>(access.op)) {
      int64_t rows = store.getMatrixD().getType().getFragmented().getDimSize(0);
      if (run.size() != 2)
        return std::nullopt;
      run[0] = {builder.divMod(builder.threadDim(in, 0), 128, false) * 64,
                rows - 1};
    }
  }
  std::string whyNot;
  FailureOr<ViewChain> chain = followViews(access.memref, kernel, whyNot);
  if (failed(chain))
    return std::nullopt;
  for (memref::SubViewOp sub : chain->subviews) {
    // Source element = offset + stride * view element.
    llvm::SmallBitVector dropped = sub.getDroppedDims();
    SmallVector<RunDim> source;
    unsigned next = 0;
    for (auto [d, offset] : llvm::enumerate(sub.getMixedOffsets())) {
      int64_t stride = sub.getStaticStrides()[d];
      RunDim s{isa<Value>(offset) ? builder.expr(cast<Value>(offset), in)
                                  : Lin::of(*getConstantIntValue(offset))};
      if (!dropped.test(d)) {
        // A negative stride runs the view backwards: its run starts at the
        // view run's last element.
        const RunDim &v = run[next++];
        if (llvm::MulOverflow(v.extent, stride < 0 ? -stride : stride,
                              s.extent))
          return std::nullopt;
        s.start = s.start + v.start * stride - (stride < 0 ? s.extent : 0);
      }
      source.push_back(std::move(s));
    }
    run = std::move(source);
  }
  return run;
}

std::optional<std::string>
GlobalChecker::unorderedPair(const MemoryAccess &write,
                             const MemoryAccess &other, bool needExact) {
  std::string uncounted, inexact;
  // First the geometry alone (a cheap screen: most pairs never meet), then
  // with the barriers counted.
  bool countBarriers = false;
  int64_t unit = std::max(getThreadsPerUnit(write), getThreadsPerUnit(other));
  auto ask = [&] {
    return twoThreads(
        write, other, /*sameInstance=*/false,
        [&](SystemBuilder &builder, const Instance &ia, const Instance &ib) {
          // One element of the buffer (the runs overlap in every dimension),
          // no barrier between.
          std::optional<SmallVector<RunDim>> ra = bufferRun(builder, write, ia,
                                                            model.kernel),
                                             rb = bufferRun(builder, other, ib,
                                                            model.kernel);
          if (!ra || !rb || ra->size() != rb->size())
            return false;
          for (auto [x, y] : llvm::zip(*ra, *rb)) {
            builder.sys.ge0(y.start + y.extent - x.start);
            builder.sys.ge0(x.start + x.extent - y.start);
          }
          if (!countBarriers)
            return true;
          std::optional<Lin> ca = builder.count(Event::Barrier, write.op, ia),
                             cb = builder.count(Event::Barrier, other.op, ib);
          if (ca && cb)
            builder.sys.eq0(*ca - *cb);
          else
            uncounted = builder.whyNot;
          builder.addNamedBarrierSplit(ia, ib);
          if (needExact && !builder.inexact.empty()) {
            Value v = builder.inexact.front();
            inexact = (v.getDefiningOp()
                           ? "the result of " + describeOp(v.getDefiningOp())
                           : std::string("a block argument")) +
                      " differs between threads in a way the check does not "
                      "model, so the two threads found may not exist";
          }
          return true;
        },
        unit);
  };
  if (!ask() && !gaveUp)
    return std::nullopt;
  gaveUp = false;
  inexact.clear();
  countBarriers = true;
  std::optional<std::string> witness = ask();
  // Two threads at one element, but whether a barrier lies between them
  // is not known, or the threads may not be real: neither a race nor its
  // absence is proved.
  if (witness && (!uncounted.empty() || !inexact.empty())) {
    gaveUp = true;
    gaveUpWhy = uncounted.empty() ? inexact : uncounted;
    return std::nullopt;
  }
  return witness;
}

std::optional<std::string>
GlobalChecker::twoRunners(const MemoryAccess &access) {
  // Two threads of one block, in the same iteration of every loop.
  return twoThreads(
      access, access, /*sameInstance=*/true,
      [](SystemBuilder &, const Instance &, const Instance &) { return true; });
}

/// "kernel argument #2" (or the buffer's name).
static std::string describeBuffer(Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root))
    return "kernel argument #" + std::to_string(arg.getArgNumber());
  if (auto global = root.getDefiningOp<memref::GetGlobalOp>())
    return "global '" + global.getName().str() + "'";
  return "a buffer from outside the kernel";
}

void GlobalChecker::run() {
  if (!collect())
    return;
  llvm::SmallPtrSet<Operation *, 8> reported;
  for (auto [i, a] : llvm::enumerate(boxes)) {
    for (const Box &b : llvm::drop_begin(boxes, i)) {
      if (a.root != b.root || (a.kind == Kind::Read && b.kind == Kind::Read) ||
          (a.kind == Kind::Atomic && b.kind == Kind::Atomic))
        continue;
      // The write is reported (a's when both write).
      const Box &writer = a.kind == Kind::Read ? b : a;
      const Box &other = &writer == &a ? b : a;
      if (reported.contains(writer.representative))
        continue;
      if (neverInTwoBlocks(a.members, b.members))
        continue;
      std::string why;
      systems = 0;
      bool met = meet(a, b, /*cover=*/true, why) && !gaveUp &&
                 meet(a, b, /*cover=*/false, why);
      const Box *racing = &writer;
      std::optional<Box> racingMember;
      if (met && (isScreen(a) || isScreen(b))) {
        // The union of a box that is not exact, or whose members sit under
        // different guards (the box keeps only the guards they share), is
        // a screen: ask its members.
        std::optional<std::pair<Box, Box>> pair = meetMembers(a, b, why);
        met = pair.has_value();
        if (pair) {
          racingMember = &writer == &a ? pair->first : pair->second;
          racing = &*racingMember;
        }
      }
      LLVM_DEBUG(llvm::dbgs()
                 << DEBUG_TYPE << ": " << describeOp(a.representative) << " ("
                 << a.members.size() << " accesses) against "
                 << describeOp(b.representative) << " (" << b.members.size()
                 << "): " << systems << " systems, "
                 << (met      ? "met"
                     : gaveUp ? "gave up"
                              : "disjoint")
                 << "\n");
      if (!met) {
        if (gaveUp) {
          report(check::kUnprovable, writer.representative,
                 llvm::formatv("the race check between blocks gave up on "
                               "{0} against {1} after {2} case systems",
                               describeOp(writer.representative),
                               describeOp(other.representative), kMaxSystems)
                     .str());
          return;
        }
        continue;
      }
      reported.insert(writer.representative);
      Operation *at = racing->representative;
      std::string against =
          &a == &b ? "itself in another block"
          : other.kind == Kind::Read
              ? "the " + describeOp(other.representative) + " of another block"
              : describeOp(other.representative) + " in another block";
      report(check::kGlobalRace, at,
             llvm::formatv("{0} races with {1} on {2}: blocks of a launch are "
                           "not ordered, so {3} ({4}); give each block its "
                           "own elements, or update them atomically",
                           describeOp(at), against, describeBuffer(a.rootValue),
                           raceOutcome(other.kind != Kind::Read), why)
                 .str());
    }
  }
}

/// A dependent launch (kDependentLaunchAttrName) may start while the kernel
/// before it still runs: its entry block must wait for that kernel
/// (griddepcontrol wait, which every thread runs there) before anything that
/// touches memory or holds ops that might.
static void checkDependentLaunch(
    Operation *kernel,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report) {
  auto func = dyn_cast<FunctionOpInterface>(kernel);
  if (!func || !kernel->hasAttr(kDependentLaunchAttrName) ||
      func.getFunctionBody().empty())
    return;
  for (Operation &op : func.getFunctionBody().front()) {
    auto control = dyn_cast<NVVM::GriddepcontrolOp>(op);
    if (control && control.getKind() == NVVM::GridDepActionKind::wait)
      return;
    if (control || (op.getNumRegions() == 0 && isMemoryEffectFree(&op)))
      continue;
    report(check::kGlobalRace, &op,
           describeOp(&op) +
               " runs before the kernel waits for the one before it "
               "(nvvm.griddepcontrol wait): a dependent launch "
               "(amk.dependent_launch) starts while that kernel still runs, "
               "so its writes may not be visible yet");
    return;
  }
  report(check::kGlobalRace, kernel,
         "the kernel is a dependent launch (amk.dependent_launch) but never "
         "waits for the kernel before it (nvvm.griddepcontrol wait at the "
         "top of its body)");
}

void mlir::amk::checkGlobalMemory(
    Operation *kernel, const UniformityInfo &uniformity,
    const DataFlowSolver &solver, const MBarrierPhases &phases,
    const NamedBarriers &named, ArrayRef<int64_t> grid,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report) {
  checkDependentLaunch(kernel, report);
  GlobalChecker(kernel, uniformity, solver, phases, named, grid, report).run();
}
