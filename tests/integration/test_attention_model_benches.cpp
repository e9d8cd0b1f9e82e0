// The attention models beside the measurements: each gqa bench at its
// defaults (on the default topology) must lie within the model's band; where
// the model is exact to the nanosecond the band is tight. One kernbench
// process per test.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/cli_run.h"

namespace kb {
namespace {

using test::TempDir;

nlohmann::json run_bench(const std::vector<std::string>& args) {
  TempDir tmp;
  std::vector<std::string> all = args;
  all.insert(all.end(), {"--json", tmp / "out.json"});
  const test::RunResult r = test::run_kernbench(all, tmp);
  EXPECT_EQ(r.exit_code, 0) << test::describe(r);
  return nlohmann::json::parse(test::read_text(tmp / "out.json"));
}

// Every point: meas/model within [lo, hi], the model's terms and classes add
// up to model_ns.
void expect_within(const nlohmann::json& j, double lo, double hi) {
  ASSERT_FALSE(j.at("points").empty());
  for (const auto& pt : j.at("points")) {
    const double ratio = pt.at("measured_over_model").get<double>();
    EXPECT_GE(ratio, lo) << pt.dump();
    EXPECT_LE(ratio, hi) << pt.dump();
    EXPECT_DOUBLE_EQ(ratio, pt.at("latency_ns").get<double>() / pt.at("model_ns").get<double>());
    double terms = 0, classes = 0;
    for (const auto& [k, v] : pt.at("model").at("terms").items()) terms += v.get<double>();
    for (const auto& [k, v] : pt.at("model").at("classes").items()) classes += v.get<double>();
    EXPECT_NEAR(terms, pt.at("model_ns").get<double>(), 1e-6 * terms);
    EXPECT_NEAR(classes, pt.at("model_ns").get<double>(), 1e-6 * classes);
  }
}

// Opt1, opt2 and opt3 are priced to within a few hundredths of a ns.
TEST(AttentionModelBenches, GqaDecodeEveryVariant) {
  expect_within(run_bench({"--bench", "gqa-decode", "--param", "variant=opt1,opt2,opt3"}), 0.999,
                1.001);
}

// Case 4 (the default) and case 3, the PE-SP cases.
TEST(AttentionModelBenches, GqaLongPeSpCases) {
  expect_within(run_bench({"--bench", "gqa-long", "--param", "case=3,4"}), 0.999, 1.001);
}

// Every kv_per_cube: the chain reduce and the incast of the heads' outputs.
TEST(AttentionModelBenches, GqaShortEveryKvPerCube) {
  expect_within(run_bench({"--bench", "gqa-short"}), 0.99, 1.01);
}

TEST(AttentionModelBenches, GqaPrefillDefault) {
  const nlohmann::json j = run_bench({"--bench", "gqa-prefill"});
  expect_within(j, 0.999, 1.001);
  EXPECT_EQ(j["points"][0]["model"]["mode"], "compute-bound step (the ring transfer hides)");
}

// An HBM four times slower: every term takes the new bandwidth.
TEST(AttentionModelBenches, ChangedHbmBandwidth) {
  const std::string hbm = "pe.hbm.pc_bandwidth_gbps=32";
  expect_within(run_bench({"--bench", "gqa-decode", "--set", hbm}), 0.99, 1.01);
  expect_within(run_bench({"--bench", "gqa-short", "--set", hbm, "--param", "kv_per_cube=1,8"}),
                0.99, 1.01);
}

// A slow cube link makes the prefill ring bound: the model's max() switches.
TEST(AttentionModelBenches, PrefillRingBoundOnASlowCubeLink) {
  const nlohmann::json j = run_bench(
      {"--bench", "gqa-prefill", "--set", "sip.cube_link.bandwidth_gbps=16", "--param", "S=2048"});
  expect_within(j, 0.85, 1.15);
  EXPECT_EQ(j["points"][0]["model"]["mode"], "ring-bound step");
}

// PE-TP: every rank streams every block of its cube from its own first, and
// the model prices each rank's own sweep (its remote reads): within 10 %.
TEST(AttentionModelBenches, PeTpIsWithinTenPercentOfItsModel) {
  const nlohmann::json j = run_bench({"--bench", "gqa-long", "--param", "case=1", "--param",
                                      "S_kv=2048", "--param", "kv_heads=2", "--param", "heads=16"});
  const auto& pt = j.at("points").at(0);
  EXPECT_FALSE(pt.at("model").value("bound", false));
  EXPECT_GE(pt.at("measured_over_model").get<double>(), 0.9) << pt.dump();
  EXPECT_LE(pt.at("measured_over_model").get<double>(), 1.1) << pt.dump();
}

}  // namespace
}  // namespace kb
