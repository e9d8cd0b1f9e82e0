// The op log's output order is canonical: records of stages that end at the
// same time come out in the same order whatever order the kernel added them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "models/trace/op_log.h"
#include "platform/output/op_log_writer.h"
#include "platform/output/trace_writer.h"

namespace kb {
namespace {

OpRecord rec(double start, double end, const std::string& pe, const std::string& engine,
             const std::string& tile) {
  OpRecord r;
  r.t_start_ns = start;
  r.t_end_ns = end;
  r.pe = pe;
  r.engine = engine;
  r.stage = engine == "gemm" ? "GEMM" : "DMA_READ";
  r.op_kind = engine == "gemm" ? "gemm" : "dma_read";
  r.cmd_id = 2;
  r.tile = tile;
  r.bytes = 4096;
  r.addr = 64;
  return r;
}

std::vector<OpRecord> sample() {
  return {rec(0, 10, "system.sip0.cube0.pe1", "dma.read", "m0.n0.k0"),
          rec(2, 10, "system.sip0.cube0.pe0", "gemm", "m0.n0.k0"),
          rec(1, 10, "system.sip0.cube0.pe0", "dma.read", "m0.n0.k1"),
          rec(0, 5, "system.sip0.cube0.pe0", "dma.read", "m0.n0.k0"),
          rec(3, 12, "system.sip0.cube0.pe0", "dma.read", "m0.n1.k0")};
}

TEST(OpLog, OutputOrderDoesNotDependOnTheOrderRecordsWereAdded) {
  const std::vector<OpRecord> rs = sample();
  std::vector<size_t> idx{0, 1, 2, 3, 4};
  std::string first;
  int orders = 0;
  do {
    OpLog log;
    for (size_t i : idx) log.add(rs[i]);
    if (orders == 0)
      first = op_log_jsonl(log);
    else
      ASSERT_EQ(op_log_jsonl(log), first) << "insertion order #" << orders;
    ++orders;
  } while (std::next_permutation(idx.begin(), idx.end()));
  EXPECT_EQ(orders, 120);
}

TEST(OpLog, CanonicalOrderIsEndTimeThenPeThenEngine) {
  OpLog log;
  for (const auto& r : sample()) log.add(r);
  const auto ord = log.ordered();
  ASSERT_EQ(ord.size(), 5u);
  EXPECT_EQ(ord[0]->t_end_ns, 5);
  EXPECT_EQ(ord[1]->pe, "system.sip0.cube0.pe0");
  EXPECT_EQ(ord[1]->engine, "dma.read");
  EXPECT_EQ(ord[2]->pe, "system.sip0.cube0.pe0");
  EXPECT_EQ(ord[2]->engine, "gemm");
  EXPECT_EQ(ord[3]->pe, "system.sip0.cube0.pe1");
  EXPECT_EQ(ord[4]->t_end_ns, 12);
  // The in-memory list keeps insertion order.
  EXPECT_EQ(log.records()[0].pe, "system.sip0.cube0.pe1");
  // The trace lists the same records in the same order: its complete events'
  // start times follow the canonical order (0, 1, 2, 0, 3 ns).
  const nlohmann::json trace = nlohmann::json::parse(chrome_trace(log));
  std::vector<double> ts;
  for (const auto& e : trace.at("traceEvents"))
    if (e.at("ph") == "X") ts.push_back(e.at("ts").get<double>());
  EXPECT_EQ(ts, (std::vector<double>{0.0, 0.001, 0.002, 0.0, 0.003}));
}

// A spilled log (sorted runs on disk, merged on output) writes the same bytes
// as the whole log in memory: ties, equal records and every chunk size.
TEST(OpLog, ASpilledLogWritesTheSameBytesAsOneInMemory) {
  std::vector<OpRecord> rs;
  for (int i = 0; i < 200; ++i) {
    OpRecord r = rec(i % 7, 10.0 * (i % 13), "system.sip0.cube0.pe" + std::to_string(i % 3),
                     i % 2 ? "gemm" : "dma.read", "m" + std::to_string(i % 5));
    r.bytes = static_cast<uint64_t>(i % 4);  // some records equal in every key
    rs.push_back(r);
  }
  OpLog whole;
  for (const auto& r : rs) whole.add(r);
  const std::string path = testing::TempDir() + "/kb_oplog_spill_" + std::to_string(getpid());
  for (size_t chunk : {1u, 7u, 64u, 199u, 200u, 1000u}) {
    OpLog spilled;
    spilled.spill_to(path, chunk);
    for (const auto& r : rs) spilled.add(r);
    EXPECT_EQ(spilled.spilled(), chunk <= rs.size()) << chunk;
    EXPECT_EQ(spilled.size(), rs.size());
    EXPECT_EQ(op_log_jsonl(spilled), op_log_jsonl(whole)) << "chunk " << chunk;
    EXPECT_EQ(chrome_trace(spilled), chrome_trace(whole)) << "chunk " << chunk;
    EXPECT_EQ(op_log_hash(spilled), op_log_hash(whole));
    if (spilled.spilled()) {
      EXPECT_THROW(spilled.records(), std::logic_error);
    }
    spilled.clear();
    EXPECT_EQ(spilled.size(), 0u);
    EXPECT_EQ(op_log_jsonl(spilled), "");
  }
  std::remove(path.c_str());
  // The streamed trace is the document the DOM used to write.
  const nlohmann::json doc = nlohmann::json::parse(chrome_trace(whole));
  EXPECT_EQ(doc.dump() + "\n", chrome_trace(whole));
}

}  // namespace
}  // namespace kb
