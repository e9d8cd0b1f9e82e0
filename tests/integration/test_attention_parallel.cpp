// Attention across cubes and SIPs (long-context decode in four
// parallelism cases, ring-KV prefill, short context, 4-SIP Llama-70B).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "firmware/kernels/attention_long_decode.h"
#include "models/common/errors.h"
#include "platform/bench/bench.h"
#include "platform/bench/gqa_long_bench.h"
#include "platform/bench/gqa_prefill_bench.h"
#include "platform/bench/gqa_short_bench.h"
#include "platform/config/topology_loader.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

constexpr double kTol = 2e-2;

// One KV head (G = 8 query heads) at high-contrast logits.
LongDecodeSpec one_head(int case_no, unsigned C, unsigned P, int64_t s_kv) {
  LongDecodeSpec s;
  s.case_no = case_no;
  s.cubes = C;
  s.pes = P;
  s.s_kv = s_kv;
  s.kv_heads = 1;
  s.heads = 8;
  s.score_std = 10;
  return s;
}

class LongDecodeCase : public ::testing::TestWithParam<int> {};

TEST_P(LongDecodeCase, MatchesTheDoubleReferenceAndKvPerCubeFollowsTheCubeSplit) {
  Platform p(load_default_topology());
  p.set_data_mode(true);
  HostRuntime rt(p);
  const nlohmann::json pt = run_long_decode(rt, one_head(GetParam(), 4, 4, 1024), true);
  std::cout << "case " << GetParam() << " (" << pt["case_name"].get<std::string>() << "): latency "
            << pt["latency_ns"] << " ns, max_abs_err " << pt["max_abs_err"] << ", ipcq_ops "
            << pt["ipcq_ops"] << "\n";
  EXPECT_LE(pt["max_abs_err"].get<double>(), kTol);
  EXPECT_GT(pt["latency_ns"].get<double>(), 0.0);
  // K and V, fp16, of S/C positions (Cube-SP) or all S (Cube-Repl) per cube.
  const bool sp = GetParam() == 1 || GetParam() == 4;
  EXPECT_EQ(pt["kv_bytes_per_cube"].get<uint64_t>(), (sp ? 1024u / 4 : 1024u) * 128 * 2 * 2);
}

INSTANTIATE_TEST_SUITE_P(Cases, LongDecodeCase, ::testing::Values(1, 2, 3, 4),
                         [](const auto& info) { return "case" + std::to_string(info.param); });

// A decode step happens at any position: S_kv that no C x P x tile divides,
// in both KV layouts (uneven blocks, a short last tile).
class RaggedLongDecode : public ::testing::TestWithParam<std::tuple<int, int64_t, bool>> {};

TEST_P(RaggedLongDecode, MatchesTheDoubleReference) {
  const auto [case_no, s_kv, tiled] = GetParam();
  Platform p(load_default_topology());
  p.set_data_mode(true);
  HostRuntime rt(p);
  LongDecodeSpec s = one_head(case_no, 8, 8, s_kv);
  s.tiled_kv = tiled;
  const nlohmann::json pt = run_long_decode(rt, s, true);
  std::cout << "case " << case_no << " S_kv " << s_kv << (tiled ? " tiled" : " rowmajor")
            << ": max_abs_err " << pt["max_abs_err"] << "\n";
  EXPECT_LE(pt["max_abs_err"].get<double>(), kTol);
  // The fullest Cube-SP cube holds ceil(S / C) positions.
  if (case_no == 1 || case_no == 4) {
    EXPECT_EQ(pt["kv_bytes_per_cube"].get<uint64_t>(),
              static_cast<uint64_t>((s_kv + 7) / 8) * 128 * 2 * 2);
  }
}

// Every case at both lengths in the tiled KV layout; the row-major one (a
// strided row per tile row, far slower to simulate) at the shorter length.
std::vector<std::tuple<int, int64_t, bool>> ragged_shapes() {
  std::vector<std::tuple<int, int64_t, bool>> v;
  for (int c = 1; c <= 4; ++c) {
    v.emplace_back(c, 1536, true);
    v.emplace_back(c, 8193, true);
    v.emplace_back(c, 1536, false);
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Shapes, RaggedLongDecode, ::testing::ValuesIn(ragged_shapes()),
                         [](const auto& info) {
                           return "case" + std::to_string(std::get<0>(info.param)) + "_S" +
                                  std::to_string(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_tiled" : "_rowmajor");
                         });

TEST(LongDecode, ChangingCAndPLeavesTheResultUnchanged) {
  Platform p(load_default_topology());
  p.set_data_mode(true);
  HostRuntime rt(p);
  std::vector<float> ref;
  run_long_decode(rt, one_head(4, 1, 1, 1024), true, &ref);
  for (auto [c, pe] : {std::pair{2u, 1u}, {1u, 8u}, {2u, 4u}, {4u, 2u}, {8u, 2u}})
    for (int cs : {1, 3, 4}) {
      if ((cs == 1) && 8 % pe != 0) continue;
      std::vector<float> out;
      const nlohmann::json pt = run_long_decode(rt, one_head(cs, c, pe, 1024), true, &out);
      ASSERT_EQ(out.size(), ref.size());
      double diff = 0;
      for (size_t i = 0; i < out.size(); ++i)
        diff = std::max(diff, static_cast<double>(std::abs(out[i] - ref[i])));
      EXPECT_LE(diff, kTol) << "case " << cs << " C=" << c << " P=" << pe;
      EXPECT_LE(pt["max_abs_err"].get<double>(), kTol);
    }
}

TEST(LongDecode, CubeSpHoldsOneCthOfTheKvOfCubeRepl) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  for (auto [sp, repl] : {std::pair{1, 2}, {4, 3}}) {
    const uint64_t a = run_long_decode(rt, one_head(sp, 8, 1, 512), false)["kv_bytes_per_cube"];
    const uint64_t b = run_long_decode(rt, one_head(repl, 8, 1, 512), false)["kv_bytes_per_cube"];
    EXPECT_EQ(a * 8, b) << "case " << sp << " vs case " << repl;
  }
}

// The reduce trees: case 4 on 4 cubes x 4 PEs. Ranks with children open one
// ring set each (PEs 0 and 2 of every cube: 8 opens); each binomial level of
// four members has 3 sends and 3 receives, in 4 cubes and across them.
TEST(LongDecode, TwoLevelBinomialReduceHasTheExpectedIpcqOps) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  EXPECT_EQ(run_long_decode(rt, one_head(4, 4, 4, 1024), false)["ipcq_ops"].get<uint64_t>(),
            8u + 4 * (3 + 3) + (3 + 3));
  // Case 3 (Cube-Repl): no level 1.
  EXPECT_EQ(run_long_decode(rt, one_head(3, 4, 4, 1024), false)["ipcq_ops"].get<uint64_t>(),
            8u + 4 * (3 + 3));
  // Case 1 (PE-TP): PEs 1..3 each send m, l and O rows to PE 0 (one open per cube).
  EXPECT_EQ(run_long_decode(rt, one_head(1, 4, 4, 1024), false)["ipcq_ops"].get<uint64_t>(),
            4u * (1 + 3 * 3 + 3 * 3) + (3 + 3));
}

TEST(LongDecode, LlamaHeadsRunSideBySideOnDisjointCubeGroups) {
  Platform p(load_default_topology());
  p.set_data_mode(true);
  HostRuntime rt(p);
  LongDecodeSpec s = one_head(4, 2, 8, 1024);
  s.kv_heads = 8;
  s.heads = 64;
  const nlohmann::json pt = run_long_decode(rt, s, true);
  EXPECT_LE(pt["max_abs_err"].get<double>(), kTol);
  EXPECT_EQ(pt["kv_heads"].get<int64_t>(), 8);
  // Explicit groups: reversed placement gives the same numbers.
  s.groups = {14, 12, 10, 8, 6, 4, 2, 0};
  const nlohmann::json rev = run_long_decode(rt, s, true);
  EXPECT_LE(rev["max_abs_err"].get<double>(), kTol);
}

// The tiled KV layout changes how KV streams, not what is computed.
TEST(LongDecode, TiledKvGivesTheRowMajorResultWithFarFewerBursts) {
  Platform p(load_default_topology());
  p.set_data_mode(true);
  HostRuntime rt(p);
  for (int cs : {1, 4}) {
    LongDecodeSpec s = one_head(cs, 2, 4, 1024);
    std::vector<float> tiled, plain;
    const nlohmann::json a = run_long_decode(rt, s, true, &tiled);
    s.tiled_kv = false;
    const nlohmann::json b = run_long_decode(rt, s, true, &plain);
    EXPECT_EQ(tiled, plain) << "case " << cs;
    EXPECT_LT(a["dma_bursts"].get<uint64_t>() * 8, b["dma_bursts"].get<uint64_t>());
    EXPECT_EQ(a["kv_layout"], "tiled");
    EXPECT_EQ(b["kv_layout"], "rowmajor");
  }
}

TEST(LongDecode, BadPlacementsAreUsageErrors) {
  const TopologyConfig cfg = load_default_topology();
  auto expect_error = [&](const LongDecodeSpec& s, const std::string& part) {
    try {
      resolve_long_decode(s, cfg);
      ADD_FAILURE() << "expected an error containing '" << part << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_error(one_head(4, 2, 16, 1024), "larger than the platform");
  expect_error(one_head(4, 32, 8, 8192), "larger than the platform");
  LongDecodeSpec many = one_head(4, 8, 8, 8192);
  many.kv_heads = 8;
  many.heads = 64;
  expect_error(many, "the platform has 16");
  LongDecodeSpec overlap = one_head(4, 2, 8, 1024);
  overlap.kv_heads = 2;
  overlap.heads = 16;
  overlap.groups = {0, 1};
  expect_error(overlap, "overlap");
  LongDecodeSpec straddle = one_head(4, 4, 8, 2048);
  straddle.groups = {14};
  expect_error(straddle, "one SIP");
  expect_error(one_head(4, 2, 8, 15), "leaves a rank without KV positions");
  expect_error(one_head(3, 2, 8, 7), "leaves a rank without KV positions");
  expect_error(one_head(1, 2, 3, int64_t{3} * 64), "P must divide G");
  expect_error(one_head(5, 2, 8, 1024), "case 5 does not exist");
}

TEST(LongDecode, FourSipLlamaDecodeReportsSipToSipTraffic) {
  Platform p(load_topology_file(test::source_path("topologies/llama70b_4sip.yaml")));
  p.set_data_mode(true);
  HostRuntime rt(p);
  // P = 2: 128 active PEs, whose thread stacks fit in Linux's default
  // vm.max_map_count (all 512 need it raised; see scripts/install_deps.sh).
  LongDecodeSpec s = one_head(4, 8, 2, 4096);
  s.kv_heads = 8;
  s.heads = 64;
  const nlohmann::json pt = run_long_decode(rt, s, true);
  std::cout << "4-SIP Llama-70B decode, S_kv 4096: " << pt["latency_ns"] << " ns, SIP links "
            << pt["sip_link_bytes"] << " bytes\n";
  EXPECT_LE(pt["max_abs_err"].get<double>(), kTol);
  EXPECT_EQ(pt["C"].get<unsigned>(), 8u);
  // Heads 2..7 live on SIPs 1..3; their roots write O rows into sip0's HBM.
  EXPECT_GE(pt["sip_link_bytes"].get<uint64_t>(), 6u * 8 * 128 * 4);
}

BenchResult run_parallel_bench(Bench& b, Platform& p, const std::vector<std::string>& params,
                               bool data) {
  BenchParams prm(b.name(), b.params(), params);
  BenchContext ctx{p, prm, data, "", {}, ""};
  return b.run(ctx);
}

// T_q = 96 spans the last three tiles of 32: those get the causal mask,
// which high-contrast logits would expose if it were missing.
TEST(RingPrefill, CausalResultMatchesTheReferenceOnEveryHead) {
  Platform p(load_default_topology());
  p.set_data_mode(true);
  GqaPrefillBench b;
  const auto pts = run_parallel_bench(b, p, {"S=2048", "T_q=96", "tile=32"}, true).points;
  ASSERT_EQ(pts.size(), 1u);
  std::cout << "prefill S=2048: " << pts[0]["latency_ns"] << " ns, err " << pts[0]["max_abs_err"]
            << "\n";
  EXPECT_LE(pts[0]["max_abs_err"].get<double>(), kTol);
  // Every tile of every block visits the C-1 other cubes: C*(S/C/T)*(C-1)
  // sends and as many receives, plus one ring opening per cube.
  const uint64_t tiles = 2048 / 8 / 32;
  EXPECT_EQ(pts[0]["ipcq_ops"].get<uint64_t>(), 8 * tiles * 7 * 2 + 8);
}

TEST(RingPrefill, TcmUseIsBoundedAsSGrows) {
  Platform p(load_default_topology());
  GqaPrefillBench b;
  const auto pts = run_parallel_bench(b, p, {"S=2048,16384"}, false).points;
  ASSERT_EQ(pts.size(), 2u);
  std::cout << "prefill peak TCM: S=2048 " << pts[0]["peak_tcm_bytes"] << " B, S=16384 "
            << pts[1]["peak_tcm_bytes"] << " B\n";
  EXPECT_EQ(pts[0]["peak_tcm_bytes"].get<uint64_t>(), pts[1]["peak_tcm_bytes"].get<uint64_t>());
  EXPECT_GT(pts[1]["latency_ns"].get<double>(), pts[0]["latency_ns"].get<double>());
}

TEST(ShortContext, EveryKvPerCubeMatchesTheReference) {
  Platform p(load_default_topology());
  p.set_data_mode(true);
  GqaShortBench b;
  const auto pts = run_parallel_bench(b, p, {"S_kv=512"}, true).points;
  ASSERT_EQ(pts.size(), 4u);
  for (const auto& pt : pts) {
    EXPECT_LE(pt["max_abs_err"].get<double>(), kTol) << pt.dump();
    // A cube holds the KV of its kv_per_cube heads.
    EXPECT_EQ(pt["kv_bytes_per_cube"].get<uint64_t>(),
              pt["kv_per_cube"].get<uint64_t>() * 512 * 128 * 2 * 2);
  }
  // The chain: a head on 8 PEs has 7 sends and 7 receives, and 7 ranks open a ring.
  EXPECT_EQ(pts[0]["ipcq_ops"].get<uint64_t>(), 8u * (7 + 7 + 7));
  EXPECT_EQ(pts[3]["ipcq_ops"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace kb
