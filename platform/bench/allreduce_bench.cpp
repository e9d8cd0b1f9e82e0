#include "platform/bench/allreduce_bench.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "models/common/errors.h"
#include "models/topology/cube_grid.h"
#include "platform/bench/progress.h"
#include "platform/config/topology_schema.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/process/temp_directory.h"
#include "platform/runtime/host_runtime.h"
#include "platform/util/subprocess.h"

namespace kb {

namespace {

uint64_t parse_bytes(const std::string& what, const std::string& text) {
  Knob k;
  k.path = what;
  k.type = KnobType::kSize;
  k.bound = Bound::kAtLeastOne;
  k.max = uint64_t{1} << 36;
  KnobValue v;
  std::string error;
  if (!TopologySchema::parse_value(k, text, &v, &error))
    throw UsageError("--param " + what + "=" + text + ": " + error);
  return v.u;
}

RingSpace parse_buffer(const std::string& text) {
  for (RingSpace s : {RingSpace::kTcm, RingSpace::kHbm, RingSpace::kSram})
    if (text == to_string(s)) return s;
  throw UsageError("--param buffer=" + text + ": expected tcm, hbm or sram");
}

fw::AllReduceAlgo parse_algo(const std::string& text, const TopologyConfig& cfg) {
  if (text == "auto") return fw::natural_allreduce(cfg.sip.topology);
  if (auto a = fw::parse_allreduce_algo(text)) return *a;
  throw UsageError("--param algo=" + text + ": expected one of " + fw::allreduce_algo_names());
}

}  // namespace

// ---- allreduce ---------------------------------------------------------------

std::vector<ParamSpec> AllReduceBench::params() const {
  return {{"algo", "auto",
           std::string("algorithm(s), comma-separated: ") + fw::allreduce_algo_names() +
               " (auto: ring on a ring, 2d on a mesh or torus)"},
          {"bytes_per_pe", "96KiB", "vector size per PE, comma-separated list (e.g. 64KiB,1MiB)"},
          {"buffer", "tcm",
           "where the vectors and the IPCQ receive rings live: tcm, hbm or sram (list)"},
          {"pes_per_cube", "auto",
           "PEs 0..P-1 of every cube take part (auto: 1, and every PE for hierarchical)"},
          {"sip", "0", "the SIP whose PEs take part"}};
}

namespace {

struct PointSpec {
  fw::AllReduceAlgo algo;
  RingSpace buffer;
  uint64_t bytes;
};

float input_value(unsigned rank, int64_t i) {
  // Small integers: every partial sum is exact in fp32.
  return static_cast<float>((static_cast<int64_t>(rank) * 131 + i * 7) % 61 - 30);
}

// What bounds a point in the model: its regime, and the busiest resource's
// kind when bandwidth plays a part ("bandwidth: cube link").
std::string bound_by(const nlohmann::json& pt) {
  std::string regime = pt.at("model").at("regime");
  if (regime == "latency") return regime;
  std::string what = pt.at("model_bottleneck");
  for (const char* kind : {"cube link", "PE link", "HBM", "SRAM", "TCM", "MATH", "DMA read channel",
                           "DMA write channel", "IPCQ credits"})
    if (what.rfind(kind, 0) == 0) what = kind;
  return regime + ": " + what;
}

// The classes of `pj` that spent anything, by name.
nlohmann::json by_class_json(const EnergyByClass& pj) {
  nlohmann::json j = nlohmann::json::object();
  for (unsigned c = 0; c < kNumEnergyClasses; ++c)
    if (pj[c] > 0) j[to_string(static_cast<EnergyClass>(c))] = pj[c];
  return j;
}

nlohmann::json run_point(BenchContext& ctx, HostRuntime& rt, const PointSpec& ps,
                         unsigned pes_param, unsigned sip, std::string* skip) {
  Platform& platform = ctx.platform;
  const TopologyConfig& cfg = platform.config();
  const unsigned P =
      pes_param ? pes_param : (ps.algo == fw::AllReduceAlgo::kHierarchical ? cfg.cube.pes : 1);
  fw::CollectiveGroup group(cfg.sip_shape(), sip, P);
  const unsigned p = group.size();
  const auto n = static_cast<int64_t>(ps.bytes / 4);
  nlohmann::json pt = {{"algo", fw::to_string(ps.algo)},
                       {"topology", to_string(cfg.sip.topology)},
                       {"buffer", to_string(ps.buffer)},
                       {"bytes_per_pe", ps.bytes},
                       {"p", p},
                       {"pes_per_cube", P}};
  if (n < static_cast<int64_t>(p)) {
    *skip = "fewer elements than PEs";
    return pt;
  }
  // One fp32 vector per member in the chosen memory.
  rt.release_all();
  std::map<PeAddr, fw::Tensor> data;
  try {
    for (const PeAddr& a : group.members()) {
      const PeId id{a.sip, a.cube, a.pe};
      switch (ps.buffer) {
        case RingSpace::kTcm:
          data[a] = rt.alloc_tcm(id, {n}, DType::kFp32);
          break;
        case RingSpace::kHbm:
          data[a] = rt.alloc_hbm(id, {n}, DType::kFp32);
          break;
        case RingSpace::kSram:
          data[a] = rt.alloc_sram(a.sip, a.cube, {n}, DType::kFp32);
          break;
      }
    }
  } catch (const UsageError& e) {
    *skip = std::string("does not fit: ") + e.what();
    rt.release_all();
    return pt;
  }
  if (ps.buffer == RingSpace::kTcm) {
    // The kernel needs TCM for IPCQ staging only outside TCM; keep 64 KiB spare.
    const uint64_t free = platform.pe({sip, 0, 0}).tcm.arena().capacity() -
                          platform.pe({sip, 0, 0}).tcm.arena().used();
    if (free < uint64_t{64} * 1024) {
      *skip = "does not fit: TCM left for the kernel is " + std::to_string(free) + " bytes";
      rt.release_all();
      return pt;
    }
  }
  if (ctx.data_mode)
    for (const PeAddr& a : group.members()) {
      const unsigned r = group.rank_of(a);
      std::vector<float> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = input_value(r, i);
      rt.write(data[a], v);
    }
  uint64_t cmds0 = 0, chunks0 = 0;
  platform.for_each_pe([&](Pe& pe) {
    cmds0 += pe.ipcq.stats().commands;
    chunks0 += pe.ipcq.stats().chunks_sent;
  });
  const Platform::Traffic tr0 = platform.traffic();
  const EnergySnapshot e0 = platform.energy();
  const double t0 = platform.now_ns();
  double t_end = t0;
  fw::AllReduceArgs args;
  args.algo = ps.algo;
  args.ring_space = ps.buffer;
  std::vector<PeId> pes;
  for (const PeAddr& a : group.members()) pes.push_back({a.sip, a.cube, a.pe});
  platform.name_next_run("allreduce " + pt["algo"].get<std::string>() + " " +
                         pt["buffer"].get<std::string>() + " " + std::to_string(ps.bytes) +
                         " B/PE");
  rt.launch_on(pes, [&](fw::Tl& tl) {
    fw::allreduce(tl, group, args, data.at(tl.self()));
    t_end = std::max(t_end, tl.now_ns());
  });
  rt.run();
  uint64_t cmds = 0, chunks = 0;
  platform.for_each_pe([&](Pe& pe) {
    cmds += pe.ipcq.stats().commands;
    chunks += pe.ipcq.stats().chunks_sent;
  });
  const Platform::Traffic tr = platform.traffic();
  const double latency = t_end - t0;
  // Every pJ the platform spent on it; static power over the all-reduce's latency.
  const EnergyReport energy = EnergyReport::between(e0, platform.energy(), latency);
  const double reduced_bytes = static_cast<double>(ps.bytes) * p;
  const AllReduceModel model = allreduce_model(cfg, ps.algo, group, ps.buffer, ps.bytes);
  const double algbw = static_cast<double>(ps.bytes) / latency;
  pt["latency_ns"] = latency;
  pt["analytic_ns"] = model.total_ns;
  pt["measured_over_analytic"] = latency / model.total_ns;
  pt["alpha_ns"] = model.alpha_ns;
  pt["beta_ns_per_byte"] = model.beta_ns_per_byte;
  pt["formula"] = model.formula;
  pt["model_bottleneck"] = model.bottleneck;
  nlohmann::json phases = nlohmann::json::array();
  for (const AllReduceModel::Phase& ph : model.phases)
    phases.push_back({{"name", ph.name},
                      {"steps", ph.steps},
                      {"chunks", ph.chunks},
                      {"hop_ns", ph.hop_ns},
                      {"chunk_ns", ph.chunk_ns},
                      {"resource_ns", ph.resource_ns},
                      {"bottleneck", ph.bottleneck},
                      {"ns", ph.ns}});
  pt["model"] = {{"fill_ns", model.fill_ns}, {"regime", model.regime()}, {"phases", phases}};
  const std::string gap = allreduce_model_gap(model, ps.algo, ps.buffer, latency / model.total_ns);
  if (!gap.empty()) pt["model_gap"] = gap;
  pt["algbw_gbps"] = algbw;
  pt["busbw_gbps"] = algbw * 2.0 * (p - 1) / p;
  pt["ipcq_ops"] = cmds - cmds0;
  pt["ipcq_chunks"] = chunks - chunks0;
  pt["link_bytes"] = tr.link_bytes - tr0.link_bytes;
  pt["cube_link_bytes"] = tr.cube_link_bytes - tr0.cube_link_bytes;
  pt["energy_pj"] = energy.total_pj();
  pt["pj_per_byte"] = energy.total_pj() / reduced_bytes;
  pt["dynamic_pj_per_byte"] = energy.dynamic_total_pj() / reduced_bytes;
  pt["model_dynamic_pj_per_byte"] = model.dynamic_total_pj() / reduced_bytes;
  pt["dynamic_over_model"] = energy.dynamic_total_pj() / model.dynamic_total_pj();
  pt["model_dynamic_pj_by_class"] = by_class_json(model.dynamic_pj);
  pt["energy"] = energy.to_json();
  if (ctx.data_mode) {
    std::vector<float> want(static_cast<size_t>(n), 0.0f);
    for (unsigned r = 0; r < p; ++r)
      for (int64_t i = 0; i < n; ++i) want[static_cast<size_t>(i)] += input_value(r, i);
    bool correct = true;
    unsigned wrong_pes = 0;
    for (const PeAddr& a : group.members()) {
      const std::vector<float> got = rt.read(data[a]);
      const bool ok = got == want;
      if (!ok && correct) {
        // The first difference, to say where a wrong sum starts.
        size_t i = 0;
        while (got[i] == want[i]) ++i;
        pt["first_wrong"] = {
            {"pe", to_string(a)}, {"element", i}, {"got", got[i]}, {"want", want[i]}};
      }
      correct = correct && ok;
      wrong_pes += ok ? 0 : 1;
    }
    pt["correct"] = correct;
    if (!correct) pt["wrong_pes"] = wrong_pes;
  }
  rt.release_all();
  return pt;
}

// The fields of run_point's point: model_gap when the model misses, and in
// data mode correct (wrong_pes and first_wrong when it is not).
std::vector<std::string> allreduce_point_fields() {
  return {"algo",
          "topology",
          "buffer",
          "bytes_per_pe",
          "p",
          "pes_per_cube",
          "latency_ns",
          "analytic_ns",
          "measured_over_analytic",
          "alpha_ns",
          "beta_ns_per_byte",
          "formula",
          "model_bottleneck",
          "model",
          "model_gap",
          "algbw_gbps",
          "busbw_gbps",
          "ipcq_ops",
          "ipcq_chunks",
          "link_bytes",
          "cube_link_bytes",
          "energy_pj",
          "pj_per_byte",
          "dynamic_pj_per_byte",
          "model_dynamic_pj_per_byte",
          "dynamic_over_model",
          "model_dynamic_pj_by_class",
          "energy",
          "correct",
          "wrong_pes",
          "first_wrong"};
}

std::string table_cell_correct(const nlohmann::json& pt) {
  if (!pt.contains("correct")) return "-";
  return pt["correct"].get<bool>() ? "yes" : "NO";
}

}  // namespace

namespace {

// What to try when a point's vectors do not fit where they were asked for.
std::string skip_hint(RingSpace buffer) {
  if (buffer == RingSpace::kTcm)
    return " (place the vectors in HBM or the cube SRAM: --param buffer=hbm or buffer=sram)";
  return " (use a smaller --param bytes_per_pe)";
}

}  // namespace

// run_point's point, or a skipped one (its algo, buffer, size and why); one
// point's metrics are the point.
std::vector<std::string> AllReduceBench::point_fields() const {
  return with_fields(allreduce_point_fields(), {"skipped", PointWindows::kField});
}

BenchResult AllReduceBench::run(BenchContext& ctx) {
  const BenchParams& prm = ctx.params;
  const TopologyConfig& cfg = ctx.platform.config();
  std::vector<fw::AllReduceAlgo> algos;
  for (const std::string& a : prm.list("algo")) algos.push_back(parse_algo(a, cfg));
  std::vector<RingSpace> buffers;
  for (const std::string& b : prm.list("buffer")) buffers.push_back(parse_buffer(b));
  std::vector<uint64_t> sizes;
  for (const std::string& s : prm.list("bytes_per_pe")) {
    const uint64_t b = parse_bytes("bytes_per_pe", s);
    if (b % 4 != 0)
      throw UsageError("--param bytes_per_pe=" + s + ": must be a whole number of fp32 elements");
    sizes.push_back(b);
  }
  if (algos.empty() || buffers.empty() || sizes.empty())
    throw UsageError("allreduce: algo, buffer and bytes_per_pe need at least one value each");
  unsigned pes = 0;
  if (prm.str("pes_per_cube") != "auto") {
    const long long v = prm.integer("pes_per_cube");
    if (v < 1 || v > static_cast<long long>(cfg.cube.pes))
      throw UsageError("--param pes_per_cube must be 1.." + std::to_string(cfg.cube.pes) +
                       " or auto");
    pes = static_cast<unsigned>(v);
  }
  const long long sip = prm.integer("sip");
  if (sip < 0 || sip >= static_cast<long long>(cfg.system.n_sips))
    throw UsageError("--param sip must be 0.." + std::to_string(cfg.system.n_sips - 1));

  HostRuntime rt(ctx.platform);
  PointWindows windows(ctx.platform);
  BenchResult res;
  SummaryTable table{
      "all-reduce on " + cfg.name + " (" + to_string(cfg.sip.topology) + " cube links)",
      {"algo", "buffer", "bytes/PE", "p", "latency_ns", "analytic_ns", "meas/model", "bound",
       "busbw_GB/s", "ipcq_ops", "cube_link_MB", "pJ/B", "dyn pJ/B", "dyn meas/model", "correct"},
      {}};
  SummaryTable skipped{"skipped points, and why", {"algo", "buffer", "bytes/PE", "why"}, {}};
  SummaryTable gaps{"outside [0.9, 1.1] of the model, and why",
                    {"algo", "buffer", "bytes/PE", "meas/model", "not priced by the model"},
                    {}};
  Progress progress(name(), "point",
                    static_cast<int64_t>(algos.size() * buffers.size() * sizes.size()), ctx.quiet);
  for (auto algo : algos)
    for (auto buffer : buffers)
      for (uint64_t bytes : sizes) {
        std::string skip;
        nlohmann::json pt =
            run_point(ctx, rt, {algo, buffer, bytes}, pes, static_cast<unsigned>(sip), &skip);
        if (!skip.empty()) {
          pt["skipped"] = skip;
          table.rows.push_back({fw::to_string(algo), to_string(buffer), format_size(bytes),
                                std::to_string(pt["p"].get<unsigned>()), "skipped", "-", "-", "-",
                                "-", "-", "-", "-", "-", "-", "see below"});
          skipped.rows.push_back({fw::to_string(algo), to_string(buffer), format_size(bytes),
                                  skip + skip_hint(buffer)});
        } else {
          table.rows.push_back({fw::to_string(algo), to_string(buffer), format_size(bytes),
                                std::to_string(pt["p"].get<unsigned>()), fmt(pt["latency_ns"], 1),
                                fmt(pt["analytic_ns"], 1), fmt(pt["measured_over_analytic"], 3),
                                bound_by(pt), fmt(pt["busbw_gbps"], 1),
                                std::to_string(pt["ipcq_ops"].get<uint64_t>()),
                                fmt(pt["cube_link_bytes"].get<double>() / 1e6, 2),
                                fmt(pt["pj_per_byte"], 1), fmt(pt["dynamic_pj_per_byte"], 1),
                                fmt(pt["dynamic_over_model"], 3), table_cell_correct(pt)});
          if (pt.contains("model_gap"))
            gaps.rows.push_back({fw::to_string(algo), to_string(buffer), format_size(bytes),
                                 fmt(pt["measured_over_analytic"], 2), pt["model_gap"]});
        }
        windows.stamp(pt);
        res.points.push_back(pt);
        progress.step();
      }
  if (skipped.rows.size() == res.points.size())  // nothing was simulated
    throw UsageError("allreduce: every point was skipped; the first: " + skipped.rows[0][1] +
                     " buffer, " + skipped.rows[0][2] + " per PE: " + skipped.rows[0][3]);
  res.tables.push_back(table);
  if (!skipped.rows.empty()) res.tables.push_back(skipped);
  if (!gaps.rows.empty()) res.tables.push_back(gaps);
  if (res.points.size() == 1) res.metrics = res.points[0];
  return res;
}

// ---- ccl-sweep ---------------------------------------------------------------

std::vector<ParamSpec> CclSweepBench::params() const {
  return {{"algo", "ring,ring_bidir,2d,hierarchical,chain,binomial", "algorithms (list)"},
          {"topologies", "mesh,ring,torus2d", "cube-link topologies (list; one process each)"},
          {"buffer", "tcm,hbm,sram", "buffer kinds (list)"},
          {"bytes_per_pe", "4KiB,16KiB,64KiB,96KiB,256KiB,1MiB,4MiB", "sizes per PE (list)"},
          {"pes_per_cube", "auto", "as for allreduce"},
          {"jobs", "2", "topology processes run at a time"}};
}

namespace {

std::string self_exe(const BenchContext& ctx) {
  if (!ctx.kernbench_exe.empty()) return ctx.kernbench_exe;
  std::string exe = self_executable();
  if (exe.empty()) throw SimulationError("ccl-sweep: cannot find its own executable");
  return exe;
}

// Runs every command line, up to `jobs` at a time; returns their exit
// statuses (-1: could not start).
std::vector<int> run_commands(const std::vector<std::vector<std::string>>& commands, unsigned jobs,
                              Progress& progress) {
  std::vector<int> status(commands.size(), -1);
  run_children(
      commands.size(), jobs, [&](size_t i) { return commands[i]; }, nullptr, false,
      [&](size_t i, const ChildExit& e) {
        status[i] = e.code;
        progress.step();
      });
  return status;
}

}  // namespace

// The allreduce children's points, without their windows.
std::vector<std::string> CclSweepBench::point_fields() const {
  std::vector<std::string> f = AllReduceBench().point_fields();
  f.erase(std::remove(f.begin(), f.end(), PointWindows::kField), f.end());
  return f;
}

BenchResult CclSweepBench::run(BenchContext& ctx) {
  const BenchParams& prm = ctx.params;
  std::vector<std::string> topologies = prm.list("topologies");
  for (const auto& t : topologies)
    if (t != "mesh" && t != "ring" && t != "torus2d")
      throw UsageError("--param topologies=" + t + ": expected mesh, ring or torus2d");
  const std::string exe = self_exe(ctx);
  const long long jobs = prm.integer("jobs");
  if (jobs < 1) throw UsageError("--param jobs must be >= 1");
  TempDirectory dir("kb_ccl_sweep_");
  std::map<std::string, std::string> child_json;
  for (const std::string& topo : topologies) child_json[topo] = dir.file(topo + ".json");
  BenchResult res;
  SummaryTable table{
      "ccl-sweep: latency_ns (meas/model) and pJ per reduced byte, per topology and buffer",
      {"algo", "buffer", "bytes/PE"},
      {}};
  SummaryTable gaps{
      "ccl-sweep: outside [0.9, 1.1] of the model, and why",
      {"topology", "algo", "buffer", "bytes/PE", "meas/model", "not priced by the model"},
      {}};
  std::map<std::tuple<std::string, std::string, uint64_t>, std::map<std::string, std::string>>
      cells;
  std::vector<std::tuple<std::string, std::string, uint64_t>> order;
  std::vector<std::vector<std::string>> commands;
  for (const std::string& topo : topologies) {
    table.headers.push_back(topo);
    std::vector<std::string> argv = {exe,         "--quiet", "--bench",
                                     "allreduce", "--json",  child_json.at(topo)};
    if (!ctx.topology_file.empty()) argv.insert(argv.end(), {"--topology", ctx.topology_file});
    for (const auto& s : ctx.topology_overrides) argv.insert(argv.end(), {"--set", s});
    argv.insert(argv.end(), {"--set", "sip.topology=" + topo});
    for (const char* k : {"algo", "buffer", "bytes_per_pe", "pes_per_cube"})
      argv.insert(argv.end(), {"--param", std::string(k) + "=" + prm.str(k)});
    if (ctx.data_mode) argv.emplace_back("--data");
    commands.push_back(argv);
  }
  Progress progress(name(), "topology", static_cast<int64_t>(commands.size()), ctx.quiet, 0);
  const std::vector<int> status = run_commands(commands, static_cast<unsigned>(jobs), progress);
  for (size_t t = 0; t < topologies.size(); ++t) {
    const std::string& topo = topologies[t];
    if (status[t] != 0) {
      throw SimulationError(
          "ccl-sweep: the " + topo + " run exited with " + std::to_string(status[t]) +
          " (rerun it alone: kernbench --bench allreduce --set sip.topology=" + topo + ")");
    }
    std::ifstream in(child_json.at(topo));
    const nlohmann::json j = nlohmann::json::parse(in);
    res.child_sim_time_ns += j.at("sim_time_ns").get<double>();
    ++res.child_runs;
    for (nlohmann::json pt : j.at("points")) {
      // Its runs and op log were the child process's, not this result's.
      pt.erase(PointWindows::kField);
      res.points.push_back(pt);
      const auto key =
          std::make_tuple(pt.at("algo").get<std::string>(), pt.at("buffer").get<std::string>(),
                          pt.at("bytes_per_pe").get<uint64_t>());
      if (!cells.count(key)) order.push_back(key);
      if (pt.contains("model_gap"))
        gaps.rows.push_back({topo, std::get<0>(key), std::get<1>(key),
                             format_size(std::get<2>(key)), fmt(pt.at("measured_over_analytic"), 2),
                             pt.at("model_gap")});
      cells[key][topo] = pt.contains("skipped") ? "skipped"
                                                : fmt(pt.at("latency_ns"), 0) + " (" +
                                                      fmt(pt.at("measured_over_analytic"), 2) +
                                                      ") " + fmt(pt.at("pj_per_byte"), 1) + " pJ/B";
    }
  }
  for (const auto& key : order) {
    std::vector<std::string> row = {std::get<0>(key), std::get<1>(key),
                                    format_size(std::get<2>(key))};
    for (const auto& topo : topologies) {
      auto it = cells[key].find(topo);
      row.push_back(it == cells[key].end() ? "-" : it->second);
    }
    table.rows.push_back(row);
  }
  res.tables.push_back(table);
  if (!gaps.rows.empty()) res.tables.push_back(gaps);
  return res;
}

}  // namespace kb
