// The analytic model of the all-reduce algorithms of firmware/kernels/allreduce.h
// on PE_IPCQ, from the configured latencies and bandwidths of the topology
// (never from a measurement). docs/ARCHITECTURE.md, "The all-reduce model",
// derives it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <array>

#include "firmware/kernels/allreduce.h"
#include "firmware/kernels/collective_group.h"
#include "models/common/energy.h"
#include "platform/config/topology_config.h"

namespace kb {

using EnergyByClass = std::array<double, kNumEnergyClasses>;  // pJ, by EnergyClass

// An all-reduce is a sequence of phases. In a phase every member takes part
// in `steps` steps (a ring's reduce-scatter and all-gather, a tree's levels);
// each step moves `chunks` IPCQ slots per member. Per step:
//   hop_ns    what one chunk pays from its send to the moment the receiver
//             may forward it: DMA setup, the DMA's read and write trips (with
//             their acknowledgement), the doorbell, then the receiver's
//             consumption (the add on PE_MATH, and with a ring or vector
//             outside TCM the staging DMAs through TCM before and after);
//   resource_ns  what one chunk occupies the busiest resource, with every
//             member of the step moving its chunk at once: a link direction
//             (data plus doorbell and credit messages), a PE's HBM or TCM
//             port, a cube's SRAM, a DMA channel (setup per transfer), PE_MATH;
//   chunk_ns  the time per chunk of the stream: resource_ns, or longer where
//             the ring's `slots` credits cannot cover the credit loop once
//             queueing at the busy resources has stretched it (mean-value
//             analysis of that closed loop).
// A phase whose steps forward chunk by chunk (a ring) overlaps its steps:
//   hop_1 + Σ_{j>1} max(hop_j, chunks·chunk_j) + (chunks-1)·chunk_last;
// a phase that waits for a whole step before the next (a tree level, a
// chain's turn) pays hop + (chunks-1)·chunk per step, and the PE_CPU's
// dispatch where the kernel waits before it issues the next send.
struct AllReduceModel {
  struct Phase {
    std::string name;        // "reduce-scatter + all-gather", "column ring", ...
    unsigned steps = 0;      // on the critical path
    uint64_t chunks = 0;     // per step and member
    double hop_ns = 0;       // of its first step
    double chunk_ns = 0;     // of its busiest step
    std::string bottleneck;  // the resource behind chunk_ns
    double ns = 0;           // the phase's share of total_ns
    double resource_ns = 0;  // the busiest resource's time per chunk, before queueing
  };
  double total_ns = 0;
  double fill_ns = 0;           // dispatch, ring opening (grant round trip), first send dispatch
  double alpha_ns = 0;          // hop_ns of one chunk from the first member to its ring neighbour
  double beta_ns_per_byte = 0;  // chunk_ns / slot bytes of the slowest-streaming phase
  std::string bottleneck;       // of the phase that takes longest
  std::vector<Phase> phases;
  std::string formula;
  // The dynamic energy every chunk spends on its way and in its consumption,
  // each counted once: the bytes each memory reads and writes, the bytes on
  // each link direction (headers included), the data bytes through each
  // router, the DMA bursts, the doorbell and credit of each chunk, and the
  // MATH adds, times the topology's energy knobs; allreduce_model adds a
  // grant per ring it opens (the ordered-list models below open none).
  // Static energy is static power x time.
  EnergyByClass dynamic_pj{};
  double dynamic_total_pj() const;

  // "latency", "bandwidth" or "mixed": whether the phases' steps are bound by
  // their hop latency, by their chunks' stream, or by both in turn.
  std::string regime() const;
};

// Why a measurement lies outside [0.9, 1.1] of the model: the effect the
// model does not price, for this algorithm, buffer and regime. Empty inside
// the band.
std::string allreduce_model_gap(const AllReduceModel& model, fw::AllReduceAlgo algo,
                                RingSpace buffer, double measured_over_model);

AllReduceModel allreduce_model(const TopologyConfig& cfg, fw::AllReduceAlgo algo,
                               const fw::CollectiveGroup& group, RingSpace buffer,
                               uint64_t bytes_per_pe);

// The collectives of the llm bench's step (firmware/kernels/allreduce.h) over
// an ordered list of PEs, in any SIPs, with the rings in TCM and already open
// (the step opens them once) and the vector in `data` (TCM or HBM); fill_ns is
// the first send's dispatch:
//   tree_allreduce_model   the binomial tree over `order`, reduce then broadcast;
//   tree_broadcast_model   its broadcast alone, from order[0];
//   cube_allreduce_model   ring reduce-scatter inside each block of `per_cube`
//                          consecutive PEs, each position's segment summed
//                          across the blocks side by side (binomial trees, or
//                          recursive halving and doubling as `across` says),
//                          ring all-gather (per_cube <= 1: the tree).
AllReduceModel tree_allreduce_model(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                                    RingSpace data, uint64_t bytes);
AllReduceModel tree_broadcast_model(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                                    RingSpace data, uint64_t bytes);
AllReduceModel cube_allreduce_model(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                                    unsigned per_cube, RingSpace data, uint64_t bytes,
                                    fw::CrossCube across = fw::CrossCube::kTree);
// list_allreduce (firmware/kernels/allreduce.h) over `order`: recursive
// halving and doubling over a power of two of PEs, else the binomial tree.
AllReduceModel list_allreduce_model(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                                    RingSpace data, uint64_t bytes);
// The two halves of cube_allreduce_model with the halving across the cubes
// (firmware's cube_reduce_scatter and cube_all_gather): the ring
// reduce-scatter in each block then the halving levels (`reduce_scatter`),
// or the doubling levels then the ring all-gather. Empty (zero) where the
// ranks are not a power of two of blocks.
AllReduceModel cube_half_model(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                               unsigned per_cube, RingSpace data, uint64_t bytes,
                               bool reduce_scatter);
// ipcq_open of `me`'s rings from `sources`: the dispatch, then the grant
// round trip to the farthest source.
double ipcq_open_model_ns(const TopologyConfig& cfg, const PeAddr& me,
                          const std::vector<PeAddr>& sources);

}  // namespace kb
