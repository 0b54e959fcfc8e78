//===- JSONDepth.cpp - Bounding the nesting of JSON input -----------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Target/JSONDepth.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir::amk;

llvm::Expected<llvm::json::Value> mlir::amk::parseJSON(llvm::StringRef text) {
  if (std::optional<JSONNestingError> deep = findExcessiveJSONNesting(text))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   deep->message());
  return llvm::json::parse(text);
}

std::string JSONNestingError::message() const {
  return llvm::formatv("nested deeper than {0} levels at line {1}, column {2}",
                       maxDepth, line, column)
      .str();
}

std::optional<JSONNestingError>
mlir::amk::findExcessiveJSONNesting(llvm::StringRef text, unsigned maxDepth) {
  size_t depth = 0, line = 1, column = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
    case '"':
      inString = true;
      break;
    case '[':
    case '{':
      if (++depth > maxDepth)
        return JSONNestingError{line, column, maxDepth};
      break;
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}
