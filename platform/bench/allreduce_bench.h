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
#include "platform/analytic/allreduce_model.h"
#include "platform/bench/bench.h"

namespace kb {

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
  std::vector<std::string> point_fields() const override;
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
  std::vector<std::string> point_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
