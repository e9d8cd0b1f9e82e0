// The bank-level HBM pseudo-channel (pe.hbm.model: banked) on simulated time:
// single commands checked against the timing parameters by hand, and the
// efficiency of sequential and random streams against what the timing
// parameters predict.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "models/common/completion.h"
#include "models/common/sim_time.h"
#include "models/hbm/banked_channel.h"
#include "models/hbm/dram_timing.h"
#include "platform/config/topology_loader.h"

namespace kb {
namespace {

// Pushes one read of `bytes` at `offset` at `at_ns` and records its completion.
void read_at(BankedChannel& ch, double at_ns, uint64_t offset, uint64_t bytes, double* done_ns) {
  sc_core::sc_spawn([&ch, at_ns, offset, bytes, done_ns] {
    sc_core::wait(ns_to_time(at_ns));
    Completion c;
    ch.push(offset, bytes, false, &c);
    c.wait();
    *done_ns = to_ns(sc_core::sc_time_stamp());
  });
}

// One bank, HBM3 timings, refresh every 1000 ns: a first access (row closed),
// a row hit, a row conflict, and an access right after a refresh fell due.
TEST(BankedHbm, RowHitMissAndRefreshCompleteWhenTheTimingParametersSay) {
  DramTimingConfig t = dram_preset(DramPreset::kHbm3);
  t.tREFI_ns = 1000;
  BankedChannel ch("pc", t, 1, 0);
  const double rcd = t.tRCD_ns, cl = t.tCL_ns, burst = t.tCCD_S_ns, rp = t.tRP_ns;
  // Row 1 of bank 0 in bank group 0: one stripe (a row in every bank group)
  // per bank, so banks_per_group stripes further on.
  const uint64_t stripe = t.column_bytes * t.bank_groups * (t.page_bytes / t.column_bytes);
  const uint64_t row1 = stripe * t.banks_per_group;
  ASSERT_EQ(ch.locate(row1).group, 0u);
  ASSERT_EQ(ch.locate(row1).bank, 0u);
  ASSERT_EQ(ch.locate(row1).row, 1u);

  double first = 0, hit = 0, conflict = 0, after_refresh = 0;
  read_at(ch, 0, 0, 32, &first);          // ACT at 0, RD at tRCD
  read_at(ch, 100, 0, 32, &hit);          // RD at once
  read_at(ch, 200, row1, 32, &conflict);  // PRE at 200, ACT at +tRP, RD at +tRCD
  read_at(ch, 1010, row1, 32, &after_refresh);
  sc_core::sc_start();

  EXPECT_DOUBLE_EQ(first, rcd + cl + burst);
  EXPECT_DOUBLE_EQ(hit, 100 + cl + burst);
  EXPECT_DOUBLE_EQ(conflict, 200 + rp + rcd + cl + burst);
  // The REF fell due at 1000 with row 1 open: PRE at 1000, REF at 1000 + tRP,
  // then the row is closed and no ACT may issue for tRFC.
  const double ref = 1000 + rp;
  EXPECT_DOUBLE_EQ(after_refresh, ref + t.tRFC_ns + rcd + cl + burst);

  const BankedChannel::Stats s = ch.stats();
  EXPECT_EQ(s.requests, 4u);
  EXPECT_EQ(s.row_hits, 1u);
  EXPECT_EQ(s.activates, 3u);
  EXPECT_EQ(s.precharges, 2u);  // the conflict's and the refresh's
  EXPECT_EQ(s.refreshes, 1u);
}

// A write's data ends tCWL + one burst after its WR; a read of another bank
// group right after it waits tWTR from the end of that data.
TEST(BankedHbm, AReadAfterAWriteWaitsTheWriteToReadTurnaround) {
  DramTimingConfig t = dram_preset(DramPreset::kHbm3);
  t.tREFI_ns = 0;
  BankedChannel ch("pc", t, 1, 0);
  double w = 0, r = 0;
  sc_core::sc_spawn([&] {
    Completion c;
    ch.push(0, 32, true, &c);  // bank group 0
    c.wait();
    w = to_ns(sc_core::sc_time_stamp());
  });
  read_at(ch, 0, 32, 32, &r);  // bank group 1, pushed at the same instant, after the write
  sc_core::sc_start();
  // Both ACTs at 0 and tRRD_S; the WR at tRCD; the RD once the write's data
  // has ended (tRCD + tCWL + burst) plus tWTR.
  const double write_end = t.tRCD_ns + t.tCWL_ns + t.tCCD_S_ns;
  EXPECT_DOUBLE_EQ(w, write_end);
  EXPECT_DOUBLE_EQ(r, write_end + t.tWTR_ns + t.tCL_ns + t.tCCD_S_ns);
}

// Pushes `offsets.size()` reads of `bytes` at t = 0 into a channel with a
// 64-entry queue and returns the time the last one completes.
double stream_ns(const DramTimingConfig& t, const std::vector<uint64_t>& offsets, uint64_t bytes,
                 BankedChannel::Stats* stats) {
  auto ch = std::make_unique<BankedChannel>("pc", t, 1, 64);
  double last = 0;
  sc_core::sc_spawn([&] {
    Completion c;
    for (uint64_t o : offsets) ch->push(o, bytes, false, &c);
    c.wait();
    last = to_ns(sc_core::sc_time_stamp());
  });
  sc_core::sc_start();
  *stats = ch->stats();
  return last;
}

class BankedHbmStreams : public ::testing::TestWithParam<DramPreset> {};

// Sequential 1 KiB reads alternate bank groups column by column and open each
// row once: the data bus is busy except for refresh and the first access.
TEST_P(BankedHbmStreams, SequentialKibReadsReachNinetyPercentOfPeak) {
  const DramTimingConfig t = dram_preset(GetParam());
  std::vector<uint64_t> offsets;
  for (uint64_t i = 0; i < 4096; ++i) offsets.push_back(i * 1024);
  BankedChannel::Stats s;
  const double ns = stream_ns(t, offsets, 1024, &s);
  const double peak = static_cast<double>(t.column_bytes) / t.tCCD_S_ns;
  const double efficiency = 4096.0 * 1024 / ns / peak;
  EXPECT_GE(efficiency, 0.90);
  // ...and no better than the refresh allows.
  EXPECT_LE(efficiency, 1 - t.tRFC_ns / t.tREFI_ns + 0.01);
  EXPECT_GT(s.refreshes, 0u);
  RecordProperty("efficiency", std::to_string(efficiency));
}

// Random 64 B reads: every read opens a row in each of the two bank groups
// its two columns fall in, so the ACT rate bounds the stream: one ACT per
// max(tRRD_S, tFAW / 4) (the scheduler picks ready bank groups, so tRRD_L
// does not bind), two per read. Refresh is off here: after an all-bank REF
// every bank reopens at once and the stream takes a few tRC to spread over
// the banks again, which the activation limits do not describe.
TEST_P(BankedHbmStreams, RandomSixtyFourByteReadsRunAtTheActivationRateLimit) {
  DramTimingConfig t = dram_preset(GetParam());
  t.tREFI_ns = 0;  // the activation limits alone (refresh: the sequential test)
  std::mt19937_64 rng(7);
  std::vector<uint64_t> offsets;
  offsets.reserve(4096);
  const uint64_t span = uint64_t{1} << 30;
  for (int i = 0; i < 4096; ++i) offsets.push_back(rng() % (span / 64) * 64);
  BankedChannel::Stats s;
  const double ns = stream_ns(t, offsets, 64, &s);
  const double peak = static_cast<double>(t.column_bytes) / t.tCCD_S_ns;
  const double efficiency = 4096.0 * 64 / ns / peak;
  const double act_interval = std::max(t.tRRD_S_ns, t.tFAW_ns / 4);
  const double predicted = (64 / peak) / (2 * act_interval);
  EXPECT_NEAR(efficiency / predicted, 1.0, 0.05)
      << "efficiency " << efficiency << ", predicted " << predicted;
  EXPECT_EQ(s.activates, 2u * 4096);
  RecordProperty("efficiency", std::to_string(efficiency));
  RecordProperty("predicted", std::to_string(predicted));
}

INSTANTIATE_TEST_SUITE_P(Presets, BankedHbmStreams,
                         ::testing::Values(DramPreset::kHbm3, DramPreset::kHbm2e),
                         [](const auto& info) { return name_of(kDramPresetNames, info.param); });

// The preset fills the knobs the topology leaves unset; a knob given wins.
TEST(BankedHbm, PresetFillsOnlyTheKnobsTheTopologyLeavesUnset) {
  const TopologyConfig c = load_default_topology(
      {"pe.hbm.model=banked", "pe.hbm.banked.preset=hbm2e", "pe.hbm.banked.tRCD_ns=12"});
  const DramTimingConfig hbm2e = dram_preset(DramPreset::kHbm2e);
  EXPECT_EQ(c.pe.hbm.model, HbmModel::kBanked);
  EXPECT_DOUBLE_EQ(c.pe.hbm.banked.tFAW_ns, hbm2e.tFAW_ns);
  EXPECT_DOUBLE_EQ(c.pe.hbm.banked.tCL_ns, hbm2e.tCL_ns);
  EXPECT_DOUBLE_EQ(c.pe.hbm.banked.tRCD_ns, 12);
  EXPECT_NE(hbm2e.tFAW_ns, dram_preset(DramPreset::kHbm3).tFAW_ns);
}

}  // namespace
}  // namespace kb
