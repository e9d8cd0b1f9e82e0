#include "platform/analytic/allreduce_model.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "models/topology/cube_grid.h"

namespace kb {

namespace {

double memory_latency(const TopologyConfig& c, RingSpace s) {
  switch (s) {
    case RingSpace::kTcm:
      return c.pe.tcm.latency_ns;
    case RingSpace::kHbm:
      return c.pe.hbm.access_latency_ns;
    case RingSpace::kSram:
      return c.cube.sram.latency_ns;
  }
  return 0;
}

double link_bw(const LinkConfig& l) {
  return l.bandwidth_gbps * static_cast<double>(l.packet_bytes) /
         static_cast<double>(l.packet_bytes + l.header_bytes);
}

struct Model {
  const TopologyConfig& c;
  RingSpace buffer;
  CubeGrid grid{c.sip.cubes_x, c.sip.cubes_y, c.sip.topology};

  // One-way latency of a PE -> PE path crossing `hops` cube links.
  double path_ns(unsigned hops) const {
    return 2 * c.pe.xbar_latency_ns + 2 * c.cube.pe_link.latency_ns +
           (hops + 1) * c.cube.router_latency_ns + hops * c.sip.cube_link.latency_ns;
  }
  // Store-and-forward: a DMA burst (at most one slot) is serialised whole on
  // every link it crosses; all but the slowest link add that to the step.
  double forward_ns(unsigned hops) const {
    const auto burst = static_cast<double>(std::min(c.pe.dma.burst_bytes, c.pe.ipcq.slot_bytes));
    const double pe = burst / link_bw(c.cube.pe_link), cube = burst / link_bw(c.sip.cube_link);
    const double links = 2 * pe + hops * cube;
    return links - (hops ? std::max(pe, cube) : pe);
  }
  // α of a step across `hops` cube links: DMA setup, data path (per-hop
  // latencies and store-and-forward), the buffer's access latency, doorbell.
  double alpha(unsigned hops) const {
    return c.pe.dma.setup_ns + path_ns(hops) + forward_ns(hops) + memory_latency(c, buffer) +
           path_ns(hops);
  }
  double beta_cube() const {
    return 1.0 / std::min(link_bw(c.sip.cube_link), link_bw(c.cube.pe_link));
  }
  double beta_intra() const { return 1.0 / link_bw(c.cube.pe_link); }
  unsigned hops(const PeAddr& a, const PeAddr& b) const {
    return a.cube == b.cube ? 0 : grid.hops(a.cube, b.cube);
  }
  // The slowest step of a ring: the most cube hops between neighbours.
  unsigned ring_hops(const std::vector<PeAddr>& ring) const {
    unsigned h = 0;
    for (size_t i = 0; i < ring.size(); ++i)
      h = std::max(h, hops(ring[i], ring[(i + 1) % ring.size()]));
    return h;
  }
  double beta_for(unsigned hops) const { return hops ? beta_cube() : beta_intra(); }
};

std::vector<PeAddr> ring_members(const fw::CollectiveGroup& g,
                                 fw::RingView (fw::CollectiveGroup::*which)(const PeAddr&) const,
                                 const PeAddr& start) {
  std::vector<PeAddr> ring{start};
  for (;;) {
    const PeAddr next = (g.*which)(ring.back()).right;
    if (next == start) return ring;
    ring.push_back(next);
  }
}

}  // namespace

AlphaBeta allreduce_alpha_beta(const TopologyConfig& cfg, fw::AllReduceAlgo algo,
                               const fw::CollectiveGroup& g, RingSpace buffer,
                               uint64_t bytes_per_pe) {
  Model m{cfg, buffer};
  AlphaBeta ab;
  ab.alpha_ns = m.alpha(1);
  ab.beta_ns_per_byte = m.beta_cube();
  ab.alpha_intra_ns = m.alpha(0);
  ab.beta_intra_ns_per_byte = m.beta_intra();
  const auto n = static_cast<double>(bytes_per_pe);
  const double p = g.size();
  const PeAddr first = g.member(0);
  auto ring_term = [&](const std::vector<PeAddr>& ring, double bytes) {
    const auto k = static_cast<double>(ring.size());
    if (k <= 1) return 0.0;
    const unsigned h = m.ring_hops(ring);
    return 2 * (k - 1) * m.alpha(h) + 2 * (k - 1) / k * bytes * m.beta_for(h);
  };
  std::ostringstream f;
  switch (algo) {
    case fw::AllReduceAlgo::kRing:
      ab.total_ns = ring_term(g.members(), n);
      f << "2(p-1)a + 2(p-1)/p n b, p=" << p;
      break;
    case fw::AllReduceAlgo::kRingBidir:
      if (p <= 2) {
        ab.total_ns = ring_term(g.members(), n);
      } else {
        ab.total_ns = ring_term(g.members(), n / 2);
      }
      f << "2(p-1)a + 2(p-1)/p (n/2) b, p=" << p;
      break;
    case fw::AllReduceAlgo::kTwoD: {
      const auto row = ring_members(g, &fw::CollectiveGroup::row_ring, first);
      const auto col = ring_members(g, &fw::CollectiveGroup::column_ring, first);
      const auto X = static_cast<double>(row.size()), Y = static_cast<double>(col.size());
      ab.total_ns = 2 * (X - 1) * m.alpha(m.ring_hops(row)) +
                    2 * (Y - 1) * m.alpha(m.ring_hops(col)) +
                    2 * (X * Y - 1) / (X * Y) * n * m.beta_cube();
      f << "2(X-1)a_x + 2(Y-1)a_y + 2(XY-1)/(XY) n b, X=" << X << " Y=" << Y;
      break;
    }
    case fw::AllReduceAlgo::kHierarchical: {
      const auto cube = ring_members(g, &fw::CollectiveGroup::cube_ring, first);
      const double P = static_cast<double>(cube.size()), C = g.cubes();
      double inter = 0;
      if (fw::natural_allreduce(cfg.sip.topology) == fw::AllReduceAlgo::kRing) {
        const auto ring = ring_members(g, &fw::CollectiveGroup::inter_cube_ring, first);
        inter = 2 * (C - 1) * m.alpha(m.ring_hops(ring));
      } else {
        const auto row = ring_members(g, &fw::CollectiveGroup::inter_cube_row, first);
        const auto col = ring_members(g, &fw::CollectiveGroup::inter_cube_column, first);
        inter = 2 * (static_cast<double>(row.size()) - 1) * m.alpha(m.ring_hops(row)) +
                2 * (static_cast<double>(col.size()) - 1) * m.alpha(m.ring_hops(col));
      }
      // The P inter-cube all-reduces (n/P each) share the cube links.
      inter += 2 * (C - 1) / C * n * m.beta_cube();
      ab.total_ns = ring_term(cube, n) + inter;
      f << "intra 2(P-1)a_i + 2(P-1)/P n b_i; inter 2(X+Y-2)a (or 2(C-1)a) + 2(C-1)/C n b, P=" << P
        << " C=" << C;
      break;
    }
    case fw::AllReduceAlgo::kChain: {
      const double c = std::min<double>(n, static_cast<double>(cfg.pe.ipcq.slot_bytes));
      unsigned h = 0;
      for (unsigned i = 0; i + 1 < g.size(); ++i)
        h = std::max(h, m.hops(g.member(i), g.member(i + 1)));
      ab.total_ns = p <= 1 ? 0 : 2 * ((p - 1) * m.alpha(h) + (n + (p - 2) * c) * m.beta_for(h));
      f << "2((p-1)a + (n + (p-2)c) b), slot c=" << c << ", p=" << p;
      break;
    }
    case fw::AllReduceAlgo::kBinomial: {
      double t = 0;
      unsigned levels = 0;
      for (unsigned mask = 1; mask < g.size(); mask <<= 1, ++levels) {
        unsigned h = 0;
        for (unsigned i = 0; i + mask < g.size(); i += 2 * mask)
          h = std::max(h, m.hops(g.member(i), g.member(i + mask)));
        t += m.alpha(h) + n * m.beta_for(h);
      }
      ab.total_ns = 2 * t;
      f << "2 sum over " << levels << " levels (a_level + n b)";
      break;
    }
  }
  ab.formula = f.str();
  return ab;
}

}  // namespace kb
