//===- GraphModelTest.cpp - The megakernel's problem as JSON --------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Graph/GraphModel.h"
#include "AMK/Dialect/AMK/IR/AMKOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amk;

namespace {
/// q from a product, the new keys and values from inputs, attention into
/// an output: a wait on the product's counter.
constexpr const char *kAttentionGraph = R"mlir(
func.func @f(%x: memref<2x64xbf16>, %wq: memref<128x64xbf16>, %k: memref<2x64xbf16>, %kc: memref<2x9x2x32xbf16>, %len: memref<2xi32>, %o: memref<2x128xf32>) {
  amk.graph ins(%x, %wq, %k, %kc, %len : memref<2x64xbf16>, memref<128x64xbf16>, memref<2x64xbf16>, memref<2x9x2x32xbf16>, memref<2xi32>) outs(%o : memref<2x128xf32>) {
  ^bb0(%xa: memref<2x64xbf16>, %wqa: memref<128x64xbf16>, %ka: memref<2x64xbf16>, %kca: memref<2x9x2x32xbf16>, %lena: memref<2xi32>, %oa: memref<2x128xf32>):
    %q = amk.graph_buffer : memref<2x128xbf16>
    amk.matmul %xa, %wqa into %q {transpose_b} : memref<2x64xbf16>, memref<128x64xbf16>, memref<2x128xbf16>
    amk.decode_attention %q, %ka, %ka cache(%kca, %kca) lengths(%lena) into %oa {heads = 4, kv_heads = 2, scale = 0.25} : memref<2x128xbf16>, memref<2x64xbf16>, memref<2x64xbf16>, memref<2x9x2x32xbf16>, memref<2x9x2x32xbf16>, memref<2xi32>, memref<2x128xf32>
  }
  return
}
)mlir";

DialectRegistry getRegistry() {
  DialectRegistry registry;
  registry.insert<AMKDialect, func::FuncDialect, linalg::LinalgDialect,
                  memref::MemRefDialect>();
  return registry;
}

/// kAttentionGraph's problem (its steps are what the tests read).
GraphProblem parseAttentionGraph(MLIRContext &context) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kAttentionGraph, &context);
  GraphOp graph;
  if (module)
    module->walk([&](GraphOp op) { graph = op; });
  EXPECT_TRUE(graph) << "kAttentionGraph did not parse";
  return graph ? GraphProblem::get(graph) : GraphProblem();
}

TEST(GraphModel, AttentionStepRoundTripsThroughJSON) {
  MLIRContext context(getRegistry());
  GraphProblem p = parseAttentionGraph(context);
  ASSERT_EQ(p.steps.size(), 2u);
  const GraphStep &s = p.steps[1];
  EXPECT_EQ(s.kind, GraphStepKind::attention);
  EXPECT_EQ(s.m, 2);
  EXPECT_EQ(s.n, 128);
  EXPECT_EQ(s.k, 32);
  EXPECT_EQ(s.heads, 4);
  EXPECT_EQ(s.kvHeads, 2);
  EXPECT_EQ(s.cacheLength, 9);
  EXPECT_EQ(s.alpha, 0.25);
  EXPECT_EQ(s.a.step, 0u);
  EXPECT_EQ(s.b.input, 2u);
  EXPECT_EQ(s.v.input, 2u);
  EXPECT_EQ(s.keyCache, 3u);
  EXPECT_EQ(s.valueCache, 3u);
  EXPECT_EQ(s.lengths, 4u);
  EXPECT_EQ(s.output, 5u);
  // It reads the product's result from other blocks: a wait.
  EXPECT_EQ(s.waitsOn, 0u);
  EXPECT_TRUE(p.steps[0].signals);

  llvm::json::Object json = p.toJSON();
  FailureOr<GraphProblem> back = GraphProblem::fromJSON(&context, json);
  ASSERT_TRUE(succeeded(back));
  const GraphStep &t = back->steps[1];
  EXPECT_EQ(t.kind, GraphStepKind::attention);
  EXPECT_EQ(std::make_tuple(t.m, t.n, t.k, t.heads, t.kvHeads, t.cacheLength),
            std::make_tuple(s.m, s.n, s.k, s.heads, s.kvHeads, s.cacheLength));
  EXPECT_EQ(t.alpha, 0.25);
  EXPECT_EQ(t.a.step, 0u);
  EXPECT_EQ(t.b.input, 2u);
  EXPECT_EQ(t.v.input, 2u);
  EXPECT_EQ(std::make_tuple(t.keyCache, t.valueCache, t.lengths),
            std::make_tuple(s.keyCache, s.valueCache, s.lengths));
  EXPECT_TRUE(t.inType.isBF16());
  EXPECT_TRUE(t.outType.isF32());
  EXPECT_EQ(t.waitsOn, 0u);
  EXPECT_EQ(back->getBytes(), p.getBytes());

  // Each field an attention step needs, and shapes that do not agree.
  auto broken = [&](llvm::function_ref<void(llvm::json::Object &)> edit) {
    llvm::json::Object copy = json;
    llvm::json::Object &step = *(*copy.getArray("steps"))[1].getAsObject();
    edit(step);
    return failed(GraphProblem::fromJSON(&context, copy));
  };
  for (const char *key : {"heads", "kv_heads", "cache_length", "k", "lengths",
                          "key_cache", "value_cache", "scale"})
    EXPECT_TRUE(broken([&](llvm::json::Object &o) { o.erase(key); })) << key;
  EXPECT_TRUE(broken([](llvm::json::Object &o) { o["kv_heads"] = 3; }));
  EXPECT_TRUE(broken([](llvm::json::Object &o) { o["n"] = 96; }));
  EXPECT_TRUE(broken([](llvm::json::Object &o) { o["scale"] = -1.0; }));
  EXPECT_TRUE(broken([](llvm::json::Object &o) { o.erase("v_input"); }));
  // One rotary table without the other.
  EXPECT_TRUE(broken([](llvm::json::Object &o) { o["cos"] = 1; }));
  llvm::json::Object rotating = json;
  llvm::json::Object &turned = *(*rotating.getArray("steps"))[1].getAsObject();
  turned["cos"] = 1;
  turned["sin"] = 1;
  FailureOr<GraphProblem> rotated = GraphProblem::fromJSON(&context, rotating);
  ASSERT_TRUE(succeeded(rotated));
  EXPECT_EQ(rotated->steps[1].cos, 1u);
  EXPECT_EQ(
      rotated->toJSON().getArray("steps")->back().getAsObject()->getInteger(
          "sin"),
      1);
  // Appending keys and values into one cache.
  EXPECT_TRUE(broken([](llvm::json::Object &o) { o["append"] = true; }));
  llvm::json::Object appending = json;
  llvm::json::Object &step = *(*appending.getArray("steps"))[1].getAsObject();
  step["append"] = true;
  step["value_cache"] = 6;
  FailureOr<GraphProblem> appended =
      GraphProblem::fromJSON(&context, appending);
  ASSERT_TRUE(succeeded(appended));
  EXPECT_TRUE(appended->steps[1].append);
  // No later step waits on it: the kernel's end waits on its counter.
  EXPECT_TRUE(appended->steps[1].appendWaits);
  EXPECT_TRUE(appended->steps[1].signals);
  EXPECT_EQ(
      appended->toJSON().getArray("steps")->back().getAsObject()->getBoolean(
          "append"),
      true);
}

/// Every body's register bound covers an attention step's (the megakernel's
/// cap is its widest step's): the ring and the warp-staged bodies too.
TEST(GraphModel, AttentionRegistersBoundEveryBody) {
  MLIRContext context(getRegistry());
  GraphProblem p = parseAttentionGraph(context);
  ASSERT_EQ(p.steps.size(), 2u);
  const GraphStep &attention = p.steps[1];
  for (auto [stages, staged] :
       {std::pair<int64_t, bool>{0, false}, {3, false}, {0, true}}) {
    auto config = GraphConfigAttr::get(&context, 8, 128, 1, 1,
                                       MathInst::mma_sync, stages, staged);
    EXPECT_GE(getGraphRegisters(config, p),
              getGraphAttentionRegisters(
                  attention, getGraphAttentionUnitHeads(config, attention)))
        << "stages " << stages << ", staged " << staged;
  }
}
} // namespace
