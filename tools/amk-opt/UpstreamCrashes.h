//===- UpstreamCrashes.h - Inputs that crash MLIR's own parsers -*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Text that crashes the parsers of the MLIR AMK builds against (22.1.8),
// before any AMK code runs (fuzz/findings/README.md). amk-opt refuses such
// input with a diagnostic instead of crashing; the amk-fuzz target skips it
// so that a run goes on to find AMK's own bugs.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TOOLS_AMK_OPT_UPSTREAMCRASHES_H
#define AMK_TOOLS_AMK_OPT_UPSTREAMCRASHES_H

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace mlir::amk::tools {

/// A known upstream crash in the text: what it is, and its issue.
struct UpstreamCrash {
  llvm::StringRef what;
  llvm::StringRef issue;
};

inline std::optional<UpstreamCrash> findUpstreamCrash(llvm::StringRef text) {
  auto skipSpace = [](llvm::StringRef s) { return s.ltrim(" \t\r\n"); };
  // `array<index: ...>`: the dense array parser asks an index type its bit
  // width.
  for (size_t at = text.find("array"); at != llvm::StringRef::npos;
       at = text.find("array", at + 1)) {
    llvm::StringRef rest = skipSpace(text.substr(at + 5));
    if (rest.consume_front("<") && skipSpace(rest).starts_with("index"))
      return UpstreamCrash{"a dense array of index elements (`array<index: "
                           "...>`; use i32 or i64)",
                           "llvm/llvm-project#179045"};
  }
  // `dimensions = ` not followed by a list of integers: a linalg op's
  // parser stores the attribute it failed to parse.
  for (size_t at = text.find("dimensions"); at != llvm::StringRef::npos;
       at = text.find("dimensions", at + 1)) {
    llvm::StringRef rest = skipSpace(text.substr(at + 10));
    if (!rest.consume_front("="))
      continue;
    rest = skipSpace(rest);
    size_t close = rest.find(']');
    if (!rest.consume_front("[") || close == llvm::StringRef::npos ||
        rest.take_front(close - 1).find_first_not_of("0123456789, \t\r\n-") !=
            llvm::StringRef::npos)
      return UpstreamCrash{"`dimensions = ` not followed by a list of integers",
                           "llvm/llvm-project#132747"};
  }
  return std::nullopt;
}

} // namespace mlir::amk::tools

#endif // AMK_TOOLS_AMK_OPT_UPSTREAMCRASHES_H
