#include "platform/output/result_json.h"

#include "platform/bench/bench.h"
#include "platform/config/knob_visitors.h"
#include "platform/config/topology_config.h"
#include "platform/output/energy_report.h"
#include "platform/output/op_log_writer.h"
#include "platform/platform.h"
#include "platform/util/version.h"

namespace kb {

nlohmann::json resolved_knobs(const TopologyConfig& cfg) {
  nlohmann::json knobs = nlohmann::json::object();
  for (const Knob& kn : knobs_of(cfg)) knobs[kn.path] = kn.default_text;
  return knobs;
}

nlohmann::json runs_json(const Platform& platform) {
  nlohmann::json out = nlohmann::json::array();
  for (const Platform::RunWindow& w : platform.runs())
    out.push_back({{"label", w.label},
                   {"start_ns", w.start_ns},
                   {"end_ns", w.end_ns},
                   {"cmd_ids", w.cmd_ids},
                   {"stats", w.stats}});
  return out;
}

nlohmann::json result_json(const RunRecord& run, Platform& platform, const BenchResult& result) {
  const TopologyConfig& cfg = *run.topology;
  nlohmann::json j;
  j["bench"] = run.bench;
  j["kernbench_version"] = version_text();
  j["topology"] = {{"name", cfg.name}, {"source", cfg.source}, {"overrides", run.overrides}};
  j["topology"]["knobs"] = resolved_knobs(cfg);
  j["fidelity"] = run.fidelity;
  j["params"] = run.params;
  j["data_mode"] = run.data_mode;
  j["sim_time_ns"] = platform.now_ns();
  j["runs"] = runs_json(platform);
  if (result.child_runs > 0) {
    j["child_runs"] = result.child_runs;
    j["child_sim_time_ns"] = result.child_sim_time_ns;
  }
  j["wall_s"] = run.wall_s;
  j["metrics"] = result.metrics;
  j["points"] = result.points;
  j["stats"] = platform.stats();
  if (!result.extended.is_null()) j["extended"] = result.extended;
  {
    const EnergySnapshot e = platform.energy();
    nlohmann::json energy = EnergyReport::since_start(e).to_json();
    energy["idle_static_pj"] = e.idle_static_mw * e.now_ns;
    j["energy"] = energy;
  }
  if (platform.op_log_enabled())
    j["op_log"] = {{"records", platform.op_log().size()},
                   {"fnv1a64", op_log_hash(platform.op_log())}};
  else
    j["op_log"] = {{"enabled", false}};
  return j;
}

}  // namespace kb
