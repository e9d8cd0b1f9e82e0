// Parameters of PE_MATH (models/math/pe_math.h, and the RTL bridge
// models/rtl/pe_math_rtl.h). Defaults and bounds:
// platform/config/topology_schema.cpp; the rtl_pes selector syntax is
// checked by the loader (platform/config/topology_config.h, rtl_pes_error).
#pragma once

#include <string>

namespace kb {

// Which implementation serves a PE's PE_MATH stages: the TLM model,
// the verilated RTL vector unit behind a bridge, or the RTL with the TLM
// numerics checked beside it on every stage (scoreboard).
enum class MathImpl { kTlm, kRtl, kScoreboard };

const char* to_string(MathImpl m);

struct MathConfig {
  unsigned lanes = 0;  // elements per cycle
  MathImpl impl{};     // implementation of the PEs rtl_pes selects (the others: kTlm)
  // The PEs that get `impl` (the others keep the TLM model): "*" for all,
  // else a comma-separated list of "S.C.P" selectors whose fields are a
  // number or "*", e.g. "0.0.0, 0.1.*". Validated by the loader.
  std::string rtl_pes;
};

}  // namespace kb
