// The `simspeed` bench: how fast the VP simulates on this machine, in one run.
//
//  - raw:   the SystemC kernel's own wake-up rate, two bare threads
//           ping-ponging timed events (the ceiling any model can reach here);
//  - VP:    engine stages simulated per wall second on a GEMM, an all-reduce
//           over 128 PEs and a GQA decode, each as a ratio to the raw rate;
//  - scale: wall time of GEMMs with K = 1024..8192 and its linear fit;
//  - elaboration: wall time and peak RSS of elaborating the default 1-SIP and
//           the 4-SIP topology, timing-only and with --data (child processes);
//  - llm:   a Llama-3-70B decode step in a child process, its queue services
//           and the floor they set at one raw wake-up each.
// Figures for the closing notes and benches, never timed tests.
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class SimSpeedBench : public Bench {
 public:
  std::string name() const override { return "simspeed"; }
  std::string description() const override {
    return "simulation speed: raw SystemC wake-up rate vs VP engine stages per wall second "
           "(GEMM, 128-PE all-reduce, GQA decode), GEMM wall-time linearity, elaboration "
           "wall time and peak RSS of the 1-SIP and 4-SIP topologies";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<std::string> point_fields() const override;
  std::vector<std::string> metric_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

// The queue services of a run from its JSON statistics (`stats`: one object
// per module; each ServiceQueue, or banked HBM channel, reports the requests
// it served as "requests"): how simspeed counts a child process's.
uint64_t queue_services_in(const nlohmann::json& stats);

}  // namespace kb
