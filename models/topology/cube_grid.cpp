#include "models/topology/cube_grid.h"

#include <algorithm>
#include <stdexcept>

namespace kb {

CubeGrid::CubeGrid(unsigned cubes_x, unsigned cubes_y, CubeTopology topology)
    : x_(cubes_x), y_(cubes_y), topo_(topology), neighbors_(size_t{cubes_x} * cubes_y) {
  if (x_ == 0 || y_ == 0) throw std::invalid_argument("cube grid dimensions must be >= 1");
  // Snake order; for mesh/torus it only serves as a documented enumeration.
  for (unsigned y = 0; y < y_; ++y)
    for (unsigned i = 0; i < x_; ++i) ring_.push_back(id(y % 2 == 0 ? i : x_ - 1 - i, y));
  ring_pos_.assign(size(), 0);
  for (unsigned p = 0; p < ring_.size(); ++p) ring_pos_[ring_[p]] = p;

  if (topo_ == CubeTopology::kRing) {
    const unsigned n = size();
    for (unsigned p = 0; p + 1 < n; ++p) add_link(ring_[p], ring_[p + 1]);
    if (n > 2) add_link(ring_[n - 1], ring_[0]);
  } else {
    const bool wrap = topo_ == CubeTopology::kTorus2d;
    for (unsigned y = 0; y < y_; ++y)
      for (unsigned x = 0; x < x_; ++x) {
        if (x + 1 < x_) add_link(id(x, y), id(x + 1, y));
        if (y + 1 < y_) add_link(id(x, y), id(x, y + 1));
        if (wrap && x_ > 2 && x == x_ - 1) add_link(id(x, y), id(0, y));
        if (wrap && y_ > 2 && y == y_ - 1) add_link(id(x, y), id(x, 0));
      }
  }
  for (auto& n : neighbors_) std::sort(n.begin(), n.end());
}

void CubeGrid::add_link(unsigned a, unsigned b) {
  if (a == b) return;
  auto& na = neighbors_[a];
  if (std::find(na.begin(), na.end(), b) != na.end()) return;
  na.push_back(b);
  neighbors_[b].push_back(a);
}

// One step along a dimension of size n from coordinate `from` towards `to`.
unsigned CubeGrid::step_dim(unsigned from, unsigned to, unsigned n, bool wrap) {
  if (!wrap) return to > from ? from + 1 : from - 1;
  const unsigned fwd = (to + n - from) % n;  // steps in the + direction
  const unsigned back = n - fwd;
  return fwd <= back ? (from + 1) % n : (from + n - 1) % n;
}

unsigned CubeGrid::next_hop(unsigned from, unsigned to) const {
  if (from == to) throw std::invalid_argument("next_hop: from == to");
  if (topo_ == CubeTopology::kRing) {
    const unsigned n = size();
    const unsigned pf = ring_pos_[from], pt = ring_pos_[to];
    const unsigned fwd = (pt + n - pf) % n;
    return fwd <= n - fwd ? ring_[(pf + 1) % n] : ring_[(pf + n - 1) % n];
  }
  const bool wrap = topo_ == CubeTopology::kTorus2d;
  const unsigned fx = x_of(from), fy = y_of(from), tx = x_of(to), ty = y_of(to);
  if (fx != tx) return id(step_dim(fx, tx, x_, wrap), fy);
  return id(fx, step_dim(fy, ty, y_, wrap));
}

std::vector<unsigned> CubeGrid::path(unsigned from, unsigned to) const {
  std::vector<unsigned> p;
  for (unsigned c = from; c != to;) {
    c = next_hop(c, to);
    p.push_back(c);
    if (p.size() > size()) throw std::logic_error("cube routing loop");
  }
  return p;
}

unsigned CubeGrid::hops(unsigned from, unsigned to) const {
  return static_cast<unsigned>(path(from, to).size());
}

SipGraph::SipGraph(unsigned n_sips, SipTopology topology)
    : n_(n_sips), topo_(topology), neighbors_(n_sips) {
  for (unsigned a = 0; a < n_; ++a)
    for (unsigned b = 0; b < n_; ++b) {
      if (a == b) continue;
      const bool linked = topo_ == SipTopology::kFull || (b == (a + 1) % n_) || (a == (b + 1) % n_);
      if (linked) neighbors_[a].push_back(b);
    }
}

unsigned SipGraph::next_hop(unsigned from, unsigned to) const {
  if (from == to) throw std::invalid_argument("next_hop: from == to");
  if (topo_ == SipTopology::kFull) return to;
  const unsigned fwd = (to + n_ - from) % n_;
  return fwd <= n_ - fwd ? (from + 1) % n_ : (from + n_ - 1) % n_;
}

unsigned SipGraph::hops(unsigned from, unsigned to) const {
  unsigned h = 0;
  for (unsigned s = from; s != to; s = next_hop(s, to)) ++h;
  return h;
}

}  // namespace kb
