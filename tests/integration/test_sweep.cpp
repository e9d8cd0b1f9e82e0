// The sweep driver: a local -j2 run and the GNU parallel job file it emits
// give the same merged result; a failing point is reported, not fatal.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

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

std::string spec_text(bool with_bad_point) {
  return "bench: dma\ntopology: " + test::source_path("topologies/tiny.yaml") +
         "\nparam: [src=hbm:0.3.1+0, dst=tcm:0.0.0+0]\ngrid:\n  set:\n"
         "    sip.cube_link.bandwidth_gbps: [64, 128" +
         (with_bad_point ? ", -1" : "") + "]\n  param:\n    bytes: [4096, 65536]\n";
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
  EXPECT_NE(text.find("bandwidth_gbps=-1"), std::string::npos) << text;
  EXPECT_NE(text.find("must be > 0"), std::string::npos) << text;  // the child's stderr
}

}  // namespace
}  // namespace kb
