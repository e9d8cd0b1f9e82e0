// PE_MATH on RTL: the bridge between the PE's stage tokens (TLM) and the
// verilated vector unit (models/rtl/vector_unit.sv, SystemC mode).
//
// PeMathRtl is a PeMath: the same stage_in / stage_out sockets, the same lane
// ("math" in the op log and the statistics) and the same data-mode operand
// gathering, so the PE swaps it in (pe.math.impl: rtl | scoreboard) without
// any other change. Only serve() differs: it turns the stage into pin
// activity and completes the token when the RTL has returned the last result.
//
// Per stage:
//   1. the op kind maps to a vector-unit opcode (add bias reduce_add -> ADD,
//      sub -> SUB, mul mul_bcast -> MUL, max max_elem -> MAX, relu -> RELU,
//      copy cast -> COPY); any other kind is a simulation fault naming the PE
//      engine, the command and the kinds the RTL implements;
//   2. data mode: the operands are read (TCM tensors, or the GEMM tile and
//      its epilogue operand) and broadcast numpy-style by the bridge, which
//      streams the broadcast operand (a bias row is re-sent for every row of
//      the tile); timing-only mode streams zeros of the same length;
//   3. the elements go to the RTL in beats of LANES on in_valid/in_ready and
//      come back on out_valid/out_ready, one clock cycle at a time;
//   4. the stage ends on the clock edge that takes the last result beat:
//      its duration is the number of RTL clock cycles times the clock period.
//      With the vector unit's 3-stage pipeline, N beats take N + 3 cycles
//      (the TLM model charges N = ceil(elements / lanes)).
//
// The clock: `clk` toggles at pe.clock_ghz only while a stage is in service
// (a gated clock, as an integrated clock gate would give an idle unit). A
// free-running sc_clock would keep the SystemC kernel busy forever: the
// platform runs each launch until no event is left, and 128 idle clocks would
// cost two process activations per PE per nanosecond. Reset is applied with
// two clock pulses in delta cycles before the first stage (no simulated time
// passes).
//
// Scoreboard mode (pe.math.impl: scoreboard): in data mode the TLM numerics
// (math_eval) run beside the RTL on the same operands, and the two results
// are compared element by element, bit for bit (any two NaNs are equal). A
// mismatch is a simulation fault (exit 3) naming the PE engine, the command,
// tile, op kind, the first differing element with its operands and both
// results, and how many elements differ. Timing comes from the RTL.
//
// VCD (--vcd with this PE in scope): clk, rst, in_valid, in_ready, in_op,
// out_valid and out_ready of the vector unit under "<engine>.rtl.", in the
// VP's own trace file and timebase (trace_pins()). The 2048-bit data buses are
// not traced (they would dominate the file).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/math/pe_math.h"

namespace kb {

class PeMathRtl : public PeMath {
 public:
  enum class Mode { kRtl, kScoreboard };
  // Lanes and pipeline depth of the verilated vector unit.
  static constexpr unsigned kLanes = KB_RTL_LANES;
  static constexpr unsigned kPipelineDepth = 3;

  using Bus = sc_dt::sc_bv<kLanes * 32>;
  // The bridge's side of the vector unit's pins (the interface documented in
  // models/rtl/vector_unit.sv).
  struct Pins {
    sc_core::sc_signal<bool> clk{"clk"}, rst{"rst"}, in_valid{"in_valid"}, in_ready{"in_ready"},
        out_valid{"out_valid"}, out_ready{"out_ready"};
    sc_core::sc_signal<uint32_t> in_op{"in_op"};
    sc_core::sc_signal<Bus> in_a{"in_a"}, in_b{"in_b"}, out_y{"out_y"};
  };
  // Builds the verilated unit and binds it to the pins: another RTL with the
  // same interface (another pipeline depth, other arithmetic) drops in as
  // verilated_unit<Vother> (models/rtl/verilated_unit.h).
  using UnitFactory = std::function<std::unique_ptr<sc_core::sc_module>(Pins& pins)>;

  // `unit` empty: the project's models/rtl/vector_unit.sv.
  PeMathRtl(const sc_core::sc_module_name& name, const MathConfig& cfg, double clock_ghz, Mode mode,
            const UnitFactory& unit = {});
  ~PeMathRtl() override;

  const char* impl_name() const override {
    return name_override_.empty() ? (mode_ == Mode::kScoreboard ? "scoreboard" : "rtl")
                                  : name_override_.c_str();
  }
  // The name impl_name() reports (a registered RTL variant's own).
  void set_impl_name(std::string name) { name_override_ = std::move(name); }
  Mode mode() const { return mode_; }

  // The vector-unit opcode of an op kind, or -1 when the RTL lacks it.
  static int opcode_of(const std::string& op_kind);
  // The op kinds the RTL implements, for messages: "add, bias, ...".
  static std::string supported_kinds();

  // Statistics: clock cycles run, beats streamed, scoreboard elements compared.
  uint64_t rtl_cycles() const { return cycles_; }
  uint64_t rtl_beats() const { return beats_; }
  uint64_t scoreboard_checked() const { return checked_; }

  // Traces the vector unit's pins into `tf` as `prefix`.<pin>.
  void trace_pins(sc_core::sc_trace_file* tf, const std::string& prefix) const;
  // The lanes' signals, then the pins as `name`.rtl.<pin>.
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;

  // Test hook: XOR `mask` into lane 0 of the next result beat the bridge
  // reads from the RTL (a corrupted datapath, to prove the scoreboard sees it).
  void inject_result_fault(uint32_t mask) { fault_mask_ = mask; }

 protected:
  // The RTL is clocked: a stage's service waits on its clock edges, so the
  // lanes are threads.
  bool serves_in_thread() const override { return true; }
  void serve(TileToken& token, Stage& stage) override;
  // Which implementation, and the clock cycles it ran.
  void report_lane_extras(StatsSink& out) const override;

 private:
  void reset();
  // Streams n elements (a, b may be null: zeros) through the RTL with
  // opcode `op`; fills y (if not null) with the results. Returns the cycles.
  uint64_t stream(unsigned op, const float* a, const float* b, uint64_t n, float* y);
  NdArray evaluate(const std::string& kind, const std::vector<NdArray>& ins,
                   const std::vector<std::pair<std::string, ExtraValue>>& extra);

  Mode mode_;
  sc_core::sc_time half_period_;
  std::string name_override_;
  Pins pins_;
  std::unique_ptr<sc_core::sc_module> rtl_;
  bool in_reset_ = true;
  uint64_t cycles_ = 0, beats_ = 0, checked_ = 0;
  uint32_t fault_mask_ = 0;
};

}  // namespace kb
