#include "platform/analytic/gemm_model.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "models/commands/commands.h"
#include "models/common/checked_math.h"
#include "models/hbm/pc_mapping.h"
#include "platform/analytic/command_shapes.h"
#include "platform/analytic/pe_paths.h"
#include "platform/config/topology_config.h"

namespace kb {

namespace {

constexpr unsigned kElem = 2;  // fp16

// One DMA burst as the pseudo-channels see it: its bytes on each channel.
using BurstLoad = std::vector<std::pair<unsigned, double>>;

// Bytes each pseudo-channel serves for a strided access, split as the DMA
// splits it (rows, then bursts) and as the controller interleaves it; each
// burst is also appended to `bursts`, in issue order.
void add_pc_bytes(const HbmConfig& h, uint64_t burst, uint64_t base, uint64_t rows,
                  uint64_t row_bytes, uint64_t stride, std::vector<double>& pc,
                  std::vector<BurstLoad>& bursts) {
  if (stride == row_bytes) {  // contiguous rows move as one run
    row_bytes *= rows;
    rows = 1;
  }
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t off = 0; off < row_bytes; off += burst) {
      uint64_t pos = base + r * stride + off;
      const uint64_t end = pos + std::min(burst, row_bytes - off);
      bursts.emplace_back();
      while (pos < end) {
        const uint64_t chunk_end =
            std::min(end, (pos / h.interleave_bytes + 1) * h.interleave_bytes);
        pc[pc_of_offset(h, pos)] += static_cast<double>(chunk_end - pos);
        bursts.back().emplace_back(pc_of_offset(h, pos), static_cast<double>(chunk_end - pos));
        pos = chunk_end;
      }
    }
}

// Latency of one tile's DMA read into TCM on the local path, alone: the
// setup, then the own-HBM read (pe_paths.h) whose last burst lands alone.
double dma_read_ns(const TopologyConfig& c, double pc_time_ns, uint64_t last_burst) {
  return own_hbm_read_ns(c, c.pe.dma.setup_ns, pc_time_ns, static_cast<double>(last_burst));
}

// Latency of one tile's DMA write from TCM to the local HBM, alone.
double dma_write_ns(const TopologyConfig& c, uint64_t bytes, uint64_t last_burst) {
  const auto& pe = c.pe;
  return pe.dma.setup_ns + 4 * pe.xbar_latency_ns +
         static_cast<double>(bytes) / pe.tcm.bandwidth_gbps + pe.tcm.latency_ns +
         static_cast<double>(last_burst) / pe.hbm.pc_bandwidth_gbps + pe.hbm.access_latency_ns;
}

// The traffic of the GEMM's tokens (native tiles, in the composite's
// (m, n, k) order) as the analytic model counts it.
struct TokenTraffic {
  TokenTraffic(const PeConfig& pe, const GemmShape& s, const std::string& variant)
      : pe(pe),
        s(s),
        a_streamed(gemm_streams_a(variant)),
        b_streamed(gemm_streams_b(variant)),
        tm(pe.gemm.tile_m),
        tk(pe.gemm.tile_k),
        tn(pe.gemm.tile_n),
        burst(pe.dma.burst_bytes),
        first_pc(pe.hbm.num_pcs, 0.0),
        first_burst(burst) {}

  // Token (mi, ni, ki): `last_k` on an output tile's last K step, `last` on
  // the kernel's last token.
  void add(uint64_t mi, uint64_t ni, uint64_t ki, bool last_k, bool last) {
    const uint64_t mm = std::min<int64_t>(tm, s.m - static_cast<int64_t>(mi) * tm);
    const uint64_t kk = std::min<int64_t>(tk, s.k - static_cast<int64_t>(ki) * tk);
    const uint64_t nnn = std::min<int64_t>(tn, s.n - static_cast<int64_t>(ni) * tn);
    const bool first = mi == 0 && ni == 0 && ki == 0;
    token_pc.emplace_back(pe.hbm.num_pcs, 0.0);
    auto& target = token_pc.back();
    if (a_streamed) {
      add_pc_bytes(pe.hbm, burst, (mi * tm * s.k + ki * tk) * kElem, mm, kk * kElem, s.k * kElem,
                   target, bursts);
      dma_port_bytes += mm * kk * kElem;
      read_transfers += 1;
      if (first) first_burst = std::min<uint64_t>(burst, kk * kElem);
    }
    if (b_streamed) {
      add_pc_bytes(pe.hbm, burst, (ki * tk * s.n + ni * tn) * kElem, kk, nnn * kElem, s.n * kElem,
                   target, bursts);
      dma_port_bytes += kk * nnn * kElem;
      read_transfers += 1;
      if (first) first_burst = std::min<uint64_t>(burst, nnn * kElem);
    }
    if (first) first_pc = target;
    fetch_bytes += (mm * kk + kk * nnn) * kElem;
    if (last_k && !last) {  // the last tile's write-back is in the tail
      add_pc_bytes(pe.hbm, burst, (mi * tm * s.n + ni * tn) * kElem, mm, nnn * kElem, s.n * kElem,
                   target, bursts);
      dma_port_bytes += mm * nnn * kElem;
    }
    if (last_k) store_bytes += mm * nnn * kElem;
  }

  const PeConfig& pe;
  const GemmShape& s;
  const bool a_streamed, b_streamed;
  const int64_t tm, tk, tn;
  const uint64_t burst;
  // Bytes per pseudo-channel for each token (reads, and the write of the
  // output tile on the last K step).
  std::vector<std::vector<double>> token_pc;
  std::vector<BurstLoad> bursts;  // every burst of the tokens, in issue order
  std::vector<double> first_pc;
  double fetch_bytes = 0, store_bytes = 0, dma_port_bytes = 0, read_transfers = 0;
  uint64_t first_burst;
};

// HBM steady state: the span of pseudo-channel service that the kernel's
// bursts need, issued in order with at most `max_outstanding` in flight.
// Each pseudo-channel serves its pieces of the bursts first come, first
// served at its bandwidth; a burst frees its slot when its last piece is
// served and its data has crossed into the TCM (access latency, the
// crossbar both ways for the read and for the TCM write, the TCM write and
// its latency, as dma_read_ns). The output tiles' write-backs are counted in
// the same stream, after their tile's reads: they load the same channels,
// though PE_DMA issues them from its write channel's own window. So a
// channel idles only while no burst in flight needs it: the load balances
// across channels within the window, not over the whole kernel, and a
// stretch of bursts that all land on one channel (a strided operand under
// the plain interleave mapping) runs at that channel's bandwidth alone.
double hbm_stream_ns(const PeConfig& pe, const std::vector<BurstLoad>& bursts) {
  std::vector<double> pc_free(pe.hbm.num_pcs, 0.0);
  std::priority_queue<double, std::vector<double>, std::greater<>> in_flight;  // slot release
  double t_issue = 0, last_end = 0;
  for (const BurstLoad& b : bursts) {
    if (in_flight.size() >= pe.dma.max_outstanding) {
      t_issue = std::max(t_issue, in_flight.top());
      in_flight.pop();
    }
    double end = t_issue, bytes = 0;
    for (const auto& [pc, n] : b) {
      pc_free[pc] = std::max(pc_free[pc], t_issue) + n / pe.hbm.pc_bandwidth_gbps;
      end = std::max(end, pc_free[pc]);
      bytes += n;
    }
    last_end = std::max(last_end, end);
    in_flight.push(end + pe.hbm.access_latency_ns + 4 * pe.xbar_latency_ns +
                   bytes / pe.tcm.bandwidth_gbps + pe.tcm.latency_ns);
  }
  return last_end;
}

}  // namespace

bool gemm_streams_a(const std::string& variant) {
  return variant == "ref_ref";
}
bool gemm_streams_b(const std::string& variant) {
  return variant != "load_load";
}

GemmAnalytic gemm_analytic(const TopologyConfig& c, const GemmShape& s,
                           const std::string& variant) {
  const auto& pe = c.pe;
  const int64_t tm = pe.gemm.tile_m, tk = pe.gemm.tile_k, tn = pe.gemm.tile_n;
  const uint64_t nm = ceil_div(s.m, tm), nk = ceil_div(s.k, tk), nn = ceil_div(s.n, tn);
  const double tile_ns = 2.0 * tm * tk * tn / (pe.gemm.peak_tflops * 1000.0);
  const uint64_t burst = pe.dma.burst_bytes;
  TokenTraffic tr(pe, s, variant);
  for (uint64_t mi = 0; mi < nm; ++mi)
    for (uint64_t ni = 0; ni < nn; ++ni)
      for (uint64_t ki = 0; ki < nk; ++ki)
        tr.add(mi, ni, ki, ki + 1 == nk, mi + 1 == nm && ni + 1 == nn && ki + 1 == nk);
  GemmAnalytic a;
  a.n_tiles = static_cast<unsigned>(nm * nn * nk);
  double first_pc_ns = 0;
  for (double b : tr.first_pc) first_pc_ns = std::max(first_pc_ns, b / pe.hbm.pc_bandwidth_gbps);
  const double pc_max = hbm_stream_ns(pe, tr.bursts);
  struct Unit {
    const char* name;
    double total_ns;
  };
  const std::vector<Unit> units = {{"hbm", pc_max},
                                   {"tcm_dma_port", tr.dma_port_bytes / pe.tcm.bandwidth_gbps},
                                   {"dma_setup", tr.read_transfers * pe.dma.setup_ns},
                                   {"fetch", tr.fetch_bytes / pe.tcm.bandwidth_gbps},
                                   {"gemm", a.n_tiles * tile_ns},
                                   {"store", tr.store_bytes / pe.tcm.bandwidth_gbps}};
  const Unit* b = units.data();
  for (const Unit& u : units)
    if (u.total_ns > b->total_ns) b = &u;
  a.bottleneck = b->name;
  a.bottleneck_ns = b->total_ns / a.n_tiles;

  // First-token and last-token stage times of the chain
  // [DMA_READ] FETCH GEMM ... STORE DMA_WRITE.
  const bool streams = gemm_streams_a(variant) || gemm_streams_b(variant);
  const uint64_t first_fetch = (std::min<int64_t>(tm, s.m) * std::min<int64_t>(tk, s.k) +
                                std::min<int64_t>(tk, s.k) * std::min<int64_t>(tn, s.n)) *
                               kElem;
  const uint64_t last_store =
      static_cast<uint64_t>((s.m - (nm - 1) * tm) * (s.n - (nn - 1) * tn)) * kElem;
  const double t_din = streams ? dma_read_ns(c, first_pc_ns, tr.first_burst) : 0;
  const double t_fetch = first_fetch / pe.tcm.bandwidth_gbps;
  const double t_store = last_store / pe.tcm.bandwidth_gbps;
  // The output tile's rows are contiguous when it spans all of N (coalesced).
  const uint64_t out_row = (s.n - (nn - 1) * tn) * kElem;
  const double t_dout =
      dma_write_ns(c, last_store, std::min<uint64_t>(burst, nn == 1 ? last_store : out_row));
  const std::string bn = a.bottleneck;
  // The one-op GEMM composite this study issues.
  const CompositeCmd probe = composite_shape({gemm_op_shape()}, 0);
  const double dispatch =
      (pe.cost_model.fixed_per_composite_cycles +
       static_cast<double>(probe.logical_bytes()) * pe.cost_model.per_byte_cycles) /
      pe.clock_ghz;
  if (bn == "hbm" || bn == "tcm_dma_port" || bn == "dma_setup") {
    a.fill_ns = dispatch + (t_din - first_pc_ns);
    a.tail_ns = t_fetch + tile_ns + t_store + t_dout;
  } else if (bn == "fetch") {
    a.fill_ns = dispatch + t_din;
    a.tail_ns = tile_ns + t_store + t_dout;
  } else if (bn == "gemm") {
    a.fill_ns = dispatch + t_din + t_fetch;
    a.tail_ns = t_store + t_dout;
  } else {  // store
    a.fill_ns = dispatch + t_din + t_fetch + tile_ns;
    a.tail_ns = t_dout;
  }
  a.window_ns = a.fill_ns + b->total_ns + a.tail_ns;
  return a;
}

namespace {

// Bursts of one descriptor: rows that are contiguous on both sides move as one
// run (DmaTransfer::coalescible), other rows burst by burst each.
uint64_t dma_bursts(uint64_t burst, uint64_t rows, uint64_t row_bytes, uint64_t src_stride,
                    uint64_t dst_stride) {
  if (rows <= 1 || (src_stride == row_bytes && dst_stride == row_bytes))
    return ceil_div(static_cast<int64_t>(rows * row_bytes), static_cast<int64_t>(burst));
  return rows * ceil_div(static_cast<int64_t>(row_bytes), static_cast<int64_t>(burst));
}

}  // namespace

const char* GemmEnergyModel::dominant() const {
  const std::pair<const char*, double> classes[] = {
      {"gemm", gemm_pj}, {"hbm", hbm_pj}, {"tcm", tcm_pj}, {"router", xbar_pj}, {"dma", dma_pj}};
  const auto* best = &classes[0];
  for (const auto& c : classes)
    if (c.second > best->second) best = &c;
  return best->first;
}

GemmEnergyModel gemm_energy_model(const TopologyConfig& c, const GemmShape& s,
                                  const std::string& variant) {
  const auto& pe = c.pe;
  const int64_t tm = pe.gemm.tile_m, tk = pe.gemm.tile_k, tn = pe.gemm.tile_n;
  const uint64_t burst = pe.dma.burst_bytes;
  const bool a_streamed = gemm_streams_a(variant), b_streamed = gemm_streams_b(variant);
  uint64_t hbm_read = 0, hbm_written = 0, tcm_read = 0, tcm_written = 0, dma_bytes = 0;
  GemmEnergyModel e;
  // A load (tl.load): the whole operand, HBM to TCM, as one contiguous run.
  auto load = [&](uint64_t bytes) {
    hbm_read += bytes;
    tcm_written += bytes;
    dma_bytes += bytes;
    e.bursts += dma_bursts(burst, 1, bytes, bytes, bytes);
  };
  if (!a_streamed) load(static_cast<uint64_t>(s.m * s.k) * kElem);
  if (!b_streamed) load(static_cast<uint64_t>(s.k * s.n) * kElem);
  const uint64_t nm = ceil_div(s.m, tm), nk = ceil_div(s.k, tk), nn = ceil_div(s.n, tn);
  for (uint64_t mi = 0; mi < nm; ++mi)
    for (uint64_t ni = 0; ni < nn; ++ni)
      for (uint64_t ki = 0; ki < nk; ++ki) {
        const uint64_t mm = std::min<int64_t>(tm, s.m - static_cast<int64_t>(mi) * tm);
        const uint64_t kk = std::min<int64_t>(tk, s.k - static_cast<int64_t>(ki) * tk);
        const uint64_t n_ = std::min<int64_t>(tn, s.n - static_cast<int64_t>(ni) * tn);
        if (a_streamed) {  // DMA_READ of the A tile into its staging slot
          hbm_read += mm * kk * kElem;
          tcm_written += mm * kk * kElem;
          dma_bytes += mm * kk * kElem;
          e.bursts += dma_bursts(burst, mm, kk * kElem, s.k * kElem, kk * kElem);
        }
        if (b_streamed) {  // DMA_READ of the W tile
          hbm_read += kk * n_ * kElem;
          tcm_written += kk * n_ * kElem;
          dma_bytes += kk * n_ * kElem;
          e.bursts += dma_bursts(burst, kk, n_ * kElem, s.n * kElem, n_ * kElem);
        }
        tcm_read += (mm * kk + kk * n_) * kElem;  // FETCH
        ++e.native_tiles;
        if (ki + 1 == nk) {  // STORE, then DMA_WRITE of the output tile
          tcm_written += mm * n_ * kElem;
          tcm_read += mm * n_ * kElem;
          hbm_written += mm * n_ * kElem;
          dma_bytes += mm * n_ * kElem;
          e.bursts += dma_bursts(burst, mm, n_ * kElem, n_ * kElem, s.n * kElem);
        }
      }
  e.hbm_bytes = hbm_read + hbm_written;
  e.tcm_bytes = tcm_read + tcm_written;
  e.gemm_pj = static_cast<double>(e.native_tiles) * 2.0 * static_cast<double>(tm * tk * tn) *
              pe.gemm.energy.pj_per_flop;
  e.hbm_pj = pe.hbm.energy.dynamic_pj(hbm_read, hbm_written);
  e.tcm_pj = pe.tcm.energy.dynamic_pj(tcm_read, tcm_written);
  e.xbar_pj = pe.xbar_energy.dynamic_pj(2 * dma_bytes);
  e.dma_pj = static_cast<double>(e.bursts) * pe.dma.energy.pj_per_burst;
  return e;
}

}  // namespace kb
