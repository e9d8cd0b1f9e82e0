// Recipes and the GQA decode variants.
#include <gtest/gtest.h>

#include <cmath>

#include "firmware/recipes.h"
#include "firmware/tl.h"
#include "models/commands/cost_model.h"
#include "models/common/errors.h"
#include "models/trace/op_log.h"
#include "platform/bench/bench.h"
#include "platform/bench/gqa_decode_bench.h"
#include "platform/config/topology_loader.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {
namespace {

TEST(SoftmaxMergeRecipe, LowersToTenOpsWithRwHandlesAndTcmAddresses) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const fw::Tensor V = rt.alloc_hbm({0, 0, 0}, {64, 128});
  CompositeCmd cmd;
  rt.launch([&](fw::Tl& tl) {
    fw::Tensor s = tl.empty({8, 64}, DType::kFp32), m = tl.empty({8, 1}, DType::kFp32);
    fw::Tensor l = tl.empty({8, 1}, DType::kFp32), o = tl.empty({8, 128}, DType::kFp32);
    fw::CompositeArgs ca;
    ca.prologue.push_back({"softmax_merge", {{"s", s}, {"m", m}, {"l", l}, {"O", o}}, {}});
    ca.b = V;
    ca.out = o;
    ca.epilogue.push_back({"add", Scope::kOutputTile, {{"other", o}}, {}, std::nullopt});
    cmd = tl.build_composite(ca);
    ASSERT_EQ(cmd.rw_handles.size(), 3u);
    EXPECT_EQ(cmd.rw_handles[0].id, m.h.id);
    EXPECT_EQ(cmd.rw_handles[1].id, l.h.id);
    EXPECT_EQ(cmd.rw_handles[2].id, o.h.id);
  });
  rt.run();
  std::vector<std::string> kinds;
  for (const auto& op : cmd.ops) kinds.push_back(op.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"rmax", "max_elem", "exp_diff", "exp_diff", "rsum",
                                             "fma", "mul_bcast", "copy", "gemm", "add"}));
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(cmd.ops[i].scope, Scope::kKernel) << i;
    for (const auto& [name, h] : cmd.ops[i].operands) EXPECT_TRUE(h.in_tcm()) << i << " " << name;
    ASSERT_TRUE(cmd.ops[i].out.has_value());
    EXPECT_TRUE(cmd.ops[i].out->in_tcm()) << i;
  }
  // P (exp_diff #4's output) is the GEMM's a.
  EXPECT_EQ(cmd.ops[8].operand("a")->id, cmd.ops[3].out->id);
  const uint64_t bytes = cmd.logical_bytes();
  std::cout << "softmax_merge #2 composite: " << bytes << " logical bytes (cap 1024)\n";
  EXPECT_LT(bytes, 1024u);
  EXPECT_GT(bytes, 200u);
}

TEST(SoftmaxMergeRecipe, PassingAAsWellIsAnAutoBindConflict) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const fw::Tensor V = rt.alloc_hbm({0, 0, 0}, {64, 128});
  rt.launch([&](fw::Tl& tl) {
    fw::Tensor s = tl.empty({8, 64}, DType::kFp32), m = tl.empty({8, 1}, DType::kFp32);
    fw::Tensor l = tl.empty({8, 1}, DType::kFp32), o = tl.empty({8, 128}, DType::kFp32);
    fw::CompositeArgs ca;
    ca.prologue.push_back({"softmax_merge", {{"s", s}, {"m", m}, {"l", l}, {"O", o}}, {}});
    ca.a = tl.empty({8, 64});
    ca.b = V;
    ca.out = o;
    tl.composite(ca);
  });
  try {
    rt.run();
    FAIL() << "expected an auto-bind conflict";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("auto-bind conflict"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("system.sip0.cube0.pe0"), std::string::npos) << e.what();
  }
}

TEST(SoftmaxMergeRecipe, RecipeOperandInHbmIsAnError) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const fw::Tensor V = rt.alloc_hbm({0, 0, 0}, {64, 128});
  const fw::Tensor s_hbm = rt.alloc_hbm({0, 0, 0}, {8, 64}, DType::kFp32);
  rt.launch([&](fw::Tl& tl) {
    fw::Tensor m = tl.empty({8, 1}, DType::kFp32), l = tl.empty({8, 1}, DType::kFp32);
    fw::Tensor o = tl.empty({8, 128}, DType::kFp32);
    fw::CompositeArgs ca;
    ca.prologue.push_back({"softmax_merge", {{"s", s_hbm}, {"m", m}, {"l", l}, {"O", o}}, {}});
    ca.b = V;
    ca.out = o;
    tl.composite(ca);
  });
  try {
    rt.run();
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("must be in TCM"), std::string::npos) << e.what();
  }
}

nlohmann::json run_decode(Platform& p, const std::vector<std::string>& params, bool data) {
  GqaDecodeBench b;
  BenchParams prm("gqa-decode", b.params(), params);
  BenchContext ctx{p, prm, data, "", {}, ""};
  return b.run(ctx).points;
}

TEST(GqaDecode, Opt2DispatchIsWellBelowOpt3AtTheDefaults) {
  Platform p(load_default_topology());
  const auto pts = run_decode(p, {"variant=opt2,opt3", "S_kv=512"}, false);
  const double opt2 = pts[0]["dispatch_ns_per_tile"], opt3 = pts[1]["dispatch_ns_per_tile"];
  std::cout << "dispatch per tile: opt2 " << opt2 << " ns, opt3 " << opt3 << " ns, ratio "
            << opt3 / opt2 << "\n";
  EXPECT_LT(opt2, opt3);
  EXPECT_GT(opt3, 1.5 * opt2);
  EXPECT_EQ(pts[0]["commands_per_tile"].get<double>(), 2.0);
  EXPECT_TRUE(pts[0]["k_before_v"].get<bool>());
}

class GqaDecodeByteCost : public ::testing::TestWithParam<const char*> {};

TEST_P(GqaDecodeByteCost, Opt2DispatchIsBelowOpt3) {
  Platform p(load_default_topology({std::string("pe.cost_model.per_byte_cycles=") + GetParam()}));
  const auto pts = run_decode(p, {"variant=opt2,opt3", "S_kv=256"}, false);
  EXPECT_LT(pts[0]["dispatch_ns_per_tile"].get<double>(),
            pts[1]["dispatch_ns_per_tile"].get<double>());
}

INSTANTIATE_TEST_SUITE_P(R, GqaDecodeByteCost, ::testing::Values("0.25", "0.0625", "0.03125"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '.') c = '_';
                           return "R_" + n;
                         });

class GqaDecodeNumerics : public ::testing::TestWithParam<std::tuple<int, double>> {};

TEST_P(GqaDecodeNumerics, EveryVariantMatchesTheReference) {
  Platform p(load_default_topology());
  p.set_data_mode(true);
  const auto [s_kv, score_std] = GetParam();
  const auto pts = run_decode(p,
                              {"variant=opt1,opt2,opt3", "S_kv=" + std::to_string(s_kv),
                               "score_std=" + std::to_string(score_std)},
                              true);
  for (const auto& pt : pts) {
    std::cout << pt["variant"] << " S_kv=" << s_kv << " score_std=" << score_std
              << " max_abs_err=" << pt["max_abs_err"] << "\n";
    EXPECT_LE(pt["max_abs_err"].get<double>(), 2e-2) << pt.dump();
    EXPECT_TRUE(pt["k_before_v"].get<bool>());
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GqaDecodeNumerics,
                         ::testing::Values(std::make_tuple(64, 1.0), std::make_tuple(320, 1.0),
                                           std::make_tuple(1024, 1.0), std::make_tuple(320, 10.0),
                                           std::make_tuple(1024, 10.0),
                                           // Ragged: a short (masked) last tile.
                                           std::make_tuple(1000, 1.0), std::make_tuple(1000, 10.0),
                                           std::make_tuple(37, 10.0)),
                         [](const auto& info) {
                           return "S" + std::to_string(std::get<0>(info.param)) + "_std" +
                                  std::to_string(static_cast<int>(std::get<1>(info.param)));
                         });

TEST(GqaDecode, BadShapesAreUsageErrors) {
  Platform p(load_default_topology());
  EXPECT_THROW(run_decode(p, {"S_kv=0"}, false), UsageError);
  EXPECT_THROW(run_decode(p, {"heads=60", "kv_heads=8"}, false), UsageError);
  EXPECT_THROW(run_decode(p, {"S_kv=65536", "tile=65536"}, false), UsageError);
  EXPECT_THROW(run_decode(p, {"variant=opt9"}, false), UsageError);
}

}  // namespace
}  // namespace kb
