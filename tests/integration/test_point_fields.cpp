// Every shipped bench declares the fields of its points (Bench::point_fields)
// and of its metrics (Bench::metric_fields): a sweep checks its `columns:`
// against them before any point runs (docs/cli.md, Sweeps), so a declaration
// that drifts from what the bench fills in would refuse a good column or let a
// bad one through. Each bench runs a few tiny points here: every field its
// rows carry (sweep_rows, the table's own reading of a result) must be
// declared, every metric must be a declared field, and every declared field
// must turn up in one of the runs unless the bench's row says why it may not.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "platform/bench/bench.h"
#include "platform/sweep/sweep_runner.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace point_fields_test {

using test::TempDir;

// One bench's tiny runs: each the arguments after `-t tiny.yaml -b BENCH`,
// with "@" standing for the test's scratch directory.
struct FieldRuns {
  std::string bench;
  std::vector<std::vector<std::string>> runs;
  // Declared fields (of points or metrics) these runs need not reach: each
  // is filled in only in a case a tiny run does not make (a bug, a model
  // that misses, minutes of simulation).
  std::set<std::string> may_miss;
  // False when the declaration is others' (milestone: its studies'), each
  // checked in its own row: only declared ⊇ carried is checked.
  bool check_reach = true;
};

// tests/integration/test_llm.cpp's models: 3 layers of no power of two on 6
// PEs, and on tiny.yaml's 8 PEs one the halving all-reduce and the sharded
// stream run on.
std::vector<std::string> llm_six(std::vector<std::string> more) {
  std::vector<std::string> a = {"-p", "model=llama3_8b", "-p", "model.hidden=120",
                                "-p", "model.heads=6",   "-p", "model.kv_heads=3",
                                "-p", "model.d_head=20", "-p", "model.ffn=200",
                                "-p", "model.vocab=250", "-p", "ranks=6",
                                "-p", "batch=2",         "-p", "context=16"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

std::vector<std::string> llm_eight(std::vector<std::string> more) {
  std::vector<std::string> a = {
      "-p", "model=llama3_8b",  "-p", "model.hidden=132", "-p", "model.heads=6",
      "-p", "model.kv_heads=2", "-p", "model.d_head=22",  "-p", "model.ffn=200",
      "-p", "model.vocab=250",  "-p", "ranks=8",          "-p", "batch=2"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

const std::vector<FieldRuns>& field_runs() {
  static const std::vector<FieldRuns> rows = {
      {"probe", {{"-p", "sizes=4096", "-p", "patterns=1"}}, {}},
      {"dma", {{"-p", "bytes=4096"}}, {}},
      {"gemm", {{"-p", "M=32", "-p", "K=128", "-p", "N=32", "--data"}}, {}},
      // The large shape does not fit the TCM pre-loaded: a skipped point.
      {"gemm-sweep",
       {{"-p", "shapes=32x128x32,2048x2048x2048", "-p", "variants=load_load", "--data"}},
       {}},
      {"gemm-strategies",
       {{"-p", "shapes=32x128x32,2048x2048x2048", "-p", "variants=load_ref"}},
       {}},
      {"gqa-decode", {{"-p", "S_kv=128", "--data"}}, {}},
      {"gqa-long",
       {{"-p", "S_kv=512", "-p", "C=1", "-p", "kv_heads=4", "-p", "heads=8", "--data"}},
       {}},
      {"gqa-sweep", {{"-p", "S_kv=512", "-p", "C=4", "-p", "case=4", "--data"}}, {}},
      {"gqa-prefill", {{"-p", "C=4", "-p", "S=512", "-p", "T_q=64", "--data"}}, {}},
      {"gqa-short",
       {{"-p", "S_kv=256", "-p", "kv_per_cube=2", "-p", "kv_heads=4", "-p", "heads=8", "--data"}},
       {}},
      // 4 bytes per PE are fewer elements than PEs: a skipped point. The
      // sums are right (no wrong_pes, first_wrong) and the model may hold.
      {"allreduce",
       {{"-p", "algo=ring", "-p", "bytes_per_pe=4KiB,4", "--data"}},
       {"wrong_pes", "first_wrong", "model_gap"}},
      {"ccl-sweep",
       {{"-p", "algo=ring", "-p", "buffer=tcm", "-p", "bytes_per_pe=4KiB,4", "-p",
         "topologies=mesh", "--data"}},
       {"wrong_pes", "first_wrong", "model_gap"}},
      // Its llm runs take minutes of Llama-3-70B.
      {"simspeed",
       {{"-p", "pingpongs=1000", "-p", "gemm_k=64,128", "-p", "elaborate_limit=0", "-p",
         "gqa_s_kv=1024", "-p", "sweep_spec=@/one_point.yaml"}},
       {"llm_decode", "llm_token"}},
      {"fidelity", {{"-p", "quick=1", "-p", "only=gemm"}}, {}},
      {"math", {{"--data"}}, {}},
      // Decode with fewer layers than the model's, in data mode; a pipeline;
      // the sharded stream; a prefill; a model of 9 layers, extended. The
      // per-phase model may hold (no model_gap).
      {"llm",
       {llm_six({"-p", "model.layers=3", "-p", "layers=2", "--data"}),
        llm_six({"-p", "model.layers=3", "-p", "mapping=pp", "-p", "stages=2"}),
        llm_eight({"-p", "model.layers=3", "-p", "context=16", "-p", "residual=sharded"}),
        llm_eight({"-p", "model.layers=3", "-p", "phase=prefill", "-p", "prompt=16"}),
        llm_eight({"-p", "model.layers=9", "-p", "context=16"})},
       {"model_gap"}},
      {"milestone", {{}}, {}, false},
  };
  return rows;
}

void PrintTo(const FieldRuns& r, std::ostream* os) {
  *os << r.bench;
}

std::string joined(const std::set<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

class SweepPointFields : public ::testing::TestWithParam<FieldRuns> {};

TEST_P(SweepPointFields, EveryFieldAPointCarriesIsDeclaredAndEveryDeclaredOneIsReached) {
  const FieldRuns& row = GetParam();
  const BenchRegistry registry = BenchRegistry::with_builtin_benches();
  const Bench& bench = registry.find(row.bench);
  const std::vector<std::string> point = bench.point_fields(), metric = bench.metric_fields();
  ASSERT_FALSE(point.empty()) << row.bench << " declares no point fields";
  const std::set<std::string> points(point.begin(), point.end());
  std::set<std::string> declared = points;
  declared.insert(metric.begin(), metric.end());
  for (const std::string& f : row.may_miss)
    EXPECT_EQ(declared.count(f), 1u) << "may_miss names '" << f << "', which is not declared";

  TempDir tmp;
  test::write_text(tmp / "one_point.yaml", "bench: dma\ntopology: " + test::kTiny + "\n");
  // Each field a run carried that is not declared, with the first run that carried it.
  std::map<std::string, std::string> undeclared;
  std::set<std::string> in_points, in_metrics;
  for (std::vector<std::string> args : row.runs) {
    for (std::string& a : args)
      if (a.find('@') != std::string::npos) a.replace(a.find('@'), 1, tmp.path());
    args.insert(args.begin(), {"-t", test::kTiny, "-b", row.bench, "-q", "--json", tmp / "r.json"});
    const test::RunResult r = test::run_kernbench(args, tmp);
    ASSERT_EQ(r.exit_code, 0) << test::describe(r);
    const nlohmann::json result = nlohmann::json::parse(test::read_text(tmp / "r.json"));
    std::string run;
    for (const std::string& a : args) run += " " + a;
    for (const nlohmann::json& pt : sweep_rows(result))
      for (const auto& [field, value] : pt.items()) {
        if (!points.count(field))
          undeclared.emplace("point field '" + field + "', which point_fields() does not declare",
                             run);
        in_points.insert(field);
      }
    if (result.at("points").empty()) continue;  // the metrics were the row
    for (const auto& [field, value] : result.at("metrics").items()) {
      if (!declared.count(field))
        undeclared.emplace(
            "metric '" + field + "', which neither point_fields() nor metric_fields() declares",
            run);
      in_metrics.insert(field);
    }
  }
  for (const auto& [what, run] : undeclared)
    ADD_FAILURE() << row.bench << " carries the " << what << " (run:" << run << ")";
  if (!row.check_reach) return;
  std::set<std::string> missed;
  for (const std::string& f : declared) {
    const bool metric_only = !points.count(f);
    if (!in_points.count(f) && !(metric_only && in_metrics.count(f)) && !row.may_miss.count(f))
      missed.insert(f);
  }
  EXPECT_TRUE(missed.empty()) << row.bench
                              << " declares fields none of its runs carries: " << joined(missed)
                              << " (no longer filled in? else add a run that reaches them, or "
                                 "say in may_miss why none can)";
}

INSTANTIATE_TEST_SUITE_P(Benches, SweepPointFields, ::testing::ValuesIn(field_runs()),
                         [](const auto& info) {
                           std::string name = info.param.bench;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// A bench registered without a row above would have no check at all.
TEST(SweepPointFieldsCoverage, EveryShippedBenchHasTinyRuns) {
  std::set<std::string> have;
  for (const FieldRuns& r : field_runs()) have.insert(r.bench);
  const BenchRegistry registry = BenchRegistry::with_builtin_benches();
  for (const Bench* b : registry.all())
    EXPECT_EQ(have.count(b->name()), 1u) << b->name() << " has no row in field_runs()";
}

}  // namespace point_fields_test
}  // namespace kb
