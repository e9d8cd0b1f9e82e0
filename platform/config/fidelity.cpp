#include "platform/config/fidelity.h"

#include "models/common/errors.h"
#include "platform/config/topology_config.h"

namespace kb {

Fidelity parse_fidelity(const std::string& text) {
  if (text == "exact") return Fidelity::kExact;
  if (text == "fast") return Fidelity::kFast;
  throw UsageError("--fidelity " + text +
                   ": must be exact (every burst and tile simulated) or fast"
                   " (stream transactions and streamed GEMMs)");
}

const char* to_string(Fidelity f) {
  return f == Fidelity::kFast ? "fast" : "exact";
}

std::vector<std::string> fidelity_overrides(Fidelity f) {
  const bool fast = f == Fidelity::kFast;
  return {std::string("pe.dma.transactions=") + (fast ? "stream" : "burst"),
          std::string("pe.scheduler.gemm_plan=") + (fast ? "stream" : "tiles")};
}

nlohmann::json fidelity_json(Fidelity asked, const TopologyConfig& cfg, bool data_mode) {
  const bool stream_dma = cfg.pe.dma.transactions == DmaTransactions::kStream;
  const bool stream_gemm = cfg.pe.scheduler.gemm_plan == GemmPlan::kStream;
  const char* used = data_mode || (!stream_dma && !stream_gemm) ? "exact"
                     : stream_dma && stream_gemm                ? "fast"
                                                                : "mixed";
  return {{"asked", to_string(asked)},
          {"used", used},
          {"pe.dma.transactions", name_of(kDmaTransactionsNames, cfg.pe.dma.transactions)},
          {"pe.scheduler.gemm_plan", name_of(kGemmPlanNames, cfg.pe.scheduler.gemm_plan)}};
}

}  // namespace kb
