// The fast fidelity (docs/ARCHITECTURE.md §1.6) against the exact model: PE_DMA's
// stream transactions, the streamed GEMM, the --fidelity setting and the
// fidelity bench. Timing assertions are on simulated time.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/address_map.h"
#include "models/dma/dma_transfer.h"
#include "models/dma/pe_dma.h"
#include "platform/config/topology_config.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

using test::run_kernbench;
using test::TempDir;

// The sum of every counter named `key` in a stats() tree.
double sum_of(const nlohmann::json& j, const std::string& key) {
  double s = 0;
  if (j.is_object())
    for (const auto& [k, v] : j.items()) {
      if (k == key && v.is_number()) s += v.get<double>();
      s += sum_of(v, key);
    }
  return s;
}

nlohmann::json run_json(std::vector<std::string> a, const TempDir& tmp, const std::string& name) {
  a.insert(a.end(), {"--json", tmp / name});
  const test::RunResult r = run_kernbench(a, tmp);
  EXPECT_EQ(r.exit_code, 0) << test::describe(r);
  if (r.exit_code != 0) return {};
  return nlohmann::json::parse(test::read_text(tmp / name));
}

// One transfer by PE 0.0.0 on the idle tiny platform (the dma bench), with
// `dma_transactions`, in a child process (one platform per process).
nlohmann::json move(const TempDir& tmp, const std::string& dma_transactions,
                    const std::vector<std::string>& transfer, bool data = false) {
  std::vector<std::string> a = {
      "-t", test::kTiny, "-b", "dma", "-q", "--set", "pe.dma.transactions=" + dma_transactions};
  for (const std::string& p : transfer) a.insert(a.end(), {"-p", p});
  if (data) a.emplace_back("--data");
  return run_json(a, tmp, dma_transactions + ".json");
}

double latency(const nlohmann::json& r) {
  return r["metrics"]["latency_ns"].get<double>();
}

const std::vector<std::vector<std::string>> kTransfers = {
    {"src=hbm:0.0.0+0", "dst=tcm:0.0.0+0", "bytes=65536"},  // own HBM to TCM
    {"src=tcm:0.0.0+0", "dst=hbm:0.0.0+0", "bytes=32768"},  // TCM to own HBM
    // 64 rows of 64 B, 512 B apart: a row-major KV tile
    {"src=hbm:0.0.0+8192", "dst=tcm:0.0.0+0", "bytes=64", "rows=64", "src_stride=512"}};

// A lone transfer between the PE's own memories ends within one burst's
// source time (here 1 KiB at the TCM's 512 GB/s: 2 ns) of its bursts.
TEST(StreamTransactions, UncontendedTransfersEndWithinABurstOfTheirBurstsAndCountThem) {
  TempDir tmp;
  for (const std::vector<std::string>& t : kTransfers) {
    const nlohmann::json bursts = move(tmp, "burst", t), stream = move(tmp, "stream", t);
    ASSERT_FALSE(bursts.is_null() || stream.is_null());
    EXPECT_NEAR(latency(stream), latency(bursts), 2.0) << t[0];
    // The same work: every burst, byte, HBM byte and wire byte is counted.
    for (const char* key : {"bursts", "bytes_read", "bytes_written", "wire_bytes"})
      EXPECT_EQ(sum_of(stream["stats"], key), sum_of(bursts["stats"], key)) << t[0] << ": " << key;
    // In fewer requests: that is what the shortcut is for.
    EXPECT_LT(sum_of(stream["stats"], "requests"), sum_of(bursts["stats"], "requests")) << t[0];
  }
}

TEST(StreamTransactions, TwoBurstsRemoteMemoriesAndDataModeGoAsBursts) {
  TempDir tmp;
  const std::vector<std::string> two = {"bytes=2048"};
  EXPECT_EQ(move(tmp, "stream", two)["stats"], move(tmp, "burst", two)["stats"]);
  // A neighbour cube's HBM: the links would carry a stream store-and-forward.
  const std::vector<std::string> remote = {"src=hbm:0.1.0+0", "bytes=16384"};
  EXPECT_EQ(move(tmp, "stream", remote)["stats"], move(tmp, "burst", remote)["stats"]);
  // Data mode moves real bytes burst by burst, at the exact model's instants.
  const nlohmann::json stream = move(tmp, "stream", kTransfers.back(), true);
  const nlohmann::json bursts = move(tmp, "burst", kTransfers.back(), true);
  EXPECT_EQ(latency(stream), latency(bursts));
  EXPECT_EQ(stream["stats"], bursts["stats"]);
  EXPECT_EQ(stream["fidelity"]["used"], "exact");
}

// A ring destination (a streamed GEMM's slot): byte i lands at i mod ring,
// and the bursts never cross the ring's end.
TEST(RingDestination, BytesLandModuloTheRingInBurstsThatStopAtItsEnd) {
  Platform p(test::tiny({"pe.dma.burst_bytes=768"}));
  p.set_data_mode(true);
  const AddressMap& m = p.address_map();
  Pe& pe = p.pe({0, 0, 0});
  std::vector<uint8_t> src(4096);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i / 256 + 1);
  pe.hbm.store().write(0, src.data(), src.size());
  DmaTransfer t = DmaTransfer::contiguous(m.hbm(0, 0, 0), m.tcm(0, 0, 0, 1024), 4096);
  t.dst_ring = 1024;
  pe.dma.submit(t, [](const DmaTransfer&, const DmaResult&) {});
  p.run();
  std::vector<uint8_t> got(1024 + 1024 + 16);
  pe.tcm.dma_port.store().read(0, got.data(), got.size());
  for (size_t i = 0; i < 1024; ++i) {
    EXPECT_EQ(got[1024 + i], src[3072 + i]) << i;  // the last lap's bytes
    EXPECT_EQ(got[i], 0) << i;                     // nothing before the ring
  }
  EXPECT_EQ(got[2048], 0);  // nor after it
  // 768 B bursts cut at the ring's end: 768 + 256 per lap, four laps.
  EXPECT_EQ(pe.dma.stats(PeDma::Channel::kRead).bursts, 8u);
}

std::vector<std::string> small_llm(std::vector<std::string> extra) {
  std::vector<std::string> a = {"-t",
                                test::kTiny,
                                "-b",
                                "llm",
                                "-q",
                                "-p",
                                "model=llama3_8b",
                                "-p",
                                "model.layers=2",
                                "-p",
                                "model.hidden=256",
                                "-p",
                                "model.heads=8",
                                "-p",
                                "model.kv_heads=2",
                                "-p",
                                "model.d_head=32",
                                "-p",
                                "model.ffn=704",
                                "-p",
                                "model.vocab=512",
                                "-p",
                                "extend=off"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// A small model's decode and prefill, exact and fast: the figures within 1 %,
// and the same work done (every GEMM native tile, flop, HBM byte and DMA burst).
TEST(FidelitySetting, FastLlmStepsAreWithinAPercentOfExactAndDoTheSameWork) {
  TempDir tmp;
  for (const std::vector<std::string>& phase :
       {std::vector<std::string>{"-p", "context=300", "-p", "batch=2"},
        std::vector<std::string>{"-p", "phase=prefill", "-p", "prompt=40"}}) {
    nlohmann::json r[2];
    for (int fast = 0; fast < 2; ++fast) {
      std::vector<std::string> a = small_llm(phase);
      a.insert(a.end(), {"--fidelity", fast ? "fast" : "exact"});
      r[fast] = run_json(a, tmp, fast ? "fast.json" : "exact.json");
    }
    ASSERT_FALSE(r[0].is_null() || r[1].is_null());
    EXPECT_EQ(r[0]["fidelity"]["used"], "exact");
    EXPECT_EQ(r[1]["fidelity"]["used"], "fast");
    const char* figure = phase[1] == "phase=prefill" ? "ttft_ns" : "latency_per_token_ns";
    const double exact = r[0]["metrics"][figure].get<double>();
    const double fast = r[1]["metrics"][figure].get<double>();
    EXPECT_NEAR(fast / exact, 1.0, 0.01) << phase[1] << ": " << figure;
    EXPECT_NEAR(
        r[1]["metrics"]["j_per_token"].get<double>() / r[0]["metrics"]["j_per_token"].get<double>(),
        1.0, 0.01)
        << phase[1];
    for (const char* key : {"native_tiles", "executed_flops", "bytes_read", "bytes_written"})
      EXPECT_EQ(sum_of(r[1]["stats"], key), sum_of(r[0]["stats"], key)) << phase[1] << ": " << key;
    // A streamed run of ragged tiles is cut into bursts as one run, not tile
    // by tile: a few fewer bursts, never more.
    EXPECT_LE(sum_of(r[1]["stats"], "bursts"), sum_of(r[0]["stats"], "bursts")) << phase[1];
    EXPECT_GT(sum_of(r[1]["stats"], "bursts"), 0.97 * sum_of(r[0]["stats"], "bursts")) << phase[1];
    // The GEMM engines served fewer stages: the K steps streamed.
    EXPECT_LT(sum_of(r[1]["stats"], "stages"), sum_of(r[0]["stats"], "stages")) << phase[1];
  }
}

TEST(FidelitySetting, EachBenchHasADefaultAndASetOfAKnobWins) {
  TempDir tmp;
  const nlohmann::json llm = run_json(small_llm({"-p", "context=30"}), tmp, "llm.json");
  EXPECT_EQ(llm["fidelity"]["asked"], "fast");
  EXPECT_EQ(llm["fidelity"]["used"], "fast");
  const nlohmann::json gemm = run_json({"-t", test::kTiny, "-b", "gemm", "-q"}, tmp, "gemm.json");
  EXPECT_EQ(gemm["fidelity"]["used"], "exact");
  const nlohmann::json mixed = run_json({"-t", test::kTiny, "-b", "gemm", "-q", "--fidelity",
                                         "fast", "--set", "pe.dma.transactions=burst"},
                                        tmp, "mixed.json");
  EXPECT_EQ(mixed["fidelity"]["asked"], "fast");
  EXPECT_EQ(mixed["fidelity"]["used"], "mixed");
  EXPECT_EQ(mixed["fidelity"]["pe.dma.transactions"], "burst");
  EXPECT_EQ(mixed["fidelity"]["pe.scheduler.gemm_plan"], "stream");
  const std::string line =
      test::expect_usage_error(run_kernbench({"-b", "gemm", "--fidelity", "quick"}, tmp));
  EXPECT_TRUE(test::contains(line, "--fidelity quick: must be exact")) << line;
}

// The fidelity bench's small table: every workload within 1 %.
TEST(FidelityBench, QuickTableIsWithinAPercent) {
  TempDir tmp;
  const nlohmann::json r = run_json({"-b", "fidelity", "-q", "-p", "quick=1"}, tmp, "f.json");
  ASSERT_FALSE(r.is_null());
  EXPECT_GE(r["metrics"]["workloads"].size(), 5u);
  EXPECT_LT(r["metrics"]["worst_error"].get<double>(), 0.01) << r["metrics"].dump(1);
}

}  // namespace
}  // namespace kb
