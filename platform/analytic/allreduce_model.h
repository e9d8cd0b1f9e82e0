// The α-β model of the all-reduce algorithms of firmware/kernels/allreduce.h
// on PE_IPCQ, from the configured latencies and bandwidths of the topology.
#pragma once

#include <cstdint>
#include <string>

#include "firmware/kernels/allreduce.h"
#include "firmware/kernels/collective_group.h"
#include "platform/config/topology_config.h"

namespace kb {

// The α-β model of one all-reduce, from the configured latencies and
// bandwidths (never from a measurement). α is what one step pays before its
// first byte lands and is announced: DMA setup, the data path's per-hop
// latencies (crossbars, PE links, routers, cube links) and its store-and-
// forward of one DMA burst on every link but the slowest, the buffer's access
// latency, then the doorbell's trip over the same path. β is the inverse of
// the narrowest bandwidth of the path. A step that crosses several cube links
// (a mesh's wrap, a binomial partner further away) pays α for that many hops.
struct AlphaBeta {
  double alpha_ns = 0;          // α of a one-cube-hop step
  double beta_ns_per_byte = 0;  // β across cube links
  double alpha_intra_ns = 0;    // α of a step between two PEs of one cube
  double beta_intra_ns_per_byte = 0;
  double total_ns = 0;  // the model's latency for the all-reduce
  std::string formula;  // the closed form that gave total_ns
};

// `hops(a, b)`: cube hops between two cubes of the SIP under its topology.
AlphaBeta allreduce_alpha_beta(const TopologyConfig& cfg, fw::AllReduceAlgo algo,
                               const fw::CollectiveGroup& group, RingSpace buffer,
                               uint64_t bytes_per_pe);

}  // namespace kb
