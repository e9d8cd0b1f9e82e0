#include "platform/bench/simspeed_bench.h"

#include <fcntl.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <systemc>

#include "models/common/errors.h"
#include "models/common/service_queue.h"
#include "models/common/sim_time.h"
#include "models/pe/pe_engine.h"
#include "models/trace/op_log.h"
#include "platform/bench/activity_counters.h"
#include "platform/bench/allreduce_bench.h"
#include "platform/bench/child_bench.h"
#include "platform/bench/gemm_bench.h"
#include "platform/bench/gqa_decode_bench.h"
#include "platform/config/embedded_files.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/util/subprocess.h"

namespace kb {

std::vector<ParamSpec> SimSpeedBench::params() const {
  return {{"pingpongs", "500000", "raw rate: ping-pong round trips of two bare SystemC threads"},
          {"gemm_k", "1024,2048,4096,8192", "K of the linearity GEMMs (M = N = 64, ref_ref)"},
          {"elaborate", "1", "1: also time elaborating the 1-SIP and 4-SIP topologies (children)"},
          {"gqa_s_kv", "131072",
           "gqa-sweep's four long-context cases at this S_kv in a child process, wall time per "
           "case (0 = skip)"},
          {"elaborate_limit", "1",
           "1: also time elaborating the address map's limit, ahbm_1sip at 64 SIPs (8192 PEs, "
           "timing only; child)"},
          {"llm_layers", "0",
           "Llama-3-70B decode (batch 1, context 8193, embedded llama70b_4sip) with this many "
           "of its 80 layers, every one simulated, at --fidelity exact and fast, each in a child "
           "process: wall time, peak RSS and the fast one's speed-up (80 = the whole token; "
           "0 = skip)"},
          {"llm_token_batch", "0",
           "the whole Llama-3-70B decode token (context 8193, llama70b_4sip) at this batch with "
           "the llm bench's defaults (fast fidelity, layer extension), in a child process: wall "
           "time, peak RSS, "
           "layers simulated and the latency's error bar (0 = skip)"},
          {"sweep_spec", "scripts/sweeps/gemm_dma_32.yaml",
           "a configuration sweep run with -j 1 and then -j 2 (child processes), wall times "
           "compared (empty = skip)"}};
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

uint64_t engine_stages(Platform& p) {
  uint64_t n = 0;
  p.for_each_pe([&](Pe& pe) {
    for (PeEngine* e : pe.engines())
      for (unsigned l = 0; l < e->num_lanes(); ++l) n += e->lane_stats(l).stages;
  });
  return n;
}

// Requests served by every service queue (link wires, HBM pseudo-channels,
// memory ports): the fabric's unit of simulated work.
uint64_t queue_services(const std::vector<sc_core::sc_object*>& objects) {
  uint64_t n = 0;
  for (const sc_core::sc_object* o : objects) {
    if (const auto* q = dynamic_cast<const ServiceQueue*>(o)) n += q->stats().requests;
    n += queue_services(o->get_child_objects());
  }
  return n;
}
uint64_t queue_services() {
  return queue_services(sc_core::sc_get_top_level_objects());
}

// Two bare threads: A notifies B 1 ps ahead and waits; B wakes, notifies A.
// Every round trip is two thread wake-ups through the kernel's timed queue.
double raw_wakeups_per_second(Platform& p, uint64_t round_trips) {
  auto ev_a = std::make_shared<sc_core::sc_event>("simspeed_ping");
  auto ev_b = std::make_shared<sc_core::sc_event>("simspeed_pong");
  const sc_core::sc_time tick(1, sc_core::SC_PS);
  sc_core::sc_spawn(
      [ev_a, ev_b, round_trips, tick] {
        for (uint64_t i = 0; i < round_trips; ++i) {
          ev_a->notify(tick);
          sc_core::wait(*ev_b);
        }
      },
      "simspeed_ping_thread");
  sc_core::sc_spawn(
      [ev_a, ev_b, round_trips, tick] {
        for (uint64_t i = 0; i < round_trips; ++i) {
          sc_core::wait(*ev_a);
          ev_b->notify(tick);
        }
      },
      "simspeed_pong_thread");
  const auto t0 = Clock::now();
  p.run();
  return 2.0 * static_cast<double>(round_trips) / seconds_since(t0);
}

struct Rate {
  double wall_s = 0;
  uint64_t stages = 0;
  double sim_ns = 0;
  uint64_t bursts = 0;    // PE_DMA bursts
  uint64_t services = 0;  // service-queue requests served
};

Rate measure(Platform& p, const std::function<void()>& work) {
  // Earlier workloads' records would slow the benches that scan the op log.
  p.op_log().clear();
  const uint64_t s0 = engine_stages(p);
  const ActivityCounters a0 = ActivityCounters::take(p);
  const uint64_t q0 = queue_services();
  const double n0 = p.now_ns();
  const auto t0 = Clock::now();
  work();
  Rate r;
  r.wall_s = seconds_since(t0);
  r.stages = engine_stages(p) - s0;
  r.sim_ns = p.now_ns() - n0;
  r.bursts = ActivityCounters::take(p).since(a0).dma_bursts;
  r.services = queue_services() - q0;
  return r;
}

// Runs `bench` as `kernbench --bench NAME` would: the op log records only for
// a bench that reads it back (a run's recording is part of its cost).
BenchResult run_sub(BenchContext& ctx, Bench& bench, const std::vector<std::string>& params) {
  BenchParams prm(bench.name(), bench.params(), params);
  BenchContext sub{ctx.platform,     prm, false, ctx.topology_file, ctx.topology_overrides,
                   ctx.kernbench_exe};
  Platform& p = ctx.platform;
  const bool was = p.op_log_enabled();
  p.set_op_log_enabled(bench.uses_op_log());
  struct Restore {
    Platform& p;
    bool on;
    ~Restore() { p.set_op_log_enabled(on); }
  } restore{p, was};
  return bench.run(sub);
}

// gqa-sweep's four long-context cases at S_kv = gqa_s in a child process:
// the wall time of each case and of the whole process.
void time_gqa_sweep(const std::string& exe, long long gqa_s, BenchResult& res) {
  // gqa-sweep's four cases at one S_kv, as an architect runs them.
  nlohmann::json r;
  const ChildCost c = child_bench(
      "simspeed", {exe, "--bench", "gqa-sweep", "--param", "S_kv=" + std::to_string(gqa_s)},
      "gqa-sweep at S_kv=" + std::to_string(gqa_s), &r);
  SummaryTable g{"gqa-sweep, four long-context cases at S_kv=" + std::to_string(gqa_s) +
                     " (child process; target: under 10 s in all)",
                 {"case", "latency_us", "wall_s", "peak_rss_MB"},
                 {}};
  double cases_wall = 0;
  for (const auto& pt : r["points"]) {
    cases_wall += pt["wall_s"].get<double>();
    g.rows.push_back(
        {std::to_string(pt["case"].get<int>()) + " " + pt["case_name"].get<std::string>(),
         fmt(pt["latency_ns"].get<double>() / 1e3, 2), fmt(pt["wall_s"], 2), "-"});
  }
  g.rows.push_back(
      {"all (process, elaboration included)", "-", fmt(c.wall_s, 2), fmt(c.max_rss_mb, 0)});
  res.metrics["gqa_sweep"] = {{"S_kv", gqa_s},
                              {"cases_wall_s", cases_wall},
                              {"process_wall_s", c.wall_s},
                              {"peak_rss_mb", c.max_rss_mb}};
  res.tables.push_back(g);
}

// One Llama-3-70B decode step with `layers` of its layers, every one simulated
// (extend=off), at each fidelity (exact, the reference, and fast), each in a
// child process: its wall time and peak RSS beside the simulated latency,
// its queue services against the raw wake-up rate `raw` (how long the run
// would take if every service cost one raw wake-up and nothing else did: its
// floor at this event granularity), and the fast setting's wall-time ratio
// and latency error against exact.
void time_llm_decode(const std::string& exe, long long layers, double raw, BenchResult& res) {
  SummaryTable t{
      "Llama-3-70B decode, batch 1, context 8193, " + std::to_string(layers) +
          " layers simulated (child processes, each fidelity; targets: the fast "
          "one at least 5x faster than exact)",
      {"fidelity", "layers", "latency_us", "wall_s", "wall_s_per_layer_lm_head_incl", "peak_rss_MB",
       "queue_services", "raw_wakeups_per_service", "floor_s_at_1_wakeup_per_service"},
      {}};
  nlohmann::json runs = nlohmann::json::object();
  double wall[2] = {0, 0}, latency[2] = {0, 0};
  for (int fast = 0; fast < 2; ++fast) {
    const char* fidelity = fast ? "fast" : "exact";
    nlohmann::json r;
    const ChildCost c =
        child_bench("simspeed",
                    {exe, "--bench", "llm", "--param", "model=llama3_70b", "--param", "batch=1",
                     "--param", "context=8193", "--param", "layers=" + std::to_string(layers),
                     "--param", "extend=off", "--fidelity", fidelity},
                    "llm decode with " + std::to_string(layers) + " layers (" + fidelity + ")", &r);
    const nlohmann::json& m = r.at("metrics");
    const auto model_layers = m.at("model_layers").get<long long>();
    const bool whole = m.at("all_layers_simulated").get<bool>();
    const uint64_t services = queue_services_in(r.at("stats"));
    const double floor_s = static_cast<double>(services) / raw;
    wall[fast] = c.wall_s;
    latency[fast] = m.at("latency_per_token_ns").get<double>();
    t.rows.push_back({fidelity,
                      std::to_string(layers) + " of " + std::to_string(model_layers) +
                          (whole ? " (whole token)" : ""),
                      fmt(latency[fast] / 1e3, 3), fmt(c.wall_s, 1),
                      fmt(c.wall_s / static_cast<double>(layers), 1), fmt(c.max_rss_mb, 0),
                      std::to_string(services), fmt(c.wall_s / floor_s, 1), fmt(floor_s, 1)});
    runs[fidelity] = {{"layers", layers},
                      {"model_layers", model_layers},
                      {"all_layers_simulated", whole},
                      {"latency_per_token_ns", latency[fast]},
                      {"process_wall_s", c.wall_s},
                      {"peak_rss_mb", c.max_rss_mb},
                      {"queue_services", services},
                      {"raw_wakeups_per_service", c.wall_s / floor_s},
                      {"floor_s_at_1_wakeup_per_service", floor_s}};
  }
  runs["fast_speedup"] = wall[1] > 0 ? wall[0] / wall[1] : 0;
  runs["fast_latency_error"] = latency[0] > 0 ? latency[1] / latency[0] - 1 : 0;
  t.title += "; fast: " + fmt(runs["fast_speedup"].get<double>(), 1) + "x, latency " +
             fmt(100 * runs["fast_latency_error"].get<double>(), 3) + " %";
  res.metrics["llm_decode"] = runs;
  res.tables.push_back(t);
}

// The whole Llama-3-70B decode token at `batch` with the layer extension
// (the llm bench's default), in a child process: what it costs against the
// target of 20 s at batch 1, and how much of it was simulated.
void time_llm_token(const std::string& exe, long long batch, BenchResult& res) {
  nlohmann::json r;
  const ChildCost c = child_bench("simspeed",
                                  {exe, "--bench", "llm", "--param", "model=llama3_70b", "--param",
                                   "batch=" + std::to_string(batch), "--param", "context=8193"},
                                  "llm token at batch " + std::to_string(batch), &r);
  const nlohmann::json& m = r.at("metrics");
  const double latency = m.at("latency_per_token_ns").get<double>();
  const double error = m.value("latency_error_ns", 0.0);
  SummaryTable t{"Llama-3-70B decode token, batch " + std::to_string(batch) +
                     ", context 8193, layer extension (child process; targets: batch 1 under "
                     "20 s, batch 32 under 2 min, 2 GB)",
                 {"layers_simulated", "layers_extended", "latency_us", "error_bar_us", "wall_s",
                  "peak_rss_MB"},
                 {}};
  t.rows.push_back({std::to_string(m.at("layers_simulated").get<long long>()),
                    std::to_string(m.at("layers_extended").get<long long>()), fmt(latency / 1e3, 1),
                    fmt(error / 1e3, 2), fmt(c.wall_s, 1), fmt(c.max_rss_mb, 0)});
  res.metrics["llm_token"] = {{"batch", batch},
                              {"layers_simulated", m.at("layers_simulated")},
                              {"layers_extended", m.at("layers_extended")},
                              {"latency_per_token_ns", latency},
                              {"latency_error_ns", error},
                              {"process_wall_s", c.wall_s},
                              {"peak_rss_mb", c.max_rss_mb}};
  res.tables.push_back(t);
}

// The -j values time_config_sweep runs its sweep with, and their metrics' keys.
const int kSweepJobs[] = {1, 2};
std::string sweep_wall_key(int jobs) {
  return "sweep_j" + std::to_string(jobs) + "_wall_s";
}

// The configuration sweep `spec` run with -j 1 and then -j 2 (child processes).
void time_config_sweep(const std::string& exe, const std::string& spec, BenchResult& res) {
  std::string path = spec;
  if (!std::filesystem::exists(path))
    path = (std::filesystem::path(exe).parent_path().parent_path() / spec).string();
  if (!std::filesystem::exists(path))
    throw UsageError("simspeed: sweep_spec " + spec +
                     " not found (run from the source tree, or --param sweep_spec=)");
  SummaryTable sw{
      "configuration sweep " + spec + " (child processes)", {"jobs", "wall_s", "vs -j 1"}, {}};
  double serial = 0;
  for (const int jobs : kSweepJobs) {
    const std::string out = temp_path("kb_simspeed_sweep", "");
    const ChildCost c =
        child_cost({exe, "--sweep", path, "--out", out, "-j", std::to_string(jobs), "--quiet"});
    std::error_code ec;
    std::filesystem::remove_all(out, ec);
    if (c.status != 0)
      throw SimulationError("simspeed: the sweep " + path + " failed with -j " +
                            std::to_string(jobs) + " (exit " + std::to_string(c.status) + ")");
    if (jobs == 1) serial = c.wall_s;
    res.metrics[sweep_wall_key(jobs)] = c.wall_s;
    sw.rows.push_back({std::to_string(jobs), fmt(c.wall_s, 2), fmt(c.wall_s / serial, 2)});
  }
  res.tables.push_back(sw);
}

// The elaboration of the 1-SIP and 4-SIP topologies (and, with `with_limit`, of
// 64 SIPs), each in a child process running --check-topology.
void time_elaboration(const std::string& exe, bool with_limit, BenchResult& res) {
  SummaryTable el{"elaboration (child process: --check-topology)",
                  {"topology", "mode", "wall_s", "peak_rss_MB"},
                  {}};
  // The child elaborates the embedded 4-SIP topology, handed over in a
  // temporary file (removed when this scope ends), so any working directory works.
  const std::string* text = embedded_file("topologies/llama70b_4sip.yaml");
  if (!text) throw SimulationError("simspeed: llama70b_4sip.yaml is not embedded in the binary");
  const std::string four_sip = (std::filesystem::temp_directory_path() /
                                ("kb-simspeed-" + std::to_string(getpid()) + ".yaml"))
                                   .string();
  struct Remove {
    std::string path;
    ~Remove() { std::remove(path.c_str()); }
  } remove_four_sip{four_sip};
  {
    std::ofstream f(four_sip);
    f << *text;
    if (!f) throw UsageError("simspeed: cannot write " + four_sip);
  }
  struct Elaborated {
    std::string name, file, set;
    bool with_data;
  };
  std::vector<Elaborated> runs = {{"ahbm_1sip (128 PEs)", "", "", true},
                                  {"llama70b_4sip (512 PEs)", four_sip, "", true}};
  if (with_limit)
    runs.push_back({"ahbm_1sip at 64 SIPs (8192 PEs)", "", "system.n_sips=64", false});
  for (const Elaborated& run : runs)
    for (const bool data : {false, true}) {
      if (data && !run.with_data) continue;
      const std::string& name = run.name;
      std::vector<std::string> argv = {exe, "--check-topology"};
      if (!run.file.empty()) argv.insert(argv.end(), {"--topology", run.file});
      if (!run.set.empty()) argv.insert(argv.end(), {"--set", run.set});
      if (data) argv.emplace_back("--data");
      const ChildCost c = child_cost(argv);
      if (c.status != 0)
        throw SimulationError("simspeed: elaborating " + name + " failed (exit " +
                              std::to_string(c.status) + ")");
      res.points.push_back({{"elaborate", name},
                            {"data", data},
                            {"wall_s", c.wall_s},
                            {"peak_rss_mb", c.max_rss_mb}});
      el.rows.push_back({name, data ? "data" : "timing", fmt(c.wall_s, 3), fmt(c.max_rss_mb, 1)});
    }
  res.tables.push_back(el);
}

// Least-squares y = a + b x and its R^2.
void linear_fit(const std::vector<double>& x, const std::vector<double>& y, double* a, double* b,
                double* r2) {
  const auto n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
    syy += y[i] * y[i];
  }
  *b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  *a = (sy - *b * sx) / n;
  const double ss_tot = syy - sy * sy / n;
  double ss_res = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = y[i] - (*a + *b * x[i]);
    ss_res += e * e;
  }
  *r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
}

}  // namespace

uint64_t queue_services_in(const nlohmann::json& stats) {
  uint64_t n = 0;
  for (const auto& group : stats)
    if (group.is_object() && group.contains("requests")) n += group.at("requests").get<uint64_t>();
  return n;
}

// A point per measured workload (add() below), and per elaborated topology
// (time_elaboration).
std::vector<std::string> SimSpeedBench::point_fields() const {
  return {"workload",
          "wall_s",
          "stages",
          "sim_ns",
          "stages_per_s",
          "ratio_to_raw",
          "dma_bursts",
          "queue_services",
          "services_per_s",
          "services_ratio_to_raw",
          "raw_wakeups_per_service",
          "elaborate",
          "data",
          "peak_rss_mb"};
}

std::vector<std::string> SimSpeedBench::metric_fields() const {
  std::vector<std::string> f = {"raw_wakeups_per_s", "gemm_wall_fit", "gqa_sweep", "llm_decode",
                                "llm_token"};
  for (const int jobs : kSweepJobs) f.push_back(sweep_wall_key(jobs));
  return f;
}

BenchResult SimSpeedBench::run(BenchContext& ctx) {
  Platform& p = ctx.platform;
  p.set_run_stats_enabled(false);  // its windows time the kernel, not stats()
  const long long pingpongs = ctx.params.integer("pingpongs");
  if (pingpongs < 1000) throw UsageError("--param pingpongs must be >= 1000");
  const long long llm_layers = ctx.params.integer("llm_layers");
  if (llm_layers < 0) throw UsageError("--param llm_layers must be 0 (skip) or more");
  const long long llm_token_batch = ctx.params.integer_within("llm_token_batch", 1 << 16);
  if (llm_token_batch < 0) throw UsageError("--param llm_token_batch must be 0 (skip) or more");
  BenchResult res;
  SummaryTable speed{
      "simulation speed (" + p.config().name + ")",
      {"workload", "wall_s", "stages", "sim_us", "stages/s", "vs raw wake-ups/s", "bursts/stage",
       "queue services/stage", "services/s vs raw", "raw wake-ups per service"},
      {}};

  const double raw = raw_wakeups_per_second(p, static_cast<uint64_t>(pingpongs));
  res.metrics["raw_wakeups_per_s"] = raw;
  speed.rows.push_back({"raw SystemC ping-pong", "-", "-", "-", fmt(raw / 1e6, 2) + " M wake/s",
                        "1.00", "-", "-", "-", "-"});

  auto add = [&](const std::string& name, const Rate& r) {
    const double rate = static_cast<double>(r.stages) / r.wall_s;
    const double services_rate = static_cast<double>(r.services) / r.wall_s;
    res.points.push_back({{"workload", name},
                          {"wall_s", r.wall_s},
                          {"stages", r.stages},
                          {"sim_ns", r.sim_ns},
                          {"stages_per_s", rate},
                          {"ratio_to_raw", rate / raw},
                          {"dma_bursts", r.bursts},
                          {"queue_services", r.services},
                          {"services_per_s", services_rate},
                          {"services_ratio_to_raw", services_rate / raw},
                          {"raw_wakeups_per_service", raw / services_rate}});
    const double stages = static_cast<double>(std::max<uint64_t>(r.stages, 1));
    speed.rows.push_back({name, fmt(r.wall_s, 3), std::to_string(r.stages), fmt(r.sim_ns / 1e3, 1),
                          fmt(rate / 1e6, 3) + " M/s", fmt(rate / raw, 3),
                          fmt(static_cast<double>(r.bursts) / stages, 1),
                          fmt(static_cast<double>(r.services) / stages, 1),
                          fmt(services_rate / raw, 3), fmt(raw / services_rate, 1)});
  };
  GemmBench gemm;
  add("gemm 64x4096x64 load_ref", measure(p, [&] {
        run_sub(ctx, gemm, {"M=64", "K=4096", "N=64"});
      }));
  AllReduceBench ar;
  add("allreduce hierarchical 128 PEs 96KiB", measure(p, [&] {
        run_sub(ctx, ar, {"algo=hierarchical", "bytes_per_pe=96KiB"});
      }));
  add("allreduce 2d 16 PEs 96KiB", measure(p, [&] { run_sub(ctx, ar, {"algo=2d"}); }));
  GqaDecodeBench gqa;
  add("gqa-decode opt2 S_kv=4096", measure(p, [&] {
        run_sub(ctx, gqa, {"variant=opt2", "S_kv=4096"});
      }));
  res.tables.push_back(speed);

  // Wall time against simulated work: GEMMs of growing K.
  SummaryTable lin{"wall time vs simulated work (GEMM 64xKx64, ref_ref)",
                   {"K", "wall_s", "sim_us", "stages"},
                   {}};
  std::vector<double> ks, walls;
  for (const std::string& item : ctx.params.list("gemm_k")) {
    const Rate r = measure(p, [&] {
      run_sub(ctx, gemm, {"M=64", "K=" + item, "N=64", "variant=ref_ref"});
    });
    ks.push_back(std::stod(item));
    walls.push_back(r.wall_s);
    lin.rows.push_back({item, fmt(r.wall_s, 4), fmt(r.sim_ns / 1e3, 1), std::to_string(r.stages)});
  }
  if (ks.size() >= 2) {
    double a = 0, b = 0, r2 = 0;
    linear_fit(ks, walls, &a, &b, &r2);
    res.metrics["gemm_wall_fit"] = {{"intercept_s", a}, {"s_per_k", b}, {"r2", r2}};
    lin.rows.push_back(
        {"fit", "a=" + fmt(a, 4) + " s", "b=" + fmt(b * 1e6, 3) + " us/K", "R2=" + fmt(r2, 4)});
  }
  res.tables.push_back(lin);

  const std::string exe = own_exe(ctx);
  if (ctx.params.integer("elaborate") != 0)
    time_elaboration(exe, ctx.params.integer("elaborate_limit") != 0, res);
  const long long gqa_s = ctx.params.integer("gqa_s_kv");
  if (gqa_s > 0) time_gqa_sweep(exe, gqa_s, res);
  if (llm_layers > 0) time_llm_decode(exe, llm_layers, raw, res);
  if (llm_token_batch > 0) time_llm_token(exe, llm_token_batch, res);
  const std::string spec = ctx.params.str("sweep_spec");
  if (!spec.empty()) time_config_sweep(exe, spec, res);
  return res;
}

}  // namespace kb
