#include "platform/bench/milestone_bench.h"

#include "models/common/errors.h"
#include "platform/bench/allreduce_bench.h"
#include "platform/bench/gemm_bench.h"
#include "platform/bench/gqa_decode_bench.h"
#include "platform/bench/gqa_long_bench.h"
#include "platform/bench/llm_bench.h"
#include "platform/bench/probe_bench.h"
#include "platform/platform.h"

namespace kb {

namespace {

// Runs `bench` with `overrides` on the study's platform and appends its
// points (tagged with `study`) and tables to `out`.
BenchResult run_study(BenchContext& ctx, Bench& bench, const std::vector<std::string>& overrides,
                      const std::string& study, BenchResult& out) {
  BenchParams params(bench.name(), bench.params(), overrides);
  BenchContext sub{
      ctx.platform,      params,   ctx.data_mode, ctx.topology_file, ctx.topology_overrides,
      ctx.kernbench_exe, ctx.quiet};
  BenchResult r = bench.run(sub);
  for (auto pt : r.points) {
    pt["study"] = study;
    out.points.push_back(pt);
  }
  for (auto& t : r.tables) out.tables.push_back(t);
  return r;
}

}  // namespace

// Every study's points, each tagged with its study (run_study).
std::vector<std::string> MilestoneBench::point_fields() const {
  std::vector<std::string> f = {"study"};
  for (const std::vector<std::string>& study :
       {ProbeBench().point_fields(), GemmSweepBench().point_fields(),
        GqaDecodeBench().point_fields(), GqaSweepBench().point_fields(),
        AllReduceBench().point_fields(), LlmBench().point_fields()})
    f = with_fields(f, study);
  return f;
}

// Each study's metrics (or points), by study.
std::vector<std::string> MilestoneBench::metric_fields() const {
  return {"probe", "gemm", "gqa_decode", "gqa_long", "allreduce", "llm"};
}

BenchResult MilestoneBench::run(BenchContext& ctx) {
  BenchResult out;
  // probe at both standard sizes, without the contention points.
  ProbeBench probe;
  out.metrics["probe"] = run_study(ctx, probe, {"contention=0"}, "probe", out).metrics;
  // gemm: the 32x3072x32 study point in each variant.
  GemmSweepBench gemm;
  out.metrics["gemm"] = run_study(ctx, gemm, {"shapes=32x3072x32"}, "gemm", out).metrics;
  // gqa-decode: one KV-head group, S_kv = 1024, every variant.
  GqaDecodeBench gqa;
  out.metrics["gqa_decode"] =
      run_study(ctx, gqa, {"variant=opt1,opt2,opt3"}, "gqa-decode", out).points;
  // gqa-long: one Llama-70B KV head on up to 8 cubes x all PEs at S_kv = 8192, in
  // the two PE-SP cases (Cube-Repl and Cube-SP).
  GqaSweepBench gqa_long;
  out.metrics["gqa_long"] =
      run_study(ctx, gqa_long, {"case=3,4", "S_kv=8192", "C=0"}, "gqa-long", out).points;
  // allreduce: the topology's natural algorithm, 96 KiB per PE, TCM buffers.
  AllReduceBench allreduce;
  out.metrics["allreduce"] = run_study(ctx, allreduce, {}, "allreduce", out).metrics;
  // llm: one layer of Llama-3-8B (and its LM head), batch 1, context 1023, over
  // every PE; on a platform too small for it, the reason instead.
  LlmBench llm;
  // Its millions of engine stages stay out of the op log (it reads none).
  const bool logging = ctx.platform.op_log_enabled();
  ctx.platform.set_op_log_enabled(false);
  try {
    out.metrics["llm"] =
        run_study(ctx, llm, {"model=llama3_8b", "layers=1", "context=1023"}, "llm", out).metrics;
  } catch (const UsageError& e) {
    out.metrics["llm"] = {{"skipped", e.what()}};
  }
  ctx.platform.set_op_log_enabled(logging);
  return out;
}

}  // namespace kb
