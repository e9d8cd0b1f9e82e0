#include "models/common/thread_budget.h"

#include <fstream>
#include <string>

#include "models/common/errors.h"

namespace kb {

namespace {

long read_max_map_count_file() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  long v = 0;
  if (!(in >> v) || v <= 0) return -1;  // not Linux, or not readable: no budget
  return v;
}

long count_maps_file() {
  std::ifstream in("/proc/self/maps");
  long n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

long vm_max_map_count() {
  return read_max_map_count_file();
}

long process_map_count() {
  return count_maps_file();
}

namespace {

struct Budget {
  long limit = -1;  // vm.max_map_count, or -1 for none
  long left = 0;    // threads that may still start
};

}  // namespace

void reserve_thread_stack(const std::string& who) {
  // Maps other than stacks (heap growth, libraries' mmaps) keep appearing,
  // so a margin stays free.
  constexpr long kMargin = 4096;
  static Budget b = [] {
    Budget x;
    x.limit = vm_max_map_count();
    if (x.limit > 0) x.left = (x.limit - process_map_count() - kMargin) / 2;
    return x;
  }();
  if (b.limit < 0) return;
  if (b.left <= 0)
    throw SimulationError(
        who +
        ": cannot start another SystemC thread: each takes two memory maps and "
        "vm.max_map_count=" +
        std::to_string(b.limit) +
        " is used up (a system this size needs more); raise it as root with "
        "`sysctl -w vm.max_map_count=262144` (scripts/install_deps.sh does) or simulate fewer "
        "active PEs");
  --b.left;
}

}  // namespace kb
