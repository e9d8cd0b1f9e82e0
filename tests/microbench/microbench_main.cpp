// kb_microbench: the Google Benchmark micro-benchmarks (`cmake --build build
// --target bench` builds and runs them; not part of the test suite or CI).
// Usual Google Benchmark flags apply (--benchmark_filter, --benchmark_format).
#include <benchmark/benchmark.h>

#include <systemc>

#include "platform/cli/kernbench_app.h"
#include "platform/config/topology_loader.h"
#include "platform/platform.h"
#include "tests/microbench/microbench.h"

int sc_main(int argc, char* argv[]) {
  kb::init();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  // Everything is elaborated before the first benchmark simulates. Static, so
  // that it outlives the harnesses' own statics (built after it, freed before).
  static kb::Platform platform(kb::load_topology("tiny"));
  platform.set_op_log_enabled(false);
  kb::microbench::register_raw_wakeups();
  kb::microbench::register_service_queue();
  kb::microbench::register_dma_burst(platform);
  kb::microbench::register_tile_token(platform);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
