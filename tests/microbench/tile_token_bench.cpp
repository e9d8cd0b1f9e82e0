#include <benchmark/benchmark.h>

#include "firmware/tl.h"
#include "models/pe/pe_engine.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "tests/microbench/microbench.h"

namespace kb {
namespace microbench {

namespace {

Platform* platform = nullptr;
HostRuntime* runtime = nullptr;
fw::Tensor a, w, c;

uint64_t gemm_stages(Pe& pe) {
  uint64_t n = 0;
  for (PeEngine* e : pe.engines())
    if (e->engine_kind() == EngineKind::kGemm)
      for (unsigned l = 0; l < e->num_lanes(); ++l) n += e->lane_stats(l).stages;
  return n;
}

// One composite GEMM C = A W (64 x 4096 x 64, both operands streamed from
// HBM) on sip0.cube0.pe0: each tile token takes its DMA, TCM, GEMM and store
// stages through the engines' lanes.
void tile_token(benchmark::State& state) {
  Pe& pe = platform->pe({0, 0, 0});
  uint64_t tokens = 0;
  for (auto _ : state) {
    const uint64_t before = gemm_stages(pe);
    runtime->launch_on({{0, 0, 0}}, [](fw::Tl& tl) {
      fw::CompositeArgs g;
      g.a = a;
      g.b = w;
      g.out = c;
      tl.wait(tl.composite(g));
    });
    runtime->run();
    tokens += gemm_stages(pe) - before;
  }
  state.SetItemsProcessed(static_cast<int64_t>(tokens));
  state.SetLabel("GEMM tile tokens (DMA in, fetch, GEMM, store, DMA out)");
}

}  // namespace

void register_tile_token(Platform& p) {
  platform = &p;
  static HostRuntime rt(p);
  runtime = &rt;
  a = rt.alloc_hbm({0, 0, 0}, {64, 4096});
  w = rt.alloc_hbm({0, 0, 0}, {4096, 64});
  c = rt.alloc_hbm({0, 0, 0}, {64, 64});
  benchmark::RegisterBenchmark("tile_token/gemm_64x4096x64", tile_token)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace microbench
}  // namespace kb
