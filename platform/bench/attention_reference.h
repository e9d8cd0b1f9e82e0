// Inputs and the double-precision reference of the attention benches
// (gqa-decode, gqa-long, gqa-prefill, gqa-short): random fp16 Q, K and V, and
// the error of a kernel's output against softmax(scale·Q·Kᵀ)·V computed in
// double, with an optional causal mask.
#pragma once

#include <cstdint>
#include <vector>

namespace kb {

struct AttnData {
  int64_t rows = 0, d = 0, s = 0;
  std::vector<float> q;   // [rows, d]
  std::vector<float> kt;  // [d, s]  (K transposed)
  std::vector<float> v;   // [s, d]
};

// Values already rounded to fp16. q and k ~ U(-a, a) with a chosen so that
// q·k/sqrt(d) has standard deviation score_std (10 spreads the logits over
// about ±30: high contrast); v ~ U(-1, 1).
AttnData random_attention_inputs(int64_t rows, int64_t d, int64_t s, double score_std,
                                 uint64_t seed);

// Columns [first, first + n) of a row-major [r, c] matrix, as [r, n].
std::vector<float> columns(const std::vector<float>& m, int64_t r, int64_t c, int64_t first,
                           int64_t n);
// Rows [first, first + n) of a row-major [r, c] matrix.
std::vector<float> rows(const std::vector<float>& m, int64_t c, int64_t first, int64_t n);

// max |out - reference| over out [rows, d]. With causal_pos0 >= 0, query row
// i sits at position causal_pos0 + i % causal_period (causal_period 0 = rows)
// and sees KV positions <= it; otherwise every row sees every position.
double attention_max_error(const AttnData& in, const std::vector<float>& out, double scale,
                           int64_t causal_pos0 = -1, int64_t causal_period = 0);

}  // namespace kb
