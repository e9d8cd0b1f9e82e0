#include "platform/fabric/engine_variants.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "platform/config/knob_visitors.h"

namespace kb {

namespace {

std::map<std::string, MathEngineFactory>& math_engines() {
  static std::map<std::string, MathEngineFactory> engines;
  return engines;
}

}  // namespace

void register_math_engine(const std::string& name, MathEngineFactory factory) {
  const bool builtin = std::find(std::begin(kMathImplBuiltins), std::end(kMathImplBuiltins),
                                 name) != std::end(kMathImplBuiltins);
  if (builtin || math_engines().count(name) || name.empty())
    throw std::invalid_argument("register_math_engine: '" + name +
                                "' is empty, built in or already registered");
  register_choice("pe.math.impl", name);
  math_engines()[name] = std::move(factory);
}

std::unique_ptr<PeMath> make_registered_math(const std::string& impl,
                                             const sc_core::sc_module_name& name,
                                             const MathConfig& cfg, double clock_ghz) {
  const auto it = math_engines().find(impl);
  return it == math_engines().end() ? nullptr : it->second(name, cfg, clock_ghz);
}

}  // namespace kb
