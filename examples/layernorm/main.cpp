// A LayerNorm (without bias) added from outside the platform, in three
// registrations: a MATH op kind `rmean` (its data-mode function and its cost),
// a recipe `layernorm` built from it and the built-in kinds, and a norm
// kernel `layernorm` that runs the recipe a chunk of rows at a time. Then
//   layernorm --data                     checks it on one PE against a double reference
//   layernorm --bench llm -p norm=layernorm --data ...   runs it in every layer of the llm bench
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "firmware/kernels/transformer_ops.h"  // kb::fw::tx::rows_of
#include "firmware/recipes.h"                  // kb::fw::register_recipe
#include "models/math/math_ops.h"              // kb::register_math_op
#include "platform/bench/bench.h"
#include "platform/cli/kernbench_app.h"
#include "platform/llm/norm_kernels.h"  // kb::register_norm_kernel
#include "platform/runtime/host_runtime.h"

namespace {

constexpr double kEps = 1e-5;  // the recipe's (and Llama's) epsilon

// rmean: the mean along reduce_axis (default -1), keeping the dimension.
kb::NdArray rmean(const std::vector<kb::NdArray>& in, const kb::MathExtras& extra) {
  const kb::NdArray& x = in[0];
  const auto rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = static_cast<int64_t>(kb::math_extra_number(extra, "reduce_axis").value_or(-1));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) throw kb::MathError("rmean: reduce_axis out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
  const int64_t len = x.shape[axis];
  kb::NdArray out;
  out.shape = x.shape;
  out.shape[axis] = 1;
  out.data.assign(static_cast<size_t>(outer * inner), 0.0f);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      float sum = 0;
      for (int64_t l = 0; l < len; ++l)
        sum += x.data[static_cast<size_t>((o * len + l) * inner + i)];
      out.data[static_cast<size_t>(o * inner + i)] = sum / static_cast<float>(len);
    }
  return out;
}

// y = (x - mean) / sqrt(var + eps) * gamma, row by row, in fp32 on PE_MATH.
kb::fw::Recipe layernorm_recipe() {
  using kb::fw::Access;
  kb::fw::Recipe r;
  r.name = "layernorm";
  r.operands = {{"x", Access::kRead}, {"gamma", Access::kRead}, {"y", Access::kReadWrite}};
  r.scratch = {{"mu", "x", true, false}, {"var", "x", true, false}, {"xc", "x", false, false}};
  const std::pair<std::string, kb::ExtraValue> last_axis{"reduce_axis", int64_t{-1}};
  r.steps = {{"rmean", {"x"}, "mu", {last_axis}},
             {"sub", {"x", "mu"}, "xc", {}},
             {"mul", {"xc", "xc"}, "y", {}},
             {"rmean", {"y"}, "var", {last_axis}},
             {"rsqrt", {"var"}, "var", {{"eps", kEps}}},
             {"mul", {"xc", "var"}, "y", {}},
             {"mul", {"y", "gamma"}, "y", {}}};
  return r;
}

// The norm kernel: per chunk of rows that fits the TCM budget, load x, run the
// recipe and cast to the output's dtype in one composite, store the rows.
void layernorm_kernel(const kb::fw::NormCall& c) {
  using kb::fw::Tensor;
  if (c.eps != kEps) throw std::invalid_argument("layernorm: the recipe's eps is 1e-5");
  kb::fw::Tl& tl = c.tl;
  auto scope = tl.scratch_scope();
  const Tensor gamma = tl.load(c.gamma);
  const int64_t per_row = c.hidden * (4 * 3 + static_cast<int64_t>(kb::dtype_bytes(c.dtype))) + 8;
  const int64_t chunk =
      std::clamp<int64_t>(static_cast<int64_t>(c.tcm_budget) / per_row, 1, c.rows);
  for (int64_t r0 = 0; r0 < c.rows; r0 += chunk) {
    auto rows = tl.scratch_scope();
    const int64_t n = std::min(chunk, c.rows - r0);
    const Tensor x = tl.load(kb::fw::tx::rows_of(tl, c.x, r0, n));
    const Tensor y = tl.empty({n, c.hidden}, kb::DType::kFp32);
    kb::fw::CompositeArgs ln;
    ln.prologue.push_back({"layernorm", {{"x", x}, {"gamma", gamma}, {"y", y}}, {}});
    ln.op = "cast";  // the head: y in the output's dtype
    ln.a = y;
    ln.out = tl.empty({n, c.hidden}, c.dtype);
    tl.wait(tl.store(kb::fw::tx::rows_of(tl, c.xn, r0, n), tl.composite(ln)));
  }
}

// The same in double, for data mode.
void layernorm_reference(const double* x, const float* gamma, double* out, int64_t rows,
                         int64_t hidden, double eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = x + r * hidden;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < hidden; ++i) mean += xr[i] / static_cast<double>(hidden);
    for (int64_t i = 0; i < hidden; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    const double inv = 1 / std::sqrt(var / static_cast<double>(hidden) + eps);
    for (int64_t i = 0; i < hidden; ++i) out[r * hidden + i] = (xr[i] - mean) * inv * gamma[i];
  }
}

// The kernel on one PE, against the reference when in data mode.
class LayerNormBench : public kb::Bench {
 public:
  std::string name() const override { return "layernorm"; }
  std::string description() const override { return "the example's LayerNorm on PE 0.0.0"; }
  std::vector<kb::ParamSpec> params() const override {
    return {{"rows", "5", "rows of x"},
            {"hidden", "200", "elements per row"},
            {"tcm_budget", "8192", "TCM bytes per chunk of rows (8192: two rows of 200)"}};
  }
  kb::BenchResult run(kb::BenchContext& ctx) override {
    const int64_t rows = ctx.params.integer("rows"), hidden = ctx.params.integer("hidden");
    kb::HostRuntime rt(ctx.platform);
    const kb::PeId pe{0, 0, 0};
    const kb::fw::Tensor x = rt.alloc_hbm(pe, {rows, hidden}, kb::DType::kFp32);
    const kb::fw::Tensor g = rt.alloc_hbm(pe, {1, hidden}, kb::DType::kFp32);
    const kb::fw::Tensor y = rt.alloc_hbm(pe, {rows, hidden}, kb::DType::kFp32);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-2, 2), near_one(0.9f, 1.1f);
    std::vector<float> xv(static_cast<size_t>(rows * hidden)), gv(static_cast<size_t>(hidden));
    for (float& v : xv) v = u(rng) + 0.5f;  // rows with a mean to take out
    for (float& v : gv) v = near_one(rng);
    if (ctx.data_mode) {  // without --data only the time is simulated
      rt.write(x, xv);
      rt.write(g, gv);
    }
    const auto budget = static_cast<uint64_t>(ctx.params.integer("tcm_budget"));
    rt.launch_on({pe}, [&](kb::fw::Tl& tl) {
      layernorm_kernel({tl, g, x, y, rows, hidden, kEps, kb::DType::kFp32, budget});
    });
    kb::BenchResult r;
    r.metrics["window_ns"] = rt.run();
    std::vector<std::string> row = {kb::fmt(r.metrics["window_ns"].get<double>(), 1)};
    if (ctx.data_mode) {
      const std::vector<double> xd(xv.begin(), xv.end());
      std::vector<double> want(xd.size());
      layernorm_reference(xd.data(), gv.data(), want.data(), rows, hidden, kEps);
      const std::vector<float> got = rt.read(y);
      double err = 0;
      for (size_t i = 0; i < want.size(); ++i) err = std::max(err, std::abs(got[i] - want[i]));
      r.metrics["max_abs_err"] = err;
      row.push_back(kb::fmt(err, 7));
      if (!(err <= 1e-3)) throw std::runtime_error("layernorm: max |err| above 1e-3");
    } else {
      row.push_back("- (no --data)");
    }
    r.tables.push_back({"LayerNorm of [" + std::to_string(rows) + "," + std::to_string(hidden) +
                            "] fp32 on PE 0.0.0 vs a double reference",
                        {"window ns", "max |err|"},
                        {row}});
    return r;
  }
};

}  // namespace

int sc_main(int argc, char* argv[]) {
  kb::MathOpDef rmean_op;  // the time of rsum then scale: two passes over its outputs
  rmean_op.eval = rmean;
  rmean_op.cost = {kb::MathOpClass::kReduction, 2};
  kb::register_math_op("rmean", rmean_op);
  kb::fw::register_recipe(layernorm_recipe());  // after the op kinds its steps name
  kb::register_norm_kernel("layernorm",
                           {layernorm_kernel, layernorm_reference, "LayerNorm without bias"});
  kb::BenchRegistry registry = kb::BenchRegistry::with_builtin_benches();
  registry.add(std::make_unique<LayerNormBench>());
  return kb::kernbench_main(argc, argv, registry, "layernorm");
}
