#include "platform/llm/llm_reference.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "models/common/dtype_convert.h"

namespace kb {

namespace {

std::vector<float> uniform(std::mt19937_64& rng, int64_t n, double lo, double hi, DType dt,
                           bool round = true) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v)
    x = round ? round_to(static_cast<float>(u(rng)), dt) : static_cast<float>(u(rng));
  return v;
}

std::vector<float> matrix(std::mt19937_64& rng, int64_t rows, int64_t cols, DType dt) {
  const double a = 1.0 / std::sqrt(static_cast<double>(rows));
  return uniform(rng, rows * cols, -a, a, dt);
}

using Vec = std::vector<double>;

// out [B, N] = x [B, K] · w [K, N].
Vec matmul(const Vec& x, const std::vector<float>& w, int64_t B, int64_t K, int64_t N) {
  Vec out(static_cast<size_t>(B * N), 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t k = 0; k < K; ++k) {
      const double xv = x[static_cast<size_t>(b * K + k)];
      const float* row = &w[static_cast<size_t>(k * N)];
      double* o = &out[static_cast<size_t>(b * N)];
      for (int64_t n = 0; n < N; ++n) o[n] += xv * row[n];
    }
  return out;
}

Vec rmsnorm(const Vec& x, const std::vector<float>& g, int64_t B, int64_t H, double eps) {
  Vec out(x.size());
  for (int64_t b = 0; b < B; ++b) {
    double ss = 0;
    for (int64_t i = 0; i < H; ++i)
      ss += x[static_cast<size_t>(b * H + i)] * x[static_cast<size_t>(b * H + i)];
    const double r = 1.0 / std::sqrt(ss / static_cast<double>(H) + eps);
    for (int64_t i = 0; i < H; ++i)
      out[static_cast<size_t>(b * H + i)] =
          x[static_cast<size_t>(b * H + i)] * r * g[static_cast<size_t>(i)];
  }
  return out;
}

// Rotates every head row of x [B, n_heads * d] in place by M.
void rope(Vec& x, const Vec& M, int64_t B, int64_t n_heads, int64_t d) {
  Vec row(static_cast<size_t>(d));
  for (int64_t r = 0; r < B * n_heads; ++r) {
    double* h = &x[static_cast<size_t>(r * d)];
    for (int64_t j = 0; j < d; ++j) {
      double acc = 0;
      for (int64_t i = 0; i < d; ++i) acc += h[i] * M[static_cast<size_t>(i * d + j)];
      row[static_cast<size_t>(j)] = acc;
    }
    std::copy(row.begin(), row.end(), h);
  }
}

}  // namespace

std::vector<double> rope_matrix(int64_t d, int64_t pos, double theta) {
  Vec M(static_cast<size_t>(d * d), 0.0);
  const int64_t half = d / 2;
  for (int64_t i = 0; i < half; ++i) {
    const double ang = static_cast<double>(pos) *
                       std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(d));
    const double c = std::cos(ang), s = std::sin(ang);
    M[static_cast<size_t>(i * d + i)] = c;
    M[static_cast<size_t>((i + half) * d + i)] = -s;
    M[static_cast<size_t>((i + half) * d + i + half)] = c;
    M[static_cast<size_t>(i * d + i + half)] = s;
  }
  return M;
}

ModelWeights random_model(const ModelSpec& m, int64_t layers, int64_t batch, int64_t pos,
                          uint64_t seed) {
  std::mt19937_64 rng(seed);
  const DType dt = m.dtype;
  const int64_t H = m.hidden, kvw = m.kv_width();
  ModelWeights w;
  for (int64_t l = 0; l < layers; ++l) {
    ModelWeights::Layer L;
    L.g_attn = uniform(rng, H, 0.9, 1.1, dt);
    L.g_ffn = uniform(rng, H, 0.9, 1.1, dt);
    L.wq = matrix(rng, H, m.q_width(), dt);
    L.wk = matrix(rng, H, kvw, dt);
    L.wv = matrix(rng, H, kvw, dt);
    L.wo = matrix(rng, m.q_width(), H, dt);
    L.wgate = matrix(rng, H, m.ffn, dt);
    L.wup = matrix(rng, H, m.ffn, dt);
    L.wdown = matrix(rng, m.ffn, H, dt);
    for (int64_t b = 0; b < batch; ++b) {
      L.k_past.push_back(uniform(rng, pos * kvw, -1, 1, dt));
      L.v_past.push_back(uniform(rng, pos * kvw, -1, 1, dt));
    }
    w.layers.push_back(std::move(L));
  }
  w.g_final = uniform(rng, H, 0.9, 1.1, dt);
  w.wlm = matrix(rng, H, m.vocab, dt);
  w.x0 = uniform(rng, batch * H, -1, 1, DType::kFp32, false);
  return w;
}

std::vector<double> reference_logits(const ModelSpec& m, const ModelWeights& w, int64_t batch,
                                     int64_t pos) {
  const int64_t B = batch, H = m.hidden, d = m.d_head, G = m.group();
  const int64_t qw = m.q_width(), kvw = m.kv_width();
  const Vec M = rope_matrix(d, pos, m.rope_theta);
  Vec x(w.x0.begin(), w.x0.end());
  for (const ModelWeights::Layer& L : w.layers) {
    const Vec xn = rmsnorm(x, L.g_attn, B, H, m.norm_eps);
    Vec q = matmul(xn, L.wq, B, H, qw);
    Vec k = matmul(xn, L.wk, B, H, kvw);
    const Vec v = matmul(xn, L.wv, B, H, kvw);
    rope(q, M, B, m.heads, d);
    rope(k, M, B, m.kv_heads, d);
    Vec attn(static_cast<size_t>(B * qw), 0.0);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    for (int64_t b = 0; b < B; ++b) {
      const std::vector<float>& kp = L.k_past[static_cast<size_t>(b)];
      const std::vector<float>& vp = L.v_past[static_cast<size_t>(b)];
      for (int64_t hq = 0; hq < m.heads; ++hq) {
        const int64_t h = hq / G;
        const double* qr = &q[static_cast<size_t>(b * qw + hq * d)];
        // Key / value of position t of head h (the new one at t == pos).
        auto key = [&](int64_t t, int64_t i) {
          return t < pos ? static_cast<double>(kp[static_cast<size_t>(t * kvw + h * d + i)])
                         : k[static_cast<size_t>(b * kvw + h * d + i)];
        };
        auto val = [&](int64_t t, int64_t i) {
          return t < pos ? static_cast<double>(vp[static_cast<size_t>(t * kvw + h * d + i)])
                         : v[static_cast<size_t>(b * kvw + h * d + i)];
        };
        Vec s(static_cast<size_t>(pos + 1));
        double mx = -1e300;
        for (int64_t t = 0; t <= pos; ++t) {
          double acc = 0;
          for (int64_t i = 0; i < d; ++i) acc += qr[i] * key(t, i);
          s[static_cast<size_t>(t)] = acc * scale;
          mx = std::max(mx, acc * scale);
        }
        double l = 0;
        for (double& e : s) l += (e = std::exp(e - mx));
        double* o = &attn[static_cast<size_t>(b * qw + hq * d)];
        for (int64_t t = 0; t <= pos; ++t)
          for (int64_t i = 0; i < d; ++i) o[i] += s[static_cast<size_t>(t)] / l * val(t, i);
      }
    }
    const Vec o = matmul(attn, L.wo, B, qw, H);
    for (size_t i = 0; i < x.size(); ++i) x[i] += o[i];
    const Vec xn2 = rmsnorm(x, L.g_ffn, B, H, m.norm_eps);
    const Vec g = matmul(xn2, L.wgate, B, H, m.ffn);
    const Vec u = matmul(xn2, L.wup, B, H, m.ffn);
    Vec hdn(g.size());
    for (size_t i = 0; i < g.size(); ++i) hdn[i] = g[i] / (1 + std::exp(-g[i])) * u[i];
    const Vec dn = matmul(hdn, L.wdown, B, m.ffn, H);
    for (size_t i = 0; i < x.size(); ++i) x[i] += dn[i];
  }
  const Vec xf = rmsnorm(x, w.g_final, B, H, m.norm_eps);
  return matmul(xf, w.wlm, B, H, m.vocab);
}

}  // namespace kb
