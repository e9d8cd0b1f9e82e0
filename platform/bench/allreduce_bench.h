// The `allreduce` bench: all-reduce over the PEs of a SIP with the
// firmware/kernels/allreduce algorithms, each point printed beside its α-β
// analytic value; with --data every PE's result is checked to be the exact
// sum. And `ccl-sweep`: every algorithm x the three cube-link topologies x
// the three buffer kinds x message sizes (each topology in its own process).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "firmware/kernels/allreduce.h"
#include "platform/bench/bench.h"
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

class AllReduceBench : public Bench {
 public:
  std::string name() const override { return "allreduce"; }
  std::string description() const override {
    return "all-reduce over the PEs of a SIP on PE_IPCQ: ring, ring_bidir, 2d, hierarchical, "
           "chain, binomial; latency beside the alpha-beta model, bus bandwidth, link bytes; "
           "--data checks the exact sum on every PE";
  }
  std::vector<ParamSpec> params() const override;
  bool uses_op_log() const override { return false; }
  BenchResult run(BenchContext& ctx) override;
};

class CclSweepBench : public Bench {
 public:
  std::string name() const override { return "ccl-sweep"; }
  std::string description() const override {
    return "every all-reduce algorithm x cube topology (mesh, ring, torus2d) x buffer (tcm, hbm, "
           "sram) x size 4 KiB..4 MiB per PE; one child process per topology";
  }
  std::vector<ParamSpec> params() const override;
  bool uses_op_log() const override { return false; }
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
