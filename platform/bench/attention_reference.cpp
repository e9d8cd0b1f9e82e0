#include "platform/bench/attention_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "models/common/dtype_convert.h"

namespace kb {

AttnData random_attention_inputs(int64_t rows, int64_t d, int64_t s, double score_std,
                                 uint64_t seed) {
  AttnData a;
  a.rows = rows;
  a.d = d;
  a.s = s;
  std::mt19937_64 rng(seed);
  // q, k ~ U(-a, a): q.k/sqrt(d) has standard deviation a^2 / 3.
  const auto amp = static_cast<float>(std::sqrt(3.0 * score_std));
  std::uniform_real_distribution<float> u(-amp, amp), uv(-1.0f, 1.0f);
  auto fill = [&](std::vector<float>& x, int64_t n, std::uniform_real_distribution<float>& dist) {
    x.resize(static_cast<size_t>(n));
    for (float& e : x) e = round_to(dist(rng), DType::kFp16);
  };
  fill(a.q, rows * d, u);
  fill(a.kt, d * s, u);
  fill(a.v, s * d, uv);
  return a;
}

std::vector<float> columns(const std::vector<float>& m, int64_t r, int64_t c, int64_t first,
                           int64_t n) {
  std::vector<float> out(static_cast<size_t>(r * n));
  for (int64_t i = 0; i < r; ++i) std::copy_n(m.begin() + i * c + first, n, out.begin() + i * n);
  return out;
}

std::vector<float> rows(const std::vector<float>& m, int64_t c, int64_t first, int64_t n) {
  return {m.begin() + first * c, m.begin() + (first + n) * c};
}

double attention_max_error(const AttnData& in, const std::vector<float>& out, double scale,
                           int64_t causal_pos0, int64_t causal_period) {
  const int64_t d = in.d, S = in.s;
  const int64_t period = causal_period > 0 ? causal_period : in.rows;
  double max_err = 0;
  std::vector<double> sc(static_cast<size_t>(S));
  for (int64_t g = 0; g < in.rows; ++g) {
    const int64_t last = causal_pos0 >= 0 ? std::min(S - 1, causal_pos0 + g % period) : S - 1;
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t t = 0; t <= last; ++t) {
      double acc = 0;
      for (int64_t k = 0; k < d; ++k)
        acc += static_cast<double>(in.q[static_cast<size_t>(g * d + k)]) *
               in.kt[static_cast<size_t>(k * S + t)];
      sc[static_cast<size_t>(t)] = acc * scale;
      mx = std::max(mx, sc[static_cast<size_t>(t)]);
    }
    double sum = 0;
    for (int64_t t = 0; t <= last; ++t)
      sum += (sc[static_cast<size_t>(t)] = std::exp(sc[static_cast<size_t>(t)] - mx));
    for (int64_t k = 0; k < d; ++k) {
      double o = 0;
      for (int64_t t = 0; t <= last; ++t)
        o += sc[static_cast<size_t>(t)] * in.v[static_cast<size_t>(t * d + k)];
      const double e = std::abs(o / sum - out[static_cast<size_t>(g * d + k)]);
      if (std::isnan(e) || e > max_err) max_err = e;  // a NaN output is the worst error
    }
  }
  return max_err;
}

}  // namespace kb
