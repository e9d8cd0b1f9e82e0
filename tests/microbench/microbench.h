// Google Benchmark micro-benchmarks of the simulator's hottest paths, in one
// process: SystemC elaborates once, so every harness is built (register_*)
// before the first benchmark simulates, and each benchmark iteration is one
// sc_start() over a batch of work. items_per_second is the path's rate in
// wall time; raw_wakeups is the kernel's own rate for comparison.
#pragma once

namespace kb {
class Platform;
namespace microbench {

// Two bare SystemC threads in ping-pong: the kernel's raw wake-up rate.
void register_raw_wakeups();
// One ServiceQueue: a request pushed and served (back to back, and one
// requester waiting for each).
void register_service_queue();
// One PE_DMA burst from a neighbouring cube's HBM into a PE's TCM: through the
// crossbar, the cube routers, a cube link, an HBM pseudo-channel and the TCM port.
void register_dma_burst(Platform& platform);
// One tile token through the PE engines (DMA in, TCM fetch, GEMM, store,
// DMA out) of a composite GEMM.
void register_tile_token(Platform& platform);

}  // namespace microbench
}  // namespace kb
