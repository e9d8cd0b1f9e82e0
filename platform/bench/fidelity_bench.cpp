#include "platform/bench/fidelity_bench.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/common/errors.h"
#include "platform/bench/child_bench.h"

namespace kb {

namespace {

struct Workload {
  std::string name;
  std::vector<std::string> args;  // after the executable, without --fidelity
};

// The table: every workload at its full size, or (quick) small
// shapes of the same kinds for a test.
std::vector<Workload> workloads(bool quick) {
  auto llm = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> a = {"--bench", "llm", "--param", "layers=1", "--param", "extend=off"};
    if (quick)
      a.insert(a.end(), {"--param", "model=llama3_8b", "--param", "ranks=16"});
    else
      a.insert(a.end(), {"--param", "model=llama3_70b"});
    a.insert(a.end(), extra.begin(), extra.end());
    return Workload{name, a};
  };
  std::vector<Workload> w;
  if (quick) {
    w.push_back(
        {"gemm-sweep", {"--bench", "gemm-sweep", "--param", "shapes=32x1024x32,128x256x128"}});
    w.push_back({"allreduce 4KiB,64KiB mesh",
                 {"--bench", "allreduce", "--topology", "ahbm_1sip_mesh", "--param",
                  "bytes_per_pe=4KiB,64KiB"}});
    w.push_back({"gqa-decode", {"--bench", "gqa-decode", "--param", "S_kv=1024"}});
    w.push_back(llm("llm decode b1 ctx 1024", {"--param", "batch=1", "--param", "context=1024"}));
    w.push_back(llm("llm prefill 16 tokens", {"--param", "phase=prefill", "--param", "prompt=16"}));
    return w;
  }
  w.push_back({"gemm-sweep", {"--bench", "gemm-sweep"}});
  for (const char* topo : {"ahbm_1sip", "ahbm_1sip_mesh", "ahbm_1sip_ring"})
    w.push_back({std::string("allreduce 4KiB-1MiB ") + topo,
                 {"--bench", "allreduce", "--topology", topo, "--param",
                  "bytes_per_pe=4KiB,64KiB,1MiB", "--param", "buffer=hbm"}});
  for (const char* b : {"gqa-decode", "gqa-long", "gqa-prefill", "gqa-short"})
    w.push_back({b, {"--bench", b}});
  for (const char* batch : {"1", "8", "32"})
    w.push_back(llm(std::string("llm 70B decode b") + batch + " ctx 8193",
                    {"--param", std::string("batch=") + batch, "--param", "context=8193"}));
  w.push_back(
      llm("llm 70B prefill 64 tokens", {"--param", "phase=prefill", "--param", "prompt=64"}));
  return w;
}

// A run's figures: each point's latency (latency_ns, else a GEMM's
// window_ns), or an llm step's per token or to the first token; then the
// run's simulated time and its energy.
struct Figures {
  std::vector<double> latency;
  double sim_ns = 0, energy_pj = 0;
};

Figures figures_of(const nlohmann::json& r) {
  Figures f;
  const nlohmann::json& m = r.at("metrics");
  if (r.at("bench") == "llm") {
    f.latency.push_back(m.contains("ttft_ns") ? m.at("ttft_ns").get<double>()
                                              : m.at("latency_per_token_ns").get<double>());
  } else {
    for (const nlohmann::json& p : r.at("points"))
      if (p.contains("latency_ns"))
        f.latency.push_back(p.at("latency_ns").get<double>());
      else if (p.contains("window_ns"))
        f.latency.push_back(p.at("window_ns").get<double>());
  }
  f.sim_ns = r.at("sim_time_ns").get<double>();
  f.energy_pj = r.at("energy").at("total_pj").get<double>();
  return f;
}

double rel(double fast, double exact) {
  return exact != 0 ? (fast - exact) / exact : (fast == 0 ? 0 : 1);
}

}  // namespace

std::vector<ParamSpec> FidelityBench::params() const {
  return {{"quick", "0",
           "1: small shapes of the same kinds (a test's), 0: the full table (the 70B layers "
           "and the 64-token prefill run exact and fast: most of an hour)"},
          {"only", "", "run only the workloads whose name contains this text"}};
}

// A point per workload (the metrics' workloads list the same rows).
std::vector<std::string> FidelityBench::point_fields() const {
  return {"workload",     "points",      "worst_latency_error", "sim_time_error",   "energy_error",
          "exact_wall_s", "fast_wall_s", "exact_peak_rss_mb",   "fast_peak_rss_mb", "speedup"};
}

std::vector<std::string> FidelityBench::metric_fields() const {
  return {"workloads", "worst_error"};
}

BenchResult FidelityBench::run(BenchContext& ctx) {
  const bool quick = ctx.params.integer("quick") != 0;
  const std::string only = ctx.params.str("only");
  const std::string exe = own_exe(ctx);
  BenchResult res;
  SummaryTable t{
      "the fast fidelity against the exact model (each run in a child process; "
      "error = fast / exact - 1)",
      {"workload", "points", "exact_latency_ns", "worst_latency_error_pct", "sim_time_error_pct",
       "energy_error_pct", "exact_wall_s", "fast_wall_s", "speedup"},
      {}};
  nlohmann::json rows = nlohmann::json::array();
  double worst = 0;
  for (const Workload& w : workloads(quick)) {
    if (!only.empty() && w.name.find(only) == std::string::npos) continue;
    Figures fig[2];
    ChildCost cost[2];
    for (int fast = 0; fast < 2; ++fast) {
      std::vector<std::string> argv = {exe};
      argv.insert(argv.end(), w.args.begin(), w.args.end());
      argv.insert(argv.end(), {"--fidelity", fast ? "fast" : "exact"});
      nlohmann::json r;
      cost[fast] = child_bench("fidelity", argv, w.name + (fast ? " (fast)" : " (exact)"), &r);
      fig[fast] = figures_of(r);
    }
    if (fig[0].latency.size() != fig[1].latency.size())
      throw SimulationError("fidelity: " + w.name + " gave " +
                            std::to_string(fig[0].latency.size()) + " points exact and " +
                            std::to_string(fig[1].latency.size()) + " fast");
    double lat_err = 0;
    nlohmann::json per_point = nlohmann::json::array();
    for (size_t i = 0; i < fig[0].latency.size(); ++i) {
      const double e = rel(fig[1].latency[i], fig[0].latency[i]);
      per_point.push_back(
          {{"exact_ns", fig[0].latency[i]}, {"fast_ns", fig[1].latency[i]}, {"error", e}});
      if (std::fabs(e) > std::fabs(lat_err)) lat_err = e;
    }
    const double sim_err = rel(fig[1].sim_ns, fig[0].sim_ns);
    const double energy_err = rel(fig[1].energy_pj, fig[0].energy_pj);
    worst = std::max({worst, std::fabs(lat_err), std::fabs(energy_err)});
    const double speedup = cost[1].wall_s > 0 ? cost[0].wall_s / cost[1].wall_s : 0;
    t.rows.push_back({w.name, std::to_string(fig[0].latency.size()),
                      fig[0].latency.empty() ? "-" : fmt(fig[0].latency.front(), 1),
                      fmt(100 * lat_err, 3), fmt(100 * sim_err, 3), fmt(100 * energy_err, 3),
                      fmt(cost[0].wall_s, 2), fmt(cost[1].wall_s, 2), fmt(speedup, 1)});
    nlohmann::json row = {{"workload", w.name},
                          {"points", per_point},
                          {"worst_latency_error", lat_err},
                          {"sim_time_error", sim_err},
                          {"energy_error", energy_err},
                          {"exact_wall_s", cost[0].wall_s},
                          {"fast_wall_s", cost[1].wall_s},
                          {"exact_peak_rss_mb", cost[0].max_rss_mb},
                          {"fast_peak_rss_mb", cost[1].max_rss_mb},
                          {"speedup", speedup}};
    res.points.push_back(row);
    rows.push_back(row);
  }
  if (rows.empty()) throw UsageError("--param only=" + only + ": no workload's name contains it");
  res.metrics["workloads"] = rows;
  res.metrics["worst_error"] = worst;
  res.tables.push_back(t);
  return res;
}

}  // namespace kb
