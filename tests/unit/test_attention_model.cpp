// The attention models: each term derived from the default configuration by
// hand (docs/ARCHITECTURE.md, "The attention models"). Default units: clock
// 1 GHz, crossbar 0.5, HBM 2 PCs x 128 GB/s (5 ns), TCM 512 GB/s (1 ns), DMA
// setup 2 and bursts of 1024 B, PE link 256 GB/s (2 ns), router 2, cube link
// 128 GB/s (5 ns), GEMM tile 32x64x32 at 8 TFLOPS = 16.384 ns, 64 MATH lanes,
// dispatch 40 (composite) or 8 (single op) cycles + logical bytes / 16.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platform/analytic/attention_model.h"
#include "platform/config/topology_loader.h"

namespace kb {
namespace {

double term(const AttentionModel& m, const std::string& name) {
  for (const auto& [n, v] : m.terms)
    if (n == name) return v;
  ADD_FAILURE() << "no term " << name;
  return 0;
}

void expect_sums(const AttentionModel& m) {
  double t = 0;
  for (const auto& p : m.terms) t += p.second;
  EXPECT_NEAR(t, m.total_ns, 1e-6 * m.total_ns);
  EXPECT_NEAR(m.classes.total(), m.total_ns, 1e-6 * m.total_ns);
}

// Gqa-long's default: 8 KV heads, C = 2 cubes x P = 8 PEs each, head h at cube 2h.
LongDecodePoint long_default(int case_no) {
  LongDecodePoint p;
  p.mode = fw::decode_case(case_no);
  for (unsigned h = 0; h < 8; ++h) p.heads.push_back({0, 2 * h, 2, 0, 8});
  return p;
}

// One IPCQ message of 512 B slots between two PEs (h cube hops):
//   per slot beta_c = max(DMA setup 2, 512 B / narrowest link) = 2 (h 0: PE link
//   256 GB/s) or 4 (h 1: cube link 128 GB/s);
//   t_chunk = own TCM read (0.5 + 0.5 + 1 + 1 = 3) + forward (0.5 + 0.5 + 2 + 2
//     + (h+1) 2 + h 5 + 2 x 2 + h 4) + ring write (1 + 1) + ack path (1 + 4 + (h+1) 2 + 5h)
//     = 23 (h 0) or 41 (h 1);
//   doorbell = path 7 (h 0) / 14 (h 1) + 32 B x (2/256 + h/128) = 7.25 / 14.5;
//   receiver's copy = 4 x 0.5 + 2 x 512/512 + 2 x 1 = 6;
//   alpha = 2 setups 4 + t_chunk + doorbell + copy - beta_c.
TEST(AttentionModel, IpcqAlphaBetaFromTheConfiguredPath) {
  const TopologyConfig c = load_default_topology();
  const IpcqAlphaBeta h0 = attention_ipcq_alpha_beta(c, 0), h1 = attention_ipcq_alpha_beta(c, 1);
  EXPECT_DOUBLE_EQ(h0.alpha_ns, 4 + 23 + 7.25 + 6 - 2);
  EXPECT_DOUBLE_EQ(h0.beta_ns_per_byte, 2.0 / 512);
  EXPECT_DOUBLE_EQ(h1.alpha_ns, 4 + 41 + 14.5 + 6 - 4);
  EXPECT_DOUBLE_EQ(h1.beta_ns_per_byte, 4.0 / 512);
  // The packed state (m, l, O) of 8 rows x 128: 8 x 130 x 4 = 4160 B.
  EXPECT_DOUBLE_EQ(h0.xfer_ns(4160), 38.25 + 16.25);
}

// lse_merge of 8 rows x 128: nine MATH commands. Dispatch = 8 + LB/16 with
// LB = 4 + 1 + 1 + 8 inputs + 8 + 4 + extra: max_elem, exp_diff x2, mul, add
// 35 B (10.1875), fma 43 (10.6875), mul_bcast 39 (10.4375), copy 27 (9.6875).
// The O ops take 1024 / 64 = 16 ns on PE_MATH, m 1 ns:
//   10.1875 x 4 (max, exp, exp, mul) + fma 10.6875 + mul_bcast 10.4375
//   + max(mul_bcast 10.4375, 16) + 16 + add 10.1875 + max(16, copy) + 1.
TEST(AttentionModel, LseMergeIsDispatchPlusTheWaitsOnO) {
  const TopologyConfig c = load_default_topology();
  EXPECT_DOUBLE_EQ(attention_lse_merge_ns(c, 8, 128),
                   4 * 10.1875 + 10.6875 + 10.4375 + 16 + 16 + 10.1875 + 16 + 1);
}

// gqa-decode opt2 at S_kv 1024, tile 64, G 8, d 128 (K, V row-major: 64 B rows).
//   Q load: DmaRead 8 + 37/16 = 10.3125, setup 2, 2 KiB read 2 + 1024/128 + 5 + 2 x 1024/512
//     + 1 = 20 -> 32.3125.
//   A b tile (4 KiB in 64 B bursts): 2 + 2048/128 + 5 + 2 x 64/512 + 1 = 24.25, + setup 2.
//   X_pair (4 P·V + 4 Q·K tokens, GEMM-bound) = 26.25 + fetch (8·64 + 64·32)·2/512 = 10
//     + 8 x 16.384 + epilogue 256/64 = 4 + store 8·32·4/512 = 2 = 173.322.
//   Period (case A: D_qk 43.875 >= prologue 1+1+1+8+1+1+16+1 = 30):
//     D_#2 = 40 + 314/16 = 59.625, + 30 + X_pair.
//   Normalise and store: recip 9.6875 + 1 + mul_bcast 10.4375 + 16 + DmaWrite 10.3125
//     + setup 2 + 4 KiB write 2 + 1 + 5 + 2 x 1024/512 + 2048/128 = 28.
TEST(AttentionModel, DecodeOpt2TermsByHand) {
  const TopologyConfig c = load_default_topology();
  const AttentionModel m = gqa_decode_model(c, 8, 128, 1024, 64, "opt2");
  expect_sums(m);
  EXPECT_DOUBLE_EQ(term(m, "q_load"), 10.3125 + 2 + 20);
  const double period = 59.625 + 30 + (26.25 + 10 + 8 * 16.384 + 4 + 2);
  EXPECT_NEAR(m.facts.at("sweep_period_ns").get<double>(), period, 1e-9);
  EXPECT_NEAR(term(m, "sweep_periods"), 15 * period, 1e-9);
  EXPECT_DOUBLE_EQ(term(m, "normalise_store"), 9.6875 + 1 + 10.4375 + 16 + 10.3125 + 2 + 28);
  EXPECT_NE(m.mode.find("case A"), std::string::npos) << m.mode;
  // 16 KV tiles x 8 tokens at 16.384 ns: the GEMM busy time is on the path.
  EXPECT_NEAR(m.to_json()["classes"]["gemm_tiles_at_peak"].get<double>(), 128 * 16.384, 1e-9);
  EXPECT_FALSE(m.bound);
}

// With 16 MATH lanes the prologue takes 4+4+4+32+4+4+64+4 = 120 > D_qk: case B.
TEST(AttentionModel, DecodeOpt2CaseBWhenThePrologueOutlastsTheDispatch) {
  const AttentionModel m =
      gqa_decode_model(load_default_topology({"pe.math.lanes=16"}), 8, 128, 1024, 64, "opt2");
  expect_sums(m);
  EXPECT_NE(m.mode.find("case B"), std::string::npos) << m.mode;
}

// Gqa-long case 4: the critical leaf (cube 0's PE 7, whose Q load comes last) climbs three levels
// inside the cube (D_send 8 + 17/16 = 9.0625, the 4160 B transfer 54.5, the merge 121.0625) and one
// cube hop (9.0625 + 61.5 + 4160/128 + 121.0625); the outputs of the heads at cubes 8, 10, 12, 14
// share cube link 12 -> 0: the nearest writer (cube 12) reaches it after the first burst out of TCM
// (0.5 + 2 + 0.5 + 1 = 4), the crossbar 0.5, its PE link 2 + 1024/256 and the router 2 = 12.5; 4 x
// 4 KiB at 128 GB/s; then the farthest (cube 10, 4 hops) pays the link's 5, router 2, PE link 6,
// crossbar 0.5, the HBM 1024/128 + 5 and the ack 1 + 4 + 5 x 2 + 4 x 5 = 35.
TEST(AttentionModel, LongCase4ReduceAndIncast) {
  const TopologyConfig c = load_default_topology();
  const AttentionModel m = long_decode_model(c, long_default(4));
  expect_sums(m);
  EXPECT_DOUBLE_EQ(term(m, "output_incast"), 12.5 + 4 * 4096 / 128.0 + (5 + 2 + 6 + 0.5 + 13 + 35));
  EXPECT_EQ(m.facts.at("output_bottleneck"), "cube_link 12->0");
  const double merge = attention_lse_merge_ns(c, 8, 128);
  EXPECT_NEAR(term(m, "reduce"), 3 * (9.0625 + 54.5 + merge) + (9.0625 + 61.5 + 32.5 + merge),
              1e-9);
  EXPECT_NEAR(term(m, "normalise"), 9.6875 + 1 + 10.4375 + 16 + 10.3125 + 2, 1e-12);
}

// PE-TP (case 1): each of the 8 ranks streams all 64 KV tiles of its cube,
// starting at its own block, so no two read one owner's HBM at once: the
// model is each rank's own sweep (no bound), and slower than the local
// PE-SP sweep only by its remote reads.
TEST(AttentionModel, PeTpSweepsAtEachRanksOwnPeriod) {
  const AttentionModel m = long_decode_model(load_default_topology(), long_default(1));
  expect_sums(m);
  EXPECT_FALSE(m.bound);
  EXPECT_EQ(m.facts.at("kv_tiles_per_rank").get<int64_t>(), 64);
  const AttentionModel sp = long_decode_model(load_default_topology(), long_default(4));
  EXPECT_GE(m.facts.at("sweep_period_ns").get<double>(),
            sp.facts.at("sweep_period_ns").get<double>());
  EXPECT_LT(m.facts.at("sweep_period_ns").get<double>(), 8 * 32768 / 256.0);  // one owner for all 8
}

// Ring prefill at S 8192, T_q 128, C 8, tile 64 (a and b in TCM, no streaming):
//   a GEMM run of 16 tokens = fetch (32·64 + 64·32)·2/512 = 16 + 16 x 16.384
//     + epilogue 1024/64 = 16 + store 32·32·4/512 = 8 = 302.144;
//   the prologue over 128 rows: 6 x 2 + P 128 + O 256 = 396;
//   #1 = 40 + 54/16 = 43.375, #2 = 40 + 306/16 = 59.125;
//   a step = send 9.0625 + recv 8 + 30/16 = 9.875 + #1 + X + #2 + 396 + X.
TEST(AttentionModel, PrefillStepByHand) {
  const AttentionModel m =
      ring_prefill_model(load_default_topology(), 8192, 128, 64, 128, {0, 1, 2, 3, 7, 6, 5, 4});
  expect_sums(m);
  const double x = 16 + 16 * 16.384 + 16 + 8;
  EXPECT_NEAR(m.facts.at("step_ns").get<double>(), 9.0625 + 9.875 + 43.375 + x + 59.125 + 396 + x,
              1e-9);
  EXPECT_EQ(m.facts.at("ring_hops").get<unsigned>(), 1u);
  EXPECT_EQ(m.facts.at("steps").get<int64_t>(), 128);
  EXPECT_NE(m.mode.find("compute-bound"), std::string::npos) << m.mode;
}

}  // namespace
}  // namespace kb
