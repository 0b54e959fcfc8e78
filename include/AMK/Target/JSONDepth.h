//===- JSONDepth.h - Bounding the nesting of JSON input ---------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// llvm::json::parse recurses once per nested array or object, so a hostile
// file of "[[[[..." overflows the stack. Every loader of JSON that AMK did
// not write itself (target files, tuning databases) first checks the nesting
// with this cheap scan, which never recurses. LLVMSupport only.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TARGET_JSONDEPTH_H
#define AMK_TARGET_JSONDEPTH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstddef>
#include <optional>
#include <string>

namespace mlir::amk {

/// Deeper than any JSON AMK reads (targets: 2 levels, tuning records: 4).
constexpr unsigned kMaxJSONDepth = 256;

/// Where a text first nests deeper than allowed (1-based).
struct JSONNestingError {
  size_t line = 0, column = 0;
  unsigned maxDepth = kMaxJSONDepth;
  /// "nested deeper than 256 levels at line 1, column 257".
  std::string message() const;
};

/// The first bracket (`[` or `{` outside strings) that opens level
/// `maxDepth + 1`, or std::nullopt when `text` stays within `maxDepth`.
/// Malformed text is left for the parser to reject.
std::optional<JSONNestingError>
findExcessiveJSONNesting(llvm::StringRef text,
                         unsigned maxDepth = kMaxJSONDepth);

/// llvm::json::parse of `text` after the depth check: the one way AMK
/// parses JSON (its parser recurses per level, so text nested too deep is
/// an error here, not a stack overflow there).
llvm::Expected<llvm::json::Value> parseJSON(llvm::StringRef text);

} // namespace mlir::amk

#endif // AMK_TARGET_JSONDEPTH_H
