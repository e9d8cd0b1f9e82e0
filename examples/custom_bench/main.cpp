// A user's bench registered beside the shipped ones: `my_kernbench --bench
// hbm-read --param rows=64` gets the whole CLI (--list-benches, --json,
// --sweep, --set, ...). It measures one PE's tl.load from its own HBM beside
// the bound its pseudo-channels give.
#include <memory>

#include "platform/bench/bench.h"
#include "platform/cli/kernbench_app.h"
#include "platform/config/topology_config.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

class HbmReadBench : public kb::Bench {
 public:
  std::string name() const override { return "hbm-read"; }
  std::string description() const override { return "one PE loads a tensor from its HBM"; }
  std::vector<kb::ParamSpec> params() const override {
    return {{"rows", "128", "rows of 2 KiB (1024 fp16); the TCM holds them"}};
  }
  kb::BenchResult run(kb::BenchContext& ctx) override {
    const int64_t rows = ctx.params.integer("rows");
    kb::HostRuntime rt(ctx.platform);
    const kb::fw::Tensor t = rt.alloc_hbm({0, 0, 0}, {rows, 1024});
    rt.launch([&](kb::fw::Tl& tl) { tl.wait(tl.load(t)); });
    const double ns = rt.run(), bytes = rows * 2048.0;
    const double bound = ctx.platform.config().pe_hbm_bandwidth_gbps();  // GB/s = B/ns
    kb::BenchResult r;
    r.metrics = {{"ns", ns}, {"GBps", bytes / ns}, {"bound_GBps", bound}};
    r.tables.push_back(
        {"hbm-read",
         {"bytes", "ns", "GB/s", "bound GB/s"},
         {{kb::fmt(bytes, 0), kb::fmt(ns, 1), kb::fmt(bytes / ns, 1), kb::fmt(bound, 1)}}});
    return r;
  }
};

int sc_main(int argc, char* argv[]) {
  kb::BenchRegistry registry = kb::BenchRegistry::with_builtin_benches();
  registry.add(std::make_unique<HbmReadBench>());
  return kb::kernbench_main(argc, argv, registry, "hbm-read");
}
