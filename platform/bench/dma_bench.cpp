#include "platform/bench/dma_bench.h"

#include "models/common/errors.h"
#include "models/dma/pe_dma.h"
#include "models/link/link.h"
#include "platform/bench/address_text.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"

namespace kb {

std::vector<ParamSpec> DmaBench::params() const {
  return {{"pe", "0.0.0", "initiating PE as SIP.CUBE.PE"},
          {"src", "hbm:0.0.0+0",
           "source address (0x<hex>, hbm:S.C.P+OFF, tcm:..., sram:S.C+OFF, host+OFF)"},
          {"dst", "tcm:0.0.0+0", "destination address (same forms)"},
          {"bytes", "32768", "bytes per row"},
          {"rows", "1", "rows of a 2-D strided transfer"},
          {"src_stride", "0", "bytes between source rows (0 = contiguous)"},
          {"dst_stride", "0", "bytes between destination rows (0 = contiguous)"}};
}

// No points: the one transfer's metrics are the row.
std::vector<std::string> DmaBench::point_fields() const {
  return {"latency_ns", "bandwidth_gbps", "bytes",          "channel",
          "hops",       "data_links",     "remote_endpoint"};
}

BenchResult DmaBench::run(BenchContext& ctx) {
  Platform& p = ctx.platform;
  const BenchParams& prm = ctx.params;
  const PeId pe = parse_pe_text(prm.str("pe"), "--param pe");
  const auto& c = p.config();
  if (pe.sip >= c.system.n_sips || pe.cube >= c.cubes_per_sip() || pe.pe >= c.cube.pes)
    throw UsageError("--param pe=" + prm.str("pe") + ": no such PE in topology " + c.name);
  DmaTransfer t;
  t.src = parse_address_text(prm.str("src"), "--param src");
  t.dst = parse_address_text(prm.str("dst"), "--param dst");
  const long long bytes = prm.integer("bytes"), rows = prm.integer("rows");
  const long long ss = prm.integer("src_stride"), ds = prm.integer("dst_stride");
  if (bytes <= 0 || rows <= 0 || ss < 0 || ds < 0)
    throw UsageError("--param bytes and rows must be > 0, strides >= 0");
  if (rows > static_cast<long long>(UINT32_MAX))
    throw UsageError("--param rows=" + std::to_string(rows) + ": at most " +
                     std::to_string(UINT32_MAX) + " rows per transfer");
  t.row_bytes = static_cast<uint64_t>(bytes);
  t.rows = static_cast<uint32_t>(rows);
  t.src_stride = static_cast<uint64_t>(ss);
  t.dst_stride = static_cast<uint64_t>(ds);
  t.cmd_id = 1;

  bool done = false;
  DmaResult r;
  PeDma& dma = p.pe(pe).dma;
  const PeDma::Channel ch = dma.channel_for(t);
  dma.submit(t, [&](const DmaTransfer&, const DmaResult& res) {
    r = res;
    done = true;
  });
  p.run();
  if (!done) throw SimulationError(std::string(dma.name()) + ": DMA command #1 did not complete");

  const double latency = r.finished_ns - r.submitted_ns;
  const double gbps = static_cast<double>(t.total_bytes()) / latency;
  BenchResult res;
  const bool read = ch == PeDma::Channel::kRead;
  const FabricPath path = p.route(pe, read ? t.src : t.dst);
  nlohmann::json links = nlohmann::json::array();
  for (const Link* l : path.links) links.push_back((read ? l->reverse() : l)->name());
  res.metrics = {{"latency_ns", latency},           {"bandwidth_gbps", gbps},
                 {"bytes", t.total_bytes()},        {"channel", PeDma::to_string(ch)},
                 {"hops", path.links.size()},       {"data_links", links},
                 {"remote_endpoint", path.endpoint}};
  res.tables.push_back(
      {"dma: one transfer from " + std::string(dma.name()),
       {"src", "dst", "bytes", "channel", "hops", "latency_ns", "GB/s"},
       {{format_address(t.src), format_address(t.dst), std::to_string(t.total_bytes()),
         PeDma::to_string(ch), std::to_string(path.links.size()), fmt(latency, 1), fmt(gbps, 1)}}});
  return res;
}

}  // namespace kb
