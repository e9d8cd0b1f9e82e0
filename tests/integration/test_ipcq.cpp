// PE_IPCQ: point-to-point messages, credit flow, slot reuse, routing,
// chunking, recv-reduce, forwarding, and the deadlock report.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "firmware/tl.h"
#include "models/common/errors.h"
#include "platform/config/topology_loader.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

// 8 KiB slots, 4 per ring (unless a test says otherwise): messages of a few
// slots and rings that wrap quickly.
TopologyConfig ipcq_tiny(std::vector<std::string> overrides = {}) {
  overrides.insert(overrides.begin(), {"pe.ipcq.slot_bytes=8KiB", "pe.ipcq.slots=4"});
  return load_topology_file(test::source_path("topologies/tiny.yaml"), overrides);
}

void launch_on(HostRuntime& rt, const PeId& pe, const Kernel& k) {
  rt.launch_on({pe}, k);
}

std::vector<float> iota(size_t n, float base) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = base + static_cast<float>(i % 1000);
  return v;
}

const PeAddr kA{0, 0, 0}, kB{0, 3, 1}, kC{0, 1, 0};

TEST(Ipcq, MessageCrossesTheFabricIntoEachRingSpace) {
  Platform p(ipcq_tiny());
  p.set_data_mode(true);
  HostRuntime rt(p);
  const int64_t n = 5000;  // 20000 bytes: 3 chunks of at most 8 KiB
  fw::Tensor src = rt.alloc_hbm({0, 0, 0}, {n}, DType::kFp32);
  fw::Tensor dst = rt.alloc_hbm({0, 3, 1}, {n}, DType::kFp32);
  rt.write(src, iota(n, 1));
  launch_on(rt, {0, 0, 0}, [&](fw::Tl& tl) { tl.wait(tl.send(kB, src)); });
  launch_on(rt, {0, 3, 1}, [&](fw::Tl& tl) {
    tl.ipcq_open({kA}, RingSpace::kTcm);
    tl.wait(tl.recv_async(kA, dst));
  });
  rt.run();
  EXPECT_EQ(rt.read(dst), iota(n, 1));
  const auto& sa = p.pe({0, 0, 0}).ipcq.stats();
  const auto& sb = p.pe({0, 3, 1}).ipcq.stats();
  EXPECT_EQ(sa.chunks_sent, 3u);
  EXPECT_EQ(sa.bytes_sent, 20000u);
  EXPECT_EQ(sb.chunks_received, 3u);
  // Grant, 3 doorbells, 3 credits.
  EXPECT_EQ(sa.messages + sb.messages, 7u);
  // The chunks crossed the cube links (cube 0 -> cube 3 is two hops on 2x2).
  EXPECT_GE(p.traffic().cube_link_bytes, 2u * 20000u);
}

class IpcqRingSpace : public ::testing::TestWithParam<RingSpace> {};

TEST_P(IpcqRingSpace, ReduceLandsExactlyWhateverTheRingAndDestination) {
  Platform p(ipcq_tiny());
  p.set_data_mode(true);
  HostRuntime rt(p);
  const int64_t n = 45000;  // 180000 bytes: 22 chunks, the last of 180000 - 21 * 8192 = 7968
  fw::Tensor src = rt.alloc_hbm({0, 0, 0}, {n}, DType::kFp32);
  fw::Tensor acc_hbm = rt.alloc_hbm({0, 3, 1}, {n}, DType::kFp32);
  rt.write(src, iota(n, 3));
  rt.write(acc_hbm, iota(n, 100));
  std::vector<float> got_tcm;
  const RingSpace space = GetParam();
  launch_on(rt, {0, 0, 0}, [&](fw::Tl& tl) {
    tl.send(kB, src);
    tl.send(kB, src);
    tl.wait();
  });
  fw::Tensor acc_tcm;
  launch_on(rt, {0, 3, 1}, [&](fw::Tl& tl) {
    tl.ipcq_open({kA}, space);
    tl.wait(tl.recv_reduce(kA, acc_hbm));  // HBM destination: staged through TCM
    acc_tcm = tl.load(acc_hbm);            // = src + base
    tl.wait(tl.recv_reduce(kA, acc_tcm));  // TCM destination
    tl.wait(tl.store(acc_hbm, acc_tcm));
  });
  rt.run();
  const std::vector<float> out = rt.read(acc_hbm);
  const std::vector<float> a = iota(n, 3), b = iota(n, 100);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2 * a[i] + b[i]) << i;
}

INSTANTIATE_TEST_SUITE_P(Spaces, IpcqRingSpace,
                         ::testing::Values(RingSpace::kTcm, RingSpace::kHbm, RingSpace::kSram),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// A slow receiver stalls the sender: with 2 slots, message k >= 2 cannot land
// before the receiver consumed message k-2.
TEST(Ipcq, SlowReceiverStallsTheSenderAndNoSlotIsOverwrittenAcrossWraps) {
  Platform p(ipcq_tiny({"pe.ipcq.slots=2", "pe.ipcq.slot_bytes=1KiB"}));
  p.set_data_mode(true);
  HostRuntime rt(p);
  const int kMessages = 9;  // wraps the 2-slot ring four times
  const int64_t n = 256;    // one slot each
  std::vector<fw::Tensor> src, dst;
  for (int k = 0; k < kMessages; ++k) {
    src.push_back(rt.alloc_hbm({0, 0, 0}, {n}, DType::kFp32));
    dst.push_back(rt.alloc_hbm({0, 3, 1}, {n}, DType::kFp32));
    rt.write(src.back(), iota(n, 10000.0f * static_cast<float>(k)));
  }
  std::vector<double> sent_ns(kMessages), consumed_ns(kMessages);
  launch_on(rt, {0, 0, 0}, [&](fw::Tl& tl) {
    std::vector<fw::Tensor> h;
    h.reserve(kMessages);
    for (int k = 0; k < kMessages; ++k) h.push_back(tl.send(kB, src[k]));
    for (int k = 0; k < kMessages; ++k) {
      tl.wait(h[k]);
      sent_ns[k] = h[k].pending->done_ns;
    }
  });
  launch_on(rt, {0, 3, 1}, [&](fw::Tl& tl) {
    tl.ipcq_open({kA});
    for (int k = 0; k < kMessages; ++k) {
      tl.overhead(2000);  // 2 us between receives: a slow consumer
      fw::Tensor r = tl.recv_async(kA, dst[k]);
      tl.wait(r);
      consumed_ns[k] = r.pending->done_ns;
    }
  });
  rt.run();
  for (int k = 0; k < kMessages; ++k)
    EXPECT_EQ(rt.read(dst[k]), iota(n, 10000.0f * static_cast<float>(k))) << "message " << k;
  for (int k = 2; k < kMessages; ++k)
    EXPECT_GT(sent_ns[k], consumed_ns[k - 2]) << "message " << k << " landed in a slot still full";
  // The first two fit the ring at once; the rest waited for credits.
  EXPECT_LT(sent_ns[1], 2000.0);
  EXPECT_GE(p.pe({0, 0, 0}).ipcq.stats().credit_stalls, static_cast<uint64_t>(kMessages - 2));
}

TEST(Ipcq, RecvForwardRelaysChunkByChunk) {
  Platform p(ipcq_tiny());
  p.set_data_mode(true);
  HostRuntime rt(p);
  const int64_t n = 6000;
  fw::Tensor src = rt.alloc_hbm({0, 0, 0}, {n}, DType::kFp32);
  fw::Tensor mid = rt.alloc_hbm({0, 3, 1}, {n}, DType::kFp32);
  fw::Tensor out = rt.alloc_hbm({0, 1, 0}, {n}, DType::kFp32);
  rt.write(src, iota(n, 7));
  rt.write(mid, iota(n, 1));
  launch_on(rt, {0, 0, 0}, [&](fw::Tl& tl) { tl.wait(tl.send(kB, src)); });
  launch_on(rt, {0, 3, 1}, [&](fw::Tl& tl) {
    tl.ipcq_open({kA}, RingSpace::kHbm);
    tl.wait(tl.recv_forward(kA, mid, kC, true));  // mid += src, then on to C
  });
  launch_on(rt, {0, 1, 0}, [&](fw::Tl& tl) {
    tl.ipcq_open({kB});
    tl.wait(tl.recv_async(kB, out));
  });
  rt.run();
  const std::vector<float> a = iota(n, 7), b = iota(n, 1);
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = a[i] + b[i];
  EXPECT_EQ(rt.read(mid), want);
  EXPECT_EQ(rt.read(out), want);
}

// A queue's process orders the DMA transfers it submits at one instant by its
// name: the name is the IPCQ's child and the peer's, whichever process opened
// the queue (here B's send queue to C opens when C's grant is delivered).
TEST(Ipcq, EachPeersQueueProcessIsNamedUnderItsIpcq) {
  Platform p(ipcq_tiny());
  HostRuntime rt(p);
  const int64_t n = 3000;
  fw::Tensor src = rt.alloc_hbm({0, 0, 0}, {n}, DType::kFp32);
  fw::Tensor mid = rt.alloc_hbm({0, 3, 1}, {n}, DType::kFp32);
  fw::Tensor out = rt.alloc_hbm({0, 1, 0}, {n}, DType::kFp32);
  launch_on(rt, {0, 0, 0}, [&](fw::Tl& tl) { tl.wait(tl.send(kB, src)); });
  launch_on(rt, {0, 3, 1}, [&](fw::Tl& tl) {
    tl.ipcq_open({kA});
    tl.wait(tl.recv_forward(kA, mid, kC, false));
  });
  launch_on(rt, {0, 1, 0}, [&](fw::Tl& tl) {
    tl.ipcq_open({kB});
    tl.wait(tl.recv_async(kB, out));
  });
  rt.run();
  const std::string b = p.pe({0, 3, 1}).ipcq.name();
  EXPECT_NE(sc_core::sc_find_object((b + ".recv_from_0_0_0").c_str()), nullptr);
  EXPECT_NE(sc_core::sc_find_object((b + ".send_to_0_1_0").c_str()), nullptr);
  const std::string a = p.pe({0, 0, 0}).ipcq.name();
  EXPECT_NE(sc_core::sc_find_object((a + ".send_to_0_3_1").c_str()), nullptr);
}

TEST(Ipcq, ControlMessagesRouteToThePeersRegisters) {
  Platform p(ipcq_tiny());
  const auto& map = p.address_map();
  const FabricPath local = p.route({0, 0, 0}, map.ipcq(0, 0, 0));
  EXPECT_TRUE(local.links.empty());
  EXPECT_NE(local.endpoint.find("cube0.pe0.ipcq"), std::string::npos) << local.endpoint;
  const FabricPath remote = p.route({0, 0, 0}, map.ipcq(0, 3, 1));
  EXPECT_NE(remote.endpoint.find("cube3.pe1.ipcq"), std::string::npos) << remote.endpoint;
  // PE link up, two cube links (2x2 grid, dimension order), PE link down.
  EXPECT_EQ(remote.links.size(), 4u);
}

TEST(Ipcq, ARecvFromAPeerThatNeverSendsIsReportedWhenTheSimulationRunsDry) {
  Platform p(ipcq_tiny());
  HostRuntime rt(p);
  fw::Tensor dst = rt.alloc_hbm({0, 3, 1}, {64}, DType::kFp32);
  launch_on(rt, {0, 0, 0}, [&](fw::Tl& tl) { tl.overhead(10); });  // never sends
  launch_on(rt, {0, 3, 1}, [&](fw::Tl& tl) {
    tl.ipcq_open({kA});
    tl.wait(tl.recv_async(kA, dst));
  });
  try {
    rt.run();
    FAIL() << "expected a deadlock report";
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ran dry"), std::string::npos) << what;
    EXPECT_NE(what.find("system.sip0.cube3.pe1"), std::string::npos) << what;
    EXPECT_NE(what.find("recv from sip0.cube0.pe0"), std::string::npos) << what;
  }
}

TEST(Ipcq, ASendToAPeerThatNeverOpensARingIsReported) {
  Platform p(ipcq_tiny());
  HostRuntime rt(p);
  fw::Tensor src = rt.alloc_hbm({0, 0, 0}, {64}, DType::kFp32);
  launch_on(rt, {0, 0, 0}, [&](fw::Tl& tl) { tl.wait(tl.send(kB, src)); });
  try {
    rt.run();
    FAIL() << "expected a deadlock report";
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("system.sip0.cube0.pe0"), std::string::npos) << what;
    EXPECT_NE(what.find("send to sip0.cube3.pe1"), std::string::npos) << what;
    EXPECT_NE(what.find("never opened a ring"), std::string::npos) << what;
  }
}

TEST(Ipcq, AMessageOfTheWrongSizeIsAFaultNamingBothPes) {
  Platform p(ipcq_tiny());
  HostRuntime rt(p);
  fw::Tensor src = rt.alloc_hbm({0, 0, 0}, {100}, DType::kFp32);
  fw::Tensor dst = rt.alloc_hbm({0, 3, 1}, {64}, DType::kFp32);
  launch_on(rt, {0, 0, 0}, [&](fw::Tl& tl) { tl.wait(tl.send(kB, src)); });
  launch_on(rt, {0, 3, 1}, [&](fw::Tl& tl) {
    tl.ipcq_open({kA});
    tl.wait(tl.recv_async(kA, dst));
  });
  try {
    rt.run();
    FAIL() << "expected a size-mismatch fault";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cube3.pe1.ipcq"), std::string::npos) << what;
    EXPECT_NE(what.find("size mismatch from sip0.cube0.pe0"), std::string::npos) << what;
  }
}

TEST(Ipcq, ChunkingFollowsTheSlotSize) {
  Platform p(ipcq_tiny({"pe.ipcq.slot_bytes=4KiB"}));
  HostRuntime rt(p);
  fw::Tensor src = rt.alloc_hbm({0, 0, 0}, {3 * 1024 + 1}, DType::kFp32);  // 12292 B
  fw::Tensor dst = rt.alloc_hbm({0, 3, 1}, {3 * 1024 + 1}, DType::kFp32);
  launch_on(rt, {0, 0, 0}, [&](fw::Tl& tl) { tl.wait(tl.send(kB, src)); });
  launch_on(rt, {0, 3, 1}, [&](fw::Tl& tl) {
    tl.ipcq_open({kA});
    tl.wait(tl.recv_async(kA, dst));
  });
  rt.run();
  EXPECT_EQ(p.pe({0, 0, 0}).ipcq.stats().chunks_sent, 4u);  // 4096 x 3 + 4
  EXPECT_EQ(p.pe({0, 3, 1}).ipcq.stats().chunks_received, 4u);
}

}  // namespace
}  // namespace kb
