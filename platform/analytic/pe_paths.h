// The time of one PE's own DMA transfers between its HBM slice and its TCM,
// alone on an idle PE (no queueing), from the configured latencies and
// bandwidths; the DMA's setup is the caller's. Shared by the analytic models.
#pragma once

#include <cstdint>

namespace kb {

struct TopologyConfig;

// Own HBM -> TCM, `n` bytes in bursts of `burst` (0: the DMA's burst size):
// the bytes spread evenly over the pseudo-channels, and the last burst of
// each channel lands in the TCM together.
double own_hbm_read_ns(const TopologyConfig& cfg, uint64_t n, uint64_t burst = 0);
// TCM -> own HBM, `n` bytes.
double own_hbm_write_ns(const TopologyConfig& cfg, uint64_t n);

}  // namespace kb
