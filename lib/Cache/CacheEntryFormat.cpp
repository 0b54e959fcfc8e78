//===- CacheEntryFormat.cpp - A compile cache entry's bytes ---------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// One file per entry, `<key>.amkc`:
//
//   offset  0  magic "AMKCACHE"
//           8  format version (u32), 12  section count (u32)
//          16  xxh3-128 checksum of bytes 32..end (low, high: u64 each)
//          32  section sizes (u64 each): key, verdict, manifest, PTX, cubin
//          72  the sections, back to back
//
// All integers little-endian. The checksum covers the sizes too, so no flip
// of any byte after the magic goes unnoticed; the key inside guards against
// a file that was renamed or copied to the wrong name.
//
//===----------------------------------------------------------------------===//

#include "CacheFiles.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <cstring>

using namespace llvm;
using namespace mlir::amk;
using namespace mlir::amk::cache;
namespace endian = llvm::support::endian;

namespace {
constexpr char kMagic[] = "AMKCACHE";
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kSections = 5; // key, verdict, manifest, PTX, cubin
constexpr size_t kChecksumOffset = 16;
constexpr size_t kSizesOffset = 32;
constexpr size_t kHeaderSize = kSizesOffset + 8 * kSections;
} // namespace

static XXH128_hash_t checksum(StringRef blob) {
  return xxh3_128bits(arrayRefFromStringRef(blob.drop_front(kSizesOffset)));
}

std::string mlir::amk::cache::encodeEntry(StringRef key,
                                          const CacheEntry &entry) {
  StringRef sections[kSections] = {key, entry.verdict, entry.manifest,
                                   entry.ptx, entry.cubin};
  size_t total = kHeaderSize;
  for (StringRef s : sections)
    total += s.size();
  std::string blob(total, '\0');
  char *p = blob.data();
  std::memcpy(p, kMagic, 8);
  endian::write32le(p + 8, kFormatVersion);
  endian::write32le(p + 12, kSections);
  size_t offset = kHeaderSize;
  for (size_t i = 0; i < kSections; ++i) {
    endian::write64le(p + kSizesOffset + 8 * i, sections[i].size());
    if (!sections[i].empty())
      std::memcpy(p + offset, sections[i].data(), sections[i].size());
    offset += sections[i].size();
  }
  XXH128_hash_t sum = checksum(blob);
  endian::write64le(p + kChecksumOffset, sum.low64);
  endian::write64le(p + kChecksumOffset + 8, sum.high64);
  return blob;
}

/// The entry in `buffer`, or why it is corrupt.
static Expected<CacheEntry> decodeEntry(std::unique_ptr<MemoryBuffer> buffer,
                                        StringRef key) {
  StringRef blob = buffer->getBuffer();
  const char *p = blob.data();
  if (blob.size() < kHeaderSize)
    return cacheError("truncated: " + Twine(blob.size()) +
                      " bytes, shorter than the header");
  if (blob.take_front(8) != StringRef(kMagic, 8))
    return cacheError("not a cache entry (bad magic)");
  if (uint32_t version = endian::read32le(p + 8); version != kFormatVersion)
    return cacheError("format version " + Twine(version) + ", expected " +
                      Twine(kFormatVersion));
  if (endian::read32le(p + 12) != kSections)
    return cacheError("bad section count");
  uint64_t sizes[kSections];
  uint64_t total = kHeaderSize;
  for (size_t i = 0; i < kSections; ++i) {
    sizes[i] = endian::read64le(p + kSizesOffset + 8 * i);
    // No real section comes near 1 TiB; bounded, the sum cannot overflow.
    if (sizes[i] > (uint64_t(1) << 40))
      return cacheError("bad section size " + Twine(sizes[i]));
    total += sizes[i];
  }
  if (total > blob.size())
    return cacheError("truncated: " + Twine(blob.size()) + " of " +
                      Twine(total) + " bytes");
  if (total < blob.size())
    return cacheError(Twine(blob.size() - total) +
                      " bytes past the last section");
  XXH128_hash_t sum = checksum(blob);
  if (sum.low64 != endian::read64le(p + kChecksumOffset) ||
      sum.high64 != endian::read64le(p + kChecksumOffset + 8))
    return cacheError("checksum mismatch");
  StringRef sections[kSections];
  size_t offset = kHeaderSize;
  for (size_t i = 0; i < kSections; ++i) {
    sections[i] = blob.substr(offset, sizes[i]);
    offset += sizes[i];
  }
  if (sections[0] != key)
    return cacheError("holds the entry of key '" + sections[0] + "'");
  CacheEntry entry;
  entry.verdict = sections[1];
  entry.manifest = sections[2];
  entry.ptx = sections[3];
  entry.cubin = sections[4];
  entry.storage = std::move(buffer);
  return entry;
}

Expected<CacheEntry> mlir::amk::cache::readEntry(int fd, StringRef path,
                                                 StringRef key) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getOpenFile(fd, path, /*FileSize=*/-1,
                                /*RequiresNullTerminator=*/false,
                                /*IsVolatile=*/true);
  if (!buffer)
    return createStringError(buffer.getError(),
                             "cannot read '" + path +
                                 "': " + buffer.getError().message());
  return decodeEntry(std::move(*buffer), key);
}
