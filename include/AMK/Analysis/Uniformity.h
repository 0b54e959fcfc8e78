//===- Uniformity.h - Thread-uniform and divergent values -------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Which values of a GPU kernel may differ between the threads of one block.
// Thread ids are divergent; block ids, block and grid sizes, kernel arguments
// and constants are uniform; an op's results are divergent if an operand is,
// and a structured op's results are divergent if its control (an scf.if
// condition, scf.for bounds, an scf.while condition) is. Loads of a uniform
// address are uniform (the race check, not this analysis, guards against a
// concurrent write). The analysis is a monotone fixpoint over structured
// control flow; kernels with unstructured control flow are not analysed
// (the harness reports them as unprovable).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_ANALYSIS_UNIFORMITY_H
#define AMK_ANALYSIS_UNIFORMITY_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::amk {

class UniformityInfo {
public:
  /// Analyses the regions of `kernel` (a gpu.func or any op with structured
  /// regions).
  explicit UniformityInfo(Operation *kernel);

  /// Whether `value` may differ between the threads of a block.
  bool isDivergent(Value value) const { return divergent.contains(value); }

  /// Whether the op that owns `region`-nested code decides by a divergent
  /// value which threads run it (or how often).
  bool hasDivergentControl(Operation *regionOp) const;

  /// The innermost op enclosing `op` (up to the kernel) whose control is
  /// divergent, or nullptr when every thread of the block reaches `op` the
  /// same number of times.
  Operation *getDivergentAncestor(Operation *op) const;

private:
  bool update(Operation *op);
  bool mark(Value value);

  Operation *kernel;
  llvm::DenseSet<Value> divergent;
};

} // namespace mlir::amk

#endif // AMK_ANALYSIS_UNIFORMITY_H
