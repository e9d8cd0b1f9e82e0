#include "models/commands/op_kinds.h"

#include <algorithm>
#include <unordered_map>

#include "models/common/spelling.h"
#include "models/math/math_ops.h"

namespace kb {

const std::vector<std::string>& math_kinds() {
  static const std::vector<std::string> kinds = {
      "add", "bias",      "relu", "scale", "dequant", "rmax",  "rsum",       "max_elem", "exp_diff",
      "fma", "mul_bcast", "copy", "exp",   "mul",     "sub",   "div",        "max",      "recip",
      "neg", "mask",      "gelu", "silu",  "cast",    "trans", "reduce_add", "rsqrt"};
  return kinds;
}

const char* to_string(MathOpClass c) {
  switch (c) {
    case MathOpClass::kElementwise:
      return "elementwise";
    case MathOpClass::kReduction:
      return "reduction";
    case MathOpClass::kTranscendental:
      return "transcendental";
  }
  return "?";
}

MathOpClass math_op_class(const std::string& kind) {
  if (const MathOpDef* d = find_registered_math_op(kind)) return d->cost.energy_class;
  static const std::unordered_map<std::string, MathOpClass> kNotElementwise = {
      {"rmax", MathOpClass::kReduction},          {"rsum", MathOpClass::kReduction},
      {"reduce_add", MathOpClass::kReduction},    {"exp", MathOpClass::kTranscendental},
      {"exp_diff", MathOpClass::kTranscendental}, {"div", MathOpClass::kTranscendental},
      {"recip", MathOpClass::kTranscendental},    {"rsqrt", MathOpClass::kTranscendental},
      {"gelu", MathOpClass::kTranscendental},     {"silu", MathOpClass::kTranscendental}};
  const auto it = kNotElementwise.find(kind);
  return it == kNotElementwise.end() ? MathOpClass::kElementwise : it->second;
}

bool is_gemm_kind(const std::string& kind) {
  return kind == "gemm";
}

bool is_math_kind(const std::string& kind) {
  const auto& k = math_kinds();
  return std::find(k.begin(), k.end(), kind) != k.end() || find_registered_math_op(kind);
}

std::vector<std::string> all_math_kinds() {
  std::vector<std::string> all = math_kinds();
  for (const std::string& k : registered_math_ops()) all.push_back(k);
  return all;
}

std::string unknown_op_kind(const std::string& kind, bool gemm_too) {
  std::vector<std::string> known = all_math_kinds();
  if (gemm_too) known.emplace_back("gemm");
  return "unknown op kind '" + kind + "'" + did_you_mean(kind, known);
}

}  // namespace kb
