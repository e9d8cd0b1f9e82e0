// The sweep driver: a local -j2 run and the GNU parallel job file it emits
// give the same merged result; a failing point is reported, not fatal.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("kb_sweep_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

int sh(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

nlohmann::json without_commands(const fs::path& sweep_json) {
  std::ifstream in(sweep_json);
  nlohmann::json j = nlohmann::json::parse(in);
  for (auto& r : j["runs"]) r.erase("command");  // names the output directory
  return j;
}

// The bad point (bytes=0) passes the checks made before the sweep starts
// (the key exists, the topology loads) and fails in its own process.
std::string spec_text(bool with_bad_point, const std::string& bytes = "4096, 65536") {
  return "bench: dma\ntopology: " + test::source_path("topologies/tiny.yaml") +
         "\nparam: [src=hbm:0.3.1+0, dst=tcm:0.0.0+0]\ngrid:\n  set:\n"
         "    sip.cube_link.bandwidth_gbps: [64, 128]\n  param:\n    bytes: [" +
         bytes + (with_bad_point ? ", 0" : "") + "]\n";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(Sweep, LocalRunAndGnuParallelJobFileGiveTheSameMergedResult) {
  if (sh("command -v parallel > /dev/null") != 0) GTEST_SKIP() << "GNU parallel not installed";
  const fs::path dir = scratch("same");
  std::ofstream(dir / "spec.yaml") << spec_text(false);
  const std::string kb = KB_KERNBENCH_BIN, spec = (dir / "spec.yaml").string();
  ASSERT_EQ(sh(kb + " --sweep " + spec + " --out " + (dir / "local").string() + " -j 2 > " +
               (dir / "local.txt").string() + " 2>/dev/null"),
            0);
  ASSERT_EQ(sh(kb + " --sweep " + spec + " --out " + (dir / "par").string() + " --emit-jobs " +
               (dir / "jobs.txt").string() + " > /dev/null"),
            0);
  ASSERT_EQ(sh("parallel -j2 < " + (dir / "jobs.txt").string()), 0);
  ASSERT_EQ(sh(kb + " --sweep " + spec + " --out " + (dir / "par").string() + " --merge > " +
               (dir / "par.txt").string()),
            0);
  const nlohmann::json a = without_commands(dir / "local" / "sweep.json");
  const nlohmann::json b = without_commands(dir / "par" / "sweep.json");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a["total"], 4);
  EXPECT_EQ(a["failed"], 0);
  std::ifstream ta(dir / "local.txt"), tb(dir / "par.txt");
  const std::string text_a((std::istreambuf_iterator<char>(ta)), {});
  const std::string text_b((std::istreambuf_iterator<char>(tb)), {});
  EXPECT_EQ(text_a, text_b);
  EXPECT_NE(text_a.find("latency_ns"), std::string::npos) << text_a;
  // The Slurm script runs line SLURM_ARRAY_TASK_ID + 1 of the same job list.
  ASSERT_EQ(sh(kb + " --sweep " + spec + " --out " + (dir / "slurm").string() + " --emit-slurm " +
               (dir / "array.sh").string() + " > /dev/null"),
            0);
  std::ifstream script(dir / "array.sh");
  const std::string s((std::istreambuf_iterator<char>(script)), {});
  EXPECT_NE(s.find("#SBATCH --array=0-3"), std::string::npos) << s;
  ASSERT_EQ(sh("cd " + dir.string() + " && SLURM_ARRAY_TASK_ID=2 bash array.sh"), 0);
  EXPECT_TRUE(fs::exists(dir / "slurm" / "point_0002.json"));
}

// A shipped topology named in the spec (no path) runs from any directory, and
// its points' results are recognised as this sweep's by --merge.
TEST(Sweep, AShippedTopologyByNameRunsAndMerges) {
  const fs::path dir = scratch("byname");
  std::string spec = spec_text(false);
  spec.replace(spec.find(test::source_path("topologies/tiny.yaml")),
               test::source_path("topologies/tiny.yaml").size(), "tiny");
  std::ofstream(dir / "spec.yaml") << spec;
  const std::string kb = KB_KERNBENCH_BIN, out = (dir / "out").string();
  ASSERT_EQ(sh("cd / && " + kb + " --sweep " + (dir / "spec.yaml").string() + " --out " + out +
               " -j 2 > /dev/null 2>&1"),
            0);
  ASSERT_EQ(sh("cd / && " + kb + " --sweep " + (dir / "spec.yaml").string() + " --out " + out +
               " --merge > " + (dir / "merge.txt").string() + " 2>&1"),
            0)
      << slurp(dir / "merge.txt");
  const nlohmann::json j = without_commands(dir / "out" / "sweep.json");
  EXPECT_EQ(j["total"], 4);
  EXPECT_EQ(j["failed"], 0);
  // Grid values keep their types: numbers are numbers, not strings.
  for (const auto& r : j["runs"]) {
    EXPECT_TRUE(r["param"]["bytes"].is_number_integer()) << r["param"].dump();
    EXPECT_TRUE(r["set"]["sip.cube_link.bandwidth_gbps"].is_number()) << r["set"].dump();
  }
}

TEST(Sweep, AFailedPointIsReportedWithItsCommandAndDoesNotSinkTheSweep) {
  const fs::path dir = scratch("fail");
  std::ofstream(dir / "spec.yaml") << spec_text(true);
  const std::string kb = KB_KERNBENCH_BIN;
  const int rc = sh(kb + " --sweep " + (dir / "spec.yaml").string() + " --out " +
                    (dir / "out").string() + " > " + (dir / "out.txt").string() + " 2>/dev/null");
  EXPECT_EQ(rc, 3);
  const nlohmann::json j = without_commands(dir / "out" / "sweep.json");
  EXPECT_EQ(j["total"], 6);
  EXPECT_EQ(j["failed"], 2);
  std::ifstream t(dir / "out.txt");
  const std::string text((std::istreambuf_iterator<char>(t)), {});
  EXPECT_NE(text.find("failed: "), std::string::npos) << text;
  EXPECT_NE(text.find("bytes=0"), std::string::npos) << text;
  EXPECT_NE(text.find("must be > 0"), std::string::npos) << text;  // the child's stderr
}

TEST(Sweep, AKeyTypoOrBadKnobValueIsOneErrorBeforeAnyPointRuns) {
  const fs::path dir = scratch("typo");
  const std::string kb = KB_KERNBENCH_BIN;
  std::string spec = spec_text(false);
  spec.replace(spec.find("bytes: ["), 5, "byts");
  std::ofstream(dir / "typo.yaml") << spec;
  std::string bad = spec_text(false);
  bad.replace(bad.find("64, 128"), 7, "64, -1");
  std::ofstream(dir / "bad.yaml") << bad;
  for (const char* name : {"typo", "bad"}) {
    const fs::path out = dir / (std::string(name) + "_out");
    EXPECT_EQ(sh(kb + " --sweep " + (dir / (std::string(name) + ".yaml")).string() + " --out " +
                 out.string() + " > /dev/null 2> " + (dir / "err.txt").string()),
              2)
        << name;
    const std::string err = slurp(dir / "err.txt");
    EXPECT_NE(err.find(": point "), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(out / "point_0000.json")) << name;
  }
  EXPECT_NE(slurp(dir / "err.txt").find("must be > 0"), std::string::npos);
}

// A columns entry that is not a field of the bench's points is one error
// naming where it is in the spec, made before anything else in every mode:
// no point's process starts (no result, no log) and no job file is written.
// A metric of the whole result is named as such.
TEST(Sweep, ABadColumnIsRefusedBeforeAnyPointRuns) {
  test::TempDir tmp;
  // spec_text's eight lines, then the columns.
  test::write_text(tmp / "spec.yaml", spec_text(false) + "columns: [latency_ns, latncy_ns]\n");
  test::write_text(tmp / "metric.yaml", "bench: gemm-sweep\ntopology: " + test::kTiny +
                                            "\ncolumns: [window_ns, max_mac_util_gap_pp]\n");
  const std::string out = tmp / "out";
  for (const std::vector<std::string>& mode : {std::vector<std::string>{"-j", "2"},
                                               {"--resume"},
                                               {"--merge"},
                                               {"--emit-jobs", tmp / "jobs.txt"}}) {
    std::vector<std::string> args = {"--sweep", tmp / "spec.yaml", "--out", out};
    args.insert(args.end(), mode.begin(), mode.end());
    const std::string err = test::expect_usage_error(test::run_kernbench(args, tmp));
    EXPECT_TRUE(test::contains(err, tmp / "spec.yaml" +
                                        ":9:23: columns: bench 'dma' has no point field "
                                        "'latncy_ns'; did you mean 'latency_ns'?"))
        << mode[0] << ": " << err;
  }
  EXPECT_FALSE(fs::exists(tmp / "jobs.txt"));
  // Nothing ran: the output directory was not even made.
  EXPECT_FALSE(fs::exists(out));
  const std::string err = test::expect_usage_error(
      test::run_kernbench({"--sweep", tmp / "metric.yaml", "--out", out}, tmp));
  EXPECT_TRUE(test::contains(err,
                             "metric.yaml:3:22: columns: bench 'gemm-sweep' has no point "
                             "field 'max_mac_util_gap_pp'; it is a metric of the whole "
                             "result"))
      << err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(Sweep, MergeAndResumeNeverTakeAnotherSweepsResults) {
  const fs::path dir = scratch("stale");
  const std::string kb = KB_KERNBENCH_BIN;
  std::ofstream(dir / "a.yaml") << spec_text(false, "4096");
  std::ofstream(dir / "b.yaml") << spec_text(false, "8192");
  const std::string out = (dir / "out").string();
  ASSERT_EQ(sh(kb + " --sweep " + (dir / "a.yaml").string() + " --out " + out + " -q"), 0);
  // B has as many points as A, in the same files: none of A's results is B's.
  const std::string a_merged = slurp(dir / "out" / "sweep.json");
  EXPECT_EQ(sh(kb + " --sweep " + (dir / "b.yaml").string() + " --out " + out + " --merge > " +
               (dir / "merge.txt").string() + " 2> " + (dir / "merge_err.txt").string()),
            3);
  const std::string table = slurp(dir / "merge.txt");
  EXPECT_NE(table.find("STALE"), std::string::npos);
  EXPECT_NE(table.find("bytes=4096, not 8192"), std::string::npos) << table;
  // The failed merge leaves A's complete sweep.json as it was, and says so.
  EXPECT_EQ(slurp(dir / "out" / "sweep.json"), a_merged);
  EXPECT_NE(slurp(dir / "merge_err.txt").find("was not replaced: it holds the merge of another"),
            std::string::npos)
      << slurp(dir / "merge_err.txt");
  nlohmann::json j;
  // --resume reruns the stale points and keeps the good ones.
  ASSERT_EQ(sh(kb + " --sweep " + (dir / "b.yaml").string() + " --out " + out + " --resume -q"), 0);
  j = without_commands(dir / "out" / "sweep.json");
  EXPECT_EQ(j["failed"], 0);
  const auto before = fs::last_write_time(dir / "out" / "point_0000.json");
  ASSERT_EQ(sh(kb + " --sweep " + (dir / "b.yaml").string() + " --out " + out + " --resume -q"), 0);
  EXPECT_EQ(fs::last_write_time(dir / "out" / "point_0000.json"), before);  // not rerun
  // Merging an empty directory is a usage error, not a sweep of failures.
  EXPECT_EQ(sh(kb + " --sweep " + (dir / "b.yaml").string() + " --out " + (dir / "empty").string() +
               " --merge 2> /dev/null"),
            2);
}

// --merge tells a point that never ran (neither a result nor a log) from one
// that failed (a log but no result): MISSING, and --resume runs it.
TEST(Sweep, MergeTellsAMissingPointFromAFailedOne) {
  const fs::path dir = scratch("missing");
  const std::string kb = KB_KERNBENCH_BIN;
  std::ofstream(dir / "a.yaml") << spec_text(false, "4096");
  const std::string spec = (dir / "a.yaml").string(), out = (dir / "out").string();
  ASSERT_EQ(sh(kb + " --sweep " + spec + " --out " + out + " -q"), 0);
  fs::remove(dir / "out" / "point_0000.json");
  fs::remove(dir / "out" / "point_0000.log");
  fs::remove(dir / "out" / "point_0001.json");  // its log stays: it ran and failed
  EXPECT_EQ(sh(kb + " --sweep " + spec + " --out " + out + " --merge > " +
               (dir / "merge.txt").string() + " 2> " + (dir / "err.txt").string()),
            3);
  const std::string table = slurp(dir / "merge.txt");
  EXPECT_NE(table.find("MISSING"), std::string::npos) << table;
  EXPECT_NE(table.find("FAILED"), std::string::npos) << table;
  EXPECT_NE(slurp(dir / "err.txt").find("1 never run"), std::string::npos)
      << slurp(dir / "err.txt");
  // The incomplete merge keeps the complete sweep.json of the first run.
  EXPECT_NE(slurp(dir / "err.txt").find("it holds a complete merge of this sweep"),
            std::string::npos)
      << slurp(dir / "err.txt");
  EXPECT_EQ(without_commands(dir / "out" / "sweep.json")["failed"], 0);
  // Without it, the incomplete merge is written.
  fs::remove(dir / "out" / "sweep.json");
  EXPECT_EQ(sh(kb + " --sweep " + spec + " --out " + out + " --merge > /dev/null 2>&1"), 3);
  const nlohmann::json j = without_commands(dir / "out" / "sweep.json");
  EXPECT_EQ(j["missing"], 1);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["runs"][0]["status"], "missing");
  EXPECT_EQ(j["runs"][1]["status"], "failed");
  ASSERT_EQ(sh(kb + " --sweep " + spec + " --out " + out + " --resume -q"), 0);
  EXPECT_EQ(without_commands(dir / "out" / "sweep.json")["missing"], 0);
}

}  // namespace
}  // namespace kb

namespace kb {
namespace {

// Slurm resources come from the spec's slurm: and --slurm (which wins); an
// unknown resource or a value with a shell character is exit 2.
TEST(Sweep, SlurmResourcesFromTheSpecAndTheCommandLine) {
  const fs::path dir = scratch("slurm_res");
  std::ofstream(dir / "spec.yaml")
      << spec_text(false) << "slurm: {time: \"00:30:00\", partition: cpu}\n";
  const std::string kb = KB_KERNBENCH_BIN, spec = (dir / "spec.yaml").string();
  const std::string base = kb + " --sweep " + spec + " --out " + (dir / "out").string() +
                           " --emit-slurm " + (dir / "a.sh").string();
  ASSERT_EQ(sh(base + " --slurm mem=4G --slurm partition=gpu > /dev/null"), 0);
  const std::string s = slurp(dir / "a.sh");
  for (const char* line : {"#SBATCH --time=00:30:00\n", "#SBATCH --partition=gpu\n",
                           "#SBATCH --mem=4G\n", "#SBATCH --cpus-per-task=1\n"})
    EXPECT_NE(s.find(line), std::string::npos) << line << s;
  EXPECT_EQ(s.find("--partition=cpu"), std::string::npos) << s;
  EXPECT_EQ(sh(base + " --slurm memory=4G > /dev/null 2>&1"), 2);
  EXPECT_EQ(sh(base + " --slurm 'time=1:00; rm' > /dev/null 2>&1"), 2);
  std::ofstream(dir / "bad.yaml") << spec_text(false) << "slurm: {tmie: \"1:00:00\"}\n";
  EXPECT_EQ(
      sh(kb + " --sweep " + (dir / "bad.yaml").string() + " --out " + (dir / "o2").string() +
         " --emit-slurm " + (dir / "b.sh").string() + " > " + (dir / "bad.txt").string() + " 2>&1"),
      2);
  EXPECT_NE(slurp(dir / "bad.txt").find("did you mean 'time'"), std::string::npos)
      << slurp(dir / "bad.txt");
}

}  // namespace
}  // namespace kb

namespace kb {
namespace {

// The processes whose parent is `parent` (from /proc/PID/stat).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = slurp(e.path() / "stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

// A point ended by a signal (here SIGKILL, which it cannot report itself)
// says which in its log, and so in the merged result and the table.
TEST(Sweep, APointEndedByASignalNamesIt) {
  const fs::path dir = scratch("killed");
  std::ofstream(dir / "slow.yaml") << "bench: gqa-sweep\nparam: [S_kv=131072]\ngrid:\n  param: "
                                      "{case: [1, 3]}\n";
  const std::string bin = KB_KERNBENCH_BIN, spec = (dir / "slow.yaml").string(),
                    out = (dir / "out").string();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl(bin.c_str(), bin.c_str(), "-q", "--sweep", spec.c_str(), "--out", out.c_str(), "-j", "1",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  std::vector<pid_t> kids;
  for (int i = 0; i < 1000 && kids.empty(); ++i) {
    kids = children_of(pid);
    if (kids.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(kids.empty()) << "the sweep started no point";
  kill(kids.front(), SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3);
  const nlohmann::json j = without_commands(dir / "out" / "sweep.json");
  EXPECT_EQ(j["runs"][0]["status"], "failed");
  EXPECT_NE(j["runs"][0]["log_tail"].get<std::string>().find(
                "point 0 ended by signal SIGKILL (exit 137)"),
            std::string::npos)
      << j["runs"][0].dump();
}

}  // namespace
}  // namespace kb
