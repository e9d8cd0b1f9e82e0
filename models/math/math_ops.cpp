#include "models/math/math_ops.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace kb {

namespace {

struct MathOpRegistry {
  std::map<std::string, MathOpDef> ops;
  std::vector<std::string> order;
  bool closed = false;
};

MathOpRegistry& math_op_registry() {
  static MathOpRegistry r;
  return r;
}

bool is_lower_identifier(const std::string& s) {
  if (s.empty() || s[0] < 'a' || s[0] > 'z') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

void register_math_op(const std::string& name, MathOpDef def) {
  MathOpRegistry& r = math_op_registry();
  const std::string what = "register_math_op: '" + name + "'";
  if (r.closed)
    throw std::logic_error(what +
                           " comes after the first Platform was built; register op kinds "
                           "before it (before kernbench_main or run_main)");
  if (!is_lower_identifier(name))
    throw std::invalid_argument(
        what +
        " is not a name of lower-case letters, digits and underscores that starts with "
        "a letter");
  if (is_gemm_kind(name))
    throw std::invalid_argument(what + " is the GEMM engine's op kind; pick another name");
  if (r.ops.count(name))
    throw std::invalid_argument(what + " is already registered; each op kind is registered once");
  if (is_math_kind(name))
    throw std::invalid_argument(what +
                                " is a built-in op kind (models/math/math_eval.h); give yours "
                                "another name");
  if (!def.eval) throw std::invalid_argument(what + " has no data-mode function (MathOpDef::eval)");
  if (def.cost.passes == 0)
    throw std::invalid_argument(what + " has 0 passes; an op takes at least one (MathOpCost)");
  r.ops.emplace(name, std::move(def));
  r.order.push_back(name);
}

const MathOpDef* find_registered_math_op(const std::string& name) {
  const MathOpRegistry& r = math_op_registry();
  if (r.ops.empty()) return nullptr;
  const auto it = r.ops.find(name);
  return it == r.ops.end() ? nullptr : &it->second;
}

std::vector<std::string> registered_math_ops() {
  return math_op_registry().order;
}

unsigned math_op_passes(const std::string& kind) {
  const MathOpDef* d = find_registered_math_op(kind);
  return d ? d->cost.passes : 1;
}

void close_math_op_registry() {
  math_op_registry().closed = true;
}

std::optional<double> math_extra_number(const MathExtras& extra, const std::string& name) {
  for (const auto& [k, v] : extra) {
    if (k != name) continue;
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  }
  return std::nullopt;
}

}  // namespace kb
