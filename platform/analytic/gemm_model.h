// The analytic model of the gemm study's composite GEMM on one PE
// (C = A·W, A [M,K], W [K,N], C [M,N] fp16 in the PE's HBM): fill +
// n_tiles x bottleneck + tail, computed from the topology's configured
// latencies and bandwidths (no fitted constants). The bottleneck is the busiest
// of the HBM pseudo-channels, the TCM's DMA port, DMA setup, FETCH, the GEMM
// engine and STORE over the whole kernel. The pseudo-channels' time is a
// recurrence over the kernel's DMA bursts in issue order: at most
// max_outstanding in flight, each channel first come first served at its
// bandwidth, a slot freed once the burst's data is in the TCM.
//
// Operand-staging variants:
//   load_ref   A pre-loaded to TCM, W streamed from HBM
//   ref_ref    both streamed
//   load_load  both pre-loaded
#pragma once

#include <cstdint>
#include <string>

namespace kb {

struct TopologyConfig;

struct GemmShape {
  int64_t m = 32, k = 64, n = 32;
};

struct GemmAnalytic {
  double fill_ns = 0, tail_ns = 0, bottleneck_ns = 0, window_ns = 0;
  std::string bottleneck;  // which unit bounds the steady state
  unsigned n_tiles = 0;
};

// The analytic model of one point.
GemmAnalytic gemm_analytic(const TopologyConfig& cfg, const GemmShape& s,
                           const std::string& variant);

// The dynamic energy of one point's launch (the operand loads of the load
// variants included), from the shape alone: the bytes each memory reads and
// writes, the bursts PE_DMA issues and the native tiles PE_GEMM executes, as
// the tile plan moves them, times the topology's energy knobs. Static energy
// is power x time and is not modelled here.
struct GemmEnergyModel {
  double gemm_pj = 0;  // native tiles x 2*tile_m*tile_k*tile_n x pj_per_flop
  double hbm_pj = 0;   // operands read, output written
  double tcm_pj = 0;   // DMA port writes and reads, FETCH reads, STORE writes
  double xbar_pj = 0;  // every DMA byte crosses the PE crossbar twice
  double dma_pj = 0;   // bursts x pj_per_burst
  uint64_t hbm_bytes = 0, tcm_bytes = 0, bursts = 0, native_tiles = 0;

  double dynamic_pj() const { return gemm_pj + hbm_pj + tcm_pj + xbar_pj + dma_pj; }
  // The class that spends the most: "gemm", "hbm", "tcm", "router" or "dma".
  const char* dominant() const;
};

GemmEnergyModel gemm_energy_model(const TopologyConfig& cfg, const GemmShape& s,
                                  const std::string& variant);

// Whether the variant streams A (respectively W) from HBM inside the window.
bool gemm_streams_a(const std::string& variant);
bool gemm_streams_b(const std::string& variant);

}  // namespace kb
