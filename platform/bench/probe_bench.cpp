#include "platform/bench/probe_bench.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "models/common/errors.h"
#include "models/dma/pe_dma.h"
#include "models/hbm/pc_mapping.h"
#include "models/link/link.h"
#include "models/topology/cube_grid.h"
#include "platform/fabric/pe.h"
#include "platform/fabric/sip.h"
#include "platform/fabric/system.h"
#include "platform/platform.h"

namespace kb {

namespace {

struct HopClass {
  std::string name;
  uint64_t src, dst;  // addresses of the 0-offset element
  bool into_pe;       // data lands in the initiator's TCM (a read)
};

double memory_bandwidth(const TopologyConfig& c, Space s) {
  switch (s) {
    case Space::kHbm:
      return c.pe_hbm_bandwidth_gbps();
    case Space::kTcm:
      return c.pe.tcm.bandwidth_gbps;
    case Space::kSram:
      return c.cube.sram.bandwidth_gbps;
    case Space::kHost:
      return c.host.memory_bandwidth_gbps;
    case Space::kIpcq:
      return 0;  // registers, not a probe target
  }
  return 0;
}

struct PathFigures {
  double bottleneck_gbps;
  unsigned hops;
};

// The narrowest edge the data crosses: both memories and every link in the
// direction the payload travels (responses of a read travel the reverse links).
PathFigures data_path(const Platform& p, const PeId& from, const DmaTransfer& t, bool read) {
  const uint64_t remote = read ? t.src : t.dst;
  const FabricPath path = p.route(from, remote);
  double bw = std::min(memory_bandwidth(p.config(), decode_address(t.src)->space),
                       memory_bandwidth(p.config(), decode_address(t.dst)->space));
  for (const Link* l : path.links) {
    const Link* carrier = read ? l->reverse() : l;
    bw = std::min(bw, carrier->effective_bandwidth_gbps());
  }
  return {bw, static_cast<unsigned>(path.links.size())};
}

struct Outcome {
  double makespan_ns = 0;
  std::vector<DmaResult> results;
};

// Submits every (pe, transfer) at the same instant on an idle platform and
// runs until the fabric drains.
Outcome run_together(Platform& p, const std::vector<std::pair<PeId, DmaTransfer>>& jobs) {
  Outcome out;
  out.results.resize(jobs.size());
  std::vector<bool> done(jobs.size(), false);
  const double t0 = p.now_ns();
  for (size_t i = 0; i < jobs.size(); ++i)
    p.pe(jobs[i].first).dma.submit(jobs[i].second, [&, i](const DmaTransfer&, const DmaResult& r) {
      out.results[i] = r;
      done[i] = true;
    });
  p.run();
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!done[i])
      throw SimulationError("probe: DMA command #" + std::to_string(jobs[i].second.cmd_id) +
                            " did not complete (the fabric went idle first)");
    out.makespan_ns = std::max(out.makespan_ns, out.results[i].finished_ns - t0);
  }
  return out;
}

std::vector<HopClass> hop_classes(Platform& p) {
  const auto& c = p.config();
  const AddressMap& m = p.address_map();
  std::vector<HopClass> v;
  const uint64_t own_tcm = m.tcm(0, 0, 0);
  v.push_back({"local_hbm", m.hbm(0, 0, 0), own_tcm, true});
  if (c.cube.pes > 1) v.push_back({"same_cube_hbm", m.hbm(0, 0, 1), own_tcm, true});
  const CubeGrid& grid = p.system().sip(0).grid();
  if (grid.size() > 1) {
    unsigned near = 0, far = 0, near_h = ~0u, far_h = 0;
    for (unsigned k = 1; k < grid.size(); ++k) {
      const unsigned h = grid.hops(0, k);
      if (h < near_h) near_h = h, near = k;
      if (h >= far_h) far_h = h, far = k;
    }
    v.push_back({"neighbor_cube_hbm", m.hbm(0, near, 0), own_tcm, true});
    v.push_back({"far_cube_hbm", m.hbm(0, far, 0), own_tcm, true});
  }
  if (c.system.n_sips > 1) v.push_back({"other_sip_hbm", m.hbm(1, 0, 0), own_tcm, true});
  v.push_back({"h2d", m.host(0), own_tcm, true});
  v.push_back({"d2h", own_tcm, m.host(0), false});
  return v;
}

// --param sizes: positive byte counts that fit the TCM.
std::vector<uint64_t> parse_sizes(const BenchParams& params, const TopologyConfig& cfg) {
  std::vector<uint64_t> sizes;
  std::stringstream ss(params.str("sizes"));
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v == 0)
      throw UsageError("--param sizes=" + params.str("sizes") +
                       ": expected positive integers separated by commas");
    if (v > cfg.pe.tcm.size_bytes)
      throw UsageError("--param sizes: " + item + " bytes does not fit the " +
                       std::to_string(cfg.pe.tcm.size_bytes) + "-byte TCM");
    sizes.push_back(v);
  }
  return sizes;
}

using ByHopAndSize = std::map<std::string, std::map<uint64_t, double>>;

// Invariants, evaluated on the simulated figures (latency and fraction of the
// bottleneck bandwidth, by hop class and size).
nlohmann::json probe_invariants(const std::vector<uint64_t>& sizes, ByHopAndSize& lat,
                                ByHopAndSize& bw_ratio) {
  nlohmann::json inv = nlohmann::json::object();
  const std::vector<std::string> order = {"local_hbm", "same_cube_hbm", "neighbor_cube_hbm",
                                          "far_cube_hbm"};
  bool monotonic = true;
  for (uint64_t bytes : sizes) {
    double prev = -1;
    for (const auto& h : order) {
      if (!lat.count(h)) continue;
      if (lat[h][bytes] <= prev) monotonic = false;
      prev = lat[h][bytes];
    }
  }
  inv["latency_grows_with_hop_class"] = monotonic;
  bool d2h_ge = true;
  for (uint64_t bytes : sizes) d2h_ge = d2h_ge && lat["d2h"][bytes] >= lat["h2d"][bytes];
  inv["d2h_not_faster_than_h2d"] = d2h_ge;
  if (lat.count("far_cube_hbm")) {
    bool best_lt_worst = true;
    for (uint64_t bytes : sizes)
      best_lt_worst = best_lt_worst && lat["neighbor_cube_hbm"][bytes] < lat["far_cube_hbm"][bytes];
    inv["best_cross_cube_faster_than_worst"] = best_lt_worst;
  }
  const uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  double worst_ratio = 1e9;
  for (auto& [h, m] : bw_ratio) worst_ratio = std::min(worst_ratio, m[largest]);
  inv["largest_size_min_fraction_of_bottleneck"] = worst_ratio;
  return inv;
}

// The contention points: N PEs of cube 0 reading 32 KiB each on one
// pseudo-channel, or each on a different one. `cmd` numbers the commands.
void add_contention_points(Platform& p, uint64_t& cmd, BenchResult& res) {
  const auto& cfg = p.config();
  SummaryTable ct{"probe: N PEs of cube 0 reading 32 KiB each on one pseudo-channel",
                  {"pattern", "readers", "makespan_ns", "one_reader_ns", "ratio"},
                  {}};
  // Each reader moves 32 KiB as interleave-sized chunks that all live on
  // one pseudo-channel (chosen through the controller's own mapping),
  // issued back to back so its DMA channel pipelines them.
  const uint64_t il = cfg.pe.hbm.interleave_bytes;
  const uint64_t chunks = std::max<uint64_t>(1, 32768 / il);
  const AddressMap& m = p.address_map();
  auto pattern = [&](const std::string& kind, unsigned reader) {
    const unsigned target = kind == "same_pc" ? 0 : (reader + 1) % cfg.cube.pes;
    std::vector<DmaTransfer> v;
    // Readers of one channel use disjoint chunks: reader r starts r MiB in.
    for (uint64_t c = (uint64_t{reader} << 20) / il; v.size() < chunks; ++c) {
      if (pc_of_offset(cfg.pe.hbm, c * il) != 0) continue;
      v.push_back(DmaTransfer::contiguous(m.hbm(0, 0, target, c * il),
                                          m.tcm(0, 0, reader, v.size() * il), il, cmd++));
    }
    return v;
  };
  auto jobs_for = [&](const std::string& kind, unsigned readers) {
    std::vector<std::pair<PeId, DmaTransfer>> jobs;
    for (unsigned r = 0; r < readers; ++r)
      for (const DmaTransfer& t : pattern(kind, r)) jobs.emplace_back(PeId{0, 0, r}, t);
    return jobs;
  };
  nlohmann::json cont = nlohmann::json::array();
  PointWindows windows(p);
  for (const std::string kind : {"same_pc", "different_pc"}) {
    if (kind == "different_pc" && cfg.cube.pes < 2) continue;
    const double single = run_together(p, jobs_for(kind, 1)).makespan_ns;
    for (unsigned n : {2u, 4u, 8u}) {
      if (n > cfg.cube.pes) continue;
      const double span = run_together(p, jobs_for(kind, n)).makespan_ns;
      cont.push_back({{"pattern", kind},
                      {"readers", n},
                      {"bytes_per_reader", chunks * il},
                      {"makespan_ns", span},
                      {"one_reader_ns", single},
                      {"ratio", span / single}});
      windows.stamp(cont.back());
      ct.rows.push_back(
          {kind, std::to_string(n), fmt(span, 1), fmt(single, 1), fmt(span / single, 2)});
    }
  }
  res.metrics["contention"] = cont;
  res.tables.push_back(ct);
}

double hbm_pattern_model(const HbmConfig& h, uint64_t bytes, bool random);

// What the models predict for reads of `bytes` each on one PE's own HBM, as
// a fraction of the slice's peak. The DMA engine starts one transfer per
// setup_ns. The queue model streams at its bandwidth whatever the pattern;
// the banked model streams sequential reads at peak less refresh (tRFC per
// tREFI), and random ones at the activation limit, less refresh: an ACT per
// bank group an access touches, one ACT per max(tRRD_S, tFAW / 4).
double pattern_model(const TopologyConfig& c, uint64_t bytes, bool random) {
  const double dma_issue_limit =
      c.pe.dma.setup_ns > 0
          ? static_cast<double>(bytes) / c.pe.dma.setup_ns / c.pe_hbm_bandwidth_gbps()
          : 1.0;
  return std::min(dma_issue_limit, hbm_pattern_model(c.pe.hbm, bytes, random));
}

double hbm_pattern_model(const HbmConfig& h, uint64_t bytes, bool random) {
  if (h.model == HbmModel::kQueue) return 1.0;
  const DramTimingConfig& t = h.banked;
  const double refresh = t.tREFI_ns > 0 ? 1 - t.tRFC_ns / t.tREFI_ns : 1.0;
  if (!random) return refresh;
  const auto column = static_cast<double>(t.column_bytes * t.lockstep(h.pc_bandwidth_gbps));
  const double peak = column / t.tCCD_S_ns;
  const double acts =
      std::min<double>(t.bank_groups, std::ceil(static_cast<double>(bytes) / column));
  const double act_limited =
      (static_cast<double>(bytes) / peak) / (acts * std::max(t.tRRD_S_ns, t.tFAW_ns / 4));
  return std::min(1.0, act_limited) * refresh;
}

// The access-pattern points: pe0 reads `count` accesses of 64 B or 1 KiB
// from its own HBM into its TCM, at consecutive offsets or at seeded random
// ones (aligned to the access), every access its own DMA, all at once.
void add_pattern_points(Platform& p, uint64_t& cmd, BenchResult& res) {
  const auto& cfg = p.config();
  const AddressMap& m = p.address_map();
  const uint64_t count = 2048;
  SummaryTable pt{"probe: " + std::to_string(count) +
                      " reads of pe0's own HBM into its TCM, all issued at once (pe.hbm.model: " +
                      name_of(kHbmModelNames, cfg.pe.hbm.model) + ")",
                  {"pattern", "bytes", "makespan_ns", "GB/s", "of peak", "model", "ratio"},
                  {}};
  nlohmann::json points = nlohmann::json::array();
  PointWindows windows(p);
  for (const bool random : {false, true}) {
    for (const uint64_t bytes : {uint64_t{64}, uint64_t{1024}}) {
      std::vector<std::pair<PeId, DmaTransfer>> jobs;
      uint64_t x = 0x9e3779b97f4a7c15ULL;  // a fixed LCG: the same offsets every run
      const uint64_t slots = cfg.pe.hbm.size_bytes / bytes;
      const uint64_t tcm_slots = std::max<uint64_t>(1, cfg.pe.tcm.size_bytes / 2 / bytes);
      for (uint64_t i = 0; i < count; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        const uint64_t slot = random ? (x >> 17) % slots : i % slots;
        jobs.emplace_back(PeId{0, 0, 0}, DmaTransfer::contiguous(
                                             m.hbm(0, 0, 0, slot * bytes),
                                             m.tcm(0, 0, 0, i % tcm_slots * bytes), bytes, cmd++));
      }
      const double span = run_together(p, jobs).makespan_ns;
      const double gbps = static_cast<double>(count * bytes) / span;
      const double of_peak = gbps / cfg.pe_hbm_bandwidth_gbps();
      const double model = pattern_model(cfg, bytes, random);
      const std::string pattern = random ? "random" : "sequential";
      points.push_back({{"pattern", pattern},
                        {"bytes", bytes},
                        {"accesses", count},
                        {"makespan_ns", span},
                        {"bandwidth_gbps", gbps},
                        {"fraction_of_peak", of_peak},
                        {"model_fraction_of_peak", model},
                        {"ratio", of_peak / model}});
      windows.stamp(points.back());
      pt.rows.push_back({pattern, std::to_string(bytes), fmt(span, 1), fmt(gbps, 1),
                         fmt(100.0 * of_peak, 1) + "%", fmt(100.0 * model, 1) + "%",
                         fmt(of_peak / model, 2)});
    }
  }
  res.metrics["access_patterns"] = points;
  res.tables.push_back(pt);
}

}  // namespace

std::vector<ParamSpec> ProbeBench::params() const {
  return {{"sizes", "32768,1048576", "transfer sizes in bytes, comma-separated"},
          {"contention", "1", "1 = also run the pseudo-channel contention points"},
          {"patterns", "0",
           "1 = also run the HBM access-pattern points (sequential and random 64 B and 1 KiB "
           "reads; rerun with --set pe.hbm.model=banked for the bank-level timing)"}};
}

// A point per hop class and size; the contention and access-pattern points
// are lists in the metrics.
std::vector<std::string> ProbeBench::point_fields() const {
  return {"hop_class",       "bytes", "latency_ns", "bandwidth_gbps",
          "bottleneck_gbps", "hops",  "cmd_id",     PointWindows::kField};
}

std::vector<std::string> ProbeBench::metric_fields() const {
  return {"invariants", "local_hbm_32KiB_latency_ns", "contention", "access_patterns"};
}

BenchResult ProbeBench::run(BenchContext& ctx) {
  Platform& p = ctx.platform;
  BenchResult res;
  const std::vector<uint64_t> sizes = parse_sizes(ctx.params, p.config());
  const PeId origin{0, 0, 0};
  uint64_t cmd = 1;
  SummaryTable table{
      "probe: one DMA alone on an idle platform, from sip0.cube0.pe0",
      {"hop_class", "bytes", "hops", "latency_ns", "GB/s", "bottleneck GB/s", "of bottleneck"},
      {}};
  ByHopAndSize lat, bw_ratio;
  PointWindows windows(p);
  for (const HopClass& hc : hop_classes(p)) {
    for (uint64_t bytes : sizes) {
      DmaTransfer t = DmaTransfer::contiguous(hc.src, hc.dst, bytes, cmd++);
      const Outcome o = run_together(p, {{origin, t}});
      const double latency = o.results[0].finished_ns - o.results[0].submitted_ns;
      const PathFigures f = data_path(p, origin, t, hc.into_pe);
      const double gbps = static_cast<double>(bytes) / latency;
      res.points.push_back({{"hop_class", hc.name},
                            {"bytes", bytes},
                            {"latency_ns", latency},
                            {"bandwidth_gbps", gbps},
                            {"bottleneck_gbps", f.bottleneck_gbps},
                            {"hops", f.hops},
                            {"cmd_id", t.cmd_id}});
      windows.stamp(res.points.back());
      lat[hc.name][bytes] = latency;
      bw_ratio[hc.name][bytes] = gbps / f.bottleneck_gbps;
      table.rows.push_back({hc.name, std::to_string(bytes), std::to_string(f.hops), fmt(latency, 1),
                            fmt(gbps, 1), fmt(f.bottleneck_gbps, 1),
                            fmt(100.0 * gbps / f.bottleneck_gbps, 1) + "%"});
    }
  }
  res.tables.push_back(table);

  res.metrics["invariants"] = probe_invariants(sizes, lat, bw_ratio);
  res.metrics["local_hbm_32KiB_latency_ns"] =
      lat["local_hbm"].count(32768) ? lat["local_hbm"][32768] : 0.0;

  const long long contention = ctx.params.integer("contention");
  if (contention != 0 && contention != 1)
    throw UsageError("--param contention=" + ctx.params.str("contention") + ": expected 0 or 1");
  if (contention != 0) add_contention_points(p, cmd, res);
  const long long patterns = ctx.params.integer("patterns");
  if (patterns != 0 && patterns != 1)
    throw UsageError("--param patterns=" + ctx.params.str("patterns") + ": expected 0 or 1");
  if (patterns != 0) add_pattern_points(p, cmd, res);
  return res;
}

}  // namespace kb
