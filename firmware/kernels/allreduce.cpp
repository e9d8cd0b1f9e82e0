#include "firmware/kernels/allreduce.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kb {
namespace fw {

const char* to_string(AllReduceAlgo a) {
  switch (a) {
    case AllReduceAlgo::kRing:
      return "ring";
    case AllReduceAlgo::kRingBidir:
      return "ring_bidir";
    case AllReduceAlgo::kTwoD:
      return "2d";
    case AllReduceAlgo::kHierarchical:
      return "hierarchical";
    case AllReduceAlgo::kChain:
      return "chain";
    case AllReduceAlgo::kBinomial:
      return "binomial";
  }
  return "?";
}

const char* allreduce_algo_names() {
  return "ring, ring_bidir, 2d, hierarchical, chain, binomial, auto";
}

std::optional<AllReduceAlgo> parse_allreduce_algo(const std::string& name) {
  for (auto a : {AllReduceAlgo::kRing, AllReduceAlgo::kRingBidir, AllReduceAlgo::kTwoD,
                 AllReduceAlgo::kHierarchical, AllReduceAlgo::kChain, AllReduceAlgo::kBinomial})
    if (name == to_string(a)) return a;
  return std::nullopt;
}

AllReduceAlgo natural_allreduce(CubeTopology t) {
  return t == CubeTopology::kRing ? AllReduceAlgo::kRing : AllReduceAlgo::kTwoD;
}

namespace {

using Pending = std::vector<Tensor>;

void wait_all(Tl& tl, Pending& ps) {
  for (const Tensor& t : ps) tl.wait(t);
  ps.clear();
}

Tensor slice(Tl& tl, const Tensor& v, int64_t begin, int64_t count) {
  const uint64_t esize = dtype_bytes(v.h.dtype);
  return tl.ref(v.h.addr + static_cast<uint64_t>(begin) * esize, {count}, v.h.dtype);
}

int64_t length(const Tensor& v) {
  return v.h.numel();
}

// Segment j (taken mod p) of p near-equal parts of v: [j*n/p, (j+1)*n/p).
Tensor segment(Tl& tl, const Tensor& v, long j, unsigned p) {
  const long pp = static_cast<long>(p);
  const int64_t n = length(v);
  const int64_t k = ((j % pp) + pp) % pp;
  const int64_t b = k * n / pp, e = (k + 1) * n / pp;
  return slice(tl, v, b, e - b);
}

// Ring reduce-scatter over ring `r` on v. At step s (0..p-2) position i sends
// segment i-s to its right and receives segment i-s-1 from its left, adding it
// into its own copy. The segment reduced at step s is the one sent at step
// s+1, so each receive forwards its chunks to the right as they are reduced
// (recvReduceSend); the last receive forwards only with `forward_last` (a
// fused all-reduce's all-gather starts with it). Afterwards position i holds
// segment i+1 summed over the ring. Empty segments are skipped on both sides.
void ring_reduce_scatter(Tl& tl, const Tensor& v, const RingView& r, bool forward_last,
                         Pending& out) {
  const unsigned p = r.size;
  const long i = r.pos;
  if (p == 1) return;
  const Tensor first = segment(tl, v, i, p);
  if (length(first) > 0) out.push_back(tl.send(r.right, first));
  for (unsigned s = 0; s + 1 < p; ++s) {
    const Tensor seg = segment(tl, v, i - static_cast<long>(s) - 1, p);
    if (length(seg) == 0) continue;
    const bool last = s + 2 == p;
    out.push_back(!last || forward_last ? tl.recv_forward(r.left, seg, r.right, true)
                                        : tl.recv_reduce(r.left, seg));
  }
}

// Ring all-gather: position i holds segment i+1 complete. At step s (0..p-2)
// it receives segment i-s from its left and, but at the last step, forwards
// it to its right (recvCopySend). Unless `started` (the reduce-scatter's last
// receive already forwarded it), it first sends segment i+1.
void ring_all_gather(Tl& tl, const Tensor& v, const RingView& r, bool started, Pending& out) {
  const unsigned p = r.size;
  const long i = r.pos;
  if (p == 1) return;
  if (!started) {
    const Tensor mine = segment(tl, v, i + 1, p);
    if (length(mine) > 0) out.push_back(tl.send(r.right, mine));
  }
  for (unsigned s = 0; s + 1 < p; ++s) {
    const Tensor seg = segment(tl, v, i - static_cast<long>(s), p);
    if (length(seg) == 0) continue;
    const bool last = s + 2 == p;
    out.push_back(last ? tl.recv_async(r.left, seg) : tl.recv_forward(r.left, seg, r.right, false));
  }
}

// Ring all-reduce: reduce-scatter fused into all-gather, 2(p-1) steps, every
// step moving n/p per PE.
void ring_allreduce(Tl& tl, const Tensor& v, const RingView& r, Pending& out) {
  ring_reduce_scatter(tl, v, r, true, out);
  ring_all_gather(tl, v, r, true, out);
}

RingView reversed(const RingView& r) {
  RingView b;
  b.size = r.size;
  b.pos = (r.size - r.pos) % r.size;
  b.left = r.right;
  b.right = r.left;
  return b;
}

// 2D on a logical X x Y grid (row ring along X, column ring along Y):
//   1. reduce-scatter along the row: position x holds row-segment x+1, summed
//      over its row (X-1 steps of n/X);
//   2. all-reduce that segment along the column (ring, 2(Y-1) steps of n/(XY));
//   3. all-gather along the row (X-1 steps of n/X).
// 2(X+Y-2) steps. On a torus every ring step is one hop; on a mesh the wrap
// step of each ring crosses the whole row or column.
void two_d_allreduce(Tl& tl, const Tensor& v, const RingView& row, const RingView& col) {
  Pending p;
  ring_reduce_scatter(tl, v, row, false, p);
  wait_all(tl, p);
  const Tensor mine = segment(tl, v, static_cast<long>(row.pos) + 1, row.size);
  if (length(mine) > 0) ring_allreduce(tl, mine, col, p);
  wait_all(tl, p);
  ring_all_gather(tl, v, row, false, p);
  wait_all(tl, p);
}

// Reduce to position 0 of `order` along a chain (position i's child is i+1),
// then broadcast back down it. Each middle PE reduces and forwards chunk by
// chunk, so the chain pipelines at slot granularity.
void chain_allreduce(Tl& tl, const Tensor& v, const std::vector<PeAddr>& order, unsigned i) {
  const auto p = static_cast<unsigned>(order.size());
  if (p == 1) return;
  Tensor acc = v;
  if (i + 1 == p)
    acc = tl.send(order[i - 1], acc);
  else if (i == 0)
    acc = tl.recv_reduce(order[1], acc);
  else
    acc = tl.recv_forward(order[i + 1], acc, order[i - 1], true);
  if (i == 0)
    acc = tl.send(order[1], acc);
  else if (i + 1 == p)
    acc = tl.recv_async(order[i - 1], acc);
  else
    acc = tl.recv_forward(order[i - 1], acc, order[i + 1], false);
  tl.wait(acc);
}

unsigned lowbit(unsigned i) {
  return i & (~i + 1);
}

unsigned top_mask(unsigned p) {
  unsigned m = 1;
  while (m * 2 < p) m *= 2;
  return m;
}

}  // namespace

// Binomial tree over positions of `order`, root 0. Reduce: at level
// mask = 1, 2, 4, ... a position with that bit set sends its partial sum to
// position - mask and is done; the others receive from position + mask (if
// it exists) and add. Broadcast mirrors it: a position receives from
// position - lowbit(position), then sends to position + mask for every mask
// below its lowbit (the root: every mask), largest first. ceil(log2 p)
// levels each way, each moving the whole vector.
void tree_allreduce(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i) {
  const Tensor& v = data;
  const auto p = static_cast<unsigned>(order.size());
  if (p == 1) return;
  Tensor acc = v;
  for (unsigned mask = 1; mask < p; mask <<= 1) {
    if (i & mask) {
      acc = tl.send(order[i - mask], acc);
      break;
    }
    if (i + mask < p) acc = tl.recv_reduce(order[i + mask], acc);
  }
  tree_broadcast(tl, acc, order, i);
}

void tree_broadcast(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i) {
  const Tensor& v = data;
  const auto p = static_cast<unsigned>(order.size());
  if (p == 1) return;
  Tensor acc = v;
  if (i != 0) acc = tl.recv_async(order[i - lowbit(i)], acc);
  tl.wait(acc);
  Pending sends;
  for (unsigned mask = i == 0 ? top_mask(p) : lowbit(i) >> 1; mask >= 1; mask >>= 1)
    if (i + mask < p) sends.push_back(tl.send(order[i + mask], acc));
  wait_all(tl, sends);
}

std::vector<PeAddr> tree_reduce_sources(const std::vector<PeAddr>& order, unsigned i) {
  const auto p = static_cast<unsigned>(order.size());
  std::vector<PeAddr> from;
  for (unsigned mask = 1; mask < p && !(i & mask); mask <<= 1)
    if (i + mask < p) from.push_back(order[i + mask]);
  return from;
}

std::vector<PeAddr> tree_sources(const std::vector<PeAddr>& order, unsigned i) {
  std::vector<PeAddr> from = tree_reduce_sources(order, i);
  if (i != 0) from.push_back(order[i - lowbit(i)]);
  return from;
}

namespace {

// The ring through the `per_cube` ranks of position i's cube, and the ranks
// holding the same segment in every cube, in order.
RingView cube_ring_of(const std::vector<PeAddr>& order, unsigned i, unsigned per_cube) {
  const unsigned c = i / per_cube, j = i % per_cube;
  RingView r;
  r.pos = j;
  r.size = per_cube;
  r.left = order[c * per_cube + (j + per_cube - 1) % per_cube];
  r.right = order[c * per_cube + (j + 1) % per_cube];
  return r;
}

std::vector<PeAddr> same_position(const std::vector<PeAddr>& order, unsigned i, unsigned per_cube) {
  std::vector<PeAddr> peers;
  for (size_t k = i % per_cube; k < order.size(); k += per_cube) peers.push_back(order[k]);
  return peers;
}

void check_cube_blocks(const std::vector<PeAddr>& order, unsigned per_cube,
                       const char* who = "cube_allreduce") {
  if (per_cube == 0 || order.size() % per_cube != 0)
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(order.size()) +
                                " ranks are not whole blocks of " + std::to_string(per_cube));
}

bool halving_fits(size_t blocks) {
  return blocks >= 2 && (blocks & (blocks - 1)) == 0;
}

// Recursive halving, then doubling, over `peers` (a power of two of them;
// this PE is peers[pos]). At level k (mask 1, 2, 4, ...) a position and the
// one whose index differs in bit k hold the same range of the vector: each
// keeps the half its bit selects (the lower for a 0), sends the other half
// and adds the partner's copy of the half it keeps. After log2 p levels a
// position holds 1/p of the vector, summed over all of them; the all-gather
// retraces the levels in reverse order, the partners exchanging their
// halves. Each position sends n (p-1)/p each way; the first levels (the
// lowest bits: neighbours in the list) move the most, the last the least.
struct Range {
  int64_t lo, hi;
};
struct HalvingLevel {
  Range keep, give;
};

// The ranges position `pos` of `p` keeps and gives at each level, over [0, n).
std::vector<HalvingLevel> halving_levels(int64_t n, unsigned pos, size_t p) {
  std::vector<HalvingLevel> levels;
  Range cur{0, n};
  for (unsigned mask = 1; mask < p; mask <<= 1) {
    const int64_t mid = cur.lo + (cur.hi - cur.lo) / 2;
    const bool upper = (pos & mask) != 0;
    const Range keep = upper ? Range{mid, cur.hi} : Range{cur.lo, mid};
    const Range give = upper ? Range{cur.lo, mid} : Range{mid, cur.hi};
    levels.push_back({keep, give});
    cur = keep;
  }
  return levels;
}

Tensor part(Tl& tl, const Tensor& v, const Range& r) {
  return slice(tl, v, r.lo, r.hi - r.lo);
}

void halving_reduce_scatter(Tl& tl, const Tensor& v, const std::vector<PeAddr>& peers,
                            unsigned pos) {
  const std::vector<HalvingLevel> levels = halving_levels(length(v), pos, peers.size());
  Pending ps;
  for (size_t k = 0; k < levels.size(); ++k) {  // mask 1 << k
    const PeAddr& peer = peers[pos ^ (1u << k)];
    const HalvingLevel& l = levels[k];
    if (l.give.hi > l.give.lo) ps.push_back(tl.send(peer, part(tl, v, l.give)));
    if (l.keep.hi > l.keep.lo) ps.push_back(tl.recv_reduce(peer, part(tl, v, l.keep)));
    wait_all(tl, ps);
  }
}

void doubling_all_gather(Tl& tl, const Tensor& v, const std::vector<PeAddr>& peers, unsigned pos) {
  const std::vector<HalvingLevel> levels = halving_levels(length(v), pos, peers.size());
  Pending ps;
  for (size_t k = levels.size(); k-- > 0;) {  // mask 1 << k
    const PeAddr& peer = peers[pos ^ (1u << k)];
    const HalvingLevel& l = levels[k];
    if (l.keep.hi > l.keep.lo) ps.push_back(tl.send(peer, part(tl, v, l.keep)));
    if (l.give.hi > l.give.lo) ps.push_back(tl.recv_async(peer, part(tl, v, l.give)));
    wait_all(tl, ps);
  }
}

void halving_doubling_allreduce(Tl& tl, const Tensor& v, const std::vector<PeAddr>& peers,
                                unsigned pos) {
  halving_reduce_scatter(tl, v, peers, pos);
  doubling_all_gather(tl, v, peers, pos);
}

void check_halving(const std::vector<PeAddr>& order, unsigned per_cube, const char* who) {
  check_cube_blocks(order, per_cube, who);
  if (!halving_fits(order.size() / per_cube))
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(order.size()) +
                                " ranks in blocks of " + std::to_string(per_cube) +
                                " are not a power of two of blocks, at least two");
}

}  // namespace

void cube_allreduce(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i,
                    unsigned per_cube, CrossCube across) {
  const Tensor& v = data;
  check_cube_blocks(order, per_cube);
  const RingView r = cube_ring_of(order, i, per_cube);
  Pending p;
  ring_reduce_scatter(tl, v, r, false, p);
  wait_all(tl, p);
  const Tensor mine = segment(tl, v, static_cast<long>(r.pos) + 1, r.size);
  if (length(mine) > 0) {
    const std::vector<PeAddr> peers = same_position(order, i, per_cube);
    if (across == CrossCube::kHalving && halving_fits(peers.size()))
      halving_doubling_allreduce(tl, mine, peers, i / per_cube);
    else
      tree_allreduce(tl, mine, peers, i / per_cube);
  }
  ring_all_gather(tl, v, r, false, p);
  wait_all(tl, p);
}

namespace {

// cube_allreduce's sources, or (reducing_only) those whose messages it adds in.
std::vector<PeAddr> cube_sources(const std::vector<PeAddr>& order, unsigned i, unsigned per_cube,
                                 CrossCube across, bool reducing_only) {
  check_cube_blocks(order, per_cube);
  const std::vector<PeAddr> peers = same_position(order, i, per_cube);
  const unsigned pos = i / per_cube;
  std::vector<PeAddr> from;
  if (across == CrossCube::kHalving && halving_fits(peers.size()))
    for (unsigned mask = 1; mask < peers.size(); mask <<= 1) from.push_back(peers[pos ^ mask]);
  else
    from = reducing_only ? tree_reduce_sources(peers, pos) : tree_sources(peers, pos);
  if (per_cube > 1) from.push_back(cube_ring_of(order, i, per_cube).left);
  return from;
}

}  // namespace

std::vector<PeAddr> cube_allreduce_sources(const std::vector<PeAddr>& order, unsigned i,
                                           unsigned per_cube, CrossCube across) {
  return cube_sources(order, i, per_cube, across, false);
}

std::vector<PeAddr> cube_allreduce_reduce_sources(const std::vector<PeAddr>& order, unsigned i,
                                                  unsigned per_cube, CrossCube across) {
  return cube_sources(order, i, per_cube, across, true);
}

bool list_allreduce_halves(size_t n) {
  return halving_fits(n);
}

void list_allreduce(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i) {
  if (list_allreduce_halves(order.size())) {
    // The halves are views without `data`'s pending producer: wait for it.
    tl.wait(data);
    halving_doubling_allreduce(tl, data, order, i);
  } else
    tree_allreduce(tl, data, order, i);
}

std::vector<PeAddr> list_allreduce_sources(const std::vector<PeAddr>& order, unsigned i) {
  if (!list_allreduce_halves(order.size())) return tree_sources(order, i);
  std::vector<PeAddr> from;
  for (unsigned mask = 1; mask < order.size(); mask <<= 1) from.push_back(order[i ^ mask]);
  return from;
}

bool cube_allreduce_halves(size_t ranks, unsigned per_cube) {
  return per_cube > 0 && ranks % per_cube == 0 && halving_fits(ranks / per_cube);
}

Shard cube_shard(int64_t n, size_t ranks, unsigned i, unsigned per_cube) {
  const auto P = static_cast<int64_t>(per_cube);
  const int64_t k = (i % per_cube + 1) % P;
  const int64_t b = k * n / P, e = (k + 1) * n / P;
  const std::vector<HalvingLevel> levels = halving_levels(e - b, i / per_cube, ranks / per_cube);
  const Range r = levels.empty() ? Range{0, e - b} : levels.back().keep;
  return {b + r.lo, r.hi - r.lo};
}

void cube_reduce_scatter(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i,
                         unsigned per_cube) {
  check_halving(order, per_cube, "cube_reduce_scatter");
  const RingView r = cube_ring_of(order, i, per_cube);
  Pending p;
  ring_reduce_scatter(tl, data, r, false, p);
  wait_all(tl, p);
  const Tensor mine = segment(tl, data, static_cast<long>(r.pos) + 1, r.size);
  if (length(mine) > 0)
    halving_reduce_scatter(tl, mine, same_position(order, i, per_cube), i / per_cube);
}

void cube_all_gather(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i,
                     unsigned per_cube) {
  check_halving(order, per_cube, "cube_all_gather");
  const RingView r = cube_ring_of(order, i, per_cube);
  const Tensor mine = segment(tl, data, static_cast<long>(r.pos) + 1, r.size);
  if (length(mine) > 0)
    doubling_all_gather(tl, mine, same_position(order, i, per_cube), i / per_cube);
  Pending p;
  ring_all_gather(tl, data, r, false, p);
  wait_all(tl, p);
}

namespace {

// Hierarchical: reduce-scatter inside the cube (ring of its P PEs), then PE k
// of every cube all-reduces its cube-segment across the cubes with the
// cube topology's own algorithm (2D on a mesh or torus, ring on a ring), then
// all-gather inside the cube. The P inter-cube all-reduces run side by side
// and share the cube links.
void hierarchical_allreduce(Tl& tl, const CollectiveGroup& g, const Tensor& v) {
  const PeAddr me = tl.self();
  const RingView cube = g.cube_ring(me);
  Pending p;
  ring_reduce_scatter(tl, v, cube, false, p);
  wait_all(tl, p);
  const Tensor mine = segment(tl, v, static_cast<long>(cube.pos) + 1, cube.size);
  if (length(mine) > 0) {
    if (natural_allreduce(g.topology()) == AllReduceAlgo::kRing) {
      ring_allreduce(tl, mine, g.inter_cube_ring(me), p);
      wait_all(tl, p);
    } else {
      two_d_allreduce(tl, mine, g.inter_cube_row(me), g.inter_cube_column(me));
    }
  }
  ring_all_gather(tl, v, cube, false, p);
  wait_all(tl, p);
}

// Who this PE receives from under `algo`: the rings it must open.
std::vector<PeAddr> sources(const CollectiveGroup& g, AllReduceAlgo algo, const PeAddr& me) {
  std::set<PeAddr> from;
  auto ring_left = [&](const RingView& r) {
    if (r.size > 1) from.insert(r.left);
  };
  const unsigned i = g.rank_of(me);
  switch (algo) {
    case AllReduceAlgo::kRing:
      ring_left(g.ring(me));
      break;
    case AllReduceAlgo::kRingBidir:
      ring_left(g.ring(me));
      ring_left(reversed(g.ring(me)));
      break;
    case AllReduceAlgo::kTwoD:
      ring_left(g.row_ring(me));
      ring_left(g.column_ring(me));
      break;
    case AllReduceAlgo::kHierarchical:
      ring_left(g.cube_ring(me));
      if (natural_allreduce(g.topology()) == AllReduceAlgo::kRing) {
        ring_left(g.inter_cube_ring(me));
      } else {
        ring_left(g.inter_cube_row(me));
        ring_left(g.inter_cube_column(me));
      }
      break;
    case AllReduceAlgo::kChain:
      if (i + 1 < g.size()) from.insert(g.member(i + 1));
      if (i > 0) from.insert(g.member(i - 1));
      break;
    case AllReduceAlgo::kBinomial:
      for (const PeAddr& s : tree_sources(g.members(), i)) from.insert(s);
      break;
  }
  return {from.begin(), from.end()};
}

}  // namespace

void allreduce(Tl& tl, const CollectiveGroup& group, const AllReduceArgs& args,
               const Tensor& data) {
  const PeAddr me = tl.self();
  tl.ipcq_open(sources(group, args.algo, me), args.ring_space);
  Pending p;
  switch (args.algo) {
    case AllReduceAlgo::kRing:
      ring_allreduce(tl, data, group.ring(me), p);
      break;
    case AllReduceAlgo::kRingBidir: {
      const RingView r = group.ring(me);
      if (r.size <= 2) {  // both directions are the same link pair: one ring
        ring_allreduce(tl, data, r, p);
        break;
      }
      const int64_t half = length(data) / 2;
      ring_allreduce(tl, slice(tl, data, 0, half), r, p);
      ring_allreduce(tl, slice(tl, data, half, length(data) - half), reversed(r), p);
      break;
    }
    case AllReduceAlgo::kTwoD:
      two_d_allreduce(tl, data, group.row_ring(me), group.column_ring(me));
      break;
    case AllReduceAlgo::kHierarchical:
      hierarchical_allreduce(tl, group, data);
      break;
    case AllReduceAlgo::kChain:
      chain_allreduce(tl, data, group.members(), group.rank_of(me));
      break;
    case AllReduceAlgo::kBinomial:
      tree_allreduce(tl, data, group.members(), group.rank_of(me));
      break;
  }
  wait_all(tl, p);
}

}  // namespace fw
}  // namespace kb
