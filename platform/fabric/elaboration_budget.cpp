#include "platform/fabric/elaboration_budget.h"

#include <sys/resource.h>

#include <sysc/kernel/sc_constants.h>

#include "models/common/errors.h"
#include "models/common/thread_budget.h"
#include "platform/config/topology_config.h"

namespace kb {

namespace {

// Maps that are not stacks (libraries, heap growth, the runtime threads'
// own budget) keep a margin free.
constexpr long kMapMargin = 8192;

std::string mib(uint64_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

}  // namespace

unsigned threads_per_pe_in_use() {
  // The scheduler's feeder and the DMA channels are methods, and the TCM, GEMM
  // and MATH lanes are timers (models/pe/pe_engine.h): none is a thread.
  return 0;
}

ElaborationBudget elaboration_budget(const TopologyConfig& cfg) {
  ElaborationBudget b;
  b.pes = cfg.total_pes();
  b.threads = b.pes * (threads_per_pe_in_use() + 1);
  b.maps_needed = 2 * b.threads;
  b.maps_limit = vm_max_map_count();
  b.maps_in_use = process_map_count();
  b.stack_bytes = b.pes * cfg.pe.cpu.stack_bytes +
                  (b.threads - b.pes) * static_cast<uint64_t>(sc_core::SC_DEFAULT_STACK_SIZE);
  struct rlimit as {};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) b.address_limit = as.rlim_cur;
  return b;
}

void check_elaboration_budget(const TopologyConfig& cfg) {
  const ElaborationBudget b = elaboration_budget(cfg);
  const std::string what = "topology " + cfg.name + ": " + std::to_string(b.pes) + " PEs start " +
                           std::to_string(b.threads) + " SystemC threads";
  if (b.maps_limit > 0) {
    const long free_maps = b.maps_limit - b.maps_in_use - kMapMargin;
    if (static_cast<long long>(b.maps_needed) > free_maps) {
      const uint64_t want = b.maps_needed + static_cast<uint64_t>(b.maps_in_use + kMapMargin);
      throw ConfigError(what + ", which need " + std::to_string(b.maps_needed) +
                        " memory maps (two per thread stack); vm.max_map_count is " +
                        std::to_string(b.maps_limit) + " with " + std::to_string(b.maps_in_use) +
                        " in use: raise it as root with " +
                        "`sysctl -w vm.max_map_count=" + std::to_string(want) +
                        "` or simulate fewer PEs (system.n_sips, sip.cubes_x, sip.cubes_y, "
                        "cube.pes)");
    }
  }
  if (b.address_limit != 0 && b.stack_bytes > b.address_limit / 2)
    throw ConfigError(what + " whose stacks take " + mib(b.stack_bytes) +
                      " of address space, over half the process limit (ulimit -v) of " +
                      mib(b.address_limit) +
                      ": lower pe.cpu.stack_bytes, simulate fewer PEs or raise ulimit -v");
}

}  // namespace kb
