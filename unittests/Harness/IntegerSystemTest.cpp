//===- IntegerSystemTest.cpp - The race checks' integer systems -----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "../../lib/Harness/IntegerSystem.h"

#include "gtest/gtest.h"

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

} // namespace
