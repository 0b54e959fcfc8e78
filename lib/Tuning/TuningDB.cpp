//===- TuningDB.cpp - Measured configs, repairs and calibrations ----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The database's appends and queries: the measurements of a problem, its
// neighbours by log distance, the repairs and the calibration of a target,
// and the rank correlation calibrations report. Records are read and
// written in TuningRecord.cpp, loaded and validated in TuningDBLoad.cpp.
//
//===----------------------------------------------------------------------===//

#include "AMK/Tuning/TuningDB.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir::amk;

llvm::Error TuningDB::append(llvm::StringRef path,
                             llvm::ArrayRef<TuningRecord> newRecords) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const TuningRecord &r : newRecords)
    os << r.toJSON() << "\n";
  int fd;
  if (std::error_code ec = llvm::sys::fs::openFileForWrite(
          path, fd, llvm::sys::fs::CD_OpenAlways, llvm::sys::fs::OF_Append))
    return llvm::createStringError(ec, "cannot open tuning database '" + path +
                                           "' for writing: " + ec.message());
  llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
  if (std::error_code ec = llvm::sys::fs::lockFile(fd))
    return llvm::createStringError(ec, "cannot lock tuning database '" + path +
                                           "': " + ec.message());
  out << text;
  out.flush();
  (void)llvm::sys::fs::unlockFile(fd);
  if (out.has_error()) {
    std::error_code ec = out.error();
    out.clear_error();
    return llvm::createStringError(ec, "cannot write tuning database '" + path +
                                           "': " + ec.message());
  }
  for (const TuningRecord &r : newRecords)
    records.push_back(r);
  return llvm::Error::success();
}

std::vector<const TuningRecord *>
TuningDB::exact(llvm::StringRef target, llvm::StringRef signature) const {
  std::vector<const TuningRecord *> found;
  for (const TuningRecord &r : records)
    if (r.kind == TuningRecordKind::Measurement && r.passed() &&
        r.target == target && r.problem.signature == signature)
      found.push_back(&r);
  llvm::stable_sort(found, [](const TuningRecord *a, const TuningRecord *b) {
    return a->timeUs < b->timeUs;
  });
  return found;
}

std::vector<const TuningRecord *>
TuningDB::failures(llvm::StringRef target, llvm::StringRef signature) const {
  std::vector<const TuningRecord *> found;
  for (const TuningRecord &r : records)
    if (r.kind == TuningRecordKind::Measurement && !r.passed() &&
        r.target == target && r.problem.signature == signature)
      found.push_back(&r);
  return found;
}

double mlir::amk::getProblemLogDistance(const TuningProblem &a,
                                        const TuningProblem &b) {
  auto term = [](int64_t x, int64_t y) {
    return std::fabs(std::log(double(std::max<int64_t>(x, 1)) /
                              double(std::max<int64_t>(y, 1))));
  };
  // Over the symbols of either problem; one the other lacks counts as 1.
  double sum = 0;
  for (const auto &entry : a.sizes)
    sum += term(entry.getValue(), b.getSize(entry.getKey()));
  for (const auto &entry : b.sizes)
    if (!a.sizes.contains(entry.getKey()))
      sum += term(1, entry.getValue());
  return sum;
}

std::vector<const TuningRecord *>
TuningDB::nearby(llvm::StringRef target, const TuningProblem &problem,
                 double maxLogDistance) const {
  // The best record per config, then nearest first.
  llvm::StringMap<std::pair<double, const TuningRecord *>> best;
  for (const TuningRecord &r : records) {
    if (r.kind != TuningRecordKind::Measurement || !r.passed() ||
        r.target != target || r.problem.family != problem.family ||
        r.problem.signature == problem.signature)
      continue;
    double d = getProblemLogDistance(r.problem, problem);
    if (d > maxLogDistance)
      continue;
    auto [it, inserted] = best.try_emplace(r.config, d, &r);
    if (!inserted &&
        (d < it->second.first ||
         (d == it->second.first && r.timeUs < it->second.second->timeUs)))
      it->second = {d, &r};
  }
  std::vector<std::pair<double, const TuningRecord *>> sorted;
  for (const auto &entry : best)
    sorted.push_back(entry.getValue());
  llvm::sort(sorted, [](const auto &a, const auto &b) {
    if (a.first != b.first)
      return a.first < b.first;
    if (a.second->timeUs != b.second->timeUs)
      return a.second->timeUs < b.second->timeUs;
    return a.second->config < b.second->config;
  });
  std::vector<const TuningRecord *> found;
  for (const auto &entry : sorted)
    found.push_back(entry.second);
  return found;
}

std::vector<const TuningRecord *>
TuningDB::repairs(llvm::StringRef target, const TuningProblem &problem) const {
  std::vector<const TuningRecord *> found;
  for (const TuningRecord &r : records)
    if (r.kind == TuningRecordKind::Repair && r.target == target &&
        (r.scope == "*" || r.scope == problem.family ||
         r.scope == problem.signature))
      found.push_back(&r);
  return found;
}

const TuningRecord *TuningDB::calibration(llvm::StringRef target) const {
  const TuningRecord *latest = nullptr;
  for (const TuningRecord &r : records)
    if (r.kind == TuningRecordKind::Calibration && r.target == target)
      latest = &r; // Later lines win.
  return latest;
}

/// Ranks 1..n, ties getting the mean of their ranks.
static std::vector<double> ranks(llvm::ArrayRef<double> values) {
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order,
                    [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> rank(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
      ++j;
    double mean = (double(i) + double(j)) / 2 + 1;
    for (size_t t = i; t <= j; ++t)
      rank[order[t]] = mean;
    i = j + 1;
  }
  return rank;
}

std::optional<double> mlir::amk::getSpearman(llvm::ArrayRef<double> a,
                                             llvm::ArrayRef<double> b) {
  if (a.size() != b.size() || a.size() < 2)
    return std::nullopt;
  std::vector<double> ra = ranks(a), rb = ranks(b);
  // Pearson correlation of the ranks (exact with ties).
  double n = double(a.size()), ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ma += ra[i] / n;
    mb += rb[i] / n;
  }
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa == 0 || sbb == 0)
    return std::nullopt;
  return sab / std::sqrt(saa * sbb);
}
