//===- RowReduce.cpp - amk.row_reduce and #amk.row_config -----------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The row-wise family's problem op and config: reductions of the last
// dimension, softmax, RMSNorm and LayerNorm.
//
//===----------------------------------------------------------------------===//

#include "AMK/Dialect/AMK/IR/AMKOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amk;

//===----------------------------------------------------------------------===//
// amk.row_reduce
//===----------------------------------------------------------------------===//

static bool isRowElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

static std::string sizeString(int64_t v) {
  return ShapedType::isDynamic(v) ? std::string("?") : std::to_string(v);
}

int64_t RowReduceOp::getBatchSize() {
  return isBatched() ? getX().getType().getDimSize(0) : 1;
}

/// The size of dimension `d` of `x` or, where `x` leaves it dynamic, of the
/// operand that fixes it.
static int64_t getSize(RowReduceOp op, unsigned d) {
  int64_t size = op.getX().getType().getDimSize(d);
  MemRefType y = op.getY().getType();
  if (ShapedType::isDynamic(size) && d < unsigned(y.getRank()))
    size = y.getDimSize(d);
  unsigned last = op.getX().getType().getRank() - 1;
  if (ShapedType::isDynamic(size) && d == last)
    for (Value v : {op.getWeight(), op.getBias()})
      if (v && ShapedType::isDynamic(size))
        size = cast<MemRefType>(v.getType()).getDimSize(0);
  return size;
}

int64_t RowReduceOp::getM() { return getSize(*this, isBatched() ? 1 : 0); }
int64_t RowReduceOp::getN() { return getSize(*this, isBatched() ? 2 : 1); }

LogicalResult RowReduceOp::verify() {
  MemRefType x = getX().getType(), y = getY().getType();
  int64_t rank = x.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError("x must be rank 2 ([M, N]) or rank 3 ([batch, M, N]) "
                       "with the reduced dimension last, got rank ")
           << rank;
  int64_t yRank = isElementwiseOutput() ? rank : rank - 1;
  if (y.getRank() != yRank)
    return emitOpError() << "y of " << stringifyRowOp(getKind())
                         << " must have rank " << yRank << " ("
                         << (isElementwiseOutput() ? "the shape of x"
                                                   : "one value per row")
                         << "), got " << y;
  SmallVector<std::pair<StringRef, MemRefType>> operands = {{"x", x}, {"y", y}};
  bool isNorm = getKind() == RowOp::rms_norm || getKind() == RowOp::layer_norm;
  if (getWeight())
    operands.push_back({"weight", getWeight().getType()});
  if (getBias())
    operands.push_back({"bias", getBias().getType()});
  for (auto [name, type] : operands) {
    if (llvm::any_of(type.getShape(), [](int64_t d) {
          return !ShapedType::isDynamic(d) && d <= 0;
        }))
      return emitOpError() << name << " has an empty dimension: " << type;
    if (!type.getLayout().isIdentity())
      return emitOpError() << name
                           << " must be a contiguous row-major buffer "
                              "(identity layout), got "
                           << type;
    if (!isRowElementType(type.getElementType()))
      return emitOpError() << name << " element type " << type.getElementType()
                           << " is not supported (f32, f16, bf16)";
  }
  // Every size the operands state agrees.
  for (int64_t d = 0; d < yRank; ++d) {
    int64_t a = x.getDimSize(d), b = y.getDimSize(d);
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
      return emitOpError() << "size " << d << " of x (" << a
                           << ") does not match size " << d << " of y (" << b
                           << ")";
  }
  if (!isNorm && (getWeight() || getBias()))
    return emitOpError() << stringifyRowOp(getKind())
                         << " takes no weight or bias";
  if (isNorm && !getWeight())
    return emitOpError() << stringifyRowOp(getKind()) << " needs a weight";
  if (getBias() && getKind() != RowOp::layer_norm)
    return emitOpError("only layer_norm takes a bias");
  for (Value v : {getWeight(), getBias()}) {
    if (!v)
      continue;
    auto type = cast<MemRefType>(v.getType());
    StringRef name = v == getWeight() ? "weight" : "bias";
    if (type.getRank() != 1)
      return emitOpError() << name << " must be [N], got " << type;
    if (type.getElementType() != y.getElementType())
      return emitOpError() << name << " element type " << type.getElementType()
                           << " must match y's " << y.getElementType();
    int64_t n = type.getDimSize(0);
    for (MemRefType other : {x, y}) {
      int64_t m = other.getDimSize(other.getRank() - 1);
      if (other == y && !isElementwiseOutput())
        continue;
      if (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(m) && n != m)
        return emitOpError()
               << name << " has " << n << " elements but rows have " << m;
    }
  }
  if (getEps() && !isNorm)
    return emitOpError() << stringifyRowOp(getKind()) << " takes no eps";
  double eps = getEpsValue();
  if (!(eps > 0.0 && eps <= 1.0))
    return emitOpError() << "eps must be in (0, 1], got " << eps;
  return success();
}

StringRef RowReduceOp::getProblemFamily() { return "row_reduce"; }

SmallVector<Value, 4> RowReduceOp::getKernelOperands() {
  SmallVector<Value, 4> operands = {getX()};
  for (Value v : {getWeight(), getBias()})
    if (v)
      operands.push_back(v);
  operands.push_back(getY());
  return operands;
}

std::string RowReduceOp::getProblemSignature() {
  auto typeName = [](Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t;
    return s;
  };
  std::string sig = stringifyRowOp(getKind()).str() + "_";
  if (isBatched())
    sig += sizeString(getBatchSize()) + "x";
  sig += sizeString(getM()) + "x" + sizeString(getN());
  sig += "_" + typeName(getX().getType().getElementType());
  sig += "_" + typeName(getY().getType().getElementType());
  if (getBias())
    sig += "_bias";
  if (getEps())
    sig += llvm::formatv("_eps{0:e}", getEpsValue()).str();
  return sig;
}

//===----------------------------------------------------------------------===//
// #amk.row_config
//===----------------------------------------------------------------------===//

LogicalResult
RowConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t threadsPerRow, int64_t rowsPerBlock,
                      int64_t vector, int64_t passes, int64_t cachedRuns,
                      RowCache cache, int64_t cluster) {
  if (threadsPerRow < 1 || threadsPerRow > 1024 ||
      !llvm::isPowerOf2_64(threadsPerRow))
    return emitError() << "threads_per_row must be a power of two in [1, "
                          "1024], got "
                       << threadsPerRow;
  if (rowsPerBlock < 1 || rowsPerBlock > 1024)
    return emitError() << "rows_per_block must be in [1, 1024], got "
                       << rowsPerBlock;
  // Both are at most 1024: the product cannot overflow.
  int64_t threads = threadsPerRow * rowsPerBlock;
  if (threads > 1024 || threads % 32 != 0)
    return emitError() << "a block of " << threadsPerRow << " x "
                       << rowsPerBlock << " = " << threads
                       << " threads must be whole warps, at most 1024";
  if (!llvm::is_contained({1, 2, 4, 8}, vector))
    return emitError() << "vector width must be 1, 2, 4 or 8 elements, got "
                       << vector;
  if (passes != 1 && passes != 2)
    return emitError() << "passes must be 1 or 2, got " << passes;
  if (cachedRuns < 0 || cachedRuns > 32)
    return emitError() << "cached_runs must be in [0, 32], got " << cachedRuns;
  if (cache == RowCache::shared && cachedRuns == 0)
    return emitError() << "cache = shared needs cached_runs >= 1";
  if (!llvm::is_contained({1, 2, 4, 8}, cluster))
    return emitError() << "cluster must be 1, 2, 4 or 8 blocks, got "
                       << cluster;
  if (cluster > 1 && rowsPerBlock != 1)
    return emitError() << "a row spread over a cluster of " << cluster
                       << " blocks needs rows_per_block = 1, got "
                       << rowsPerBlock;
  return success();
}

StringRef RowConfigAttr::getProblemFamily() const { return "row_reduce"; }

int64_t RowConfigAttr::getThreadsPerBlock() const { return getThreads(); }

LogicalResult RowConfigAttr::verifyForProblem(
    Operation *problem, function_ref<InFlightDiagnostic()> emitError) const {
  auto op = dyn_cast<RowReduceOp>(problem);
  if (!op)
    return emitError() << "#amk.row_config cannot compute '"
                       << problem->getName() << "'";
  Type x = op.getX().getType().getElementType();
  if (getVector() * x.getIntOrFloatBitWidth() > 128)
    return emitError() << "vector width " << getVector() << " of " << x
                       << " exceeds a 16-byte access";
  return success();
}
