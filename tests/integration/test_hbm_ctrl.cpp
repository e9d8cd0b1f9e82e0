// HbmCtrl (models/hbm/hbm_ctrl.h) and its pseudo-channels on simulated time.
#include <gtest/gtest.h>

#include <stdexcept>

#include "models/common/address_map.h"
#include "models/hbm/hbm_ctrl.h"
#include "tests/support/test_initiator.h"

namespace kb {
namespace {

HbmConfig hbm_cfg() {
  HbmConfig h;
  h.size_bytes = 1 << 20;
  h.num_pcs = 2;
  h.pc_bandwidth_gbps = 128;
  h.interleave_bytes = 1024;
  h.access_latency_ns = 5;
  h.queue_depth = 0;
  h.pc_mapping = PcMapping::kInterleave;
  return h;
}

TEST(HbmCtrlModel, EachPseudoChannelServesInFifoOrderAndChannelsRunInParallel) {
  test::TestInitiator init("init");
  HbmCtrl hbm("hbm", hbm_cfg());
  init.socket.bind(hbm.in);
  auto at = [](uint64_t off) { return encode_address({Space::kHbm, 0, 0, 0, off}); };
  // Three 1 KiB reads on PC0 (offsets 0, 2 KiB, 4 KiB), issued in that order,
  // and one on PC1.
  const size_t a = init.issue(0.000, tlm::TLM_READ_COMMAND, at(0), 1024);
  const size_t b = init.issue(0.001, tlm::TLM_READ_COMMAND, at(2048), 1024);
  const size_t c = init.issue(0.002, tlm::TLM_READ_COMMAND, at(4096), 1024);
  const size_t d = init.issue(0.003, tlm::TLM_READ_COMMAND, at(1024), 1024);
  sc_core::sc_start();
  EXPECT_EQ(hbm.pc_of(0), 0u);
  EXPECT_EQ(hbm.pc_of(1024), 1u);
  EXPECT_DOUBLE_EQ(init.request(a).done_ns, 8 + 5);
  EXPECT_DOUBLE_EQ(init.request(b).done_ns, 16 + 5);
  EXPECT_DOUBLE_EQ(init.request(c).done_ns, 24 + 5);
  EXPECT_DOUBLE_EQ(init.request(d).done_ns, 0.003 + 8 + 5);
  EXPECT_EQ(hbm.pc(0).stats().requests, 3u);
  EXPECT_EQ(hbm.pc(1).stats().requests, 1u);
}

TEST(HbmCtrlModel, RequestSpanningAnInterleaveBoundaryUsesBothChannels) {
  test::TestInitiator init("init");
  HbmCtrl hbm("hbm", hbm_cfg());
  init.socket.bind(hbm.in);
  const size_t a =
      init.issue(0, tlm::TLM_READ_COMMAND, encode_address({Space::kHbm, 0, 0, 0, 512}), 1024);
  sc_core::sc_start();
  EXPECT_DOUBLE_EQ(init.request(a).done_ns, 4 + 5);  // 512 B on each PC, in parallel
}

TEST(HbmCtrlModel, OutOfRangeIsAnAddressError) {
  test::TestInitiator init("init");
  HbmCtrl hbm("hbm", hbm_cfg());
  init.socket.bind(hbm.in);
  const size_t a = init.issue(0, tlm::TLM_READ_COMMAND,
                              encode_address({Space::kHbm, 0, 0, 0, (1 << 20) - 512}), 1024);
  sc_core::sc_start();
  EXPECT_EQ(init.request(a).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

// The controller holds one kind of pseudo-channel, chosen by pe.hbm.model:
// a queue (served ahead of arrival, a stream's chunks summed) or a banked
// channel (taken at arrival, chunk by chunk). A 2 KiB read from offset 512
// reaches both channels of either kind: [512, 1024) and [2048, 2560) on
// pc0, [1024, 2048) on pc1.
void spanning_read(HbmModel model) {
  HbmConfig cfg = hbm_cfg();
  cfg.model = model;
  test::TestInitiator init("init");
  HbmCtrl hbm("hbm", cfg);
  init.socket.bind(hbm.in);
  const size_t a =
      init.issue(0, tlm::TLM_READ_COMMAND, encode_address({Space::kHbm, 0, 0, 0, 512}), 2048);
  sc_core::sc_start();
  EXPECT_EQ(init.request(a).status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(hbm.bytes_read(), 2048u);
  const bool banked = model == HbmModel::kBanked;
  EXPECT_EQ(hbm.channel(0).takes_at_arrival(), banked);
  EXPECT_EQ(hbm.channel(1).sums_runs(), !banked);
  if (banked) {
    EXPECT_THROW(hbm.pc(0), std::logic_error);
  } else {
    EXPECT_EQ(hbm.pc(0).stats().requests, 2u);
    EXPECT_EQ(hbm.pc(1).stats().requests, 1u);
  }
}

TEST(HbmCtrlModel, QueuedChannelsServeTheControllersChunksAheadOfArrival) {
  spanning_read(HbmModel::kQueue);
}

TEST(HbmCtrlModel, BankedChannelsTakeTheControllersChunksAtArrival) {
  spanning_read(HbmModel::kBanked);
}

}  // namespace
}  // namespace kb
