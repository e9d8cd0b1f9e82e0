#include "platform/bench/milestone_bench.h"

#include "platform/bench/gemm_bench.h"
#include "platform/bench/gqa_decode_bench.h"
#include "platform/bench/probe_bench.h"

namespace kb {

BenchResult MilestoneBench::run(BenchContext& ctx) {
  BenchResult out;
  // probe at both standard sizes, without the contention points.
  ProbeBench probe;
  BenchParams probe_params("probe", probe.params(), {"contention=0"});
  BenchContext probe_ctx{ctx.platform, probe_params, ctx.data_mode};
  BenchResult r = probe.run(probe_ctx);
  out.metrics["probe"] = r.metrics;
  for (auto& pt : r.points) {
    pt["study"] = "probe";
    out.points.push_back(pt);
  }
  for (auto& t : r.tables) out.tables.push_back(t);

  // gemm: the 32x3072x32 study point in each variant.
  GemmSweepBench gemm;
  BenchParams gemm_params("gemm-sweep", gemm.params(), {"shapes=32x3072x32"});
  BenchContext gemm_ctx{ctx.platform, gemm_params, ctx.data_mode};
  BenchResult g = gemm.run(gemm_ctx);
  out.metrics["gemm"] = g.metrics;
  for (auto& pt : g.points) {
    pt["study"] = "gemm";
    out.points.push_back(pt);
  }
  for (auto& t : g.tables) out.tables.push_back(t);

  // gqa-decode: one KV-head group, S_kv = 1024, every variant.
  GqaDecodeBench gqa;
  BenchParams gqa_params("gqa-decode", gqa.params(), {"variant=opt1,opt2,opt3"});
  BenchContext gqa_ctx{ctx.platform, gqa_params, ctx.data_mode};
  BenchResult q = gqa.run(gqa_ctx);
  out.metrics["gqa_decode"] = q.points;
  for (auto& pt : q.points) {
    pt["study"] = "gqa-decode";
    out.points.push_back(pt);
  }
  for (auto& t : q.tables) out.tables.push_back(t);
  return out;
}

}  // namespace kb
