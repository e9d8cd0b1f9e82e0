#include "models/commands/op_kinds.h"

#include <algorithm>
#include <unordered_map>

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
  return std::find(k.begin(), k.end(), kind) != k.end();
}

}  // namespace kb
