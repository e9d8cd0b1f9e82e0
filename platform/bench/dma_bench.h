// Bench `dma`: one DMA transfer, described on the command line, on an idle
// platform. Reports its latency, bandwidth, path (hops, bottleneck) and the
// per-module statistics. Addresses are checked by the fabric, as any DMA's
// are: one that the address map rejects is a TLM address error inside the
// simulation, reported as a simulation fault (exit 3) naming the address,
// the PE's DMA and the command.
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class DmaBench : public Bench {
 public:
  std::string name() const override { return "dma"; }
  std::string description() const override {
    return "one DMA transfer (src -> dst) issued by one PE's DMA engine on an idle platform";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<std::string> point_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
