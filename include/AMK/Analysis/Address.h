//===- Address.h - Where a memory access's bytes lie ------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The byte address of an access as the chain of views that made its memref
// says it:
//
//   address = base(root) + shift + elemBytes * (offset + sum index_i *
//   stride_i)
//
// where the root is the allocation (a kernel argument, a workgroup or private
// attribution, dynamic shared memory, memref.alloc/alloca/get_global),
// `shift` the bytes `memref.view`s add to the root's pointer, and offset and
// strides those of the accessed memref's layout, traced through subview,
// reinterpret_cast, cast and extract_strided_metadata. Each part is an
// `AddressPoly`: a polynomial whose factors are SSA index values or the parts
// of a kernel argument's layout that no SSA value names (its dynamic sizes,
// strides and offset). The alignment and coalescing checks evaluate it in
// their own domains (known low bits; per-thread linear forms).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_ANALYSIS_ADDRESS_H
#define AMK_ANALYSIS_ADDRESS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::amk {

/// One factor of an address term: an index value, or a dynamic part of the
/// layout of a root memref (`memref` a kernel argument or allocation).
struct AddressFactor {
  enum class Kind { Value, Size, Stride, Offset };
  Kind kind = Kind::Value;
  /// Kind::Value: the index value; otherwise the root memref.
  Value value;
  unsigned dim = 0;

  static AddressFactor of(Value v) { return {Kind::Value, v, 0}; }
  static AddressFactor layout(Kind kind, Value memref, unsigned dim) {
    return {kind, memref, dim};
  }
  bool operator==(const AddressFactor &o) const {
    return kind == o.kind && value == o.value && dim == o.dim;
  }
  bool operator<(const AddressFactor &o) const;
  /// "index value 'arith.addi' at line 12", "the dynamic size of dimension
  /// 1 of argument 0", ...
  std::string str() const;
};

/// coefficient * product of factors.
struct AddressTerm {
  int64_t coefficient = 0;
  llvm::SmallVector<AddressFactor, 2> factors;
};

/// A sum of terms; `valid` is false after a coefficient overflowed (the
/// polynomial then means nothing and its users must give up).
struct AddressPoly {
  llvm::SmallVector<AddressTerm, 4> terms;
  bool valid = true;

  static AddressPoly constant(int64_t c);
  static AddressPoly of(AddressFactor f);
  /// A constant or an index value.
  static AddressPoly of(OpFoldResult r);
  AddressPoly operator+(const AddressPoly &o) const;
  AddressPoly operator*(const AddressPoly &o) const;
  AddressPoly operator*(int64_t c) const;
  std::optional<int64_t> asConstant() const;
};

/// The layout a memref value has at run time, relative to its root.
struct MemRefLayout {
  /// The allocation: a kernel argument or attribution (block argument of
  /// the gpu.func), gpu.dynamic_shared_memory, memref.alloc/alloca, or
  /// memref.get_global.
  Value root;
  /// Bytes the root's aligned pointer is known to be a multiple of, and why.
  int64_t rootAlign = 1;
  std::string rootWhy;
  /// Bytes `memref.view`s add to the root's pointer.
  AddressPoly shift;
  /// Elements.
  AddressPoly offset;
  llvm::SmallVector<AddressPoly, 4> sizes, strides;
  int64_t elemBytes = 0;
  bool workgroup = false;
};

/// An access's address: root + rootAlign-aligned base + `bytes`.
struct AccessAddress {
  const MemRefLayout *layout;
  AddressPoly bytes;
};

/// Whether a memref lives in workgroup (shared) memory, or in global memory
/// (no memory space, or the global one).
bool isWorkgroupMemRef(Type type);
bool isGlobalMemRef(Type type);

/// Bytes of one element of a memref (index: 8; an integer narrower than a
/// byte, an i1 say: 1; a vector: all its elements), or 0 when it has none
/// (floats or integers of widths that are no whole bytes, non-numeric
/// types).
int64_t elementBytes(Type type);

/// Bytes of a static memref of `type` (checked), or nullopt when its shape
/// is dynamic, its elements have no byte size, or the product overflows.
std::optional<int64_t> getStaticSizeInBytes(MemRefType type);

/// The natural alignment of `bytes`: its largest power-of-two divisor, at
/// most 16 (what ld/st.v2/v4 and cp.async require).
int64_t naturalAlignment(int64_t bytes);

/// Traces memrefs to their roots, with a cache per kernel.
class AddressModel {
public:
  /// The layout of `memref`, or failure with `whyNot` (a view op or a root
  /// the model does not know, an element type without a byte size).
  FailureOr<const MemRefLayout *> layout(Value memref, std::string &whyNot);
  /// The byte address of `memref[indices]`.
  FailureOr<AccessAddress> address(Value memref, ValueRange indices,
                                   std::string &whyNot);
  /// What an index value produced by `memref.dim` or
  /// `memref.extract_strided_metadata` stands for (e.g. `dim %A, 1` of a
  /// dynamic kernel argument is its Size factor 1); nullopt for other values
  /// or untraceable memrefs.
  std::optional<AddressPoly> metadata(Value v);

private:
  FailureOr<MemRefLayout> compute(Value memref, std::string &whyNot);

  /// Stable addresses: AccessAddress points into them.
  llvm::DenseMap<Value, std::unique_ptr<MemRefLayout>> layouts;
  llvm::DenseMap<Value, std::string> failures;
};

/// Evaluates an integer op (arith, index casts, comparisons, select) on
/// concrete operand values `x`, with the wrap-around of its result type;
/// nullopt for a division by zero, an over-wide shift, or an op it does not
/// know.
std::optional<int64_t> evaluateIntegerOp(Operation *op,
                                         llvm::ArrayRef<int64_t> x);

/// The predicate of a comparison with its operands swapped (a < b is
/// b > a); eq and ne stay.
arith::CmpIPredicate swapCmpIOperands(arith::CmpIPredicate pred);

/// `v`: what `leaf` gives for it, else its defining op evaluated
/// (evaluateIntegerOp) on its operands' values, through at most `maxDepth`
/// ops; nullopt where neither knows a value.
std::optional<int64_t>
evaluateInteger(Value v, llvm::function_ref<std::optional<int64_t>(Value)> leaf,
                int maxDepth);

} // namespace mlir::amk

#endif // AMK_ANALYSIS_ADDRESS_H
