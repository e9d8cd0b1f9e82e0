// The data-mode side of the llm bench: random seeded weights, KV history and
// input embeddings for a (small) model, and the double-precision reference
// forward pass of one decode step or prefill the simulated logits are
// checked against.
#pragma once

#include <cstdint>
#include <vector>

#include "platform/llm/model_spec.h"
#include "platform/llm/norm_kernels.h"

namespace kb {

// Every tensor of the model, row-major, holding the values the device holds
// (rounded to the model's dtype; the input embeddings stay fp32).
struct ModelWeights {
  struct Layer {
    std::vector<float> g_attn, g_ffn;  // [H]
    std::vector<float> wq;             // [H, heads * d]
    std::vector<float> wk, wv;         // [H, kv_heads * d]
    std::vector<float> wo;             // [heads * d, H]
    std::vector<float> wgate, wup;     // [H, ffn]
    std::vector<float> wdown;          // [ffn, H]
    // Per sequence: the cache of positions 0 .. pos-1, [pos, kv_heads * d]
    // (K already rotated, as a cache stores it).
    std::vector<std::vector<float>> k_past, v_past;
  };
  std::vector<Layer> layers;
  std::vector<float> g_final;  // [H]
  std::vector<float> wlm;      // [H, vocab]
  std::vector<float> x0;       // [batch * tokens, H]: the new tokens' embeddings
};

// Weights ~ U(-1, 1) / sqrt(fan-in), norm weights 1 + U(-0.1, 0.1), cache and
// embeddings ~ U(-1, 1); deterministic in `seed`.
ModelWeights random_model(const ModelSpec& m, int64_t layers, int64_t batch, int64_t pos,
                          uint64_t seed, int64_t tokens = 1);

// The rotary embedding of position `pos` as a [d, d] matrix M: a head row r
// becomes r · M (pairs (i, i + d/2) rotated by pos * theta^(-2i/d)).
std::vector<double> rope_matrix(int64_t d, int64_t pos, double theta);

// The logits [batch, vocab] of each sequence's last new token, in double:
// `tokens` new tokens per sequence at positions pos .. pos + tokens - 1,
// each attending causally to the cache and to the new tokens up to itself
// (a decode step: tokens = 1; a prefill: pos = 0, tokens = the prompt).
// Every norm is the RMSNorm, or `norm` when given (a registered norm
// kernel's reference, norm_kernels.h).
std::vector<double> reference_logits(const ModelSpec& m, const ModelWeights& w, int64_t batch,
                                     int64_t pos, int64_t tokens = 1,
                                     const NormReference* norm = nullptr);

}  // namespace kb
