#include "firmware/kernels/collective_group.h"

#include <stdexcept>
#include <string>

#include "models/topology/cube_grid.h"

namespace kb {
namespace fw {

namespace {

// A cycle through every cube of an X x Y grid that only steps to a
// neighbour, when one exists (X or Y even, or a line): row 0 left to right,
// then rows 1..Y-1 snaking over columns X-1..1, then up column 0.
std::vector<unsigned> grid_cycle(unsigned cx, unsigned cy) {
  std::vector<unsigned> c;
  auto id = [cx](unsigned x, unsigned y) { return y * cx + x; };
  if (cy == 1 || cx == 1 || (cy % 2 != 0 && cx % 2 != 0)) {
    // A line, or no such cycle (odd x odd): row-major snake.
    for (unsigned y = 0; y < cy; ++y)
      for (unsigned i = 0; i < cx; ++i) c.push_back(id(y % 2 == 0 ? i : cx - 1 - i, y));
    return c;
  }
  if (cy % 2 != 0) {  // transpose: X is even
    for (unsigned cube : grid_cycle(cy, cx)) c.push_back(id(cube / cy, cube % cy));
    return c;
  }
  for (unsigned x = 0; x < cx; ++x) c.push_back(id(x, 0));
  for (unsigned y = 1; y < cy; ++y)
    for (unsigned i = 1; i < cx; ++i) c.push_back(id(y % 2 == 1 ? cx - i : i, y));
  for (unsigned y = cy - 1; y >= 1; --y) c.push_back(id(0, y));
  return c;
}

}  // namespace

CollectiveGroup::CollectiveGroup(const SipShape& shape, unsigned sip, unsigned pes_per_cube)
    : sip_(sip), cx_(shape.cubes_x), cy_(shape.cubes_y), p_(pes_per_cube), topo_(shape.topology) {
  if (p_ == 0 || p_ > shape.cube_pes)
    throw std::invalid_argument("pes_per_cube must be 1.." + std::to_string(shape.cube_pes) +
                                ", got " + std::to_string(p_));
  if (topo_ == CubeTopology::kRing) {
    cycle_ = CubeGrid(cx_, cy_, topo_).ring_order();
  } else {
    cycle_ = grid_cycle(cx_, cy_);
  }
  for (unsigned cube : cycle_)
    for (unsigned pe = 0; pe < p_; ++pe) order_.push_back(at(cube, pe));
}

bool CollectiveGroup::contains(const PeAddr& pe) const {
  return pe.sip == sip_ && pe.cube < cubes() && pe.pe < p_;
}

unsigned CollectiveGroup::rank_of(const PeAddr& pe) const {
  for (unsigned r = 0; r < order_.size(); ++r)
    if (order_[r] == pe) return r;
  throw std::invalid_argument("PE " + to_string(pe) + " is not in the collective group");
}

RingView CollectiveGroup::view(const std::vector<PeAddr>& ring, const PeAddr& me) {
  RingView v;
  v.size = static_cast<unsigned>(ring.size());
  for (unsigned i = 0; i < ring.size(); ++i)
    if (ring[i] == me) v.pos = i;
  v.left = ring[(v.pos + v.size - 1) % v.size];
  v.right = ring[(v.pos + 1) % v.size];
  return v;
}

RingView CollectiveGroup::ring(const PeAddr& me) const {
  return view(order_, me);
}

RingView CollectiveGroup::row_ring(const PeAddr& me) const {
  const unsigned y = me.cube / cx_;
  std::vector<PeAddr> row;
  for (unsigned x = 0; x < cx_; ++x)
    for (unsigned pe = 0; pe < p_; ++pe) row.push_back(at(y * cx_ + x, pe));
  return view(row, me);
}

RingView CollectiveGroup::column_ring(const PeAddr& me) const {
  const unsigned x = me.cube % cx_;
  std::vector<PeAddr> col;
  for (unsigned y = 0; y < cy_; ++y) col.push_back(at(y * cx_ + x, me.pe));
  return view(col, me);
}

RingView CollectiveGroup::cube_ring(const PeAddr& me) const {
  std::vector<PeAddr> ring;
  for (unsigned pe = 0; pe < p_; ++pe) ring.push_back(at(me.cube, pe));
  return view(ring, me);
}

RingView CollectiveGroup::inter_cube_ring(const PeAddr& me) const {
  std::vector<PeAddr> ring;
  for (unsigned cube : cycle_) ring.push_back(at(cube, me.pe));
  return view(ring, me);
}

RingView CollectiveGroup::inter_cube_row(const PeAddr& me) const {
  const unsigned y = me.cube / cx_;
  std::vector<PeAddr> row;
  for (unsigned x = 0; x < cx_; ++x) row.push_back(at(y * cx_ + x, me.pe));
  return view(row, me);
}

RingView CollectiveGroup::inter_cube_column(const PeAddr& me) const {
  return column_ring(me);
}

}  // namespace fw
}  // namespace kb
