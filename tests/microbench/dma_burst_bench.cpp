#include <benchmark/benchmark.h>

#include <systemc>

#include "models/common/address_map.h"
#include "models/dma/pe_dma.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "tests/microbench/microbench.h"

namespace kb {
namespace microbench {

namespace {

constexpr uint64_t kBytes = uint64_t{64} * 1024;  // one transfer: 64 bursts of 1 KiB
Platform* platform = nullptr;

// sip0.cube0.pe0 reads 64 KiB of sip0.cube1.pe0's HBM into its own TCM.
void dma_burst(benchmark::State& state) {
  PeDma& dma = platform->pe({0, 0, 0}).dma;
  const uint64_t burst = platform->config().pe.dma.burst_bytes;
  const DmaTransfer t = DmaTransfer::contiguous(encode_address({Space::kHbm, 0, 1, 0, 0}),
                                                encode_address({Space::kTcm, 0, 0, 0, 0}), kBytes);
  for (auto _ : state) {
    sc_core::sc_spawn([&dma, t] { dma.transfer(t); });
    platform->run();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kBytes / burst));
  state.SetLabel("DMA bursts (PE -> router -> cube link -> router -> HBM and back)");
}

}  // namespace

void register_dma_burst(Platform& p) {
  platform = &p;
  benchmark::RegisterBenchmark("dma_burst/neighbour_cube_hbm", dma_burst)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace microbench
}  // namespace kb
