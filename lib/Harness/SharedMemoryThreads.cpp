//===- SharedMemoryThreads.cpp - Race-check addresses split by thread -----===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Most shared-memory addresses are a uniform part (the same for every thread
// of the block) plus a part that depends on the thread id alone. The race
// check (SharedMemory.cpp) evaluates the thread part for every thread once
// per value and solves only the uniform part symbolically.
//
//===----------------------------------------------------------------------===//

#include "SharedMemoryModel.h"

#include "BoundsProver.h"

#include "AMK/Analysis/Address.h"
#include "AMK/Analysis/Uniformity.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::smem;

//===----------------------------------------------------------------------===//
// ThreadEvaluator
//===----------------------------------------------------------------------===//

bool ThreadEvaluator::isThreadOnly(Value v, int depth) {
  if (auto it = threadOnly.find(v); it != threadOnly.end())
    return it->second;
  bool result = false;
  if (Operation *op = v.getDefiningOp(); op && depth < 64) {
    if (isa<gpu::ThreadIdOp, NVVM::ThreadIdXOp, NVVM::ThreadIdYOp,
            NVVM::ThreadIdZOp, gpu::LaneIdOp, NVVM::LaneIdOp, gpu::BlockDimOp,
            arith::ConstantOp>(op))
      result = true;
    else if (isa<arith::ArithDialect>(op->getDialect()) &&
             op->getNumResults() == 1 &&
             op->getResult(0).getType().isIntOrIndex())
      result = llvm::all_of(op->getOperands(), [&](Value operand) {
        return isThreadOnly(operand, depth + 1);
      });
  }
  return threadOnly[v] = result;
}

const std::vector<int64_t> *ThreadEvaluator::values(Value v) {
  if (auto it = all.find(v); it != all.end())
    return it->second.get();
  std::unique_ptr<std::vector<int64_t>> r = compute(v);
  const std::vector<int64_t> *result = r.get();
  all[v] = std::move(r);
  return result;
}

std::unique_ptr<std::vector<int64_t>> ThreadEvaluator::compute(Value v) {
  int64_t count = block[0] * block[1] * block[2];
  auto out = std::make_unique<std::vector<int64_t>>(count);
  std::vector<int64_t> &x = *out;
  auto perThread = [&](auto f) {
    for (int64_t t = 0; t < count; ++t)
      x[t] = f(t);
    return std::move(out);
  };
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return perThread([&](int64_t) { return *c; });
  Operation *op = v.getDefiningOp();
  int64_t bx = block[0], by = block[1];
  auto dim = [&](int d) {
    return perThread([&](int64_t t) {
      return d == 0 ? t % bx : d == 1 ? t / bx % by : t / (bx * by);
    });
  };
  if (auto t = dyn_cast<gpu::ThreadIdOp>(op))
    return dim(int(t.getDimension()));
  if (isa<NVVM::ThreadIdXOp>(op))
    return dim(0);
  if (isa<NVVM::ThreadIdYOp>(op))
    return dim(1);
  if (isa<NVVM::ThreadIdZOp>(op))
    return dim(2);
  if (isa<gpu::LaneIdOp, NVVM::LaneIdOp>(op))
    return perThread([](int64_t t) { return t % 32; });
  if (auto d = dyn_cast<gpu::BlockDimOp>(op))
    return perThread([&](int64_t) { return block[int(d.getDimension())]; });
  SmallVector<const std::vector<int64_t> *, 3> operands;
  for (Value operand : op->getOperands()) {
    const std::vector<int64_t> *e = values(operand);
    if (!e)
      return nullptr;
    operands.push_back(e);
  }
  SmallVector<int64_t, 3> args(operands.size());
  for (int64_t t = 0; t < count; ++t) {
    for (auto [i, e] : llvm::enumerate(operands))
      args[i] = (*e)[t];
    std::optional<int64_t> r = evaluateIntegerOp(op, args);
    if (!r)
      return nullptr;
    x[t] = *r;
  }
  return out;
}

std::optional<std::vector<bool>>
ThreadEvaluator::passing(ArrayRef<std::pair<Value, bool>> guards) {
  int64_t count = block[0] * block[1] * block[2];
  std::vector<bool> active(count, true);
  for (auto [cond, truth] : guards) {
    const std::vector<int64_t> *x = values(cond);
    if (!x)
      return std::nullopt;
    for (int64_t t = 0; t < count; ++t)
      active[t] = active[t] && (bool((*x)[t] & 1) == truth);
  }
  return active;
}

//===----------------------------------------------------------------------===//
// Separation
//===----------------------------------------------------------------------===//

namespace {
/// Splits one access's address and guards.
class Separator {
public:
  /// `expandUniform`: uniform sums and multiples by constants are split
  /// into their terms too (else a uniform value is one term).
  Separator(const Model &model, ThreadEvaluator &threads,
            bool expandUniform = false)
      : model(model), threads(threads), expandUniform(expandUniform) {}

  std::optional<Separated> separate(const SharedAccess &a);
  bool separateIndex(Value v, int64_t coefficient, Separated &out) {
    SmallVector<std::pair<Value, int64_t>> threadTerms;
    return splitTerm(v, coefficient, out, threadTerms, 0) &&
           addThreadTerms(threadTerms, out);
  }

private:
  bool splitTerm(Value v, int64_t coefficient, Separated &out,
                 SmallVectorImpl<std::pair<Value, int64_t>> &threadTerms,
                 int depth);
  /// Adds each thread term's value in every thread to out.perThread.
  bool addThreadTerms(ArrayRef<std::pair<Value, int64_t>> threadTerms,
                      Separated &out);

  const Model &model;
  ThreadEvaluator &threads;
  bool expandUniform;
};
} // namespace

bool Separator::splitTerm(
    Value v, int64_t coefficient, Separated &out,
    SmallVectorImpl<std::pair<Value, int64_t>> &threadTerms, int depth) {
  if (std::optional<int64_t> c = getConstantIntValue(v)) {
    int64_t term;
    return !llvm::MulOverflow(coefficient, *c, term) &&
           !llvm::AddOverflow(out.constant, term, out.constant);
  }
  Operation *op = v.getDefiningOp();
  bool linear = isa_and_nonnull<arith::AddIOp, arith::SubIOp,
                                arith::IndexCastOp, arith::IndexCastUIOp>(op) ||
                (isa_and_nonnull<arith::MulIOp>(op) &&
                 (getConstantIntValue(op->getOperand(0)) ||
                  getConstantIntValue(op->getOperand(1))));
  if (!model.uniformity.isDivergent(v) &&
      (!expandUniform || !linear || depth > 32)) {
    auto *it =
        llvm::find_if(out.uniform, [&](auto &t) { return t.first == v; });
    if (it == out.uniform.end())
      out.uniform.push_back({v, coefficient});
    else if (llvm::AddOverflow(it->second, coefficient, it->second))
      return false;
    return true;
  }
  if (threads.isThreadOnly(v)) {
    threadTerms.push_back({v, coefficient});
    return true;
  }
  if (depth > 32)
    return false;
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op)) {
    int64_t second = coefficient;
    if (isa<arith::SubIOp>(op) &&
        llvm::SubOverflow(int64_t(0), coefficient, second))
      return false;
    return splitTerm(op->getOperand(0), coefficient, out, threadTerms,
                     depth + 1) &&
           splitTerm(op->getOperand(1), second, out, threadTerms, depth + 1);
  }
  if (isa_and_nonnull<arith::MulIOp>(op))
    for (unsigned i = 0; i < 2; ++i)
      if (std::optional<int64_t> c = getConstantIntValue(op->getOperand(i))) {
        int64_t scaled;
        return !llvm::MulOverflow(coefficient, *c, scaled) &&
               splitTerm(op->getOperand(1 - i), scaled, out, threadTerms,
                         depth + 1);
      }
  if (isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp>(op))
    return splitTerm(op->getOperand(0), coefficient, out, threadTerms,
                     depth + 1);
  return false;
}

bool Separator::addThreadTerms(ArrayRef<std::pair<Value, int64_t>> threadTerms,
                               Separated &out) {
  int64_t count = model.block[0] * model.block[1] * model.block[2];
  out.perThread.resize(count, 0);
  for (auto [v, c] : threadTerms) {
    const std::vector<int64_t> *x = threads.values(v);
    if (!x)
      return false;
    for (int64_t t = 0; t < count; ++t) {
      int64_t term;
      if (llvm::MulOverflow(c, (*x)[t], term) ||
          llvm::AddOverflow(out.perThread[t], term, out.perThread[t]))
        return false;
    }
  }
  return true;
}

std::optional<Separated> Separator::separate(const SharedAccess &a) {
  int64_t count = model.block[0] * model.block[1] * model.block[2];
  if (count > 1024)
    return std::nullopt;
  const Model::Layout *layout =
      model.layout(cast<MemRefType>(a.access.memref.getType()));
  if (!layout || ShapedType::isDynamic(layout->offset) ||
      llvm::any_of(layout->strides, ShapedType::isDynamic))
    return std::nullopt;
  Separated out;
  SmallVector<std::pair<Value, int64_t>> threadTerms;
  if (llvm::MulOverflow(layout->offset, a.elementBytes, out.constant))
    return std::nullopt;
  for (auto [index, stride] : llvm::zip(a.access.indices, layout->strides)) {
    int64_t bytes;
    if (llvm::MulOverflow(stride, a.elementBytes, bytes) ||
        !splitTerm(index, bytes, out, threadTerms, 0))
      return std::nullopt;
  }
  for (Value m = a.access.memref; Operation *def = m.getDefiningOp();) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      if (!splitTerm(view.getByteShift(), 1, out, threadTerms, 0))
        return std::nullopt;
      m = view.getSource();
    } else if (isa<memref::SubViewOp, memref::ReinterpretCastOp, memref::CastOp,
                   memref::AssumeAlignmentOp>(def)) {
      m = def->getOperand(0);
    } else {
      break;
    }
  }
  // Guards: thread-only ones mask threads, uniform ones go to the system;
  // a guard that mixes both needs the full system.
  SmallVector<std::pair<Value, bool>> threadGuards;
  for (Operation *child = a.access.op, *parent = child->getParentOp();
       parent && child != model.kernel;
       child = parent, parent = parent->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(parent);
    if (!ifOp)
      continue;
    bool truth = child->getParentRegion() == &ifOp.getThenRegion();
    SmallVector<Value> parts;
    if (truth)
      bounds::conjuncts(ifOp.getCondition(), parts);
    else
      parts.push_back(ifOp.getCondition());
    for (Value part : parts) {
      if (!model.uniformity.isDivergent(part))
        out.guards.push_back({part, truth});
      else if (threads.isThreadOnly(part))
        threadGuards.push_back({part, truth});
      else
        return std::nullopt;
    }
  }
  if (!addThreadTerms(threadTerms, out))
    return std::nullopt;
  std::optional<std::vector<bool>> active = threads.passing(threadGuards);
  if (!active)
    return std::nullopt;
  out.active = std::move(*active);
  return out;
}

std::optional<Separated> smem::separate(const SharedAccess &a,
                                        const Model &model,
                                        ThreadEvaluator &threads) {
  return Separator(model, threads).separate(a);
}

bool smem::separateIndex(Value v, int64_t coefficient, Separated &out,
                         const Model &model, ThreadEvaluator &threads) {
  return Separator(model, threads, /*expandUniform=*/true)
      .separateIndex(v, coefficient, out);
}
