// CompositeCmd -> tile plan (docs/ARCHITECTURE.md §3), a pure function.
//
// At most one GEMM per composite. Position decides the phase, scope the
// repetition:
//   KERNEL ops before the GEMM   prologue: one single-stage token each, in order
//   K_TILE ops after the GEMM    every K step, right after the GEMM stage
//   OUTPUT_TILE ops after it     once per output tile, before its STORE
//   KERNEL ops after the GEMM    post-loop: one single-stage token each
// Per output tile (m, n) and K step k (loop order m, n, k) the token is
//   [DMA_READ a] [DMA_READ b] FETCH GEMM [K_TILE ops]
// and the last K step continues with [OUTPUT_TILE ops] STORE [DMA_WRITE].
// DMA_READ only for an operand outside the TCM; DMA_WRITE only when `out` is
// in HBM (a TCM output stays on chip and can be chained). A composite
// without GEMM is a MATH-only plan: its ops in order, one token each, with
// DMA_READ / DMA_WRITE around an op whose operands or output are off-chip.
//
// DMA destinations and sources in the TCM are offsets into the token's
// staging slot (Stage::staged), fixed up when the scheduler assigns a slot.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "models/commands/commands.h"
#include "models/pe/stage.h"

namespace kb {

class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TilingConfig {
  unsigned tile_m = 32, tile_k = 64, tile_n = 32;
  // Layout of one staging slot: A tile, B tile, C (output) tile.
  uint64_t slot_a_offset() const { return 0; }
  uint64_t slot_b_offset() const { return uint64_t{tile_m} * tile_k * 4; }
  uint64_t slot_c_offset() const { return slot_b_offset() + uint64_t{tile_k} * tile_n * 4; }
  uint64_t slot_bytes() const { return slot_c_offset() + uint64_t{tile_m} * tile_n * 4; }
};

struct TilePlan {
  std::vector<TileToken> prologue;
  std::vector<TileToken> tiles;
  std::vector<TileToken> post;
  bool has_gemm = false;
  unsigned m_tiles = 0, k_tiles = 0, n_tiles = 0;
};

// A composite's plan, its tokens made one at a time when the scheduler feeds
// them: a GEMM of many tiles holds only the tokens in flight, not the whole
// plan. The constructor checks the composite (and throws PlanError as
// make_tile_plan does); each token is then taken once, in order, and is the
// same token make_tile_plan would have listed. The composite must outlive the
// planner and every token taken from it (stages point at its ops).
class TilePlanner {
 public:
  // Without `operand_views` the GEMM tiles' GEMM and STORE stages keep no
  // operand views: what a run that neither logs ops nor holds data needs
  // (the views are the op log's bytes and data mode's operands; no timing
  // reads them).
  // With `stream`, a GEMM that can stream (models/scheduler/scheduler_config.h,
  // GemmPlan::kStream) is planned as one token per output tile, its K steps
  // streamed (GemmTiler::stream_stages); streamed() then says so.
  TilePlanner(const CompositeCmd& cmd, const TilingConfig& tiling, uint64_t cmd_id,
              bool operand_views = true, bool stream = false);
  ~TilePlanner();
  TilePlanner(const TilePlanner&) = delete;
  TilePlanner& operator=(const TilePlanner&) = delete;

  // Phase 0 prologue, 1 tiles (MATH-only: its ops), 2 post-loop.
  size_t count(int phase) const;
  // Token `i` of `phase` (each taken once).
  TileToken take(int phase, size_t i);
  // The same into `out`, which is reset first: a GEMM tile's stages then
  // reuse the capacity of `out`'s stage vector (the scheduler's spare tokens).
  void take(int phase, size_t i, TileToken& out);

  bool has_gemm() const { return gemm_ != nullptr; }
  bool streamed() const { return streamed_; }
  unsigned m_tiles = 0, k_tiles = 0, n_tiles = 0;

 private:
  struct Gemm;
  std::vector<TileToken> fixed_[3];  // prologue, MATH-only ops, post
  std::unique_ptr<Gemm> gemm_;       // the GEMM's tiles, made on demand
  bool streamed_ = false;            // output tiles streamed (GemmTiler::stream_stages)
  unsigned stream_columns_ = 1;      // ... this many columns per token
};

// The whole plan at once (the planner's tokens, every one taken).
// Throws PlanError (two GEMMs, mismatched shapes, a prologue operand outside
// the TCM, an unknown op kind, a missing operand or output).
TilePlan make_tile_plan(const CompositeCmd& cmd, const TilingConfig& tiling, uint64_t cmd_id);

// Elements a MATH op produces (its output, else its first operand).
uint64_t math_elements(const OpSpec& op);

}  // namespace kb
