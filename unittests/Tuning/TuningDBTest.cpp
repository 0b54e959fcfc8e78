//===- TuningDBTest.cpp - The tuning database
//------------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Tuning/TuningDB.h"
#include "AMK/Target/TargetSpec.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <limits>
#include <thread>

using namespace mlir::amk;

namespace {

TuningRecord measurement(llvm::StringRef target, llvm::StringRef signature,
                         llvm::StringRef family, int64_t size,
                         llvm::StringRef config, double us, bool pass = true) {
  TuningRecord r;
  r.kind = TuningRecordKind::Measurement;
  r.target = target.str();
  r.date = "2026-11-30";
  r.problem.signature = signature.str();
  r.problem.family = family.str();
  r.problem.sizes = {{"M", size}, {"N", size}, {"K", size}};
  r.config = config.str();
  r.timeUs = us;
  r.verdict = pass ? "pass" : "fail";
  return r;
}

/// A fresh temporary file name.
std::string tempPath(llvm::StringRef name) {
  llvm::SmallString<128> path;
  llvm::sys::fs::createUniquePath("amk-tuning-%%%%%%-" + name, path,
                                  /*MakeAbsolute=*/true);
  return std::string(path);
}

TEST(TuningDB, TargetIdentityDiffersAcrossTargetsAndEdits) {
  const TargetSpec *h200 = lookupTargetPreset("h200");
  const TargetSpec *h100 = lookupTargetPreset("h100");
  ASSERT_TRUE(h200 && h100);
  EXPECT_NE(getTargetIdentity(*h200), getTargetIdentity(*h100));
  EXPECT_EQ(getTargetIdentity(*h200), getTargetIdentity(*h200));
  // Same name, one field changed: another target.
  TargetSpec edited = *h200;
  edited.sm_count -= 1;
  EXPECT_NE(getTargetIdentity(edited), getTargetIdentity(*h200));
  EXPECT_TRUE(llvm::StringRef(getTargetIdentity(*h200)).starts_with("h200:"));
}

TEST(TuningDB, RoundTripAndQueries) {
  std::string path = tempPath("db.jsonl");
  TuningDB db;
  std::vector<TuningRecord> records = {
      measurement("t1", "gemm_64x64x64_f", "gemm_f", 64, "cfgA", 5.0),
      measurement("t1", "gemm_64x64x64_f", "gemm_f", 64, "cfgB", 3.0),
      measurement("t1", "gemm_64x64x64_f", "gemm_f", 64, "cfgC", 1.0, false),
      measurement("t2", "gemm_64x64x64_f", "gemm_f", 64, "cfgD", 0.5),
      measurement("t1", "gemm_80x80x80_f", "gemm_f", 80, "cfgE", 7.0),
      measurement("t1", "gemm_9000x9000x9000_f", "gemm_f", 9000, "cfgF", 9.0),
      measurement("t1", "gemm_70x70x70_g", "gemm_g", 70, "cfgG", 1.0)};
  TuningRecord repair;
  repair.kind = TuningRecordKind::Repair;
  repair.target = "t1";
  repair.rule = "max-smem";
  repair.scope = "*";
  repair.value = 1000;
  records.push_back(repair);
  TuningRecord calibration;
  calibration.kind = TuningRecordKind::Calibration;
  calibration.target = "t1";
  calibration.params["simt_efficiency"] = 0.5;
  records.push_back(calibration);
  ASSERT_FALSE(llvm::errorToBool(db.append(path, records)));

  TuningDB loaded;
  ASSERT_FALSE(llvm::errorToBool(loaded.load(path)));
  EXPECT_TRUE(loaded.issues().empty());
  ASSERT_EQ(loaded.all().size(), records.size());

  // Exact: passing ones of this target, fastest first.
  auto exact = loaded.exact("t1", "gemm_64x64x64_f");
  ASSERT_EQ(exact.size(), 2u);
  EXPECT_EQ(exact[0]->config, "cfgB");
  EXPECT_EQ(exact[1]->config, "cfgA");
  ASSERT_EQ(loaded.failures("t1", "gemm_64x64x64_f").size(), 1u);
  // Another target's records never apply.
  EXPECT_TRUE(loaded.exact("t3", "gemm_64x64x64_f").empty());
  EXPECT_EQ(loaded.exact("t2", "gemm_64x64x64_f").size(), 1u);

  // Nearby: same family and target, not too far, not the problem itself.
  TuningProblem p;
  p.signature = "gemm_72x72x72_f";
  p.family = "gemm_f";
  p.sizes = {{"M", 72}, {"N", 72}, {"K", 72}};
  auto nearby = loaded.nearby("t1", p, 1.5);
  ASSERT_EQ(nearby.size(), 3u);         // cfgA, cfgB (64^3), cfgE (80^3)
  EXPECT_EQ(nearby[0]->config, "cfgE"); // ln(80/72) < ln(72/64)
  EXPECT_EQ(nearby[1]->config, "cfgB"); // equal distance: faster first

  EXPECT_EQ(loaded.repairs("t1", p).size(), 1u);
  EXPECT_TRUE(loaded.repairs("t2", p).empty());
  ASSERT_TRUE(loaded.calibration("t1"));
  EXPECT_EQ(loaded.calibration("t1")->params.lookup("simt_efficiency"), 0.5);
  EXPECT_FALSE(loaded.calibration("t2"));
  llvm::sys::fs::remove(path);
}

TEST(TuningDB, BadLinesAreSkippedNotFatal) {
  std::string path = tempPath("bad.jsonl");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << measurement("t", "s", "f", 1, "c", 1.0).toJSON() << "\n"
       << "{not json\n"
       << R"({"schema":99,"kind":"measurement"})"
       << "\n"
       << R"({"schema":1,"kind":"measurement","target":"t"})"
       << "\n"
       << "\n# a comment\n"
       << measurement("t", "s", "f", 1, "d", 2.0).toJSON() << "\n";
  }
  TuningDB db;
  ASSERT_FALSE(llvm::errorToBool(db.load(path)));
  EXPECT_EQ(db.all().size(), 2u);
  ASSERT_EQ(db.droppedLines().size(), 3u);
  EXPECT_EQ(db.droppedLines()[0].line, 2u);
  EXPECT_EQ(db.droppedLines()[1].line, 3u);
  EXPECT_NE(db.droppedLines()[1].message.find("schema 99"), std::string::npos);
  EXPECT_EQ(db.droppedLines()[2].line, 4u);
  // One issue for the file, with the counts.
  ASSERT_EQ(db.issues().size(), 1u);
  EXPECT_EQ(db.issues()[0].line, 2u);
  EXPECT_EQ(db.issues()[0].message.substr(0, 37),
            "3 of 5 record(s): 1 not JSON (line 2:");
  EXPECT_NE(db.issues()[0].message.find("; 1 of another schema (line 3: "
                                        "schema 99, this AMK reads schema 1)"),
            std::string::npos)
      << db.issues()[0].message;
  EXPECT_NE(db.issues()[0].message.find("; 1 malformed (line 4: missing "
                                        "field"),
            std::string::npos)
      << db.issues()[0].message;
  llvm::sys::fs::remove(path);
}

/// Records are checked against their signature and sane ranges when they
/// load: nothing the planner reads can be absurd.
TEST(TuningDB, RecordsAreValidated) {
  auto gemm = [](int64_t m, int64_t n, double us = 10.0) {
    TuningRecord r = measurement("t", "gemm_4096x4096x64_f16_f32_f16_nn",
                                 "gemm_f16_f32_f16_nn", 1, "c", us);
    r.problem.sizes = {{"B", 1}, {"M", m}, {"N", n}, {"K", 64}};
    return r;
  };
  EXPECT_EQ(validateTuningRecord(gemm(4096, 4096)), "");
  EXPECT_EQ(validateTuningRecord(gemm(-1, 4096)),
            "signature 'gemm_4096x4096x64_f16_f32_f16_nn' has size 4096, "
            "which none of the sizes (B = 1, K = 64, M = ?, N = 4096) is");
  EXPECT_EQ(validateTuningRecord(gemm(4096, int64_t(1) << 62)),
            "size N = 4611686018427387904 is outside 1..1099511627776");
  EXPECT_EQ(validateTuningRecord(gemm(4096, 0)),
            "size N = 0 is outside 1..1099511627776");
  EXPECT_EQ(validateTuningRecord(gemm(4096, 2048)),
            "signature 'gemm_4096x4096x64_f16_f32_f16_nn' has size 4096, "
            "which none of the sizes (B = 1, K = 64, M = 4096, N = 2048) is");
  {
    TuningRecord r = gemm(4096, 4096);
    r.problem.sizes["B"] = 8; // not in an unbatched signature
    EXPECT_EQ(validateTuningRecord(r), "size B = 8 is not in signature "
                                       "'gemm_4096x4096x64_f16_f32_f16_nn'");
  }
  {
    // Dynamic sizes are `?` in the signature (either spelling of dynamic).
    TuningRecord r = gemm(-1, std::numeric_limits<int64_t>::min());
    r.problem.signature = "gemm_?x?x64_f16_f32_f16_nn";
    EXPECT_EQ(validateTuningRecord(r), "");
  }
  EXPECT_NE(validateTuningRecord(gemm(4096, 4096, 1e-300)).find("time_us"),
            std::string::npos);
  EXPECT_NE(validateTuningRecord(gemm(4096, 4096, 1e300)).find("time_us"),
            std::string::npos);
  {
    TuningRecord r = gemm(4096, 4096, 0);
    r.verdict = "fail";
    r.failure = "ok";
    EXPECT_EQ(validateTuningRecord(r),
              "a failed measurement with failure class 'ok'");
    r.failure = "mismatch";
    EXPECT_EQ(validateTuningRecord(r), "");
    r.timeUs = -1;
    EXPECT_NE(validateTuningRecord(r).find("time_us = -1"), std::string::npos);
  }
  {
    TuningRecord r = gemm(4096, 4096);
    r.predictedUs = 1.26e30;
    EXPECT_NE(validateTuningRecord(r).find("predicted_us"), std::string::npos);
  }
  TuningRecord calibration;
  calibration.kind = TuningRecordKind::Calibration;
  calibration.target = "t";
  calibration.params["simt_efficiency"] = 0.7;
  calibration.params["launch_overhead_ns"] = 3000;
  EXPECT_EQ(validateTuningRecord(calibration), "");
  for (double absurd : {1e-300, 1e300}) {
    calibration.params["launch_overhead_ns"] = absurd;
    EXPECT_NE(validateTuningRecord(calibration).find("'launch_overhead_ns'"),
              std::string::npos);
  }
  calibration.params["launch_overhead_ns"] = 3000;
  calibration.params["simt_efficiency"] = 1.5;
  EXPECT_NE(validateTuningRecord(calibration).find("at most 1"),
            std::string::npos);
  TuningRecord repair;
  repair.kind = TuningRecordKind::Repair;
  repair.target = "t";
  repair.rule = "max-smem";
  repair.scope = "*";
  repair.value = -1; // would drop every config
  EXPECT_NE(validateTuningRecord(repair).find("outside 1.."),
            std::string::npos);
}

/// Bad records are dropped at load with one issue per file, counted by
/// reason; a line nested 100,000 deep is one of them, not a stack overflow.
TEST(TuningDB, BadRecordsAreDroppedWithOneIssuePerFile) {
  std::string path = tempPath("poisoned.jsonl");
  TuningRecord good = measurement("t", "gemm_64x64x64_f", "gemm_f", 64, "c", 5);
  TuningRecord badSize = good, badTime = good, badTime2 = good;
  badSize.problem.sizes["M"] = -1;
  badTime.timeUs = 1e300;
  badTime2.timeUs = 1e-300;
  TuningRecord calibration;
  calibration.kind = TuningRecordKind::Calibration;
  calibration.target = "t";
  calibration.params["simt_efficiency"] = 1e-300;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << good.toJSON() << "\n"
       << badSize.toJSON() << "\n"
       << std::string(100000, '[') << std::string(100000, ']') << "\n"
       << badTime.toJSON() << "\n"
       << badTime2.toJSON() << "\n"
       << calibration.toJSON() << "\n";
  }
  TuningDB db;
  ASSERT_FALSE(llvm::errorToBool(db.load(path)));
  EXPECT_EQ(db.all().size(), 1u);
  EXPECT_EQ(db.calibration("t"), nullptr);
  EXPECT_EQ(db.droppedLines().size(), 5u);
  ASSERT_EQ(db.issues().size(), 1u);
  const TuningLoadIssue &issue = db.issues()[0];
  EXPECT_EQ(issue.line, 2u);
  EXPECT_NE(issue.message.find("5 of 6 record(s): 1 nested too deeply (line "
                               "3: nested deeper than 256 levels at line 1, "
                               "column 257); 1 that contradict their "
                               "signature or themselves (line 2: "),
            std::string::npos)
      << issue.message;
  EXPECT_NE(issue.message.find("; 3 with values out of range (first at line "
                               "4: time_us = "),
            std::string::npos)
      << issue.message;
  llvm::sys::fs::remove(path);
}

TEST(TuningDB, UnreadableAndUnwritable) {
  TuningDB db;
  // A missing file is an empty database.
  EXPECT_FALSE(llvm::errorToBool(db.load(tempPath("missing.jsonl"))));
  // A directory cannot be read or appended to: errors, not crashes.
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("amk-tuning", dir));
  llvm::Error loadError = db.load(dir);
  EXPECT_TRUE(static_cast<bool>(loadError));
  llvm::consumeError(std::move(loadError));
  llvm::Error appendError =
      db.append(dir, {measurement("t", "s", "f", 1, "c", 1.0)});
  EXPECT_TRUE(static_cast<bool>(appendError));
  llvm::consumeError(std::move(appendError));
  EXPECT_TRUE(db.all().empty()); // nothing half-added
  llvm::sys::fs::remove(dir);
}

TEST(TuningDB, ConcurrentAppendsKeepWholeLines) {
  std::string path = tempPath("concurrent.jsonl");
  constexpr int kThreads = 8, kRecords = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      TuningDB db;
      for (int i = 0; i < kRecords; ++i) {
        std::string config(200 + i, char('a' + t)); // long lines
        llvm::Error e =
            db.append(path, {measurement("t", "s", "f", 1, config, 1.0 + i)});
        EXPECT_FALSE(llvm::errorToBool(std::move(e)));
      }
    });
  for (std::thread &t : threads)
    t.join();
  TuningDB db;
  ASSERT_FALSE(llvm::errorToBool(db.load(path)));
  EXPECT_TRUE(db.issues().empty());
  EXPECT_EQ(db.all().size(), size_t(kThreads * kRecords));
  llvm::sys::fs::remove(path);
}

TEST(TuningDB, Spearman) {
  EXPECT_DOUBLE_EQ(*getSpearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(*getSpearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // Ranks, not values: monotone is perfect.
  EXPECT_DOUBLE_EQ(*getSpearman({1, 2, 3}, {1, 100, 1000}), 1.0);
  // Ties get mean ranks: {1, 2.5, 2.5} vs {1, 2, 3} -> 0.866.
  EXPECT_NEAR(*getSpearman({1, 2, 2}, {1, 2, 3}), 0.8660254, 1e-6);
  EXPECT_FALSE(getSpearman({1}, {1}));
  EXPECT_FALSE(getSpearman({1, 1, 1}, {1, 2, 3})); // constant series
}

} // namespace
