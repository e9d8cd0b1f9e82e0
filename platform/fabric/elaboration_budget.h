// What a topology's threads cost the process when every PE runs: a PE starts
// a fixed set of SystemC threads (each when first used, so an idle PE costs
// none), each on its own coroutine stack guarded by a protected page, so each
// takes two memory maps and its stack's address space. Linux caps the maps at
// vm.max_map_count; past it SystemC first silently drops the guard pages and
// then fails to allocate stacks (std::bad_alloc). check_elaboration_budget()
// refuses such a topology up front with the numbers and the knob or sysctl to
// change.
#pragma once

#include <cstdint>
#include <string>

namespace kb {

struct TopologyConfig;

// The SystemC threads a PE starts once it has used every engine: none. The
// scheduler's feeder, PE_DMA's channels and PE_IPCQ's queues are methods, the
// TCM, GEMM and MATH lanes calendar timers. PE_DMA's burst workers (a copy
// within one memory) and an RTL vector unit's lane are threads, not counted.
// The tests check it against the processes a GEMM with an epilogue starts.
// A launched kernel adds one more, on a stack of pe.cpu.stack_bytes; the
// budget counts one per PE.
unsigned threads_per_pe_in_use();

struct ElaborationBudget {
  uint64_t pes = 0;
  uint64_t threads = 0;        // every PE's threads in use, plus one kernel per PE
  uint64_t maps_needed = 0;    // two per thread
  long maps_limit = -1;        // vm.max_map_count (-1: unknown, not checked)
  long maps_in_use = 0;        // this process's maps now
  uint64_t stack_bytes = 0;    // address space of every thread's stack
  uint64_t address_limit = 0;  // RLIMIT_AS (0: unlimited)
};

ElaborationBudget elaboration_budget(const TopologyConfig& cfg);

// ConfigError naming the numbers and what to change, when the budget does
// not fit the process's limits.
void check_elaboration_budget(const TopologyConfig& cfg);

}  // namespace kb
