//===- IntegerSystemTest.cpp - The race checks' integer systems -----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "../../lib/Harness/IntegerSystem.h"

#include "gtest/gtest.h"

#include <array>

using namespace mlir::amk::smem;

namespace {

/// Two threads of a row spread over a cluster: lane in [0, 512), rank in
/// [0, C), iteration k >= 0; run = k * C * 512 + rank * 512 + lane. Two
/// instances with the same run and different ranks: rationally feasible
/// (k fractional), integer-empty.
System clusterRuns(int64_t cluster, bool sameRank) {
  System s;
  unsigned lane1 = s.var(0, 511), lane2 = s.var(0, 511);
  unsigned rank1 = s.var(0, cluster - 1), rank2 = s.var(0, cluster - 1);
  unsigned k1 = s.var(0, std::nullopt), k2 = s.var(0, std::nullopt);
  auto run = [&](unsigned k, unsigned rank, unsigned lane) {
    return Lin::var(k) * (cluster * 512) + Lin::var(rank) * 512 +
           Lin::var(lane);
  };
  s.eq0(run(k1, rank1, lane1) - run(k2, rank2, lane2));
  if (sameRank)
    s.eq0(Lin::var(rank1) - Lin::var(rank2));
  else
    s.ge0(Lin::var(rank2) - Lin::var(rank1) - 1);
  return s;
}

TEST(IntegerSystem, ReducerRefutesRanksOfOneRun) {
  for (int64_t cluster : {2, 4, 8}) {
    System s = clusterRuns(cluster, /*sameRank=*/false);
    EXPECT_TRUE(s.provablyEmpty()) << "cluster " << cluster;
    EXPECT_FALSE(s.sample().has_value());
  }
}

TEST(IntegerSystem, SameRankIsFeasible) {
  System s = clusterRuns(4, /*sameRank=*/true);
  EXPECT_FALSE(s.provablyEmpty());
  std::optional<llvm::SmallVector<int64_t>> point = s.sample();
  ASSERT_TRUE(point.has_value());
}

/// Eliminating a unit variable keeps the integer points: x in [a, b] with
/// a + 1 == b + 1 has one (x = a), with a > b none.
TEST(IntegerSystem, UnitEliminationIsExact) {
  for (int64_t gap : {0, 1}) {
    System s;
    unsigned a = s.var(0, 100), b = s.var(0, 100), x = s.var(std::nullopt,
                                                             std::nullopt);
    s.ge0(Lin::var(x) - Lin::var(a));
    s.ge0(Lin::var(b) - Lin::var(x));
    s.ge0(Lin::var(a) * 2 - Lin::var(b) * 2 - 2 * gap + 1);
    // gap 0: 2a - 2b + 1 >= 0, so a >= b, with a <= b: a == b, feasible.
    // gap 1: 2a - 2b - 1 >= 0, so a > b: empty.
    EXPECT_EQ(s.provablyEmpty(), gap == 1) << "gap " << gap;
    EXPECT_EQ(s.sample().has_value(), gap == 0) << "gap " << gap;
  }
}

/// A substitution that leaves a false constant row, then a true one: the
/// first must still refute the system (a later true row once cleared it).
TEST(IntegerSystem, FalseConstantRowRefutes) {
  System s;
  unsigned x = s.var(std::nullopt, std::nullopt);
  unsigned y = s.var(std::nullopt, std::nullopt);
  s.eq0(Lin::var(x));
  s.eq0(Lin::var(y));
  // (Rows are kept ordered by their coefficients: y's before x's.)
  s.ge0(Lin::var(y) - 1);
  s.ge0(Lin::var(x) + 5);
  EXPECT_TRUE(s.provablyEmpty());
}

/// Bounds past 2^40 are dropped (only adds points): a system that needs one
/// to be empty is not refuted, and one that does not still is.
TEST(IntegerSystem, HugeBoundsAreDropped) {
  System s;
  unsigned x = s.var(0, int64_t(1) << 50);
  s.ge0(Lin::var(x) - (int64_t(1) << 51));
  EXPECT_TRUE(s.sample().has_value());
  System t;
  unsigned y = t.var(0, 10);
  t.ge0(Lin::var(y) - 11);
  EXPECT_FALSE(t.sample().has_value());
}

/// One store of a megakernel's product in two blocks (b1 < b2 of 8): thread
/// t = 32 w + l, lane l = 4 r + q, column 8 (b + 8 w) + 2 q, rows r equal.
/// Integer-empty and rationally feasible; the reducer alone does not see
/// it (generalized basis reduction took milliseconds), cases on a
/// variable of few values do.
System warpTiles(bool sameBlock) {
  System s;
  auto thread = [&] {
    unsigned t = s.var(0, 127), w = s.var(0, 3), l = s.var(0, 31);
    unsigned r = s.var(0, 7), q = s.var(0, 3), b = s.var(0, 7);
    s.eq0(Lin::var(t) - Lin::var(w) * 32 - Lin::var(l));
    s.eq0(Lin::var(l) - Lin::var(r) * 4 - Lin::var(q));
    // The column lies inside the 696 columns.
    s.ge0(Lin::of(695) - Lin::var(b) * 8 - Lin::var(w) * 64 - Lin::var(q) * 2);
    return std::array<unsigned, 4>{w, r, q, b};
  };
  auto [w1, r1, q1, b1] = thread();
  auto [w2, r2, q2, b2] = thread();
  auto column = [&](unsigned b, unsigned w, unsigned q) {
    return Lin::var(b) * 8 + Lin::var(w) * 64 + Lin::var(q) * 2;
  };
  s.eq0(Lin::var(r1) - Lin::var(r2));
  s.eq0(column(b1, w1, q1) - column(b2, w2, q2));
  if (sameBlock)
    s.eq0(Lin::var(b1) - Lin::var(b2));
  else
    s.ge0(Lin::var(b2) - Lin::var(b1) - 1);
  return s;
}

TEST(IntegerSystem, CasesRefuteBlocksOfOneTile) {
  System s = warpTiles(/*sameBlock=*/false);
  EXPECT_FALSE(s.provablyEmpty());
  EXPECT_FALSE(s.sample().has_value());
}

TEST(IntegerSystem, CasesKeepTheOnePoint) {
  // One block: feasible, and at b = 5, w = 2, q = 3 only once the column
  // is 8 (b + 8 w) + 2 q = 174 (vars: t w l r q b of each thread).
  System s = warpTiles(/*sameBlock=*/true);
  s.eq0(Lin::var(5) * 8 + Lin::var(1) * 64 + Lin::var(4) * 2 - 174);
  std::optional<llvm::SmallVector<int64_t>> point = s.sample();
  ASSERT_TRUE(point.has_value());
  EXPECT_EQ((*point)[5], 5);
  EXPECT_EQ((*point)[1], 2);
  EXPECT_EQ((*point)[4], 3);
}

} // namespace
