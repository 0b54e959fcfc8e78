//===- CacheFiles.h - What the compile cache's files share ------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The parts of the compile cache: the names of its files, its errors and
// clock, and the entry format (CacheEntryFormat.cpp), shared by the lookups,
// stores and counters (CompileCache.cpp) and the maintenance that lists,
// verifies, prunes and clears the directory (CacheMaintenance.cpp). Internal
// to the cache.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_CACHE_CACHEFILES_H
#define AMK_LIB_CACHE_CACHEFILES_H

#include "AMK/Cache/CompileCache.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <string>

namespace mlir::amk::cache {

inline constexpr llvm::StringLiteral kEntrySuffix = ".amkc";
inline constexpr llvm::StringLiteral kTempPrefix = ".tmp-";
inline constexpr llvm::StringLiteral kCountersName = "counters";

inline llvm::Error cacheError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

inline llvm::sys::TimePoint<> now() {
  return std::chrono::time_point_cast<std::chrono::nanoseconds>(
      std::chrono::system_clock::now());
}

/// The entry file's bytes for `entry` under `key`.
std::string encodeEntry(llvm::StringRef key, const CacheEntry &entry);

/// Reads an entry file from `fd`: copied, not mapped, so a file truncated
/// underneath cannot fault the reader.
llvm::Expected<CacheEntry> readEntry(int fd, llvm::StringRef path,
                                     llvm::StringRef key);

} // namespace mlir::amk::cache

#endif // AMK_LIB_CACHE_CACHEFILES_H
