// RTL co-simulation: the verilated vector unit
// (models/rtl/vector_unit.sv) behind the PE_MATH bridge
// (models/rtl/pe_math_rtl.h).
//
// - RtlVectorUnit.*: the Verilog on its own, under random backpressure.
// - RtlCosim.*: the bridge in a platform. The equivalence tests run one
//   elaboration with pe.math.impl: rtl for PE sip0.cube0.pe1 only
//   (pe.math.rtl_pes), so the same workload runs on a TLM PE_MATH (pe0) and
//   on the RTL one (pe1) in the same process, and results and stage times are
//   compared directly.
// - RtlConfig.*: the configuration knobs, with and without Verilator.
// Without Verilator (cmake found none, or -DKB_WITH_RTL=OFF) every test that
// needs the RTL reports SKIPPED with the reason.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "firmware/tl.h"
#include "models/common/dtype_convert.h"
#include "models/common/errors.h"
#include "models/trace/op_log.h"
#include "platform/config/topology_loader.h"
#include "platform/fabric/pe.h"
#include "platform/output/output_transaction.h"
#include "platform/output/vcd_tracer.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "tests/support/test_support.h"

#if KB_HAVE_RTL
#include <Vvector_unit.h>

#include "models/rtl/pe_math_rtl.h"
#include "tests/support/cli_run.h"
#endif

#define KB_REQUIRE_RTL()                                                                   \
  do {                                                                                     \
    if (!kb::rtl_cosim_available())                                                        \
      GTEST_SKIP() << "RTL co-simulation not built: Verilator was not found at configure " \
                      "time (Debian: apt-get install verilator, then re-run cmake)";       \
  } while (0)

namespace kb {
namespace {

using test::kTiny;
const PeId kTlmPe{0, 0, 0}, kRtlPe{0, 0, 1};
const char* const kTlmPath = "system.sip0.cube0.pe0";
const char* const kRtlPath = "system.sip0.cube0.pe1";

using test::contains;

std::string hex(float f) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", fp32_bits(f));
  return buf;
}

// fp32 values that exercise every path: signed zeros, subnormals, values
// near the smallest normal, small and large magnitudes (products and sums
// that underflow or overflow), infinities and NaNs, and plain random bits.
std::vector<float> interesting_fp32(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) {
    const uint32_t r = rng();
    const uint32_t sign = (rng() & 1u) << 31;
    switch (rng() % 10) {
      case 0:
        x = fp32_from_bits(r);  // any bit pattern
        break;
      case 1:
        x = fp32_from_bits(sign | (r & 0x007fffffu));  // subnormal
        break;
      case 2:
        x = fp32_from_bits(sign | ((1u + rng() % 24) << 23) | (r & 0x007fffffu));  // tiny normal
        break;
      case 3:
        x = fp32_from_bits(sign | ((230u + rng() % 24) << 23) | (r & 0x007fffffu));  // huge
        break;
      case 4: {
        const float c[] = {0.0f,
                           -0.0f,
                           1.0f,
                           -1.0f,
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::max(),
                           std::numeric_limits<float>::min(),
                           std::numeric_limits<float>::denorm_min()};
        x = c[rng() % 10];
        break;
      }
      default:  // ordinary magnitudes 2^-20 .. 2^20, either sign
        x = fp32_from_bits(sign | ((107u + rng() % 40) << 23) | (r & 0x007fffffu));
        break;
    }
  }
  return v;
}

// ---------------------------------------------------------------------------
// A minimal VCD reader: the full dotted name of every variable, its id, and
// its value changes (time in the file's unit, value text).
struct RtlVcd {
  std::string timescale;
  std::map<std::string, std::string> id_of;                                      // name -> id
  std::map<std::string, std::vector<std::pair<uint64_t, std::string>>> changes;  // id -> ...
  bool times_monotonic = true;

  // The id of the variable whose full name ends with `suffix` ("" if none).
  std::string find(const std::string& suffix) const {
    for (const auto& [name, id] : id_of)
      if (name.size() >= suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        return id;
    return "";
  }
  // Times at which a 1-bit variable becomes `value` ('0' or '1').
  std::vector<uint64_t> edges(const std::string& id, char value) const {
    std::vector<uint64_t> out;
    const auto it = changes.find(id);
    if (it == changes.end()) return out;
    for (const auto& [t, v] : it->second)
      if (v.size() == 1 && v[0] == value) out.push_back(t);
    return out;
  }
};

RtlVcd parse_rtl_vcd(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  RtlVcd vcd;
  std::vector<std::string> scopes;
  std::string tok;
  uint64_t now = 0;
  bool defs = true;
  while (in >> tok) {
    if (defs) {
      if (tok == "$timescale") {
        std::string t;
        while (in >> t && t != "$end") vcd.timescale += (vcd.timescale.empty() ? "" : " ") + t;
      } else if (tok == "$scope") {
        std::string kind, name, end;
        in >> kind >> name >> end;
        scopes.push_back(name);
      } else if (tok == "$upscope") {
        std::string end;
        in >> end;
        if (!scopes.empty()) scopes.pop_back();
      } else if (tok == "$var") {
        std::string type, size, id, name, t;
        in >> type >> size >> id >> name;
        while (in >> t && t != "$end") {
        }
        std::string full;
        for (const auto& s : scopes) full += s + ".";
        vcd.id_of[full + name] = id;
      } else if (tok == "$enddefinitions") {
        std::string end;
        in >> end;
        defs = false;
      }
      continue;
    }
    if (tok[0] == '#') {
      const uint64_t t = std::stoull(tok.substr(1));
      if (t < now) vcd.times_monotonic = false;
      now = t;
    } else if (tok[0] == 'b' || tok[0] == 'r') {
      std::string id;
      in >> id;
      vcd.changes[id].emplace_back(now, tok.substr(1));
    } else if (tok[0] == '0' || tok[0] == '1' || tok[0] == 'x' || tok[0] == 'z') {
      vcd.changes[tok.substr(1)].emplace_back(now, tok.substr(0, 1));
    }
    // $dumpvars / $end and friends carry no values of their own.
  }
  return vcd;
}

// ---------------------------------------------------------------------------

// A platform on tiny.yaml whose PE sip0.cube0.pe1 has PE_MATH on RTL.
struct MixedTiny {
  explicit MixedTiny(const std::string& impl = "rtl", const std::string& pes = "0.0.1",
                     bool data = true)
      : platform(load_topology_file(kTiny, {"pe.math.impl=" + impl, "pe.math.rtl_pes=" + pes})),
        rt(platform) {
    platform.set_data_mode(data);
  }
  Platform platform;
  HostRuntime rt;
};

using test::run_expecting_error;

// The one MATH stage of `op_kind` that PE `pe_path` ran (its duration, ns).
double math_stage_ns(Platform& p, const std::string& pe_path, const std::string& op_kind) {
  double ns = -1;
  int found = 0;
  for (const OpRecord& r : p.op_log().records())
    if (r.pe == pe_path && r.engine == "math" && r.op_kind == op_kind) {
      ns = r.t_end_ns - r.t_start_ns;
      ++found;
    }
  EXPECT_EQ(found, 1) << pe_path << " " << op_kind;
  return ns;
}

// Runs `op` over X (and Y) on `pe` and returns the result read back.
std::vector<float> run_math(MixedTiny& t, const PeId& pe, const std::string& op,
                            const std::vector<float>& x, const std::vector<int64_t>& xs,
                            const std::vector<float>* y, const std::vector<int64_t>& ys) {
  const fw::Tensor X = t.rt.alloc_hbm(pe, xs, DType::kFp32);
  t.rt.write(X, x);
  std::optional<fw::Tensor> Y;
  if (y) {
    Y = t.rt.alloc_hbm(pe, ys, DType::kFp32);
    t.rt.write(*Y, *y);
  }
  const fw::Tensor Out = t.rt.alloc_hbm(pe, xs, DType::kFp32);
  t.rt.launch_on({pe}, [&](fw::Tl& tl) {
    std::vector<fw::Tensor> ins{tl.load(X)};
    if (Y) ins.push_back(tl.load(*Y));
    tl.wait(tl.store(Out, tl.math(op, ins)));
  });
  t.rt.run();
  return t.rt.read(Out);
}

// Equivalence: the same MATH workload on the TLM PE and on the RTL PE.
// Results must be bit-identical (any NaN equals any NaN: the RTL returns the
// canonical quiet NaN where the host's arithmetic propagates an operand's
// payload). The RTL stage takes the TLM's ceil(n / lanes) cycles plus the
// vector unit's 3-cycle pipeline fill.
void check_equivalence(const std::string& op, bool binary, bool broadcast_row = false) {
  KB_REQUIRE_RTL();
  MixedTiny t;
  const int64_t R = 64, C = 64;  // 4096 elements = 64 beats of 64 lanes
  const std::vector<float> x = interesting_fp32(R * C, 11);
  const std::vector<int64_t> ys =
      broadcast_row ? std::vector<int64_t>{1, C} : std::vector<int64_t>{R, C};
  const std::vector<float> y = interesting_fp32(static_cast<size_t>(ys[0] * ys[1]), 12);
  const std::vector<float> tlm = run_math(t, kTlmPe, op, x, {R, C}, binary ? &y : nullptr, ys);
  const std::vector<float> rtl = run_math(t, kRtlPe, op, x, {R, C}, binary ? &y : nullptr, ys);
  ASSERT_EQ(tlm.size(), rtl.size());
  int64_t bad = 0;
  for (size_t i = 0; i < tlm.size(); ++i) {
    if (same_fp32(tlm[i], rtl[i])) continue;
    if (bad++ < 5) {
      const float b = binary ? y[broadcast_row ? i % C : i] : 0.0f;
      ADD_FAILURE() << op << " element " << i << ": a=" << hex(x[i]) << " b=" << hex(b)
                    << " tlm=" << hex(tlm[i]) << " rtl=" << hex(rtl[i]);
    }
  }
  EXPECT_EQ(bad, 0) << op << ": elements that differ";
  // The inputs reach the corners: subnormal, infinite and NaN results.
  if (op == "add" || op == "sub" || op == "mul") {
    int64_t subnormal = 0, inf = 0, nan = 0;
    for (float v : tlm) {
      subnormal += std::fpclassify(v) == FP_SUBNORMAL;
      inf += std::isinf(v);
      nan += std::isnan(v);
    }
    EXPECT_GT(subnormal, 0) << op;
    EXPECT_GT(inf, 0) << op;
    EXPECT_GT(nan, 0) << op;
  }

  const double tlm_ns = math_stage_ns(t.platform, kTlmPath, op);
  [[maybe_unused]] const double rtl_ns = math_stage_ns(t.platform, kRtlPath, op);
  const double clock_ghz = t.platform.config().pe.clock_ghz;
  const double beats = static_cast<double>(R * C) / t.platform.config().pe.math.lanes;
  EXPECT_DOUBLE_EQ(tlm_ns, beats / clock_ghz);
#if KB_HAVE_RTL
  EXPECT_DOUBLE_EQ(rtl_ns, (beats + PeMathRtl::kPipelineDepth) / clock_ghz);
  auto& engine = dynamic_cast<PeMathRtl&>(t.platform.pe(kRtlPe).math);
  EXPECT_EQ(engine.rtl_beats(), static_cast<uint64_t>(beats));
  EXPECT_EQ(engine.rtl_cycles(), static_cast<uint64_t>(beats) + PeMathRtl::kPipelineDepth);
  EXPECT_STREQ(t.platform.pe(kTlmPe).math.impl_name(), "tlm");
  EXPECT_STREQ(engine.impl_name(), "rtl");
#endif
}

TEST(RtlCosim, EquivalenceAdd) {
  check_equivalence("add", true);
}
TEST(RtlCosim, EquivalenceSub) {
  check_equivalence("sub", true);
}
TEST(RtlCosim, EquivalenceMul) {
  check_equivalence("mul", true);
}
TEST(RtlCosim, EquivalenceMax) {
  check_equivalence("max", true);
}
TEST(RtlCosim, EquivalenceRelu) {
  check_equivalence("relu", false);
}
// "bias": an add whose [1, C] operand the bridge streams once per row.
TEST(RtlCosim, EquivalenceBiasBroadcast) {
  check_equivalence("bias", true, /*broadcast_row=*/true);
}

// Timing-only mode streams the same number of beats (zeros): the stage takes
// the same RTL cycles as in data mode.
TEST(RtlCosim, TimingOnlyModeTakesTheSameCycles) {
  KB_REQUIRE_RTL();
  MixedTiny t("rtl", "0.0.1", /*data=*/false);
  const fw::Tensor X = t.rt.alloc_hbm(kRtlPe, {64, 64}, DType::kFp32),
                   Out = t.rt.alloc_hbm(kRtlPe, {64, 64}, DType::kFp32);
  t.rt.launch_on({kRtlPe},
                 [&](fw::Tl& tl) { tl.wait(tl.store(Out, tl.math("relu", {tl.load(X)}))); });
  t.rt.run();
  EXPECT_DOUBLE_EQ(math_stage_ns(t.platform, kRtlPath, "relu"), 64 + 3);
}

// A GEMM composite with a bias + relu epilogue, end to end, on a PE whose
// PE_MATH is the RTL (pe1), beside the same composite on a TLM PE (pe0):
// C = relu(A·W + bias) matches a double-precision reference exactly (small
// integers) and the two PEs agree bit for bit.
TEST(RtlCosim, GemmBiasReluEndToEnd) {
  KB_REQUIRE_RTL();
  MixedTiny t;
  const int64_t M = 64, K = 128, N = 64;
  std::mt19937 rng(5);
  auto ints = [&](size_t n, int lo, int hi) {
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(d(rng));
    return v;
  };
  const std::vector<float> a = ints(M * K, -3, 3), w = ints(K * N, -3, 3), bias = ints(N, -20, 20);
  std::vector<double> want(static_cast<size_t>(M * N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = bias[static_cast<size_t>(j)];
      for (int64_t k = 0; k < K; ++k)
        s += static_cast<double>(a[static_cast<size_t>(i * K + k)]) *
             w[static_cast<size_t>(k * N + j)];
      want[static_cast<size_t>(i * N + j)] = std::max(s, 0.0);
    }
  std::map<std::string, std::vector<float>> got;
  std::map<std::string, double> window;
  for (const PeId& pe : {kTlmPe, kRtlPe}) {
    const fw::Tensor A = t.rt.alloc_hbm(pe, {M, K}), W = t.rt.alloc_hbm(pe, {K, N});
    const fw::Tensor B = t.rt.alloc_tcm(pe, {1, N}, DType::kFp32);
    const fw::Tensor C = t.rt.alloc_hbm(pe, {M, N}, DType::kFp32);
    t.rt.write(A, a);
    t.rt.write(W, w);
    t.rt.write(B, bias);
    t.rt.launch_on({pe}, [&](fw::Tl& tl) {
      fw::CompositeArgs args;
      args.a = A;
      args.b = W;
      args.out = C;
      fw::OpArgs add_bias;
      add_bias.op = "bias";
      add_bias.operands = {{"bias", B}};
      fw::OpArgs relu;
      relu.op = "relu";
      args.epilogue = {add_bias, relu};
      tl.wait(tl.composite(args));
    });
    const double t0 = t.platform.now_ns();
    const std::string path = pe.pe == 0 ? kTlmPath : kRtlPath;
    window[path] = t.rt.run() - t0;
    got[path] = t.rt.read(C);
  }
  for (const auto& [path, c] : got) {
    ASSERT_EQ(c.size(), want.size());
    for (size_t i = 0; i < c.size(); ++i)
      ASSERT_EQ(static_cast<double>(c[i]), want[i]) << path << " element " << i;
  }
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_TRUE(same_fp32(got[kTlmPath][i], got[kRtlPath][i])) << i;
  // Every epilogue stage on pe1 ran on the RTL: 4 output tiles x (bias, relu),
  // each a 32x32 tile = 16 beats + 3 cycles of pipeline.
  unsigned rtl_stages = 0;
  for (const OpRecord& r : t.platform.op_log().records())
    if (r.pe == kRtlPath && r.engine == "math") {
      ++rtl_stages;
      EXPECT_DOUBLE_EQ(r.t_end_ns - r.t_start_ns, 16 + 3) << r.op_kind;
    }
  EXPECT_EQ(rtl_stages, 8u);
  const nlohmann::json stats = t.platform.stats();
  const auto& s = stats.at(std::string(kRtlPath) + ".math.stages");
  EXPECT_EQ(s.at("impl"), "rtl");
  EXPECT_EQ(s.at("rtl_cycles"), 8 * (16 + 3));
  EXPECT_FALSE(stats.at(std::string(kTlmPath) + ".math.stages").contains("impl"));
  EXPECT_GE(window[kRtlPath], window[kTlmPath]);
}

// The RTL's pins are in the VP's own VCD, with the same 1 ps timebase: the
// engine's busy flag rises with in_valid, the first result appears after the
// third rising clock edge, and every handshake signal toggles.
TEST(RtlCosim, VcdHasTheRtlHandshakeSignals) {
  KB_REQUIRE_RTL();
  MixedTiny t("rtl", "*");
  char dir_tmpl[] = "/tmp/kb_rtl_vcd_XXXXXX";
  ASSERT_NE(mkdtemp(dir_tmpl), nullptr);
  const std::string path = std::string(dir_tmpl) + "/rtl.vcd";
  VcdTracer tracer(path, {"system.sip0.cube0.pe0"});
  const fw::Tensor X = t.rt.alloc_hbm(kTlmPe, {16, 64}, DType::kFp32),
                   Out = t.rt.alloc_hbm(kTlmPe, {16, 64}, DType::kFp32);
  t.rt.write(X, interesting_fp32(16 * 64, 3));
  t.rt.launch_on({kTlmPe},
                 [&](fw::Tl& tl) { tl.wait(tl.store(Out, tl.math("relu", {tl.load(X)}))); });
  t.rt.run();
  OutputTransaction outputs;
  tracer.finish(outputs);
  outputs.commit();
  const RtlVcd vcd = parse_rtl_vcd(path);
  std::remove(path.c_str());
  std::remove(gtkw_path(path).c_str());
  rmdir(dir_tmpl);

  EXPECT_EQ(vcd.timescale, "1 ps");
  EXPECT_TRUE(vcd.times_monotonic);
  const std::string pre = "pe0.math.rtl.";
  std::map<std::string, std::string> id;
  for (const char* pin :
       {"clk", "rst", "in_valid", "in_ready", "in_op", "out_valid", "out_ready"}) {
    id[pin] = vcd.find(pre + pin);
    EXPECT_FALSE(id[pin].empty()) << "no " << pre << pin << " in the VCD";
  }
  const std::string busy = vcd.find("pe0.math.stage_math.busy");
  ASSERT_FALSE(busy.empty()) << "the VP's own engine signals share the file";
  for (const char* pin : {"clk", "in_valid", "out_valid", "out_ready"}) {
    EXPECT_FALSE(vcd.edges(id[pin], '1').empty()) << pin << " never rises";
    EXPECT_FALSE(vcd.edges(id[pin], '0').empty()) << pin << " never falls";
  }
  // 16 beats: the clock runs 16 + 3 cycles; in_valid rises with the engine's
  // busy flag; the first result is valid after the third rising edge.
  const auto clk_rise = vcd.edges(id["clk"], '1');
  const auto valid_rise = vcd.edges(id["in_valid"], '1');
  const auto out_rise = vcd.edges(id["out_valid"], '1');
  const auto busy_rise = vcd.edges(busy, '1');
  ASSERT_FALSE(valid_rise.empty());
  ASSERT_FALSE(out_rise.empty());
  ASSERT_FALSE(busy_rise.empty());
  EXPECT_EQ(valid_rise.front(), busy_rise.front());
  std::vector<uint64_t> run_edges;
  for (uint64_t e : clk_rise)
    if (e > valid_rise.front()) run_edges.push_back(e);
  ASSERT_EQ(run_edges.size(), 16u + 3u);
  EXPECT_EQ(run_edges.front(), valid_rise.front() + 500);  // half a 1 GHz period
  EXPECT_EQ(out_rise.front(), run_edges[2]);
  EXPECT_EQ(vcd.edges(id["out_valid"], '0').back(), run_edges.back());
}

// Scoreboard: the TLM numerics run beside the RTL on every stage. Clean
// stages pass and are counted; a corrupted RTL result (a test hook flips one
// bit of one lane) is a simulation fault naming the PE, command and element.
TEST(RtlCosim, ScoreboardDetectsAMismatch) {
  KB_REQUIRE_RTL();
  MixedTiny t("scoreboard", "*");
  const std::vector<float> x = interesting_fp32(4096, 21), y = interesting_fp32(4096, 22);
  const std::vector<float> r = run_math(t, kTlmPe, "add", x, {64, 64}, &y, {64, 64});
  for (size_t i = 0; i < r.size(); ++i) ASSERT_TRUE(same_fp32(r[i], x[i] + y[i])) << i;
#if KB_HAVE_RTL
  auto& engine = dynamic_cast<PeMathRtl&>(t.platform.pe(kTlmPe).math);
  EXPECT_STREQ(engine.impl_name(), "scoreboard");
  EXPECT_EQ(engine.scoreboard_checked(), 4096u);
  engine.inject_result_fault(0x00400000u);
#endif
  const fw::Tensor X = t.rt.alloc_hbm(kTlmPe, {64, 64}, DType::kFp32);
  const fw::Tensor Y = t.rt.alloc_hbm(kTlmPe, {64, 64}, DType::kFp32);
  std::vector<float> ones(4096, 1.0f);
  t.rt.write(X, ones);
  t.rt.write(Y, ones);
  t.rt.launch_on({kTlmPe}, [&](fw::Tl& tl) { tl.wait(tl.math("mul", {tl.load(X), tl.load(Y)})); });
  const std::string err = run_expecting_error(t.rt);
  EXPECT_TRUE(contains(err, "system.sip0.cube0.pe0.math")) << err;
  EXPECT_TRUE(contains(err, "command #")) << err;
  EXPECT_TRUE(contains(err, "'mul'")) << err;
  EXPECT_TRUE(contains(err, "scoreboard mismatch")) << err;
  EXPECT_TRUE(contains(err, "1 of 4096 elements")) << err;
  EXPECT_TRUE(contains(err, "first at element 0 (beat 0, lane 0)")) << err;
  EXPECT_TRUE(contains(err, "tlm = 1 (0x3f800000)")) << err;
}

// An op kind the vector unit lacks is a clear simulation fault.
TEST(RtlCosim, UnsupportedOpKindIsAClearError) {
  KB_REQUIRE_RTL();
  MixedTiny t("rtl", "*");
  const fw::Tensor X = t.rt.alloc_hbm(kTlmPe, {4, 64}, DType::kFp32);
  t.rt.launch_on({kTlmPe}, [&](fw::Tl& tl) { tl.wait(tl.math("exp", {tl.load(X)})); });
  const std::string err = run_expecting_error(t.rt);
  EXPECT_TRUE(contains(err, "system.sip0.cube0.pe0.math")) << err;
  EXPECT_TRUE(contains(err, "command #")) << err;
  EXPECT_TRUE(contains(err, "'exp'")) << err;
  EXPECT_TRUE(contains(err, "does not implement")) << err;
  EXPECT_TRUE(contains(err, "add, bias")) << err;
}

#if KB_HAVE_RTL
// ---------------------------------------------------------------------------
// The Verilog on its own: a testbench drives random beats with random gaps
// and random output backpressure, and checks every result (bit-exact against
// the host's IEEE arithmetic), their order, and the 3-cycle latency when the
// output is never stalled.
struct VectorUnitBench {
  static constexpr unsigned L = PeMathRtl::kLanes;
  using Bus = sc_dt::sc_bv<L * 32>;
  sc_core::sc_signal<bool> clk{"clk"}, rst{"rst"}, in_valid{"in_valid"}, in_ready{"in_ready"},
      out_valid{"out_valid"}, out_ready{"out_ready"};
  sc_core::sc_signal<uint32_t> in_op{"in_op"};
  sc_core::sc_signal<Bus> in_a{"in_a"}, in_b{"in_b"}, out_y{"out_y"};
  Vvector_unit dut{"dut"};
  VectorUnitBench() {
    dut.clk(clk);
    dut.rst(rst);
    dut.in_valid(in_valid);
    dut.in_ready(in_ready);
    dut.in_op(in_op);
    dut.in_a(in_a);
    dut.in_b(in_b);
    dut.out_valid(out_valid);
    dut.out_ready(out_ready);
    dut.out_y(out_y);
  }
  // One clock cycle: sample before the rising edge, then the edge.
  void cycle() {
    sc_core::wait(sc_core::sc_time(500, sc_core::SC_PS));
    clk.write(true);
    sc_core::wait(sc_core::sc_time(500, sc_core::SC_PS));
    clk.write(false);
  }
};

float host_op(unsigned op, float a, float b) {
  switch (op) {
    case 0:
      return a + b;
    case 1:
      return a - b;
    case 2:
      return a * b;
    case 3:
      return (std::isnan(a) || std::isnan(b)) ? std::numeric_limits<float>::quiet_NaN()
                                              : std::max(a, b);
    case 4:
      return std::isnan(a) ? a : std::max(a, 0.0f);
    default:
      return a;
  }
}

void run_vector_unit_bench(double stall_probability, bool check_latency) {
  VectorUnitBench tb;
  constexpr unsigned L = VectorUnitBench::L;
  struct Beat {
    unsigned op;
    std::vector<float> a, b;
    uint64_t accepted_cycle;
  };
  std::deque<Beat> in_flight;
  unsigned checked = 0, mismatches = 0;
  bool done = false;
  sc_core::sc_spawn([&] {
    std::mt19937 rng(7);
    std::bernoulli_distribution stall(stall_probability), gap(0.2);
    tb.rst.write(true);
    for (int i = 0; i < 2; ++i) tb.cycle();
    tb.rst.write(false);
    const unsigned n_beats = 300;
    unsigned sent = 0;
    uint64_t cycle = 0;
    Beat next;
    auto make = [&] {
      next.op = rng() % 6;
      next.a = interesting_fp32(L, rng());
      next.b = interesting_fp32(L, rng());
      VectorUnitBench::Bus a, b;
      for (unsigned l = 0; l < L; ++l) {
        a.set_word(l, fp32_bits(next.a[l]));
        b.set_word(l, fp32_bits(next.b[l]));
      }
      tb.in_op.write(next.op);
      tb.in_a.write(a);
      tb.in_b.write(b);
    };
    make();
    bool valid = false;
    while (checked < n_beats) {
      const bool v = sent < n_beats && !gap(rng);
      tb.in_valid.write(v || valid);
      valid = v || valid;
      tb.out_ready.write(!stall(rng));
      sc_core::wait(sc_core::sc_time(500, sc_core::SC_PS));
      ++cycle;
      const bool in_fire = valid && tb.in_ready.read();
      if (tb.out_valid.read() && tb.out_ready.read()) {
        const Beat& want = in_flight.front();
        if (check_latency) {
          EXPECT_EQ(cycle - want.accepted_cycle, 3u);
        }
        const VectorUnitBench::Bus& y = tb.out_y.read();
        for (unsigned l = 0; l < L; ++l) {
          const float got = fp32_from_bits(static_cast<uint32_t>(y.get_word(l)));
          const float ref = host_op(want.op, want.a[l], want.b[l]);
          if (!same_fp32(got, ref) && mismatches++ < 5)
            ADD_FAILURE() << "op " << want.op << " a=" << hex(want.a[l]) << " b=" << hex(want.b[l])
                          << " rtl=" << hex(got) << " host=" << hex(ref);
        }
        in_flight.pop_front();
        ++checked;
      }
      tb.clk.write(true);
      sc_core::wait(sc_core::sc_time(500, sc_core::SC_PS));
      tb.clk.write(false);
      if (in_fire) {
        next.accepted_cycle = cycle;
        in_flight.push_back(next);
        ++sent;
        valid = false;
        if (sent < n_beats) make();
      }
    }
    done = true;
  });
  sc_core::sc_start();
  EXPECT_TRUE(done);
  EXPECT_EQ(checked, 300u);
  EXPECT_EQ(mismatches, 0u);
}

TEST(RtlVectorUnit, ResultsAndLatencyWithoutBackpressure) {
  run_vector_unit_bench(0.0, /*check_latency=*/true);
}

TEST(RtlVectorUnit, RandomBackpressureKeepsEveryResultInOrder) {
  run_vector_unit_bench(0.4, /*check_latency=*/false);
}
#else
TEST(RtlVectorUnit, ResultsAndLatencyWithoutBackpressure) {
  KB_REQUIRE_RTL();
}
TEST(RtlVectorUnit, RandomBackpressureKeepsEveryResultInOrder) {
  KB_REQUIRE_RTL();
}
#endif

// ---------------------------------------------------------------------------
// Configuration: runs in every build.

std::string config_error(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    load_topology_text(yaml, "t.yaml", sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(RtlConfig, ABadImplSuggestsTheNearestValue) {
  EXPECT_EQ(config_error("pe:\n  math:\n    impl: rtll\n"),
            "t.yaml:3:11: pe.math.impl: must be one of tlm, rtl, scoreboard; got 'rtll' (did you "
            "mean 'rtl'?)");
  EXPECT_TRUE(
      contains(config_error("", {"pe.math.impl=scorebord"}), "(did you mean 'scoreboard'?)"));
  EXPECT_TRUE(contains(config_error("pe:\n  math:\n    imp: rtl\n"), "did you mean 'impl'"));
}

TEST(RtlConfig, AMalformedPeSelectorIsAnError) {
  const std::string err = config_error("pe:\n  math:\n    rtl_pes: \"0.0.0, 1.x\"\n");
  EXPECT_TRUE(contains(err, "t.yaml:3:14: pe.math.rtl_pes: '1.x' is not a PE selector")) << err;
  EXPECT_TRUE(contains(err, "S.C.P")) << err;
}

TEST(RtlConfig, APeSelectorOutsideTheTopologyIsAnError) {
  // tiny.yaml: 1 SIP, 2x2 cubes, 2 PEs per cube.
  std::string err;
  try {
    load_topology_file(kTiny, {"pe.math.rtl_pes=0.0.1, 0.4.*"});
  } catch (const ConfigError& e) {
    err = e.what();
  }
  EXPECT_EQ(err,
            "--set pe.math.rtl_pes=0.0.1, 0.4.*: '0.4.*' names cube 4, but the topology has 4 "
            "cubes per SIP");
}

TEST(RtlConfig, PeSelectorsMatchTheirPes) {
  EXPECT_TRUE(rtl_pes_selects("*", 0, 3, 7));
  EXPECT_TRUE(rtl_pes_selects("0.0.1", 0, 0, 1));
  EXPECT_FALSE(rtl_pes_selects("0.0.1", 0, 0, 0));
  EXPECT_TRUE(rtl_pes_selects("0.0.0, 0.*.1", 0, 5, 1));
  EXPECT_FALSE(rtl_pes_selects("0.0.0, 0.*.1", 0, 5, 2));
  EXPECT_TRUE(rtl_pes_selects(" 1.2.* ", 1, 2, 0));
  EXPECT_EQ(rtl_pes_error("0.0"),
            "'0.0' is not a PE selector: write \"*\" for every PE, or a "
            "comma-separated list of S.C.P (SIP, cube, PE; each a number or "
            "*), e.g. \"0.0.0, 0.1.*\"");
  EXPECT_EQ(rtl_pes_error("*"), "");
}

// The default topology documents the knobs and keeps the TLM model.
TEST(RtlConfig, DefaultIsTheTlmModel) {
  const TopologyConfig c = load_default_topology();
  EXPECT_EQ(c.pe.math.impl, "tlm");
  EXPECT_EQ(c.pe.math.rtl_pes, "*");
  EXPECT_TRUE(contains(describe_topology_knobs(), "pe.math.impl"));
  EXPECT_TRUE(contains(describe_topology_knobs(), "pe.math.rtl_pes"));
}

// kernbench --check-topology with pe.math.impl=rtl: exit 2 with the reason and
// the fix in a build without Verilator; accepted in a build with it.
int run_rtl_kernbench(const std::vector<std::string>& args, std::string* err) {
  char tmpl[] = "/tmp/kb_rtl_cli_XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) return -1;
  close(fd);
  std::vector<std::string> argv_s{KB_KERNBENCH_BIN};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, tmpl, O_WRONLY | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  if (rc != 0 || waitpid(pid, &status, 0) != pid) return -1;
  std::ifstream in(tmpl);
  std::ostringstream s;
  s << in.rdbuf();
  *err = s.str();
  std::remove(tmpl);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(RtlConfig, RtlImplWithoutVerilatorIsAConfigError) {
  std::string err;
  const int code = run_rtl_kernbench(
      {"--topology", kTiny, "--set", "pe.math.impl=rtl", "--check-topology", "--quiet"}, &err);
  if (rtl_cosim_available()) {
    EXPECT_EQ(code, 0) << err;
    return;
  }
  EXPECT_EQ(code, 2) << err;
  EXPECT_TRUE(contains(err, "--set pe.math.impl=rtl")) << err;
  EXPECT_TRUE(contains(err, "Verilator was not found")) << err;
  EXPECT_TRUE(contains(err, "apt-get install verilator")) << err;
}

// The `math` bench on an RTL PE through the CLI: stage time = the TLM
// model's 64 cycles + 3, no result differs from the TLM numerics, and the
// VCD written with --vcd carries the RTL pins.
TEST(RtlCosim, MathBenchCliReportsThePipelineFill) {
  KB_REQUIRE_RTL();
  char dir_tmpl[] = "/tmp/kb_rtl_bench_XXXXXX";
  ASSERT_NE(mkdtemp(dir_tmpl), nullptr);
  const std::string dir = dir_tmpl, json = dir + "/math.json", vcd = dir + "/math.vcd";
  std::string err;
  const int code =
      run_rtl_kernbench({"--topology", kTiny, "--set", "pe.math.impl=scoreboard", "--bench", "math",
                         "--data", "--json", json, "--vcd", vcd, "--quiet"},
                        &err);
  ASSERT_EQ(code, 0) << err;
  std::ifstream in(json);
  const nlohmann::json r = nlohmann::json::parse(in);
  ASSERT_EQ(r.at("points").size(), 4u);
  for (const auto& pt : r.at("points")) {
    EXPECT_EQ(pt.at("impl"), "scoreboard");
    EXPECT_DOUBLE_EQ(pt.at("stage_ns").get<double>(), 67.0) << pt;
    EXPECT_DOUBLE_EQ(pt.at("tlm_model_ns").get<double>(), 64.0) << pt;
    EXPECT_EQ(pt.at("mismatches"), 0) << pt;
  }
  const RtlVcd v = parse_rtl_vcd(vcd);
  EXPECT_FALSE(v.find("pe0.math.rtl.in_valid").empty());
  EXPECT_FALSE(v.find("pe0.math.rtl.out_ready").empty());
  std::remove(json.c_str());
  std::remove(vcd.c_str());
  rmdir(dir_tmpl);
}

TEST(RtlConfig, LanesMustMatchTheVerilatedUnit) {
  KB_REQUIRE_RTL();
  const std::string err = config_error("pe:\n  math:\n    lanes: 32\n    impl: rtl\n");
  EXPECT_TRUE(contains(err, "t.yaml:3:12: pe.math.lanes: ")) << err;
  EXPECT_TRUE(contains(err, "verilated with 64 lanes")) << err;
}

}  // namespace
}  // namespace kb
