#include "platform/cli/kernbench_app.h"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <systemc>
#include <vector>

#include "models/common/errors.h"
#include "models/common/service_queue.h"
#include "models/trace/op_log.h"
#include "platform/bench/bench.h"
#include "platform/bench/progress.h"
#include "platform/config/embedded_files.h"
#include "platform/config/fidelity.h"
#include "platform/config/knob_visitors.h"
#include "platform/config/topology_loader.h"
#include "platform/fabric/pe.h"
#include "platform/output/atomic_file.h"
#include "platform/output/csv_table.h"
#include "platform/output/op_log_writer.h"
#include "platform/output/output_paths.h"
#include "platform/output/output_transaction.h"
#include "platform/output/result_json.h"
#include "platform/output/result_writer.h"
#include "platform/output/trace_writer.h"
#include "platform/output/vcd_tracer.h"
#include "platform/platform.h"
#include "platform/process/report_policy.h"
#include "platform/process/stop_signals.h"
#include "platform/sweep/sweep_runner.h"
#include "platform/sweep/sweep_spec.h"
#include "platform/util/spelling.h"
#include "platform/util/subprocess.h"
#include "platform/util/version.h"

namespace po = boost::program_options;

namespace kb {
namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

constexpr int kExitOk = 0, kExitInternal = 1, kExitUsage = 2, kExitSimulation = 3;

struct Options {
  bool help = false, list_benches = false, check_topology = false, describe_topology = false;
  bool describe_stats = false, version = false;
  bool quiet = false, data = false;
  std::string topology, bench, json, out, vcd, oplog, trace, csv, fidelity;
  std::vector<std::string> sets, params, vcd_scopes, trace_scopes;
  std::string sweep, emit_jobs, emit_slurm;
  std::vector<std::string> slurm;
  std::string jobs = "2";
  bool merge = false, resume = false;
};

po::options_description make_options(Options& o, const std::string& default_bench) {
  po::options_description d("kernbench options");
  // clang-format off
  d.add_options()
      ("help,h", po::bool_switch(&o.help), "print this help and exit")
      ("version", po::bool_switch(&o.version), "print the version and git commit and exit")
      ("list-benches", po::bool_switch(&o.list_benches), "list the benches and their parameters")
      ("topology,t", po::value(&o.topology)->value_name("FILE|NAME"),
       ("topology YAML file, or a shipped topology by name (" + join_names(embedded_topology_names()) +
        "); default: ahbm_1sip").c_str())
      ("set,s", po::value(&o.sets)->value_name("KEY=VALUE")->composing(),
       "override one topology knob, e.g. --set sip.cube_link.bandwidth_gbps=64 (repeatable)")
      ("fidelity", po::value(&o.fidelity)->value_name("exact|fast"),
       "exact: every burst and every GEMM K step simulated (the reference); fast: DMA stream "
       "transactions and streamed GEMMs, within the error docs/ARCHITECTURE.md measures (sets "
       "pe.dma.transactions and pe.scheduler.gemm_plan; a --set of either wins); default: the "
       "bench's (fast for llm, exact for the others)")
      ("describe-topology", po::bool_switch(&o.describe_topology),
       "print every topology knob with its default and description")
      ("check-topology", po::bool_switch(&o.check_topology),
       "validate the topology, print SIPs, cubes, PEs, links and bandwidths, and exit")
      ("describe-stats", po::bool_switch(&o.describe_stats),
       "print every statistics counter of the topology's modules (unit, description) and exit")
      ("bench,b", po::value(&o.bench)->value_name("NAME"),
       ("bench to run (default: " + default_bench + ")").c_str())
      ("param,p", po::value(&o.params)->value_name("KEY=VALUE")->composing(),
       "bench parameter (repeatable); see --list-benches")
      ("data", po::bool_switch(&o.data), "data mode: memories hold real bytes (timing unchanged)")
      ("json", po::value(&o.json)->value_name("FILE"), "write the JSON result to FILE")
      ("csv", po::value(&o.csv)->value_name("FILE"),
       "write the bench's points as a CSV table to FILE (a column per key)")
      ("out", po::value(&o.out)->value_name("DIR"),
       "output directory: the JSON result goes to DIR/<bench>.json unless --json is given")
      ("oplog", po::value(&o.oplog)->value_name("FILE"),
       "write the op log: one JSON line per engine stage (start, end, PE, engine, stage, "
       "op_kind, command id, tile, bytes, address)")
      ("trace", po::value(&o.trace)->value_name("FILE"),
       "write a Chrome/Perfetto trace of the op log (one track per engine, overlapping stages "
       "on sub-tracks; a power counter "
       "track per cube)")
      ("trace-scope", po::value(&o.trace_scopes)->value_name("PATH")->composing(),
       "glob on hierarchical names of the PEs and cubes the trace keeps (repeatable; default: "
       "all), e.g. 'system.sip0.cube0*'")
      ("vcd", po::value(&o.vcd)->value_name("FILE"), "write a VCD waveform of the scoped modules")
      ("vcd-scope", po::value(&o.vcd_scopes)->value_name("PATH")->composing(),
       "glob on hierarchical names to trace (repeatable; default: the first PE and its cube, and "
       "every cube's power)")
      ("quiet,q", po::bool_switch(&o.quiet), "print only errors")
      ("sweep", po::value(&o.sweep)->value_name("SPEC"),
       "run the configuration sweep SPEC.yaml (one kernbench process per point; needs --out)")
      ("jobs,j", po::value(&o.jobs)->value_name("N"), "sweep: points run at a time, 1 to 256 (default 2)")
      ("emit-jobs", po::value(&o.emit_jobs)->value_name("FILE"),
       "sweep: write a GNU parallel job file (parallel -j2 < FILE) instead of running")
      ("slurm", po::value(&o.slurm)->value_name("KEY=VALUE")->composing(),
       "sweep: a Slurm resource of --emit-slurm's script (time, mem, partition, account, qos, "
       "cpus_per_task), over the spec's slurm: (repeatable)")
      ("emit-slurm", po::value(&o.emit_slurm)->value_name("FILE"),
       "sweep: write a Slurm array script (and FILE.jobs) instead of running")
      ("merge", po::bool_switch(&o.merge),
       "sweep: only merge the points already in --out into the table and sweep.json")
      ("resume", po::bool_switch(&o.resume),
       "sweep: keep the points whose result in --out is already theirs, run the others");
  // clang-format on
  return d;
}

std::string list_benches(const BenchRegistry& reg) {
  std::string s;
  for (const Bench* b : reg.all()) {
    s += b->name() + "\n    " + b->description() + "\n";
    for (const auto& p : b->params())
      s += "    --param " + p.name + "=" + p.default_value + "    " + p.description + "\n";
  }
  return s;
}

// This process's peak resident set (VmHWM), in MB; 0 when unknown.
double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

std::ostream& null_stream() {
  static std::ofstream null("/dev/null");
  return null;
}

bool ensure_dir(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
  return mkdir(dir.c_str(), 0755) == 0;
}

// An option the chosen mode never reads is an error naming both, not
// silently ignored: the information modes write no file and run no bench, a
// sweep's points write their own results under --out.
void check_mode_options(const Options& o, const po::variables_map& vm) {
  const std::vector<std::pair<bool, const char*>> modes = {
      {o.list_benches, "--list-benches"},
      {o.describe_topology, "--describe-topology"},
      {o.check_topology, "--check-topology"},
      {o.describe_stats, "--describe-stats"},
      {!o.sweep.empty(), "--sweep"}};
  const char* mode = nullptr;
  for (const auto& [given, name] : modes) {
    if (!given) continue;
    if (mode) throw UsageError(std::string(mode) + " and " + name + " exclude each other");
    mode = name;
  }
  if (!mode) {
    if (!o.vcd_scopes.empty() && o.vcd.empty()) throw UsageError("--vcd-scope needs --vcd FILE");
    if (!o.trace_scopes.empty() && o.trace.empty())
      throw UsageError("--trace-scope needs --trace FILE");
    return;
  }
  const bool info = o.list_benches || o.describe_topology;
  const bool sweep = !o.sweep.empty();
  const std::string why = o.list_benches        ? "it prints the benches and their parameters"
                          : o.describe_topology ? "it prints every knob's default"
                          : sweep               ? "each point writes its own result under --out DIR"
                                                : "it runs no bench and writes no file";
  // (--sweep refuses --bench, --topology, --set and --param itself, and
  // --check-topology and --describe-stats refuse --param. --check-topology
  // elaborates in data mode with --data: its peak RSS is data mode's.)
  struct Unused {
    bool given;
    const char* name;
    const char* why;  // null: the mode's
  };
  const Unused unused[] = {{vm.count("json") != 0, "--json", nullptr},
                           {vm.count("csv") != 0, "--csv", nullptr},
                           {!sweep && vm.count("out") != 0, "--out", nullptr},
                           {vm.count("oplog") != 0, "--oplog", nullptr},
                           {vm.count("trace") != 0, "--trace", nullptr},
                           {!o.trace_scopes.empty(), "--trace-scope", nullptr},
                           {vm.count("vcd") != 0, "--vcd", nullptr},
                           {!o.vcd_scopes.empty(), "--vcd-scope", nullptr},
                           {o.data && !o.check_topology, "--data",
                            sweep ? "the spec's data: true runs its points in data mode" : nullptr},
                           {!sweep && vm.count("bench") != 0, "--bench", nullptr},
                           {info && !o.params.empty(), "--param", nullptr},
                           {info && vm.count("topology") != 0, "--topology", nullptr},
                           {info && !o.sets.empty(), "--set", nullptr},
                           {info && vm.count("fidelity") != 0, "--fidelity", nullptr}};
  for (const Unused& u : unused)
    if (u.given)
      throw UsageError(std::string(mode) + " does not use " + u.name + ": " +
                       (u.why ? u.why : why.c_str()));
}

// Options that mean nothing together are errors, not silently ignored: an
// empty file name, a sweep option without --sweep, two sweep modes at once.
void check_option_combinations(const Options& o, const po::variables_map& vm) {
  for (const char* name : {"topology", "json", "csv", "out", "oplog", "trace", "vcd", "sweep",
                           "emit-jobs", "emit-slurm"})
    if (vm.count(name) && vm[name].as<std::string>().empty())
      throw UsageError(std::string("--") + name + ": the file name is empty");
  if (vm.count("bench") && o.bench.empty())
    throw UsageError("--bench: the bench name is empty (see --list-benches)");
  const bool sweep = !o.sweep.empty();
  for (const auto& [given, name] : {std::pair<bool, const char*>{o.merge, "--merge"},
                                    {o.resume, "--resume"},
                                    {!o.emit_jobs.empty(), "--emit-jobs"},
                                    {!o.emit_slurm.empty(), "--emit-slurm"},
                                    {!o.slurm.empty(), "--slurm"},
                                    {vm.count("jobs") && !vm["jobs"].defaulted(), "-j"}})
    if (given && !sweep) throw UsageError(std::string(name) + " needs --sweep SPEC");
  const int modes =
      int(o.merge) + int(o.resume) + int(!o.emit_jobs.empty()) + int(!o.emit_slurm.empty());
  if (modes > 1)
    throw UsageError("--merge, --resume, --emit-jobs and --emit-slurm exclude each other");
  if (sweep && (!o.params.empty() || !o.sets.empty() || vm.count("bench") || vm.count("topology") ||
                vm.count("fidelity")))
    throw UsageError(
        "--sweep takes its bench, topology, --set and --param from the spec (its set: names "
        "pe.dma.transactions and pe.scheduler.gemm_plan for a fidelity)");
  if (vm.count("fidelity")) parse_fidelity(o.fidelity);  // a bad value before anything runs
  for (const std::string& kv : o.slurm)
    if (const size_t eq = kv.find('='); eq != std::string::npos)
      if (const std::string e = slurm_resource_error(kv.substr(0, eq), kv.substr(eq + 1));
          !e.empty())
        throw UsageError("--slurm " + kv + ": " + e);
  check_mode_options(o, vm);
}

// The run's topology: --topology, else the bench's own default (embedded),
// else ahbm_1sip.yaml; the fidelity's knobs applied before the user's --set,
// which wins.
TopologyConfig load_run_topology(const Options& o, const Bench* bench,
                                 const std::optional<BenchParams>& params, Fidelity fidelity) {
  const std::string bench_topology = bench ? bench->default_topology(*params) : "";
  const std::string* embedded = bench_topology.empty() ? nullptr : embedded_file(bench_topology);
  std::vector<std::string> sets = fidelity_overrides(fidelity);
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  if (!o.topology.empty()) return load_topology(o.topology, sets);
  if (embedded) return load_topology_text(*embedded, bench_topology + " (embedded)", sets);
  return load_default_topology(sets);
}

// --fidelity, else the bench's default (exact without a bench).
Fidelity run_fidelity(const Options& o, const Bench* bench) {
  if (!o.fidelity.empty()) return parse_fidelity(o.fidelity);
  return bench ? bench->default_fidelity() : Fidelity::kExact;
}

// What a run prints when not --quiet: the bench's tables (or its metrics),
// the simulated and wall time, and the fidelity of a run that took a
// shortcut (fidelity_json).
void print_summary(const BenchResult& result, double now_ns, double wall_s,
                   const std::string& topology, const nlohmann::json& f) {
  for (const auto& t : result.tables) std::cout << t.render() << "\n";
  // A run without tables (a user's own, say) still shows what it measured.
  if (result.tables.empty() && !result.metrics.empty())
    std::cout << "metrics " << result.metrics.dump() << "\n";
  if (result.child_runs > 0)
    std::cout << "simulated " << fmt(result.child_sim_time_ns, 1) << " ns in " << result.child_runs
              << " child runs (" << fmt(now_ns, 1) << " ns in this process)";
  else
    std::cout << "simulated " << fmt(now_ns, 1) << " ns";
  std::cout << " in " << fmt(wall_s, 3) << " s wall, peak RSS " << fmt(peak_rss_mb(), 0) << " MB ("
            << topology << ")\n";
  if (f["used"] == "exact") return;
  std::cout << "fidelity " << f["used"].get<std::string>()
            << ": pe.dma.transactions=" << f["pe.dma.transactions"].get<std::string>()
            << ", pe.scheduler.gemm_plan=" << f["pe.scheduler.gemm_plan"].get<std::string>()
            << " (docs/ARCHITECTURE.md 1.6 gives their error; --fidelity exact simulates every "
               "burst and tile)\n";
}

unsigned parse_jobs(const std::string& text) {
  constexpr unsigned long kMaxJobs = 256;
  size_t pos = 0;
  unsigned long n = 0;
  try {
    if (!text.empty() && text[0] != '-' && text[0] != '+') n = std::stoul(text, &pos, 10);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos == 0 || pos != text.size() || n < 1 || n > kMaxJobs)
    throw UsageError("-j " + text + ": expected a whole number of processes from 1 to " +
                     std::to_string(kMaxJobs));
  return static_cast<unsigned>(n);
}

// Every point's --param values against the bench, and the topology with each
// distinct --set combination (the first 64), before any point starts: a typo
// is one clear error, not a sweep of failed points.
void validate_sweep_points(const SweepSpec& spec, const BenchRegistry& registry) {
  const Bench& bench = registry.find(spec.bench);
  std::set<std::vector<std::string>> loaded;
  constexpr size_t kTopologiesChecked = 64;
  for (const SweepPoint& p : spec.expand()) {
    std::vector<std::string> sets = spec.sets, params = spec.params;
    for (const auto& [k, v] : p.sets) sets.push_back(k + "=" + v);
    for (const auto& [k, v] : p.params) params.push_back(k + "=" + v);
    const std::string where = spec.source + ": point " + std::to_string(p.index) + ": ";
    try {
      const BenchParams checked(bench.name(), bench.params(), params);
      (void)checked;
      if (loaded.size() < kTopologiesChecked && loaded.insert(sets).second) {
        if (spec.topology.empty())
          load_default_topology(sets);
        else
          load_topology(spec.topology, sets);
      }
    } catch (const UsageError& e) {
      throw UsageError(where + e.what());
    } catch (const ConfigError& e) {
      throw ConfigError(where + e.what());
    }
  }
}

int run_sweep_command(const Options& o, const BenchRegistry& registry, const char* argv0) {
  if (o.out.empty()) throw UsageError("--sweep needs --out DIR for the points' results");
  const SweepSpec spec = load_sweep_spec(o.sweep);
  // The table's columns against the bench's declared point fields, before
  // anything else: a run, a --merge or a job file whose table would refuse
  // them is wasted (docs/cli.md, Sweeps).
  const bool columns_checked = check_sweep_columns(spec, registry.find(spec.bench));
  SweepOptions so;
  so.out_dir = o.out;
  so.exe = self_executable(argv0);
  so.jobs = parse_jobs(o.jobs);
  for (const std::string& kv : o.slurm) {
    const size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq);
    if (eq == std::string::npos ||
        std::find(kSlurmKeys.begin(), kSlurmKeys.end(), key) == kSlurmKeys.end()) {
      const std::string near = nearest_spelling(key, kSlurmKeys);
      throw UsageError(
          "--slurm " + kv + ": expected KEY=VALUE with KEY one of time, mem, " +
          "partition, account, qos, cpus_per_task" +
          (near.empty() || eq == std::string::npos ? "" : " (did you mean '" + near + "'?)"));
    }
    if (const std::string e = slurm_value_error(kv.substr(eq + 1)); !e.empty())
      throw UsageError("--slurm " + kv + ": the value " + e);
    if (o.emit_slurm.empty()) throw UsageError("--slurm needs --emit-slurm FILE");
    so.slurm.emplace_back(key, kv.substr(eq + 1));
  }
  if (!o.emit_jobs.empty()) {
    check_output_paths({{"--emit-jobs", o.emit_jobs, false}});
    write_job_file(spec, so, o.emit_jobs);
    if (!o.quiet)
      std::cout << "wrote " << o.emit_jobs << " (" << spec.expand().size()
                << " points): parallel -j2 < " << o.emit_jobs << ", then --merge\n";
    return kExitOk;
  }
  if (!o.emit_slurm.empty()) {
    check_output_paths(
        {{"--emit-slurm", o.emit_slurm, false}, {"--emit-slurm", o.emit_slurm + ".jobs", false}});
    write_slurm_script(spec, so, o.emit_slurm + ".jobs", o.emit_slurm);
    if (!o.quiet)
      std::cout << "wrote " << o.emit_slurm << " and " << o.emit_slurm << ".jobs: sbatch "
                << o.emit_slurm << ", then --merge\n";
    return kExitOk;
  }
  so.resume = o.resume;
  so.merge_only = o.merge;
  if (!o.merge) validate_sweep_points(spec, registry);
  const nlohmann::json merged =
      o.merge ? merge_sweep(spec, so) : run_sweep(spec, so, o.quiet ? null_stream() : std::cerr);
  // A bench that declares no point fields (a user's own may not) has its
  // columns checked against its points' results. A declaring bench's were
  // checked above, and a declared field that no point of this sweep carried
  // (max_abs_err out of data mode, model_gap) is a "-" cell, not an error.
  if (!columns_checked) check_sweep_columns(spec, merged);
  if (!o.quiet) std::cout << sweep_table(spec, merged);
  const auto failed = merged["failed"].get<unsigned>();
  const auto missing = merged.value("missing", 0u);
  if (failed == 0 && missing == 0) return kExitOk;
  std::cerr << "kernbench: sweep " << o.sweep << ": ";
  if (failed)
    std::cerr << failed << " of " << merged["total"].get<size_t>() << " points failed or are stale";
  if (failed && missing) std::cerr << ", ";
  if (missing) std::cerr << missing << " never run (--resume runs them)";
  if (merged.contains("sweep_json_kept"))
    std::cerr << "; " << merged["sweep_json_kept"].get<std::string>() << "\n";
  else
    std::cerr << " (see " << o.out << "/sweep.json)\n";
  return kExitSimulation;
}

// Every output path, checked before anything runs (platform/output/output_paths.h).
// `save_file`: whether the VCD's GTKWave save file is written (a user's own
// save file there is kept, and the run says so).
void check_outputs(const Options& o, const std::string& json_path, bool save_file) {
  std::vector<OutputRequest> outs;
  if (!json_path.empty()) outs.push_back({o.json.empty() ? "--out" : "--json", json_path});
  if (!o.oplog.empty()) outs.push_back({"--oplog", o.oplog});
  if (!o.csv.empty()) outs.push_back({"--csv", o.csv});
  if (!o.trace.empty()) outs.push_back({"--trace", o.trace});
  if (!o.vcd.empty()) {
    outs.push_back({"--vcd", o.vcd, false});
    if (save_file) outs.push_back({"--vcd (its GTKWave save file)", gtkw_path(o.vcd), false});
  }
  check_output_paths(outs);
  if (!o.vcd.empty() && !save_file)
    std::cerr << "kernbench: note: " << gtkw_path(o.vcd)
              << " was not written by kernbench: it is kept, and no save file is written for "
              << o.vcd << "\n";
}

// The run's platform, alive until the process exits. Destroying it would take
// SystemC's object registries a linear search per port, export and module, which
// is quadratic in the module count (8192 PEs: 15 s of a 20 s --check-topology);
// the process is about to end, which frees it all at once. Kept reachable from
// here, so leak checkers see no leak.
Platform& keep_until_exit(std::unique_ptr<Platform> platform) {
  static auto* kept = new std::vector<std::unique_ptr<Platform>>;
  kept->push_back(std::move(platform));
  return *kept->back();
}

// Power meters for --vcd and --trace (they change no timing), and the VCD
// tracer (null without --vcd), set up before the platform first runs.
std::unique_ptr<VcdTracer> set_up_waveforms(const Options& o, Platform& platform, bool save_file) {
  if (!o.trace_scopes.empty()) {
    if (o.trace.empty()) throw UsageError("--trace-scope needs --trace FILE");
    bool any = false;
    std::function<void(sc_core::sc_object*)> walk = [&](sc_core::sc_object* obj) {
      any = any || in_vcd_scope(obj->name(), o.trace_scopes);
      for (sc_core::sc_object* c : obj->get_child_objects())
        if (!any) walk(c);
    };
    for (sc_core::sc_object* top : sc_core::sc_get_top_level_objects()) walk(top);
    std::string list;
    for (const auto& s : o.trace_scopes) list += (list.empty() ? "'" : ", '") + s + "'";
    if (!any)
      throw UsageError("--trace-scope " + list +
                       ": matches no module (names are hierarchical, e.g. "
                       "'system.sip0.cube0.pe0' or 'system.sip0.cube1*')");
  }
  if (!o.vcd.empty() || !o.trace.empty()) platform.enable_power_meters();
  if (!o.trace.empty())
    platform.enable_queue_depth_tracks([&o](const std::string& queue) {
      return o.trace_scopes.empty() || in_vcd_scope(queue, o.trace_scopes);
    });
  if (o.vcd.empty()) return nullptr;
  auto vcd = std::make_unique<VcdTracer>(
      o.vcd, o.vcd_scopes.empty() ? default_vcd_scopes() : o.vcd_scopes, save_file);
  vcd->trace_phase(platform.phase());
  return vcd;
}

// After the run: every output staged in full, then all renamed into place at
// once (platform/output/output_transaction.h), so that a failure or a stop
// signal before the end leaves every target as it was.
void write_outputs(const Options& o, Platform& platform, VcdTracer* vcd,
                   const std::string& json_path, const nlohmann::json& j,
                   const BenchResult& result) {
  OutputTransaction outputs;
  std::vector<std::string> written;
  if (!json_path.empty()) {
    outputs.stage(json_path).write(format_json(j));
    written.push_back(json_path);
  }
  if (!o.csv.empty()) {
    // A bench that reports no points (dma): its metrics as the one row.
    const nlohmann::json& points = j.at("points");
    outputs.stage(o.csv).write(
        points_csv(points.empty() ? nlohmann::json::array({j.at("metrics")}) : points));
    written.push_back(o.csv);
    for (const CsvTable& t : result.csv_tables) {
      const std::string path = csv_table_path(o.csv, t.name);
      outputs.stage(path).write(table_csv(t));
      written.push_back(path);
    }
  }
  // The op log and the trace are streamed record by record (the log may be
  // spilled to disk: see OpLog::spill_to).
  if (!o.oplog.empty()) {
    AtomicFile& f = outputs.stage(o.oplog);
    for_each_op_log_line(platform.op_log(), [&](const std::string& line) { f.write(line); });
    written.push_back(o.oplog);
  }
  if (!o.trace.empty()) {
    AtomicFile& f = outputs.stage(o.trace);
    write_trace(platform, o.trace_scopes, [&](const std::string& piece) { f.write(piece); });
    written.push_back(o.trace);
  }
  if (vcd) {
    if (vcd->finish(outputs))
      written.push_back(o.vcd);
    else if (!o.quiet)
      std::cerr << "kernbench: no VCD written to " << o.vcd
                << ": nothing was simulated (every point was skipped)\n";
  }
  outputs.commit();
  if (!o.quiet)
    for (const std::string& path : written) std::cout << "wrote " << path << "\n";
}

// Parses the command line against `desc`. No positional arguments: a stray
// word (`rows=2` without --param) is an error, not silently ignored.
po::variables_map parse_command_line(int argc, char* argv[], const po::options_description& desc) {
  po::variables_map vm;
  try {
    std::vector<std::string> stray;
    po::options_description all = desc;
    all.add_options()("stray", po::value(&stray));
    po::positional_options_description pos;
    pos.add("stray", -1);
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (!stray.empty()) {
      const std::string& w = stray.front();
      throw UsageError("unexpected argument '" + w + "'" +
                       (w.find('=') != std::string::npos
                            ? " (a bench parameter is --param " + w + ", a knob --set " + w + ")"
                            : "") +
                       " (see --help)");
    }
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  return vm;
}

// Recording off when nothing reads the op log. A bench that does not read it
// back but whose log is asked for keeps little of it in memory: sorted runs go
// to a temporary (returned) beside the output, removed at the end.
std::unique_ptr<AtomicFile> set_op_log_policy(const Options& o, const Bench& bench,
                                              Platform& platform) {
  const bool asked = !o.oplog.empty() || !o.trace.empty();
  if (bench.uses_op_log()) return nullptr;
  if (!asked) {
    platform.set_op_log_enabled(false);
    return nullptr;
  }
  auto spill = std::make_unique<AtomicFile>(o.oplog.empty() ? o.trace : o.oplog, ".oplog-runs");
  if (spill->direct()) {  // a character device: spill to the temporary directory
    spill = std::make_unique<AtomicFile>(
        (std::filesystem::temp_directory_path() / "kernbench.oplog").string(), ".oplog-runs");
  }
  spill->release_descriptor();
  platform.op_log().spill_to(spill->temp_path());
  return spill;
}

// `program`: this executable's name (a user's own program built on the library).
void print_help_or_version(const Options& o, const po::options_description& desc,
                           const std::string& program) {
  if (o.version) {
    // The heap's pages: see quiet_main.cpp (main() sets the tunable and re-executes).
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    const bool huge = tunables && std::strstr(tunables, "glibc.malloc.hugetlb=1");
    std::cout << program << " " << version_text() << "\n"
              << "heap: "
              << (huge ? "transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1)"
                       : "4 KiB pages")
              << "\n";
    return;
  }
  std::cout << program << (program == "kernbench" ? ": " : ": built on KernBench-SC, ")
            << "SystemC/TLM-2.0 virtual platform of the AHBM accelerator\n\n"
            << "usage: " << program
            << " [--topology FILE|NAME] [--set KEY=VALUE]... [--bench NAME]"
               " [--param KEY=VALUE]... [--json FILE]\n\n"
            << desc
            << "\nexit codes: 0 success, 2 usage, configuration or output error, 3 simulation"
               " fault, 1 internal error, 128+N stopped by signal N\n"
            << "\nenvironment: KB_HUGEPAGES=0 keeps the heap on 4 KiB pages (by default the"
               " program re-executes itself once with GLIBC_TUNABLES=glibc.malloc.hugetlb=1:"
               " transparent huge pages, faster on big systems, same results)\n";
}

int run(int argc, char* argv[], const BenchRegistry& registry, const std::string& default_bench) {
  Options o;
  po::options_description desc = make_options(o, default_bench);
  const po::variables_map vm = parse_command_line(argc, argv, desc);
  if (o.help || o.version) {
    print_help_or_version(
        o, desc, std::filesystem::path(argc > 0 ? argv[0] : "kernbench").filename().string());
    return kExitOk;
  }
  parse_jobs(o.jobs);  // a bad -j is an error even where no sweep uses it
  check_option_combinations(o, vm);
  if (o.bench.empty()) o.bench = default_bench;
  if (o.list_benches || o.describe_topology) {
    if (o.list_benches)
      std::cout << list_benches(registry);
    else  // the knobs, then what their defaults leave a kernel (the schema's defaults)
      std::cout << describe_topology_knobs()
                << "what a kernel gets of each PE's memories with these defaults "
                   "(--check-topology [--topology NAME] prints a topology's own):\n"
                << describe_pe_memory(TopologyConfig{}, "  ");
    return kExitOk;
  }
  if (!o.sweep.empty()) return run_sweep_command(o, registry, argv[0]);
  install_report_policy({}, o.quiet);
  Bench* bench = nullptr;
  std::optional<BenchParams> params;
  const bool no_bench = o.check_topology || o.describe_stats;
  if (!no_bench) {
    bench = &registry.find(o.bench);
    params.emplace(bench->name(), bench->params(), o.params);
  } else if (!o.params.empty()) {
    throw UsageError(std::string("--param needs a bench; ") +
                     (o.check_topology ? "--check-topology" : "--describe-stats") + " runs none");
  }
  const Fidelity fidelity = run_fidelity(o, bench);
  const TopologyConfig cfg = load_run_topology(o, bench, params, fidelity);
  std::string json_path = o.json;
  // The --out directory this run made, removed again (when still empty) if
  // the run fails: a refused run leaves nothing behind.
  struct MadeDirectory {
    std::string path;
    ~MadeDirectory() {
      if (!path.empty()) ::rmdir(path.c_str());
    }
  } made_out;
  if (!o.out.empty()) {
    struct stat st {};
    const bool existed = ::stat(o.out.c_str(), &st) == 0;
    if (!ensure_dir(o.out)) throw UsageError("--out " + o.out + ": cannot create directory");
    if (!existed) made_out.path = o.out;
    if (json_path.empty() && bench) json_path = o.out + "/" + bench->name() + ".json";
  }
  const bool save_file = o.vcd.empty() || gtkw_is_ours(gtkw_path(o.vcd));
  check_outputs(o, json_path, save_file);

  const auto t_elab = std::chrono::steady_clock::now();
  Platform& platform = keep_until_exit(std::make_unique<Platform>(cfg));
  platform.set_data_mode(o.data);
  if (o.describe_stats) {
    platform.finish_elaboration();
    std::cout << platform.describe_stats();
    return kExitOk;
  }
  if (o.check_topology) {
    platform.finish_elaboration();
    const double elab_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_elab).count();
    std::cout << platform.describe() << "  elaboration  " << fmt(elab_s, 3) << " s wall, peak RSS "
              << fmt(peak_rss_mb(), 1) << " MB\n";
    return kExitOk;
  }
  const std::unique_ptr<AtomicFile> spill = set_op_log_policy(o, *bench, platform);
  const std::unique_ptr<VcdTracer> vcd = set_up_waveforms(o, platform, save_file);

  BenchContext ctx{platform, *params, o.data, o.topology, o.sets, "", o.quiet};
  const auto t0 = std::chrono::steady_clock::now();
  BenchResult result;
  {
    const Heartbeat heartbeat(bench->name(), o.quiet);
    result = bench->run(ctx);
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const RunRecord run{bench->name(),     &cfg,   o.sets, fidelity_json(fidelity, cfg, o.data),
                      params->to_json(), o.data, wall_s};
  const nlohmann::json j = result_json(run, platform, result);

  if (!o.quiet) print_summary(result, platform.now_ns(), wall_s, cfg.name, run.fidelity);
  write_outputs(o, platform, vcd.get(), json_path, j, result);
  made_out.path.clear();
  return kExitOk;
}

}  // namespace

namespace {

// Errors are one line: a control character a user typed into a value (a
// newline in --set) is shown escaped, not printed.
std::string one_line(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      out += "?";
    else
      out += c;
  }
  return out;
}

}  // namespace

void init() {
  static bool done = false;
  if (done) return;
  done = true;
  install_stop_signal_cleanup();
  set_time_resolution();
}

int kernbench_main(int argc, char* argv[]) {
  return kernbench_main(argc, argv, BenchRegistry::with_builtin_benches(), "milestone");
}

namespace {

class FunctionBench : public Bench {
 public:
  FunctionBench(std::string name, std::string description,
                std::function<BenchResult(BenchContext&)> body, std::vector<ParamSpec> params)
      : name_(std::move(name)),
        description_(std::move(description)),
        body_(std::move(body)),
        params_(std::move(params)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  std::vector<ParamSpec> params() const override { return params_; }
  BenchResult run(BenchContext& ctx) override { return body_(ctx); }

 private:
  std::string name_, description_;
  std::function<BenchResult(BenchContext&)> body_;
  std::vector<ParamSpec> params_;
};

}  // namespace

int run_main(int argc, char* argv[], const std::string& name, const std::string& description,
             std::function<BenchResult(BenchContext&)> body, std::vector<ParamSpec> params) {
  BenchRegistry registry;
  registry.add(
      std::make_unique<FunctionBench>(name, description, std::move(body), std::move(params)));
  return kernbench_main(argc, argv, registry, name);
}

int kernbench_main(int argc, char* argv[], const BenchRegistry& registry,
                   const std::string& default_bench) {
  try {
    init();
    return run(argc, argv, registry, default_bench);
  } catch (const UsageError& e) {
    std::cerr << "kernbench: error: " << one_line(e.what()) << "\n";
    return kExitUsage;
  } catch (const ConfigError& e) {
    std::cerr << "kernbench: configuration error: " << one_line(e.what()) << "\n";
    return kExitUsage;
  } catch (const OutputError& e) {
    std::cerr << "kernbench: output error: " << one_line(e.what()) << "\n";
    return kExitUsage;
  } catch (const SimulationError& e) {
    std::cerr << "kernbench: simulation fault: " << one_line(e.what()) << "\n";
    return kExitSimulation;
  } catch (const sc_core::sc_report& e) {
    std::cerr << "kernbench: simulation fault: " << e.get_msg_type() << ": "
              << one_line(e.get_msg()) << "\n";
    return kExitSimulation;
  } catch (const std::exception& e) {
    std::cerr << "kernbench: internal error: " << one_line(e.what()) << "\n";
    return kExitInternal;
  }
}

}  // namespace kb
