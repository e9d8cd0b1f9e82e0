#include "platform/llm/norm_kernels.h"

#include <map>
#include <stdexcept>

#include "models/common/errors.h"
#include "models/common/spelling.h"

namespace kb {

namespace {

struct NormKernelRegistry {
  std::map<std::string, NormKernelDef> kernels;
  std::vector<std::string> order;
  bool closed = false;
};

NormKernelRegistry& norm_kernel_registry() {
  static NormKernelRegistry r;
  return r;
}

}  // namespace

void register_norm_kernel(const std::string& name, NormKernelDef def) {
  NormKernelRegistry& r = norm_kernel_registry();
  const std::string what = "register_norm_kernel: '" + name + "'";
  if (r.closed)
    throw std::logic_error(what +
                           " comes after the first Platform was built; register norm kernels "
                           "before it (before kernbench_main or run_main)");
  if (name.empty()) throw std::invalid_argument("register_norm_kernel: a norm kernel needs a name");
  if (name == kBuiltinNorm)
    throw std::invalid_argument(what + " is the built-in norm; give yours another name");
  if (r.kernels.count(name))
    throw std::invalid_argument(what +
                                " is already registered; each norm kernel is registered once");
  if (!def.kernel) throw std::invalid_argument(what + " has no kernel (NormKernelDef::kernel)");
  if (!def.reference)
    throw std::invalid_argument(what +
                                " has no double-precision reference (NormKernelDef::reference); "
                                "data mode checks the logits against it");
  r.kernels.emplace(name, std::move(def));
  r.order.push_back(name);
}

std::vector<std::string> norm_kernel_names() {
  std::vector<std::string> names = {kBuiltinNorm};
  for (const std::string& n : norm_kernel_registry().order) names.push_back(n);
  return names;
}

const NormKernelDef* norm_kernel(const std::string& name) {
  if (name == kBuiltinNorm) return nullptr;
  const NormKernelRegistry& r = norm_kernel_registry();
  const auto it = r.kernels.find(name);
  if (it != r.kernels.end()) return &it->second;
  const std::vector<std::string> names = norm_kernel_names();
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("no norm kernel '" + name + "'" + did_you_mean(name, names) +
                   " (the norm kernels: " + known +
                   "; a program adds its own with kb::register_norm_kernel)");
}

void close_norm_kernel_registry() {
  norm_kernel_registry().closed = true;
}

}  // namespace kb
