// Golden determinism: small kernbench runs whose JSON result (minus wall_s) is
// checked in under tests/golden/. Any change to what the simulator computes —
// a model's timing, routing, statistics, the JSON layout — fails one of these
// tests, which prints the first difference and how to accept it deliberately:
//
//   bash scripts/update_goldens.sh    # rewrites tests/golden/*.json; review the diff
//
// The sensitivity tests prove the goldens are sharp: moving any latency knob
// the golden runs exercise by one picosecond changes the result.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "platform/config/topology_loader.h"

namespace kb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kSource = KB_SOURCE_DIR;

struct GoldenRun {
  const char* name;  // tests/golden/<name>.json
  std::vector<std::string> args;
};

// Where a golden run that needs the op log kept writes it (not compared).
std::string oplog_scratch() {
  return (fs::temp_directory_path() / ("kb_golden_oplog_" + std::to_string(getpid()) + ".jsonl"))
      .string();
}

// The topology paths are given relative to the source tree and made absolute
// when run; the result's topology.source is made relative again, so the
// goldens do not depend on where the tree is checked out.
const std::vector<GoldenRun>& golden_runs() {
  static const std::vector<GoldenRun> runs = {
      {"probe_tiny", {"--bench", "probe", "--topology", "topologies/tiny.yaml"}},
      {"probe_default", {"--bench", "probe"}},
      // Parts the probe does not reach: the cube SRAM and a SIP-to-SIP link.
      {"dma_tiny_sram",
       {"--bench", "dma", "--topology", "topologies/tiny.yaml", "--param", "src=sram:0.3+0",
        "--param", "dst=tcm:0.0.0+0", "--param", "bytes=65536"}},
      {"dma_tiny_two_sips",
       {"--bench", "dma", "--topology", "topologies/tiny.yaml", "--set", "system.n_sips=2",
        "--param", "src=hbm:1.3.1+4096", "--param", "dst=tcm:0.0.0+0", "--param", "bytes=65536"}},
      // The PE pipeline: a composite GEMM, and the three decode kernels
      // (composites with recipes, primitives, MATH), both in data mode.
      {"gemm_tiny",
       {"--bench", "gemm", "--topology", "topologies/tiny.yaml", "--param", "M=64", "--param",
        "K=512", "--param", "N=64", "--data"}},
      {"gqa_decode_tiny",
       {"--bench", "gqa-decode", "--topology", "topologies/tiny.yaml", "--param", "S_kv=256",
        "--param", "variant=opt1,opt2,opt3", "--data"}},
      // Collectives: PE_IPCQ credit flow, forwarding and PE_MATH reduces, in
      // data mode (the op log is kept for its hash).
      {"allreduce_tiny",
       {"--bench", "allreduce", "--topology", "topologies/tiny.yaml", "--param",
        "algo=ring,2d,hierarchical,binomial", "--param", "buffer=tcm,hbm", "--param",
        "bytes_per_pe=12KiB", "--data", "--oplog", oplog_scratch()}},
      // Attention across cubes: the four decode cases (two-level log-sum-exp
      // reduce, tiled KV) and the ring-KV prefill, in data mode.
      {"gqa_long_tiny",
       {"--bench", "gqa-sweep", "--topology", "topologies/tiny.yaml", "--param", "C=4", "--param",
        "S_kv=1024", "--data", "--oplog", oplog_scratch()}},
      {"gqa_prefill_tiny",
       {"--bench", "gqa-prefill", "--topology", "topologies/tiny.yaml", "--param", "C=4", "--param",
        "S=1024", "--param", "T_q=64", "--data", "--oplog", oplog_scratch()}},
  };
  return runs;
}

const GoldenRun& golden_run(const std::string& name) {
  for (const GoldenRun& r : golden_runs())
    if (name == r.name) return r;
  throw std::invalid_argument("no golden run " + name);
}

std::string golden_path(const std::string& name) {
  return kSource + "/tests/golden/" + name + ".json";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Removes every "wall_s..." key (wall time: the result's own, and the wall
// time some benches report per point), at any depth.
void strip_wall_times(json& j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (it.key().rfind("wall_s", 0) == 0) {
        it = j.erase(it);
      } else {
        strip_wall_times(*it);
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) strip_wall_times(e);
  }
}

// Runs kernbench (no shell) with `args` plus `--json F --quiet`; returns the
// normalised result. Fails the test on a non-zero exit.
json run_kernbench(const std::vector<std::string>& args) {
  const std::string out =
      (fs::temp_directory_path() / ("kb_golden_" + std::to_string(getpid()) + ".json")).string();
  std::vector<std::string> argv_s{KB_KERNBENCH_BIN};
  argv_s.reserve(args.size() + 4);
  for (size_t i = 0; i < args.size(); ++i) {
    const bool is_path = i > 0 && args[i - 1] == "--topology";
    argv_s.push_back(is_path ? kSource + "/" + args[i] : args[i]);
  }
  for (const char* a : {"--json", out.c_str(), "--quiet"}) argv_s.emplace_back(a);
  std::vector<char*> argv;
  argv.reserve(argv_s.size() + 1);
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
    ADD_FAILURE() << "cannot spawn " << argv[0];
    return {};
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ADD_FAILURE() << "kernbench failed (status " << status << ")";
    return {};
  }
  json j = json::parse(read_text(out));
  fs::remove(out);
  strip_wall_times(j);           // the one kind of field that differs between identical runs
  j.erase("kernbench_version");  // names the build, not the run
  auto& source = j["topology"]["source"].get_ref<std::string&>();
  if (source.rfind(kSource + "/", 0) == 0) source.erase(0, kSource.size() + 1);
  return j;
}

std::string show(const json& v) {
  std::string s = v.dump();
  return s.size() > 200 ? s.substr(0, 200) + "..." : s;
}

// The first difference in document order, as "JSON pointer: golden X, got Y";
// empty when equal. Numbers compare by value (an integer 142 equals 142.0).
std::string first_difference(const json& want, const json& got, const std::string& at = "") {
  if (want.is_object() && got.is_object()) {
    for (auto it = want.begin(); it != want.end(); ++it) {
      const std::string path = at + "/" + it.key();
      if (!got.contains(it.key())) return path + ": in the golden, missing from the output";
      std::string d = first_difference(it.value(), got[it.key()], path);
      if (!d.empty()) return d;
    }
    for (auto it = got.begin(); it != got.end(); ++it)
      if (!want.contains(it.key()))
        return at + "/" + it.key() + ": new in the output (" + show(it.value()) + ")";
    return "";
  }
  if (want.is_array() && got.is_array()) {
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
      std::string d = first_difference(want[i], got[i], at + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
    if (want.size() != got.size())
      return at + ": " + std::to_string(want.size()) + " elements in the golden, " +
             std::to_string(got.size()) + " in the output";
    return "";
  }
  if (want == got) return "";
  return (at.empty() ? "/" : at) + ": golden " + show(want) + ", got " + show(got);
}

// The golden file's line that holds the first differing key, for orientation:
// each key of the JSON pointer is looked for after the previous one's line.
std::string golden_line_of(const std::string& name, const std::string& difference) {
  const std::string pointer = difference.substr(0, difference.find(": "));
  std::vector<std::string> lines;
  std::ifstream in(golden_path(name));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  size_t at = 0;
  bool found = false;
  std::istringstream segments(pointer);
  for (std::string key; std::getline(segments, key, '/');) {
    if (key.empty() || key.find_first_not_of("0123456789") == std::string::npos) continue;
    for (size_t i = at; i < lines.size(); ++i) {
      if (lines[i].find("\"" + key + "\":") != std::string::npos) {
        at = i;
        found = true;
        break;
      }
    }
  }
  if (!found) return "";
  return "tests/golden/" + name + ".json:" + std::to_string(at + 1) + ": " + lines[at];
}

bool updating() {
  const char* u = std::getenv("KB_UPDATE_GOLDENS");
  return u != nullptr && std::string(u) == "1";
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesCheckedInResult) {
  const std::string name = GetParam();
  const json got = run_kernbench(golden_run(name).args);
  ASSERT_FALSE(got.is_null());
  if (updating()) {
    std::ofstream(golden_path(name), std::ios::binary) << got.dump(2) << "\n";
    std::printf("updated %s\n", golden_path(name).c_str());
    return;
  }
  const std::string text = read_text(golden_path(name));
  ASSERT_FALSE(text.empty()) << "no golden " << golden_path(name)
                             << "; create it with: bash scripts/update_goldens.sh";
  const std::string diff = first_difference(json::parse(text), got);
  EXPECT_TRUE(diff.empty()) << "kernbench output differs from the golden " << golden_path(name)
                            << "\n  first difference: " << diff << "\n  "
                            << golden_line_of(name, diff)
                            << "\nIf the change is intended (a model, a bench or the JSON layout "
                               "changed on purpose), regenerate the goldens and review the diff:\n"
                               "  bash scripts/update_goldens.sh && git diff tests/golden";
}

INSTANTIATE_TEST_SUITE_P(Runs, Golden,
                         ::testing::Values("probe_tiny", "probe_default", "dma_tiny_sram",
                                           "dma_tiny_two_sips", "allreduce_tiny", "gemm_tiny",
                                           "gqa_decode_tiny", "gqa_long_tiny", "gqa_prefill_tiny"),
                         [](const auto& info) { return info.param; });

// One picosecond more on one latency knob must change a golden run's result
// (not only the recorded override). Each knob is tried on a run that uses it.
struct Nudge {
  const char* knob;
  const char* run;
  std::function<double(const TopologyConfig&)> value;
};

void PrintTo(const Nudge& n, std::ostream* os) {
  *os << n.knob << " on " << n.run;
}

class OnePicosecond : public ::testing::TestWithParam<Nudge> {};

TEST_P(OnePicosecond, ChangesTheGoldenResult) {
  if (updating()) GTEST_SKIP() << "updating the goldens";
  const Nudge& n = GetParam();
  const GoldenRun& run = golden_run(n.run);
  std::vector<std::string> set_args;
  for (size_t i = 0; i + 1 < run.args.size(); ++i)
    if (run.args[i] == "--set") set_args.push_back(run.args[i + 1]);
  std::string topology;
  for (size_t i = 0; i + 1 < run.args.size(); ++i)
    if (run.args[i] == "--topology") topology = kSource + "/" + run.args[i + 1];
  const TopologyConfig cfg =
      topology.empty() ? load_default_topology(set_args) : load_topology_file(topology, set_args);
  std::ostringstream value;
  value << std::fixed << std::setprecision(6) << n.value(cfg) + 0.001;
  std::vector<std::string> args = run.args;
  args.insert(args.end(), {"--set", std::string(n.knob) + "=" + value.str()});
  json got = run_kernbench(args);
  ASSERT_FALSE(got.is_null());
  json want = json::parse(read_text(golden_path(n.run)));
  got.erase("topology");  // holds the extra --set itself: not the point
  want.erase("topology");
  EXPECT_FALSE(first_difference(want, got).empty())
      << "--set " << n.knob << "=" << value.str() << " left the result of " << n.run
      << " unchanged: the golden does not see this knob";
}

double link_latency(const LinkConfig& l) {
  return l.latency_ns;
}

INSTANTIATE_TEST_SUITE_P(
    LatencyKnobs, OnePicosecond,
    ::testing::Values(Nudge{"pe.hbm.access_latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return c.pe.hbm.access_latency_ns; }},
                      Nudge{"pe.xbar_latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return c.pe.xbar_latency_ns; }},
                      Nudge{"pe.tcm.latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return c.pe.tcm.latency_ns; }},
                      Nudge{"pe.dma.setup_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return c.pe.dma.setup_ns; }},
                      Nudge{"cube.router_latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return c.cube.router_latency_ns; }},
                      Nudge{"cube.pe_link.latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return link_latency(c.cube.pe_link); }},
                      Nudge{"sip.cube_link.latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return link_latency(c.sip.cube_link); }},
                      Nudge{"sip.io_link.latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return link_latency(c.sip.io_link); }},
                      Nudge{"sip.hub_latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return c.sip.hub_latency_ns; }},
                      Nudge{"host.h2d.latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return link_latency(c.host.h2d); }},
                      Nudge{"host.d2h.latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return link_latency(c.host.d2h); }},
                      Nudge{"host.memory_latency_ns", "probe_tiny",
                            [](const TopologyConfig& c) { return c.host.memory_latency_ns; }},
                      Nudge{"pe.hbm.access_latency_ns", "probe_default",
                            [](const TopologyConfig& c) { return c.pe.hbm.access_latency_ns; }},
                      Nudge{"pe.gemm.peak_tflops", "gemm_tiny",
                            [](const TopologyConfig& c) { return c.pe.gemm.peak_tflops; }},
                      Nudge{"pe.tcm.bandwidth_gbps", "gemm_tiny",
                            [](const TopologyConfig& c) { return c.pe.tcm.bandwidth_gbps; }},
                      Nudge{"pe.clock_ghz", "gqa_decode_tiny",
                            [](const TopologyConfig& c) { return c.pe.clock_ghz; }},
                      Nudge{"sip.cube_link.latency_ns", "allreduce_tiny",
                            [](const TopologyConfig& c) { return link_latency(c.sip.cube_link); }},
                      Nudge{"cube.sram.latency_ns", "dma_tiny_sram",
                            [](const TopologyConfig& c) { return c.cube.sram.latency_ns; }},
                      Nudge{
                          "system.sip_link.latency_ns", "dma_tiny_two_sips",
                          [](const TopologyConfig& c) { return link_latency(c.system.sip_link); }}),
    [](const auto& info) {
      std::string name = std::string(info.param.run) + "_" + info.param.knob;
      for (char& ch : name)
        if (ch == '.') ch = '_';
      return name;
    });

}  // namespace
}  // namespace kb
