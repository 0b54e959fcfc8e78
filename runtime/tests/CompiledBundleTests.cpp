//===- CompiledBundleTests.cpp - What the compiler writes, the runtime reads ===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The contract between the bundle writer and the runtime: every manifest in
// $AMK_COMPILED_BUNDLES (written by amk-opt in test/Runtime/compiled.test)
// loads, names its family's problem, resolves its sizes (dynamic ones at
// 100). Without the variable the test checks nothing.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/GemmProblem.h"
#include "AMK/Runtime/LaunchPlan.h"
#include "TestUtil.h"

#include <cstdlib>
#include <filesystem>

using namespace amk::runtime;
using namespace amk::runtime::test;

TEST(Compiled, ManifestsLoadAndPlan) {
  const char *dir = std::getenv("AMK_COMPILED_BUNDLES");
  if (!dir)
    return;
  int loaded = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json")
      continue;
    Bundle bundle;
    Status status = Bundle::loadManifest(entry.path().string(), bundle);
    EXPECT_TRUE(status.ok());
    if (!status.ok()) {
      std::printf("%s\n", status.message().c_str());
      continue;
    }
    GemmProblem problem;
    EXPECT_TRUE(readGemmProblem(bundle, problem).ok());
    Sizes requested;
    for (const auto &[symbol, value] : bundle.manifest().sizes.entries())
      if (value == kDynamicSize)
        requested.set(symbol, 100);
    Sizes sizes;
    status = bundle.resolveSizes(&requested, sizes);
    EXPECT_TRUE(status.ok());
    if (!status.ok()) {
      std::printf("%s\n", status.message().c_str());
      continue;
    }
    std::printf("compiled bundle %s: %zu kernel(s), sizes %s\n",
                bundle.manifest().name.c_str(),
                bundle.manifest().kernels.size(), sizes.toString().c_str());
    ++loaded;
  }
  std::printf("loaded %d compiled bundles\n", loaded);
}
