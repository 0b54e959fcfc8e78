//===- AMKOps.cpp - AMK operations ----------------------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Dialect/AMK/IR/AMKOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::amk;

#define GET_OP_CLASSES
#include "AMK/Dialect/AMK/IR/AMKOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ProblemOpInterface
//===----------------------------------------------------------------------===//

/// The buffers a memref value may view: block arguments and allocations it
/// starts from, through every op that makes a memref of memrefs (views,
/// casts, transposes, selects, ops AMK does not know).
static void collectUnderlyingBuffers(Value value,
                                     llvm::SmallPtrSetImpl<Value> &buffers,
                                     int depth = 0) {
  Operation *op = value.getDefiningOp();
  SmallVector<Value> sources;
  if (op)
    llvm::copy_if(op->getOperands(), std::back_inserter(sources),
                  [](Value v) { return isa<MemRefType>(v.getType()); });
  if (sources.empty() || depth > 32 ||
      hasEffect<MemoryEffects::Allocate>(op, value)) {
    buffers.insert(value);
    return;
  }
  for (Value source : sources)
    collectUnderlyingBuffers(source, buffers, depth + 1);
}

/// Whether `a` and `b` may view one buffer.
static bool mayShareBuffer(Value a, Value b) {
  llvm::SmallPtrSet<Value, 4> fromA, fromB;
  collectUnderlyingBuffers(a, fromA);
  collectUnderlyingBuffers(b, fromB);
  return llvm::any_of(fromA, [&](Value v) { return fromB.contains(v); });
}

/// The operands `op` writes, by position (an effect on a value, not an
/// operand, counts for every operand of that value; unknown effects for
/// all).
static SmallVector<unsigned> getWrittenOperands(Operation *op) {
  SmallVector<unsigned> written;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  SmallVector<MemoryEffects::EffectInstance> instances;
  if (effects)
    effects.getEffects(instances);
  for (OpOperand &operand : op->getOpOperands()) {
    bool writes = !effects || llvm::any_of(instances, [&](auto &effect) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        return false;
      if (auto *at = effect.template getEffectValue<OpOperand *>())
        return at == &operand;
      return effect.getValue() == operand.get();
    });
    if (writes && isa<MemRefType>(operand.get().getType()))
      written.push_back(operand.getOperandNumber());
  }
  return written;
}

LogicalResult mlir::amk::verifyProblemOperands(Operation *op) {
  // A kernel reads its inputs while it writes its outputs: an output that
  // views the same buffer as another operand races. Distinct arguments are
  // checked at launch (the runtime refuses overlapping buffers).
  for (unsigned i : getWrittenOperands(op)) {
    for (auto [j, other] : llvm::enumerate(op->getOperands()))
      if (i != j && isa<MemRefType>(other.getType()) &&
          mayShareBuffer(op->getOperand(i), other))
        return op->emitOpError()
               << "writes operand #" << i << ", which may alias operand #" << j
               << " (both view the same buffer): the kernel would race";
  }
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      continue;
    Type element = type.getElementType();
    std::optional<int64_t> bytes =
        element.isIntOrFloat()
            ? llvm::divideCeil(element.getIntOrFloatBitWidth(), 8)
            : 8;
    for (int64_t extent : type.getShape())
      if (bytes && !ShapedType::isDynamic(extent))
        bytes = llvm::checkedMul(*bytes, extent);
    if (!bytes || *bytes > kMaxOperandBytes)
      return op->emitOpError() << "operand #" << index << " of type " << type
                               << " is larger than 1 TiB (" << kMaxOperandBytes
                               << " bytes), more than any GPU holds";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// Index of the M, N, K extents in each operand's shape. The batch dimension
/// (if any) comes first and shifts these by one.
namespace {
struct MatmulDims {
  int64_t aM, aK, bK, bN;
};
} // namespace

static MatmulDims getMatmulDims(MatmulOp op) {
  int64_t off = op.isBatched() ? 1 : 0;
  MatmulDims d;
  d.aM = off + (op.getTransposeA() ? 1 : 0);
  d.aK = off + (op.getTransposeA() ? 0 : 1);
  d.bK = off + (op.getTransposeB() ? 1 : 0);
  d.bN = off + (op.getTransposeB() ? 0 : 1);
  return d;
}

/// The first static size among `dims` (operand, dimension): every operand
/// that states a size states the same one (the verifier checks), so a size
/// is dynamic only when no operand's type fixes it.
static int64_t
firstStaticSize(std::initializer_list<std::pair<Value, int64_t>> dims) {
  for (auto [operand, dim] : dims) {
    if (!operand)
      continue;
    auto type = cast<MemRefType>(operand.getType());
    if (dim < type.getRank() && !type.isDynamicDim(dim))
      return type.getDimSize(dim);
  }
  return ShapedType::kDynamic;
}

/// The bias with a batch dimension, if any.
static Value getBatchedBias(MatmulOp op) {
  Value bias = op.getBias();
  return bias && cast<MemRefType>(bias.getType()).getRank() == 2 ? bias
                                                                 : Value();
}

int64_t MatmulOp::getBatchSize() {
  if (!isBatched())
    return 1;
  return firstStaticSize(
      {{getC(), 0}, {getA(), 0}, {getB(), 0}, {getBatchedBias(*this), 0}});
}
int64_t MatmulOp::getM() {
  return firstStaticSize(
      {{getC(), isBatched() ? 1 : 0}, {getA(), getMatmulDims(*this).aM}});
}
int64_t MatmulOp::getN() {
  Value bias = getBias();
  int64_t biasN =
      bias ? cast<MemRefType>(bias.getType()).getRank() - 1 : int64_t(0);
  return firstStaticSize({{getC(), isBatched() ? 2 : 1},
                          {getB(), getMatmulDims(*this).bN},
                          {bias, biasN}});
}
int64_t MatmulOp::getK() {
  MatmulDims d = getMatmulDims(*this);
  return firstStaticSize({{getA(), d.aK}, {getB(), d.bK}});
}
Type MatmulOp::getInputElementType() {
  return getA().getType().getElementType();
}
Type MatmulOp::getAccumulatorType() {
  if (std::optional<Type> acc = getAcc())
    return *acc;
  return Float32Type::get(getContext());
}

static bool isSupportedElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// Static sizes `a` and `b` may describe the same extent.
static bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

LogicalResult MatmulOp::verify() {
  MemRefType aType = getA().getType(), bType = getB().getType(),
             cType = getC().getType();
  int64_t rank = cType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError("C must be rank 2 ([M, N]) or rank 3 ([batch, M, N]), "
                       "got rank ")
           << rank;
  for (auto [name, type] :
       {std::pair<StringRef, MemRefType>{"A", aType}, {"B", bType}}) {
    if (type.getRank() != rank)
      return emitOpError() << name << " has rank " << type.getRank()
                           << " but C has rank " << rank;
  }
  SmallVector<std::pair<StringRef, MemRefType>> operands = {
      {"A", aType}, {"B", bType}, {"C", cType}};
  if (getBias())
    operands.push_back({"bias", getBias().getType()});
  for (auto [name, type] : operands) {
    if (llvm::any_of(type.getShape(), [](int64_t d) {
          return !ShapedType::isDynamic(d) && d <= 0;
        }))
      return emitOpError() << name << " has an empty dimension: " << type;
    if (!type.isLastDimUnitStride())
      return emitOpError() << name
                           << " must be contiguous in its innermost dimension";
  }

  MatmulDims d = getMatmulDims(*this);
  int64_t off = isBatched() ? 1 : 0;
  auto mismatch = [&](StringRef what, StringRef x, int64_t xv, StringRef y,
                      int64_t yv) {
    auto str = [](int64_t v) {
      return ShapedType::isDynamic(v) ? std::string("?") : std::to_string(v);
    };
    return emitOpError() << what << " of " << x << " (" << str(xv)
                         << ") does not match " << what << " of " << y << " ("
                         << str(yv) << ")";
  };
  if (!compatible(aType.getDimSize(d.aK), bType.getDimSize(d.bK)))
    return mismatch("K", "A", aType.getDimSize(d.aK), "B",
                    bType.getDimSize(d.bK));
  if (!compatible(aType.getDimSize(d.aM), cType.getDimSize(off)))
    return mismatch("M", "A", aType.getDimSize(d.aM), "C",
                    cType.getDimSize(off));
  if (!compatible(bType.getDimSize(d.bN), cType.getDimSize(off + 1)))
    return mismatch("N", "B", bType.getDimSize(d.bN), "C",
                    cType.getDimSize(off + 1));
  if (isBatched()) {
    if (!compatible(aType.getDimSize(0), cType.getDimSize(0)))
      return mismatch("batch", "A", aType.getDimSize(0), "C",
                      cType.getDimSize(0));
    if (!compatible(bType.getDimSize(0), cType.getDimSize(0)))
      return mismatch("batch", "B", bType.getDimSize(0), "C",
                      cType.getDimSize(0));
  }

  Type input = aType.getElementType();
  if (bType.getElementType() != input)
    return emitOpError() << "A and B element types differ: " << input << " vs "
                         << bType.getElementType();
  if (!isSupportedElementType(input))
    return emitOpError() << "element type " << input
                         << " is not supported (f32, f16, bf16)";
  Type output = cType.getElementType();
  if (!output.isF32() && output != input)
    return emitOpError() << "C element type " << output
                         << " must be f32 or the input type " << input;
  Type acc = getAccumulatorType();
  if (!acc.isF32() && !(acc.isF16() && input.isF16()))
    return emitOpError() << "accumulator type " << acc
                         << " must be f32 (or f16 for f16 inputs)";
  if (acc.isF16() && !output.isF16())
    return emitOpError() << "an f16 accumulator needs an f16 C";
  if (isTF32() && !input.isF32())
    return emitOpError() << "#amk.precision<tf32> applies to f32 inputs, not "
                         << input;

  if (Value bias = getBias()) {
    auto biasType = cast<MemRefType>(bias.getType());
    if (biasType.getElementType() != output)
      return emitOpError() << "bias element type " << biasType.getElementType()
                           << " must match C's " << output;
    if (biasType.getRank() != rank - 1)
      return emitOpError() << "bias must be "
                           << (isBatched() ? "[batch, N]" : "[N]") << ", got "
                           << biasType;
    if (!compatible(biasType.getDimSize(rank - 2), cType.getDimSize(rank - 1)))
      return mismatch("N", "bias", biasType.getDimSize(rank - 2), "C",
                      cType.getDimSize(rank - 1));
    if (isBatched() && !compatible(biasType.getDimSize(0), cType.getDimSize(0)))
      return mismatch("batch", "bias", biasType.getDimSize(0), "C",
                      cType.getDimSize(0));
    // Where C leaves a size dynamic, the others must still agree.
    if (!compatible(biasType.getDimSize(rank - 2), bType.getDimSize(d.bN)))
      return mismatch("N", "bias", biasType.getDimSize(rank - 2), "B",
                      bType.getDimSize(d.bN));
    for (auto [name, type] : {std::pair<StringRef, MemRefType>{"A", aType},
                              std::pair<StringRef, MemRefType>{"B", bType}})
      if (isBatched() &&
          !compatible(biasType.getDimSize(0), type.getDimSize(0)))
        return mismatch("batch", "bias", biasType.getDimSize(0), name,
                        type.getDimSize(0));
  }
  if (isBatched() && !compatible(aType.getDimSize(0), bType.getDimSize(0)))
    return mismatch("batch", "A", aType.getDimSize(0), "B",
                    bType.getDimSize(0));
  return success();
}

StringRef MatmulOp::getProblemFamily() { return "gemm"; }

SmallVector<Value, 4> MatmulOp::getKernelOperands() {
  SmallVector<Value, 4> operands = {getA(), getB()};
  if (getBias())
    operands.push_back(getBias());
  operands.push_back(getC());
  return operands;
}

std::string MatmulOp::getProblemSignature() {
  auto size = [](int64_t v) {
    return ShapedType::isDynamic(v) ? std::string("?") : std::to_string(v);
  };
  auto typeName = [](Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t;
    return s;
  };
  std::string sig = "gemm_";
  if (isBatched())
    sig += size(getBatchSize()) + "x";
  sig += size(getM()) + "x" + size(getN()) + "x" + size(getK());
  sig += "_" + typeName(getInputElementType());
  sig += "_" + typeName(getAccumulatorType());
  sig += "_" + typeName(getC().getType().getElementType());
  sig += getTransposeA() ? "_t" : "_n";
  sig += getTransposeB() ? "t" : "n";
  if (isTF32())
    sig += "_tf32";
  if (getBias())
    sig += "_bias";
  if (getActivationValue() != Activation::none)
    sig += "_" + stringifyActivation(getActivationValue()).str();
  if (getAlphaValue() != 1.0)
    sig += llvm::formatv("_alpha{0}", getAlphaValue()).str();
  if (getBetaValue() != 0.0)
    sig += llvm::formatv("_beta{0}", getBetaValue()).str();
  return sig;
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ProblemOpInterface KernelOp::getProblem() {
  Block &body = getBody().front();
  if (body.empty())
    return {};
  return dyn_cast<ProblemOpInterface>(body.front());
}

bool KernelOp::isValidName(StringRef name) {
  return !name.empty() && name.size() <= kMaxNameLength &&
         !llvm::isDigit(name.front()) && llvm::all_of(name, [](char c) {
           return llvm::isAlnum(c) || c == '_';
         });
}

/// The name of a kernel that may not have been verified yet (another thread
/// may be at it): null if it has none.
static StringAttr getNameIfAny(KernelOp kernel) {
  std::optional<Attribute> name = kernel->getInherentAttr("sym_name");
  return dyn_cast_if_present<StringAttr>(name.value_or(Attribute()));
}

static LogicalResult verifyUniqueName(KernelOp kernel) {
  // One name per kernel of the module, or the second bundle overwrites the
  // first. Checked here, where every input passes (a module-level check on
  // #amk.target is skipped after a pass that preserves everything); the
  // later kernel of a name is the one in error.
  auto module = kernel->getParentOfType<ModuleOp>();
  if (!module)
    return success();
  StringRef name = kernel.getSymName();
  KernelOp first;
  module.walk([&](KernelOp other) {
    if (other == kernel)
      return WalkResult::interrupt();
    StringAttr otherName = getNameIfAny(other);
    if (otherName && otherName.getValue() == name) {
      first = other;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!first) {
    // The lowered kernel becomes a gpu.module of this name at the top of
    // the module: no other symbol may hold it.
    Operation *taken = SymbolTable::lookupSymbolIn(module, name);
    if (!taken)
      return success();
    InFlightDiagnostic diag =
        kernel.emitOpError()
        << "name '" << name << "' is already the name of the module's "
        << taken->getName()
        << " (the lowered kernel is a gpu.module of that name)";
    diag.attachNote(taken->getLoc()) << "the other symbol";
    return diag;
  }
  InFlightDiagnostic diag =
      kernel.emitOpError()
      << "name '" << name
      << "' is already the name of another kernel of the module "
         "(kernel names name their bundle files)";
  diag.attachNote(first.getLoc()) << "the other kernel";
  return diag;
}

LogicalResult KernelOp::verify() {
  // The name becomes a symbol and file names (bundles): nothing that could
  // leave the bundle directory, hide a file or break a symbol gets past.
  StringRef name = getSymName();
  if (isValidName(name))
    return verifyUniqueName(*this);
  static constexpr llvm::StringLiteral rule =
      "kernel names are identifiers ([A-Za-z_][A-Za-z0-9_]*): they name the "
      "GPU function and the bundle files";
  if (name.empty())
    return emitOpError("needs a name: ") << rule;
  if (name.size() > kMaxNameLength)
    return emitOpError() << "name of " << name.size()
                         << " characters is longer than the " << kMaxNameLength
                         << " a kernel name may have";
  size_t bad = 0;
  while (bad < name.size() && (llvm::isAlnum(name[bad]) || name[bad] == '_') &&
         !(bad == 0 && llvm::isDigit(name[bad])))
    ++bad;
  std::string escaped, what;
  llvm::raw_string_ostream os(escaped), whatOS(what);
  llvm::printEscapedString(name, os);
  if (llvm::isPrint(name[bad]))
    whatOS << "'" << name[bad] << "'";
  else
    whatOS << "byte 0x" << llvm::hexdigit((name[bad] >> 4) & 0xF)
           << llvm::hexdigit(name[bad] & 0xF);
  return emitOpError() << "name \"" << escaped
                       << "\" is not an identifier: " << what << " at position "
                       << bad << " (" << rule << ")";
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  ProblemOpInterface problem = getProblem();
  if (!problem || !llvm::hasSingleElement(body))
    return emitOpError("body must hold exactly one problem op (such as "
                       "amk.matmul)");
  auto check = [&](KernelConfigAttrInterface config) -> LogicalResult {
    if (config.getProblemFamily() != problem.getProblemFamily())
      return emitOpError() << "config for '" << config.getProblemFamily()
                           << "' kernels cannot compute a '"
                           << problem.getProblemFamily() << "' problem";
    return config.verifyForProblem(problem, [&] { return emitOpError(); });
  };
  if (failed(check(getConfig())))
    return failure();
  if (std::optional<ArrayAttr> ladder = getLadder())
    for (auto candidate : ladder->getAsRange<CandidateAttr>())
      if (failed(check(candidate.getConfig())))
        return failure();
  return success();
}
