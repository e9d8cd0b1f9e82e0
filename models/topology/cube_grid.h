// Cube-level topology of one SIP and its routing (pure functions, unit-tested).
//
// Cubes are numbered row-major: id = y * cubes_x + x.
//   mesh     links to the +-x and +-y neighbours that exist.
//   torus2d  the mesh plus wrap links in both dimensions (a dimension of size 2
//            has one link between its two cubes; of size 1, none).
//   ring     one ring through all cubes in snake order: row 0 left to right,
//            row 1 right to left, ... and the last cube back to cube 0.
// Routing is deterministic, one path per (from, to):
//   mesh / torus2d: dimension order, X first then Y; on a torus each
//            dimension goes the shorter way round, ties to the + direction.
//   ring:    the shorter way round the ring, ties in the ring's order.
#pragma once

#include <vector>

#include "models/topology/topology_kind.h"

namespace kb {

class CubeGrid {
 public:
  CubeGrid(unsigned cubes_x, unsigned cubes_y, CubeTopology topology);

  unsigned size() const { return x_ * y_; }
  unsigned x_of(unsigned id) const { return id % x_; }
  unsigned y_of(unsigned id) const { return id / x_; }
  unsigned id(unsigned x, unsigned y) const { return y * x_ + x; }
  CubeTopology topology() const { return topo_; }

  // Cubes with a direct link from `c`, deterministic order, no duplicates.
  const std::vector<unsigned>& neighbors(unsigned c) const { return neighbors_.at(c); }
  // The next cube on the path from `from` towards `to` (from != to).
  unsigned next_hop(unsigned from, unsigned to) const;
  // Every cube on the path, excluding `from`, ending with `to`.
  std::vector<unsigned> path(unsigned from, unsigned to) const;
  unsigned hops(unsigned from, unsigned to) const;
  // The ring order (ring topology only; for other topologies, row-major).
  const std::vector<unsigned>& ring_order() const { return ring_; }

 private:
  static unsigned step_dim(unsigned from, unsigned to, unsigned n, bool wrap);
  void add_link(unsigned a, unsigned b);

  unsigned x_, y_;
  CubeTopology topo_;
  std::vector<std::vector<unsigned>> neighbors_;
  std::vector<unsigned> ring_;      // position -> cube id
  std::vector<unsigned> ring_pos_;  // cube id -> position
};

// SIP-level graph: ring (SIP i <-> i+1 mod n) or full (every pair linked).
class SipGraph {
 public:
  SipGraph(unsigned n_sips, SipTopology topology);
  const std::vector<unsigned>& neighbors(unsigned s) const { return neighbors_.at(s); }
  unsigned next_hop(unsigned from, unsigned to) const;
  unsigned hops(unsigned from, unsigned to) const;

 private:
  unsigned n_;
  SipTopology topo_;
  std::vector<std::vector<unsigned>> neighbors_;
};

}  // namespace kb
