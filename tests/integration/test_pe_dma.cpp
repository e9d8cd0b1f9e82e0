// PE_DMA (models/dma/pe_dma.h) on a platform: pipelining, order, strides, faults.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/common/acting_process.h"
#include "models/common/address_map.h"
#include "models/dma/pe_dma.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

using test::tiny;

TEST(PeDmaModel, BackToBackTransfersPipeline) {
  Platform p(tiny());
  const AddressMap& m = p.address_map();
  PeDma& dma = p.pe({0, 0, 0}).dma;
  // Single-burst remote reads (same cube), latency-dominated.
  auto t = [&](unsigned i) {
    return DmaTransfer::contiguous(m.hbm(0, 0, 1, uint64_t{i} * 1024),
                                   m.tcm(0, 0, 0, uint64_t{i} * 1024), 1024, i + 1);
  };
  DmaResult single;
  dma.submit(t(0), [&](const DmaTransfer&, const DmaResult& r) { single = r; });
  p.run();
  const double one = single.finished_ns - single.submitted_ns;
  const unsigned n = 8;
  const double t0 = p.now_ns();
  std::vector<double> finished;
  for (unsigned i = 0; i < n; ++i)
    dma.submit(t(i),
               [&](const DmaTransfer&, const DmaResult& r) { finished.push_back(r.finished_ns); });
  p.run();
  ASSERT_EQ(finished.size(), n);
  EXPECT_TRUE(std::is_sorted(finished.begin(), finished.end()));  // channel order preserved
  EXPECT_LT(finished.back() - t0, 0.75 * n * one) << "one=" << one;
}

TEST(PeDmaModel, TransfersOnOneChannelCompleteInSubmissionOrder) {
  Platform p(tiny());
  const AddressMap& m = p.address_map();
  PeDma& dma = p.pe({0, 0, 0}).dma;
  std::vector<uint64_t> order;
  auto rec = [&](const DmaTransfer& t, const DmaResult&) { order.push_back(t.cmd_id); };
  // A slow far read first, then a fast local one: the local one must wait.
  dma.submit(DmaTransfer::contiguous(m.hbm(0, 3, 1), m.tcm(0, 0, 0), 65536, 1), rec);
  dma.submit(DmaTransfer::contiguous(m.hbm(0, 0, 0), m.tcm(0, 0, 0, 65536), 1024, 2), rec);
  p.run();
  EXPECT_EQ(order, (std::vector<uint64_t>{1, 2}));
}

// Transfers that different processes submit at the same instant start in
// command order, whichever process the kernel runs first: on PE 0 the
// command-7 process is spawned first, on PE 1 the command-3 one.
TEST(PeDmaModel, SameInstantSubmissionsFromTwoProcessesStartInCommandOrder) {
  Platform p(tiny());
  const AddressMap& m = p.address_map();
  std::map<std::pair<unsigned, uint64_t>, double> started;
  auto submitter = [&](unsigned pe, uint64_t cmd) {
    sc_core::sc_spawn([&, pe, cmd] {
      sc_core::wait(ns_to_time(1));
      p.pe({0, 0, pe})
          .dma.submit(DmaTransfer::contiguous(m.hbm(0, 0, pe, cmd * 65536),
                                              m.tcm(0, 0, pe, cmd * 4096), 4096, cmd),
                      [&, pe](const DmaTransfer& t, const DmaResult& r) {
                        started[{pe, t.cmd_id}] = r.started_ns;
                      });
    });
  };
  submitter(0, 7);
  submitter(0, 3);
  submitter(1, 3);
  submitter(1, 7);
  p.run();
  ASSERT_EQ(started.size(), 4u);
  for (unsigned pe : {0u, 1u}) {
    EXPECT_LT(started.at({pe, 3}), started.at({pe, 7})) << "PE " << pe;
    EXPECT_DOUBLE_EQ(started.at({pe, 3}), 1 + p.config().pe.dma.setup_ns) << "PE " << pe;
  }
}

// Same-instant submissions of one command from different processes start in
// the order of the names they are submitted under. A PE engine lane is a
// calendar timer that hands tokens on under its thread name
// (`<engine>.lane_<i>`, ActingProcess): here two processes spawned in one
// order submit as "b_" and "a_", and the "a_" one starts first.
TEST(PeDmaModel, SameCommandSubmissionsStartInTheOrderOfTheNameTheyActFor) {
  Platform p(tiny());
  const AddressMap& m = p.address_map();
  std::map<std::string, double> started;
  static const char* const kNames[] = {"b_second_in_name", "a_first_in_name"};
  for (unsigned i = 0; i < 2; ++i)
    sc_core::sc_spawn([&, i] {
      sc_core::wait(ns_to_time(1));
      const ActingProcess as(kNames[i]);
      EXPECT_STREQ(ActingProcess::current(), kNames[i]);
      p.pe({0, 0, 0}).dma.submit(
          DmaTransfer::contiguous(m.hbm(0, 0, 0, uint64_t{i} * 65536),
                                  m.tcm(0, 0, 0, uint64_t{i} * 4096), 4096, 5),
          [&, i](const DmaTransfer&, const DmaResult& r) { started[kNames[i]] = r.started_ns; });
    });
  p.run();
  EXPECT_EQ(ActingProcess::current(), nullptr);  // every scope has closed
  ASSERT_EQ(started.size(), 2u);
  EXPECT_LT(started.at("a_first_in_name"), started.at("b_second_in_name"));
  EXPECT_DOUBLE_EQ(started.at("a_first_in_name"), 1 + p.config().pe.dma.setup_ns);
}

TEST(PeDmaModel, StridedTransferMovesEveryRow) {
  Platform p(tiny());
  p.set_data_mode(true);
  const AddressMap& m = p.address_map();
  Pe& pe = p.pe({0, 0, 0});
  // Backdoor-fill 4 rows of 64 B at a 256 B stride in the neighbour's HBM.
  Pe& src_pe = p.pe({0, 0, 1});
  for (unsigned r = 0; r < 4; ++r) {
    std::vector<uint8_t> row(64, static_cast<uint8_t>(r + 1));
    src_pe.hbm.store().write(uint64_t{r} * 256, row.data(), row.size());
  }
  DmaTransfer t;
  t.src = m.hbm(0, 0, 1);
  t.dst = m.tcm(0, 0, 0);
  t.row_bytes = 64;
  t.rows = 4;
  t.src_stride = 256;
  DmaResult res;
  pe.dma.submit(t, [&](const DmaTransfer&, const DmaResult& r) { res = r; });
  p.run();
  std::vector<uint8_t> got(256);
  pe.tcm.dma_port.store().read(0, got.data(), got.size());
  for (unsigned i = 0; i < 256; ++i) EXPECT_EQ(got[i], i / 64 + 1) << i;
  EXPECT_GT(res.finished_ns, 0);
}

// Threads under `obj` (its processes and theirs), by base name.
unsigned threads_under(const sc_core::sc_object& obj, const std::string& prefix) {
  unsigned n = 0;
  for (const sc_core::sc_object* c : obj.get_child_objects()) {
    if (std::string(c->kind()) == "sc_thread_process" &&
        std::string(c->basename()).rfind(prefix, 0) == 0)
      ++n;
    n += threads_under(*c, prefix);
  }
  return n;
}

// A burst between the PE's own HBM and TCM is carried without a worker
// thread, and takes exactly the time of its blocking steps: setup, the xbar
// in, the HBM pseudo-channel's service and access latency, the xbar back,
// then the same for the TCM write. So is a copy within the TCM.
TEST(PeDmaModel, ALocalBurstTakesItsBlockingStepsTimeWithoutAWorker) {
  Platform p(tiny());
  p.set_data_mode(true);
  const AddressMap& m = p.address_map();
  const TopologyConfig& c = p.config();
  Pe& pe = p.pe({0, 0, 0});
  std::vector<uint8_t> bytes(1024);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 1);
  pe.hbm.store().write(4096, bytes.data(), bytes.size());
  DmaResult res;
  pe.dma.submit(DmaTransfer::contiguous(m.hbm(0, 0, 0, 4096), m.tcm(0, 0, 0, 2048), 1024, 5),
                [&](const DmaTransfer&, const DmaResult& r) { res = r; });
  p.run();
  const double xbar = c.pe.xbar_latency_ns;
  const double read = xbar + 1024 / c.pe.hbm.pc_bandwidth_gbps + c.pe.hbm.access_latency_ns + xbar;
  const double write = xbar + 1024 / c.pe.tcm.bandwidth_gbps + c.pe.tcm.latency_ns + xbar;
  EXPECT_DOUBLE_EQ(res.started_ns, c.pe.dma.setup_ns);
  EXPECT_DOUBLE_EQ(res.finished_ns, c.pe.dma.setup_ns + read + write);
  std::vector<uint8_t> got(1024);
  pe.tcm.dma_port.store().read(2048, got.data(), got.size());
  EXPECT_EQ(got, bytes);
  EXPECT_EQ(threads_under(pe.dma, "thread_p"), 0u);
  // A read from the neighbour's HBM crosses links, with no worker either.
  pe.dma.submit(DmaTransfer::contiguous(m.hbm(0, 0, 1), m.tcm(0, 0, 0), 1024, 6), nullptr);
  p.run();
  EXPECT_EQ(threads_under(pe.dma, "thread_p"), 0u);
  // A copy within one memory (TCM to TCM) takes no worker either, and the time
  // of its blocking steps: the read, then the write, through the same port.
  DmaResult copy;
  pe.dma.submit(DmaTransfer::contiguous(m.tcm(0, 0, 0, 2048), m.tcm(0, 0, 0, 8192), 1024, 7),
                [&](const DmaTransfer&, const DmaResult& r) { copy = r; });
  p.run();
  const double tcm_read = xbar + 1024 / c.pe.tcm.bandwidth_gbps + c.pe.tcm.latency_ns + xbar;
  EXPECT_DOUBLE_EQ(copy.finished_ns - copy.started_ns, tcm_read + write);
  pe.tcm.dma_port.store().read(8192, got.data(), got.size());
  EXPECT_EQ(got, bytes);
  EXPECT_EQ(threads_under(pe.dma, "thread_p"), 0u);
}

// A burst across links and routers takes, without a worker, the time of its
// blocking crossing: the read request (header only) and its response through
// the xbar, the PE link, the cube router, the neighbour's PE link and xbar,
// the neighbour's HBM; then the write into this PE's TCM.
TEST(PeDmaModel, ARemoteBurstTakesItsBlockingCrossingTimeWithoutAWorker) {
  TopologyConfig cfg = tiny();
  cfg.cube.pe_link.header_bytes = 0;  // the read request takes no wire time
  Platform p(cfg);
  p.set_data_mode(true);
  const AddressMap& m = p.address_map();
  const TopologyConfig& c = p.config();
  std::vector<uint8_t> bytes(512);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 3 + 2);
  p.pe({0, 0, 1}).hbm.store().write(0, bytes.data(), bytes.size());
  DmaResult res;
  Pe& pe = p.pe({0, 0, 0});
  pe.dma.submit(DmaTransfer::contiguous(m.hbm(0, 0, 1), m.tcm(0, 0, 0), 512, 4),
                [&](const DmaTransfer&, const DmaResult& r) { res = r; });
  p.run();
  const double xbar = c.pe.xbar_latency_ns, router = c.cube.router_latency_ns;
  const double link = c.cube.pe_link.latency_ns, wire = 512 / c.cube.pe_link.bandwidth_gbps;
  const double hbm = 512 / c.pe.hbm.pc_bandwidth_gbps + c.pe.hbm.access_latency_ns;
  // Out: xbar, link, router, link, xbar; the HBM; back: xbar, the payload on
  // both links' reverse wires, each link's and router's latency again.
  const double read = 2 * (2 * xbar + 2 * link + router) + hbm + 2 * wire;
  const double write = 2 * xbar + 512 / c.pe.tcm.bandwidth_gbps + c.pe.tcm.latency_ns;
  EXPECT_DOUBLE_EQ(res.finished_ns, c.pe.dma.setup_ns + read + write);
  std::vector<uint8_t> got(512);
  pe.tcm.dma_port.store().read(0, got.data(), got.size());
  EXPECT_EQ(got, bytes);
  EXPECT_EQ(threads_under(pe.dma, "thread_p"), 0u);
}

// With no latency anywhere, a local burst's steps all end in deltas of one
// instant: the burst still ends (in the DMA's own method, one delta after its
// write was served), at the sum of the two services, and the next burst of the
// transfer follows it.
TEST(PeDmaModel, LocalBurstsWithNoLatencyEndAtTheirServiceTimes) {
  TopologyConfig cfg = tiny();
  cfg.pe.xbar_latency_ns = 0;
  cfg.pe.hbm.access_latency_ns = 0;
  cfg.pe.tcm.latency_ns = 0;
  cfg.pe.dma.setup_ns = 0;
  cfg.pe.dma.max_outstanding = 1;  // one burst at a time: each waits for the last
  Platform p(cfg);
  const AddressMap& m = p.address_map();
  DmaResult res;
  p.pe({0, 0, 0}).dma.submit(DmaTransfer::contiguous(m.hbm(0, 0, 0), m.tcm(0, 0, 0), 2048, 3),
                             [&](const DmaTransfer&, const DmaResult& r) { res = r; });
  p.run();
  const double burst = 1024 / cfg.pe.hbm.pc_bandwidth_gbps + 1024 / cfg.pe.tcm.bandwidth_gbps;
  EXPECT_DOUBLE_EQ(res.finished_ns, 2 * burst);
  EXPECT_EQ(threads_under(p.pe({0, 0, 0}).dma, "thread_p"), 0u);
}

// A burst the HBM controller would refuse (past the end of its slice) is
// left to a worker: the fault names the DMA, the command and the address.
TEST(PeDmaModel, ABurstPastTheEndOfItsMemoryIsASimulationFault) {
  Platform p(tiny());
  const AddressMap& m = p.address_map();
  const uint64_t end = p.config().pe.hbm.size_bytes;
  p.pe({0, 0, 1}).dma.submit(
      DmaTransfer::contiguous(m.hbm(0, 0, 1, end - 64), m.tcm(0, 0, 1), 128, 9), nullptr);
  const std::string msg = test::run_expecting_error(p);
  ASSERT_FALSE(msg.empty()) << "expected a simulation fault";
  EXPECT_NE(msg.find("system.sip0.cube0.pe1.dma"), std::string::npos) << msg;
  EXPECT_NE(msg.find("#9"), std::string::npos) << msg;
  EXPECT_NE(msg.find("read failed"), std::string::npos) << msg;
}

TEST(PeDmaModel, UnmappedAddressIsASimulationFaultNamingPeAndAddress) {
  Platform p(tiny());
  const AddressMap& m = p.address_map();
  p.pe({0, 0, 1}).dma.submit(DmaTransfer::contiguous(0x0000000000001000ull, m.tcm(0, 0, 1), 64, 7),
                             nullptr);
  const std::string msg = test::run_expecting_error(p);
  ASSERT_FALSE(msg.empty()) << "expected a simulation fault";
  EXPECT_NE(msg.find("system.sip0.cube0.pe1.dma"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0x0000000000001000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("#7"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kb
