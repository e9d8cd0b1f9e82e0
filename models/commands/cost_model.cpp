#include "models/commands/cost_model.h"

namespace kb {

double CostModel::dispatch_cycles(const Command& cmd) const {
  if (const auto* o = std::get_if<PeCpuOverheadCmd>(&cmd)) return o->cycles;
  const double fixed =
      is_composite(cmd) ? cfg_.fixed_per_composite_cycles : cfg_.fixed_per_single_op_cmd_cycles;
  return fixed + static_cast<double>(logical_bytes(cmd)) * cfg_.per_byte_cycles;
}

std::string CostModel::check(const Command& cmd) const {
  if (!is_composite(cmd)) return "";
  const uint64_t bytes = logical_bytes(cmd);
  if (bytes <= cfg_.max_composite_logical_bytes) return "";
  return "composite of " + std::to_string(bytes) +
         " logical bytes exceeds max_composite_logical_bytes = " +
         std::to_string(cfg_.max_composite_logical_bytes) +
         " (split it into several composites; there is no silent segmentation)";
}

}  // namespace kb
