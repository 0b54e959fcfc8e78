//===- CompileCacheTest.cpp - The on-disk compile cache -------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Cache/CompileCache.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mlir::amk;
namespace fs = llvm::sys::fs;

namespace {

/// A fresh directory, removed with everything in it at the end.
class CacheDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    // As root, under /tmp itself: the unprivileged child of the read-only
    // test must reach it ($TMPDIR may be private, as lit's is).
    ASSERT_FALSE(fs::createUniqueDirectory(
        geteuid() == 0 ? "/tmp/amk-cache-test" : "amk-cache-test", root));
    dir = root;
    llvm::sys::path::append(dir, "cache");
  }
  void TearDown() override {
    fs::setPermissions(dir, fs::all_all);
    fs::remove_directories(root);
  }

  CompileCache open(CacheOptions options = {}) {
    llvm::Expected<CompileCache> cache = CompileCache::open(dir, options);
    EXPECT_TRUE(bool(cache)) << llvm::toString(cache.takeError());
    return std::move(*cache);
  }

  std::string path(llvm::StringRef key) const {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, key + ".amkc");
    return std::string(p);
  }

  llvm::SmallString<128> root, dir;
};

std::string keyOf(llvm::StringRef text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

/// The kernel a key stands for: contents that tell keys apart, `scale`
/// bytes of cubin.
struct Kernel {
  std::string cubin, ptx, manifest, verdict;
  Kernel(llvm::StringRef key, size_t scale = 4096) {
    for (size_t i = 0; cubin.size() < scale; ++i)
      cubin += (key + ":" + llvm::Twine(i) + ";").str();
    ptx = ".version 8.0\n// " + key.str() + "\n" + std::string(scale / 2, 'p');
    manifest = "{\"name\": \"" + key.str() + "\"}\n";
    verdict = "{\"status\":\"verified\"}";
  }
  CacheEntry entry() const {
    CacheEntry e;
    e.cubin = cubin;
    e.ptx = ptx;
    e.manifest = manifest;
    e.verdict = verdict;
    return e;
  }
  bool matches(const CacheEntry &e) const {
    return e.cubin == cubin && e.ptx == ptx && e.manifest == manifest &&
           e.verdict == verdict;
  }
};

void setLastUse(const std::string &path, std::chrono::seconds sinceEpoch) {
  int fd;
  ASSERT_FALSE(
      fs::openFileForWrite(path, fd, fs::CD_OpenExisting, fs::OF_Append));
  llvm::sys::TimePoint<> time{sinceEpoch};
  EXPECT_FALSE(fs::setLastAccessAndModificationTime(fd, time));
  fs::closeFile(fd);
}

/// Runs `check` (which returns an exit code) where file permissions hold:
/// as root (CI), in a child process that drops to nobody.
void expectUnprivileged(const std::function<int()> &check) {
  EXPECT_EXIT(
      {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
          std::_Exit(3);
        std::_Exit(check());
      },
      ::testing::ExitedWithCode(0), "");
}

//===----------------------------------------------------------------------===//

TEST_F(CacheDirTest, StoreThenLookup) {
  CompileCache cache = open();
  std::string key = keyOf("gemm");
  Kernel kernel(key);
  EXPECT_FALSE(cache.lookup(key));
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, kernel.entry())));
  std::optional<CacheEntry> hit = cache.lookup(key);
  ASSERT_TRUE(hit);
  EXPECT_TRUE(kernel.matches(*hit));

  llvm::Expected<CacheStats> stats = cache.stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->entries, 1u);
  EXPECT_EQ(stats->bytes, hit->storage->getBufferSize());
  EXPECT_EQ(stats->counters.hits, 1u);
  EXPECT_EQ(stats->counters.misses, 1u);
  EXPECT_EQ(stats->counters.stores, 1u);
  EXPECT_EQ(stats->counters.corrupt, 0u);
}

TEST_F(CacheDirTest, StoreReplacesAndEmptySectionsRoundTrip) {
  CompileCache cache = open();
  std::string key = keyOf("k");
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, Kernel("old").entry())));
  CacheEntry empty;
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, empty)));
  std::optional<CacheEntry> hit = cache.lookup(key);
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->cubin.empty() && hit->ptx.empty() && hit->manifest.empty() &&
              hit->verdict.empty());
}

TEST_F(CacheDirTest, MissAndInvalidKeys) {
  CompileCache cache = open();
  EXPECT_FALSE(cache.lookup(keyOf("absent")));
  for (llvm::StringRef bad : {"", "../escape", "a/b", "k.amkc", " "}) {
    EXPECT_FALSE(CompileCache::isValidKey(bad)) << bad.str();
    EXPECT_FALSE(cache.lookup(bad));
    llvm::Error error = cache.store(bad, Kernel("x").entry());
    ASSERT_TRUE(bool(error));
    EXPECT_NE(llvm::toString(std::move(error)).find("invalid"),
              std::string::npos);
  }
  EXPECT_FALSE(CompileCache::isValidKey(std::string(129, 'a')));
  EXPECT_TRUE(CompileCache::isValidKey(keyOf("x")));
}

TEST_F(CacheDirTest, EveryFlippedByteIsDetectedAndRebuilt) {
  CompileCache cache = open();
  std::string key = keyOf("flip");
  Kernel kernel(key, 256);
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, kernel.entry())));
  auto original = llvm::MemoryBuffer::getFile(path(key));
  ASSERT_TRUE(bool(original));
  std::string bytes = (*original)->getBuffer().str();
  // Every byte of this small entry, header and sections alike.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] ^= 0x10;
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(path(key), ec);
      ASSERT_FALSE(ec);
      os << damaged;
    }
    llvm::Expected<CacheEntry> read = cache.read(key);
    ASSERT_FALSE(bool(read)) << "flip at byte " << i << " not detected";
    llvm::consumeError(read.takeError());
    std::string why;
    EXPECT_FALSE(cache.lookup(key, &why));
    EXPECT_FALSE(why.empty());
    EXPECT_FALSE(fs::exists(path(key))) << "corrupt entry kept";
    // Rebuilt: stored again, it hits.
    ASSERT_FALSE(llvm::errorToBool(cache.store(key, kernel.entry())));
    std::optional<CacheEntry> hit = cache.lookup(key);
    ASSERT_TRUE(hit);
    EXPECT_TRUE(kernel.matches(*hit));
  }
  llvm::Expected<CacheStats> stats = cache.stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->counters.corrupt, bytes.size());
}

TEST_F(CacheDirTest, TruncatedEntriesAreDetected) {
  CompileCache cache = open();
  std::string key = keyOf("truncate");
  Kernel kernel(key);
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, kernel.entry())));
  uint64_t size;
  ASSERT_FALSE(fs::file_size(path(key), size));
  for (uint64_t length : {uint64_t(0), uint64_t(7), uint64_t(40), uint64_t(72),
                          size / 2, size - 1}) {
    ASSERT_FALSE(llvm::errorToBool(cache.store(key, kernel.entry())));
    ASSERT_EQ(::truncate(path(key).c_str(), length), 0);
    std::string why;
    EXPECT_FALSE(cache.lookup(key, &why)) << length;
    EXPECT_NE(why, "") << length;
    if (length >= 72)
      EXPECT_EQ(why, "truncated: " + std::to_string(length) + " of " +
                         std::to_string(size) + " bytes");
  }
  // Bytes appended are corruption too.
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, kernel.entry())));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path(key), ec, fs::OF_Append);
    os << "x";
  }
  std::string why;
  EXPECT_FALSE(cache.lookup(key, &why));
  EXPECT_EQ(why, "1 bytes past the last section");
}

TEST_F(CacheDirTest, AnEntryUnderAnotherKeyIsCorrupt) {
  CompileCache cache = open();
  std::string a = keyOf("a"), b = keyOf("b");
  ASSERT_FALSE(llvm::errorToBool(cache.store(a, Kernel(a).entry())));
  ASSERT_FALSE(fs::copy_file(path(a), path(b)));
  std::string why;
  EXPECT_FALSE(cache.lookup(b, &why));
  EXPECT_EQ(why, "holds the entry of key '" + a + "'");
  llvm::Expected<CacheVerifyResult> verified = cache.verify();
  ASSERT_TRUE(bool(verified));
  EXPECT_EQ(verified->checked, 1u);
  EXPECT_TRUE(verified->corrupt.empty());
}

TEST_F(CacheDirTest, VerifyReportsWithoutRemoving) {
  CompileCache cache = open();
  std::string good = keyOf("good"), bad = keyOf("bad");
  ASSERT_FALSE(llvm::errorToBool(cache.store(good, Kernel(good).entry())));
  ASSERT_FALSE(llvm::errorToBool(cache.store(bad, Kernel(bad).entry())));
  ASSERT_EQ(::truncate(path(bad).c_str(), 100), 0);
  llvm::Expected<CacheVerifyResult> verified = cache.verify();
  ASSERT_TRUE(bool(verified));
  EXPECT_EQ(verified->checked, 2u);
  ASSERT_EQ(verified->corrupt.size(), 1u);
  EXPECT_EQ(verified->corrupt[0].key, bad);
  EXPECT_TRUE(fs::exists(path(bad)));
}

TEST_F(CacheDirTest, PruneRemovesLeastRecentlyUsedFirst) {
  CompileCache cache = open();
  std::vector<std::string> keys = {keyOf("0"), keyOf("1"), keyOf("2"),
                                   keyOf("3")};
  uint64_t entryBytes = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_FALSE(llvm::errorToBool(cache.store(keys[i], Kernel("x").entry())));
    ASSERT_FALSE(fs::file_size(path(keys[i]), entryBytes));
    // Stored in order 0..3, a minute apart.
    setLastUse(path(keys[i]), std::chrono::seconds(1000000 + 60 * i));
  }
  // A hit makes 0 the most recently used.
  ASSERT_TRUE(cache.lookup(keys[0]));
  llvm::Expected<std::vector<CacheEntryInfo>> listed = cache.list();
  ASSERT_TRUE(bool(listed));
  ASSERT_EQ(listed->size(), 4u);
  EXPECT_EQ((*listed)[0].key, keys[1]);
  EXPECT_EQ((*listed)[3].key, keys[0]);

  llvm::Expected<CachePruneResult> pruned = cache.prune(2 * entryBytes);
  ASSERT_TRUE(bool(pruned));
  EXPECT_EQ(pruned->removedEntries, 2u);
  EXPECT_EQ(pruned->removedBytes, 2 * entryBytes);
  EXPECT_EQ(pruned->keptEntries, 2u);
  EXPECT_FALSE(fs::exists(path(keys[1])));
  EXPECT_FALSE(fs::exists(path(keys[2])));
  EXPECT_TRUE(fs::exists(path(keys[3])));
  EXPECT_TRUE(fs::exists(path(keys[0])));
}

TEST_F(CacheDirTest, StorePrunesToTheBound) {
  // Room for two entries: each store keeps the newest two.
  CompileCache probe = open();
  std::string first = keyOf("first");
  ASSERT_FALSE(llvm::errorToBool(probe.store(first, Kernel("x").entry())));
  uint64_t entryBytes;
  ASSERT_FALSE(fs::file_size(path(first), entryBytes));
  setLastUse(path(first), std::chrono::seconds(1000000));
  CacheOptions options;
  options.maxBytes = 2 * entryBytes;
  CompileCache cache = open(options);
  std::string second = keyOf("second"), third = keyOf("third");
  ASSERT_FALSE(llvm::errorToBool(cache.store(second, Kernel("x").entry())));
  setLastUse(path(second), std::chrono::seconds(2000000));
  ASSERT_FALSE(llvm::errorToBool(cache.store(third, Kernel("x").entry())));
  EXPECT_FALSE(fs::exists(path(first)));
  EXPECT_TRUE(fs::exists(path(second)));
  EXPECT_TRUE(fs::exists(path(third)));
}

TEST_F(CacheDirTest, ClearRemovesOnlyTheCachesFiles) {
  CompileCache cache = open();
  ASSERT_FALSE(llvm::errorToBool(cache.store(keyOf("a"), Kernel("a").entry())));
  ASSERT_FALSE(llvm::errorToBool(cache.store(keyOf("b"), Kernel("b").entry())));
  llvm::SmallString<128> mine(dir);
  llvm::sys::path::append(mine, "notes.txt");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(mine, ec);
  }
  llvm::Expected<uint64_t> removed = cache.clear();
  ASSERT_TRUE(bool(removed));
  EXPECT_EQ(*removed, 2u);
  EXPECT_TRUE(fs::exists(mine));
  llvm::Expected<CacheStats> stats = cache.stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->entries, 0u);
  EXPECT_EQ(stats->counters.stores, 0u);
}

TEST_F(CacheDirTest, OpenErrorsNameTheDirectory) {
  CacheOptions look;
  look.create = false;
  llvm::Expected<CompileCache> missing = CompileCache::open(dir, look);
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "no compile cache at '" + dir.str().str() + "'");

  llvm::SmallString<128> file(root);
  llvm::sys::path::append(file, "file");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
  }
  llvm::Expected<CompileCache> notDir = CompileCache::open(file);
  ASSERT_FALSE(bool(notDir));
  EXPECT_EQ(llvm::toString(notDir.takeError()),
            "compile cache '" + file.str().str() + "' is not a directory");

  llvm::SmallString<128> under(file);
  llvm::sys::path::append(under, "cache");
  llvm::Expected<CompileCache> blocked = CompileCache::open(under);
  ASSERT_FALSE(bool(blocked));
  EXPECT_NE(llvm::toString(blocked.takeError())
                .find("cannot use the compile cache directory"),
            std::string::npos);
}

TEST_F(CacheDirTest, ReadOnlyDirectoryReadsButDoesNotWrite) {
  std::string key = keyOf("ro");
  Kernel kernel(key);
  {
    CompileCache cache = open();
    ASSERT_FALSE(llvm::errorToBool(cache.store(key, kernel.entry())));
  }
  ASSERT_FALSE(
      fs::setPermissions(root, fs::all_read | fs::all_exe | fs::owner_write));
  ASSERT_FALSE(fs::setPermissions(dir, fs::all_read | fs::all_exe));
  expectUnprivileged([&] {
    llvm::Expected<CompileCache> cache = CompileCache::open(dir);
    if (!cache)
      return 10;
    std::optional<CacheEntry> hit = cache->lookup(key);
    if (!hit || !kernel.matches(*hit))
      return 11;
    llvm::Error error = cache->store(keyOf("new"), kernel.entry());
    if (!error)
      return 12;
    std::string message = llvm::toString(std::move(error));
    if (message.find("cannot write to the compile cache '" + dir.str().str() +
                     "'") == std::string::npos ||
        message.find("ermission denied") == std::string::npos)
      return 13;
    return 0;
  });
}

/// Prune in a directory it cannot write: it reports what it removed (none)
/// and what it could not, never "removed 6 entries".
TEST_F(CacheDirTest, PruneOnReadOnlyDirectoryReportsOnlyWhatItRemoved) {
  {
    CompileCache cache = open();
    for (int i = 0; i < 3; ++i) {
      std::string key = keyOf("ro" + std::to_string(i));
      ASSERT_FALSE(llvm::errorToBool(cache.store(key, Kernel(key).entry())));
    }
  }
  ASSERT_FALSE(
      fs::setPermissions(root, fs::all_read | fs::all_exe | fs::owner_write));
  ASSERT_FALSE(fs::setPermissions(dir, fs::all_read | fs::all_exe));
  expectUnprivileged([&] {
    llvm::Expected<CompileCache> cache = CompileCache::open(dir);
    if (!cache)
      return 10;
    llvm::Expected<CachePruneResult> pruned = cache->prune(1);
    if (!pruned)
      return 11;
    if (pruned->removedEntries != 0 || pruned->removedBytes != 0)
      return 12;
    if (pruned->failedEntries != 3 || pruned->failedBytes == 0)
      return 13;
    if (pruned->failure.find("ermission denied") == std::string::npos)
      return 14;
    llvm::Expected<CacheStats> stats = cache->stats();
    return stats && stats->entries == 3 ? 0 : 15;
  });
}

/// A symbolic link under the counters' or an entry's name is never read or
/// written through: the file it points to stays as it was.
TEST_F(CacheDirTest, LinksAreNeverFollowed) {
  CompileCache cache = open();
  llvm::SmallString<128> outside(root), counters(dir);
  llvm::sys::path::append(outside, "outside");
  llvm::sys::path::append(counters, "counters");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(outside, ec);
    ASSERT_FALSE(ec);
    os << "precious";
  }
  ASSERT_FALSE(fs::create_link(outside, counters));
  std::string key = keyOf("linked");
  Kernel kernel(key);
  EXPECT_FALSE(cache.lookup(key)); // counts a miss: not through the link
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, kernel.entry())));
  EXPECT_TRUE(cache.lookup(key));
  llvm::Expected<CacheStats> stats = cache.stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->counters.hits, 0u);

  // An entry that links to a valid entry elsewhere is not used.
  llvm::SmallString<128> copy(root);
  llvm::sys::path::append(copy, "copy.amkc");
  ASSERT_FALSE(fs::copy_file(path(key), copy));
  ASSERT_FALSE(fs::remove(path(key)));
  ASSERT_FALSE(fs::create_link(copy, path(key)));
  fs::file_status before;
  ASSERT_FALSE(fs::status(copy, before));
  std::string corruption;
  EXPECT_FALSE(cache.lookup(key, &corruption));
  EXPECT_NE(corruption.find("is a symbolic link, not a cache entry"),
            std::string::npos)
      << corruption;
  fs::file_status after;
  ASSERT_FALSE(fs::status(copy, after));
  EXPECT_EQ(before.getLastModificationTime(), after.getLastModificationTime())
      << "a hit through the link would have touched it";
  llvm::Expected<CacheEntry> read = cache.read(key);
  ASSERT_FALSE(bool(read));
  EXPECT_NE(llvm::toString(read.takeError()).find("symbolic link"),
            std::string::npos);
  llvm::Expected<CacheVerifyResult> verified = cache.verify();
  ASSERT_TRUE(bool(verified));
  ASSERT_EQ(verified->corrupt.size(), 1u);
  EXPECT_EQ(verified->corrupt[0].key, key);
  // Storing replaces the link itself, not what it points to.
  ASSERT_FALSE(llvm::errorToBool(cache.store(key, kernel.entry())));
  EXPECT_TRUE(cache.lookup(key));
  ASSERT_FALSE(fs::status(copy, after));
  EXPECT_EQ(before.getLastModificationTime(), after.getLastModificationTime());

  auto contents = llvm::MemoryBuffer::getFile(outside);
  ASSERT_TRUE(bool(contents));
  EXPECT_EQ((*contents)->getBuffer(), "precious");
}

/// A directory under an entry's name is reported (verify, lookup, store),
/// not a silent permanent miss; nothing removes it.
TEST_F(CacheDirTest, ADirectoryUnderAnEntrysNameIsReported) {
  CompileCache cache = open();
  std::string key = keyOf("dir");
  ASSERT_FALSE(fs::create_directory(path(key)));
  std::string corruption;
  EXPECT_FALSE(cache.lookup(key, &corruption));
  EXPECT_NE(corruption.find("is a directory, not a cache entry"),
            std::string::npos)
      << corruption;
  llvm::Error error = cache.store(key, Kernel(key).entry());
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error))
                .find("is a directory, not a cache entry: remove it"),
            std::string::npos);
  llvm::Expected<CacheVerifyResult> verified = cache.verify();
  ASSERT_TRUE(bool(verified));
  EXPECT_EQ(verified->checked, 1u);
  ASSERT_EQ(verified->corrupt.size(), 1u);
  EXPECT_EQ(verified->corrupt[0].key, key);
  EXPECT_NE(verified->corrupt[0].reason.find("a directory"), std::string::npos);
  llvm::Expected<CacheStats> stats = cache.stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->counters.corrupt, 1u);
  EXPECT_TRUE(fs::is_directory(path(key)));
}

/// A FIFO under an entry's or the counters' name cannot hang a lookup.
TEST_F(CacheDirTest, AFifoDoesNotHang) {
  CompileCache cache = open();
  std::string key = keyOf("fifo");
  ASSERT_EQ(::mkfifo(path(key).c_str(), 0666), 0);
  llvm::SmallString<128> counters(dir);
  llvm::sys::path::append(counters, "counters");
  ASSERT_EQ(::mkfifo(counters.c_str(), 0666), 0);
  std::string corruption;
  EXPECT_FALSE(cache.lookup(key, &corruption));
  EXPECT_NE(corruption.find("not a regular file"), std::string::npos)
      << corruption;
  llvm::Expected<CacheStats> stats = cache.stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->counters.misses, 0u); // the FIFO is not the counters
}

/// A store under a file size limit, which stands in for a full disk: writes
/// past it fail (EFBIG, as ENOSPC would). The exit code says what went wrong.
int storeOnFullDisk(CompileCache &cache, const std::string &key,
                    const Kernel &kernel) {
  std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit;
  limit.rlim_cur = limit.rlim_max = 64 * 1024;
  if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
    return 3;
  llvm::Error error = cache.store(key, kernel.entry());
  if (!error)
    return 4;
  std::string message = llvm::toString(std::move(error));
  if (message.find("cannot write to the compile cache") == std::string::npos)
    return 5;
  // Nothing left behind, nothing found.
  llvm::Expected<CacheStats> stats = cache.stats();
  if (!stats || stats->entries != 0 || stats->tempFiles != 0)
    return 6;
  return cache.lookup(key) ? 7 : 0;
}

TEST_F(CacheDirTest, FullDiskFailsTheStoreCleanly) {
  CompileCache cache = open();
  std::string key = keyOf("big");
  Kernel kernel(key, 1 << 20);
  EXPECT_EXIT(std::_Exit(storeOnFullDisk(cache, key, kernel)),
              ::testing::ExitedWithCode(0), "");
}

TEST_F(CacheDirTest, ConcurrentThreadsOnSameAndDifferentKeys) {
  CompileCache cache = open();
  std::vector<std::string> keys;
  std::vector<Kernel> kernels;
  for (int i = 0; i < 4; ++i) {
    keys.push_back(keyOf("kernel" + std::to_string(i)));
    kernels.emplace_back(keys.back(), 16384 * (i + 1));
  }
  constexpr int kThreads = 8, kRounds = 40;
  std::atomic<int> wrong{0}, storeErrors{0}, lookups{0}, stores{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Each thread its own handle, as each process has.
      CompileCache mine = cache;
      for (int r = 0; r < kRounds; ++r) {
        size_t k = (t + r) % keys.size();
        std::optional<CacheEntry> hit = mine.lookup(keys[k]);
        ++lookups;
        if (hit && !kernels[k].matches(*hit))
          ++wrong;
        // Stores race with the other threads' lookups and stores.
        if (!hit || r % 3 == 0) {
          if (llvm::Error error = mine.store(keys[k], kernels[k].entry())) {
            llvm::consumeError(std::move(error));
            ++storeErrors;
          }
          ++stores;
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(storeErrors, 0);
  llvm::Expected<CacheVerifyResult> verified = cache.verify();
  ASSERT_TRUE(bool(verified));
  EXPECT_EQ(verified->checked, keys.size());
  EXPECT_TRUE(verified->corrupt.empty());
  llvm::Expected<CacheStats> stats = cache.stats();
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->tempFiles, 0u);
  EXPECT_EQ(stats->counters.hits + stats->counters.misses, uint64_t(lookups));
  EXPECT_EQ(stats->counters.stores, uint64_t(stores));
  EXPECT_EQ(stats->counters.corrupt, 0u);
}

TEST(CompileCacheSize, Parse) {
  EXPECT_EQ(CompileCache::parseSize("0"), 0u);
  EXPECT_EQ(CompileCache::parseSize("1048576"), 1048576u);
  EXPECT_EQ(CompileCache::parseSize("500K"), 500u << 10);
  EXPECT_EQ(CompileCache::parseSize("64m"), 64u << 20);
  EXPECT_EQ(CompileCache::parseSize("2G"), uint64_t(2) << 30);
  EXPECT_EQ(CompileCache::parseSize("1T"), uint64_t(1) << 40);
  for (const char *bad : {"", "G", "-1", "1.5G", "12Q", "1GB", "99999999999T"})
    EXPECT_FALSE(CompileCache::parseSize(bad)) << bad;
}

TEST(CompileCacheDefault, EnvironmentThenXDG) {
  std::optional<std::string> saved =
      llvm::sys::Process::GetEnv("AMK_CACHE_DIR");
  std::optional<std::string> xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
  auto restore = llvm::scope_exit([&] {
    saved ? setenv("AMK_CACHE_DIR", saved->c_str(), 1)
          : unsetenv("AMK_CACHE_DIR");
    xdg ? setenv("XDG_CACHE_HOME", xdg->c_str(), 1)
        : unsetenv("XDG_CACHE_HOME");
  });
  setenv("AMK_CACHE_DIR", "/some/where", 1);
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(CompileCache::getDefaultDirectory(), "/some/where");
  unsetenv("AMK_CACHE_DIR");
  EXPECT_EQ(CompileCache::getDefaultDirectory(), "/xdg/amk");
}

/// Empty variables are unset, and a relative XDG_CACHE_HOME or HOME is
/// ignored: the cache never becomes `./amk` of whatever directory.
TEST(CompileCacheDefault, EmptyOrRelativeVariablesAreUnset) {
  std::optional<std::string> saved[3] = {
      llvm::sys::Process::GetEnv("AMK_CACHE_DIR"),
      llvm::sys::Process::GetEnv("XDG_CACHE_HOME"),
      llvm::sys::Process::GetEnv("HOME")};
  const char *names[3] = {"AMK_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
  auto restore = llvm::scope_exit([&] {
    for (int i = 0; i < 3; ++i)
      saved[i] ? setenv(names[i], saved[i]->c_str(), 1) : unsetenv(names[i]);
  });
  setenv("HOME", "/home/someone", 1);
  for (const char *xdg : {"", "relative/cache"}) {
    setenv("AMK_CACHE_DIR", "", 1);
    setenv("XDG_CACHE_HOME", xdg, 1);
    EXPECT_EQ(CompileCache::getDefaultDirectory(), "/home/someone/.cache/amk")
        << "XDG_CACHE_HOME='" << xdg << "'";
  }
  // HOME empty too: the password database's home, absolute, or none.
  setenv("HOME", "", 1);
  std::string dir = CompileCache::getDefaultDirectory();
  EXPECT_TRUE(dir.empty() || llvm::sys::path::is_absolute(dir)) << dir;
  setenv("HOME", "relative", 1);
  dir = CompileCache::getDefaultDirectory();
  EXPECT_TRUE(dir.empty() || llvm::sys::path::is_absolute(dir)) << dir;
}

/// Hit and miss times of the cache itself (the pass adds its key and IR on
/// top: docs/PERF_LOG.md), for an entry the size of a large kernel's.
TEST_F(CacheDirTest, HitTime) {
  CompileCache cache = open();
  std::string key = keyOf("timed");
  Kernel kernel(key, 256 * 1024); // 256 KiB cubin + 128 KiB PTX
  using Clock = std::chrono::steady_clock;
  auto micros = [](Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count();
  };
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::vector<double> storeTimes, hitTimes, missTimes;
  for (int i = 0; i < 50; ++i) {
    Clock::time_point start = Clock::now();
    ASSERT_FALSE(llvm::errorToBool(cache.store(key, kernel.entry())));
    storeTimes.push_back(micros(Clock::now() - start));
  }
  for (int i = 0; i < 500; ++i) {
    Clock::time_point start = Clock::now();
    std::optional<CacheEntry> hit = cache.lookup(key);
    hitTimes.push_back(micros(Clock::now() - start));
    ASSERT_TRUE(hit);
    start = Clock::now();
    EXPECT_FALSE(cache.lookup(keyOf("absent")));
    missTimes.push_back(micros(Clock::now() - start));
  }
  double hit = median(hitTimes);
  std::printf("[ TIMING   ] 384 KiB entry: hit %.1f us, miss %.1f us, store "
              "%.1f us (medians)\n",
              hit, median(missTimes), median(storeTimes));
  EXPECT_LT(hit, 1000.0);
}

} // namespace
