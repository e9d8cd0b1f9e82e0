// Link (models/link/link.h) on simulated time: wire serialisation, reverse direction, packet
// headers.
#include <gtest/gtest.h>

#include "models/common/address_map.h"
#include "models/link/link.h"
#include "models/memory/memory_target.h"
#include "tests/support/test_initiator.h"

namespace kb {
namespace {

LinkConfig link_cfg(double gbps, double lat) {
  LinkConfig c;
  c.bandwidth_gbps = gbps;
  c.latency_ns = lat;
  c.packet_bytes = 256;
  c.header_bytes = 0;
  return c;
}

TEST(LinkModel, SecondPacketFinishesOneTransmissionAfterTheFirst) {
  test::TestInitiator init("init");
  Link link("link", link_cfg(128, 5));
  MemoryTarget sink("sink", 1 << 20, 1e9, 0);  // effectively free target
  init.socket.bind(link.in);
  link.out.bind(sink.in);
  const uint64_t a = encode_address({Space::kTcm, 0, 0, 0, 0});
  const size_t first = init.issue(0, tlm::TLM_WRITE_COMMAND, a, 1024);
  const size_t second = init.issue(0.001, tlm::TLM_WRITE_COMMAND, a, 1024);
  sc_core::sc_start();
  // 1024 B at 128 B/ns = 8 ns on the wire; then 5 ns latency; the (header-only,
  // zero-byte) acknowledgement pays the latency again on the way back.
  EXPECT_DOUBLE_EQ(init.request(first).done_ns, 8 + 5 + 5);
  EXPECT_DOUBLE_EQ(init.request(second).done_ns - init.request(first).done_ns, 8.0);
  EXPECT_EQ(link.wire().stats().requests, 2u);
  EXPECT_EQ(link.wire().stats().max_depth, 2u);
}

TEST(LinkModel, ReadResponsesTravelTheReverseDirection) {
  test::TestInitiator init("init");
  Link fwd("fwd", link_cfg(128, 5)), back("back", link_cfg(32, 5));
  fwd.set_reverse(&back);
  back.set_reverse(&fwd);
  MemoryTarget sink("sink", 1 << 20, 1e9, 0), unused("unused", 1 << 20, 1e9, 0);
  init.socket.bind(fwd.in);
  fwd.out.bind(sink.in);
  back.out.bind(unused.in);
  test::TestInitiator idle("idle");  // the reverse direction's own (idle) traffic source
  idle.socket.bind(back.in);
  const size_t r =
      init.issue(0, tlm::TLM_READ_COMMAND, encode_address({Space::kTcm, 0, 0, 0, 0}), 1024);
  sc_core::sc_start();
  // Header-only request: latency only; 1024 B response at 32 B/ns = 32 ns + 5.
  EXPECT_DOUBLE_EQ(init.request(r).done_ns, 5 + 32 + 5);
  EXPECT_EQ(back.wire().stats().bytes, 1024u);
  EXPECT_EQ(fwd.wire().stats().bytes, 0u);
}

TEST(LinkModel, HeadersArePaidPerPacket) {
  LinkConfig c = link_cfg(100, 0);
  c.header_bytes = 16;
  Link link("link", c);
  EXPECT_EQ(link.wire_bytes(1024), 1024u + 4 * 16);
  EXPECT_EQ(link.wire_bytes(0), 16u);
  EXPECT_DOUBLE_EQ(link.effective_bandwidth_gbps(), 100.0 * 256 / 272);
}

}  // namespace
}  // namespace kb
