// The numerics of PE_MATH in data mode (pure; fp32 compute). A program adds
// op kinds of its own with their numerics and cost (models/math/math_ops.h,
// register_math_op); math_eval evaluates those too.
//
// Binary and ternary ops broadcast numpy-style (shapes aligned at the right;
// a dimension of 1 stretches). Reductions take `reduce_axis` (default -1) and
// keep the reduced dimension (keepdims). Op kinds (every one math_kinds(),
// models/commands/op_kinds.h, knows; tests/unit/test_math_eval.cpp checks
// this list against it, a name per kind in the first column):
//   add sub mul div max max_elem mul_bcast bias reduce_add  binary, broadcast
//   fma                              a*b + c, broadcast
//   relu exp neg recip copy cast gelu silu   unary
//   rsqrt                            1 / sqrt(x + extra "eps"), eps default 0
//   scale                            x * extra "factor" (or "scale")
//   dequant                          x * (operand "scale" broadcast, or extra "scale")
//   rmax rsum                        reductions along reduce_axis, keepdims
//   exp_diff                         exp(a - b), broadcast
//   trans                            swaps the last two dimensions (moves data)
//   mask                             causal mask: element (i, j) of the last two
//                                    dims becomes -inf when j > i + extra "offset"
// Special values (the rule the kernels rely on):
//   exp_diff(a, b) is 0 wherever a is -inf, whatever b is: the online-softmax
//   correction exp(m - m_new) with m = m_new = -inf (a fully masked row) is 0,
//   not NaN. Otherwise NaN propagates (max, exp, arithmetic), as in numpy.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/commands/commands.h"

namespace kb {

struct NdArray {
  Shape shape;
  std::vector<float> data;
  int64_t numel() const;
};

class MathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Evaluates one op kind. Throws MathError (unknown kind, shapes that do not
// broadcast, a missing operand or extra).
NdArray math_eval(const std::string& kind, const std::vector<NdArray>& inputs,
                  const std::vector<std::pair<std::string, ExtraValue>>& extra);

// The broadcast shape of two shapes, or MathError.
Shape broadcast_shape(const Shape& a, const Shape& b);

// Index of element `flat` of `out_shape` in an operand of `shape` broadcast
// to it (shapes aligned at the right; a dimension of 1 stretches).
int64_t broadcast_index(int64_t flat, const Shape& out_shape, const Shape& shape);

}  // namespace kb
