#include "platform/analytic/llm_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "firmware/kernels/allreduce.h"
#include "firmware/kernels/transformer_ops.h"
#include "firmware/kernels/transformer_step.h"
#include "models/commands/commands.h"
#include "models/commands/cost_model.h"
#include "models/common/checked_math.h"
#include "platform/analytic/allreduce_model.h"
#include "platform/analytic/attention_model.h"
#include "platform/analytic/command_shapes.h"
#include "platform/analytic/pe_paths.h"

namespace kb {

namespace {

// The one-GEMM composite tl.composite issues.
CompositeCmd gemm_composite() {
  return composite_shape({gemm_op_shape()}, 0);
}

// One rank's commands within a phase, in issue order: the PE_CPU dispatches
// each once the tensors it consumes are ready, and each engine serves its
// commands in turn. Times in ns from the phase's start.
class PeClock {
 public:
  explicit PeClock(const TopologyConfig& c) : c_(c), cm_(c.pe.cost_model, c.pe.clock_ghz) {}

  // DMA own HBM -> TCM of `bytes`.
  double load(uint64_t bytes, double ready = 0) {
    const double s = std::max(after_dispatch(DmaReadCmd{}, ready), rd_);
    rd_ = s + c_.pe.dma.setup_ns + static_cast<double>(bytes) / c_.pe_hbm_bandwidth_gbps();
    return note(s + c_.pe.dma.setup_ns + own_hbm_read_ns(c_, bytes));
  }
  // DMA TCM -> own HBM of `bytes` (`rows` rows: one transfer, a burst per row).
  double store(uint64_t bytes, double ready, uint64_t rows = 1) {
    const double s = std::max(after_dispatch(DmaWriteCmd{}, ready), wr_);
    const uint64_t row = bytes / rows;
    const double t = rows == 1 ? own_hbm_write_ns(c_, bytes)
                               : own_hbm_write_ns(c_, row) + static_cast<double>(rows - 1) *
                                                                 static_cast<double>(row) /
                                                                 c_.pe.hbm.pc_bandwidth_gbps;
    wr_ = s + c_.pe.dma.setup_ns + t;
    return note(wr_);
  }
  // A MATH command over `elements` output elements.
  double math(const MathCmd& cmd, int64_t elements, double ready) {
    const double s = std::max(after_dispatch(cmd, ready), math_);
    math_ = s + static_cast<double>(ceil_div(elements, c_.pe.math.lanes)) / c_.pe.clock_ghz;
    return note(math_);
  }
  // A composite GEMM out = a · b, a [M, K] in TCM (or streamed from HBM
  // with `a_hbm`), b [K, N] in HBM in the GEMM's K x N tiles, out fp32 in TCM
  // or HBM. Its tokens follow the previous composite's on the engines.
  // `after`: when a composite it depends on (through a read-and-written
  // accumulator, which PE_SCHEDULER orders) ends; its first token waits for it.
  // `shared_bytes`: other DMA reads of own HBM while its tokens run (the next
  // chunk of xn), which its weight stream shares the HBM with.
  double gemm(int64_t M, int64_t K, int64_t N, bool a_hbm, bool out_hbm, double ready,
              std::string* how, double after = 0, double shared_bytes = 0) {
    const PeConfig& pe = c_.pe;
    const int64_t tm = pe.gemm.tile_m, tk = pe.gemm.tile_k, tn = pe.gemm.tile_n;
    const int64_t nm = ceil_div(M, tm), nk = ceil_div(K, tk), nn = ceil_div(N, tn);
    const auto tokens = static_cast<double>(nm * nk * nn);
    const int64_t mm = std::min(M, tm);
    // A token's K x N block of b, and an output tile's columns, on average
    // (ragged edges included).
    const double kk = static_cast<double>(K) / static_cast<double>(nk),
                 nc = static_cast<double>(N) / static_cast<double>(nn);
    const double b_tile = kk * nc * 2, a_tile = a_hbm ? static_cast<double>(mm) * kk * 2 : 0;
    const double transfers = a_hbm ? 2 : 1;
    const double out_tile = static_cast<double>(mm) * nc * 4;
    const double tcm = pe.tcm.bandwidth_gbps;
    struct Unit {
      const char* name;
      double ns;
    };
    // Per token: the busiest engine (an output tile's store and write-back
    // once per K steps).
    const std::vector<Unit> units = {
        {"PE_GEMM", 2.0 * tm * tk * tn / (pe.gemm.peak_tflops * 1000.0)},
        {"HBM weight stream",
         (b_tile + a_tile + (out_hbm ? out_tile / static_cast<double>(nk) : 0) +
          shared_bytes / tokens) /
             c_.pe_hbm_bandwidth_gbps()},
        {"DMA setup", transfers * pe.dma.setup_ns},
        {"FETCH", (static_cast<double>(mm) * kk + kk * nc) * 2 / tcm},
        {"STORE", out_tile / tcm / static_cast<double>(nk)}};
    const Unit* b = units.data();
    for (const Unit& u : units)
      if (u.ns > b->ns) b = &u;
    // A token's way through the stages, which staging_buffers tokens overlap.
    const double fetch = units[3].ns, tile = units[0].ns;
    const int64_t first_bytes =
        (std::min(K, tk) * std::min(N, tn) + (a_hbm ? mm * std::min(K, tk) : 0)) * 2;
    const double first =
        transfers * pe.dma.setup_ns + own_hbm_read_ns(c_, static_cast<uint64_t>(first_bytes));
    double per = b->ns;
    const double cycle = (first + fetch + tile) / pe.scheduler.staging_buffers;
    if (cycle > per) {
      per = cycle;
      if (how) *how = "staging buffers (token latency / staging_buffers)";
    } else if (how) {
      *how = b->name;
    }
    // Its first token's weights stream in while the previous composite's
    // tokens still run.
    const double s = after_dispatch(gemm_composite(), ready);
    gemm_ = std::max({s + first + fetch, gemm_, after + first + fetch}) + tokens * per;
    const double tail =
        out_tile / tcm +
        (out_hbm ? pe.dma.setup_ns + own_hbm_write_ns(c_, static_cast<uint64_t>(out_tile)) : 0);
    return note(gemm_ + tail);
  }
  // The PE_CPU's wait for everything issued.
  double wait() {
    cpu_ = std::max(cpu_, end_);
    return cpu_;
  }
  double dispatch_ns(const Command& cmd) const { return cm_.dispatch_ns(cmd); }
  double cpu() const { return cpu_; }
  void advance(double t) {
    cpu_ = std::max(cpu_, t);
    end_ = std::max(end_, t);
  }

 private:
  double after_dispatch(const Command& cmd, double ready) {
    cpu_ = std::max(cpu_, ready) + cm_.dispatch_ns(cmd);
    return cpu_;
  }
  double note(double t) {
    end_ = std::max(end_, t);
    return t;
  }
  const TopologyConfig& c_;
  CostModel cm_;
  double cpu_ = 0, rd_ = 0, wr_ = 0, math_ = 0, gemm_ = 0, end_ = 0;
};

// Rows a row-chunked phase takes at once within the TCM budget.
int64_t chunk_rows(uint64_t budget, int64_t total, int64_t per_row) {
  return std::max<int64_t>(
      1, std::min<int64_t>(total, static_cast<int64_t>(budget) / std::max<int64_t>(per_row, 1)));
}

struct StepDims {
  int64_t B, H, G, d, e;
  uint64_t budget;
  bool partial_tcm, xn_tcm;
  int64_t xn_chunk;  // else: xn's columns per K-chunk (0: streamed from HBM)
};

// RMSNorm over B rows (firmware/kernels/transformer_ops.cpp, rmsnorm).
double rmsnorm_ns(const TopologyConfig& c, const StepDims& s) {
  PeClock pe(c);
  const double g = pe.load(static_cast<uint64_t>(s.H) * 4);
  const int64_t rc = chunk_rows(s.budget, s.B, s.H * (4 + 4 + s.e));
  for (int64_t r0 = 0; r0 < s.B; r0 += rc) {
    const int64_t n = std::min(rc, s.B - r0), nh = n * s.H;
    const double x = pe.load(static_cast<uint64_t>(nh) * 4);
    double t = pe.math(math_shape("mul", 2), nh, x);
    t = pe.math(math_shape("rsum", 1, {kReduceLastAxis}), n, t);
    t = pe.math(math_shape("scale", 1, {{"factor", 0.0}}), n, t);
    t = pe.math(math_shape("rsqrt", 1, {{"eps", 0.0}}), n, t);
    t = pe.math(math_shape("mul_bcast", 2, {kBcastCols}), nh, t);
    t = pe.math(math_shape("mul", 2), nh, std::max(t, g));
    pe.store(static_cast<uint64_t>(nh * s.e), t);
    pe.wait();
  }
  return pe.wait();
}

// x += partial over `units` units of `unit` elements, as many units at once
// as the budget holds: the whole stream in rows (transformer_ops.cpp,
// residual) or a rank's shard in elements (residual_shard).
double residual_ns(const TopologyConfig& c, const StepDims& s, int64_t units, int64_t unit) {
  PeClock pe(c);
  const int64_t rc = chunk_rows(s.budget, units, unit * (s.partial_tcm ? 4 : 8));
  for (int64_t r0 = 0; r0 < units; r0 += rc) {
    const int64_t nh = std::min(rc, units - r0) * unit;
    const double x = pe.load(static_cast<uint64_t>(nh) * 4);
    const double p = s.partial_tcm ? 0 : pe.load(static_cast<uint64_t>(nh) * 4);
    const double a = pe.math(math_shape("add", 2), nh, std::max(x, p));
    pe.store(static_cast<uint64_t>(nh) * 4, a);
    pe.wait();
  }
  return pe.wait();
}

// RMSNorm of one rank's shard of the flattened stream, [lo, lo + len)
// (transformer_ops.cpp, rmsnorm_shard): the per-row sums of squares, their
// all-reduce over every rank (`ss_allreduce_ns`), the scaling, the store.
double rmsnorm_shard_ns(const TopologyConfig& c, const StepDims& s, int64_t lo, int64_t len,
                        double ss_allreduce_ns) {
  PeClock pe(c);
  if (len <= 0) return 0;
  const int64_t H = s.H;
  const int64_t chunk = chunk_rows(s.budget, len, 4 + 4 + s.e);
  const bool one_load = chunk >= len, one_row = lo / H == (lo + len - 1) / H;
  const double g = pe.load(static_cast<uint64_t>(one_row ? len : H) * 4);
  const double kept = one_load ? pe.load(static_cast<uint64_t>(len) * 4) : 0;
  const double ss = pe.load(static_cast<uint64_t>(s.B) * 4);
  for (int64_t off = 0; off < len; off += chunk) {
    const int64_t n = std::min(chunk, len - off);
    const double x = one_load ? kept : pe.load(static_cast<uint64_t>(n) * 4);
    const double sq = pe.math(math_shape("mul", 2), n, x);
    for (const fw::tx::RowPiece& p : fw::tx::row_pieces(lo + off, n, H)) {
      const double r = pe.math(math_shape("rsum", 1, {kReduceLastAxis}), p.rows, sq);
      pe.math(math_shape("add", 2), p.rows, std::max(r, ss));
    }
    pe.wait();
  }
  pe.advance(pe.wait() + ss_allreduce_ns);
  double t = pe.math(math_shape("scale", 1, {{"factor", 0.0}}), s.B, pe.cpu());
  t = pe.math(math_shape("rsqrt", 1, {{"eps", 0.0}}), s.B, t);
  for (int64_t off = 0; off < len; off += chunk) {
    const int64_t n = std::min(chunk, len - off);
    const double x = one_load ? kept : pe.load(static_cast<uint64_t>(n) * 4);
    for (const fw::tx::RowPiece& p : fw::tx::row_pieces(lo + off, n, H)) {
      const double y =
          pe.math(math_shape("mul_bcast", 2, {kBcastCols}), p.rows * p.width, std::max({x, t, g}));
      pe.math(math_shape("mul", 2), p.rows * p.width, y);
    }
    pe.store(static_cast<uint64_t>(n * s.e), pe.wait());
    pe.wait();
  }
  return pe.wait();
}

// A GEMM phase: xn loaded into TCM first when it fits (xn_operand), then
// the composites, each [M, K] x [K, N]; or, when the composites have more
// than one column of output tiles, xn's K-chunks (xn_gemms in
// transformer_ops.cpp), each loaded once the composites that read its
// buffer two chunks before are done, and the composites over it, each after
// its GEMM's composite of the chunk before (their accumulator orders them)
// and sharing the HBM with the next chunk's load, the last chunk's writing
// out (the accumulating add epilogue, a MATH pass per output tile beside a
// tile's weight stream, is left out).
double gemm_phase_ns(const TopologyConfig& c, const StepDims& s, bool xn_operand, int64_t M,
                     int64_t K, const std::vector<int64_t>& Ns, bool out_hbm, std::string* how) {
  PeClock pe(c);
  int64_t col_tiles = 0;
  for (int64_t N : Ns) col_tiles += ceil_div(N, c.pe.gemm.tile_n);
  if (xn_operand && !s.xn_tcm && s.xn_chunk > 0 && s.xn_chunk < K && col_tiles >= 2) {
    double read_by[2] = {0, 0};  // when the composites reading each chunk buffer end
    std::vector<double> acc_done(Ns.size(), 0.0);  // each GEMM's last composite's end
    for (int64_t k0 = 0, i = 0; k0 < K; k0 += s.xn_chunk, ++i) {
      const int64_t n = std::min(s.xn_chunk, K - k0);
      const double a = pe.load(static_cast<uint64_t>(M * n * s.e), read_by[i % 2]);
      // The next chunk loads while this chunk's composites run.
      const int64_t next_cols = std::min(s.xn_chunk, K - k0 - n);  // 0 after the last
      const double next = static_cast<double>(M * next_cols * s.e) / static_cast<double>(Ns.size());
      double done = 0;
      for (size_t g = 0; g < Ns.size(); ++g) {
        acc_done[g] =
            pe.gemm(M, n, Ns[g], false, out_hbm && k0 + n >= K, a, how, acc_done[g], next);
        done = std::max(done, acc_done[g]);
      }
      read_by[i % 2] = done;
    }
    return pe.wait();
  }
  const double a = xn_operand && s.xn_tcm ? pe.load(static_cast<uint64_t>(s.B * s.H * s.e)) : 0;
  for (int64_t N : Ns) pe.gemm(M, K, N, xn_operand && !s.xn_tcm, out_hbm, a, how);
  return pe.wait();
}

LlmStepModel::Phase make_phase(const std::string& name, double ns, unsigned rank, std::string how,
                               nlohmann::json terms = nlohmann::json::object()) {
  LlmStepModel::Phase p;
  p.name = name;
  p.ns = ns;
  p.rank = rank;
  p.how = std::move(how);
  p.terms = std::move(terms);
  return p;
}

// The slowest rank's time of a per-rank phase.
template <typename F>
LlmStepModel::Phase slowest(const std::string& name, const TpMapping& map, F&& per_rank) {
  LlmStepModel::Phase best = make_phase(name, -1, 0, "");
  for (unsigned i = 0; i < map.ranks().size(); ++i) {
    std::string how;
    const double ns = per_rank(map.ranks()[i], how);
    if (ns > best.ns) best = make_phase(name, ns, i, how);
  }
  return best;
}

nlohmann::json collective_terms(const AllReduceModel& m) {
  nlohmann::json t = {{"first_send_dispatch", m.fill_ns}};
  for (const AllReduceModel::Phase& ph : m.phases)
    if (!ph.name.empty()) t[ph.name] = t.value(ph.name, 0.0) + ph.ns;
  return t;
}

// Whether a collective streams more chunks per step than the ring's credits.
bool paced(const AllReduceModel& c, unsigned slots) {
  return std::any_of(c.phases.begin(), c.phases.end(),
                     [slots](const AllReduceModel::Phase& ph) { return ph.chunks > slots; });
}

// The phases that touch the residual stream (transformer_ops.cpp): the
// norm and the residual add over every row on every rank, or (sharded) on
// the slowest rank's shard, with the all-reduce of the norm's sums of
// squares, the reduce-scatter of the partial sums and the all-gather of xn.
struct StreamPhases {
  LlmStepModel::Phase norm, residual;
  AllReduceModel scatter, gather;
};

StreamPhases stream_phases(const TpMapping& map, const StepDims& s, const TopologyConfig& cfg,
                           RingSpace partial_space) {
  StreamPhases sp;
  sp.norm = make_phase("", rmsnorm_ns(cfg, s), 0, "PE_MATH chain of RMSNorm");
  sp.residual = make_phase("", residual_ns(cfg, s, s.B, s.H), 0, "load, add, store");
  if (!map.sharded_residual()) return sp;
  const std::vector<PeAddr>& order = map.order();
  const unsigned P = map.allreduce_per_cube();
  const AllReduceModel ss_all = cube_allreduce_model(
      cfg, order, P, RingSpace::kTcm, static_cast<uint64_t>(s.B) * 4, map.allreduce_across());
  sp.scatter =
      cube_half_model(cfg, order, P, partial_space, static_cast<uint64_t>(s.B * s.H) * 4, true);
  sp.gather = cube_half_model(cfg, order, P, RingSpace::kHbm,
                              static_cast<uint64_t>(s.B * s.H * s.e), false);
  sp.norm = slowest("", map, [&](const RankPlan& r, std::string& how) {
    const fw::Shard sh = fw::cube_shard(s.B * s.H, order.size(), r.rank, P);
    how = "RMSNorm of the shard, its sums of squares all-reduced (" + ss_all.bottleneck + ")";
    return rmsnorm_shard_ns(cfg, s, sh.first, sh.count, ss_all.total_ns);
  });
  sp.norm.terms = {{"sums_of_squares_allreduce", ss_all.total_ns}};
  sp.residual = slowest("", map, [&](const RankPlan& r, std::string& how) {
    how = "load, add, store of the shard";
    return residual_ns(cfg, s, fw::cube_shard(s.B * s.H, order.size(), r.rank, P).count, 1);
  });
  return sp;
}

// The rings every rank opens at the step's start (transformer_ops.cpp,
// open_rings): the slowest rank's grants.
double ring_opening_ns(const TpMapping& map, const TopologyConfig& cfg) {
  double worst = 0;
  for (const RankPlan& r : map.ranks())
    worst = std::max(worst, ipcq_open_model_ns(cfg, r.pe, map.ring_sources(r)));
  return worst;
}

// The QKV gather on the slowest group: the rank's columns loaded, the
// group's all-reduce, the copy out.
LlmStepModel::Phase qkv_gather_phase(const TpMapping& map, const StepDims& s,
                                     const TopologyConfig& cfg) {
  const unsigned R = map.ranks_per_group();
  const auto groups = static_cast<unsigned>(map.ranks().size() / R);
  LlmStepModel::Phase worst = make_phase(fw::phase::kQkvGather, -1, 0, "");
  const auto bytes = static_cast<uint64_t>(s.B * map.shape().qkv_width()) * 4;
  const std::string algo = fw::list_allreduce_halves(R) ? "halving: " : "tree: ";
  for (unsigned g = 0; g < groups; ++g) {
    const AllReduceModel ar = list_allreduce_model(cfg, map.group(g), RingSpace::kTcm, bytes);
    PeClock pe(cfg);
    const double loaded = pe.load(bytes);
    pe.advance(loaded + ar.total_ns);
    pe.math(math_shape("copy", 1), s.B * (s.G + 2) * s.d, pe.cpu());
    const double ns = pe.wait();
    if (ns <= worst.ns) continue;
    nlohmann::json t = collective_terms(ar);
    t["load"] = loaded;
    worst = make_phase(fw::phase::kQkvGather, ns, g * R, algo + ar.bottleneck, t);
  }
  return worst;
}

}  // namespace

double LlmStepModel::phase_ns(const std::string& name) const {
  for (const Phase& p : layer)
    if (p.name == name) return p.ns * static_cast<double>(layers);
  for (const Phase& p : head)
    if (p.name == name) return p.ns;
  return 0;
}

nlohmann::json LlmStepModel::to_json() const {
  nlohmann::json phases = nlohmann::json::object(), classes = nlohmann::json::object();
  auto put = [&](const Phase& p, double times) {
    phases[p.name] = {{"ns", p.ns},
                      {"ns_over_step", p.ns * times},
                      {"class", fw::phase_class(p.name)},
                      {"slowest_rank", p.rank},
                      {"bound_by", p.how},
                      {"terms", p.terms}};
    const char* c = fw::phase_class(p.name);
    classes[c] = classes.value(c, 0.0) + p.ns * times;
  };
  for (const Phase& p : layer) put(p, static_cast<double>(layers));
  for (const Phase& p : head) put(p, 1);
  classes["ring_opening"] = open_ns;
  nlohmann::json j = {{"total_ns", total_ns}, {"open_ns", open_ns}, {"layer_ns", layer_ns},
                      {"head_ns", head_ns},   {"layers", layers},   {"phases", phases},
                      {"classes", classes}};
  if (!unpriced.empty()) j["unpriced"] = unpriced;
  j["credit_paced_collectives"] = credit_paced;
  if (!pipeline.is_null()) j["pipeline"] = pipeline;
  return j;
}

namespace {

// Attention, on the slowest KV-head group: per chunk of sequences, the
// group's sweeps, reduce and normalisation; then the output's broadcast in
// the group. Adds what the attention model leaves unpriced to `unpriced`.
LlmStepModel::Phase attention_phase(const TpMapping& map, const StepDims& s, const LlmRun& run,
                                    const TopologyConfig& cfg, std::vector<std::string>& unpriced) {
  const unsigned R = map.ranks_per_group();
  const auto groups = static_cast<unsigned>(map.ranks().size() / R);
  LlmStepModel::Phase worst = make_phase(fw::phase::kAttention, -1, 0, "");
  const int64_t chunk = map.attn_chunk() > 0 ? std::min(map.attn_chunk(), s.B) : s.B;
  for (unsigned g = 0; g < groups; ++g) {
    const std::vector<PeAddr> grp = map.group(g);
    std::vector<int64_t> blocks;
    for (unsigned i = 0; i < R; ++i) blocks.push_back(map.ranks()[g * R + i].kv.count);
    double ns = 0;
    nlohmann::json t = nlohmann::json::object();
    std::string mode;
    for (int64_t b0 = 0; b0 < s.B; b0 += chunk) {
      const AttentionModel am = group_decode_model(cfg, grp, blocks, std::min(chunk, s.B - b0), s.G,
                                                   s.d, run.tile, run.variant, run.kv_tiled);
      ns += am.total_ns;
      for (const auto& [k, v] : am.terms) t[k] = t.value(k, 0.0) + v;
      mode = am.mode;
      for (const std::string& u : am.unpriced)
        if (std::find(unpriced.begin(), unpriced.end(), u) == unpriced.end()) unpriced.push_back(u);
    }
    const AllReduceModel bc = tree_broadcast_model(cfg, grp, RingSpace::kTcm,
                                                   static_cast<uint64_t>(s.B * s.G * s.d * s.e));
    t["output_broadcast"] = bc.total_ns;
    ns += bc.total_ns;
    if (ns > worst.ns) worst = make_phase(fw::phase::kAttention, ns, g * R, mode, t);
  }
  return worst;
}

}  // namespace

LlmStepModel llm_decode_model(const TpMapping& map, const LlmRun& run, const TopologyConfig& cfg) {
  if (run.prefill) throw std::invalid_argument("llm_decode_model: a decode step only");
  LlmStepModel m;
  m.layers = run.layers;
  const fw::TransformerShape sh = map.shape();
  StepDims s;
  s.B = run.batch;
  s.H = sh.hidden;
  s.G = sh.group();
  s.d = sh.d_head;
  s.e = static_cast<int64_t>(dtype_bytes(sh.dtype));
  s.budget = map.tcm_budget();
  const fw::StreamResidency where = map.residency();
  s.partial_tcm = where.partial_in_tcm;
  s.xn_tcm = where.xn_in_tcm;
  s.xn_chunk = where.xn_chunk_cols;
  const RingSpace partial_space = s.partial_tcm ? RingSpace::kTcm : RingSpace::kHbm;
  const std::vector<PeAddr>& order = map.order();

  m.open_ns = ring_opening_ns(map, cfg);

  const bool sharded = map.sharded_residual();
  const StreamPhases sp = stream_phases(map, s, cfg, partial_space);
  const AllReduceModel& scatter = sp.scatter;
  auto norm_phases = [&](std::vector<LlmStepModel::Phase>& to, const char* name,
                         const char* gather_name) {
    LlmStepModel::Phase p = sp.norm;
    p.name = name;
    to.push_back(p);
    if (sharded)
      to.push_back(make_phase(gather_name, sp.gather.total_ns, 0,
                              "halving: " + sp.gather.bottleneck, collective_terms(sp.gather)));
  };
  auto resid_phase = [&](const char* name) {
    LlmStepModel::Phase p = sp.residual;
    p.name = name;
    return p;
  };
  auto gemm = [&](const std::string& name, bool xn, auto M, auto K, auto Ns, bool out_hbm) {
    return slowest(name, map, [&](const RankPlan& r, std::string& how) {
      const std::vector<int64_t> n = Ns(r);
      return n.empty() || K(r) <= 0 ? 0.0 : gemm_phase_ns(cfg, s, xn, M(r), K(r), n, out_hbm, &how);
    });
  };
  auto rows_B = [&](const RankPlan&) { return s.B; };
  auto hidden = [&](const RankPlan&) { return s.H; };

  norm_phases(m.layer, fw::phase::kAttnNorm, fw::phase::kAttnNormGather);
  m.layer.push_back(gemm(
      fw::phase::kQkv, true, rows_B, hidden,
      [](const RankPlan& r) {
        return r.qkv.count > 0 ? std::vector<int64_t>{r.qkv.count} : std::vector<int64_t>{};
      },
      true));

  m.layer.push_back(qkv_gather_phase(map, s, cfg));

  m.layer.push_back(gemm(
      fw::phase::kRope, false, [&](const RankPlan&) { return s.B * (s.G + 2); },
      [&](const RankPlan&) { return s.d; },
      [&](const RankPlan&) { return std::vector<int64_t>{s.d}; }, false));

  // The new K and V rows into the cache of the rank holding the position.
  m.layer.push_back(slowest(fw::phase::kKvAppend, map, [&](const RankPlan& r, std::string& how) {
    if (run.context < r.kv.first || run.context >= r.kv.first + r.kv.count) return 0.0;
    PeClock pe(cfg);
    for (int64_t b = 0; b < s.B; ++b) {
      pe.store(static_cast<uint64_t>(s.d * s.e), 0, static_cast<uint64_t>(s.d));
      pe.store(static_cast<uint64_t>(s.d * s.e), 0);
    }
    how = "DMA writes of K (a column) and V (a row)";
    return pe.wait();
  }));

  m.layer.push_back(attention_phase(map, s, run, cfg, m.unpriced));

  m.layer.push_back(gemm(
      fw::phase::kOProj, false, rows_B, [](const RankPlan& r) { return r.o.count; },
      [&](const RankPlan&) { return std::vector<int64_t>{s.H}; }, !s.partial_tcm));

  const AllReduceModel all =
      map.allreduce_per_cube() > 0
          ? cube_allreduce_model(cfg, order, map.allreduce_per_cube(), partial_space,
                                 static_cast<uint64_t>(s.B * s.H) * 4, map.allreduce_across())
          : tree_allreduce_model(cfg, order, partial_space, static_cast<uint64_t>(s.B * s.H) * 4);
  const std::string all_how = std::string(map.allreduce_name()) + ": " + all.bottleneck;
  const std::string scatter_how = "halving: " + scatter.bottleneck;
  const unsigned slots = cfg.pe.ipcq.slots;
  m.credit_paced =
      sharded ? paced(sp.scatter, slots) || paced(sp.gather, slots) : paced(all, slots);
  // The partial sums into the stream (transformer_ops.cpp, sum_into_stream).
  auto sum_phases = [&](const char* allreduce, const char* scatter_name, const char* residual) {
    if (sharded)
      m.layer.push_back(
          make_phase(scatter_name, scatter.total_ns, 0, scatter_how, collective_terms(scatter)));
    else
      m.layer.push_back(make_phase(allreduce, all.total_ns, 0, all_how, collective_terms(all)));
    m.layer.push_back(resid_phase(residual));
  };
  sum_phases(fw::phase::kOAllreduce, fw::phase::kOReduceScatter, fw::phase::kOResidual);
  norm_phases(m.layer, fw::phase::kFfnNorm, fw::phase::kFfnNormGather);
  m.layer.push_back(gemm(
      fw::phase::kGateUp, true, rows_B, hidden,
      [](const RankPlan& r) {
        return std::vector<int64_t>{r.ffn.count, r.ffn.count};
      },
      false));
  m.layer.push_back(slowest(fw::phase::kSiluMul, map, [&](const RankPlan& r, std::string& how) {
    PeClock pe(cfg);
    const double t = pe.math(math_shape("silu", 1), s.B * r.ffn.count, 0);
    pe.math(math_shape("mul", 2), s.B * r.ffn.count, t);
    how = "PE_MATH";
    return pe.wait();
  }));
  m.layer.push_back(gemm(
      fw::phase::kDown, false, rows_B, [](const RankPlan& r) { return r.ffn.count; },
      [&](const RankPlan&) { return std::vector<int64_t>{s.H}; }, !s.partial_tcm));
  sum_phases(fw::phase::kFfnAllreduce, fw::phase::kFfnReduceScatter, fw::phase::kFfnResidual);
  for (const auto& p : m.layer) m.layer_ns += p.ns;

  if (run.has_head) {
    norm_phases(m.head, fw::phase::kFinalNorm, fw::phase::kFinalNormGather);
    m.head.push_back(gemm(
        fw::phase::kLmHead, true, rows_B, hidden,
        [](const RankPlan& r) { return std::vector<int64_t>{r.vocab.count}; }, true));
  }
  for (const auto& p : m.head) m.head_ns += p.ns;
  m.total_ns = m.open_ns + static_cast<double>(m.layers) * m.layer_ns + m.head_ns;
  return m;
}

LlmStepModel llm_pipeline_decode_model(const std::vector<LlmStage>& stages,
                                       const std::vector<int64_t>& micro_rows,
                                       const TopologyConfig& cfg) {
  LlmStepModel m;
  const auto S = stages.size(), K = micro_rows.size();
  // sent[k]: when the previous stage's root has sent micro-batch k.
  std::vector<double> sent(K, 0.0);
  m.pipeline = {{"stages", nlohmann::json::array()}};
  for (size_t s = 0; s < S; ++s) {
    const LlmStage& st = stages[s];
    const std::vector<PeAddr>& order = st.map->order();
    double free = 0;
    nlohmann::json js = {{"first_pe", to_string(order.front())},
                         {"layers", st.run.layers},
                         {"micro", nlohmann::json::array()}};
    for (size_t k = 0; k < K; ++k) {
      LlmRun run = st.run;
      run.batch = micro_rows[k];
      const LlmStepModel one = llm_decode_model(*st.map, run, cfg);
      m.open_ns = std::max(m.open_ns, one.open_ns);
      m.credit_paced = m.credit_paced || one.credit_paced;
      for (const std::string& u : one.unpriced)
        if (std::find(m.unpriced.begin(), m.unpriced.end(), u) == m.unpriced.end())
          m.unpriced.push_back(u);
      const auto stream = static_cast<uint64_t>(micro_rows[k] * st.map->shape().hidden) * 4;
      double t = free, in = 0, out = 0;
      if (s > 0) {
        // Received once sent, then broadcast over the stage (the stream in HBM).
        in = tree_broadcast_model(cfg, order, RingSpace::kHbm, stream).total_ns;
        t = std::max(t, sent[k]) + in;
      }
      const double layers = static_cast<double>(one.layers) * one.layer_ns;
      t += layers + one.head_ns;
      if (s + 1 < S) {
        // The root's send to the next stage's root, which it waits for.
        const std::vector<PeAddr> pair = {order.front(), stages[s + 1].map->order().front()};
        out = tree_broadcast_model(cfg, pair, RingSpace::kHbm, stream).total_ns;
        t += out;
      }
      sent[k] = t;
      free = t;
      js["micro"].push_back({{"rows", micro_rows[k]},
                             {"handoff_in_ns", in},
                             {"layers_ns", layers},
                             {"head_ns", one.head_ns},
                             {"handoff_out_ns", out},
                             {"end_ns", t}});
    }
    m.pipeline["stages"].push_back(js);
  }
  m.total_ns = m.open_ns + sent.back();
  return m;
}

std::string llm_model_gap(const LlmStepModel& m, double ratio) {
  if (ratio >= 0.9 && ratio <= 1.1) return "";
  if (!m.unpriced.empty()) return m.unpriced.front();
  if (ratio < 1 && m.credit_paced)
    return "the all-reduces stream more chunks than their credits: the model prices the "
           "credit loop by mean-value analysis, and lets each send of a tree's broadcast share "
           "the sender's links with its siblings for its whole length, where the simulated "
           "sends finish one after the other";
  return ratio > 1 ? "the ranks leave each collective at different times; the model prices "
                     "every phase on its slowest rank and lets none overlap the next"
                   : "the model charges every phase its slowest rank; the simulation overlaps "
                     "some phases across ranks";
}

}  // namespace kb
