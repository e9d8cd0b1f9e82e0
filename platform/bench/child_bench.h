// A bench that measures kernbench itself (simspeed, fidelity) runs other
// bench commands as child processes of this binary: their wall time, peak
// RSS and JSON result.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/bench/bench.h"

namespace kb {

struct ChildCost {
  double wall_s = 0;
  double max_rss_mb = 0;
  int status = -1;
};

// Runs `argv` as a child; its wall time, and the peak RSS it reports itself
// in its closing line (a spawned child's rusage would count the parent's
// pages it started from).
ChildCost child_cost(const std::vector<std::string>& argv);
// This kernbench binary (for child processes).
std::string own_exe(const BenchContext& ctx);
// A fresh name under the temporary directory (nothing is created).
std::string temp_path(const std::string& stem, const std::string& ext);
// Runs the bench command `argv` in a child with --json to a temporary file;
// its cost, and its JSON result in `result`. A failing child is a
// SimulationError "<bench>: <what> failed (exit N)".
ChildCost child_bench(const std::string& bench, std::vector<std::string> argv,
                      const std::string& what, nlohmann::json* result);

}  // namespace kb
