#include "models/math/math_eval.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "models/math/math_ops.h"

namespace kb {

int64_t NdArray::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

namespace {

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

double extra_number(const std::vector<std::pair<std::string, ExtraValue>>& extra,
                    const std::string& name, bool* found) {
  for (const auto& [k, v] : extra) {
    if (k != name) continue;
    *found = true;
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  }
  *found = false;
  return 0;
}

}  // namespace

int64_t broadcast_index(int64_t flat, const Shape& out_shape, const Shape& shape) {
  int64_t idx = 0, stride = 1;
  const size_t off = out_shape.size() - shape.size();
  for (size_t d = out_shape.size(); d-- > 0;) {
    const int64_t coord = flat % out_shape[d];
    flat /= out_shape[d];
    if (d >= off) {
      const int64_t dim = shape[d - off];
      if (dim != 1) idx += coord * stride;
      stride *= dim;
    }
  }
  return idx;
}

namespace {

NdArray elementwise(const std::vector<NdArray>& in, const std::function<float(const float*)>& f) {
  Shape shape = in.at(0).shape;
  for (size_t i = 1; i < in.size(); ++i) shape = broadcast_shape(shape, in[i].shape);
  NdArray out;
  out.shape = shape;
  out.data.resize(static_cast<size_t>(out.numel()));
  std::vector<float> args(in.size());
  bool same = true;
  for (const auto& a : in) same = same && a.shape == shape;
  for (int64_t e = 0; e < out.numel(); ++e) {
    for (size_t i = 0; i < in.size(); ++i)
      args[i] = in[i].data[static_cast<size_t>(same ? e : broadcast_index(e, shape, in[i].shape))];
    out.data[static_cast<size_t>(e)] = f(args.data());
  }
  return out;
}

NdArray reduce(const NdArray& x, int64_t axis, bool is_max) {
  const auto rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) throw MathError("reduction of a scalar");
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    throw MathError("reduce_axis out of range for shape " + shape_str(x.shape));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
  const int64_t len = x.shape[axis];
  NdArray out;
  out.shape = x.shape;
  out.shape[axis] = 1;
  const float init = is_max ? -std::numeric_limits<float>::infinity() : 0.0f;
  out.data.assign(static_cast<size_t>(outer * inner), init);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      float acc = init;
      for (int64_t l = 0; l < len; ++l) {
        const float v = x.data[static_cast<size_t>((o * len + l) * inner + i)];
        if (is_max)
          acc = (std::isnan(v) || std::isnan(acc)) ? std::numeric_limits<float>::quiet_NaN()
                                                   : std::max(acc, v);
        else
          acc += v;
      }
      out.data[static_cast<size_t>(o * inner + i)] = acc;
    }
  return out;
}

float max_nan(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  return std::max(a, b);
}

// The factor of a 'scale' op: extra 'factor', or 'scale'.
float scale_factor(const std::vector<std::pair<std::string, ExtraValue>>& extra) {
  bool found = false;
  double f = extra_number(extra, "factor", &found);
  if (!found) f = extra_number(extra, "scale", &found);
  if (!found) throw MathError("'scale' needs extra 'factor'");
  return static_cast<float>(f);
}

// 'trans': the last two dimensions swapped.
NdArray transpose(const NdArray& x) {
  if (x.shape.size() < 2) throw MathError("'trans' needs at least 2 dimensions");
  NdArray out;
  out.shape = x.shape;
  std::swap(out.shape[out.shape.size() - 1], out.shape[out.shape.size() - 2]);
  const int64_t r = x.shape[x.shape.size() - 2], c = x.shape.back();
  const int64_t batch = x.numel() / (r * c);
  out.data.resize(x.data.size());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j)
        out.data[static_cast<size_t>(b * r * c + j * r + i)] =
            x.data[static_cast<size_t>(b * r * c + i * c + j)];
  return out;
}

// 'mask': -inf where column j > row i + offset in every [r, c] matrix.
NdArray mask(NdArray out, int64_t offset) {
  if (out.shape.size() < 2) throw MathError("'mask' needs at least 2 dimensions");
  const int64_t r = out.shape[out.shape.size() - 2], c = out.shape.back();
  for (int64_t e = 0; e < out.numel(); ++e) {
    const int64_t j = e % c, i = (e / c) % r;
    if (j > i + offset) out.data[static_cast<size_t>(e)] = -std::numeric_limits<float>::infinity();
  }
  return out;
}

}  // namespace

Shape broadcast_shape(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw MathError("shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {

NdArray builtin_math_eval(const std::string& kind, const std::vector<NdArray>& in,
                          const std::vector<std::pair<std::string, ExtraValue>>& extra) {
  auto need = [&](size_t n) {
    if (in.size() < n)
      throw MathError("'" + kind + "' needs " + std::to_string(n) + " operand(s), got " +
                      std::to_string(in.size()));
  };
  bool found = false;
  if (kind == "add" || kind == "bias" || kind == "reduce_add") {
    need(2);
    return elementwise({in[0], in[1]}, [](const float* v) { return v[0] + v[1]; });
  }
  if (kind == "sub") {
    need(2);
    return elementwise({in[0], in[1]}, [](const float* v) { return v[0] - v[1]; });
  }
  if (kind == "mul" || kind == "mul_bcast") {
    need(2);
    return elementwise({in[0], in[1]}, [](const float* v) { return v[0] * v[1]; });
  }
  if (kind == "div") {
    need(2);
    return elementwise({in[0], in[1]}, [](const float* v) { return v[0] / v[1]; });
  }
  if (kind == "max" || kind == "max_elem") {
    need(2);
    return elementwise({in[0], in[1]}, [](const float* v) { return max_nan(v[0], v[1]); });
  }
  if (kind == "fma") {
    need(3);
    return elementwise({in[0], in[1], in[2]}, [](const float* v) { return v[0] * v[1] + v[2]; });
  }
  if (kind == "exp_diff") {
    need(2);
    return elementwise({in[0], in[1]}, [](const float* v) {
      if (std::isinf(v[0]) && v[0] < 0) return 0.0f;  // exp(-inf - anything) := 0
      return std::exp(v[0] - v[1]);
    });
  }
  if (kind == "relu") {
    need(1);
    return elementwise(
        {in[0]}, [](const float* v) { return std::isnan(v[0]) ? v[0] : std::max(v[0], 0.0f); });
  }
  if (kind == "exp") {
    need(1);
    return elementwise({in[0]}, [](const float* v) { return std::exp(v[0]); });
  }
  if (kind == "neg") {
    need(1);
    return elementwise({in[0]}, [](const float* v) { return -v[0]; });
  }
  if (kind == "recip") {
    need(1);
    return elementwise({in[0]}, [](const float* v) { return 1.0f / v[0]; });
  }
  if (kind == "rsqrt") {  // 1 / sqrt(x + eps), the RMSNorm denominator (extra eps, default 0)
    need(1);
    const auto eps = static_cast<float>(extra_number(extra, "eps", &found));
    return elementwise({in[0]}, [eps](const float* v) { return 1.0f / std::sqrt(v[0] + eps); });
  }
  if (kind == "copy" || kind == "cast") {
    need(1);
    return in[0];
  }
  if (kind == "gelu") {
    need(1);
    return elementwise({in[0]}, [](const float* v) {
      return 0.5f * v[0] * (1.0f + std::erf(v[0] / std::sqrt(2.0f)));
    });
  }
  if (kind == "silu") {
    need(1);
    return elementwise({in[0]}, [](const float* v) { return v[0] / (1.0f + std::exp(-v[0])); });
  }
  if (kind == "scale") {
    need(1);
    const float ff = scale_factor(extra);
    return elementwise({in[0]}, [ff](const float* v) { return v[0] * ff; });
  }
  if (kind == "dequant") {
    need(1);
    if (in.size() >= 2)
      return elementwise({in[0], in[1]}, [](const float* v) { return v[0] * v[1]; });
    const double s = extra_number(extra, "scale", &found);
    if (!found) throw MathError("'dequant' needs a 'scale' operand or extra");
    const auto sf = static_cast<float>(s);
    return elementwise({in[0]}, [sf](const float* v) { return v[0] * sf; });
  }
  if (kind == "rmax" || kind == "rsum") {
    need(1);
    double axis = extra_number(extra, "reduce_axis", &found);
    if (!found) axis = -1;
    return reduce(in[0], static_cast<int64_t>(axis), kind == "rmax");
  }
  if (kind == "trans") {
    need(1);
    return transpose(in[0]);
  }
  if (kind == "mask") {
    need(1);
    return mask(in[0], static_cast<int64_t>(extra_number(extra, "offset", &found)));
  }
  throw MathError("no numerics for op kind '" + kind + "'");
}

}  // namespace

NdArray math_eval(const std::string& kind, const std::vector<NdArray>& in,
                  const std::vector<std::pair<std::string, ExtraValue>>& extra) {
  if (const MathOpDef* d = find_registered_math_op(kind)) {  // a program's own (math_ops.h)
    if (in.size() < d->operands)
      throw MathError("'" + kind + "' needs " + std::to_string(d->operands) + " operand(s), got " +
                      std::to_string(in.size()));
    return d->eval(in, extra);
  }
  return builtin_math_eval(kind, in, extra);
}

}  // namespace kb
