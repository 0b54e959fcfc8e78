//===- CacheMaintenance.cpp - Listing, verifying and pruning the cache ----===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// What amk-cache and the stores ask of the directory as a whole: its
// entries least recently used first, their statistics, a verify of every
// entry, the LRU prune and a clear.
//
// LLVM's CachePruning is not used: it only touches `llvmcache-*` files,
// reports nothing about what it removed, and speaks of ThinLTO in its
// warnings. The LRU pruning below is a sort of one directory listing.
//
//===----------------------------------------------------------------------===//

#include "CacheFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <tuple>

using namespace llvm;
using namespace mlir::amk;
using namespace mlir::amk::cache;

/// A temporary file this old belongs to a killed process, not a store.
static constexpr std::chrono::hours kAbandonedAfter(1);

//===----------------------------------------------------------------------===//
// The directory
//===----------------------------------------------------------------------===//

namespace {
struct Listing {
  std::vector<CacheEntryInfo> entries; // least recently used first
  std::vector<std::pair<std::string, sys::TimePoint<>>> temps;
  /// Entry names that are not regular files (directories, links, ...):
  /// never used, never removed, reported by verify.
  std::vector<CacheProblem> foreign;
};
} // namespace

static StringRef describeFileType(sys::fs::file_type type) {
  switch (type) {
  case sys::fs::file_type::directory_file:
    return "a directory, not a cache entry (remove it)";
  case sys::fs::file_type::symlink_file:
    return "a symbolic link, not a cache entry (the cache never follows "
           "links)";
  default:
    return "not a regular file, so not a cache entry (remove it)";
  }
}

/// The cache's files in `dir`: entries and temporary files; anything else
/// is not the cache's and is never touched. Links are not followed.
static Expected<Listing> scan(StringRef dir) {
  Listing listing;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec, /*follow_symlinks=*/false), end;
       it != end && !ec; it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    bool temp = name.starts_with(kTempPrefix);
    StringRef key = name;
    if (!temp &&
        !(key.consume_back(kEntrySuffix) && CompileCache::isValidKey(key)))
      continue;
    // Gone since the listing (a concurrent prune): not there.
    ErrorOr<sys::fs::basic_file_status> status = it->status();
    if (!status)
      continue;
    if (status->type() != sys::fs::file_type::regular_file) {
      if (!temp)
        listing.foreign.push_back(
            {key.str(), describeFileType(status->type()).str()});
      continue;
    }
    if (temp) {
      listing.temps.emplace_back(it->path(), status->getLastModificationTime());
      continue;
    }
    listing.entries.push_back(
        {key.str(), status->getSize(), status->getLastModificationTime()});
  }
  if (ec)
    return createStringError(ec, "cannot read the compile cache '" + dir +
                                     "': " + ec.message());
  llvm::sort(listing.entries,
             [](const CacheEntryInfo &a, const CacheEntryInfo &b) {
               return std::tie(a.lastUse, a.key) < std::tie(b.lastUse, b.key);
             });
  return listing;
}

//===----------------------------------------------------------------------===//
// Maintenance
//===----------------------------------------------------------------------===//

Expected<std::vector<CacheEntryInfo>> CompileCache::list() const {
  Expected<Listing> listing = scan(dir);
  if (!listing)
    return listing.takeError();
  return std::move(listing->entries);
}

Expected<CacheStats> CompileCache::stats() const {
  Expected<Listing> listing = scan(dir);
  if (!listing)
    return listing.takeError();
  CacheStats stats;
  stats.entries = listing->entries.size();
  for (const CacheEntryInfo &e : listing->entries)
    stats.bytes += e.bytes;
  stats.tempFiles = listing->temps.size();
  stats.counters = readCounters();
  return stats;
}

Expected<CacheVerifyResult> CompileCache::verify() const {
  Expected<Listing> listing = scan(dir);
  if (!listing)
    return listing.takeError();
  CacheVerifyResult result;
  for (const CacheEntryInfo &e : listing->entries) {
    Expected<CacheEntry> entry = read(e.key);
    if (entry) {
      ++result.checked;
      continue;
    }
    std::string reason;
    std::error_code ec;
    handleAllErrors(entry.takeError(), [&](const ErrorInfoBase &error) {
      reason = error.message();
      ec = error.convertToErrorCode();
    });
    // Pruned or replaced since the listing: nothing to check.
    if (ec == errc::no_such_file_or_directory)
      continue;
    ++result.checked;
    result.corrupt.push_back({e.key, std::move(reason)});
  }
  for (CacheProblem &p : listing->foreign) {
    ++result.checked;
    result.corrupt.push_back(std::move(p));
  }
  return result;
}

Expected<CachePruneResult> CompileCache::prune(uint64_t maxBytes) {
  Expected<Listing> listing = scan(dir);
  if (!listing)
    return listing.takeError();
  uint64_t total = 0;
  for (const CacheEntryInfo &e : listing->entries)
    total += e.bytes;
  CachePruneResult result;
  for (const CacheEntryInfo &e : listing->entries) {
    if (total <= maxBytes) {
      ++result.keptEntries;
      result.keptBytes += e.bytes;
      continue;
    }
    // Another process may prune the same entry: gone either way, but not
    // this call's doing. One that cannot go (read-only) still takes space.
    std::error_code ec = sys::fs::remove(getEntryPath(e.key));
    if (ec && ec != errc::no_such_file_or_directory) {
      ++result.failedEntries;
      result.failedBytes += e.bytes;
      if (result.failure.empty())
        result.failure =
            "cannot remove '" + getEntryPath(e.key) + "': " + ec.message();
      continue;
    }
    total -= e.bytes;
    if (!ec) {
      ++result.removedEntries;
      result.removedBytes += e.bytes;
    }
  }
  sys::TimePoint<> abandoned = now() - kAbandonedAfter;
  for (const auto &[path, time] : listing->temps)
    if (time < abandoned)
      (void)sys::fs::remove(path);
  return result;
}

Expected<uint64_t> CompileCache::clear() {
  Expected<Listing> listing = scan(dir);
  if (!listing)
    return listing.takeError();
  auto remove = [&](StringRef path) -> Error {
    std::error_code ec = sys::fs::remove(path);
    if (ec && ec != errc::no_such_file_or_directory)
      return createStringError(ec,
                               "cannot remove '" + path + "': " + ec.message());
    return Error::success();
  };
  for (const CacheEntryInfo &e : listing->entries)
    if (Error error = remove(getEntryPath(e.key)))
      return std::move(error);
  for (const auto &temp : listing->temps)
    if (Error error = remove(temp.first))
      return std::move(error);
  SmallString<128> counters(dir);
  sys::path::append(counters, kCountersName);
  if (Error error = remove(counters))
    return std::move(error);
  return listing->entries.size();
}
