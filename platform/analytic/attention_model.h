// The analytic model of the attention benches (gqa-decode, gqa-long,
// gqa-sweep, gqa-short, gqa-prefill): the critical path of each kernel as a
// sum of named terms, every one computed from the topology's configured
// latencies, bandwidths and the dispatch cost of the real command objects
// the kernels issue (never from a measurement, no fitted constant).
// docs/ARCHITECTURE.md, "The attention models", derives the terms.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "firmware/kernels/attention_long_decode.h"
#include "platform/config/topology_config.h"

namespace kb {

// Attention shapes are bounded so that every product of them fits in 64 bits
// (16 Mi positions, 64 Ki-position tiles, 4096 heads or head dimensions); the
// attention benches check their parameters against these.
constexpr long long kMaxPositions = 1 << 24, kMaxTile = 1 << 16, kMaxHeads = 4096;

// The classes of work the critical path is split into.
namespace attn_class {
inline constexpr const char* kDispatch = "pe_cpu_dispatch";
inline constexpr const char* kGemm = "gemm_tiles_at_peak";
inline constexpr const char* kKvStream = "kv_stream_fill";
inline constexpr const char* kMath = "math_over_lanes";
inline constexpr const char* kFetchStore = "fetch_store";
inline constexpr const char* kReduce = "reduce_alpha_beta";
inline constexpr const char* kQLoad = "q_load_skew";
inline constexpr const char* kOutput = "output_store";
}  // namespace attn_class

// Time along a path, split by class (ns per class name).
class ClassTime {
 public:
  ClassTime() = default;
  ClassTime(const char* cls, double ns) { add(cls, ns); }
  void add(const char* cls, double ns);
  ClassTime& operator+=(const ClassTime& o);
  ClassTime scaled(double f) const;
  double total() const;
  const std::vector<std::pair<std::string, double>>& parts() const { return parts_; }

 private:
  std::vector<std::pair<std::string, double>> parts_;
};
ClassTime operator+(ClassTime a, const ClassTime& b);
// The longer of two paths (the first on a tie).
const ClassTime& longer(const ClassTime& a, const ClassTime& b);

struct AttentionModel {
  double total_ns = 0;
  // Named terms of the critical path, in order; they add up to total_ns.
  std::vector<std::pair<std::string, double>> terms;
  // The same critical path split by class (attn_class); adds up to total_ns.
  ClassTime classes;
  std::string mode;  // the regime, e.g. "opt2 case A (serial period)"
  // Facts of the model that are not terms (a period, a count, the bottleneck).
  nlohmann::json facts = nlohmann::json::object();
  // total_ns is only a bound, and why (the measurement may lie below it).
  bool bound = false;
  std::string bound_reason;
  // Effects of this point the model does not price (empty: none).
  std::vector<std::string> unpriced;

  // {"total_ns", "mode", "terms", "classes", "facts", ["bound", "bound_reason"], ["unpriced"]}.
  nlohmann::json to_json() const;
};

// gqa-decode: one KV-head group of G rows on one PE, K and V row-major.
AttentionModel gqa_decode_model(const TopologyConfig& cfg, int64_t g, int64_t d_head, int64_t s_kv,
                                int64_t tile, const std::string& variant);

// gqa-long / gqa-sweep / gqa-short: every head's placement, all launched at
// once; the root of head h (rank (0, 0) of heads[h]) writes its G rows to
// sip0.cube0.pe0's HBM.
struct LongDecodePoint {
  fw::DecodeCase mode;
  fw::ReduceShape intra = fw::ReduceShape::kTree;
  std::vector<fw::AttnPlacement> heads;
  int64_t g = 8, d_head = 128, s_kv = 8192, tile = 64;
  std::string variant = "opt2";
  bool tiled_kv = true;
};
AttentionModel long_decode_model(const TopologyConfig& cfg, const LongDecodePoint& pt);

// The llm decode step's attention on one KV-head group (the `attention`
// phase of firmware/kernels/transformer_decode.cpp): every rank sweeps its
// block of each of `batch` sequences in turn (Q already in TCM, its KV block
// in its own HBM), then the group's binomial tree merges the packed states
// of all batch x G rows into rank 0, which normalises them into the output
// (its broadcast to the group is the caller's). `blocks[r]`: rank r's KV
// positions; `group` in rank order, inside one SIP; `kv_tiled`: the KV
// cache in the GEMM's native blocks (LlmRun::kv_tiled).
AttentionModel group_decode_model(const TopologyConfig& cfg, const std::vector<PeAddr>& group,
                                  const std::vector<int64_t>& blocks, int64_t batch, int64_t g,
                                  int64_t d_head, int64_t tile, const std::string& variant,
                                  bool kv_tiled);

// gqa-prefill: the ring of `ring_cubes` (SIP 0, PE 0 of each, in ring order).
AttentionModel ring_prefill_model(const TopologyConfig& cfg, int64_t s, int64_t t_q, int64_t tile,
                                  int64_t d_head, const std::vector<unsigned>& ring_cubes);

// The IPCQ point-to-point transfer of `bytes` over `hops` cube links:
// alpha + bytes * beta (docs/ARCHITECTURE.md, "The attention models").
struct IpcqAlphaBeta {
  double alpha_ns = 0, beta_ns_per_byte = 0;
  double xfer_ns(uint64_t bytes) const {
    return alpha_ns + static_cast<double>(bytes) * beta_ns_per_byte;
  }
};
IpcqAlphaBeta attention_ipcq_alpha_beta(const TopologyConfig& cfg, unsigned hops);

// The log-sum-exp merge of one child's state (nine MATH commands), ns.
double attention_lse_merge_ns(const TopologyConfig& cfg, int64_t rows, int64_t d_head);

}  // namespace kb
