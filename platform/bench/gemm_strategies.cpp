#include "platform/bench/gemm_strategies.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "models/commands/commands.h"
#include "models/common/errors.h"
#include "models/trace/op_log.h"
#include "platform/config/topology_config.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {

namespace {

constexpr uint64_t kAlign = 64;  // the TCM arena's allocation alignment

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

bool streams_a(const std::string& v) {
  return v == "ref_ref";
}
bool streams_w(const std::string& v) {
  return v != "load_load";
}

// ---- firmware helpers ----------------------------------------------------------

// The [rows, cols] block at (r0, c0) of the 2-D tensor `t`, in place: the same
// memory (TCM or HBM), so its rows are `t`'s row length apart
// (TensorHandle::row_stride). The engines only move bytes: FETCH reads
// rows·cols elements, a DMA walks the rows with that stride. The view carries
// `t`'s pending command, so its first consumer waits for the data.
fw::Tensor tile_view(fw::Tl& tl, const fw::Tensor& t, int64_t r0, int64_t c0, int64_t rows,
                     int64_t cols) {
  const uint64_t e = dtype_bytes(t.h.dtype);
  fw::Tensor v =
      tl.ref(t.h.addr + static_cast<uint64_t>(r0 * t.h.stride() + c0) * e, {rows, cols}, t.h.dtype);
  v.h.row_stride = t.h.stride();
  v.pending = t.pending;
  return v;
}

// One single-op DMA of `src` (a possibly strided HBM view) into the existing
// TCM tensor `dst`: tl.load without the allocation, so that a kernel can
// reuse a TCM buffer (fw::Tl has no load-into form). The descriptor is the
// one tl.load builds.
fw::Tensor load_into(fw::Tl& tl, const fw::Tensor& dst, const fw::Tensor& src) {
  const uint64_t e = dtype_bytes(src.h.dtype);
  DmaReadCmd c;
  c.src = src.h.addr;
  c.dst = dst.h.addr;
  c.row_bytes = static_cast<uint64_t>(src.h.cols()) * e;
  c.rows = static_cast<uint32_t>(src.h.rows());
  c.src_stride = static_cast<uint64_t>(src.h.stride()) * e;
  c.dst_stride = static_cast<uint64_t>(dst.h.stride()) * e;
  fw::Tensor out = dst;
  out.pending = tl.cpu().issue(c);
  return out;
}

// The accumulator as the next dot's `acc`: with DepSync::kNoWait its pending
// command (the previous dot) is dropped, so tl.dot does not wait for it.
fw::Tensor acc_input(const fw::Tensor& acc, DepSync sync) {
  fw::Tensor in = acc;
  if (sync == DepSync::kNoWait) in.pending.reset();
  return in;
}

// Finishes output tile (m0, n0): fp32 accumulator -> fp16 tile (a MATH cast,
// as the composite's STORE writes C in C's dtype) -> C in HBM (tl.store).
// `c16` is a reused fp16 TCM tile; `prev_store` the store that last read it.
void cast_and_store(fw::Tl& tl, const GemmOperands& ops, const fw::Tensor& acc,
                    const fw::Tensor& c16, CommandHandle& prev_store, int64_t m0, int64_t n0,
                    DepSync sync, IssueRecord& rec) {
  const int64_t mm = acc.shape()[0], nn = acc.shape()[1];
  // WAR on c16: the store of the tile before last must have read it.
  if (prev_store && sync == DepSync::kWait) tl.cpu().wait(prev_store);
  fw::Tensor c16_view = c16;
  c16_view.h.shape = {mm, nn};
  c16_view.pending.reset();
  const fw::Tensor half = tl.math("cast", {acc}, {}, c16_view);  // waits for the last dot
  rec.add(half);
  const fw::Tensor stored = tl.store(tile_view(tl, ops.c, m0, n0, mm, nn), half);  // waits for cast
  rec.add(stored);
  prev_store = stored.pending;
}

}  // namespace

const char* to_string(DepSync s) {
  return s == DepSync::kWait ? "wait" : "nowait";
}

// ---- async-full -------------------------------------------------------------------
//
// Variants (what is in TCM before the window; the rest is loaded inside it):
//   load_ref   A pre-loaded; W loaded whole by one single-op DMA in the window
//   ref_ref    A and W each loaded whole by one single-op DMA in the window
//   load_load  both pre-loaded; the window holds only dots, casts and stores
void gemm_async_full_kernel(fw::Tl& tl, const GemmOperands& ops, DepSync sync, IssueRecord& rec) {
  const int64_t M = ops.a.shape()[0], K = ops.a.shape()[1], N = ops.w.shape()[1];
  const int64_t tm = ops.tile_m, tk = ops.tile_k, tn = ops.tile_n;
  const int64_t nm = ceil_div(M, tm), nk = ceil_div(K, tk), nn = ceil_div(N, tn);

  // Step 1: the whole operands into TCM. tl.load is lazy: it issues one
  // DmaRead for the whole tensor and returns at once; the first dot that
  // reads a view of it waits for that DMA (the only wait on the data).
  fw::Tensor a = ops.a, w = ops.w;
  if (!a.h.in_tcm()) {
    a = tl.load(a);
    rec.add(a);
  }
  if (!w.h.in_tcm()) {
    w = tl.load(w);
    rec.add(w);
  }

  // Step 2: one dot per native tile (m, n, k) on TCM views of the loaded
  // operands: A block [tm, tk] at (m·tm, k·tk), W block [tk, tn] at
  // (k·tk, n·tn), both with the full operand's row stride. K is the
  // outermost loop, so consecutive dots write different output tiles: a dot
  // depends only on the dot of its own output tile one K step earlier (its
  // accumulator), issued nm·nn dots before. With one output tile (M, N <= the
  // native tile) that chain is the whole kernel.
  std::vector<fw::Tensor> acc(static_cast<size_t>(nm * nn));
  for (int64_t ki = 0; ki < nk; ++ki)
    for (int64_t mi = 0; mi < nm; ++mi)
      for (int64_t ni = 0; ni < nn; ++ni) {
        const int64_t mm = std::min(tm, M - mi * tm), kk = std::min(tk, K - ki * tk),
                      nnn = std::min(tn, N - ni * tn);
        const fw::Tensor av = tile_view(tl, a, mi * tm, ki * tk, mm, kk);
        const fw::Tensor wv = tile_view(tl, w, ki * tk, ni * tn, kk, nnn);
        fw::Tensor& c = acc[static_cast<size_t>(mi * nn + ni)];
        // The first K step creates the fp32 accumulator tile in TCM (dot
        // without acc); the next ones accumulate into it (dot with acc).
        c = ki == 0 ? tl.dot(av, wv) : tl.dot(av, wv, acc_input(c, sync));
        rec.add(c);
      }

  // Step 3: each output tile, cast to fp16 and stored to C. Two fp16 staging
  // tiles in turn, so a cast need not wait for the store just issued.
  const fw::Tensor c16[2] = {tl.empty({tm, tn}), tl.empty({tm, tn})};
  CommandHandle store_of[2];
  for (int64_t mi = 0; mi < nm; ++mi)
    for (int64_t ni = 0; ni < nn; ++ni) {
      const auto t = static_cast<size_t>(mi * nn + ni);
      cast_and_store(tl, ops, acc[t], c16[t % 2], store_of[t % 2], mi * tm, ni * tn, sync, rec);
    }

  // Step 4: one wait for everything issued.
  tl.wait();
}

// ---- async-tiled ------------------------------------------------------------------
//
// Variants:
//   load_ref   A pre-loaded (its tiles are TCM views); W streamed: one DmaRead
//              of the [tk, tn] W tile per step, into one of two W buffers
//   ref_ref    A and W streamed: per step one DmaRead of the [tm, tk] A tile
//              and one of the W tile, each into one of two buffers
//   load_load  both pre-loaded: nothing to stream, so the kernel issues
//              async-full's dots, casts and stores, in the composite's
//              (m, n, k) order instead of async-full's (k, m, n)
namespace {

// async-tiled's streamed operands. The steps are the native tiles in the
// composite's order: output tiles (m, n), K tiles inside. Step s uses buffer
// s % 2 of each streamed operand; the buffers are allocated once (by the
// constructor) and reused.
class TileStream {
 public:
  struct Step {
    int64_t mi, ni, ki;
  };

  TileStream(fw::Tl& tl, const GemmOperands& ops, DepSync sync, IssueRecord& rec)
      : tl_(tl),
        ops_(ops),
        sync_(sync),
        rec_(rec),
        M_(ops.a.shape()[0]),
        K_(ops.a.shape()[1]),
        N_(ops.w.shape()[1]),
        tm_(ops.tile_m),
        tk_(ops.tile_k),
        tn_(ops.tile_n),
        nn_(ceil_div(N_, tn_)),
        nk_(ceil_div(K_, tk_)),
        stream_a_(!ops.a.h.in_tcm()),
        stream_w_(!ops.w.h.in_tcm()) {
    for (int b = 0; b < 2; ++b) {
      if (stream_a_) abuf_[b] = tl.empty({tm_, tk_});
      if (stream_w_) wbuf_[b] = tl.empty({tk_, tn_});
    }
  }

  bool streams() const { return stream_a_ || stream_w_; }

  // The prefetch: the DMA of step s's streamed tiles into buffer s % 2. That
  // buffer was last read by the dot of step s - 2; with kWait the DMA is
  // issued only once that dot is done (write after read).
  void prefetch(int64_t s) {
    const int b = static_cast<int>(s % 2);
    if (reader_[b] && sync_ == DepSync::kWait) tl_.cpu().wait(reader_[b]);
    const Step st = step_at(s);
    if (stream_a_) {
      const fw::Tensor src = a_tile(st);
      a_in_[b] = load_into(tl_, into(abuf_[b], src), src);
      rec_.add(a_in_[b]);
    }
    if (stream_w_) {
      const fw::Tensor src = w_tile(st);
      w_in_[b] = load_into(tl_, into(wbuf_[b], src), src);
      rec_.add(w_in_[b]);
    }
  }

  // What the dot of step `st` reads: buffer b as filled by its latest DMA
  // (pending on it), or the tile of the pre-loaded TCM operand.
  fw::Tensor a(int b, const Step& st) const { return stream_a_ ? a_in_[b] : a_tile(st); }
  fw::Tensor w(int b, const Step& st) const { return stream_w_ ? w_in_[b] : w_tile(st); }
  // `dot` is the latest reader of buffer b.
  void read_by(int b, const CommandHandle& dot) { reader_[b] = dot; }

 private:
  Step step_at(int64_t s) const { return Step{s / (nn_ * nk_), (s / nk_) % nn_, s % nk_}; }
  // The operand tiles of a step, in place in HBM (what a DMA reads) or in the
  // pre-loaded TCM operand (what the dot reads).
  fw::Tensor a_tile(const Step& st) const {
    return tile_view(tl_, ops_.a, st.mi * tm_, st.ki * tk_, std::min(tm_, M_ - st.mi * tm_),
                     std::min(tk_, K_ - st.ki * tk_));
  }
  fw::Tensor w_tile(const Step& st) const {
    return tile_view(tl_, ops_.w, st.ki * tk_, st.ni * tn_, std::min(tk_, K_ - st.ki * tk_),
                     std::min(tn_, N_ - st.ni * tn_));
  }
  static fw::Tensor into(const fw::Tensor& buf, const fw::Tensor& src) {
    fw::Tensor dst = buf;  // an edge tile fills the buffer's top-left corner
    dst.h.shape = src.h.shape;
    dst.h.row_stride = buf.h.cols();
    return dst;
  }

  fw::Tl& tl_;
  const GemmOperands& ops_;
  DepSync sync_;
  IssueRecord& rec_;
  int64_t M_, K_, N_, tm_, tk_, tn_, nn_, nk_;
  bool stream_a_, stream_w_;
  fw::Tensor abuf_[2], wbuf_[2];
  CommandHandle reader_[2];       // the dot that last read buffer b
  fw::Tensor a_in_[2], w_in_[2];  // buffer b as filled by its latest DMA (pending on it)
};

}  // namespace

void gemm_async_tiled_kernel(fw::Tl& tl, const GemmOperands& ops, DepSync sync, IssueRecord& rec) {
  const int64_t M = ops.a.shape()[0], K = ops.a.shape()[1], N = ops.w.shape()[1];
  const int64_t tm = ops.tile_m, tk = ops.tile_k, tn = ops.tile_n;
  const int64_t nm = ceil_div(M, tm), nk = ceil_div(K, tk), nn = ceil_div(N, tn);

  // Step 1: the steps and the buffers of the streamed operands (TileStream).
  const int64_t n_steps = nm * nn * nk;
  TileStream stream(tl, ops, sync, rec);

  // Step 2, the prefetch of a step's streamed tiles: TileStream::prefetch.
  const fw::Tensor c16[2] = {tl.empty({tm, tn}), tl.empty({tm, tn})};
  CommandHandle store_of[2];
  int64_t s = 0;
  if (n_steps > 0 && stream.streams()) stream.prefetch(0);
  for (int64_t mi = 0; mi < nm; ++mi)
    for (int64_t ni = 0; ni < nn; ++ni) {
      // The output tile's fp32 accumulator lives in this scope: its TCM is
      // reused by the next output tile once the store below has been issued
      // (tl.store waited for the cast, the accumulator's last reader).
      const auto scope = tl.scratch_scope();
      fw::Tensor acc;
      for (int64_t ki = 0; ki < nk; ++ki, ++s) {
        const int b = static_cast<int>(s % 2);
        const bool more = s + 1 < n_steps && stream.streams();
        // Step 3 (kNoWait): the next step's DMA goes out before this step's
        // dot, so it has the dot's dispatch time to land.
        if (more && sync == DepSync::kNoWait) stream.prefetch(s + 1);
        // Step 4: the dot of this step on buffer b (it waits for the
        // buffer's DMA), accumulating into the output tile's accumulator from
        // the second K step on (with kWait it also waits for the previous
        // dot, the accumulator's producer).
        const TileStream::Step st{mi, ni, ki};
        const fw::Tensor av = stream.a(b, st);
        const fw::Tensor wv = stream.w(b, st);
        acc = ki == 0 ? tl.dot(av, wv) : tl.dot(av, wv, acc_input(acc, sync));
        rec.add(acc);
        stream.read_by(b, acc.pending);
        // Step 3 (kWait): the next step's DMA goes out right after this dot,
        // so it overlaps the dot's execution. Its buffer's last reader is the
        // previous dot: inside an output tile this dot already waited for it
        // (its accumulator); at an output tile's first K step the prefetch
        // waits for it.
        if (more && sync == DepSync::kWait) stream.prefetch(s + 1);
      }
      // Step 5: the output tile is complete: cast it to fp16 and store it
      // to C, issued and not waited for.
      const auto t = static_cast<size_t>(mi * nn + ni);
      cast_and_store(tl, ops, acc, c16[t % 2], store_of[t % 2], mi * tm, ni * tn, sync, rec);
    }
  // Step 6: one wait for everything issued.
  tl.wait();
}

// ---- study ------------------------------------------------------------------------

const std::vector<std::string>& gemm_strategy_names() {
  static const std::vector<std::string> names = {"composite", "async-full", "async-tiled"};
  return names;
}

std::string gemm_strategy_fit(const TopologyConfig& cfg, const GemmShape& s,
                              const std::string& strategy, const std::string& variant) {
  if (strategy == "composite") return gemm_fit(cfg, s, variant);
  const auto& g = cfg.pe.gemm;
  const uint64_t staging = (uint64_t{g.tile_m} * g.tile_k * 4 + uint64_t{g.tile_k} * g.tile_n * 4 +
                            uint64_t{g.tile_m} * g.tile_n * 4) *
                           cfg.pe.scheduler.staging_buffers;
  const uint64_t arena = cfg.pe.tcm.size_bytes > staging ? cfg.pe.tcm.size_bytes - staging : 0;
  auto sz = [](uint64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; };
  const uint64_t a_bytes = static_cast<uint64_t>(s.m * s.k) * 2,
                 w_bytes = static_cast<uint64_t>(s.k * s.n) * 2;
  const uint64_t acc_tile = sz(uint64_t{g.tile_m} * g.tile_n * 4),
                 c16_tile = sz(uint64_t{g.tile_m} * g.tile_n * 2);
  const auto out_tiles = static_cast<uint64_t>(ceil_div(s.m, g.tile_m) * ceil_div(s.n, g.tile_n));
  uint64_t need = 2 * c16_tile;
  if (strategy == "async-full") {
    need += sz(a_bytes) + sz(w_bytes) + out_tiles * acc_tile;  // whole operands, every accumulator
  } else {
    if (!streams_a(variant)) need += sz(a_bytes);
    if (!streams_w(variant)) need += sz(w_bytes);
    if (streams_a(variant)) need += 2 * sz(uint64_t{g.tile_m} * g.tile_k * 2);
    if (streams_w(variant)) need += 2 * sz(uint64_t{g.tile_k} * g.tile_n * 2);
    need += acc_tile;  // one accumulator at a time (recycled per output tile)
  }
  if (need <= arena) return "";
  return strategy + " needs " + std::to_string(need) + " bytes of TCM but the arena has " +
         std::to_string(arena);
}

namespace {

struct Interval {
  double a, b;
};

// The union of `v` clipped to [lo, hi], as sorted disjoint intervals.
std::vector<Interval> merged(std::vector<Interval> v, double lo, double hi) {
  std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.a < y.a; });
  std::vector<Interval> out;
  for (Interval iv : v) {
    iv.a = std::max(iv.a, lo);
    iv.b = std::min(iv.b, hi);
    if (iv.b <= iv.a) continue;
    if (!out.empty() && iv.a <= out.back().b)
      out.back().b = std::max(out.back().b, iv.b);
    else
      out.push_back(iv);
  }
  return out;
}

double length(const std::vector<Interval>& v) {
  double t = 0;
  for (const Interval& iv : v) t += iv.b - iv.a;
  return t;
}

// Length of (x minus y), both sorted and disjoint.
double length_minus(const std::vector<Interval>& x, const std::vector<Interval>& y) {
  double t = 0;
  size_t j = 0;
  for (const Interval& iv : x) {
    double cur = iv.a;
    while (j < y.size() && y[j].b <= cur) ++j;
    for (size_t k = j; k < y.size() && y[k].a < iv.b; ++k) {
      if (y[k].a > cur) t += y[k].a - cur;
      cur = std::max(cur, y[k].b);
      if (cur >= iv.b) break;
    }
    if (cur < iv.b) t += iv.b - cur;
  }
  return t;
}

// Window metrics shared by every strategy, from the op log records of the
// point's commands and their dispatch intervals.
void window_metrics(nlohmann::json& j, Platform& p, const GemmShape& s, double t0, double t1,
                    const std::set<uint64_t>& ids, const std::vector<Interval>& dispatch) {
  const TopologyConfig& c = p.config();
  const std::string pe_path = "system.sip0.cube0.pe0";
  std::map<std::string, std::vector<Interval>> by_stage;
  std::vector<Interval> any_stage;
  uint64_t dma_bytes = 0;
  for (const OpRecord& r : p.op_log().records()) {
    if (r.pe != pe_path || !ids.count(r.cmd_id)) continue;
    by_stage[r.stage].push_back({r.t_start_ns, r.t_end_ns});
    any_stage.push_back({r.t_start_ns, r.t_end_ns});
    if (r.stage == "DMA_READ" || r.stage == "DMA_WRITE") dma_bytes += r.bytes;
  }
  const double window = t1 - t0;
  const double flops = 2.0 * s.m * s.k * s.n;
  const double peak_flop_per_ns = c.pe.gemm.peak_tflops * 1000.0;
  const auto gemm = merged(by_stage["GEMM"], t0, t1);
  const auto disp = merged(dispatch, t0, t1);
  const double gemm_busy = length(gemm);
  const double cpu_bound = length_minus(disp, gemm);
  j["window_ns"] = window;
  j["tflops_per_pe"] = flops / window / 1000.0;
  j["mac_util"] = flops / (peak_flop_per_ns * window);
  j["hbm_bw_util"] = static_cast<double>(dma_bytes) / (c.pe_hbm_bandwidth_gbps() * window);
  j["dma_bytes"] = dma_bytes;
  j["stage_busy_ns"] = {{"dma_in", length(merged(by_stage["DMA_READ"], t0, t1))},
                        {"fetch", length(merged(by_stage["FETCH"], t0, t1))},
                        {"gemm", gemm_busy},
                        {"math", length(merged(by_stage["MATH"], t0, t1))},
                        {"store", length(merged(by_stage["STORE"], t0, t1))},
                        {"dma_out", length(merged(by_stage["DMA_WRITE"], t0, t1))}};
  // The window split by what the GEMM engine was doing: busy; idle while
  // PE_CPU was dispatching (cpu_bound: the CPU was the bottleneck); idle
  // otherwise (waiting for data, for a dependency, or the fill and drain).
  j["gemm_busy_ns"] = gemm_busy;
  j["cpu_bound_ns"] = cpu_bound;
  j["cpu_bound_share"] = cpu_bound / window;
  j["gemm_idle_other_ns"] = window - gemm_busy - cpu_bound;
  j["cpu_dispatching_ns"] = length(disp);
  // A stricter reading: PE_CPU dispatching while no engine serves any stage
  // of the point (the whole pipeline waits for the command being issued).
  // cpu_bound also counts dispatch that overlaps other engines' work (a
  // FETCH, a DMA) while the GEMM engine waits for that work, not for the CPU.
  const double starved = length_minus(disp, merged(any_stage, t0, t1));
  j["cpu_starved_ns"] = starved;
  j["cpu_starved_share"] = starved / window;
  j["t0_ns"] = t0;
  j["t1_ns"] = t1;
}

}  // namespace

nlohmann::json run_gemm_strategy_point(HostRuntime& rt, const GemmShape& s,
                                       const std::string& strategy, const std::string& variant,
                                       DepSync sync, IssueRecord* record_out) {
  Platform& p = rt.platform();
  const TopologyConfig& c = p.config();
  const PeId pe{0, 0, 0};
  PeCpu& cpu = p.pe(pe).cpu;
  const PeCpu::Stats before = cpu.stats();
  nlohmann::json j;

  if (strategy == "composite") {
    // The gemm study's own point; its window and dispatch come from the
    // composite's handle. The CPU-bound time is recomputed here from the
    // op log: the composite completes with its last stage, so the window is
    // [t1 - window_ns, t1] and its one dispatch interval opens it.
    const nlohmann::json g = run_gemm_point(rt, s, variant);
    const uint64_t id = g["cmd_id"].get<uint64_t>();
    double t1 = 0;
    for (const OpRecord& r : p.op_log().records())
      if (r.pe == "system.sip0.cube0.pe0" && r.cmd_id == id) t1 = std::max(t1, r.t_end_ns);
    const double t0 = t1 - g["window_ns"].get<double>();
    const double disp = g["dispatch_ns"].get<double>();
    window_metrics(j, p, s, t0, t1, {id}, {{t0, t0 + disp}});
    j["mac_util_analytic"] = g["mac_util_analytic"];
    j["window_ns_analytic"] = g["window_ns_analytic"];
    j["commands"] = 1;
    j["commands_by_kind"] = {{"Composite", 1}};
    j["dispatch_ns"] = disp;
    j["dispatch_ns_by_kind"] = {{"Composite", disp}};
    j["n_tiles"] = g["n_tiles"];
    j["cmd_id_first"] = id;
    j["cmd_id_last"] = id;
  } else {
    const uint64_t align = c.pe.hbm.interleave_bytes * c.pe.hbm.num_pcs;
    const fw::Tensor A = rt.alloc_hbm(pe, {s.m, s.k}, DType::kFp16, align);
    const fw::Tensor W = rt.alloc_hbm(pe, {s.k, s.n}, DType::kFp16, align);
    const fw::Tensor C = rt.alloc_hbm(pe, {s.m, s.n}, DType::kFp16, align);
    IssueRecord rec;
    std::vector<CommandHandle> pre;
    rt.launch([&](fw::Tl& tl) {
      // The variant's pre-loads, done before the window (as the gemm study).
      GemmOperands ops;
      ops.a = streams_a(variant) ? A : tl.load(A);
      ops.w = streams_w(variant) ? W : tl.load(W);
      for (const fw::Tensor* t : {&ops.a, &ops.w})
        if (t->pending) {
          pre.push_back(t->pending);
          tl.wait(*t);
        }
      ops.c = C;
      ops.tile_m = c.pe.gemm.tile_m;
      ops.tile_k = c.pe.gemm.tile_k;
      ops.tile_n = c.pe.gemm.tile_n;
      if (strategy == "async-full")
        gemm_async_full_kernel(tl, ops, sync, rec);
      else
        gemm_async_tiled_kernel(tl, ops, sync, rec);
    });
    rt.run();

    double t0 = rec.cmds.front()->dispatch_start_ns, t1 = 0, disp = 0;
    std::set<uint64_t> ids;
    std::vector<Interval> dispatch;
    std::map<std::string, uint64_t> count;
    std::map<std::string, double> disp_by_kind;
    for (const CommandHandle& h : rec.cmds) {
      t0 = std::min(t0, h->dispatch_start_ns);
      t1 = std::max(t1, h->done_ns);
      ids.insert(h->id);
      dispatch.push_back({h->dispatch_start_ns, h->issued_ns});
      disp += h->issued_ns - h->dispatch_start_ns;
      ++count[h->kind];
      disp_by_kind[h->kind] += h->issued_ns - h->dispatch_start_ns;
    }
    window_metrics(j, p, s, t0, t1, ids, dispatch);
    j["commands"] = rec.cmds.size();
    j["commands_by_kind"] = count;
    j["dispatch_ns"] = disp;
    j["dispatch_ns_by_kind"] = disp_by_kind;
    unsigned dots = 0;
    for (const CommandHandle& h : rec.cmds) dots += std::string(h->kind) == "Gemm";
    j["n_tiles"] = dots;
    j["cmd_id_first"] = *ids.begin();  // the point's commands are consecutive on the PE
    j["cmd_id_last"] = *ids.rbegin();
    if (record_out != nullptr) *record_out = rec;
  }

  // PE_CPU's own account of the point (pre-loads included): the dispatch
  // cost by the formula FIXED + logical_bytes x R, before SystemC rounds it
  // to the picosecond.
  const PeCpu::Stats& after = cpu.stats();
  j["pe_cpu_commands"] = after.commands - before.commands;
  j["pe_cpu_dispatch_ns"] = after.dispatch_ns - before.dispatch_ns;
  j["preload_commands"] = j["pe_cpu_commands"].get<uint64_t>() - j["commands"].get<uint64_t>();
  j["M"] = s.m;
  j["K"] = s.k;
  j["N"] = s.n;
  j["variant"] = variant;
  j["strategy"] = strategy;
  j["sync"] = strategy == "composite" ? "-" : to_string(sync);
  j["cost_per_command_ns"] = j["dispatch_ns"].get<double>() / j["commands"].get<double>();
  return j;
}

// ---- bench -----------------------------------------------------------------------

namespace {

const std::vector<std::string> kVariants = {"load_ref", "ref_ref", "load_load"};

void check_in(const std::string& key, const std::string& v, const std::vector<std::string>& ok) {
  if (std::find(ok.begin(), ok.end(), v) != ok.end()) return;
  std::string list;
  for (const auto& k : ok) list += (list.empty() ? "" : ", ") + k;
  throw UsageError("--param " + key + ": '" + v + "' is not one of " + list);
}

}  // namespace

std::vector<ParamSpec> GemmStrategiesBench::params() const {
  return {
      {"shapes", "32x64x32,32x256x32,32x1024x32,32x3072x32,128x1024x128,256x256x256,512x2048x512",
       "MxKxN shapes, comma-separated"},
      {"variants", "load_ref,ref_ref,load_load", "variants, comma-separated"},
      {"strategies", "composite,async-full,async-tiled", "strategies, comma-separated"},
      {"sync", "wait",
       "async kernels: wait (a dot waits for its accumulator's previous dot, a DMA into a reused "
       "buffer for its last reader: hazard-free) | nowait (neither: a dispatch-only bound)"}};
}

BenchResult GemmStrategiesBench::run(BenchContext& ctx) {
  std::vector<GemmShape> shapes;
  for (const std::string& t : ctx.params.list("shapes")) {
    shapes.push_back(parse_gemm_shape(t));
    check_gemm_size(ctx.platform.config(), shapes.back());
  }
  const std::vector<std::string> variants = ctx.params.list("variants");
  const std::vector<std::string> strategies = ctx.params.list("strategies");
  for (const auto& v : variants) check_in("variants", v, kVariants);
  for (const auto& st : strategies) check_in("strategies", st, gemm_strategy_names());
  const std::string sync_text = ctx.params.str("sync");
  check_in("sync", sync_text, {"wait", "nowait"});
  const DepSync sync = sync_text == "wait" ? DepSync::kWait : DepSync::kNoWait;
  if (shapes.empty() || variants.empty() || strategies.empty())
    throw UsageError("--param shapes, variants and strategies must not be empty");

  HostRuntime rt(ctx.platform);
  const auto& cm = ctx.platform.config().pe.cost_model;
  BenchResult res;
  SummaryTable t{"gemm-strategies on sip0.cube0.pe0 (sync=" + sync_text + "; cost model FIXED " +
                     fmt(cm.fixed_per_single_op_cmd_cycles, 0) + " single-op / " +
                     fmt(cm.fixed_per_composite_cycles, 0) + " composite cycles, R " +
                     fmt(cm.per_byte_cycles, 5) + " cycles/byte)",
                 {"M", "K", "N", "variant", "strategy", "window_ns", "TFLOP/s", "MAC util", "cmds",
                  "dispatch_ns", "ns/cmd", "cpu_bound", "cpu_starved", "gemm_busy",
                  "gemm_idle_other", "vs comp"},
                 {}};
  nlohmann::json ratios = nlohmann::json::object();
  for (const GemmShape& s : shapes)
    for (const std::string& v : variants) {
      double composite_window = 0;
      for (const std::string& st : strategies) {
        const std::string why = gemm_strategy_fit(ctx.platform.config(), s, st, v);
        const std::string shape =
            std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
        if (!why.empty()) {
          res.points.push_back({{"M", s.m},
                                {"K", s.k},
                                {"N", s.n},
                                {"variant", v},
                                {"strategy", st},
                                {"skipped", true},
                                {"reason", why}});
          t.rows.push_back({std::to_string(s.m), std::to_string(s.k), std::to_string(s.n), v, st,
                            "skipped: does not fit TCM"});
          continue;
        }
        nlohmann::json pt = run_gemm_strategy_point(rt, s, st, v, sync);
        const double w = pt["window_ns"].get<double>();
        if (st == "composite") composite_window = w;
        std::string vs = "-";
        if (composite_window > 0) {
          pt["window_vs_composite"] = w / composite_window;
          vs = fmt(w / composite_window, 2) + "x";
          ratios[shape + " " + v][st] = w / composite_window;
        }
        t.rows.push_back({std::to_string(s.m), std::to_string(s.k), std::to_string(s.n), v, st,
                          fmt(w, 1), fmt(pt["tflops_per_pe"], 3),
                          fmt(100.0 * pt["mac_util"].get<double>(), 1) + "%",
                          std::to_string(pt["commands"].get<uint64_t>()), fmt(pt["dispatch_ns"], 1),
                          fmt(pt["cost_per_command_ns"], 3),
                          fmt(100.0 * pt["cpu_bound_share"].get<double>(), 1) + "%",
                          fmt(100.0 * pt["cpu_starved_share"].get<double>(), 1) + "%",
                          fmt(pt["gemm_busy_ns"], 1), fmt(pt["gemm_idle_other_ns"], 1), vs});
        res.points.push_back(pt);
      }
    }
  res.metrics["sync"] = sync_text;
  res.metrics["cost_model"] = {
      {"fixed_per_single_op_cmd_cycles", cm.fixed_per_single_op_cmd_cycles},
      {"fixed_per_composite_cycles", cm.fixed_per_composite_cycles},
      {"per_byte_cycles", cm.per_byte_cycles}};
  res.metrics["window_vs_composite"] = ratios;
  res.tables.push_back(t);
  return res;
}

}  // namespace kb
