// C = relu(A·W) on PE 0 of four cubes, each on its own HBM, as one composite command per
// PE. run_main gives this program the kernbench command line: --topology,
// --set, --json (with stats), --oplog, --trace, --vcd, --data, --quiet.
#include "platform/bench/bench.h"
#include "platform/cli/kernbench_app.h"
#include "platform/runtime/host_runtime.h"

kb::BenchResult gemm_relu(kb::BenchContext& ctx) {
  kb::HostRuntime rt(ctx.platform);
  const std::vector<kb::PeId> pes = {{0, 0, 0}, {0, 1, 0}, {0, 2, 0}, {0, 3, 0}};
  std::vector<kb::fw::Tensor> a, w, c;
  for (const kb::PeId& pe : pes) {
    a.push_back(rt.alloc_hbm(pe, {128, 512}));
    w.push_back(rt.alloc_hbm(pe, {512, 128}));
    c.push_back(rt.alloc_hbm(pe, {128, 128}));
  }
  rt.launch_on(pes, [&](kb::fw::Tl& tl) {
    const unsigned i = tl.program_id(0);
    kb::fw::CompositeArgs g;
    g.a = a[i];
    g.b = w[i];
    g.out = c[i];
    g.epilogue.push_back({"relu", kb::Scope::kOutputTile, {}, {}, std::nullopt});
    tl.wait(tl.composite(g));
  });
  const double ns = rt.run();
  kb::BenchResult r;
  r.metrics = {{"window_ns", ns}, {"tflops", 4 * 2.0 * 128 * 512 * 128 / ns / 1000}};
  r.tables.push_back({"relu(A·W) on 4 PEs",
                      {"window_ns", "TFLOP/s"},
                      {{kb::fmt(ns, 1), kb::fmt(r.metrics["tflops"].get<double>(), 3)}}});
  return r;
}

int sc_main(int argc, char* argv[]) {
  return kb::run_main(argc, argv, "gemm-relu", "relu(A·W) on four PEs", gemm_relu);
}
