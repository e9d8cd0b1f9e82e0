// How a model is laid onto the platform's PEs for one decode or prefill step: the
// tensor-parallel mapping of firmware/kernels/transformer_decode.h (which
// rank holds which columns, rows, vocabulary slice and KV positions), the
// bytes each rank keeps in its HBM, and the checks that make an impossible
// mapping a clear error.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "firmware/kernels/transformer_decode.h"
#include "models/common/errors.h"
#include "platform/config/topology_config.h"
#include "platform/llm/model_spec.h"

namespace kb {

// TpMapping's UsageError for a rank whose weights, KV cache and activations
// do not fit its HBM slice, so that the llm bench can name a model that would.
class HbmFitError : public UsageError {
 public:
  using UsageError::UsageError;
};

// One step of the llm bench: a decode step (one new token per sequence) or
// a prefill (a prompt per sequence into an empty cache).
struct LlmRun {
  bool prefill = false;
  int64_t batch = 1;
  // Decode: tokens already in the KV cache; the new one is at position context.
  int64_t context = 1;
  int64_t prompt = 0;  // prefill: tokens per sequence's prompt
  int64_t layers = 0;  // layers simulated (the model's depth unless fewer are asked for)
  int64_t tile = 64;   // KV positions per attention tile
  // The KV cache in the GEMM's native blocks (fw::KvSegment; kt's blocks in
  // column-major grid order, v's in row-major), so that every b tile of the
  // attention's GEMMs is one contiguous run; else plain row-major.
  bool kv_tiled = false;
  unsigned ranks = 0;      // PEs the model is spread over (0 = every PE)
  int64_t attn_chunk = 0;  // sequences per attention reduce (0 = as many as the TCM holds)
  std::string variant = "opt2";
  // The norm every rank runs: rmsnorm, or a registered norm kernel
  // (norm_kernels.h; needs the replicated residual stream).
  std::string norm = "rmsnorm";
  // The all-reduces over every rank: hierarchical by cube, or the tree; with
  // `auto_allreduce`, hierarchical wherever the ranks fill whole cubes (or
  // lie in one), with halving and doubling across a power of two of cubes,
  // and the tree otherwise.
  bool cube_allreduce = false;
  bool auto_allreduce = false;
  // Hierarchical with recursive halving and doubling across the cubes
  // (fw::CrossCube::kHalving) instead of the tree.
  bool halving_allreduce = false;
  // The residual stream sequence parallel (fw::TransformerStepArgs::
  // sharded_residual): reduce-scatter, norm and add on each rank's shard,
  // all-gather of the normalised stream. Needs the halving all-reduce.
  bool sharded_residual = false;
  // Let the llm bench choose between the two (its residual=auto).
  bool auto_residual = false;
  // Pipeline stages: the PE a stage's tensor-parallel mapping starts at (in
  // (SIP, cube, PE) order), the model's index of its first layer, and
  // whether it ends with the final norm and the LM head (the last stage's).
  unsigned first_pe = 0;
  int64_t first_layer = 0;
  bool has_head = true;
};

// The part of one rank: where it is and what it holds.
struct RankPlan {
  PeAddr pe;
  unsigned rank = 0, group = 0, group_rank = 0;
  fw::Slice qkv, o, ffn, vocab, kv;
  // HBM bytes it keeps: weights (all layers, final norm, LM head slice), KV
  // cache (all layers, all sequences) and activations.
  uint64_t weight_bytes = 0, kv_bytes = 0, activation_bytes = 0;
  uint64_t hbm_bytes() const { return weight_bytes + kv_bytes + activation_bytes; }
};

// The KV positions of a KV head the step ends with: context + 1 (decode) or
// the prompt (prefill).
int64_t kv_positions(const LlmRun& run);
// Rows of the residual stream: the batch (decode) or batch x prompt (prefill).
int64_t stream_rows(const LlmRun& run);

class TpMapping {
 public:
  // Throws UsageError for a mapping the platform cannot hold: more ranks than
  // PEs, ranks that do not split into kv_heads groups, a slice with nothing
  // in it, a rank whose HBM is too small (HbmFitError, naming it and the
  // bytes missing), whose TCM cannot hold the attention's buffers, or whose
  // IPCQ ring region (pe.ipcq.ring_bytes) cannot hold a ring for every peer
  // it receives from.
  TpMapping(const ModelSpec& model, const LlmRun& run, const TopologyConfig& cfg);

  const std::vector<RankPlan>& ranks() const { return ranks_; }
  const std::vector<PeAddr>& order() const { return order_; }
  unsigned ranks_per_group() const { return per_group_; }
  // The PEs of KV-head group `g`, or of `r`'s, in rank order.
  std::vector<PeAddr> group(unsigned g) const;
  std::vector<PeAddr> group_of(const RankPlan& r) const { return group(r.group); }
  // The peers whose IPCQ rings `r` opens at a step's start, as the kernel
  // finds them (fw::tx::ring_sources).
  std::vector<PeAddr> ring_sources(const RankPlan& r) const;
  // The collectives' part of `r`'s step arguments: the ranks, its group, the
  // all-reduce and whether the residual stream is sharded.
  fw::TransformerStepArgs step_args(const RankPlan& r) const;
  fw::TransformerShape shape() const;
  // TCM a rank's kernel may use for one phase's buffers.
  uint64_t tcm_budget() const { return tcm_budget_; }
  // What a rank may keep in TCM across phases (TransformerStepArgs): the
  // partial sums of a row-parallel layer, and xn in the GEMM phases.
  uint64_t partial_tcm_limit() const { return partial_tcm_limit_; }
  uint64_t xn_tcm_limit() const { return xn_tcm_limit_; }
  // Where the step of this run keeps them.
  fw::StreamResidency residency() const;
  // Sequences whose attention states are reduced together.
  int64_t attn_chunk() const { return attn_chunk_; }
  // Ranks per cube of the hierarchical all-reduce (0: the binomial tree).
  unsigned allreduce_per_cube() const { return allreduce_per_cube_; }
  // How the hierarchical all-reduce sums across the cubes.
  fw::CrossCube allreduce_across() const { return allreduce_across_; }
  // The all-reduce's name in the results: tree, hierarchical or halving.
  const char* allreduce_name() const;
  // Whether the residual stream is sharded over the ranks (LlmRun::sharded_residual).
  bool sharded_residual() const { return run_.sharded_residual; }
  // "replicated" or "sharded".
  const char* residual_name() const { return run_.sharded_residual ? "sharded" : "replicated"; }
  // The mapping as the JSON result describes it.
  nlohmann::json describe() const;

 private:
  // Throws when a rank's HBM or TCM is too small; sets the TCM budget and
  // the attention chunk.
  void check_fits(const TopologyConfig& cfg);
  // Every rank can open the IPCQ ring of each peer it receives from (in TCM).
  void check_rings(const TopologyConfig& cfg) const;
  // With the partial sums in HBM, every rank's all-reduce of them can stage
  // each reducing peer's slots (fw::tx::stream_reduce_sources) in the TCM
  // `arena` beside what a layer keeps there.
  void check_reduce_staging(const TopologyConfig& cfg, uint64_t arena) const;

  // How a KV-head group gathers its QKV and merges its attention, for describe().
  std::string group_collectives() const;
  // Chooses the all-reduce over the W ranks as `run` asks; throws when it cannot run.
  void set_allreduce(const LlmRun& run, unsigned W, const TopologyConfig& cfg);
  // Throws unless the all-reduce can reduce-scatter and all-gather (the halving).
  void check_sharded_residual(unsigned W) const;

  ModelSpec model_;
  LlmRun run_;
  std::vector<PeAddr> order_;
  std::vector<RankPlan> ranks_;
  unsigned per_group_ = 0;
  uint64_t tcm_budget_ = 0;
  uint64_t partial_tcm_limit_ = 0;
  uint64_t xn_tcm_limit_ = 0;
  int64_t weight_block_rows_ = 0;  // the tiled weights' block rows (the native tile's k)
  int64_t attn_chunk_ = 0;
  unsigned allreduce_per_cube_ = 0;
  fw::CrossCube allreduce_across_ = fw::CrossCube::kTree;
};

// [i * total / n, (i + 1) * total / n): the i-th of n near-equal slices.
fw::Slice even_slice(int64_t total, int64_t n, int64_t i);

}  // namespace kb
