// The benches the product ships. Later capabilities register theirs here.
#include "platform/bench/allreduce_bench.h"
#include "platform/bench/bench.h"
#include "platform/bench/dma_bench.h"
#include "platform/bench/fidelity_bench.h"
#include "platform/bench/gemm_bench.h"
#include "platform/bench/gemm_strategies.h"
#include "platform/bench/gqa_decode_bench.h"
#include "platform/bench/gqa_long_bench.h"
#include "platform/bench/gqa_prefill_bench.h"
#include "platform/bench/gqa_short_bench.h"
#include "platform/bench/llm_bench.h"
#include "platform/bench/math_bench.h"
#include "platform/bench/milestone_bench.h"
#include "platform/bench/probe_bench.h"
#include "platform/bench/simspeed_bench.h"

namespace kb {

BenchRegistry BenchRegistry::with_builtin_benches() {
  BenchRegistry r;
  r.add(std::make_unique<ProbeBench>());
  r.add(std::make_unique<DmaBench>());
  r.add(std::make_unique<GemmBench>());
  r.add(std::make_unique<GemmSweepBench>());
  r.add(std::make_unique<GqaDecodeBench>());
  r.add(std::make_unique<GqaLongBench>());
  r.add(std::make_unique<GqaSweepBench>());
  r.add(std::make_unique<GqaPrefillBench>());
  r.add(std::make_unique<GqaShortBench>());
  r.add(std::make_unique<AllReduceBench>());
  r.add(std::make_unique<CclSweepBench>());
  r.add(std::make_unique<SimSpeedBench>());
  r.add(std::make_unique<FidelityBench>());
  r.add(std::make_unique<GemmStrategiesBench>());
  r.add(std::make_unique<MathBench>());
  r.add(std::make_unique<LlmBench>());
  r.add(std::make_unique<MilestoneBench>());
  return r;
}

}  // namespace kb
