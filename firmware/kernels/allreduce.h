// All-reduce kernels over a CollectiveGroup, on PE_IPCQ.
//
// Every member runs the same kernel on its own vector `data` (fp32 or any
// dtype PE_MATH adds, contiguous, in its TCM, HBM or cube SRAM); afterwards
// every member's vector holds the elementwise sum over the group. Messages
// move through the receivers' IPCQ rings (opened in `ring_space`), and each
// chunk is reduced on PE_MATH as it arrives and, where the algorithm passes
// it on, forwarded by PE_IPCQ itself (recvReduceSend / recvCopySend), so a
// step's chunks pipeline into the next step without the PE_CPU in the loop.
//
// The steps of each algorithm are written out in allreduce.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "firmware/kernels/collective_group.h"
#include "firmware/tl.h"

namespace kb {
namespace fw {

enum class AllReduceAlgo { kRing, kRingBidir, kTwoD, kHierarchical, kChain, kBinomial };
const char* to_string(AllReduceAlgo a);
// "ring", "ring_bidir", "2d", "hierarchical", "chain", "binomial"; nullopt otherwise.
std::optional<AllReduceAlgo> parse_allreduce_algo(const std::string& name);
// The algorithm that fits a cube-link topology: ring on a ring, 2D on a mesh or torus.
AllReduceAlgo natural_allreduce(CubeTopology t);
const char* allreduce_algo_names();  // for help and error texts

struct AllReduceArgs {
  AllReduceAlgo algo = AllReduceAlgo::kRing;
  RingSpace ring_space = RingSpace::kTcm;
};

// Runs on one member PE of `group`; returns when its vector holds the sum.
void allreduce(Tl& tl, const CollectiveGroup& group, const AllReduceArgs& args, const Tensor& data);

// The binomial tree over any ordered list of PEs (this PE is order[i], the
// root order[0]); the caller opens the rings of tree_sources(order, i) first.
// A list in (SIP, cube, PE) order puts the tree's low levels inside a cube,
// the middle ones across the cubes of a SIP and the top ones across SIPs.
//   tree_allreduce  reduce to the root, then broadcast (2 ceil(log2 p) steps,
//                   each moving the whole vector): `data` holds the sum;
//   tree_broadcast  the root's `data` to every position (ceil(log2 p) steps).
void tree_allreduce(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i);
void tree_broadcast(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i);
std::vector<PeAddr> tree_sources(const std::vector<PeAddr>& order, unsigned i);
// The sources whose messages position i adds in as they arrive (a receive
// that reduces), here and in cube_allreduce and cube_reduce_scatter. Such a
// receive stages each slot through TCM when the vector it sums into is not in
// TCM: 2 x pe.ipcq.slots x slot_bytes per source, for the collective's length.
std::vector<PeAddr> tree_reduce_sources(const std::vector<PeAddr>& order, unsigned i);

// An all-reduce over any ordered list of PEs (this PE is order[i]): recursive
// halving and doubling (as across the cubes of cube_allreduce, kHalving)
// over a power of two of them, at least two, where each position sends
// 2 (p-1)/p of the vector; the binomial tree otherwise. The caller opens the
// rings of list_allreduce_sources(order, i) first.
void list_allreduce(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i);
std::vector<PeAddr> list_allreduce_sources(const std::vector<PeAddr>& order, unsigned i);
// Whether list_allreduce over `n` PEs halves (else it is the tree).
bool list_allreduce_halves(size_t n);

// How cube_allreduce sums a segment across the cubes.
enum class CrossCube {
  // The binomial tree, reduce then broadcast: 2 log2(cubes) levels, each
  // moving the whole segment.
  kTree,
  // Recursive halving (reduce-scatter), then doubling (all-gather): each
  // level exchanges half of the previous level's range with the position
  // whose index differs in one bit, lowest bit first, so the levels across
  // cubes of a SIP move the most and those across SIPs the least; every
  // position sends 2 (cubes-1)/cubes of the segment in all. Needs a power of
  // two of cubes; any other count takes the tree.
  kHalving,
};

// Hierarchical over an ordered list of whole cube blocks (`per_cube`
// consecutive positions per cube, the list a multiple of it): ring
// reduce-scatter inside each block, then the positions holding the same
// segment in every block (one per cube: the low levels across the cubes of a
// SIP, the top ones across SIPs) all-reduce it, 1/per_cube of the vector,
// `across` the cubes; then ring all-gather inside the block.
// `data` contiguous; the caller opens the rings of cube_allreduce_sources.
void cube_allreduce(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i,
                    unsigned per_cube, CrossCube across);
std::vector<PeAddr> cube_allreduce_sources(const std::vector<PeAddr>& order, unsigned i,
                                           unsigned per_cube, CrossCube across);
std::vector<PeAddr> cube_allreduce_reduce_sources(const std::vector<PeAddr>& order, unsigned i,
                                                  unsigned per_cube, CrossCube across);
// Whether `ranks` in blocks of `per_cube` take the halving across the cubes
// (a power of two of blocks, at least two) when asked to.
bool cube_allreduce_halves(size_t ranks, unsigned per_cube);

// The two halves of cube_allreduce with the halving across the cubes, for a
// caller that works on its share of the summed vector in between (a
// sequence-parallel residual stream). Both need cube_allreduce_halves, and
// throw std::invalid_argument otherwise; the rings are cube_allreduce's.
//   cube_reduce_scatter  afterwards this position's shard of `data`
//                        (cube_shard) holds its sum over every position; the
//                        rest of `data` is left partly summed;
//   cube_all_gather      every position's shard of `data` to every position.
// The shards of all positions partition the vector.
struct Shard {
  int64_t first = 0, count = 0;  // elements of the vector
};
Shard cube_shard(int64_t n, size_t ranks, unsigned i, unsigned per_cube);
void cube_reduce_scatter(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i,
                         unsigned per_cube);
void cube_all_gather(Tl& tl, const Tensor& data, const std::vector<PeAddr>& order, unsigned i,
                     unsigned per_cube);

}  // namespace fw
}  // namespace kb
