// Sweep specs: parsing, errors with file:line:column, grid expansion order
// and the command line of a point.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "models/common/errors.h"
#include "platform/bench/bench.h"
#include "platform/sweep/sweep_runner.h"
#include "platform/sweep/sweep_spec.h"

namespace kb {
namespace {

std::string write_spec(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("kb_sweep_spec_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << text;
  return path.string();
}

TEST(SweepSpec, ExpandsTheGridLastAxisFastest) {
  const SweepSpec s = load_sweep_spec(write_spec(R"(bench: gemm
topology: topologies/tiny.yaml
set: [pe.dma.setup_ns=3]
param: [variant=load_ref]
data: true
grid:
  set:
    sip.cube_link.bandwidth_gbps: [64, 128]
  param:
    M: [32, 64, 96]
columns: [window_ns]
)"));
  EXPECT_EQ(s.bench, "gemm");
  EXPECT_TRUE(s.data);
  const auto pts = s.expand();
  ASSERT_EQ(pts.size(), 6u);
  EXPECT_EQ(pts[0].sets[0].second, "64");
  EXPECT_EQ(pts[0].params[0].second, "32");
  EXPECT_EQ(pts[1].params[0].second, "64");
  EXPECT_EQ(pts[3].sets[0].second, "128");
  EXPECT_EQ(pts[3].params[0].second, "32");
  EXPECT_EQ(pts[5].index, 5u);
  const auto argv = s.command("kb", pts[4], "/tmp/p.json");
  const std::vector<std::string> want = {"kb",         "--quiet",
                                         "--bench",    "gemm",
                                         "--topology", "topologies/tiny.yaml",
                                         "--set",      "pe.dma.setup_ns=3",
                                         "--set",      "sip.cube_link.bandwidth_gbps=128",
                                         "--param",    "variant=load_ref",
                                         "--param",    "M=64",
                                         "--data",     "--json",
                                         "/tmp/p.json"};
  EXPECT_EQ(argv, want);
}

// Each columns entry keeps where it is, for the error that names it.
TEST(SweepSpec, ColumnsKeepWhereEachEntryIs) {
  const std::string path = write_spec("bench: llm\ncolumns:\n  - batch\n  - tokens_per_s\n");
  const SweepSpec s = load_sweep_spec(path);
  EXPECT_EQ(s.column_at, (std::vector<std::string>{path + ":3:5", path + ":4:5"}));
  const std::string one = write_spec("bench: llm\ncolumns: batch\n");
  EXPECT_EQ(load_sweep_spec(one).column_at, std::vector<std::string>{one + ":2:10"});
}

TEST(SweepSpec, NoGridIsOnePoint) {
  EXPECT_EQ(load_sweep_spec(write_spec("bench: probe\n")).expand().size(), 1u);
}

TEST(SweepSpec, ErrorsNameFileLineColumnAndKey) {
  const std::string path = write_spec("bench: gemm\ngrid:\n  parma:\n    M: [1]\n");
  try {
    load_sweep_spec(path);
    FAIL();
  } catch (const ConfigError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find(path + ":3:3"), std::string::npos) << w;
    EXPECT_NE(w.find("did you mean 'param'"), std::string::npos) << w;
  }
  try {
    load_sweep_spec(write_spec("bench: gemm\nbenhc: x\n"));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'bench'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_sweep_spec(write_spec("topology: x\n")), ConfigError);  // no bench
  EXPECT_THROW(load_sweep_spec("/nonexistent/spec.yaml"), ConfigError);
}

// A column that names a metric of the whole result (not a field of its
// points) says so and lists the point fields that start alike, instead of
// suggesting an unrelated field; a misspelt point field gets its nearest.
TEST(SweepColumns, AMetricIsNotAPointFieldAndTheErrorSaysWhichFieldsAreLikeIt) {
  const nlohmann::json merged = {
      {"runs",
       {{{"status", "ok"},
         {"metrics", {{"latency_per_token_ns", 1.0}, {"tokens_per_s", 2.0}}},
         {"points",
          {{{"latency_ns", 1.0}, {"latency_over_bound", 1.5}, {"tokens_per_s", 2.0}}}}}}}};
  SweepSpec spec;
  spec.source = "s.yaml";
  spec.columns = {"latency_per_token_ns"};
  try {
    check_sweep_columns(spec, merged);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("a metric of the whole result"), std::string::npos) << m;
    EXPECT_NE(m.find("point fields like it: latency_ns, latency_over_bound"), std::string::npos)
        << m;
  }
  spec.columns = {"tokens_per_sec"};
  try {
    check_sweep_columns(spec, merged);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'tokens_per_s'"), std::string::npos)
        << e.what();
  }
  spec.columns = {"latency_ns", "tokens_per_s"};
  EXPECT_NO_THROW(check_sweep_columns(spec, merged));
}

// A bench that declares the fields of its points and metrics, as the llm
// bench's results above carry them.
class ColumnsTestBench : public Bench {
 public:
  explicit ColumnsTestBench(bool declares) : declares_(declares) {}
  std::string name() const override { return "llm-like"; }
  std::string description() const override { return "declared fields only"; }
  std::vector<std::string> point_fields() const override {
    if (!declares_) return {};
    return {"tokens_per_s", "latency_over_bound", "latency_ns"};
  }
  std::vector<std::string> metric_fields() const override {
    return {"latency_per_token_ns", "tokens_per_s"};
  }
  BenchResult run(BenchContext&) override { return {}; }

 private:
  bool declares_;
};

// The same errors before any point runs, from the bench's declared fields,
// each naming the entry's file, line and column.
TEST(SweepColumns, TheDeclaredFieldsGiveTheSameErrorsBeforeAnyPointRuns) {
  const std::string path =
      write_spec("bench: llm-like\ncolumns: [latency_ns, latency_per_token_ns]\n");
  SweepSpec spec = load_sweep_spec(path);
  const ColumnsTestBench bench(true);
  try {
    check_sweep_columns(spec, bench);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(path + ":2:23: columns: bench 'llm-like' has no point field "
                             "'latency_per_token_ns'",
                      0),
              0u)
        << m;
    EXPECT_NE(m.find("a metric of the whole result"), std::string::npos) << m;
    EXPECT_NE(m.find("point fields like it: latency_ns, latency_over_bound"), std::string::npos)
        << m;
  }
  spec.columns = {"tokens_per_sec"};
  try {
    check_sweep_columns(spec, bench);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'tokens_per_s'"), std::string::npos)
        << e.what();
  }
  // Nothing near: the error lists the fields there are.
  spec.columns = {"zzz"};
  try {
    check_sweep_columns(spec, bench);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "(its points' fields: tokens_per_s, latency_over_bound, latency_ns)"),
              std::string::npos)
        << e.what();
  }
  spec.columns = {"latency_ns", "tokens_per_s"};
  EXPECT_TRUE(check_sweep_columns(spec, bench));
  // A bench that declares nothing is left to the check after the points ran.
  spec.columns = {"anything"};
  EXPECT_FALSE(check_sweep_columns(spec, ColumnsTestBench(false)));
}

}  // namespace
}  // namespace kb
