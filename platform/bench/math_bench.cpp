#include "platform/bench/math_bench.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "firmware/tl.h"
#include "models/common/dtype_convert.h"
#include "models/common/errors.h"
#include "models/math/math_eval.h"
#include "models/trace/op_log.h"
#include "platform/bench/address_text.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "platform/util/spelling.h"

namespace kb {

namespace {

// The op kinds this bench can drive: one or two operands, no extras.
const std::vector<std::string> kUnary = {"relu",  "copy", "exp",  "neg",
                                         "recip", "gelu", "silu", "cast"};
const std::vector<std::string> kBinary = {"add", "sub",      "mul",     "div",
                                          "max", "max_elem", "exp_diff"};

bool unary(const std::string& op) {
  return std::find(kUnary.begin(), kUnary.end(), op) != kUnary.end();
}

void check_op(const std::string& op) {
  if (unary(op) || std::find(kBinary.begin(), kBinary.end(), op) != kBinary.end()) return;
  std::vector<std::string> all = kBinary;
  all.insert(all.end(), kUnary.begin(), kUnary.end());
  std::string msg = "--param ops: '" + op + "' is not a MATH op this bench runs";
  const std::string near = nearest_spelling(op, all);
  if (!near.empty()) msg += "; did you mean '" + near + "'?";
  std::string list;
  for (const auto& a : all) list += (list.empty() ? "" : ", ") + a;
  throw UsageError(msg + " (valid: " + list + ")");
}

}  // namespace

std::vector<ParamSpec> MathBench::params() const {
  return {{"pe", "0.0.0", "PE as SIP.CUBE.PE"},
          {"ops", "add,mul,max,relu", "MATH op kinds, comma-separated (binary or unary)"},
          {"elements", "4096", "elements per op (fp32, shape [elements/64, 64] or [1, n])"}};
}

// A point per op, data mode's mismatches included.
std::vector<std::string> MathBench::point_fields() const {
  return {"op",           "impl",      "elements",   "stage_ns",          "tlm_model_ns",
          "extra_cycles", "window_ns", "mismatches", PointWindows::kField};
}

std::vector<std::string> MathBench::metric_fields() const {
  return {"pe", "impl", "ops"};
}

BenchResult MathBench::run(BenchContext& ctx) {
  Platform& p = ctx.platform;
  const PeId pe = parse_pe_text(ctx.params.str("pe"), "--param pe");
  const auto& c = p.config();
  if (pe.sip >= c.system.n_sips || pe.cube >= c.cubes_per_sip() || pe.pe >= c.cube.pes)
    throw UsageError("--param pe=" + ctx.params.str("pe") + ": no such PE in topology " + c.name);
  const long long n = ctx.params.integer("elements");
  if (n <= 0) throw UsageError("--param elements must be > 0");
  for (const std::string& op : ctx.params.list("ops")) check_op(op);
  if (ctx.params.list("ops").empty()) throw UsageError("--param ops: name at least one MATH op");
  const std::vector<int64_t> shape =
      n % 64 == 0 ? std::vector<int64_t>{n / 64, 64} : std::vector<int64_t>{1, n};
  Pe& target = p.pe(pe);
  const std::string impl = target.math.impl_name();
  const std::string pe_path = target.name();

  HostRuntime rt(p);
  PointWindows windows(p);
  BenchResult res;
  SummaryTable t{"math on " + pe_path + " (PE_MATH impl " + impl + ", " +
                     std::to_string(c.pe.math.lanes) + " lanes at " + fmt(c.pe.clock_ghz, 2) +
                     " GHz)",
                 {"op", "elements", "stage_ns", "tlm_model_ns", "extra_cycles", "window_ns"},
                 {}};
  if (ctx.data_mode) t.headers.push_back("mismatches");
  std::mt19937 rng(1);
  std::normal_distribution<float> dist(0.0f, 4.0f);
  for (const std::string& op : ctx.params.list("ops")) {
    const bool un = unary(op);
    const fw::Tensor X = rt.alloc_tcm(pe, shape, DType::kFp32),
                     Y = rt.alloc_tcm(pe, shape, DType::kFp32),
                     Out = rt.alloc_tcm(pe, shape, DType::kFp32);
    std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
    if (ctx.data_mode) {
      for (float& v : x) v = dist(rng);
      for (float& v : y) v = dist(rng);
      rt.write(X, x);
      rt.write(Y, y);
    }
    p.op_log().clear();
    rt.launch_on({pe}, [&](fw::Tl& tl) {
      std::vector<fw::Tensor> ins{X};
      if (!un) ins.push_back(Y);
      tl.wait(tl.math(op, ins, {}, Out));
    });
    const double t0 = p.now_ns();
    const double window = rt.run() - t0;
    double stage = 0;
    for (const OpRecord& r : p.op_log().records())
      if (r.pe == pe_path && r.engine == "math") stage += r.t_end_ns - r.t_start_ns;
    const double model = std::ceil(static_cast<double>(n) / c.pe.math.lanes) / c.pe.clock_ghz;
    const double extra_cycles = std::round((stage - model) * c.pe.clock_ghz * 1000) / 1000;
    nlohmann::json pt = {
        {"op", op},           {"impl", impl},          {"elements", n},
        {"stage_ns", stage},  {"tlm_model_ns", model}, {"extra_cycles", extra_cycles},
        {"window_ns", window}};
    std::vector<std::string> row{
        op, std::to_string(n), fmt(stage, 1), fmt(model, 1), fmt(extra_cycles, 0), fmt(window, 1)};
    if (ctx.data_mode) {
      NdArray a{shape, x}, b{shape, y};
      std::vector<NdArray> ins{a};
      if (!un) ins.push_back(b);
      const NdArray want = math_eval(op, ins, {});
      const std::vector<float> got = rt.read(Out);
      uint64_t bad = 0;
      for (size_t i = 0; i < got.size(); ++i)
        if (!same_fp32(got[i], want.data[i])) ++bad;
      pt["mismatches"] = bad;
      row.push_back(std::to_string(bad));
    }
    windows.stamp(pt);
    res.points.push_back(pt);
    t.rows.push_back(row);
    rt.release_all();
  }
  res.metrics = {{"pe", pe_path}, {"impl", impl}, {"ops", res.points.size()}};
  res.tables.push_back(t);
  return res;
}

}  // namespace kb
