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
                          uint64_t seed, int64_t tokens) {
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
  w.x0 = uniform(rng, batch * tokens * H, -1, 1, DType::kFp32, false);
  return w;
}

std::vector<double> reference_logits(const ModelSpec& m, const ModelWeights& w, int64_t batch,
                                     int64_t pos, int64_t tokens, const NormReference* norm) {
  auto normalise = [&](const Vec& x, const std::vector<float>& g, int64_t rows) {
    if (!norm) return rmsnorm(x, g, rows, m.hidden, m.norm_eps);
    Vec out(x.size());
    (*norm)(x.data(), g.data(), out.data(), rows, m.hidden, m.norm_eps);
    return out;
  };
  const int64_t B = batch, T = tokens, N = B * T, H = m.hidden, d = m.d_head, G = m.group();
  const int64_t qw = m.q_width(), kvw = m.kv_width();
  std::vector<Vec> M;  // the rotation of each new position
  for (int64_t t = 0; t < T; ++t) M.push_back(rope_matrix(d, pos + t, m.rope_theta));
  Vec x(w.x0.begin(), w.x0.end());
  for (const ModelWeights::Layer& L : w.layers) {
    const Vec xn = normalise(x, L.g_attn, N);
    Vec q = matmul(xn, L.wq, N, H, qw);
    Vec k = matmul(xn, L.wk, N, H, kvw);
    const Vec v = matmul(xn, L.wv, N, H, kvw);
    for (int64_t r = 0; r < N; ++r) {
      const Vec& Mr = M[static_cast<size_t>(r % T)];
      Vec qr(q.begin() + r * qw, q.begin() + (r + 1) * qw);
      Vec kr(k.begin() + r * kvw, k.begin() + (r + 1) * kvw);
      rope(qr, Mr, 1, m.heads, d);
      rope(kr, Mr, 1, m.kv_heads, d);
      std::copy(qr.begin(), qr.end(), q.begin() + r * qw);
      std::copy(kr.begin(), kr.end(), k.begin() + r * kvw);
    }
    Vec attn(static_cast<size_t>(N * qw), 0.0);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    for (int64_t b = 0; b < B; ++b) {
      const std::vector<float>& kp = L.k_past[static_cast<size_t>(b)];
      const std::vector<float>& vp = L.v_past[static_cast<size_t>(b)];
      for (int64_t t = 0; t < T; ++t) {
        const int64_t row = b * T + t, last = pos + t;  // attends to positions 0 .. last
        for (int64_t hq = 0; hq < m.heads; ++hq) {
          const int64_t h = hq / G;
          const double* qr = &q[static_cast<size_t>(row * qw + hq * d)];
          // Key / value of position p of head h (the new ones from pos on).
          auto key = [&](int64_t p, int64_t i) {
            return p < pos ? static_cast<double>(kp[static_cast<size_t>(p * kvw + h * d + i)])
                           : k[static_cast<size_t>((b * T + p - pos) * kvw + h * d + i)];
          };
          auto val = [&](int64_t p, int64_t i) {
            return p < pos ? static_cast<double>(vp[static_cast<size_t>(p * kvw + h * d + i)])
                           : v[static_cast<size_t>((b * T + p - pos) * kvw + h * d + i)];
          };
          Vec s(static_cast<size_t>(last + 1));
          double mx = -1e300;
          for (int64_t p = 0; p <= last; ++p) {
            double acc = 0;
            for (int64_t i = 0; i < d; ++i) acc += qr[i] * key(p, i);
            s[static_cast<size_t>(p)] = acc * scale;
            mx = std::max(mx, acc * scale);
          }
          double l = 0;
          for (double& e : s) l += (e = std::exp(e - mx));
          double* o = &attn[static_cast<size_t>(row * qw + hq * d)];
          for (int64_t p = 0; p <= last; ++p)
            for (int64_t i = 0; i < d; ++i) o[i] += s[static_cast<size_t>(p)] / l * val(p, i);
        }
      }
    }
    const Vec o = matmul(attn, L.wo, N, qw, H);
    for (size_t i = 0; i < x.size(); ++i) x[i] += o[i];
    const Vec xn2 = normalise(x, L.g_ffn, N);
    const Vec g = matmul(xn2, L.wgate, N, H, m.ffn);
    const Vec u = matmul(xn2, L.wup, N, H, m.ffn);
    Vec hdn(g.size());
    for (size_t i = 0; i < g.size(); ++i) hdn[i] = g[i] / (1 + std::exp(-g[i])) * u[i];
    const Vec dn = matmul(hdn, L.wdown, N, m.ffn, H);
    for (size_t i = 0; i < x.size(); ++i) x[i] += dn[i];
  }
  // Each sequence's last row.
  Vec xl;
  for (int64_t b = 0; b < B; ++b)
    xl.insert(xl.end(), x.begin() + ((b + 1) * T - 1) * H, x.begin() + (b + 1) * T * H);
  const Vec xf = normalise(xl, w.g_final, B);
  return matmul(xf, w.wlm, B, H, m.vocab);
}

}  // namespace kb
