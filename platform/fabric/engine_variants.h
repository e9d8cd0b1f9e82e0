// Engine variants a program adds without touching the platform's sources: a
// PE_MATH model of its own, selected in YAML by the name it registers
// (pe.math.impl: NAME, for the PEs pe.math.rtl_pes selects), exactly like the
// built-in tlm, rtl and scoreboard. The class derives from PeMath
// (models/math/pe_math.h) and overrides what differs, typically
// service_time() (timing) or serve() (numerics); sockets, lanes, the op log and
// data-mode operand gathering come with the base.
//
//   kb::register_math_engine("pipelined", [](const sc_core::sc_module_name& n,
//                                            const kb::MathConfig& c, double ghz) {
//     return std::make_unique<PipelinedMath>(n, c, ghz);
//   });
//
// Register before the first topology is loaded (before kernbench_main or
// run_main); later it throws std::logic_error.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <systemc>

#include "models/math/pe_math.h"

namespace kb {

using MathEngineFactory = std::function<std::unique_ptr<PeMath>(
    const sc_core::sc_module_name& name, const MathConfig& cfg, double clock_ghz)>;

// Throws std::invalid_argument for a built-in or already registered name.
void register_math_engine(const std::string& name, MathEngineFactory factory);

// The registered engine `impl` for one PE, or null when none has that name.
std::unique_ptr<PeMath> make_registered_math(const std::string& impl,
                                             const sc_core::sc_module_name& name,
                                             const MathConfig& cfg, double clock_ghz);

}  // namespace kb
