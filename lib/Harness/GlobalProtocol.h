//===- GlobalProtocol.h - Counters that order blocks ------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// A counter protocol between the blocks of one launch (AMK-GLOBAL-SYNC):
// blocks signal a counter in global memory once their writes are done and
// other blocks poll it until every signal it awaits has landed. The check
// proves the counts, the fences and the absence of deadlock, and gives the
// global race check the orderings the protocol makes (GlobalMemory.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_HARNESS_GLOBALPROTOCOL_H
#define AMK_LIB_HARNESS_GLOBALPROTOCOL_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::amk {

namespace smem {
class Model;
class ThreadEvaluator;
} // namespace smem

/// The atomic read of a poll: `scf.while` whose before region reads a
/// counter atomically (`memref.atomic_rmw addi 0` or `ori 0`), compares it
/// with a threshold defined outside the loop and continues while it is
/// below (`ult`, `slt`, `ne`), and whose after region only yields. Null
/// when `loop` is not a poll.
memref::AtomicRMWOp getPollRead(scf::WhileOp loop, Value *threshold = nullptr);

/// The kernel's counters, signals and polls, checked when built.
class GlobalProtocol {
public:
  /// Checks the protocol of `model.kernel` and reports what fails (check id,
  /// op, message). A kernel without polls has no protocol.
  GlobalProtocol(
      const smem::Model &model, smem::ThreadEvaluator &threads,
      llvm::ArrayRef<int64_t> grid,
      llvm::function_ref<void(StringRef, Operation *, const Twine &)> report);
  ~GlobalProtocol();

  /// Whether `root` (a kernel argument, as an opaque pointer) is a counter:
  /// the protocol check alone decides its accesses.
  bool isCounter(const void *root) const { return counters.contains(root); }

  /// A signal instance in one block and a poll instance in another, on one
  /// counter: when their indices are equal, every access the signal
  /// releases happens before every access the poll acquires. A chain
  /// through other blocks (a hb b hb c) gives the constant elements the
  /// two must be at instead (`signalAt`, `pollAt`; empty for a direct edge).
  /// A relay (`relayStep` d > 0) along `relayCoordinate` (b below: a block
  /// id, or a tile loop's induction variable, `for t = block id to n step
  /// blocks`, whose iterations over the grid take every tile): a block (at
  /// its tile) polls element b + beta and then signals b + beta + d
  /// (indices the coordinate plus constants), so a signal at a happens
  /// before the poll at c whenever c - a is a positive multiple of d, a
  /// runs the signal (a >= `signalFrom`), c the poll (c >= `pollFrom`),
  /// and every coordinate between both: those from `relayFrom` on (their
  /// guards of the coordinate) do. (Blocks that differ only in the other
  /// ids share the elements: a poll's threshold, the sum of every signal to
  /// its element, waits for all of them.)
  /// A ticket edge (`ticketed`): the counter's signals take turns
  /// (GlobalProtocol::ticketPoll), so the signal orders the poll only where
  /// also its ticket (`signalTicket`, 0 when null) is below the poll's
  /// threshold.
  struct Edge {
    ValueRange signalIndex, pollIndex;
    llvm::SmallVector<int64_t, 2> signalAt = {}, pollAt = {};
    Value relayCoordinate = {};
    int64_t relayStep = 0, relayFrom = 0, signalFrom = 0, pollFrom = 0;
    bool ticketed = false;
    Value signalTicket = {}, pollThreshold = {};
    /// The poll acquires only in blocks whose ids are at least these
    /// (dimension, first id): its branches bound them (`if (z > 0)`).
    llvm::SmallVector<std::pair<int, int64_t>, 2> pollGuards = {};
    /// A gather edge: ordered only where the signal's element is in
    /// [first, second) (the poll's is the gather's constant).
    std::optional<std::pair<int64_t, int64_t>> signalRange = {};
  };
  /// The edges that order each of `before` (ops of one block) before each
  /// of `after` (ops of another block).
  llvm::SmallVector<Edge> getEdges(llvm::ArrayRef<Operation *> before,
                                   llvm::ArrayRef<Operation *> after) const;

  /// Whether no two blocks of the launch run `a` and `b`: every op of both
  /// lies in the branch of one gate (see Gate), which one block at most
  /// enters.
  bool inOneBlock(llvm::ArrayRef<Operation *> a,
                  llvm::ArrayRef<Operation *> b) const;

  /// The counter indices of the gates whose element varies per block (a
  /// tile's counter) and whose branch holds every op of `a` and `b`: one
  /// block at most enters it per element, so two blocks that run `a` and
  /// `b` signalled different elements.
  llvm::SmallVector<ValueRange>
  getGateElements(llvm::ArrayRef<Operation *> a,
                  llvm::ArrayRef<Operation *> b) const;

  struct Point;

private:
  /// Whether `op` orders every thread that runs its block: a block
  /// barrier, or a named barrier of every thread that reaches it.
  bool isBarrier(Operation *op) const;
  void collect();
  /// The chains through constant elements (getEdges), once proved.
  void collectChains();
  /// Each check reports what fails and returns whether it held.
  bool checkAccesses();
  bool locateRelease(Point &signal);
  bool locateAcquire(Point &poll);
  bool enumerate(llvm::ArrayRef<int64_t> grid);
  /// The counts of a protocol of gates alone over a grid one of whose
  /// dimensions is not known (GlobalGates.cpp); nullopt where it is not
  /// such a protocol.
  std::optional<bool> countGatesOverGrid(llvm::ArrayRef<int64_t> grid);

  const smem::Model &model;
  smem::ThreadEvaluator &threads;
  llvm::function_ref<void(StringRef, Operation *, const Twine &)> report;
  llvm::SmallVector<int64_t, 3> grid;
  llvm::DenseSet<const void *> counters;
  std::vector<Point> points;
  /// Every check held: only then does the protocol order accesses.
  bool proved = false;
  /// A poll of a constant element (`start`) and the constant elements
  /// (counter, index) whose polls its acquire orders after every signal to
  /// `start`, through the signals of the blocks between.
  struct Chain {
    const Point *first;
    llvm::SmallVector<int64_t, 2> start;
    llvm::SmallVector<std::pair<BlockArgument, llvm::SmallVector<int64_t, 2>>>
        reached;
  };
  std::vector<Chain> chains;
  /// Relays (see Edge): a poll, the signal its acquire reaches, where the
  /// poll's acquire holds (the ops of `anchor`'s block after `limit`), the
  /// step, and the first blocks that run both, the poll and the signal.
  struct Relay {
    const Point *poll, *signal;
    Operation *anchor, *limit;
    Value coordinate;
    int64_t step, from, pollFrom, signalFrom;
  };
  std::vector<Relay> relays;
  void collectRelays();
  /// Tickets: a signal whose thread first polled the same counter element
  /// (the one poll whose acquire reaches it) has that poll's threshold as
  /// its ticket. When the signals to an element add 1 each and their
  /// tickets are 0, 1, ..., N - 1, they land in ticket order, so a poll
  /// that sees T has seen exactly the signals of tickets below T, whatever
  /// N is (a serial split-K's turns). The counters whose waits hold only
  /// so order by tickets (getEdges) and take no chains or relays.
  llvm::DenseMap<const Point *, const Point *> ticketPoll;
  llvm::DenseSet<const void *> ticketCounters;
  void collectTicketPolls();
  /// Whether `signal` runs after `poll`'s fence in the thread that polled.
  bool reaches(const Point &poll, const Point &signal) const;
  /// The same after `start`, in the thread that passed the tests of the
  /// thread `tested` (condition, branch) inside it.
  using Branch = std::pair<Value, bool>;
  bool reachesFrom(Operation *start, llvm::ArrayRef<Branch> tested,
                   const Point &signal) const;
  /// Gathers: a poll of element iv + c in every iteration of a loop of
  /// constant bounds (`for iv = lo to hi step 1`, through tests of the
  /// thread alone), then, after the loop in the thread that polled, the one
  /// signal to a constant counter element (`signal`; nothing else signals
  /// it, and some block runs it). A signal to an element in [lo + c, hi + c)
  /// happens before every poll of that constant element (getEdges): the
  /// gathering thread saw it before signalling.
  struct Gather {
    const Point *poll, *signal;
    int64_t from, to;
  };
  std::vector<Gather> gathers;
  void collectGathers();
  llvm::DenseMap<const Point *, int64_t> instances;

  /// Gates (the last block to arrive): a signal run once per block, by
  /// one thread, whose returned count (the count before its add: its
  /// arrival) is tested for equality, `arrival + offset == T`, with T the
  /// same in every block. The adds of an element are all positive, so no
  /// two signals see one count: one block at most passes the test. When T -
  /// offset + the signal's amount is the sum of the element's signals, the
  /// block that passes is the last to arrive: every signal of the launch
  /// landed before its own, so, after a fence in the signalling thread, it
  /// has acquired all of them (getEdges). The test holds where `conditions`
  /// hold: the comparison in the signalling thread, or a flag in shared
  /// memory that thread alone stores from it and the block reads after a
  /// barrier (the last-block reduction of CUDA's threadFenceReduction).
  struct Gate {
    const Point *signal;
    Value threshold;
    int64_t offset = 0;
    llvm::SmallVector<Value, 2> conditions;
    /// The signalling thread (linear id).
    int64_t thread = 0;
    /// Gpu fences after the signal that the signalling thread runs in the
    /// gated block.
    llvm::SmallVector<Operation *, 2> fences;
    /// Whether the counts proved one block at most passes (a threshold the
    /// same in every block), and whether that block is the last.
    bool exclusive = false, last = false;
  };
  std::vector<Gate> gates;
  /// Counters that only gates read, and the stores of 0 that reset them
  /// for the next launch.
  llvm::DenseSet<const void *> gatedCounters;
  llvm::SmallVector<memref::StoreOp, 1> resets;
  /// The counters gates test (before the other points are collected).
  void collectGatedCounters();
  void collectGates();
  /// After the counts: the resets lie past the last arrival, and a counter
  /// starts at zero (the launch zeroes it, or its last block resets it).
  bool checkCounterStarts();
  /// Whether `op` runs only where the gate's test held.
  bool isGated(const Gate &gate, Operation *op) const;
  /// Whether `op` follows one of the gate's fences (its signal) in the
  /// signalling thread, or a block barrier after it.
  bool isAcquired(const Gate &gate, Operation *op) const;
  bool followsArrival(const Gate &gate, Operation *op) const;
  bool runsAfterAny(const Gate &gate, llvm::ArrayRef<Operation *> from,
                    Operation *op) const;
};

} // namespace mlir::amk

#endif // AMK_LIB_HARNESS_GLOBALPROTOCOL_H
