#include "models/rtl/pe_math_rtl.h"

#include <Vvector_unit.h>

#include "models/rtl/verilated_unit.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "models/common/dtype_convert.h"
#include "models/common/errors.h"
#include "models/common/sim_time.h"
#include "models/pe/pe_data.h"

namespace kb {

namespace {

// Opcodes of vector_unit.sv (in_op).
enum : unsigned { kOpAdd = 0, kOpSub = 1, kOpMul = 2, kOpMax = 3, kOpRelu = 4, kOpCopy = 5 };

struct KindOp {
  const char* kind;
  unsigned op;
  unsigned operands;  // streamed operands (1: a only)
};
constexpr KindOp kKinds[] = {
    {"add", kOpAdd, 2},   {"bias", kOpAdd, 2},     {"reduce_add", kOpAdd, 2},
    {"sub", kOpSub, 2},   {"mul", kOpMul, 2},      {"mul_bcast", kOpMul, 2},
    {"max", kOpMax, 2},   {"max_elem", kOpMax, 2}, {"relu", kOpRelu, 1},
    {"copy", kOpCopy, 1}, {"cast", kOpCopy, 1},
};

const KindOp* find_kind(const std::string& kind) {
  for (const KindOp& k : kKinds)
    if (kind == k.kind) return &k;
  return nullptr;
}

std::string hex(uint32_t u) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", u);
  return buf;
}
std::string describe(float f) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g (%s)", static_cast<double>(f), hex(fp32_bits(f)).c_str());
  return buf;
}

}  // namespace

int PeMathRtl::opcode_of(const std::string& op_kind) {
  const KindOp* k = find_kind(op_kind);
  return k ? static_cast<int>(k->op) : -1;
}

std::string PeMathRtl::supported_kinds() {
  std::string out;
  for (const KindOp& k : kKinds) out += (out.empty() ? "" : ", ") + std::string(k.kind);
  return out;
}

PeMathRtl::PeMathRtl(const sc_core::sc_module_name& name, const MathConfig& cfg, double clock_ghz,
                     Mode mode, const UnitFactory& unit)
    : PeMath(name, cfg, clock_ghz),
      mode_(mode),
      half_period_(ns_to_time(0.5 / clock_ghz)),
      rtl_(unit ? unit(pins_) : verilated_unit<Vvector_unit>(pins_)) {
  // The loader checks this for the built-in rtl and scoreboard; a registered
  // RTL variant is built here with whatever pe.math.lanes says.
  if (cfg.lanes != kLanes)
    throw ConfigError("pe.math.impl: " + std::string(impl_name()) + " streams " +
                      std::to_string(kLanes) + " lanes (the RTL is verilated with " +
                      std::to_string(kLanes) + "), so pe.math.lanes must be " +
                      std::to_string(kLanes) + ", got " + std::to_string(cfg.lanes));
}

PeMathRtl::~PeMathRtl() = default;

void PeMathRtl::trace_pins(sc_core::sc_trace_file* tf, const std::string& prefix) const {
  sc_core::sc_trace(tf, pins_.clk, prefix + ".clk");
  sc_core::sc_trace(tf, pins_.rst, prefix + ".rst");
  sc_core::sc_trace(tf, pins_.in_valid, prefix + ".in_valid");
  sc_core::sc_trace(tf, pins_.in_ready, prefix + ".in_ready");
  sc_core::sc_trace(tf, pins_.in_op, prefix + ".in_op");
  sc_core::sc_trace(tf, pins_.out_valid, prefix + ".out_valid");
  sc_core::sc_trace(tf, pins_.out_ready, prefix + ".out_ready");
}

// Synchronous reset: rst high across two rising edges, in delta cycles (the
// Verilated model evaluates on every edge of clk), before the first stage.
// It runs on the engine's worker thread, the only process that drives the
// vector unit's inputs (a signal has one writer).
void PeMathRtl::reset() {
  pins_.rst.write(true);
  for (int i = 0; i < 2; ++i) {
    sc_core::wait(sc_core::SC_ZERO_TIME);
    pins_.clk.write(true);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    pins_.clk.write(false);
  }
  sc_core::wait(sc_core::SC_ZERO_TIME);
  pins_.rst.write(false);
  sc_core::wait(sc_core::SC_ZERO_TIME);
  in_reset_ = false;
}

uint64_t PeMathRtl::stream(unsigned op, const float* a, const float* b, uint64_t n, float* y) {
  if (in_reset_) reset();
  const uint64_t beats = (n + kLanes - 1) / kLanes;
  if (beats == 0) return 0;
  Bus bus_a, bus_b;
  auto drive = [&](uint64_t beat) {
    for (unsigned l = 0; l < kLanes; ++l) {
      const uint64_t e = beat * kLanes + l;
      bus_a.set_word(l, (a && e < n) ? fp32_bits(a[e]) : 0u);
      bus_b.set_word(l, (b && e < n) ? fp32_bits(b[e]) : 0u);
    }
    pins_.in_a.write(bus_a);
    pins_.in_b.write(bus_b);
  };
  pins_.in_op.write(op);
  pins_.out_ready.write(true);
  pins_.in_valid.write(true);
  drive(0);
  bool valid = true;
  uint64_t sent = 0, got = 0, cycles = 0;
  // One loop iteration = one clock period: inputs settle while clk is low,
  // both handshakes are sampled just before the rising edge, the edge moves
  // the pipeline, and the next beat is driven after the falling edge.
  while (got < beats) {
    sc_core::wait(half_period_);
    const bool in_fire = valid && pins_.in_ready.read();
    if (pins_.out_valid.read()) {  // out_ready is high throughout
      if (y) {
        const Bus& r = pins_.out_y.read();
        for (unsigned l = 0; l < kLanes; ++l) {
          const uint64_t e = got * kLanes + l;
          uint32_t u = static_cast<uint32_t>(r.get_word(l));
          if (l == 0 && fault_mask_) u ^= std::exchange(fault_mask_, 0u);
          if (e < n) y[e] = fp32_from_bits(u);
        }
      }
      ++got;
    }
    pins_.clk.write(true);
    sc_core::wait(half_period_);
    pins_.clk.write(false);
    ++cycles;
    if (in_fire && ++sent < beats) {
      drive(sent);
    } else if (in_fire) {
      valid = false;
      pins_.in_valid.write(false);
    }
  }
  pins_.out_ready.write(false);
  cycles_ += cycles;
  beats_ += beats;
  return cycles;
}

NdArray PeMathRtl::evaluate(const std::string& kind, const std::vector<NdArray>& ins,
                            const std::vector<std::pair<std::string, ExtraValue>>& extra) {
  const KindOp& k = *find_kind(kind);  // serve() checked it
  if (ins.size() < k.operands)
    throw MathError("'" + kind + "' needs " + std::to_string(k.operands) + " operand(s), got " +
                    std::to_string(ins.size()));
  NdArray out;
  out.shape = ins[0].shape;
  if (k.operands == 2) out.shape = broadcast_shape(ins[0].shape, ins[1].shape);
  const int64_t n = out.numel();
  // The bridge broadcasts: each operand is streamed at the output's length.
  std::vector<float> a(static_cast<size_t>(n)), b;
  for (int64_t e = 0; e < n; ++e)
    a[static_cast<size_t>(e)] =
        ins[0].data[static_cast<size_t>(broadcast_index(e, out.shape, ins[0].shape))];
  if (k.operands == 2) {
    b.resize(static_cast<size_t>(n));
    for (int64_t e = 0; e < n; ++e)
      b[static_cast<size_t>(e)] =
          ins[1].data[static_cast<size_t>(broadcast_index(e, out.shape, ins[1].shape))];
  }
  out.data.resize(static_cast<size_t>(n));
  stream(k.op, a.data(), b.empty() ? nullptr : b.data(), static_cast<uint64_t>(n), out.data.data());
  if (mode_ != Mode::kScoreboard) return out;

  // Scoreboard: the TLM numerics on the same operands, bit for bit.
  const NdArray ref = math_eval(kind, ins, extra);
  if (ref.shape != out.shape)
    throw MathError("scoreboard: the TLM result's shape differs from the RTL's");
  uint64_t bad = 0;
  int64_t first = -1;
  for (int64_t e = 0; e < n; ++e) {
    const float r = out.data[static_cast<size_t>(e)], t = ref.data[static_cast<size_t>(e)];
    if (!same_fp32(r, t) && bad++ == 0) first = e;
  }
  checked_ += static_cast<uint64_t>(n);
  if (bad) {
    const auto f = static_cast<size_t>(first);
    std::string msg = "scoreboard mismatch: RTL and TLM differ in " + std::to_string(bad) + " of " +
                      std::to_string(n) + " elements; first at element " + std::to_string(first) +
                      " (beat " + std::to_string(first / kLanes) + ", lane " +
                      std::to_string(first % kLanes) + "): a = " + describe(a[f]);
    if (!b.empty()) msg += ", b = " + describe(b[f]);
    msg += ", rtl = " + describe(out.data[f]) + ", tlm = " + describe(ref.data[f]);
    throw MathError(msg);
  }
  return out;
}

void PeMathRtl::serve(TileToken& token, Stage& stage) {
  const KindOp* k = find_kind(stage.op_kind);
  if (!k)
    compute_fault(token, stage,
                  "the RTL vector unit (pe.math.impl: " + std::string(impl_name()) +
                      ") does not implement this op kind; it implements " + supported_kinds() +
                      ". Use pe.math.impl: tlm, or leave this PE out of pe.math.rtl_pes");
  if (!data()) {
    // Timing only: the same number of beats, on zeros.
    stream(k->op, nullptr, nullptr, stage.elements, nullptr);
    return;
  }
  compute(token, stage,
          [this](const std::string& kind, const std::vector<NdArray>& ins,
                 const std::vector<std::pair<std::string, ExtraValue>>& extra) {
            return evaluate(kind, ins, extra);
          });
}

void PeMathRtl::report_lane_extras(StatsSink& out) const {
  PeMath::report_lane_extras(out);
  out.text("impl", impl_name(), "the PE_MATH implementation");
  out.count("rtl_cycles", rtl_cycles(), "cycles", "clock cycles the RTL ran");
  out.count("rtl_beats", rtl_beats(), "", "beats streamed through the RTL");
  if (mode() == Mode::kScoreboard || out.describing())
    out.count("scoreboard_elements_checked", scoreboard_checked(), "",
              "elements compared against the TLM result");
}

unsigned PeMathRtl::trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const {
  const unsigned lanes = PeEngine::trace_signals(tf, name);
  trace_pins(tf, name + ".rtl");
  return lanes + 7;
}

}  // namespace kb
