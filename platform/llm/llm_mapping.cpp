#include "platform/llm/llm_mapping.h"

#include <algorithm>

#include "firmware/kernels/transformer_ops.h"
#include "models/common/errors.h"
#include "platform/fabric/pe.h"
#include "platform/llm/norm_kernels.h"

namespace kb {

fw::Slice even_slice(int64_t total, int64_t n, int64_t i) {
  const int64_t b = i * total / n, e = (i + 1) * total / n;
  return {b, e - b};
}

int64_t kv_positions(const LlmRun& run) {
  return run.prefill ? run.prompt : run.context + 1;
}

int64_t stream_rows(const LlmRun& run) {
  return run.prefill ? run.batch * run.prompt : run.batch;
}

namespace {

// What a decode layer keeps in TCM from its first phase to its last (bytes):
// the group's QKV rows and their rotation, the attention output, gate, up
// and h, each rounded up to `align`.
uint64_t layer_persistent_bytes(const fw::TransformerShape& s, int64_t B, int64_t nf,
                                int64_t align = 1) {
  const auto e = static_cast<int64_t>(dtype_bytes(s.dtype));
  const int64_t G = s.group(), d = s.d_head;
  auto up = [align](int64_t bytes) { return (bytes + align - 1) / align * align; };
  return static_cast<uint64_t>(2 * up(B * (G + 2) * d * e) + up(B * G * d * e) +
                               2 * up(B * nf * 4) + up(B * nf * e));
}

// The TCM a rank's kernel holds across one layer's phases (bytes): the
// group's QKV rows twice (as gathered and rotated), the attention output,
// the FFN slice's gate, up and h, and the larger of the attention phase's
// (for `chunk` sequences at a time: the rank's own packed states and, at a
// reduce root, one more for each of its `children`, each received into its
// own buffer) and the QKV gather's own buffers; 64 bytes of alignment for
// each allocation.
uint64_t layer_tcm_bytes(const fw::TransformerShape& s, int64_t B, int64_t tile, int64_t nf,
                         int64_t chunk, int64_t children) {
  const auto e = static_cast<int64_t>(dtype_bytes(s.dtype));
  const int64_t G = s.group(), d = s.d_head, chunk_rows = chunk * G;
  const auto layer = static_cast<int64_t>(layer_persistent_bytes(s, B, nf));
  const int64_t sweep = 2 * (2 * G * tile * 4 + 2 * (G * tile * e + 4 * G * 4));
  const int64_t attention =
      (1 + std::max<int64_t>(children, 1)) * chunk_rows * (d + 2) * 4 + sweep + 5 * chunk_rows * 4;
  const int64_t gather = B * s.qkv_width() * 4;
  return static_cast<uint64_t>(layer + std::max(attention, gather) + int64_t{64} * 48);
}

}  // namespace

TpMapping::TpMapping(const ModelSpec& model, const LlmRun& run, const TopologyConfig& cfg)
    : model_(model), run_(run), weight_block_rows_(cfg.pe.gemm.tile_k) {
  const unsigned total = cfg.total_pes() - std::min(run.first_pe, cfg.total_pes());
  const unsigned W = run.ranks == 0 ? total : run.ranks;
  if (W > total)
    throw UsageError("llm: mapping tp over " + std::to_string(W) +
                     " PEs needs more PEs than the topology " + cfg.name + " has (" +
                     std::to_string(total) + ")");
  const auto kv = static_cast<unsigned>(model.kv_heads);
  if (W < kv || W % kv != 0)
    throw UsageError("llm: mapping tp places each of the " + std::to_string(kv) +
                     " KV heads on its own group of PEs; " + std::to_string(W) +
                     " PEs do not split into " + std::to_string(kv) +
                     " equal groups (use --param ranks=N with N a multiple of " +
                     std::to_string(kv) + ")");
  per_group_ = W / kv;
  set_allreduce(run, W, cfg);
  const fw::TransformerShape sh = shape();
  const int64_t R = per_group_, positions = kv_positions(run);
  auto need = [&](int64_t have, int64_t ranks, const std::string& what) {
    if (have < ranks)
      throw UsageError("llm: mapping tp gives every one of " + std::to_string(ranks) +
                       " ranks a slice of " + what + " (" + std::to_string(have) +
                       "); use fewer ranks (--param ranks=N) or a " + "larger shape");
  };
  need(sh.group() * sh.d_head, R,
       "the " + std::to_string(sh.group()) + " x " + std::to_string(sh.d_head) +
           " attention features of a KV head (the O projection rows)");
  need(positions, R,
       (run.prefill ? "the prompt's " : "the context + 1 = ") + std::to_string(positions) +
           " KV positions of a KV head");
  need(model.ffn, W, "the FFN width");
  need(model.vocab, W, "the vocabulary");

  for (unsigned s = 0, r = 0, skip = run.first_pe; s < cfg.system.n_sips && r < W; ++s)
    for (unsigned c = 0; c < cfg.cubes_per_sip() && r < W; ++c)
      for (unsigned p = 0; p < cfg.cube.pes && r < W; ++p) {
        if (skip > 0) {
          --skip;
          continue;
        }
        order_.push_back({s, c, p});
        ++r;
      }

  const auto e = static_cast<uint64_t>(dtype_bytes(model.dtype));
  const auto H = static_cast<uint64_t>(model.hidden), d = static_cast<uint64_t>(model.d_head);
  const auto B = static_cast<uint64_t>(run.batch), L = static_cast<uint64_t>(run.layers);
  for (unsigned i = 0; i < W; ++i) {
    RankPlan rp;
    rp.pe = order_[i];
    rp.rank = i;
    rp.group = i / per_group_;
    rp.group_rank = i % per_group_;
    rp.qkv = even_slice(sh.qkv_width(), R, rp.group_rank);
    rp.o = even_slice(sh.group() * sh.d_head, R, rp.group_rank);
    rp.ffn = even_slice(model.ffn, W, i);
    rp.vocab = even_slice(model.vocab, W, i);
    rp.kv = even_slice(positions, R, rp.group_rank);
    const auto nq = static_cast<uint64_t>(rp.qkv.count), no = static_cast<uint64_t>(rp.o.count),
               nf = static_cast<uint64_t>(rp.ffn.count), nv = static_cast<uint64_t>(rp.vocab.count);
    // The RMSNorm weights are fp32, every matrix in the model's dtype.
    const uint64_t per_layer = 2 * H * 4 + (H * nq + no * H + 3 * H * nf) * e;
    rp.weight_bytes = L * per_layer + (run.has_head ? H * 4 + H * nv * e : 0);
    rp.kv_bytes = L * B * 2 * static_cast<uint64_t>(rp.kv.count) * d * e;
    const auto N = static_cast<uint64_t>(stream_rows(run)),
               qw = static_cast<uint64_t>(sh.qkv_width());
    rp.activation_bytes = N * H * 4 * 2 + N * H * e + N * qw * 4 + d * d * e + B * nv * 4 +
                          (run.sharded_residual ? N * 4 : 0);
    if (run.prefill) {
      // The gathered and rotated QKV rows, the attention output (this rank's
      // and the group's), gate, up and h, and the RoPE tables.
      const auto gd = static_cast<uint64_t>(sh.group() * sh.d_head),
                 T = static_cast<uint64_t>(run.prompt);
      rp.activation_bytes += 2 * N * qw * e + N * gd * (4 + e) + N * nf * (8 + e) + 2 * T * qw * 4;
    }
    ranks_.push_back(rp);
  }
  check_fits(cfg);
  check_rings(cfg);
}

fw::TransformerShape TpMapping::shape() const {
  fw::TransformerShape s;
  s.hidden = model_.hidden;
  s.heads = model_.heads;
  s.kv_heads = model_.kv_heads;
  s.d_head = model_.d_head;
  s.ffn = model_.ffn;
  s.norm_eps = model_.norm_eps;
  s.dtype = model_.dtype;
  return s;
}

void TpMapping::check_fits(const TopologyConfig& cfg) {
  // HBM: the slice minus PE_IPCQ's reserved rings, with 64-byte alignment
  // for each tensor.
  const uint64_t hbm = cfg.pe.hbm.size_bytes - ipcq_hbm_reserved(cfg);
  const uint64_t tensors = static_cast<uint64_t>(run_.layers) * (6 + 2 * run_.batch) + 20;
  const RankPlan* worst = &ranks_.front();
  for (const RankPlan& r : ranks_)
    if (r.hbm_bytes() > worst->hbm_bytes()) worst = &r;
  const uint64_t need = worst->hbm_bytes() + 64 * tensors;
  if (need > hbm)
    throw HbmFitError("llm: " + model_.name + " does not fit HBM: " + to_string(worst->pe) +
                      " needs " + std::to_string(static_cast<int64_t>(need)) + " bytes (weights " +
                      std::to_string(static_cast<int64_t>(worst->weight_bytes)) + ", KV cache " +
                      std::to_string(static_cast<int64_t>(worst->kv_bytes)) + " for batch " +
                      std::to_string(run_.batch) + (run_.prefill ? " x prompt " : " x context ") +
                      std::to_string(kv_positions(run_)) + ", activations " +
                      std::to_string(static_cast<int64_t>(worst->activation_bytes)) +
                      "), its HBM slice has " + std::to_string(static_cast<int64_t>(hbm)) +
                      " beside PE_IPCQ's rings: " +
                      std::to_string(static_cast<int64_t>(need - hbm)) + " bytes short");
  const uint64_t arena = tcm_arena_capacity(cfg);
  if (run_.prefill) {
    // Every prefill phase streams its rows through TCM in chunks within the
    // budget; the attention needs a tile's K, K transposed and V twice and
    // one query row's state per head at least.
    const auto e = static_cast<int64_t>(dtype_bytes(model_.dtype));
    const int64_t G = model_.group(), d = model_.d_head, T = run_.tile;
    const int64_t need = int64_t{2} * 3 * T * d * e +
                         G * (d * e + 8 + d * 4 + T * (4 + 2 * e) + d * 4 + 32) + int64_t{64} * 64 +
                         model_.hidden * (8 + e);
    tcm_budget_ = arena / 2;
    if (static_cast<uint64_t>(need) > tcm_budget_)
      throw UsageError(
          "llm: the prefill's attention buffers on one PE (tile " + std::to_string(run_.tile) +
          ", " + std::to_string(G) + " heads of " + std::to_string(d) + ": about " +
          std::to_string(need) + " bytes) do not fit half the TCM arena (" +
          std::to_string(static_cast<int64_t>(tcm_budget_)) + " bytes); lower the tile");
    attn_chunk_ = run_.batch;
    // The prefill's phases take their chunks from the budget less a slack
    // of their own; partial sums of up to a quarter of it stay in TCM, and
    // the GEMM phases load xn when it takes up to half of it with them.
    partial_tcm_limit_ = tcm_budget_ / 4;
    xn_tcm_limit_ = tcm_budget_ / 2;
    check_reduce_staging(cfg, arena);
    return;
  }
  // TCM: a layer's buffers, and room for row chunks of the hidden width.
  int64_t nf_max = 0;
  for (const RankPlan& r : ranks_) nf_max = std::max(nf_max, r.ffn.count);
  const uint64_t row = static_cast<uint64_t>(model_.hidden) * (8 + dtype_bytes(model_.dtype));
  // The most sequences per attention reduce that fit (or the number asked for).
  int64_t chunk = run_.attn_chunk > 0 ? std::min(run_.attn_chunk, run_.batch) : run_.batch;
  // The group's first rank receives a state from each of the tree's levels.
  int64_t children = 0;
  for (unsigned k = 1; k < per_group_; k <<= 1) ++children;
  auto tcm_need = [&](int64_t c) {
    return layer_tcm_bytes(shape(), run_.batch, run_.tile, nf_max, c, children);
  };
  if (run_.attn_chunk <= 0)
    while (chunk > 1 && tcm_need(chunk) + 2 * row > arena) --chunk;
  const uint64_t layer = tcm_need(chunk);
  if (layer + 2 * row > arena)
    throw UsageError(
        "llm: a layer's TCM buffers on one PE (batch " + std::to_string(run_.batch) + ", tile " +
        std::to_string(run_.tile) + ": about " + std::to_string(static_cast<int64_t>(layer)) +
        " bytes, plus " + std::to_string(static_cast<int64_t>(2 * row)) +
        " for a row of the hidden width) do not fit the TCM arena of " +
        std::to_string(static_cast<int64_t>(arena)) + " bytes; lower the batch or the tile");
  attn_chunk_ = chunk;
  // Beside the layer's buffers (with one received state: the others only
  // exist inside the attention phase, which no elementwise phase overlaps)
  // the arena holds one phase's chunks, at most the budget, and what stays
  // in TCM across phases:
  //  - the partial sums, beside a norm phase's chunks with its gamma [1, H]
  //    and sums of squares [N] fp32, and beside the attention's buffers;
  //  - in a GEMM phase (which takes no chunks), xn with the partial sums.
  // The phases and what stays share that room half and half, unless the
  // partial sums fit only when the phases take less: then the phases keep
  // the rest, at least a row of the hidden width for a norm's chunk. The
  // slack covers the alignment of a phase's few allocations.
  const uint64_t room =
      2 * ((arena - layer_tcm_bytes(shape(), run_.batch, run_.tile, nf_max, chunk, 1)) / 2);
  const uint64_t slack = uint64_t{64} * 16;
  const auto N = static_cast<uint64_t>(stream_rows(run_));
  const uint64_t partial = N * static_cast<uint64_t>(model_.hidden) * 4;
  const uint64_t norm_side = static_cast<uint64_t>(model_.hidden) * 4 + N * 4 + slack;
  const uint64_t attention_side = layer + slack;
  const uint64_t beside_attention = arena > attention_side ? arena - attention_side : 0;
  uint64_t kept = room / 2;
  if (partial + norm_side > kept && partial <= beside_attention &&
      partial + norm_side + row <= room)
    kept = partial + norm_side;
  tcm_budget_ = room - kept;
  partial_tcm_limit_ = std::min(kept > norm_side ? kept - norm_side : 0, beside_attention);
  xn_tcm_limit_ = room > slack ? room - slack : 0;
  check_reduce_staging(cfg, arena);
}

void TpMapping::check_reduce_staging(const TopologyConfig& cfg, uint64_t arena) const {
  if (residency().partial_in_tcm) return;
  const IpcqConfig& q = cfg.pe.ipcq;
  const uint64_t per_source = 2 * uint64_t{q.slots} * q.slot_bytes;
  // Every buffer is one allocation, at a 64-byte boundary; a prefill layer
  // keeps nothing in TCM across its phases.
  const uint64_t staging = (per_source + 63) / 64 * 64;
  // The rank that needs the most (the first of equals).
  const RankPlan* worst = nullptr;
  uint64_t n = 0, layer_bytes = 0, need = 0;
  for (const RankPlan& rp : ranks_) {
    const auto peers = static_cast<uint64_t>(fw::tx::stream_reduce_sources(step_args(rp)).size());
    const uint64_t layer =
        run_.prefill ? 0 : layer_persistent_bytes(shape(), run_.batch, rp.ffn.count, 64);
    if (!worst || layer + peers * staging > need) {
      worst = &rp;
      n = peers;
      layer_bytes = layer;
      need = layer + peers * staging;
    }
  }
  if (!worst || need <= arena) return;
  throw UsageError(
      "llm: the partial sums (" + std::to_string(stream_rows(run_)) + " rows of " +
      std::to_string(model_.hidden) + ", fp32) stay in HBM, so " + to_string(worst->pe) +
      " stages what " + std::to_string(static_cast<int64_t>(n)) +
      " peers send for their all-reduce in TCM, " + "2 x pe.ipcq.slots x slot_bytes = " +
      std::to_string(static_cast<int64_t>(per_source)) + " bytes per peer" +
      (layer_bytes ? ", beside the layer's " + std::to_string(static_cast<int64_t>(layer_bytes)) +
                         " bytes of buffers"
                   : std::string()) +
      ": " + std::to_string(static_cast<int64_t>(need)) +
      " bytes with alignment, but the TCM arena has " +
      std::to_string(static_cast<int64_t>(arena)) + "; raise pe.tcm.size_bytes by " +
      std::to_string(static_cast<int64_t>(need - arena)) + " or more, or lower pe.ipcq.slots");
}

fw::StreamResidency TpMapping::residency() const {
  // The accumulator a chunked GEMM phase adds to beside its own buffers:
  // the QKV columns, or the LM head's (gate and up accumulate in place).
  int64_t acc_cols = 0;
  for (const RankPlan& r : ranks_) acc_cols = std::max({acc_cols, r.qkv.count, r.vocab.count});
  return fw::stream_residency(stream_rows(run_), model_.hidden, model_.dtype, partial_tcm_limit_,
                              xn_tcm_limit_, acc_cols, weight_block_rows_);
}

std::vector<PeAddr> TpMapping::group(unsigned g) const {
  const auto first = order_.begin() + static_cast<std::ptrdiff_t>(g) * per_group_;
  return {first, first + per_group_};
}

fw::TransformerStepArgs TpMapping::step_args(const RankPlan& r) const {
  fw::TransformerStepArgs a;
  a.ranks = order_;
  a.rank = r.rank;
  a.group = group_of(r);
  a.group_rank = r.group_rank;
  a.allreduce_per_cube = allreduce_per_cube_;
  a.allreduce_across = allreduce_across_;
  a.sharded_residual = run_.sharded_residual;
  if (const NormKernelDef* k = norm_kernel(run_.norm)) a.norm = k->kernel;
  return a;
}

std::vector<PeAddr> TpMapping::ring_sources(const RankPlan& r) const {
  return fw::tx::ring_sources(step_args(r));
}

void TpMapping::check_rings(const TopologyConfig& cfg) const {
  const IpcqConfig& q = cfg.pe.ipcq;
  const uint64_t ring = uint64_t{q.slots} * q.slot_bytes;
  const uint64_t fit = ring == 0 ? 0 : q.ring_bytes / ring;
  for (const RankPlan& rp : ranks_) {
    // A later pipeline stage's first rank also receives from the previous stage's.
    const uint64_t peers = ring_sources(rp).size() + (rp.rank == 0 && run_.first_layer > 0 ? 1 : 0);
    if (peers > fit)
      throw UsageError(
          "llm: " + to_string(rp.pe) + " receives from " +
          std::to_string(static_cast<int64_t>(peers)) +
          " peers in the step's collectives, one IPCQ ring each of pe.ipcq.slots x "
          "slot_bytes = " +
          std::to_string(static_cast<int64_t>(ring)) +
          " bytes, but pe.ipcq.ring_bytes = " + std::to_string(static_cast<int64_t>(q.ring_bytes)) +
          " holds " + std::to_string(static_cast<int64_t>(fit)) + "; raise pe.ipcq.ring_bytes to " +
          std::to_string(static_cast<int64_t>(peers * ring)) + " or more");
  }
}

std::string TpMapping::group_collectives() const {
  return fw::list_allreduce_halves(per_group_)
             ? "; a group gathers its QKV by recursive halving and doubling over its ranks, and "
               "reduces and broadcasts the attention in binomial trees"
             : "; a group gathers, reduces and broadcasts in binomial trees";
}

nlohmann::json TpMapping::describe() const {
  const RankPlan& r0 = ranks_.front();
  const RankPlan& rl = ranks_.back();
  auto slice = [](const fw::Slice& s) {
    return nlohmann::json{{"first", s.first}, {"count", s.count}};
  };
  auto rank_json = [&slice](const RankPlan& r) {
    return nlohmann::json{{"pe", to_string(r.pe)},     {"qkv", slice(r.qkv)},
                          {"o", slice(r.o)},           {"ffn", slice(r.ffn)},
                          {"vocab", slice(r.vocab)},   {"kv", slice(r.kv)},
                          {"hbm_bytes", r.hbm_bytes()}};
  };
  const fw::StreamResidency where = residency();
  nlohmann::json j = {
      {"name", "tp"},
      {"ranks", ranks_.size()},
      {"kv_head_groups", model_.kv_heads},
      {"ranks_per_group", per_group_},
      {"attention_chunk_sequences", attn_chunk_},
      {"rank_order", "sip, cube, pe"},
      {"qkv", "column parallel inside each KV-head group: (G+2)*d_head = " +
                  std::to_string(shape().qkv_width()) + " columns over " +
                  std::to_string(per_group_) + " ranks, then gathered in the group"},
      {"attention",
       run_.prefill
           ? "query parallel inside each group: the prompt's positions in " +
                 std::to_string(per_group_) +
                 " contiguous blocks, block r the KV cache and the query rows of rank r; each "
                 "rank attends causally over the group's gathered K and V, then the group "
                 "gathers the attention output"
           : "sequence parallel inside each group: context+1 positions in " +
                 std::to_string(per_group_) +
                 " contiguous blocks, log-sum-exp reduce to the group's first rank, "
                 "output broadcast in the group"},
      {"o_proj",
       "row parallel (the group's G*d_head features over its ranks), all-reduce "
       "over every rank"},
      {"ffn",
       "gate and up column parallel, down row parallel over every rank, all-reduce "
       "over every rank"},
      {"lm_head", "vocabulary parallel over every rank (logits stay sharded)"},
      {"collectives",
       allreduce_per_cube_ > 0
           ? "the all-reduces over every rank hierarchical: ring reduce-scatter inside each "
             "cube's " +
                 std::to_string(allreduce_per_cube_) + " ranks, " +
                 (allreduce_across_ == fw::CrossCube::kHalving
                      ? "recursive halving and doubling per segment across the cubes (and "
                        "SIPs, last), "
                      : "a binomial tree per segment across the cubes (and SIPs), ") +
                 "ring all-gather" + group_collectives()
           : "binomial trees over the ranks in (sip, cube, pe) order" + group_collectives()},
      {"residual_stream",
       run_.sharded_residual
           ? "sharded: each rank keeps its shard of the flattened fp32 stream; the partial "
             "sums are reduce-scattered, the residual add and RMSNorm run on the shard (the "
             "per-row sums of squares all-reduced over every rank), and the normalised "
             "stream is all-gathered in the model's dtype before each GEMM"
           : "replicated: every rank holds the whole fp32 stream, all-reduces the partial "
             "sums into it and runs every RMSNorm and residual add over all of it"},
      {"tcm",
       {{"phase_budget_bytes", tcm_budget_},
        {"partial_sums", where.partial_in_tcm ? "tcm" : "hbm"},
        {"xn_in_gemm_phases", where.xn_in_tcm           ? "tcm"
                              : where.xn_chunk_cols > 0 ? "tcm_k_chunks"
                                                        : "hbm"},
        {"xn_chunk_columns", where.xn_chunk_cols}}},
      {"weights", "each rank's shards in its own HBM"},
      {"kv_cache", "each rank's block of every sequence, in its own HBM (K transposed)"},
      {"rank0", rank_json(r0)},
      {"last_rank", rank_json(rl)}};
  return j;
}

void TpMapping::set_allreduce(const LlmRun& run, unsigned W, const TopologyConfig& cfg) {
  // Ranks fill the cubes in order: whole cubes, or part of one.
  const bool whole_cubes = W <= cfg.cube.pes || W % cfg.cube.pes == 0;
  if (run.cube_allreduce || run.halving_allreduce || (run.auto_allreduce && whole_cubes && W > 1)) {
    const char* asked = run.halving_allreduce ? "halving" : "hierarchical";
    if (!whole_cubes)
      throw UsageError("llm: --param allreduce=" + std::string(asked) +
                       " needs whole cubes: " + std::to_string(W) +
                       " ranks are not a multiple of the " + std::to_string(cfg.cube.pes) +
                       " PEs of a cube (use --param ranks=N with N a multiple of " +
                       std::to_string(cfg.cube.pes) + ", or allreduce=tree)");
    allreduce_per_cube_ = std::min(W, cfg.cube.pes);
    if (run.auto_allreduce && fw::cube_allreduce_halves(W, allreduce_per_cube_))
      allreduce_across_ = fw::CrossCube::kHalving;
    if (run.halving_allreduce) {
      if (!fw::cube_allreduce_halves(W, allreduce_per_cube_))
        throw UsageError(
            "llm: --param allreduce=halving needs a power of two of cubes, at least "
            "two: " +
            std::to_string(W) + " ranks fill " + std::to_string(W / allreduce_per_cube_) +
            " (use --param ranks=N with N/" + std::to_string(allreduce_per_cube_) +
            " a power of two, or allreduce=hierarchical)");
      allreduce_across_ = fw::CrossCube::kHalving;
    }
  }
  if (run.sharded_residual) check_sharded_residual(W);
}

void TpMapping::check_sharded_residual(unsigned W) const {
  if (allreduce_across_ != fw::CrossCube::kHalving)
    throw UsageError(
        "llm: --param residual=sharded reduce-scatters and all-gathers with the halving "
        "all-reduce, which needs ranks filling a power of two of whole cubes, at least two; " +
        std::to_string(W) + " ranks with allreduce=" + allreduce_name() +
        " do not (use --param allreduce=halving or auto with such ranks, or residual=replicated)");
}

const char* TpMapping::allreduce_name() const {
  if (allreduce_per_cube_ == 0) return "tree";
  return allreduce_across_ == fw::CrossCube::kHalving ? "halving" : "hierarchical";
}

}  // namespace kb
