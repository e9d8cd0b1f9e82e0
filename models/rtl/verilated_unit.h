// Builds a verilated vector unit V (Verilator --sc output of a module with the
// interface of models/rtl/vector_unit.sv: clk, rst, in_valid/in_ready/in_op/
// in_a/in_b, out_valid/out_ready/out_y, LANES = KB_RTL_LANES) and binds it to
// the bridge's pins. PeMathRtl uses it for the project's unit; a program drops
// in its own RTL the same way:
//
//   kb::register_math_engine("deep_rtl", [](auto& n, auto& cfg, double ghz) {
//     auto m = std::make_unique<kb::PeMathRtl>(n, cfg, ghz, kb::PeMathRtl::Mode::kRtl,
//                                              kb::verilated_unit<Vdeep_unit>);
//     m->set_impl_name("deep_rtl");
//     return m;
//   });
//
// The bridge times every stage by the clock cycles the RTL takes, so another
// pipeline depth shows in the results with no other change.
#pragma once

#include <memory>
#include <systemc>

#include "models/rtl/pe_math_rtl.h"

namespace kb {

template <class V>
std::unique_ptr<sc_core::sc_module> verilated_unit(PeMathRtl::Pins& p) {
  auto unit = std::make_unique<V>("vector_unit");
  unit->clk(p.clk);
  unit->rst(p.rst);
  unit->in_valid(p.in_valid);
  unit->in_ready(p.in_ready);
  unit->in_op(p.in_op);
  unit->in_a(p.in_a);
  unit->in_b(p.in_b);
  unit->out_valid(p.out_valid);
  unit->out_ready(p.out_ready);
  unit->out_y(p.out_y);
  return unit;
}

}  // namespace kb
