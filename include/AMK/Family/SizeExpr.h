//===- SizeExpr.h - Integer expressions over size symbols -------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// A launch grid (or a workspace size) as a function of a problem's size
// symbols (`M`, `N`, ...), stated once by a family and used three ways: the
// lowering materializes it as arith ops for the emitted launch, the bundle
// writer prints it for the runtime (docs/BUNDLE.md size expressions), and the
// harness evaluates it for static sizes. Evaluation is overflow-checked.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_SIZEEXPR_H
#define AMK_FAMILY_SIZEEXPR_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::amk {

class SizeExpr {
public:
  enum class Kind { Constant, Symbol, Add, Mul, CeilDiv };

  /// The constant 1.
  SizeExpr() : SizeExpr(constant(1)) {}
  static SizeExpr constant(int64_t value);
  static SizeExpr symbol(llvm::StringRef name);
  friend SizeExpr operator+(const SizeExpr &lhs, const SizeExpr &rhs);
  friend SizeExpr operator*(const SizeExpr &lhs, const SizeExpr &rhs);
  /// ceil(lhs / divisor), divisor >= 1.
  static SizeExpr ceilDiv(const SizeExpr &lhs, int64_t divisor);

  Kind getKind() const;
  /// The constant's value, or nullopt for anything else.
  std::optional<int64_t> getConstant() const;

  /// The manifest spelling, e.g. `((M+127)/128)*((N+127)/128)`.
  std::string str() const;

  /// The value for the symbols `lookup` knows (nullopt: unknown), or
  /// nullopt when a symbol is unknown or the arithmetic overflows int64.
  std::optional<int64_t> evaluate(
      llvm::function_ref<std::optional<int64_t>(llvm::StringRef)> lookup) const;

  /// Index-typed arith ops computing the expression, constant parts folded
  /// (no op for them); `symbolValue` gives each symbol's value, an index
  /// attribute where it is static.
  Value materialize(
      OpBuilder &b, Location loc,
      llvm::function_ref<OpFoldResult(llvm::StringRef)> symbolValue) const;

private:
  OpFoldResult
  fold(OpBuilder &b, Location loc,
       llvm::function_ref<OpFoldResult(llvm::StringRef)> symbolValue) const;

  struct Node;
  explicit SizeExpr(std::shared_ptr<const Node> node) : node(std::move(node)) {}
  std::shared_ptr<const Node> node;
};

} // namespace mlir::amk

#endif // AMK_FAMILY_SIZEEXPR_H
