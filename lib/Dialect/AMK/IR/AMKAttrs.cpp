//===- AMKAttrs.cpp - AMK attributes --------------------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Dialect/AMK/IR/AMKAttrs.h"
#include "AMK/Dialect/AMK/IR/AMKDialect.h"
#include "AMK/Dialect/AMK/IR/AMKOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::amk;

#include "AMK/Dialect/AMK/IR/AMKAttrInterfaces.cpp.inc"
#include "AMK/Dialect/AMK/IR/AMKEnums.cpp.inc"
#include "AMK/Dialect/AMK/IR/AMKOpInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "AMK/Dialect/AMK/IR/AMKAttrs.cpp.inc"

void AMKDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "AMK/Dialect/AMK/IR/AMKAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>> mlir::amk::parseDims(AsmParser &parser) {
  SmallVector<int64_t> dims;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        return parser.parseInteger(dims.emplace_back());
      }))
    return failure();
  return dims;
}

void mlir::amk::printDims(AsmPrinter &printer, ArrayRef<int64_t> dims) {
  printer << '[';
  llvm::interleaveComma(dims, printer);
  printer << ']';
}

TargetAttr mlir::amk::lookupTarget(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto target =
            op->getAttrOfType<TargetAttr>(AMKDialect::kTargetAttrName))
      return target;
  return {};
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

Attribute TargetAttr::parse(AsmParser &parser, Type) {
  std::string name;
  SMLoc nameLoc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseString(&name))
    return {};
  const TargetSpec *preset = lookupTargetPreset(name);
  TargetSpec spec = preset ? *preset : TargetSpec();
  spec.name = name;

  llvm::StringSet<> given;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    std::string key;
    if (parser.parseKeywordOrString(&key) || parser.parseEqual())
      return {};
    if (!given.insert(key).second) {
      parser.emitError(keyLoc, "target field '") << key << "' given twice";
      return {};
    }
    bool found = false, ok = true;
    forEachTargetField(
        spec,
        [&](StringRef field, int64_t &value) {
          if (field == key) {
            found = true;
            ok = succeeded(parser.parseInteger(value));
          }
        },
        [&](StringRef field, std::string &value) {
          if (field == key) {
            found = true;
            ok = succeeded(parser.parseString(&value));
          }
        });
    if (!found) {
      parser.emitError(keyLoc, "unknown target field '") << key << "'";
      return {};
    }
    if (!ok)
      return {};
  }
  if (parser.parseGreater())
    return {};

  if (!preset) {
    std::string missing;
    forEachTargetField(
        spec,
        [&](StringRef key, int64_t) {
          if (missing.empty() && !given.contains(key))
            missing = key.str();
        },
        [&](StringRef key, const std::string &) {
          if (missing.empty() && !given.contains(key))
            missing = key.str();
        });
    if (!missing.empty()) {
      parser.emitError(nameLoc, "target '")
          << name << "' is not a preset (" << listTargetPresetNames()
          << ") and does not give field '" << missing << "'";
      return {};
    }
  }
  return parser.getChecked<TargetAttr>(nameLoc, parser.getContext(), spec);
}

/// Every field of `spec` as (key, value in attribute syntax).
static SmallVector<std::pair<std::string, std::string>>
printedFields(const TargetSpec &spec) {
  SmallVector<std::pair<std::string, std::string>> fields;
  forEachTargetField(
      spec,
      [&](StringRef key, int64_t value) {
        fields.emplace_back(key.str(), std::to_string(value));
      },
      [&](StringRef key, const std::string &value) {
        std::string quoted;
        llvm::raw_string_ostream os(quoted);
        os << '"';
        llvm::printEscapedString(value, os);
        os << '"';
        fields.emplace_back(key.str(), quoted);
      });
  return fields;
}

void TargetAttr::print(AsmPrinter &printer) const {
  const TargetSpec &spec = getSpec();
  printer << '<';
  printer.printString(spec.name);
  // Print only what differs from the preset of the same name, if any.
  auto fields = printedFields(spec);
  const TargetSpec *preset = lookupTargetPreset(spec.name);
  auto presetFields = preset ? printedFields(*preset) : fields;
  for (auto [field, presetField] : llvm::zip_equal(fields, presetFields))
    if (!preset || field.second != presetField.second)
      printer << ", " << field.first << " = " << field.second;
  printer << '>';
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 TargetSpec spec) {
  if (std::string error = spec.validate(); !error.empty())
    return emitError() << "invalid target '" << spec.name << "': " << error;
  return success();
}

//===----------------------------------------------------------------------===//
// GemmConfigAttr
//===----------------------------------------------------------------------===//

static bool isValidMmaSyncShape(ArrayRef<int64_t> inst) {
  return inst.size() == 3 && inst[0] == 16 && inst[1] == 8 &&
         llvm::is_contained({4, 8, 16}, inst[2]);
}

static bool isValidWgmmaShape(ArrayRef<int64_t> inst) {
  return inst.size() == 3 && inst[0] == 64 && inst[1] >= 8 && inst[1] <= 256 &&
         inst[1] % 8 == 0 && llvm::is_contained({8, 16, 32}, inst[2]);
}

LogicalResult GemmConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> block,
    ArrayRef<int64_t> warp, MathInst math, ArrayRef<int64_t> inst,
    ArrayRef<int64_t> thread, int64_t stages, int64_t vector, int64_t threads,
    int64_t swizzle, int64_t splitK, SplitReduce splitReduce) {
  if (block.size() != 3)
    return emitError() << "block tile must be [BM, BN, BK], got "
                       << block.size() << " sizes";
  if (warp.size() != 2)
    return emitError() << "warp tile must be [WM, WN], got " << warp.size()
                       << " sizes";
  auto inRange = [](ArrayRef<int64_t> dims) {
    return llvm::all_of(
        dims, [](int64_t d) { return d > 0 && d <= kMaxConfigValue; });
  };
  if (!inRange(block) || !inRange(warp) || !inRange(inst) || !inRange(thread))
    return emitError() << "tile sizes must be in [1, " << kMaxConfigValue
                       << "]";
  // Bounded fields keep every product of them exact (thread counts, shared
  // memory, the rasterization's tiles x swizzle).
  for (auto [name, value] : {std::pair<StringRef, int64_t>{"stages", stages},
                             {"threads", threads},
                             {"swizzle", swizzle},
                             {"split_k", splitK}})
    if (value > kMaxConfigValue)
      return emitError() << name << " = " << value << " exceeds "
                         << kMaxConfigValue;
  if (block[0] % warp[0] != 0 || block[1] % warp[1] != 0)
    return emitError() << "warp tile " << warp[0] << "x" << warp[1]
                       << " does not divide block tile " << block[0] << "x"
                       << block[1];
  if (stages < 1)
    return emitError() << "stages must be at least 1, got " << stages;
  if (!llvm::is_contained({1, 2, 4, 8, 16}, vector))
    return emitError() << "vector width must be 1, 2, 4, 8 or 16 elements, got "
                       << vector;
  if (swizzle < 1)
    return emitError() << "swizzle must be at least 1, got " << swizzle;
  if (splitK < 1)
    return emitError() << "split_k must be at least 1, got " << splitK;
  if (splitReduce != SplitReduce::atomic && splitK == 1)
    return emitError() << "split_reduce = " << stringifySplitReduce(splitReduce)
                       << " needs split_k > 1";

  int64_t warpsM = block[0] / warp[0], warpsN = block[1] / warp[1];
  int64_t expectedThreads = 32 * warpsM * warpsN;
  switch (math) {
  case MathInst::simt: {
    if (!inst.empty())
      return emitError()
             << "simt takes a thread tile, not an instruction shape";
    if (thread.size() != 2)
      return emitError() << "simt needs a thread tile [TM, TN]";
    if (warp[0] % thread[0] != 0 || warp[1] % thread[1] != 0 ||
        (warp[0] / thread[0]) * (warp[1] / thread[1]) != 32)
      return emitError() << "thread tile " << thread[0] << "x" << thread[1]
                         << " does not spread warp tile " << warp[0] << "x"
                         << warp[1] << " over 32 threads";
    break;
  }
  case MathInst::mma_sync:
  case MathInst::wgmma: {
    if (!thread.empty())
      return emitError() << "a thread tile is only for simt";
    bool isWgmma = math == MathInst::wgmma;
    if (isWgmma ? !isValidWgmmaShape(inst) : !isValidMmaSyncShape(inst))
      return emitError() << "invalid " << stringifyMathInst(math)
                         << " instruction shape ["
                         << llvm::make_range(inst.begin(), inst.end())
                         << "]; expected "
                         << (isWgmma ? "[64, N, K] with N a multiple of 8 up "
                                       "to 256 and K in {8, 16, 32}"
                                     : "[16, 8, K] with K in {4, 8, 16}");
    if (warp[0] % inst[0] != 0 || warp[1] % inst[1] != 0)
      return emitError() << "instruction shape " << inst[0] << "x" << inst[1]
                         << " does not divide warp tile " << warp[0] << "x"
                         << warp[1];
    if (block[2] % inst[2] != 0)
      return emitError() << "instruction K " << inst[2]
                         << " does not divide block K " << block[2];
    if (isWgmma) {
      // One warpgroup (4 warps) per warp tile, plus optionally one producer
      // warpgroup that only moves data (warp specialization).
      expectedThreads = 128 * warpsM * warpsN;
      if (threads != expectedThreads && threads != expectedThreads + 128)
        return emitError() << "wgmma with " << warpsM * warpsN
                           << " warpgroup tiles needs " << expectedThreads
                           << " threads (or " << expectedThreads + 128
                           << " with a producer warpgroup), got " << threads;
      return success();
    }
    break;
  }
  }
  if (threads != expectedThreads)
    return emitError() << "warp layout " << warpsM << "x" << warpsN << " needs "
                       << expectedThreads << " threads, got " << threads;
  return success();
}

int64_t GemmConfigAttr::getNumComputeWarps() const {
  int64_t tiles = (getBlockM() / getWarpM()) * (getBlockN() / getWarpN());
  return getMath() == MathInst::wgmma ? 4 * tiles : tiles;
}

StringRef GemmConfigAttr::getProblemFamily() const { return "gemm"; }

int64_t GemmConfigAttr::getThreadsPerBlock() const { return getThreads(); }

LogicalResult GemmConfigAttr::verifyForProblem(
    Operation *problem, function_ref<InFlightDiagnostic()> emitError) const {
  auto matmul = dyn_cast<MatmulOp>(problem);
  if (!matmul)
    return emitError() << "#amk.gemm_config cannot compute '"
                       << problem->getName() << "'";
  Type input = matmul.getInputElementType();
  unsigned inputBits = input.getIntOrFloatBitWidth();
  if (getVector() * inputBits > 128)
    return emitError() << "vector width " << getVector() << " of " << input
                       << " exceeds a 16-byte access";
  if (getMath() == MathInst::simt)
    return success();

  int64_t instK = getInst()[2];
  bool isWgmma = getMath() == MathInst::wgmma;
  if (input.isF32()) {
    if (!matmul.isTF32())
      return emitError() << stringifyMathInst(getMath())
                         << " needs f16/bf16 inputs or f32 with "
                            "#amk.precision<tf32>; use simt for exact f32";
    if (isWgmma ? instK != 8 : (instK != 4 && instK != 8))
      return emitError() << "tf32 " << stringifyMathInst(getMath())
                         << " has no K = " << instK << " instruction";
    return success();
  }
  if (isWgmma ? instK != 16 : (instK != 8 && instK != 16))
    return emitError() << input << " " << stringifyMathInst(getMath())
                       << " has no K = " << instK << " instruction";
  return success();
}

//===----------------------------------------------------------------------===//
// CandidateAttr
//===----------------------------------------------------------------------===//

LogicalResult
CandidateAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      KernelConfigAttrInterface config, int64_t predictedNs) {
  if (!config)
    return emitError() << "a candidate needs a kernel config";
  if (predictedNs < 0)
    return emitError() << "predicted time must be non-negative, got "
                       << predictedNs;
  return success();
}
