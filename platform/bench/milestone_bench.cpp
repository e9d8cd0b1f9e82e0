#include "platform/bench/milestone_bench.h"

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
  return out;
}

}  // namespace kb
