// The JSON result of one bench run (docs/outputs.md): what ran, on which
// topology and how faithfully, the bench's figures, every counter, the energy
// and the op log's fingerprint. Each field is computed here once; the CLI
// writes the result with the run's other outputs (kernbench_app.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kb {

class Platform;
struct BenchResult;
struct TopologyConfig;

// What the CLI knows of a run beside the platform and the bench's result.
struct RunRecord {
  std::string bench;
  const TopologyConfig* topology = nullptr;
  std::vector<std::string> overrides;  // the --set values, in order
  nlohmann::json fidelity;             // fidelity_json (platform/config/fidelity.h)
  nlohmann::json params;               // BenchParams::to_json
  bool data_mode = false;
  double wall_s = 0;  // the bench's run, elaboration aside
};

nlohmann::json result_json(const RunRecord& run, Platform& platform, const BenchResult& result);

// Every knob's resolved value, as YAML would spell it: a run is reproducible
// from its result alone.
nlohmann::json resolved_knobs(const TopologyConfig& cfg);
// Each measurement window of the run (Platform::runs): label, times, the
// commands it covered and its counters.
nlohmann::json runs_json(const Platform& platform);

}  // namespace kb
