// The numerics of PE_MATH (models/math/math_eval.h): every op kind against a
// double-precision reference computed here, on shapes that broadcast
// numpy-style ([G,T] with [G,1], [N] with [M,N], [1,N], scalars) and with
// keepdims reductions along either axis; the special values of the max and
// exp paths (NaN propagates; exp_diff(-inf, x) = 0, so a fully masked row of
// an online softmax does not poison the result); a true transpose; errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/commands/op_kinds.h"
#include "models/math/math_eval.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

using Extra = std::vector<std::pair<std::string, ExtraValue>>;

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

// The op kinds this file checks against a reference (see AllOpKindsAreCovered).
const std::set<std::string> kCovered = {
    "add",   "bias",    "reduce_add", "sub",  "mul",      "mul_bcast", "div",  "max",  "max_elem",
    "fma",   "relu",    "exp",        "neg",  "recip",    "copy",      "cast", "gelu", "silu",
    "scale", "dequant", "rmax",       "rsum", "exp_diff", "trans",     "mask", "rsqrt"};

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

NdArray arr(Shape shape, std::vector<float> data) {
  NdArray a;
  a.shape = std::move(shape);
  a.data = std::move(data);
  return a;
}

// Values with magnitudes in [0.5, 3] and random signs (safe as divisors).
NdArray random_arr(const Shape& shape, std::mt19937& rng) {
  std::uniform_real_distribution<float> mag(0.5f, 3.0f);
  std::bernoulli_distribution neg(0.5);
  NdArray a;
  a.shape = shape;
  for (int64_t i = 0; i < numel(shape); ++i) a.data.push_back(neg(rng) ? -mag(rng) : mag(rng));
  return a;
}

// Element (i, j) of `a` broadcast against a 2-D [R, C] output (numpy rules,
// written out for ranks 0..2).
double at2(const NdArray& a, int64_t i, int64_t j) {
  if (a.shape.empty()) return a.data.at(0);
  if (a.shape.size() == 1) return a.data.at(static_cast<size_t>(a.shape[0] == 1 ? 0 : j));
  const int64_t r = a.shape[0] == 1 ? 0 : i, c = a.shape[1] == 1 ? 0 : j;
  return a.data.at(static_cast<size_t>(r * a.shape[1] + c));
}

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

// Shape pairs that broadcast to [4, 6], with their 2-D output shape.
struct BcastCase {
  Shape a, b;
};
const std::vector<BcastCase> kBcast = {
    {{4, 6}, {4, 6}},  // same shape
    {{4, 6}, {4, 1}},  // [G,T] with [G,1]
    {{4, 1}, {4, 6}},  // ... either way round
    {{6}, {4, 6}},     // [N] with [M,N]
    {{4, 6}, {6}},     // [M,N] with [N]
    {{4, 6}, {1, 6}},  // [1,N]
    {{1, 6}, {4, 1}},  // both stretch
    {{4, 6}, {}},      // scalar
};

struct BinaryOp {
  std::string kind;
  std::function<double(double, double)> ref;
  bool exact;  // one correctly rounded fp32 operation: the result equals float(ref)
};

const std::vector<BinaryOp> kBinary = {
    {"add", [](double a, double b) { return a + b; }, true},
    {"bias", [](double a, double b) { return a + b; }, true},
    {"reduce_add", [](double a, double b) { return a + b; }, true},
    {"sub", [](double a, double b) { return a - b; }, true},
    {"mul", [](double a, double b) { return a * b; }, true},
    {"mul_bcast", [](double a, double b) { return a * b; }, true},
    {"div", [](double a, double b) { return a / b; }, true},
    {"max", [](double a, double b) { return std::max(a, b); }, true},
    {"max_elem", [](double a, double b) { return std::max(a, b); }, true},
    {"exp_diff", [](double a, double b) { return std::exp(a - b); }, false},
};

TEST(MathEval, BinaryOpsBroadcastNumpyStyle) {
  std::mt19937 rng(1);
  for (const BinaryOp& op : kBinary)
    for (const BcastCase& c : kBcast) {
      const NdArray a = random_arr(c.a, rng), b = random_arr(c.b, rng);
      const NdArray r = math_eval(op.kind, {a, b}, {});
      const std::string what = op.kind + " " + shape_str(c.a) + " with " + shape_str(c.b);
      ASSERT_EQ(r.shape, (Shape{4, 6})) << what;
      ASSERT_EQ(r.data.size(), 24u) << what;
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 6; ++j) {
          const double ref = op.ref(at2(a, i, j), at2(b, i, j));
          const float got = r.data[static_cast<size_t>(i * 6 + j)];
          if (op.exact)
            EXPECT_EQ(got, static_cast<float>(ref)) << what << " at " << i << "," << j;
          else  // exp of an fp32 difference of operands in [-3, 3]: a few ulps
            EXPECT_NEAR(got, ref, 2e-6 * std::abs(ref)) << what << " at " << i << "," << j;
        }
    }
}

TEST(MathEval, FmaBroadcastsAllThreeOperands) {
  std::mt19937 rng(2);
  const std::vector<std::vector<Shape>> cases = {{{4, 6}, {4, 6}, {4, 6}},
                                                 {{4, 6}, {4, 1}, {6}},
                                                 {{4, 1}, {4, 1}, {4, 1}},
                                                 {{6}, {4, 1}, {1, 6}},
                                                 {{4, 1}, {}, {4, 6}}};
  for (const auto& c : cases) {
    const NdArray a = random_arr(c[0], rng), b = random_arr(c[1], rng), d = random_arr(c[2], rng);
    const NdArray r = math_eval("fma", {a, b, d}, {});
    Shape want = broadcast_shape(broadcast_shape(c[0], c[1]), c[2]);
    ASSERT_EQ(r.shape, want);
    const int64_t R = want.size() == 2 ? want[0] : 1, C = want.back();
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) {
        const double x = at2(a, i, j), y = at2(b, i, j), z = at2(d, i, j);
        // Two fp32 roundings (product, then sum).
        const double tol = std::ldexp(1.0, -23) * (std::abs(x * y) + std::abs(z));
        EXPECT_NEAR(r.data[static_cast<size_t>(i * C + j)], x * y + z, tol)
            << shape_str(c[0]) << shape_str(c[1]) << shape_str(c[2]) << " at " << i << "," << j;
      }
  }
}

struct UnaryOp {
  std::string kind;
  Extra extra;
  std::function<double(double)> ref;
  double rel_tol;  // 0: exact (equals float(ref))
};

TEST(MathEval, UnaryOpsMatchTheReferenceOnEveryShape) {
  const std::vector<UnaryOp> ops = {
      {"relu", {}, [](double x) { return x > 0 ? x : 0.0; }, 0},
      {"neg", {}, [](double x) { return -x; }, 0},
      {"recip", {}, [](double x) { return 1.0 / x; }, 0},
      {"copy", {}, [](double x) { return x; }, 0},
      {"cast", {}, [](double x) { return x; }, 0},
      {"exp", {}, [](double x) { return std::exp(x); }, 1e-6},
      {"gelu", {}, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, 1e-6},
      {"silu", {}, [](double x) { return x / (1 + std::exp(-x)); }, 1e-6},
      {"scale", {{"factor", 0.125}}, [](double x) { return x * 0.125; }, 0},
      {"scale", {{"factor", int64_t{3}}}, [](double x) { return x * 3; }, 0},
      {"scale", {{"scale", -2.0}}, [](double x) { return x * -2; }, 0},
      {"dequant", {{"scale", 0.25}}, [](double x) { return x * 0.25; }, 0},
  };
  std::mt19937 rng(3);
  for (const UnaryOp& op : ops)
    for (const Shape& s : {Shape{4, 6}, Shape{2, 3, 4}, Shape{5}, Shape{}}) {
      const NdArray x = random_arr(s, rng);
      const NdArray r = math_eval(op.kind, {x}, op.extra);
      ASSERT_EQ(r.shape, s) << op.kind;
      for (size_t i = 0; i < x.data.size(); ++i) {
        const double ref = op.ref(x.data[i]);
        if (op.rel_tol == 0)
          EXPECT_EQ(r.data[i], static_cast<float>(ref)) << op.kind << shape_str(s) << " #" << i;
        else
          EXPECT_NEAR(r.data[i], ref, op.rel_tol * std::max(1.0, std::abs(ref)))
              << op.kind << shape_str(s) << " #" << i;
      }
    }
}

TEST(MathEval, RsqrtAddsEpsBeforeTheRoot) {
  const NdArray x = arr({2, 3}, {4, 0.25f, 1, 9, 16, 0});
  const NdArray r = math_eval("rsqrt", {x}, {{"eps", 1e-6}});
  ASSERT_EQ(r.shape, (Shape{2, 3}));
  for (size_t i = 0; i < x.data.size(); ++i)
    EXPECT_NEAR(r.data[i], 1.0 / std::sqrt(static_cast<double>(x.data[i]) + 1e-6), 1e-6 * r.data[i])
        << i;
  EXPECT_EQ(math_eval("rsqrt", {arr({1}, {4})}, {}).data[0], 0.5f);  // eps defaults to 0
}

TEST(MathEval, DequantBroadcastsAScaleOperand) {
  std::mt19937 rng(4);
  const NdArray x = random_arr({4, 6}, rng);
  for (const Shape& s : {Shape{6}, Shape{1, 6}, Shape{4, 1}, Shape{4, 6}}) {
    const NdArray scale = random_arr(s, rng);
    const NdArray r = math_eval("dequant", {x, scale}, {{"scale", 100.0}});  // operand wins
    ASSERT_EQ(r.shape, (Shape{4, 6}));
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 6; ++j)
        EXPECT_EQ(r.data[static_cast<size_t>(i * 6 + j)],
                  static_cast<float>(at2(x, i, j) * at2(scale, i, j)))
            << shape_str(s) << " at " << i << "," << j;
  }
}

// Reference keepdims reduction of a row-major array along `axis`.
std::vector<double> reduce_ref(const NdArray& x, int64_t axis, bool is_max, Shape* out_shape) {
  const auto rank = static_cast<int64_t>(x.shape.size());
  if (axis < 0) axis += rank;
  *out_shape = x.shape;
  (*out_shape)[static_cast<size_t>(axis)] = 1;
  const double init = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
  std::vector<double> out(static_cast<size_t>(numel(*out_shape)), init);
  for (int64_t e = 0; e < numel(x.shape); ++e) {
    // Coordinates of e, and the flat index in the output with coord[axis] = 0.
    int64_t rem = e, o = 0, stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t coord = rem % x.shape[static_cast<size_t>(d)];
      rem /= x.shape[static_cast<size_t>(d)];
      if (d != axis) o += coord * stride;
      stride *= (*out_shape)[static_cast<size_t>(d)];
    }
    const double v = x.data[static_cast<size_t>(e)];
    double& acc = out[static_cast<size_t>(o)];
    acc = is_max ? std::max(acc, v) : acc + v;
  }
  return out;
}

TEST(MathEval, ReductionsKeepTheReducedDimension) {
  std::mt19937 rng(5);
  struct Case {
    Shape shape;
    int64_t axis;
    Shape want;
  };
  const std::vector<Case> cases = {
      {{4, 6}, -1, {4, 1}},       {{4, 6}, 1, {4, 1}},
      {{4, 6}, 0, {1, 6}},        {{4, 6}, -2, {1, 6}},
      {{2, 3, 4}, -1, {2, 3, 1}}, {{2, 3, 4}, 1, {2, 1, 4}},
      {{2, 3, 4}, 0, {1, 3, 4}},  {{7}, 0, {1}},
      {{1, 6}, 0, {1, 6}},
  };
  for (const std::string kind : {"rmax", "rsum"})
    for (const Case& c : cases) {
      const NdArray x = random_arr(c.shape, rng);
      const NdArray r = math_eval(kind, {x}, {{"reduce_axis", c.axis}});
      const std::string what = kind + shape_str(c.shape) + " axis " + std::to_string(c.axis);
      ASSERT_EQ(r.shape, c.want) << what;
      Shape ref_shape;
      const auto ref = reduce_ref(x, c.axis, kind == "rmax", &ref_shape);
      ASSERT_EQ(ref_shape, c.want);
      const int64_t len = c.shape[static_cast<size_t>(
          c.axis < 0 ? c.axis + static_cast<int64_t>(c.shape.size()) : c.axis)];
      for (size_t i = 0; i < ref.size(); ++i) {
        if (kind == "rmax")
          EXPECT_EQ(r.data[i], static_cast<float>(ref[i])) << what << " #" << i;
        else  // sequential fp32 sum: at most len roundings of partial sums <= 3·len
          EXPECT_NEAR(r.data[i], ref[i], len * 3.0 * len * std::ldexp(1.0, -24))
              << what << " #" << i;
      }
    }
  // Without reduce_axis the last axis is reduced.
  const NdArray x = random_arr({3, 5}, rng);
  EXPECT_EQ(math_eval("rmax", {x}, {}).shape, (Shape{3, 1}));
  EXPECT_EQ(math_eval("rsum", {x}, {}).shape, (Shape{3, 1}));
  EXPECT_EQ(math_eval("rsum", {x}, {{"reduce_axis", 0.0}}).shape, (Shape{1, 5}));  // as a double
}

TEST(MathEval, TransposeMovesData) {
  // x[i][j] = 10 i + j: after trans, element [j][i] holds 10 i + j.
  NdArray x = arr({3, 5}, {});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) x.data.push_back(static_cast<float>(10 * i + j));
  const NdArray t = math_eval("trans", {x}, {});
  ASSERT_EQ(t.shape, (Shape{5, 3}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      EXPECT_EQ(t.data[static_cast<size_t>(j * 3 + i)], static_cast<float>(10 * i + j))
          << i << "," << j;
  EXPECT_NE(t.data, x.data);                            // not a reshape: the bytes moved
  EXPECT_EQ(math_eval("trans", {t}, {}).data, x.data);  // an involution

  // Batched: the last two dimensions swap, per batch.
  NdArray y = arr({2, 3, 4}, {});
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) y.data.push_back(static_cast<float>(100 * b + 10 * i + j));
  const NdArray ty = math_eval("trans", {y}, {});
  ASSERT_EQ(ty.shape, (Shape{2, 4, 3}));
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        EXPECT_EQ(ty.data[static_cast<size_t>(b * 12 + j * 3 + i)],
                  static_cast<float>(100 * b + 10 * i + j));
}

TEST(MathEval, MaskSetsTheStrictUpperTriangleToMinusInfinity) {
  std::mt19937 rng(6);
  for (int64_t offset : {0, 2, -1}) {
    const NdArray x = random_arr({2, 4, 6}, rng);
    const NdArray r = math_eval("mask", {x}, {{"offset", offset}});
    ASSERT_EQ(r.shape, x.shape);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 6; ++j) {
          const auto e = static_cast<size_t>((b * 4 + i) * 6 + j);
          if (j > i + offset)
            EXPECT_EQ(r.data[e], -kInf) << offset << ": " << b << "," << i << "," << j;
          else
            EXPECT_EQ(r.data[e], x.data[e]) << offset << ": " << b << "," << i << "," << j;
        }
  }
  // No offset extra: offset 0.
  const NdArray x = random_arr({3, 3}, rng);
  const NdArray r = math_eval("mask", {x}, {});
  EXPECT_EQ(r.data[1], -kInf);
  EXPECT_EQ(r.data[3], x.data[3]);
}

TEST(MathEval, MaxAndReductionsPropagateNan) {
  const NdArray a = arr({4}, {kNan, 1.0f, kNan, -kInf});
  const NdArray b = arr({4}, {1.0f, kNan, kNan, kNan});
  for (const std::string kind : {"max", "max_elem"}) {
    const NdArray r = math_eval(kind, {a, b}, {});
    for (float v : r.data) EXPECT_TRUE(std::isnan(v)) << kind << ": " << v;
    // -inf is the identity of max; +inf absorbs.
    const NdArray s =
        math_eval(kind, {arr({3}, {-kInf, -kInf, kInf}), arr({3}, {2.0f, -kInf, 1.0f})}, {});
    EXPECT_EQ(s.data, (std::vector<float>{2.0f, -kInf, kInf})) << kind;
  }
  // rmax over a row with a NaN is NaN wherever the NaN sits; other rows unaffected.
  const NdArray x = arr({3, 3}, {kNan, 5.0f, 1.0f, 1.0f, 5.0f, kNan, 1.0f, 2.0f, 3.0f});
  const NdArray m = math_eval("rmax", {x}, {{"reduce_axis", int64_t{-1}}});
  EXPECT_TRUE(std::isnan(m.data[0]));
  EXPECT_TRUE(std::isnan(m.data[1]));
  EXPECT_EQ(m.data[2], 3.0f);
  EXPECT_TRUE(std::isnan(math_eval("rsum", {x}, {}).data[0]));
  // Arithmetic and exp propagate NaN (numpy).
  EXPECT_TRUE(std::isnan(math_eval("add", {arr({1}, {kNan}), arr({1}, {1.0f})}, {}).data[0]));
  EXPECT_TRUE(std::isnan(math_eval("exp", {arr({1}, {kNan})}, {}).data[0]));
  EXPECT_TRUE(std::isnan(math_eval("relu", {arr({1}, {kNan})}, {}).data[0]));
}

TEST(MathEval, MinusInfinityCasesOfTheMaxAndExpPaths) {
  // rmax over a row of all -inf is -inf (not NaN, not the lowest finite value).
  const NdArray s = arr({2, 3}, {-kInf, -kInf, -kInf, -kInf, 0.5f, -kInf});
  const NdArray m = math_eval("rmax", {s}, {});
  EXPECT_EQ(m.data, (std::vector<float>{-kInf, 0.5f}));
  EXPECT_EQ(math_eval("rmax", {s}, {{"reduce_axis", int64_t{0}}}).data,
            (std::vector<float>{-kInf, 0.5f, -kInf}));
  EXPECT_EQ(math_eval("rsum", {arr({2}, {-kInf, 1.0f})}, {}).data[0], -kInf);

  // exp(-inf) = 0, exp(+inf) = inf.
  EXPECT_EQ(math_eval("exp", {arr({3}, {-kInf, kInf, 0.0f})}, {}).data,
            (std::vector<float>{0.0f, kInf, 1.0f}));

  // exp_diff(a, b) = exp(a - b), with the documented rule exp_diff(-inf, x) = 0
  // for every x: the online-softmax correction exp(m - m_new) of a fully
  // masked row (m = m_new = -inf) is 0, not exp(NaN).
  const NdArray a = arr({7}, {-kInf, -kInf, -kInf, 2.0f, -30.0f, 3.0f, 80.0f});
  const NdArray b = arr({7}, {-kInf, 3.0f, kNan, 2.0f, -30.0f, -kInf, 80.0f});
  const NdArray r = math_eval("exp_diff", {a, b}, {});
  EXPECT_EQ(r.data[0], 0.0f);  // exp(-inf - -inf) := 0
  EXPECT_EQ(r.data[1], 0.0f);  // exp(-inf - 3) = 0
  EXPECT_EQ(r.data[2], 0.0f);  // "whatever b is"
  EXPECT_EQ(r.data[3], 1.0f);  // exp_diff(x, x) = 1
  EXPECT_EQ(r.data[4], 1.0f);
  EXPECT_EQ(r.data[5], kInf);  // exp(3 + inf)
  EXPECT_EQ(r.data[6], 1.0f);  // large equal values: still exactly 1
  EXPECT_FALSE(std::signbit(r.data[0]));
  // Otherwise NaN propagates.
  EXPECT_TRUE(std::isnan(math_eval("exp_diff", {arr({1}, {kNan}), arr({1}, {1.0f})}, {}).data[0]));
  EXPECT_TRUE(std::isnan(math_eval("exp_diff", {arr({1}, {1.0f}), arr({1}, {kNan})}, {}).data[0]));
  // Broadcast against a keepdims row max, as softmax_merge step 4 does.
  const NdArray p = math_eval("exp_diff", {s, m}, {});
  ASSERT_EQ(p.shape, (Shape{2, 3}));
  EXPECT_EQ(p.data, (std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f}));
}

// softmax_merge (firmware/tl.h) over two KV tiles with math_eval, where row 0 is
// fully masked in the first tile and row 2 in both: no NaN leaks into a row
// that has any unmasked score, and the merged result equals softmax(S)·V.
TEST(MathEval, OnlineSoftmaxSurvivesAFullyMaskedTile) {
  const int64_t G = 3, T = 4, D = 2;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<NdArray> s(2), v(2);
  for (int k = 0; k < 2; ++k) {
    s[k] = arr({G, T}, {});
    v[k] = arr({T, D}, {});
    for (int64_t i = 0; i < G * T; ++i) s[k].data.push_back(u(rng));
    for (int64_t i = 0; i < T * D; ++i) v[k].data.push_back(u(rng));
  }
  for (int64_t j = 0; j < T; ++j) {
    s[0].data[static_cast<size_t>(0 * T + j)] = -kInf;  // row 0, tile 0: fully masked
    s[0].data[static_cast<size_t>(2 * T + j)] = -kInf;  // row 2: masked everywhere
    s[1].data[static_cast<size_t>(2 * T + j)] = -kInf;
  }
  s[1].data[static_cast<size_t>(1 * T + 3)] = -kInf;  // row 1: partly masked

  NdArray m = arr({G, 1}, std::vector<float>(G, -kInf));
  NdArray l = arr({G, 1}, std::vector<float>(G, 0.0f));
  NdArray o = arr({G, D}, std::vector<float>(G * D, 0.0f));
  for (int k = 0; k < 2; ++k) {
    const NdArray m_loc = math_eval("rmax", {s[k]}, {{"reduce_axis", int64_t{-1}}});
    const NdArray m_new = math_eval("max_elem", {m, m_loc}, {});
    const NdArray corr = math_eval("exp_diff", {m, m_new}, {});
    const NdArray p = math_eval("exp_diff", {s[k], m_new}, {{"bcast_axis", int64_t{0}}});
    const NdArray l_loc = math_eval("rsum", {p}, {{"reduce_axis", int64_t{-1}}});
    l = math_eval("fma", {l, corr, l_loc}, {});
    o = math_eval("mul_bcast", {o, corr}, {{"bcast_axis", int64_t{1}}});
    NdArray pv = arr({G, D}, std::vector<float>(G * D, 0.0f));
    for (int64_t i = 0; i < G; ++i)
      for (int64_t d = 0; d < D; ++d)
        for (int64_t t = 0; t < T; ++t)
          pv.data[static_cast<size_t>(i * D + d)] +=
              p.data[static_cast<size_t>(i * T + t)] * v[k].data[static_cast<size_t>(t * D + d)];
    o = math_eval("add", {o, pv}, {});
    m = math_eval("copy", {m_new}, {});
    if (k == 0) {  // the fully masked rows contribute exactly nothing yet
      EXPECT_EQ(corr.data[0], 0.0f);
      EXPECT_EQ(l.data[0], 0.0f);
      EXPECT_EQ(o.data[0], 0.0f);
      EXPECT_EQ(o.data[1], 0.0f);
    }
    for (float x : o.data) EXPECT_FALSE(std::isnan(x)) << "tile " << k;
    for (float x : l.data) EXPECT_FALSE(std::isnan(x)) << "tile " << k;
  }
  // Reference: softmax over the row's 8 scores (masked ones weigh 0) times V.
  for (int64_t i = 0; i < 2; ++i) {
    double mx = -std::numeric_limits<double>::infinity();
    for (int k = 0; k < 2; ++k)
      for (int64_t t = 0; t < T; ++t) mx = std::max<double>(mx, s[k].data[i * T + t]);
    double den = 0, num[D] = {0, 0};
    for (int k = 0; k < 2; ++k)
      for (int64_t t = 0; t < T; ++t) {
        const double w = std::exp(s[k].data[i * T + t] - mx);
        den += w;
        for (int64_t d = 0; d < D; ++d) num[d] += w * v[k].data[t * D + d];
      }
    for (int64_t d = 0; d < D; ++d)
      EXPECT_NEAR(o.data[static_cast<size_t>(i * D + d)] / l.data[static_cast<size_t>(i)],
                  num[d] / den, 1e-5)
          << "row " << i << " col " << d;
  }
  // The row masked everywhere stays at zero weight (its O and l are 0).
  EXPECT_EQ(l.data[2], 0.0f);
  EXPECT_EQ(o.data[4], 0.0f);
  EXPECT_EQ(o.data[5], 0.0f);
}

TEST(MathEval, ShapesThatDoNotBroadcastAreAMathError) {
  EXPECT_EQ(broadcast_shape({4, 1}, {1, 6}), (Shape{4, 6}));
  EXPECT_EQ(broadcast_shape({6}, {2, 4, 6}), (Shape{2, 4, 6}));
  EXPECT_EQ(broadcast_shape({}, {3}), (Shape{3}));
  try {
    broadcast_shape({2, 3}, {4});
    FAIL() << "no MathError";
  } catch (const MathError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("[2,3]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[4]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("broadcast"), std::string::npos) << msg;
  }
  std::mt19937 rng(8);
  const NdArray a = random_arr({2, 3}, rng), b = random_arr({3, 2}, rng), c = random_arr({4}, rng);
  for (const std::string kind : {"add", "sub", "mul", "div", "max", "exp_diff", "mul_bcast"}) {
    EXPECT_THROW(math_eval(kind, {a, b}, {}), MathError) << kind;
    EXPECT_THROW(math_eval(kind, {a, c}, {}), MathError) << kind;
  }
  EXPECT_THROW(math_eval("fma", {a, a, c}, {}), MathError);
  EXPECT_THROW(math_eval("dequant", {a, b}, {}), MathError);
}

TEST(MathEval, UnknownKindsAndMissingOperandsAreMathErrors) {
  std::mt19937 rng(9);
  const NdArray a = random_arr({2, 3}, rng);
  for (const std::string kind : {"frobnicate", "gemm", "", "ADD"}) {
    try {
      math_eval(kind, {a, a}, {});
      FAIL() << "no MathError for '" << kind << "'";
    } catch (const MathError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + kind + "'"), std::string::npos) << e.what();
    }
  }
  try {
    math_eval("add", {a}, {});
    FAIL() << "no MathError";
  } catch (const MathError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 2 operand"), std::string::npos) << e.what();
  }
  EXPECT_THROW(math_eval("fma", {a, a}, {}), MathError);
  EXPECT_THROW(math_eval("exp", {}, {}), MathError);
  EXPECT_THROW(math_eval("scale", {a}, {}), MathError);    // no factor
  EXPECT_THROW(math_eval("dequant", {a}, {}), MathError);  // no scale operand or extra
  EXPECT_THROW(math_eval("rmax", {a}, {{"reduce_axis", int64_t{2}}}), MathError);
  EXPECT_THROW(math_eval("rsum", {a}, {{"reduce_axis", int64_t{-3}}}), MathError);
  EXPECT_THROW(math_eval("rmax", {arr({}, {1.0f})}, {}), MathError);  // a scalar
  EXPECT_THROW(math_eval("trans", {arr({3}, {1, 2, 3})}, {}), MathError);
  EXPECT_THROW(math_eval("mask", {arr({3}, {1, 2, 3})}, {}), MathError);
}

// Every MATH op kind the command layer accepts has numerics, and this file
// checks each against a reference (a new kind without a test fails here).
TEST(MathEval, AllOpKindsAreCovered) {
  std::mt19937 rng(10);
  const NdArray x = random_arr({2, 2}, rng);
  for (const std::string& kind : math_kinds()) {
    EXPECT_TRUE(kCovered.count(kind)) << "op kind '" << kind << "' has no reference test";
    EXPECT_NO_THROW(math_eval(kind, {x, x, x}, {{"factor", 2.0}, {"scale", 2.0}})) << kind;
  }
  for (const std::string& kind : kCovered) EXPECT_TRUE(is_math_kind(kind)) << kind;
}

// The op kinds listed in math_eval.h's comment, the installed header a kernel
// writer reads: the list is the run of lines indented by three spaces after
// the line that says "Op kinds"; each line names kinds one space apart, then
// two or more spaces before its description, and a continuation line starts
// further in.
std::multiset<std::string> kinds_in_math_eval_comment() {
  std::ifstream in(test::source_path("models/math/math_eval.h"));
  EXPECT_TRUE(in) << "cannot read models/math/math_eval.h";
  const std::string item = "//   ";
  std::multiset<std::string> kinds;
  std::string line;
  bool after_heading = false, in_list = false;
  while (std::getline(in, line) && line.rfind("//", 0) == 0) {
    const bool is_item = line.rfind(item, 0) == 0;
    if (!after_heading) {
      after_heading = line.find("Op kinds") != std::string::npos;
      continue;
    }
    if (!is_item) {
      if (in_list) break;  // the list has ended
      continue;            // the heading's sentence goes on
    }
    in_list = true;
    if (line.size() <= item.size() || line[item.size()] == ' ') continue;  // continuation
    const std::string body = line.substr(item.size());
    std::istringstream names(body.substr(0, body.find("  ")));
    for (std::string name; names >> name;) kinds.insert(name);
  }
  return kinds;
}

// That comment lists every op kind math_kinds() accepts, each once, and no
// other (a kind added to op_kinds.cpp without its line fails here).
TEST(MathEval, TheHeaderCommentListsEveryOpKind) {
  const std::multiset<std::string> listed = kinds_in_math_eval_comment();
  ASSERT_FALSE(listed.empty()) << "no op-kind list found in models/math/math_eval.h";
  for (const std::string& kind : math_kinds())
    EXPECT_EQ(listed.count(kind), 1u)
        << "op kind '" << kind << "' is not listed once in math_eval.h's comment";
  for (const std::string& name : listed)
    EXPECT_TRUE(is_math_kind(name))
        << "math_eval.h's comment lists '" << name << "', which is no op kind";
  EXPECT_EQ(listed.size(), math_kinds().size());
}

}  // namespace
}  // namespace kb
