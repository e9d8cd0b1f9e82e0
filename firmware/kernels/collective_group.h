// The PEs a collective runs over, and the rings and trees it lays on them.
//
// A group is PE 0..P-1 of every cube of one SIP (P = pes_per_cube). Ranks
// are numbered in ring order: the cubes in a cycle that only uses cube links
// (a Hamiltonian cycle of the grid where one exists), and inside each cube
// its P PEs in order. Neighbouring ranks are then one hop apart, except the
// wrap of a mesh row or column, which has no link of its own.
//
// The 2D algorithms see the group as a logical X x Y grid, X = cubes_x * P
// (a row runs through the P PEs of each cube in turn), Y = cubes_y.
#pragma once

#include <vector>

#include "models/commands/commands.h"
#include "models/topology/topology_kind.h"

namespace kb {
namespace fw {

// One ring through some members: this PE's place in it and its neighbours.
struct RingView {
  unsigned pos = 0, size = 1;
  PeAddr left, right;  // receive from left, send to right
};

class CollectiveGroup {
 public:
  // PE 0..pes_per_cube-1 of every cube of SIP `sip`, whose shape is `shape`
  // (TopologyConfig::sip_shape()).
  CollectiveGroup(const SipShape& shape, unsigned sip, unsigned pes_per_cube);

  unsigned size() const { return static_cast<unsigned>(order_.size()); }
  unsigned pes_per_cube() const { return p_; }
  unsigned cubes() const { return cx_ * cy_; }
  CubeTopology topology() const { return topo_; }
  const std::vector<PeAddr>& members() const { return order_; }  // in ring order
  PeAddr member(unsigned rank) const { return order_.at(rank); }
  bool contains(const PeAddr& pe) const;
  unsigned rank_of(const PeAddr& pe) const;  // throws std::invalid_argument if not a member

  // The flat ring through every member (ring order).
  RingView ring(const PeAddr& me) const;
  // 2D: the logical grid and this PE's row ring (along X) and column ring (along Y).
  unsigned grid_x() const { return cx_ * p_; }
  unsigned grid_y() const { return cy_; }
  RingView row_ring(const PeAddr& me) const;
  RingView column_ring(const PeAddr& me) const;
  // Hierarchical: the ring of this PE's cube (its P PEs), and the cube-level
  // ring / rows / columns of the PEs with the same index in every cube.
  RingView cube_ring(const PeAddr& me) const;
  RingView inter_cube_ring(const PeAddr& me) const;
  RingView inter_cube_row(const PeAddr& me) const;
  RingView inter_cube_column(const PeAddr& me) const;

  // The cubes in ring order (a cycle over cube links where one exists).
  const std::vector<unsigned>& cube_cycle() const { return cycle_; }

 private:
  PeAddr at(unsigned cube, unsigned pe) const { return {sip_, cube, pe}; }
  static RingView view(const std::vector<PeAddr>& ring, const PeAddr& me);

  unsigned sip_, cx_, cy_, p_;
  CubeTopology topo_;
  std::vector<unsigned> cycle_;
  std::vector<PeAddr> order_;
};

}  // namespace fw
}  // namespace kb
