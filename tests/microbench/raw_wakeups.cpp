#include <benchmark/benchmark.h>

#include <systemc>

#include "tests/microbench/microbench.h"

namespace kb {
namespace microbench {

namespace {

constexpr int kRoundTrips = 10000;

struct PingPong {
  sc_core::sc_event ping, pong;
  void spawn(int round_trips) {
    const sc_core::sc_time tick(1, sc_core::SC_PS);
    sc_core::sc_spawn([this, round_trips, tick] {
      for (int i = 0; i < round_trips; ++i) {
        ping.notify(tick);
        sc_core::wait(pong);
      }
    });
    sc_core::sc_spawn([this, round_trips, tick] {
      for (int i = 0; i < round_trips; ++i) {
        sc_core::wait(ping);
        pong.notify(tick);
      }
    });
  }
};

void raw_wakeups(benchmark::State& state) {
  static PingPong pp;
  for (auto _ : state) {
    pp.spawn(kRoundTrips);
    sc_core::sc_start();
  }
  state.SetItemsProcessed(state.iterations() * kRoundTrips * 2);
  state.SetLabel("thread wake-ups");
}

}  // namespace

void register_raw_wakeups() {
  benchmark::RegisterBenchmark("raw_wakeups", raw_wakeups)->Unit(benchmark::kMillisecond);
}

}  // namespace microbench
}  // namespace kb
