#include <benchmark/benchmark.h>

#include <systemc>

#include "models/common/completion.h"
#include "models/common/service_queue.h"
#include "models/common/sim_time.h"
#include "tests/microbench/microbench.h"

namespace kb {
namespace microbench {

namespace {

constexpr int kRequests = 10000;
ServiceQueue* queue = nullptr;

// Every request pushed at once; one wait for the last: the queue's own cost.
void service_queue_back_to_back(benchmark::State& state) {
  for (auto _ : state) {
    sc_core::sc_spawn([] {
      Completion all;
      for (int i = 0; i < kRequests; ++i)
        queue->push(ns_to_time(1), 64, &all, static_cast<uint64_t>(i));
      all.wait();
    });
    sc_core::sc_start();
  }
  state.SetItemsProcessed(state.iterations() * kRequests);
  state.SetLabel("queue services");
}

// A requester that waits for each request before pushing the next, as a
// link or HBM target does: the service plus its requester's wake-up.
void service_queue_request_response(benchmark::State& state) {
  for (auto _ : state) {
    sc_core::sc_spawn([] {
      for (int i = 0; i < kRequests; ++i) {
        Completion done;
        queue->push(ns_to_time(1), 64, &done, static_cast<uint64_t>(i));
        done.wait();
      }
    });
    sc_core::sc_start();
  }
  state.SetItemsProcessed(state.iterations() * kRequests);
  state.SetLabel("queue services");
}

}  // namespace

void register_service_queue() {
  static ServiceQueue q("microbench_queue");
  queue = &q;
  benchmark::RegisterBenchmark("service_queue/back_to_back", service_queue_back_to_back)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("service_queue/request_response", service_queue_request_response)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace microbench
}  // namespace kb
