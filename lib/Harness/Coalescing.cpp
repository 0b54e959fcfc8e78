//===- Coalescing.cpp - Warps read and write global memory in few sectors -===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// AMK-UNCOALESCED (a warning). A warp's global access is served in 32-byte
// sectors; it is coalesced when the sectors it touches are about the bytes
// it needs. For every thread of the block the address of each global access
// is a linear form over "atoms", values every thread shares (block ids,
// loop induction variables, dynamic sizes and strides, other uniform
// values), plus a constant:
//
//  - atoms whose coefficient is the same for every lane of a warp shift the
//    warp as a whole and do not change how many sectors it touches;
//  - atoms whose coefficient varies (a thread id times a dynamic row stride)
//    stand for large values: such lanes land in different sectors;
//  - thread-dependent arithmetic is evaluated per thread; a select or min
//    mixing thread and shared values (the masks and clamps of edge tiles)
//    is taken on its main path (the selected value, the thread's index).
//
// Accesses of one loop iteration (or of the kernel outside loops) that
// differ only by a constant, thread for thread, form a group: the unrolled
// element stores of a row, or neighbouring fragments, fill each other's
// sectors. A group whose warp touches more than twice the sectors its bytes
// need is reported at its first access, with the byte stride between
// adjacent threads. Accesses the evaluation cannot follow are not reported:
// this is a heuristic about performance, not a proof.
//
//===----------------------------------------------------------------------===//

#include "Alignment.h"
#include "Bounds.h"
#include "ThreadForms.h"

#include "AMK/Analysis/Uniformity.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::coalescing;

namespace {

/// One global access and its address for every thread.
struct GlobalAccess {
  Operation *op;
  MemoryAccess access;
  const MemRefLayout *layout;
  AddressPoly bytes;
  int64_t width; // bytes
  Operation *scope;
  SmallVector<std::pair<Value, bool>> guards;
  std::vector<std::optional<Form>> forms;
  std::vector<bool> active;
};

/// The byte intervals one warp's lanes touch, per group member.
struct WarpFootprint {
  int64_t sectors = 0, bytes = 0;
};

static WarpFootprint footprint(ArrayRef<std::pair<int64_t, int64_t>> spans) {
  WarpFootprint fp;
  SmallVector<int64_t> sectors;
  for (auto [start, width] : spans)
    for (int64_t s = llvm::divideFloorSigned(start, 32),
                 e = llvm::divideFloorSigned(start + width - 1, 32);
         s <= e; ++s)
      sectors.push_back(s);
  llvm::sort(sectors);
  fp.sectors = std::unique(sectors.begin(), sectors.end()) - sectors.begin();
  SmallVector<std::pair<int64_t, int64_t>> sorted(spans.begin(), spans.end());
  llvm::sort(sorted);
  int64_t end = INT64_MIN;
  for (auto [start, width] : sorted) {
    int64_t stop = start + width;
    if (stop <= end)
      continue;
    fp.bytes += stop - std::max(start, end);
    end = stop;
  }
  return fp;
}

/// The coalescing check of one kernel of `block` threads.
class CoalescingChecker {
public:
  CoalescingChecker(Operation *kernel, const UniformityInfo &uniformity,
                    AddressModel &addresses, ArrayRef<int64_t> block,
                    llvm::function_ref<void(HarnessFinding)> report)
      : kernel(kernel), addresses(addresses), block(block.begin(), block.end()),
        threads(block[0] * block[1] * block[2]),
        forms(uniformity, addresses, block), report(report) {}

  void run();

private:
  /// The global accesses whose address the model traces.
  void collectAccesses();
  /// Every access's form for the threads of the checked warps; drops the
  /// accesses the evaluation cannot follow.
  void evaluateForms();
  /// Groups: same buffer, direction and loop iteration, the same forms up to
  /// one constant (warp 0 decides); in the order they first appear.
  std::vector<SmallVector<size_t>> groupAccesses();
  /// Reports a group at its first access if a checked warp touches more
  /// than twice the sectors its bytes need (one warp is enough).
  void checkGroup(ArrayRef<size_t> members);
  bool checkWarp(ArrayRef<size_t> members, int64_t w);
  /// The monomials whose coefficient varies over lanes [lo, hi): they stand
  /// for large values (each its own); the others shift the warp as a whole.
  llvm::DenseMap<unsigned, int64_t> getLargeMonomials(ArrayRef<size_t> members,
                                                      int64_t lo, int64_t hi);
  /// The stride between the first two adjacent active lanes of `first`, as
  /// text and JSON.
  void describeStride(const GlobalAccess &first, int64_t lo, int64_t hi,
                      std::string &strideText, llvm::json::Object &strideJson);

  Operation *kernel;
  AddressModel &addresses;
  SmallVector<int64_t, 3> block;
  int64_t threads;
  /// The first and the last warp.
  SmallVector<int64_t, 2> warpIds;
  ThreadForms forms;
  std::vector<GlobalAccess> accesses;
  llvm::function_ref<void(HarnessFinding)> report;
};

} // namespace

void CoalescingChecker::collectAccesses() {
  kernel->walk([&](Operation *op) {
    FailureOr<SmallVector<MemoryAccess>> list = getMemoryAccesses(op);
    if (failed(list))
      return;
    for (MemoryAccess &a : *list) {
      auto type = cast<MemRefType>(a.memref.getType());
      // A whole-view access or a warp's fragment has no per-thread
      // address to evaluate.
      if (!isGlobalMemRef(type) || a.wholeView || a.warpCollective)
        continue;
      std::string whyNot;
      FailureOr<AccessAddress> address =
          addresses.address(a.memref, a.indices, whyNot);
      if (failed(address))
        continue;
      GlobalAccess g{op,
                     a,
                     address->layout,
                     address->bytes,
                     a.width * address->layout->elemBytes,
                     kernel,
                     {},
                     {},
                     {}};
      for (Operation *child = op, *parent = op->getParentOp();
           parent && child != kernel;
           child = parent, parent = parent->getParentOp()) {
        if (g.scope == kernel && isa<scf::ForOp, scf::WhileOp>(parent))
          g.scope = parent;
        if (auto ifOp = dyn_cast<scf::IfOp>(parent))
          g.guards.push_back({ifOp.getCondition(), child->getParentRegion() ==
                                                       &ifOp.getThenRegion()});
      }
      if (a.condition)
        g.guards.push_back({a.condition, true});
      accesses.push_back(std::move(g));
    }
  });
}

void CoalescingChecker::evaluateForms() {
  for (GlobalAccess &g : accesses) {
    g.forms.resize(threads);
    g.active.resize(threads);
  }
  for (int64_t w : warpIds) {
    for (int64_t t = w * 32; t < std::min(threads, w * 32 + 32); ++t) {
      forms.setThread(t);
      for (GlobalAccess &g : accesses) {
        bool active = true;
        for (auto [cond, truth] : g.guards) {
          std::optional<Form> c = forms.value(cond);
          if (c && c->pure())
            active = active && ((c->constant != 0) == truth);
        }
        g.active[t] = active;
        if (active)
          g.forms[t] = forms.poly(g.bytes);
      }
    }
  }
  llvm::erase_if(accesses, [&](const GlobalAccess &g) {
    bool any = false;
    for (int64_t t = 0; t < threads; ++t) {
      if (g.active[t] && !g.forms[t])
        return true;
      any |= g.active[t] && g.forms[t];
    }
    return !any;
  });
}

std::vector<SmallVector<size_t>> CoalescingChecker::groupAccesses() {
  std::map<std::vector<int64_t>, SmallVector<size_t>> groups;
  std::vector<const std::vector<int64_t> *> order;
  for (auto [i, g] : llvm::enumerate(accesses)) {
    std::vector<int64_t> key = {
        int64_t(
            reinterpret_cast<uintptr_t>(g.layout->root.getAsOpaquePointer())),
        g.access.write, int64_t(reinterpret_cast<uintptr_t>(g.scope)), g.width};
    std::optional<int64_t> base;
    for (int64_t t = 0; t < std::min<int64_t>(threads, 32); ++t) {
      key.push_back(-1); // lane separator
      if (!g.active[t])
        continue;
      const Form &f = *g.forms[t];
      if (!base)
        base = f.constant;
      key.push_back(f.constant - *base);
      for (auto [m, c] : f.terms)
        key.insert(key.end(), {int64_t(m), c});
    }
    auto [it, inserted] = groups.try_emplace(std::move(key));
    if (inserted)
      order.push_back(&it->first);
    it->second.push_back(i);
  }
  std::vector<SmallVector<size_t>> ordered;
  for (const std::vector<int64_t> *key : order)
    ordered.push_back(groups[*key]);
  return ordered;
}

llvm::DenseMap<unsigned, int64_t>
CoalescingChecker::getLargeMonomials(ArrayRef<size_t> members, int64_t lo,
                                     int64_t hi) {
  std::set<unsigned> monomials;
  for (size_t m : members)
    for (int64_t t = lo; t < hi; ++t)
      if (accesses[m].active[t])
        for (const auto &term : accesses[m].forms[t]->terms)
          monomials.insert(term.first);
  llvm::DenseMap<unsigned, int64_t> large;
  for (unsigned mono : monomials) {
    std::optional<int64_t> seen;
    bool varies = false;
    for (size_t m : members)
      for (int64_t t = lo; t < hi && !varies; ++t) {
        if (!accesses[m].active[t])
          continue;
        int64_t c = 0;
        for (const auto &term : accesses[m].forms[t]->terms)
          if (term.first == mono)
            c = term.second;
        varies = seen && *seen != c;
        seen = c;
      }
    if (varies)
      large[mono] = int64_t(large.size() + 1) << 24;
  }
  return large;
}

void CoalescingChecker::describeStride(const GlobalAccess &first, int64_t lo,
                                       int64_t hi, std::string &strideText,
                                       llvm::json::Object &strideJson) {
  std::optional<Form> stride;
  for (int64_t t = lo; t + 1 < hi && !stride; ++t)
    if (first.active[t] && first.active[t + 1] &&
        (block[0] == 1 || (t % block[0]) + 1 < block[0]))
      stride = add(*first.forms[t + 1], *first.forms[t], -1);
  int64_t elemBytes = first.layout->elemBytes;
  if (stride && stride->pure()) {
    strideText = llvm::formatv("{0} B", stride->constant).str();
    strideJson["bytes"] = stride->constant;
    if (stride->constant % elemBytes == 0) {
      strideText +=
          llvm::formatv(" ({0} elements)", stride->constant / elemBytes).str();
      strideJson["elements"] = stride->constant / elemBytes;
    } else {
      strideJson["elements"] = nullptr;
    }
  } else if (stride) {
    strideText = describe(*stride, forms.monomials) + " B";
    strideJson["bytes"] = nullptr;
    strideJson["elements"] = nullptr;
    strideJson["expr"] = describe(*stride, forms.monomials);
  } else {
    strideText = "an unknown number of bytes";
    strideJson["bytes"] = nullptr;
    strideJson["elements"] = nullptr;
  }
}

bool CoalescingChecker::checkWarp(ArrayRef<size_t> members, int64_t w) {
  const GlobalAccess &first = accesses[members.front()];
  int64_t lo = w * 32, hi = std::min(threads, lo + 32);
  llvm::DenseMap<unsigned, int64_t> large = getLargeMonomials(members, lo, hi);
  SmallVector<std::pair<int64_t, int64_t>> spans;
  bool overflow = false;
  auto concrete = [&](const Form &f) {
    int64_t a = f.constant;
    for (auto [mono, c] : f.terms)
      if (auto it = large.find(mono); it != large.end()) {
        int64_t p;
        overflow |=
            llvm::MulOverflow(c, it->second, p) || llvm::AddOverflow(a, p, a);
      }
    return a;
  };
  for (size_t m : members)
    for (int64_t t = lo; t < hi; ++t)
      if (accesses[m].active[t])
        spans.push_back({concrete(*accesses[m].forms[t]), accesses[m].width});
  if (overflow || spans.empty())
    return false;
  WarpFootprint fp = footprint(spans);
  int64_t ideal = llvm::divideCeil(fp.bytes, 32);
  if (fp.sectors <= 2 * ideal)
    return false;

  llvm::json::Object strideJson;
  std::string strideText;
  describeStride(first, lo, hi, strideText, strideJson);
  auto type = cast<MemRefType>(first.access.memref.getType());
  std::string message =
      llvm::formatv("global {0} of {1} is uncoalesced: adjacent threads "
                    "access addresses {2} apart, so warp {3} touches {4} "
                    "sectors of 32 B for the {5} B it {6} ({7} would do)",
                    first.access.what, type, strideText, w, fp.sectors,
                    fp.bytes, first.access.write ? "writes" : "reads", ideal)
          .str();
  if (members.size() > 1)
    message += llvm::formatv(", counting {0} accesses that fill each "
                             "other's sectors",
                             members.size())
                   .str();
  HarnessFinding f{check::kUncoalesced.str(),
                   first.op->getLoc(),
                   "",
                   message,
                   fp.sectors,
                   ideal};
  f.severity = HarnessFinding::Severity::Warning;
  f.details["stride"] = std::move(strideJson);
  f.details["sectors"] = fp.sectors;
  f.details["idealSectors"] = ideal;
  f.details["warp"] = w;
  f.details["accesses"] = int64_t(members.size());
  report(std::move(f));
  return true;
}

void CoalescingChecker::checkGroup(ArrayRef<size_t> members) {
  for (int64_t w : warpIds)
    if (checkWarp(members, w))
      break; // one warp is enough
}

void CoalescingChecker::run() {
  collectAccesses();
  if (accesses.empty())
    return;
  // The threads of the first and the last warp: GEMM-like kernels give
  // every warp the same pattern shifted, and a kernel that specializes
  // warps usually gives the odd role to the first or the last one.
  int64_t warps = llvm::divideCeil(threads, 32);
  warpIds = {0};
  if (warps > 1)
    warpIds.push_back(warps - 1);
  evaluateForms();
  for (const SmallVector<size_t> &members : groupAccesses())
    checkGroup(members);
}

void mlir::amk::checkKernelCoalescing(
    Operation *kernel, const UniformityInfo &uniformity,
    AddressModel &addresses, llvm::function_ref<void(HarnessFinding)> report) {
  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  DenseI32ArrayAttr blockAttr = func ? func.getKnownBlockSizeAttr() : nullptr;
  if (!blockAttr)
    return;
  SmallVector<int64_t, 3> block(blockAttr.asArrayRef().begin(),
                                blockAttr.asArrayRef().end());
  int64_t threads = block[0] * block[1] * block[2];
  if (threads <= 0 || threads > 1024)
    return;
  CoalescingChecker(kernel, uniformity, addresses, block, report).run();
}
