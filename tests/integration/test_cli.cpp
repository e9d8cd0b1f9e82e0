// End-to-end tests of the kernbench CLI: each test spawns the real binary
// (KB_KERNBENCH_BIN) and checks its exit code, stdout, stderr and the files it
// leaves behind. Nothing is elaborated in the test process itself.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "platform/config/topology_config.h"
#include "platform/config/topology_loader.h"
#include "platform/config/topology_schema.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

namespace fs = std::filesystem;

const std::string kSource = KB_SOURCE_DIR;
using test::kTiny;

using test::contains;
using test::describe;
using test::expect_simulation_fault;
using test::expect_usage_error;
using test::read_text;
using test::RunResult;
using test::TempDir;
using test::write_text;

RunResult run(const std::vector<std::string>& args, const TempDir& tmp) {
  return test::run_kernbench(args, tmp);
}

// tiny.yaml with `from` (which must occur) replaced once by `to`, written to tmp/name.
std::string tiny_with(const TempDir& tmp, const std::string& name, const std::string& from,
                      const std::string& to) {
  std::string text = read_text(kTiny);
  const size_t at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("'" + from + "' not in tiny.yaml");
  text.replace(at, from.size(), to);
  std::string path = tmp / name;
  write_text(path, text);
  return path;
}

// True when `msg` holds `path:<digits>:<digits>:`.
bool has_file_line_col(const std::string& msg, const std::string& path) {
  for (size_t at = msg.find(path + ":"); at != std::string::npos;
       at = msg.find(path + ":", at + 1)) {
    size_t i = at + path.size() + 1;
    int fields = 0;
    while (fields < 2) {
      const size_t start = i;
      while (i < msg.size() && std::isdigit(static_cast<unsigned char>(msg[i]))) ++i;
      if (i == start || i >= msg.size() || msg[i] != ':') break;
      ++i;
      ++fields;
    }
    if (fields == 2) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Information: --help, --list-benches, --describe-topology, --check-topology

TEST(CliInfo, HelpListsEveryOption) {
  TempDir tmp;
  const RunResult r = run({"--help"}, tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.err, "");
  for (const char* opt :
       {"--list-benches", "--topology", "--set", "--bench", "--param", "--json", "--out", "--vcd",
        "--vcd-scope", "--quiet", "--check-topology", "--describe-topology", "--data"})
    EXPECT_TRUE(contains(r.out, opt)) << opt << "\n" << r.out;
  EXPECT_TRUE(contains(r.out, "exit codes")) << r.out;
}

// main() re-executes the program once with glibc's huge-page tunable, unless
// KB_HUGEPAGES=0; --version says which heap the run got.
TEST(CliInfo, VersionNamesTheHeapPagesAndKbHugepagesTurnsThemOff) {
  TempDir tmp;
  unsetenv("GLIBC_TUNABLES");  // this test's own process may have set it
  unsetenv("KB_HUGEPAGES");
  RunResult r = run({"--version"}, tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "heap: transparent huge pages")) << r.out;
  setenv("KB_HUGEPAGES", "0", 1);
  r = run({"--version"}, tmp);
  unsetenv("KB_HUGEPAGES");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "heap: 4 KiB pages")) << r.out;
}

TEST(CliInfo, ListBenchesNamesProbeMilestoneAndDma) {
  TempDir tmp;
  const RunResult r = run({"--list-benches"}, tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  std::set<std::string> names;  // unindented lines are bench names
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != ' ') names.insert(line);
  for (const char* b : {"probe", "milestone", "dma"}) EXPECT_EQ(names.count(b), 1u) << b << r.out;
  EXPECT_TRUE(contains(r.out, "--param sizes=")) << r.out;
}

// Attention placements the platform cannot hold are usage errors (exit 2, one line).
TEST(CliGqa, BadPlacementsAndSizesAreUsageErrors) {
  TempDir tmp;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bench", "gqa-long", "--param", "C=2", "--param", "P=16"}, "larger than the platform"},
      {{"--bench", "gqa-long", "--param", "C=32"}, "larger than the platform"},
      {{"--bench", "gqa-long", "--param", "C=2", "--param", "groups=0,1,4,6,8,10,12,14"},
       "overlap"},
      {{"--bench", "gqa-long", "--param", "S_kv=4"}, "leaves a rank without KV positions"},
      {{"--bench", "gqa-long", "--param", "case=7"}, "case 7 does not exist"},
      {{"--bench", "gqa-prefill", "--param", "S=8000"}, "not a multiple"},
      {{"--bench", "gqa-short", "--param", "kv_per_cube=3"}, "must divide"},
      {{"--bench", "gqa-short", "--param", "S_kv=2"}, "without KV positions"}};
  for (const auto& [args, part] : cases) {
    const std::string msg = expect_usage_error(run(args, tmp));
    EXPECT_TRUE(contains(msg, part)) << msg;
  }
}

TEST(CliInfo, DescribeTopologyListsKnobsWithDefaults) {
  TempDir tmp;
  const RunResult r = run({"--describe-topology"}, tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  std::string line;
  std::istringstream in(r.out);
  while (std::getline(in, line) && !contains(line, "pe.hbm.pc_bandwidth_gbps")) {
  }
  ASSERT_TRUE(contains(line, "pe.hbm.pc_bandwidth_gbps")) << r.out;
  EXPECT_TRUE(contains(line, "default=128")) << line;
  EXPECT_TRUE(contains(r.out, "sip.cube_link.bandwidth_gbps")) << r.out;
}

// Every counter a run reports is listed by --describe-stats under its group's
// pattern (indices as *), with a unit column and a description.
TEST(CliInfo, DescribeStatsListsEveryCounterARunReports) {
  TempDir tmp;
  const RunResult run_r = run({"-t", kTiny, "-b", "gemm", "-q", "--json", tmp / "g.json"}, tmp);
  ASSERT_EQ(run_r.exit_code, 0) << describe(run_r);
  const nlohmann::json stats = nlohmann::json::parse(read_text(tmp / "g.json"))["stats"];
  ASSERT_FALSE(stats.empty());
  const RunResult r = run({"-t", kTiny, "--describe-stats"}, tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  std::set<std::string> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.insert(line);
  auto pattern_of = [](const std::string& key) {
    std::string p;
    for (size_t i = 0; i < key.size();) {
      size_t j = i;
      while (j < key.size() && std::isdigit(static_cast<unsigned char>(key[j]))) ++j;
      const bool index = j > i && (j == key.size() || key[j] == '.' || key[j] == '_');
      p += index ? std::string("*") : key.substr(i, std::max(j - i, size_t{1}));
      i = std::max(j, i + 1);
    }
    return p;
  };
  for (const auto& [key, counters] : stats.items()) {
    EXPECT_TRUE(lines.count(pattern_of(key))) << key << " as " << pattern_of(key) << "\n" << r.out;
    for (const auto& [name, value] : counters.items())
      EXPECT_TRUE(contains(r.out, "  " + name + " ") || contains(r.out, "  " + name + "{...} "))
          << key << "." << name << "\n"
          << r.out;
  }
  EXPECT_TRUE(lines.count("system.sip*.cube*.pe*.hbm.pc*")) << r.out;
  EXPECT_TRUE(contains(expect_usage_error(run({"--describe-stats", "-p", "M=1"}, tmp)),
                       "--describe-stats runs none"));
}

TEST(CliInfo, CheckTopologySummarisesFourSips) {
  TempDir tmp;
  const RunResult r =
      run({"--check-topology", "--topology", kSource + "/topologies/llama70b_4sip.yaml"}, tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  std::string line;
  std::istringstream in(r.out);
  while (std::getline(in, line) && !contains(line, "SIPs")) {
  }
  ASSERT_TRUE(contains(line, "SIPs")) << r.out;
  std::istringstream words(line);
  std::string label, count;
  words >> label >> count;
  EXPECT_EQ(label, "SIPs") << line;
  EXPECT_EQ(count, "4") << line;
}

// What a kernel gets of each PE's memories: --check-topology for the
// topology given, --describe-topology for the knobs' defaults (the schema's,
// TopologyConfig{}), each computed from the configuration.
TEST(CliInfo, CheckAndDescribeTopologyShowWhatAKernelGets) {
  TempDir tmp;
  const RunResult check = run({"--check-topology", "--topology", kTiny}, tmp);
  ASSERT_EQ(check.exit_code, 0) << describe(check);
  const TopologyConfig tiny = test::tiny();
  const test::DescribedRegion arena = test::described_region(check.out, "TCM arena");
  ASSERT_TRUE(arena.found) << check.out;
  EXPECT_EQ(arena.bytes, test::expected_tcm_arena(tiny)) << check.out;
  EXPECT_EQ(test::described_region(check.out, "HBM tensors").bytes,
            tiny.pe.hbm.size_bytes - tiny.pe.ipcq.ring_bytes)
      << check.out;
  EXPECT_LT(check.out.find("TCM staging"), check.out.find("elaboration")) << check.out;

  const RunResult knobs = run({"--describe-topology"}, tmp);
  ASSERT_EQ(knobs.exit_code, 0) << describe(knobs);
  const TopologyConfig defaults{};
  const size_t derived = knobs.out.find("what a kernel gets of each PE's memories");
  ASSERT_NE(derived, std::string::npos) << knobs.out;
  const std::string tail = knobs.out.substr(derived);
  EXPECT_EQ(test::described_region(tail, "TCM arena").bytes, test::expected_tcm_arena(defaults))
      << tail;
  EXPECT_EQ(test::described_region(tail, "TCM IPCQ").bytes, defaults.pe.ipcq.ring_bytes) << tail;
  EXPECT_EQ(test::described_region(tail, "HBM tensors").bytes,
            defaults.pe.hbm.size_bytes - defaults.pe.ipcq.ring_bytes)
      << tail;
}

TEST(CliInfo, CheckTopologyReportsElaborationTimeAndPeakRss) {
  TempDir tmp;
  const RunResult r = run({"--check-topology"}, tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "elaboration")) << r.out;
  EXPECT_TRUE(contains(r.out, "peak RSS")) << r.out;
}

// The speed bench runs end to end (its figures are for notes, not asserted).
TEST(CliInfo, SimspeedReportsRawRateStageRatesFitAndElaboration) {
  TempDir tmp;
  const RunResult r = run({"--bench", "simspeed", "--param", "pingpongs=2000", "--param",
                           "gemm_k=64,128,256", "--param", "gqa_s_kv=4096", "--param",
                           "sweep_spec=", "--param", "elaborate_limit=0", "--json", tmp / "s.json"},
                          tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (const char* s : {"raw SystemC ping-pong", "allreduce hierarchical 128 PEs", "gqa-decode",
                        "R2=", "llama70b_4sip (512 PEs)", "gqa-sweep, four long-context cases",
                        "4 Cube-SP x PE-SP", "queue services/stage"})
    EXPECT_TRUE(contains(r.out, s)) << s << "\n" << r.out;
  // Every measured workload moved data: its bursts and queue services were counted.
  const nlohmann::json j = nlohmann::json::parse(read_text(tmp / "s.json"));
  int workloads = 0;
  for (const auto& pt : j.at("points")) {
    if (!pt.contains("queue_services")) continue;
    ++workloads;
    EXPECT_GT(pt.at("queue_services").get<uint64_t>(), 0u) << pt.dump();
    EXPECT_GT(pt.at("dma_bursts").get<uint64_t>(), 0u) << pt.dump();
    EXPECT_GT(pt.at("services_per_s").get<double>(), 0.0) << pt.dump();
  }
  EXPECT_EQ(workloads, 4);
  // A bench run in a child process reports the child's own peak RSS.
  EXPECT_GT(j.at("metrics").at("gqa_sweep").at("peak_rss_mb").get<double>(), 0.0)
      << j.at("metrics").dump();
}

TEST(CliInfo, SimspeedRefusesANegativeLlmLayerCount) {
  TempDir tmp;
  const RunResult r = run({"--bench", "simspeed", "--param", "llm_layers=-1"}, tmp);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "llm_layers")) << describe(r);
}

// The default study: each title and header says what its figures are.
TEST(CliInfo, DefaultRunPrintsTheStudyAndSaysWhatEachFigureCovers) {
  TempDir tmp;
  const RunResult r = run({}, tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "hop_class")) << r.out;
  EXPECT_TRUE(contains(r.out, "local_hbm")) << r.out;
  // The energy class columns are headed as such (they hold "hbm", "static").
  for (const char* header :
       {"dyn/model  dominant energy class\n", "energy/step  dominant energy class  max_abs_err\n"})
    EXPECT_TRUE(contains(r.out, header)) << header << r.out;
  // The gqa-sweep table counts the cases it ran.
  EXPECT_TRUE(contains(r.out, "gqa-sweep: 2 long-context decode cases at S_kv 8192\n")) << r.out;
  EXPECT_FALSE(contains(r.out, "four")) << r.out;
  // The power's scope: every cube and PE, over the step's time.
  EXPECT_TRUE(contains(r.out,
                       "average power (W): whole platform (16 cubes, 128 PEs) over the step (1 of "
                       "32 layers: not the model's)"))
      << r.out;
}

// ---------------------------------------------------------------------------
// Usage and configuration errors: exit 2, one actionable line on stderr

TEST(CliErrors, MalformedYamlNamesFileLineAndColumn) {
  TempDir tmp;
  const std::string yaml = tiny_with(tmp, "bad.yaml", "cubes_x: 2", "cubes_x: [2");
  const std::string msg = expect_usage_error(run({"--topology", yaml, "--check-topology"}, tmp));
  EXPECT_TRUE(has_file_line_col(msg, yaml)) << msg;
}

TEST(CliErrors, UnknownKeySuggestsTheNearestOne) {
  TempDir tmp;
  const std::string yaml =
      tiny_with(tmp, "typo.yaml", "    bandwidth_gbps: 128\n    latency_ns: 5\n",
                "    bandwith_gbps: 128\n    latency_ns: 5\n");
  const std::string msg = expect_usage_error(run({"--topology", yaml, "--check-topology"}, tmp));
  EXPECT_TRUE(has_file_line_col(msg, yaml)) << msg;
  EXPECT_TRUE(contains(msg, "sip.cube_link")) << msg;
  EXPECT_TRUE(contains(msg, "did you mean 'bandwidth_gbps'")) << msg;
}

TEST(CliErrors, UnknownSetKeySuggestsTheNearestOne) {
  TempDir tmp;
  const std::string msg =
      expect_usage_error(run({"--set", "sip.cube_link.bandwith_gbps=64", "--check-topology"}, tmp));
  EXPECT_TRUE(contains(msg, "sip.cube_link.bandwidth_gbps")) << msg;
}

TEST(CliErrors, DmaRowsBeyondTheDescriptorFieldAreRejected) {
  TempDir tmp;
  const std::string msg = expect_usage_error(
      run({"--bench", "dma", "--param", "rows=4294967296", "--param", "bytes=1"}, tmp));
  EXPECT_TRUE(contains(msg, "at most 4294967295 rows")) << msg;
}

TEST(CliErrors, ZeroBandwidthFromSetIsRejected) {
  TempDir tmp;
  const std::string msg = expect_usage_error(run(
      {"--topology", kTiny, "--set", "sip.cube_link.bandwidth_gbps=0", "--check-topology"}, tmp));
  EXPECT_TRUE(contains(msg, "sip.cube_link.bandwidth_gbps")) << msg;
  EXPECT_TRUE(contains(msg, "> 0")) << msg;
}

TEST(CliErrors, ZeroBandwidthInYamlIsRejected) {
  TempDir tmp;
  const std::string yaml =
      tiny_with(tmp, "zero.yaml", "    bandwidth_gbps: 128\n    latency_ns: 5\n",
                "    bandwidth_gbps: 0\n    latency_ns: 5\n");
  const std::string msg = expect_usage_error(run({"--topology", yaml, "--check-topology"}, tmp));
  EXPECT_TRUE(has_file_line_col(msg, yaml)) << msg;
  EXPECT_TRUE(contains(msg, "sip.cube_link.bandwidth_gbps")) << msg;
}

TEST(CliErrors, NegativeLatencyIsRejected) {
  TempDir tmp;
  const std::string yaml =
      tiny_with(tmp, "neg.yaml", "    bandwidth_gbps: 128\n    latency_ns: 5\n",
                "    bandwidth_gbps: 128\n    latency_ns: -5\n");
  std::string msg = expect_usage_error(run({"--topology", yaml, "--check-topology"}, tmp));
  EXPECT_TRUE(has_file_line_col(msg, yaml)) << msg;
  EXPECT_TRUE(contains(msg, "sip.cube_link.latency_ns")) << msg;

  msg = expect_usage_error(
      run({"--topology", kTiny, "--set", "pe.hbm.access_latency_ns=-1", "--check-topology"}, tmp));
  EXPECT_TRUE(contains(msg, "pe.hbm.access_latency_ns")) << msg;
}

TEST(CliErrors, ZeroMeshDimensionIsRejected) {
  TempDir tmp;
  const std::string yaml = tiny_with(tmp, "flat.yaml", "cubes_x: 2", "cubes_x: 0");
  const std::string msg = expect_usage_error(run({"--topology", yaml, "--check-topology"}, tmp));
  EXPECT_TRUE(has_file_line_col(msg, yaml)) << msg;
  EXPECT_TRUE(contains(msg, "sip.cubes_x")) << msg;
}

TEST(CliErrors, MissingTopologyFileIsNamed) {
  TempDir tmp;
  const std::string missing = tmp / "no_such_topology.yaml";
  const std::string msg = expect_usage_error(run({"--topology", missing}, tmp));
  EXPECT_TRUE(contains(msg, missing)) << msg;
}

TEST(CliErrors, UnknownBenchSuggestsTheNearestOne) {
  TempDir tmp;
  const std::string msg = expect_usage_error(run({"--bench", "prbe"}, tmp));
  EXPECT_TRUE(contains(msg, "prbe")) << msg;
  EXPECT_TRUE(contains(msg, "did you mean 'probe'")) << msg;
}

// 'dma' and 'llm' are both two edits from "lama": the guess is the one that
// starts like it.
TEST(CliErrors, UnknownBenchSuggestsTheNameThatStartsLikeIt) {
  TempDir tmp;
  const std::string msg = expect_usage_error(run({"--bench", "lama"}, tmp));
  EXPECT_EQ(msg,
            "kernbench: error: unknown bench 'lama'; did you mean 'llm'? (see --list-benches)\n");
}

// A topology file that does not exist: the nearest file with its extension
// in its directory, or the shipped topology of the path --topology takes.
TEST(CliErrors, MissingTopologyFileSuggestsTheNearestOne) {
  TempDir tmp;
  // Run elsewhere: no topologies/ directory, the shipped names.
  std::string msg = expect_usage_error(
      test::run_kernbench({"--topology", "topologies/tinny.yaml", "--check-topology"}, tmp, "/"));
  EXPECT_EQ(msg,
            "kernbench: configuration error: cannot open topology file 'topologies/tinny.yaml': No "
            "such file or directory; did you mean 'topologies/tiny.yaml'?\n");
  // In the source tree, the same file from the directory.
  msg = expect_usage_error(test::run_kernbench(
      {"--topology", "topologies/tinny.yaml", "--check-topology"}, tmp, kSource));
  EXPECT_TRUE(contains(msg, "did you mean 'topologies/tiny.yaml'?")) << msg;
  msg = expect_usage_error(
      test::run_kernbench({"--topology", "ahbm_1sip_rng.yaml", "--check-topology"}, tmp, "/"));
  EXPECT_TRUE(contains(msg, "did you mean 'ahbm_1sip_ring.yaml'?")) << msg;
  // A user's own file beside it.
  write_text(tmp / "mine.yaml", read_text(kTiny));
  msg = expect_usage_error(run({"--topology", tmp / "mien.yaml", "--check-topology"}, tmp));
  EXPECT_TRUE(contains(msg, "did you mean '" + tmp / "mine.yaml" + "'?")) << msg;
}

// A --set that breaks the HBM stripes of a file's size is what the message
// names, with the values that would work; a file's key keeps its place.
TEST(CliErrors, HbmStripesBrokenBySetNameTheSetAndWhatWouldDivide) {
  TempDir tmp;
  std::string msg = expect_usage_error(run({"--set", "pe.hbm.num_pcs=3", "--check-topology"}, tmp));
  EXPECT_EQ(msg,
            "kernbench: configuration error: --set pe.hbm.num_pcs=3: pe.hbm.size_bytes = 1GiB "
            "(<embedded ahbm_1sip.yaml>:125:17) is not a multiple of interleave_bytes * num_pcs = "
            "1024 * 3; num_pcs = 2 or 4 would divide it, or make pe.hbm.size_bytes a multiple of "
            "3072 (the nearest: 1048575KiB or 1048578KiB)\n");
  // A file's num_pcs, with the size at its default: that key, where it is.
  const std::string yaml = tmp / "pcs.yaml";
  write_text(yaml, "pe:\n  hbm:\n    num_pcs: 5\n");
  msg = expect_usage_error(run({"--topology", yaml, "--check-topology"}, tmp));
  EXPECT_EQ(msg, "kernbench: configuration error: " + yaml +
                     ":3:14: pe.hbm.num_pcs: pe.hbm.size_bytes = 1GiB is not a multiple of "
                     "interleave_bytes * num_pcs = 1024 * 5; num_pcs = 4 or 8 would divide it, or "
                     "make pe.hbm.size_bytes a multiple of 5120 (the nearest: 1048575KiB or "
                     "1048580KiB)\n");
  // Both keys in the file: the first of the rule, with the other way.
  const std::string both = tiny_with(tmp, "both.yaml", "num_pcs: 2", "num_pcs: 5");
  msg = expect_usage_error(run({"--topology", both, "--check-topology"}, tmp));
  EXPECT_TRUE(has_file_line_col(msg, both)) << msg;
  EXPECT_TRUE(contains(msg,
                       "pe.hbm.size_bytes: must be a multiple of interleave_bytes * num_pcs "
                       "= 1024 * 5, got 64MiB; make it a multiple of 5120 (the nearest: "
                       "65535KiB or 65540KiB), or set pe.hbm.num_pcs = 4 or 8\n"))
      << msg;
  msg = expect_usage_error(
      run({"-t", kTiny, "--set", "pe.hbm.size_bytes=3KiB", "--check-topology"}, tmp));
  EXPECT_TRUE(contains(msg,
                       "--set pe.hbm.size_bytes=3KiB: must be a multiple of interleave_bytes "
                       "* num_pcs = 1024 * 2, got 3KiB; make it a multiple of 2048 (the "
                       "nearest: 2KiB or 4KiB), or set pe.hbm.num_pcs = 1 or 3\n"))
      << msg;
  msg = expect_usage_error(
      run({"-t", kTiny, "--set", "pe.hbm.interleave_bytes=64MiB", "--check-topology"}, tmp));
  EXPECT_TRUE(contains(msg, "interleave_bytes <= 32MiB (a power of two) would divide it")) << msg;
}

TEST(CliErrors, UnknownParamSuggestsTheNearestOne) {
  TempDir tmp;
  const std::string msg = expect_usage_error(run({"--bench", "probe", "--param", "sizez=1"}, tmp));
  EXPECT_TRUE(contains(msg, "sizez")) << msg;
  EXPECT_TRUE(contains(msg, "did you mean 'sizes'")) << msg;
}

TEST(CliErrors, MalformedParamIsRejected) {
  TempDir tmp;
  const std::string msg = expect_usage_error(run({"--bench", "probe", "--param", "abc"}, tmp));
  EXPECT_TRUE(contains(msg, "abc")) << msg;
  EXPECT_TRUE(contains(msg, "KEY=VALUE")) << msg;
}

TEST(CliErrors, UnparsableSetIsRejected) {
  TempDir tmp;
  std::string msg = expect_usage_error(run({"--set", "abc", "--check-topology"}, tmp));
  EXPECT_TRUE(contains(msg, "abc")) << msg;
  msg = expect_usage_error(run({"--set", "pe.clock_ghz=fast", "--check-topology"}, tmp));
  EXPECT_TRUE(contains(msg, "pe.clock_ghz")) << msg;
  EXPECT_TRUE(contains(msg, "fast")) << msg;
}

TEST(CliErrors, UnknownOptionIsRejected) {
  TempDir tmp;
  const std::string msg = expect_usage_error(run({"--frobnicate"}, tmp));
  EXPECT_TRUE(contains(msg, "--frobnicate")) << msg;
}

// ---------------------------------------------------------------------------
// Simulation faults: exit 3, the fault names the address and the module

TEST(CliFaults, UnmappedAddressIsASimulationFaultNamingAddressAndPe) {
  TempDir tmp;
  const RunResult r =
      run({"--topology", kTiny, "--bench", "dma", "--param", "src=0x0000000000001000", "--param",
           "dst=tcm:0.0.1+0", "--param", "bytes=64", "--param", "pe=0.0.1"},
          tmp);
  expect_simulation_fault(r);
  EXPECT_TRUE(contains(r.err, "0x0000000000001000")) << describe(r);
  EXPECT_TRUE(contains(r.err, "system.sip0.cube0.pe1.dma")) << describe(r);
}

// dma_bench.h: addresses are checked by the fabric, so an offset past the end
// of a mapped memory is a TLM address error, i.e. a simulation fault (exit 3).
TEST(CliFaults, OffsetBeyondTheTcmIsASimulationFault) {
  TempDir tmp;
  // tiny.yaml: TCM is 1 MiB (0x100000); 0x200000 is past its end.
  const RunResult r =
      run({"--topology", kTiny, "--bench", "dma", "--param", "src=tcm:0.0.0+0x200000", "--param",
           "dst=hbm:0.0.0+0", "--param", "bytes=64"},
          tmp);
  expect_simulation_fault(r);
  EXPECT_TRUE(contains(r.err, "system.sip0.cube0.pe0.dma")) << describe(r);
  EXPECT_TRUE(contains(r.err, "0x2000000000200000")) << describe(r);  // TCM of PE 0.0.0 + 2 MiB
}

// An offset that does not fit the address map's 40-bit offset field cannot be
// encoded at all: a usage error, caught before any simulation.
TEST(CliFaults, OffsetBeyondTheAddressMapIsAUsageError) {
  TempDir tmp;
  const std::string msg = expect_usage_error(
      run({"--topology", kTiny, "--bench", "dma", "--param", "src=tcm:0.0.0+0x10000000000"}, tmp));
  EXPECT_TRUE(contains(msg, "--param src")) << msg;
}

TEST(CliFaults, ValidDmaTransferSucceeds) {
  TempDir tmp;
  const RunResult r =
      run({"--topology", kTiny, "--bench", "dma", "--param", "src=hbm:0.0.1+0", "--param",
           "dst=tcm:0.0.1+0x1000", "--param", "bytes=4096", "--param", "pe=0.0.1"},
          tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "system.sip0.cube0.pe1.dma")) << r.out;
}

TEST(CliFaults, FailedRunLeavesNoOutputFilesBehind) {
  TempDir tmp;
  const std::string json = tmp / "r.json", vcd = tmp / "w.vcd";
  const RunResult r = run({"--topology", kTiny, "--bench", "dma", "--param",
                           "src=0x0000000000001000", "--param", "dst=tcm:0.0.1+0", "--param",
                           "bytes=64", "--param", "pe=0.0.1", "--json", json, "--vcd", vcd},
                          tmp);
  EXPECT_EQ(r.exit_code, 3) << describe(r);
  for (const std::string& f : {json, json + ".tmp", vcd, vcd + ".partial", vcd + ".partial.vcd"})
    EXPECT_FALSE(fs::exists(f)) << f;
  for (const auto& e : fs::directory_iterator(tmp.path())) {  // only the captured streams remain
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name.rfind("stdout.", 0) == 0 || name.rfind("stderr.", 0) == 0) << name;
  }
}

TEST(CliFaults, UsageErrorLeavesNoOutputFilesBehind) {
  TempDir tmp;
  const std::string json = tmp / "r.json", vcd = tmp / "w.vcd";
  const RunResult r =
      run({"--bench", "probe", "--param", "sizez=1", "--json", json, "--vcd", vcd}, tmp);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  for (const std::string& f : {json, json + ".tmp", vcd, vcd + ".partial", vcd + ".partial.vcd"})
    EXPECT_FALSE(fs::exists(f)) << f;
}

// ---------------------------------------------------------------------------
// Outputs: JSON result, --out, --quiet, determinism

nlohmann::json load_json(const std::string& path) {
  return nlohmann::json::parse(read_text(path));  // throws on malformed JSON
}

TEST(CliOutputs, JsonResultHasTheDocumentedShape) {
  TempDir tmp;
  const std::string path = tmp / "p.json";
  const RunResult r = run({"--bench", "probe", "--topology", kTiny, "--json", path}, tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "wrote " + path)) << r.out;
  const nlohmann::json j = load_json(path);
  for (const char* key :
       {"bench", "topology", "params", "sim_time_ns", "wall_s", "metrics", "points", "stats"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["bench"], "probe");
  EXPECT_EQ(j["topology"]["name"], "tiny");
  EXPECT_GT(j["sim_time_ns"].get<double>(), 0.0);
  ASSERT_TRUE(j["points"].is_array());
  ASSERT_FALSE(j["points"].empty());
  for (const auto& pt : j["points"])
    for (const char* key :
         {"hop_class", "bytes", "latency_ns", "bandwidth_gbps", "bottleneck_gbps", "hops"})
      EXPECT_TRUE(pt.contains(key)) << key << " in " << pt.dump();
  EXPECT_TRUE(j["stats"].is_object());
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

// A bench that reports metrics but no points (dma) writes them as the CSV's
// one row, not an empty table.
TEST(CliOutputs, CsvOfABenchWithoutPointsIsItsMetricsRow) {
  TempDir tmp;
  const RunResult r =
      run({"-t", kTiny, "-b", "dma", "-q", "-p", "bytes=8192", "--csv", tmp / "d.csv"}, tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::string csv = read_text(tmp / "d.csv");
  ASSERT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2) << csv;
  EXPECT_TRUE(contains(csv.substr(0, csv.find('\n')), "bandwidth_gbps")) << csv;
  EXPECT_TRUE(contains(csv.substr(csv.find('\n')), ",8192,")) << csv;
}

TEST(CliOutputs, OutDirReceivesBenchJson) {
  TempDir tmp;
  const std::string dir = tmp / "results";
  const RunResult r = run({"--bench", "probe", "--topology", kTiny, "--out", dir}, tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_TRUE(fs::exists(dir + "/probe.json")) << describe(r);
  EXPECT_EQ(load_json(dir + "/probe.json")["bench"], "probe");
}

TEST(CliOutputs, QuietPrintsNothing) {
  TempDir tmp;
  const std::string path = tmp / "q.json", vcd = tmp / "q.vcd";
  const RunResult r =
      run({"--bench", "probe", "--topology", kTiny, "--quiet", "--json", path, "--vcd", vcd}, tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(fs::exists(path));
  EXPECT_TRUE(fs::exists(vcd));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) v.push_back(line);
  return v;
}

TEST(CliOutputs, TwoRunsGiveIdenticalResultsApartFromWallTime) {
  TempDir tmp;
  const std::string a = tmp / "a.json", b = tmp / "b.json";
  const RunResult ra = run({"--bench", "probe", "--json", a}, tmp);
  const RunResult rb = run({"--bench", "probe", "--json", b}, tmp);
  ASSERT_EQ(ra.exit_code, 0) << describe(ra);
  ASSERT_EQ(rb.exit_code, 0) << describe(rb);
  nlohmann::json ja = load_json(a), jb = load_json(b);
  EXPECT_EQ(ja["topology"]["name"], "ahbm_1sip");
  ASSERT_EQ(ja.erase("wall_s"), 1u);
  ASSERT_EQ(jb.erase("wall_s"), 1u);
  EXPECT_EQ(ja.dump(), jb.dump());

  const std::vector<std::string> la = lines_of(read_text(a)), lb = lines_of(read_text(b));
  ASSERT_EQ(la.size(), lb.size());
  int wall_lines = 0;
  for (size_t i = 0; i < la.size(); ++i) {
    if (contains(la[i], "\"wall_s\"")) {
      ++wall_lines;
      EXPECT_TRUE(contains(lb[i], "\"wall_s\"")) << "line " << i + 1;
      continue;
    }
    EXPECT_EQ(la[i], lb[i]) << "line " << i + 1;
  }
  EXPECT_EQ(wall_lines, 1);
}

// ---------------------------------------------------------------------------
// VCD waveforms

// A minimal VCD reader: the header's timescale and variables (scope chain
// joined with '.', the reference last), then the value changes by time.
struct Vcd {
  std::string timescale;
  bool definitions_ended = false;
  std::map<std::string, std::string> id_of;  // "system.sip0....busy" -> identifier code
  std::map<std::string, std::vector<std::pair<uint64_t, std::string>>> changes;  // id -> (t, v)
  uint64_t last_time = 0;
  int time_stamps = 0;

  bool has_var(const std::string& path) const { return id_of.count(path) != 0; }
  bool any_var_under(const std::string& prefix) const {
    return std::any_of(id_of.begin(), id_of.end(),
                       [&](const auto& var) { return var.first.rfind(prefix, 0) == 0; });
  }
};

Vcd parse_vcd(const std::string& text) {
  Vcd v;
  std::istringstream in(text);
  std::vector<std::string> scopes;
  std::string tok;
  uint64_t now = 0;
  auto read_until_end = [&in]() {
    std::string body, w;
    while (in >> w && w != "$end") body += (body.empty() ? "" : " ") + w;
    return body;
  };
  while (in >> tok) {
    if (!v.definitions_ended) {
      if (tok == "$timescale") {
        v.timescale = read_until_end();
      } else if (tok == "$scope") {
        std::string kind, name;
        in >> kind >> name;
        read_until_end();
        scopes.push_back(name);
      } else if (tok == "$upscope") {
        read_until_end();
        if (!scopes.empty()) scopes.pop_back();
      } else if (tok == "$var") {
        std::string type, width, id, ref;
        in >> type >> width >> id >> ref;
        read_until_end();  // optional [msb:lsb]
        std::string path;
        for (const auto& s : scopes)
          if (!(path.empty() && s == "SystemC")) path += s + ".";
        v.id_of[path + ref] = id;
      } else if (tok == "$enddefinitions") {
        read_until_end();
        v.definitions_ended = true;
      } else if (tok[0] == '$') {
        read_until_end();
      }
      continue;
    }
    if (tok[0] == '#') {
      now = std::stoull(tok.substr(1));
      v.last_time = now;
      ++v.time_stamps;
    } else if (tok[0] == 'b' || tok[0] == 'r') {
      std::string id;
      in >> id;
      v.changes[id].emplace_back(now, tok.substr(1));
    } else if (tok == "$comment") {
      read_until_end();
    } else if (tok[0] == '$') {
      // $dumpvars / $end around the initial values
    } else {
      v.changes[tok.substr(1)].emplace_back(now, tok.substr(0, 1));
    }
  }
  return v;
}

TEST(CliVcd, TracesHbmPseudoChannelBusyFlag) {
  TempDir tmp;
  const std::string vcd = tmp / "w.vcd";
  const RunResult r = run({"--bench", "probe", "--topology", kTiny, "--vcd", vcd}, tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_TRUE(fs::exists(vcd)) << describe(r);
  EXPECT_FALSE(fs::exists(vcd + ".partial.vcd"));
  const std::string text = read_text(vcd);
  EXPECT_TRUE(contains(text, "$timescale"));
  EXPECT_TRUE(contains(text, "$enddefinitions"));
  const Vcd v = parse_vcd(text);
  EXPECT_EQ(v.timescale, "1 ps");
  ASSERT_TRUE(v.definitions_ended);
  const std::string pc0 = "system.sip0.cube0.pe0.hbm.pc0.busy";
  ASSERT_TRUE(v.has_var(pc0)) << text.substr(0, 3000);
  EXPECT_TRUE(v.has_var("system.sip0.cube0.pe0.hbm.pc0.depth"));
  EXPECT_GT(v.time_stamps, 1);
  EXPECT_GT(v.last_time, 0u);
  // The local-HBM probe reads pc0: its busy flag rises after time 0.
  const auto it = v.changes.find(v.id_of.at(pc0));
  ASSERT_NE(it, v.changes.end());
  bool rose_after_zero = false;
  for (const auto& [t, value] : it->second)
    if (t > 0 && value == "1") rose_after_zero = true;
  EXPECT_TRUE(rose_after_zero);
}

// Each run window of a bench (here one per all-reduce algorithm) is in the
// JSON result with its label, is an instant marker in the trace, and steps
// the VCD's system.phase signal at its start.
TEST(CliVcd, RunWindowsAreInTheResultTheTraceAndThePhaseSignal) {
  TempDir tmp;
  const std::string vcd = tmp / "w.vcd";
  const RunResult r =
      run({"-t", kTiny, "-b", "allreduce", "-p", "algo=ring,2d", "-p", "bytes_per_pe=16KiB", "-q",
           "--json", tmp / "r.json", "--trace", tmp / "t.json", "--vcd", vcd},
          tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const nlohmann::json runs = load_json(tmp / "r.json")["runs"];
  ASSERT_EQ(runs.size(), 2u) << runs.dump();
  EXPECT_EQ(runs[0]["label"], "allreduce ring tcm 16384 B/PE");
  EXPECT_EQ(runs[1]["label"], "allreduce 2d tcm 16384 B/PE");
  EXPECT_EQ(runs[0]["start_ns"].get<double>(), 0.0);
  EXPECT_GT(runs[0]["end_ns"].get<double>(), 0.0);
  EXPECT_EQ(runs[1]["start_ns"], runs[0]["end_ns"]);
  EXPECT_GT(runs[1]["end_ns"].get<double>(), runs[1]["start_ns"].get<double>());
  std::vector<nlohmann::json> markers;
  const nlohmann::json trace = load_json(tmp / "t.json");
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "i") markers.push_back(e);
  ASSERT_EQ(markers.size(), 2u);
  EXPECT_EQ(markers[1]["name"], runs[1]["label"]);
  EXPECT_NEAR(markers[1]["ts"].get<double>(), runs[1]["start_ns"].get<double>() / 1000, 1e-9);
  const Vcd v = parse_vcd(read_text(vcd));
  ASSERT_TRUE(v.has_var("system.phase"));
  const auto& phase = v.changes.at(v.id_of.at("system.phase"));
  ASSERT_FALSE(phase.empty());
  EXPECT_EQ(phase.back().second, "10");  // run 2, in binary
  EXPECT_EQ(static_cast<double>(phase.back().first),
            std::round(runs[1]["start_ns"].get<double>() * 1000));  // 1 ps timebase
}

TEST(CliVcd, ScopeGlobRestrictsTheTracedModules) {
  TempDir tmp;
  const std::string vcd = tmp / "s.vcd";
  const RunResult r = run(
      {"--bench", "probe", "--topology", kTiny, "--vcd", vcd, "--vcd-scope", "system.sip0.cube1*"},
      tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const Vcd v = parse_vcd(read_text(vcd));
  ASSERT_TRUE(v.definitions_ended);
  EXPECT_FALSE(v.id_of.empty());
  EXPECT_TRUE(v.has_var("system.sip0.cube1.pe0.hbm.pc0.busy"));
  EXPECT_FALSE(v.any_var_under("system.sip0.cube0.")) << "cube0 is out of scope";
  for (const auto& [path, id] : v.id_of)  // the run window's number is always traced
    if (path != "system.phase") {
      EXPECT_EQ(path.rfind("system.sip0.cube1", 0), 0u) << path;
    }
}

// Power over time (the cubes' power in the VCD, counter tracks in the trace)
// changes no result: the same run with and without them gives the same
// simulated time, op log, metrics and energy.
TEST(CliOutputs, PowerTracksChangeNoResult) {
  TempDir tmp;
  const RunResult plain = run({"-t", kTiny, "-b", "gemm", "-q", "--json", tmp / "a.json"}, tmp);
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  const RunResult traced = run({"-t", kTiny, "-b", "gemm", "-q", "--json", tmp / "b.json", "--vcd",
                                tmp / "w.vcd", "--trace", tmp / "t.json"},
                               tmp);
  ASSERT_EQ(traced.exit_code, 0) << describe(traced);
  const nlohmann::json a = load_json(tmp / "a.json"), b = load_json(tmp / "b.json");
  for (const char* k : {"sim_time_ns", "op_log", "metrics", "points", "energy"})
    EXPECT_EQ(a[k], b[k]) << k;
  EXPECT_TRUE(contains(read_text(tmp / "w.vcd"), "power_mw"));
  unsigned counters = 0;
  const nlohmann::json trace = load_json(tmp / "t.json");
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "C" && e["name"] == "power_mw") ++counters;
  EXPECT_GT(counters, 2u);
}

// Every trace a bench writes draws right in Perfetto: no two slices of one
// track overlap (overlapping stages of an engine are on sub-tracks), every
// counter track goes forward in time, every timestamp is the double nearest
// a whole number of picoseconds (not one off by binary-fraction noise), and
// the queues' depths are counter tracks beside the cubes' power, and
// every flow arrow has one start and one end, each at the start of a slice
// of its track, the end no earlier than the start: a tile's stages are
// chained, and an all-reduce's doorbells point at the chunks they announced.
TEST(CliOutputs, TracesHaveNoOverlappingSlicesAndOrderedCounters) {
  TempDir tmp;
  for (const std::vector<std::string>& bench :
       {std::vector<std::string>{"-b", "gemm"},
        {"-b", "allreduce", "-p", "bytes_per_pe=16KiB"},
        {"-b", "gqa-decode", "-p", "S_kv=256"},
        {"-b", "gqa-long", "-p", "S_kv=512", "-p", "kv_heads=1", "-p", "heads=4", "-p", "C=4"},
        {"-b", "gqa-prefill", "-p", "S=256", "-p", "C=4", "-p", "T_q=32"},
        {"-b", "math"},
        {"-b", "dma"},
        {"-b", "probe"},
        {"-b", "llm",
         "-p", "model=llama3_8b",
         "-p", "model.layers=1",
         "-p", "model.hidden=120",
         "-p", "model.heads=6",
         "-p", "model.kv_heads=3",
         "-p", "model.d_head=20",
         "-p", "model.ffn=200",
         "-p", "model.vocab=250",
         "-p", "ranks=6",
         "-p", "batch=2",
         "-p", "context=37"}}) {
    std::vector<std::string> args{"-t", kTiny, "-q", "--trace", tmp / "t.json"};
    args.insert(args.end(), bench.begin(), bench.end());
    const RunResult r = run(args, tmp);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    const nlohmann::json trace = load_json(tmp / "t.json");
    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
    std::map<std::pair<int, std::string>, double> counter_at;
    std::set<std::tuple<int, int, double>> slice_starts;
    std::map<uint64_t, std::vector<nlohmann::json>> flows;
    std::map<std::string, unsigned> flows_by_name;
    unsigned sub_tracks = 0, with_peer = 0, depth_samples = 0, busy_samples = 0;
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] == "s" || e["ph"] == "f") flows[e["id"].get<uint64_t>()].push_back(e);
      if (e["ph"] == "X" && e["args"].contains("peer")) ++with_peer;
      if (e["ph"] == "C" && e["args"].contains("depth")) ++depth_samples;
      if (e["ph"] == "C" && e["args"].contains("percent")) {
        ++busy_samples;  // a link direction's utilisation
        EXPECT_GE(e["args"]["percent"].get<double>(), 0.0) << e.dump();
        EXPECT_LE(e["args"]["percent"].get<double>(), 100.0) << e.dump();
      }
      if (e["ph"] == "M" && e["name"] == "thread_name" &&
          contains(e["args"]["name"].get<std::string>(), " #"))
        ++sub_tracks;
      if (e.contains("ts")) {
        const double ts = e["ts"].get<double>();
        EXPECT_EQ(ts, std::round(ts * 1e6) / 1e6) << e.dump();  // exact
      }
      if (e["ph"] == "X") {
        const double ts = e["ts"].get<double>();
        slices[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(
            ts, ts + e["dur"].get<double>());
        slice_starts.emplace(e["pid"].get<int>(), e["tid"].get<int>(), ts);
      }
      if (e["ph"] == "C") {
        const auto key = std::make_pair(e["pid"].get<int>(), e["name"].get<std::string>());
        const double ts = e["ts"].get<double>();
        if (counter_at.count(key)) {
          EXPECT_GE(ts, counter_at[key]) << e.dump();
        }
        counter_at[key] = ts;
      }
    }
    // dma and probe move data with blocking transfers, outside the stage
    // engines: no stage records, only counters. math's one-stage ops touch
    // no service queue and have no next stage to point at.
    const bool staged = bench[1] != "dma" && bench[1] != "probe";
    const bool tiled = staged && bench[1] != "math";
    EXPECT_EQ(!slices.empty(), staged) << bench[1];
    for (auto& [track, v] : slices) {
      std::sort(v.begin(), v.end());
      for (size_t i = 1; i < v.size(); ++i)
        EXPECT_GE(v[i].first, v[i - 1].second - 1e-9)
            << bench[1] << ": overlapping slices on pid " << track.first << " tid " << track.second;
    }
    for (const auto& [id, ends] : flows) {
      ASSERT_EQ(ends.size(), 2u) << bench[1] << ": flow " << id;
      EXPECT_EQ(ends[0]["ph"], "s") << ends[0].dump();
      EXPECT_EQ(ends[1]["ph"], "f") << ends[1].dump();
      EXPECT_EQ(ends[0]["name"], ends[1]["name"]);
      EXPECT_GE(ends[1]["ts"].get<double>(), ends[0]["ts"].get<double>()) << ends[1].dump();
      for (const auto& e : ends)
        EXPECT_TRUE(
            slice_starts.count({e["pid"].get<int>(), e["tid"].get<int>(), e["ts"].get<double>()}))
            << bench[1] << ": flow end bound to no slice: " << e.dump();
      ++flows_by_name[ends[0]["name"].get<std::string>()];
    }
    EXPECT_EQ(flows_by_name["tile"] > 0, tiled) << bench[1];
    EXPECT_FALSE(counter_at.empty()) << bench[1];                  // the cubes' power
    EXPECT_EQ(depth_samples > 0, bench[1] != "math") << bench[1];  // the queues' depths
    if (bench[1] == "gemm") {
      EXPECT_GT(sub_tracks, 0u);  // its DMA bursts overlap
    }
    // Link utilisation wherever data crossed a PE link (a lone PE's own HBM
    // and TCM are behind its crossbar).
    const std::set<std::string> across{"allreduce", "gqa-long", "gqa-prefill", "llm", "probe"};
    if (across.count(bench[1])) {
      EXPECT_GT(busy_samples, 0u) << bench[1];
    }
    if (bench[1] == "allreduce") {
      EXPECT_GT(flows_by_name["msg"], 0u);
      EXPECT_GT(with_peer, 0u);
    }
  }
}

// The op log says how long each stage waited for its engine (t_queued_ns,
// never after t_start_ns), where each DMA stage read and wrote, and which
// peer each IPCQ chunk or message was for.
TEST(CliOutputs, OpLogHasQueueTimeSourceDestinationAndPeer) {
  TempDir tmp;
  const RunResult r = run({"-t", kTiny, "-b", "allreduce", "-p", "bytes_per_pe=16KiB", "-q",
                           "--oplog", tmp / "o.jsonl"},
                          tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  std::istringstream lines(read_text(tmp / "o.jsonl"));
  unsigned queued = 0, dma = 0, with_peer = 0;
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json rec = nlohmann::json::parse(line);
    if (rec.contains("t_queued_ns")) {
      ++queued;
      EXPECT_LT(rec["t_queued_ns"].get<double>(), rec["t_start_ns"].get<double>()) << line;
    }
    if (rec["stage"] == "DMA_READ" || rec["stage"] == "DMA_WRITE") {
      ++dma;
      EXPECT_TRUE(rec.contains("src") && rec.contains("dst")) << line;
      if (rec["stage"] == "DMA_WRITE") {
        EXPECT_EQ(rec["dst"], rec["addr"]) << line;
      }
    }
    if (rec.contains("peer")) {
      ++with_peer;
      EXPECT_EQ(rec["peer"].get<std::string>().rfind("system.sip0.cube", 0), 0u) << line;
    }
  }
  EXPECT_GT(queued, 0u);
  EXPECT_GT(dma, 0u);
  EXPECT_GT(with_peer, 0u);
}

// Each point carries its window: the runs it made, their span of simulated
// time and each PE's command ids, so it joins the op log. Here every op-log
// record of a point's PE and command ids lies inside that point's window, and
// the points' windows follow each other.
TEST(CliOutputs, EveryPointCarriesItsWindowAndCommandIds) {
  TempDir tmp;
  const RunResult r =
      run({"-t", kTiny, "-b", "gemm-sweep", "-p", "shapes=32x128x32,64x64x64", "-p",
           "variants=load_ref,ref_ref", "-q", "--json", tmp / "r.json", "--oplog", tmp / "o.jsonl"},
          tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const nlohmann::json result = load_json(tmp / "r.json");
  const nlohmann::json& points = result["points"];
  ASSERT_EQ(points.size(), 4u);
  double last_end = 0;
  size_t next_run = 1;
  for (const auto& pt : points) {
    ASSERT_TRUE(pt.contains("window")) << pt.dump();
    const auto& w = pt["window"];
    EXPECT_EQ(w["runs"][0].get<size_t>(), next_run) << w.dump();
    next_run = w["runs"][1].get<size_t>() + 1;
    EXPECT_EQ(w["start_ns"].get<double>(), last_end) << w.dump();
    last_end = w["end_ns"].get<double>();
    EXPECT_GT(last_end, w["start_ns"].get<double>());
    ASSERT_TRUE(w["cmd_ids"].contains("system.sip0.cube0.pe0")) << w.dump();
    // Its own stats: here one run each, so that run's delta.
    ASSERT_EQ(w["runs"][0], w["runs"][1]);
    EXPECT_EQ(w["stats"], result["runs"][w["runs"][0].get<size_t>() - 1]["stats"]);
    EXPECT_GT(w["stats"]["system.sip0.cube0.pe0.gemm.stages"]["stages"].get<uint64_t>(), 0u)
        << w["stats"].dump();
  }
  EXPECT_EQ(next_run, result["runs"].size() + 1);
  std::istringstream lines(read_text(tmp / "o.jsonl"));
  unsigned records = 0;
  for (std::string line; std::getline(lines, line); ++records) {
    const nlohmann::json rec = nlohmann::json::parse(line);
    const auto id = rec["cmd_id"].get<uint64_t>();
    unsigned joined = 0;
    for (const auto& pt : points) {
      const auto& ids = pt["window"]["cmd_ids"];
      if (!ids.contains(rec["pe"].get<std::string>())) continue;
      const auto& range = ids[rec["pe"].get<std::string>()];
      if (id < range[0].get<uint64_t>() || id > range[1].get<uint64_t>()) continue;
      ++joined;
      EXPECT_GE(rec["t_start_ns"].get<double>(), pt["window"]["start_ns"].get<double>()) << line;
      EXPECT_LE(rec["t_end_ns"].get<double>(), pt["window"]["end_ns"].get<double>()) << line;
    }
    EXPECT_EQ(joined, 1u) << line;  // every record belongs to exactly one point
  }
  EXPECT_GT(records, 0u);
}

// A study whose every point is skipped simulates nothing: no VCD is written
// (SystemC writes none without a cycle), the run says so, and no SystemC
// warning or half-made file is left.
TEST(CliOutputs, NothingSimulatedWritesNoVcdAndSaysSo) {
  TempDir tmp;
  // The one variant asked for does not fit TCM: skipped (an all-reduce of
  // nothing but skipped points is a usage error instead).
  const RunResult r = run({"-t", kTiny, "-b", "gemm-sweep", "-p", "shapes=512x2048x512", "-p",
                           "variants=load_load", "--vcd", tmp / "x.vcd", "--json", tmp / "r.json"},
                          tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "no VCD written")) << r.err;
  EXPECT_FALSE(contains(r.err, "arning")) << r.err;
  EXPECT_FALSE(contains(r.out, "x.vcd")) << r.out;
  EXPECT_TRUE(fs::exists(tmp / "r.json"));
  for (const auto& e : fs::directory_iterator(tmp.path())) {
    const std::string name = e.path().filename();
    EXPECT_TRUE(name.rfind("x.", 0) != 0 && name.rfind(".kb-", 0) != 0) << name;
  }
}

// --csv writes the JSON result's points as a table: a row per point.
TEST(CliOutputs, CsvHasARowPerPoint) {
  TempDir tmp;
  const RunResult r = run({"-t", kTiny, "-b", "gemm-sweep", "-p", "shapes=32x64x32", "-q", "--json",
                           tmp / "r.json", "--csv", tmp / "r.csv"},
                          tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const nlohmann::json j = load_json(tmp / "r.json");
  const std::string csv = read_text(tmp / "r.csv");
  EXPECT_EQ(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')), j["points"].size() + 1);
  EXPECT_EQ(csv.rfind("K,M,N,", 0), 0u) << csv.substr(0, 80);
  EXPECT_TRUE(contains(csv, "load_ref")) << csv;
}

// An all-reduce's CSV is tidy: a row per point, its figures as columns, not
// its measurement window's per-PE command ids and counters.
TEST(CliOutputs, AllReduceCsvIsARowPerPointUnderAHundredColumns) {
  TempDir tmp;
  const RunResult r = run({"-t", kTiny, "-b", "allreduce", "-q", "-p", "algo=ring,binomial",
                           "--json", tmp / "r.json", "--csv", tmp / "r.csv"},
                          tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const nlohmann::json j = load_json(tmp / "r.json");
  const std::string csv = read_text(tmp / "r.csv");
  EXPECT_EQ(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')), j["points"].size() + 1);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_LT(std::count(header.begin(), header.end(), ','), 100) << header;
  EXPECT_TRUE(contains(header, "latency_ns")) << header;
  EXPECT_FALSE(contains(header, "window.stats")) << header;
}

// --vcd writes a GTKWave save file beside the VCD that shows every traced
// signal; a special file in its place is refused before the run.
TEST(CliOutputs, VcdComesWithAGtkwaveSaveFileOfItsSignals) {
  TempDir tmp;
  const RunResult r = run({"-t", kTiny, "-b", "gemm", "-q", "--vcd", tmp / "w.vcd"}, tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::string vcd = read_text(tmp / "w.vcd"), gtkw = read_text(tmp / "w.gtkw");
  EXPECT_TRUE(contains(gtkw, "[dumpfile] \"" + (tmp / "w.vcd") + "\"")) << gtkw;
  size_t vars = 0;
  for (size_t at = vcd.find("$var"); at != std::string::npos; at = vcd.find("$var", at + 1)) ++vars;
  size_t shown = 0;
  for (size_t at = gtkw.find("\nSystemC.system."); at != std::string::npos;
       at = gtkw.find("\nSystemC.system.", at + 1))
    ++shown;
  EXPECT_EQ(shown, vars);
  EXPECT_TRUE(contains(gtkw, "SystemC.system.sip0.cube0.pe0.dma.read_channel.busy")) << gtkw;
  fs::create_directory(tmp / "x.gtkw");
  const std::string e =
      expect_usage_error(run({"-t", kTiny, "-b", "gemm", "--vcd", tmp / "x.vcd"}, tmp));
  EXPECT_TRUE(contains(e, "x.gtkw")) << e;
  EXPECT_FALSE(fs::exists(tmp / "x.vcd"));
}

// --trace-scope keeps the records and power tracks of the modules it names;
// a scope that names none is a usage error before the run.
TEST(CliOutputs, TraceScopeKeepsOnlyTheNamedModules) {
  TempDir tmp;
  const RunResult r = run({"-t", kTiny, "-b", "allreduce", "-q", "--trace", tmp / "t.json",
                           "--trace-scope", "system.sip0.cube1*"},
                          tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  std::set<std::string> processes;
  const nlohmann::json trace = load_json(tmp / "t.json");
  for (const auto& e : trace["traceEvents"])
    if (e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
  ASSERT_FALSE(processes.empty());
  for (const std::string& p : processes) EXPECT_EQ(p.rfind("system.sip0.cube1", 0), 0u) << p;
  EXPECT_TRUE(processes.count("system.sip0.cube1 power"));
  const std::string e = expect_usage_error(
      run({"-t", kTiny, "-b", "gemm", "--trace", tmp / "u.json", "--trace-scope", "cube0"}, tmp));
  EXPECT_TRUE(contains(e, "matches no module")) << e;
  EXPECT_FALSE(fs::exists(tmp / "u.json"));
}

// The result records every knob's resolved value: file, defaults and --set.
TEST(CliOutputs, ResultEmbedsEveryResolvedKnob) {
  TempDir tmp;
  const RunResult r = run({"-t", kTiny, "-b", "gemm", "-q", "--json", tmp / "r.json", "--set",
                           "pe.hbm.model=banked", "--set", "pe.hbm.banked.preset=hbm2e"},
                          tmp);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const nlohmann::json knobs = load_json(tmp / "r.json")["topology"]["knobs"];
  EXPECT_EQ(knobs.size(), topology_schema().knobs().size());
  EXPECT_EQ(knobs["pe.hbm.model"], "banked");
  EXPECT_EQ(knobs["pe.hbm.banked.tFAW_ns"], "20");  // the hbm2e preset's
  EXPECT_EQ(knobs["cube.pes"], std::to_string(load_topology_file(kTiny).cube.pes));
}

// A --vcd-scope that matches nothing is a usage error, not an empty VCD.
TEST(CliErrors, VcdScopeMatchingNothingIsAUsageError) {
  TempDir tmp;
  for (const char* scope : {"system.sip0.cube99*", "sip0.cube0.pe0"}) {
    const RunResult r =
        run({"-t", kTiny, "-b", "gemm", "--vcd", tmp / "w.vcd", "--vcd-scope", scope}, tmp);
    const std::string e = expect_usage_error(r);
    EXPECT_TRUE(contains(e, "matches no module")) << e;
    EXPECT_TRUE(contains(e, scope)) << e;
    EXPECT_FALSE(fs::exists(tmp / "w.vcd"));
  }
}

}  // namespace
}  // namespace kb
