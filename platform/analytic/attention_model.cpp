#include "platform/analytic/attention_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

#include "firmware/kernels/softmax_state_reduce.h"
#include "firmware/recipes.h"
#include "models/commands/commands.h"
#include "models/commands/cost_model.h"
#include "models/common/checked_math.h"
#include "models/topology/cube_grid.h"
#include "models/topology/fabric_route.h"
#include "platform/analytic/command_shapes.h"
#include "platform/analytic/pe_paths.h"

namespace kb {

// ---- ClassTime ----------------------------------------------------------------

void ClassTime::add(const char* cls, double ns) {
  for (auto& [name, v] : parts_)
    if (name == cls) {
      v += ns;
      return;
    }
  parts_.emplace_back(cls, ns);
}

ClassTime& ClassTime::operator+=(const ClassTime& o) {
  for (const auto& [name, v] : o.parts_) add(name.c_str(), v);
  return *this;
}

ClassTime ClassTime::scaled(double f) const {
  ClassTime r = *this;
  for (auto& p : r.parts_) p.second *= f;
  return r;
}

double ClassTime::total() const {
  double t = 0;
  for (const auto& p : parts_) t += p.second;
  return t;
}

ClassTime operator+(ClassTime a, const ClassTime& b) {
  a += b;
  return a;
}

const ClassTime& longer(const ClassTime& a, const ClassTime& b) {
  return b.total() > a.total() ? b : a;
}

nlohmann::json AttentionModel::to_json() const {
  nlohmann::json t = nlohmann::json::object(), c = nlohmann::json::object();
  for (const auto& [name, ns] : terms) t[name] = ns;
  for (const char* name :
       {attn_class::kDispatch, attn_class::kGemm, attn_class::kKvStream, attn_class::kMath,
        attn_class::kFetchStore, attn_class::kReduce, attn_class::kQLoad, attn_class::kOutput}) {
    double v = 0;
    for (const auto& [n, ns] : classes.parts())
      if (n == name) v = ns;
    c[name] = v;
  }
  nlohmann::json j = {
      {"total_ns", total_ns}, {"mode", mode}, {"terms", t}, {"classes", c}, {"facts", facts}};
  if (bound) {
    j["bound"] = true;
    j["bound_reason"] = bound_reason;
  }
  if (!unpriced.empty()) j["unpriced"] = unpriced;
  return j;
}

namespace {

using namespace attn_class;

// ---- The dispatch of the commands the kernels issue (real descriptors) --------

OpSpec gemm_op() {
  return gemm_op_shape();
}
OpSpec scale_op() {
  return op_shape("scale", {}, false, {{"factor", 0.0}});
}
OpSpec add_op() {
  return op_shape("add", {"other"}, false, {});
}

// The softmax_merge recipe as Tl::lower_recipes lowers it: one KERNEL op per step.
std::vector<OpSpec> softmax_merge_ops() {
  std::vector<OpSpec> ops;
  for (const fw::RecipeStep& st : fw::find_recipe("softmax_merge")->steps)
    ops.push_back(op_shape(st.op_kind, st.reads, true, st.extra));
  return ops;
}

CompositeCmd composite(std::vector<OpSpec> ops, size_t rw) {
  return composite_shape(std::move(ops), rw);
}

MathCmd math_cmd(const std::string& kind, size_t inputs, std::vector<ExtraArg> extra = {}) {
  return math_shape(kind, inputs, std::move(extra));
}

// Every dispatch on the attention kernels' critical paths, ns.
struct Dispatch {
  explicit Dispatch(const TopologyConfig& c) : cm(c.pe.cost_model, c.pe.clock_ghz) {
    auto d = [this](const Command& cmd) { return cm.dispatch_ns(cmd); };
    std::vector<OpSpec> m2 = softmax_merge_ops();
    m2.push_back(gemm_op());
    m2.push_back(add_op());
    qk = d(composite({gemm_op(), scale_op()}, 1));   // #1, rw {s}
    m2_decode = d(composite(m2, 4));                 // #2, rw {m, l, O, s}
    m2_prefill = d(composite(m2, 3));                // #2, rw {m, l, O}
    pv0 = d(composite({gemm_op()}, 1));              // tile 0's P·V, rw {O}
    pvacc = d(composite({gemm_op(), add_op()}, 1));  // opt1/opt3 P·V, rw {O}
    qk_prefill = d(composite({gemm_op(), scale_op()}, 0));
    pv_prefill = d(composite({gemm_op()}, 0));
    dma = d(DmaReadCmd{});
    send = d(IpcqSendCmd{});
    recv = d(IpcqRecvCmd{});
    copycmd = d(CopyCmd{});
    rmax = d(math_cmd("rmax", 1, {kReduceLastAxis}));
    rsum = d(math_cmd("rsum", 1, {kReduceLastAxis}));
    exp_b = d(math_cmd("exp_diff", 2, {kBcastRows}));
    exp = d(math_cmd("exp_diff", 2));
    max = d(math_cmd("max_elem", 2));
    mul = d(math_cmd("mul", 2));
    add = d(math_cmd("add", 2));
    fma = d(math_cmd("fma", 3));
    mulb = d(math_cmd("mul_bcast", 2, {kBcastCols}));
    copy = d(math_cmd("copy", 1));
    recip = d(math_cmd("recip", 1));
    mask = d(math_cmd("mask", 1, {{"offset", int64_t{0}}}));
  }
  double open(size_t peers) const {
    IpcqOpenCmd c;
    c.peers.resize(peers);
    return cm.dispatch_ns(c);
  }
  CostModel cm;
  double qk, m2_decode, m2_prefill, pv0, pvacc, qk_prefill, pv_prefill, dma, send, recv, copycmd;
  double rmax, rsum, exp_b, exp, max, mul, add, fma, mulb, copy, recip, mask;
};

// ---- Unit costs from the configuration -------------------------------------------

struct Units {
  explicit Units(const TopologyConfig& c) : cfg(c), pe(c.pe), D(c) {}
  const TopologyConfig& cfg;
  const PeConfig& pe;
  Dispatch D;

  double x() const { return pe.xbar_latency_ns; }
  double hbm_bw() const { return pe.hbm.num_pcs * pe.hbm.pc_bandwidth_gbps; }
  double tcm_bw() const { return pe.tcm.bandwidth_gbps; }
  double pe_bw() const { return cfg.cube.pe_link.bandwidth_gbps; }
  double cl_bw() const { return cfg.sip.cube_link.bandwidth_gbps; }
  double t_tile() const {
    return 2.0 * pe.gemm.tile_m * pe.gemm.tile_k * pe.gemm.tile_n / (pe.gemm.peak_tflops * 1000.0);
  }
  double t_math(int64_t elems) const {
    return static_cast<double>(ceil_div(elems, pe.math.lanes)) / pe.clock_ghz;
  }
  // The on-chip path of a request or acknowledgement (as the all-reduce model's routes).
  double path_ns(unsigned hops) const {
    return 2 * x() + 2 * cfg.cube.pe_link.latency_ns + (hops + 1) * cfg.cube.router_latency_ns +
           hops * cfg.sip.cube_link.latency_ns;
  }
  // Own HBM -> TCM, n bytes in bursts of b (0: from the channel's pick; pe_paths.h).
  double t_rd(uint64_t n, uint64_t b = 0) const { return own_hbm_read_ns(cfg, n, b); }
  // TCM -> own HBM.
  double t_wr(uint64_t n) const { return own_hbm_write_ns(cfg, n); }
  // Own TCM <- another PE's HBM in the same cube: request, PC service, the
  // payload over two PE links (store and forward per burst, bursts
  // pipelined), TCM write.
  double t_rrd(uint64_t n) const {
    const uint64_t b = std::min<uint64_t>(pe.dma.burst_bytes, n);
    const auto nb = static_cast<double>(ceil_div(static_cast<int64_t>(n), static_cast<int64_t>(b)));
    const auto bd = static_cast<double>(b);
    return path_ns(0) +
           static_cast<double>(ceil_div(static_cast<int64_t>(n), pe.hbm.num_pcs)) /
               pe.hbm.pc_bandwidth_gbps +
           pe.hbm.access_latency_ns + path_ns(0) + 2 * bd / pe_bw() + (nb - 1) * bd / pe_bw() +
           2 * x() + bd / tcm_bw() + pe.tcm.latency_ns;
  }
  // The receiver's copy of one slot's `bytes` from its ring into the destination.
  double t_copy(uint64_t bytes) const {
    return 4 * x() + 2 * static_cast<double>(bytes) / tcm_bw() + 2 * pe.tcm.latency_ns;
  }
  // ipcq_open: dispatch, then the grant round trip to the farthest peer.
  ClassTime t_open(size_t peers, unsigned max_hops) const {
    if (peers == 0) return {};
    const auto msg = static_cast<double>(pe.ipcq.message_bytes);
    ClassTime t(kDispatch, D.open(peers));
    t.add(kQLoad, 2 * path_ns(max_hops) + msg * (2 / pe_bw() + max_hops / cl_bw()) +
                      static_cast<double>(peers - 1) * msg / pe_bw());
    return t;
  }
};

// ---- A run of GEMM tokens and the KV sweep of one rank --------------------------

struct SweepShape {
  SweepShape(const Units& u, int64_t rows, int64_t d, int64_t T, bool kv_tiled,
             bool streamed = true)
      : u(u), rows(rows), d(d), T(T), streamed(streamed) {
    const auto& g = u.pe.gemm;
    mt = ceil_div(rows, g.tile_m);
    n_qk = mt * ceil_div(d, g.tile_k) * ceil_div(T, g.tile_n);
    n_pv = mt * ceil_div(T, g.tile_k) * ceil_div(d, g.tile_n);
    const int64_t mm = std::min<int64_t>(rows, g.tile_m);
    fetch = static_cast<double>((mm * g.tile_k + int64_t{g.tile_k} * g.tile_n) * 2) / u.tcm_bw();
    epi = u.t_math(mm * g.tile_n);
    store = static_cast<double>(mm * g.tile_n * 4) / u.tcm_bw();
    b_tile = uint64_t{g.tile_k} * g.tile_n * 2;
    kv_tile_bytes = static_cast<double>(mt * 2 * d * T * 2);
    first_dma = u.t_rd(b_tile, kv_tiled ? 0 : uint64_t{g.tile_n} * 2);
    bw = u.hbm_bw();
    // softmax_merge's prologue: each step's output elements over the lanes.
    const std::map<std::string, int64_t> elems = {{"P", rows * T}, {"O", rows * d}};
    for (const fw::RecipeStep& st : fw::find_recipe("softmax_merge")->steps) {
      const auto it = elems.find(st.writes);
      m_pro += u.t_math(it == elems.end() ? rows : it->second);
    }
  }

  // A run of n_g GEMM tokens (n_out output tiles of kt K steps) whose b tiles
  // stream from HBM, from the first DMA pick to the last STORE: the longest
  // of the chains fill + one stage's total + tail, one per stage.
  ClassTime X(int64_t n_g, int64_t n_out, int64_t kt, bool with_epi = true) const {
    const double t = u.t_tile(), e = with_epi ? epi : 0.0;
    ClassTime f0;
    if (streamed) f0.add(kKvStream, u.pe.dma.setup_ns + first_dma);
    auto chain = [&](double n_fetch, double n_tiles, double n_epi, double n_store, double stream) {
      ClassTime c = f0;
      c.add(kKvStream, stream);
      c.add(kFetchStore, n_fetch * fetch + n_store * store);
      c.add(kGemm, n_tiles * t);
      c.add(kMath, n_epi * e);
      return c;
    };
    const auto ng = static_cast<double>(n_g), no = static_cast<double>(n_out),
               k = static_cast<double>(kt);
    ClassTime best = chain(1, ng, 1, 1, 0);  // the GEMM engine
    if (streamed)
      best = longer(best, chain(1, 1, 1, 1, (ng - 1) * static_cast<double>(b_tile) / bw));
    best = longer(best, chain(ng, 1, 1, 1, 0));  // FETCH
    best = longer(best, chain(1, k, no, 1, 0));  // the epilogue on PE_MATH
    best = longer(best, chain(1, k, 1, no, 0));  // STORE
    return best;
  }
  ClassTime X_qk() const {
    return X(n_qk, mt * ceil_div(T, u.pe.gemm.tile_n), ceil_div(d, u.pe.gemm.tile_k));
  }
  ClassTime X_pv(bool with_epi = true) const {
    return X(n_pv, mt * ceil_div(d, u.pe.gemm.tile_n), ceil_div(T, u.pe.gemm.tile_k), with_epi);
  }
  // #2(j)'s P·V tokens then #1(j+1)'s Q·K tokens, back to back.
  ClassTime X_pair() const {
    return X(n_qk + n_pv, mt * ceil_div(d, u.pe.gemm.tile_n) + mt * ceil_div(T, u.pe.gemm.tile_n),
             1);
  }

  const Units& u;
  int64_t rows, d, T, mt = 0, n_qk = 0, n_pv = 0;
  bool streamed;
  double fetch = 0, epi = 0, store = 0, kv_tile_bytes = 0, first_dma = 0, bw = 0, m_pro = 0;
  uint64_t b_tile = 0;
};

struct Sweep {
  ClassTime head, period, first, tail;  // end = head + first + periods * period + tail
  double periods = 0;
  std::string mode;
  ClassTime end() const { return head + first + period.scaled(periods) + tail; }
};

// attention_sweep over n tiles (firmware/kernels/attention_decode.cpp), from
// the moment Q is in TCM to the last P·V's STORE.
Sweep sweep(const SweepShape& sh, int64_t n, const std::string& variant) {
  const Units& u = sh.u;
  const Dispatch& D = u.D;
  Sweep s;
  // Tile 0: #1, then rmax, exp_diff, rsum wait on it, then P·V without add.
  s.head = ClassTime(kDispatch, D.qk) + sh.X_qk();
  s.head.add(kDispatch, D.rmax + D.exp_b + D.rsum + D.pv0);
  s.head.add(kMath, u.t_math(sh.rows) + u.t_math(sh.rows * sh.T));
  s.tail = sh.X_pv();
  if (n <= 1) {
    s.mode = variant;
    return s;
  }
  const double prim = D.rmax + D.max + D.exp + D.exp_b + D.rsum + D.fma + D.mulb + D.copy;
  if (variant == "opt1") {
    s.period = sh.X_pair();
    s.period.add(kDispatch, prim + D.pvacc);
    s.periods = static_cast<double>(n - 1);
    s.mode = "opt1: #1(j+1) waits the primitives of tile j (serial period)";
  } else if (variant == "opt3") {
    // The O-carried chain: P·V(j) done -> mul_bcast(O) -> copy -> P·V(j+1).
    ClassTime chain = ClassTime(kDispatch, D.mulb + D.copy + D.pvacc) + sh.X_pv();
    const ClassTime cpu(kDispatch, D.qk + prim + D.pvacc);
    const ClassTime gemm(kGemm, static_cast<double>(sh.n_qk + sh.n_pv) * u.t_tile());
    const ClassTime hbm(kKvStream, sh.kv_tile_bytes / sh.bw);
    ClassTime lanes(kMath,
                    sh.m_pro + static_cast<double>(sh.mt * ceil_div(sh.d, u.pe.gemm.tile_n) +
                                                   sh.mt * ceil_div(sh.T, u.pe.gemm.tile_n)) *
                                   sh.epi);
    s.period = longer(longer(longer(chain, cpu), longer(gemm, hbm)), lanes);
    s.first = sh.X_pair();
    s.first.add(kDispatch, prim + D.pvacc);
    s.periods = static_cast<double>(std::max<int64_t>(n - 2, 0));
    s.mode = s.period.total() == chain.total()   ? "opt3: O-carried chain bound"
             : s.period.total() == cpu.total()   ? "opt3: PE_CPU bound"
             : s.period.total() == lanes.total() ? "opt3: PE_MATH bound"
                                                 : "opt3: GEMM or HBM bound";
  } else if (D.qk >= sh.m_pro) {
    // Case A: #1(j+1)'s dispatch outlasts #2(j)'s prologue, so its K tiles
    // reach PE_DMA after #2(j)'s V tiles: the period is a sum.
    s.period = ClassTime(kDispatch, D.m2_decode) + ClassTime(kMath, sh.m_pro) + sh.X_pair();
    s.periods = static_cast<double>(n - 1);
    s.mode = "opt2 case A: D_qk >= softmax_merge prologue, the period is a sum";
  } else {
    // Case B: #1(j+1) streams and multiplies during #2(j)'s prologue.
    ClassTime a = ClassTime(kDispatch, D.qk + D.m2_decode) + sh.X_qk();
    ClassTime b = ClassTime(kMath, sh.m_pro) + sh.X_pv();
    ClassTime c(kDispatch, D.qk);
    c.add(kKvStream, u.pe.dma.setup_ns + sh.first_dma);
    c.add(kFetchStore, sh.fetch + sh.store);
    c.add(kGemm, static_cast<double>(sh.n_qk + sh.n_pv) * u.t_tile());
    c.add(kMath, sh.epi);
    s.period = longer(longer(a, b), c);
    s.periods = static_cast<double>(n - 1);
    s.mode = "opt2 case B: #1(j+1) overtakes #2(j) (D_qk < softmax_merge prologue)";
  }
  return s;
}

void add_sweep_terms(AttentionModel& m, const Sweep& s, const std::string& prefix = "") {
  m.terms.emplace_back(prefix + "sweep_head", s.head.total());
  if (s.first.total() > 0) m.terms.emplace_back(prefix + "sweep_first_period", s.first.total());
  m.terms.emplace_back(prefix + "sweep_periods", s.periods * s.period.total());
  m.terms.emplace_back(prefix + "sweep_tail", s.tail.total());
}

void check_staging(const Units& u, const SweepShape& sh, AttentionModel& m) {
  if (sh.n_qk + sh.n_pv > u.pe.scheduler.staging_buffers)
    m.unpriced.push_back("n_qk + n_pv = " + std::to_string(sh.n_qk + sh.n_pv) +
                         " tokens exceed pe.scheduler.staging_buffers: the stream throttles");
}

void finish(AttentionModel& m) {
  m.total_ns = 0;
  for (const auto& t : m.terms) m.total_ns += t.second;
}

}  // namespace

// ---- IPCQ and the log-sum-exp merge --------------------------------------------------

IpcqAlphaBeta attention_ipcq_alpha_beta(const TopologyConfig& cfg, unsigned hops) {
  const Units u(cfg);
  const auto s = static_cast<double>(cfg.pe.ipcq.slot_bytes);
  const auto msg = static_cast<double>(cfg.pe.ipcq.message_bytes);
  const double x = u.x(), setup = cfg.pe.dma.setup_ns, tcm_lat = cfg.pe.tcm.latency_ns;
  const double bw_min = hops == 0 ? u.pe_bw() : std::min(u.pe_bw(), u.cl_bw());
  const double beta_c = std::max(setup, s / bw_min);     // per slot
  const double t_rd = 2 * x + s / u.tcm_bw() + tcm_lat;  // the chunk out of the sender's TCM
  const double t_fwd = 2 * x + 2 * cfg.cube.pe_link.latency_ns +
                       (hops + 1) * cfg.cube.router_latency_ns +
                       hops * cfg.sip.cube_link.latency_ns + 2 * s / u.pe_bw() +
                       hops * s / u.cl_bw();                     // store and forward per link
  const double t_wr = s / u.tcm_bw() + tcm_lat;                  // into the peer's ring
  const double t_chunk = t_rd + t_fwd + t_wr + u.path_ns(hops);  // + the write's ack
  const double t_db = u.path_ns(hops) + msg * (2 / u.pe_bw() + hops / u.cl_bw());
  IpcqAlphaBeta ab;
  ab.alpha_ns = 2 * setup + t_chunk + t_db + u.t_copy(cfg.pe.ipcq.slot_bytes) - beta_c;
  ab.beta_ns_per_byte = beta_c / s;
  return ab;
}

namespace {

// lse_merge (firmware/kernels/softmax_state_reduce.cpp): each MATH command
// dispatched after the previous one; the CPU waits only where an input is
// still pending (the mul_bcasts and the add on O, the copy after the add).
ClassTime lse_merge(const Units& u, int64_t rows, int64_t d) {
  const Dispatch& D = u.D;
  const double eO = u.t_math(rows * d), em = u.t_math(rows);
  ClassTime t(kDispatch, D.max + 2 * D.exp + D.mul + D.fma + D.mulb + D.add);
  t.add(D.mulb >= eO ? kDispatch : kMath, std::max(D.mulb, eO));
  t.add(kMath, eO);
  t.add(D.copy > eO ? kDispatch : kMath, std::max(eO, D.copy));
  t.add(kMath, em);
  return t;
}

}  // namespace

double attention_lse_merge_ns(const TopologyConfig& cfg, int64_t rows, int64_t d_head) {
  return lse_merge(Units(cfg), rows, d_head).total();
}

// ---- gqa-decode -------------------------------------------------------------------------

AttentionModel gqa_decode_model(const TopologyConfig& cfg, int64_t G, int64_t d, int64_t S,
                                int64_t T, const std::string& variant) {
  const Units u(cfg);
  const Dispatch& D = u.D;
  AttentionModel m;
  const SweepShape sh(u, G, d, T, /*kv_tiled=*/false);
  const int64_t n = ceil_div(S, T);
  ClassTime tq(kDispatch, D.dma);
  tq.add(kQLoad, cfg.pe.dma.setup_ns + u.t_rd(static_cast<uint64_t>(G * d * 2)));
  const Sweep s = sweep(sh, n, variant);
  // O / l and the store; opt1 and opt3 dispatched recip while the last P·V ran.
  ClassTime fin;
  if (variant == "opt2") {
    fin.add(kDispatch, D.recip);
    fin.add(kMath, u.t_math(G));
  }
  fin.add(kDispatch, D.mulb + D.dma);
  fin.add(kMath, u.t_math(G * d));
  fin.add(kOutput, cfg.pe.dma.setup_ns + u.t_wr(static_cast<uint64_t>(G * d * 4)));
  m.terms.emplace_back("q_load", tq.total());
  add_sweep_terms(m, s);
  m.terms.emplace_back("normalise_store", fin.total());
  m.classes = tq + s.end() + fin;
  m.mode = s.mode;
  m.facts = {{"kv_tiles", n}, {"sweep_period_ns", s.period.total()}};
  check_staging(u, sh, m);
  if (S % T != 0) m.unpriced.emplace_back("the short last KV tile is priced as a whole tile");
  finish(m);
  return m;
}

// ---- gqa-long / gqa-sweep / gqa-short ----------------------------------------------------

namespace {

struct Incast {
  ClassTime t;
  std::string bottleneck;
};

// One stretch of an output write's route: a fixed latency (res empty) or a
// resource the bursts cross at `bw` after its latency.
struct Seg {
  std::string res;
  double lat, bw;
};

// The route of a write from `w` (on SIP 0) to sip0.cube0.pe0's HBM, the
// fabric's own path (models/topology/fabric_route.h); `hops` gets its cube hops.
std::vector<Seg> write_route(const Units& u, const FabricRouting& routing, const PeAddr& w,
                             unsigned& hops) {
  const TopologyConfig& c = u.cfg;
  std::vector<Seg> segs;
  hops = 0;
  for (const RouteStep& s :
       routing.path(RouteNode::xbar(w.sip, w.cube, w.pe), Location{Space::kHbm, 0, 0, 0, 0})) {
    segs.push_back({"", route_node_cost(c, s.at).latency_ns, 0});
    switch (s.hop.exit) {
      case RouteExit::kDeliver:
        break;
      case RouteExit::kPeUp:
        segs.push_back({"pe_out " + to_string(w), c.cube.pe_link.latency_ns, u.pe_bw()});
        break;
      case RouteExit::kCube:
        segs.push_back({"cube_link " + std::to_string(s.at.cube) + "->" + std::to_string(s.hop.to),
                        c.sip.cube_link.latency_ns, u.cl_bw()});
        ++hops;
        break;
      case RouteExit::kPeDown:
        segs.push_back({"pe_in sink", c.cube.pe_link.latency_ns, u.pe_bw()});
        break;
      default:
        throw std::logic_error("attention model: an output write leaves SIP 0");
    }
  }
  segs.push_back({"hbm sink", 0, c.pe.hbm.pc_bandwidth_gbps});  // its latency: below
  return segs;
}

// Every root writes `bytes` to sip0.cube0.pe0's HBM at the same instant: for
// each resource on the way (the sink's HBM, the sink's PE link, each writer's
// PE link, each cube link of the route) the nearest writer's latency to it,
// the resource's bytes at its bandwidth, and the farthest writer's latency
// after it (with the write's acknowledgement); the largest of these.
Incast incast(const Units& u, const std::vector<PeAddr>& writers, uint64_t bytes,
              std::vector<std::string>& unpriced) {
  const TopologyConfig& c = u.cfg;
  const FabricRouting routing = c.routing();
  const auto b = static_cast<double>(std::min<uint64_t>(c.pe.dma.burst_bytes, bytes));
  const double t_first = 2 * u.x() + b / u.tcm_bw() + c.pe.tcm.latency_ns;
  struct Res {
    double load = 0, bw = 0, before = 1e300, after = 0;
  };
  std::map<std::string, Res> res;
  for (const PeAddr& w : writers) {
    if (w.sip != 0) {
      unpriced.push_back("the output write of " + to_string(w) + " crosses SIP links");
      continue;
    }
    unsigned hops = 0;
    const std::vector<Seg> segs = write_route(u, routing, w, hops);
    const double ack = w == PeAddr{0, 0, 0} ? 2 * u.x() : u.path_ns(hops);
    for (size_t i = 0; i < segs.size(); ++i) {
      if (segs[i].res.empty()) continue;
      const bool hbm = segs[i].res == "hbm sink";
      double before = t_first, after = hbm ? c.pe.hbm.access_latency_ns : segs[i].lat;
      for (size_t j = 0; j < segs.size(); ++j) {
        const double st = segs[j].lat + (segs[j].res.empty() ? 0 : b / segs[j].bw);
        (j < i ? before : after) += j == i ? 0 : st;
      }
      if (!hbm) after += c.pe.hbm.access_latency_ns;
      Res& r = res[segs[i].res];
      r.load += static_cast<double>(bytes);
      r.bw = hbm ? u.hbm_bw() : segs[i].bw;
      r.before = std::min(r.before, before);
      r.after = std::max(r.after, after + ack);
    }
  }
  Incast best;
  for (const auto& [name, r] : res) {
    const double t = r.before + r.load / r.bw + r.after;
    if (t > best.t.total()) {
      best.t = ClassTime(kOutput, t);
      best.bottleneck = name;
    }
  }
  return best;
}

// The root's O / l and the store's dispatch and setup (the write itself: the incast).
ClassTime normalise(const Units& u, int64_t G, int64_t d) {
  ClassTime norm(kDispatch, u.D.recip + u.D.mulb + u.D.dma);
  norm.add(kMath, u.t_math(G) + u.t_math(G * d));
  norm.add(kOutput, u.cfg.pe.dma.setup_ns);
  return norm;
}

// Every head's root (rank (0, 0)) writes its G rows into sip0.cube0.pe0's HBM.
Incast output_incast(const Units& u, const LongDecodePoint& pt,
                     std::vector<std::string>& unpriced) {
  std::vector<PeAddr> roots;
  for (const auto& h : pt.heads) roots.push_back(h.rank(0, 0));
  return incast(u, roots, static_cast<uint64_t>(pt.g * pt.d_head * 4), unpriced);
}

// PE-TP: every rank streams every block of its cube, starting at its own, so
// the P ranks read P different owners' HBM at once and each sweeps at its
// own period (the remote reads of its cube).
AttentionModel long_decode_tp(const Units& u, const LongDecodePoint& pt) {
  const Dispatch& D = u.D;
  const TopologyConfig& cfg = u.cfg;
  AttentionModel m;
  const fw::AttnPlacement& at = pt.heads.front();
  const unsigned P = at.pes, C = at.cubes;
  const int64_t G = pt.g, d = pt.d_head, rows = G / P;
  int64_t n_tiles = 0;
  for (unsigned p = 0; p < P; ++p)
    n_tiles += ceil_div(fw::kv_block(pt.mode, pt.s_kv, C, P, 0, p).count, pt.tile);
  SweepShape sh(u, rows, d, pt.tile, pt.tiled_kv);
  sh.first_dma = u.t_rrd(sh.b_tile);
  Sweep s = sweep(sh, n_tiles, pt.variant);
  ClassTime tq(kDispatch, D.dma);
  tq.add(kQLoad, cfg.pe.dma.setup_ns + u.t_rrd(static_cast<uint64_t>(rows * d * 2)) +
                     static_cast<double>((P - 1) * rows * d * 2) / u.hbm_bw());
  ClassTime gather(kDispatch, 3.0 * (P - 1) * D.recv);
  gather.add(kReduce, cfg.pe.dma.setup_ns + u.t_copy(static_cast<uint64_t>(rows * d * 4)));
  const auto st_bytes = static_cast<uint64_t>(G * (d + 2) * 4);
  ClassTime inter;
  if (pt.mode.cube == fw::CubeSplit::kSp && C > 1) {
    const size_t levels = fw::reduce_role(fw::ReduceShape::kTree, 0, C).from.size();
    ClassTime one(kDispatch, D.recv);
    one.add(kReduce, cfg.pe.dma.setup_ns * static_cast<double>(ceil_div(
                                               static_cast<int64_t>(st_bytes),
                                               static_cast<int64_t>(cfg.pe.ipcq.slot_bytes))) +
                         u.t_copy(cfg.pe.ipcq.slot_bytes));
    inter = (one + lse_merge(u, G, d)).scaled(static_cast<double>(levels));
  }
  const ClassTime norm = normalise(u, G, d);
  const Incast out = output_incast(u, pt, m.unpriced);
  m.terms.emplace_back("q_load", tq.total());
  add_sweep_terms(m, s);
  m.terms.emplace_back("pe_tp_gather", gather.total());
  m.terms.emplace_back("reduce_cube_levels", inter.total());
  m.terms.emplace_back("normalise", norm.total());
  m.terms.emplace_back("output_incast", out.t.total());
  m.classes = tq + s.end() + gather + inter + norm + out.t;
  m.facts = {{"kv_tiles_per_rank", n_tiles},
             {"sweep_period_ns", s.period.total()},
             {"output_bottleneck", out.bottleneck}};
  m.mode =
      "PE-TP: each rank starts at its own block, so the cube's ranks stream different "
      "owners' HBM at once";
  m.unpriced.emplace_back(
      "PE-TP: where the blocks are uneven the ranks drift out of step and two may stream one "
      "owner's HBM at once; that queueing, and the reduce levels across cubes waiting on their "
      "children, are not priced");
  finish(m);
  return m;
}

}  // namespace

namespace {

// The PE-SP ranks of one point: their starts, sweeps and the two reduce levels.
struct PeSpRanks {
  PeSpRanks(const Units& u, const LongDecodePoint& pt)
      : u(u),
        pt(pt),
        grid(u.cfg.sip.cubes_x, u.cfg.sip.cubes_y, u.cfg.sip.topology),
        sh(u, pt.g, pt.d_head, pt.tile, pt.tiled_kv),
        merge(lse_merge(u, pt.g, pt.d_head)),
        st_bytes(static_cast<uint64_t>(pt.g * (pt.d_head + 2) * 4)),
        n_chunks(ceil_div(static_cast<int64_t>(st_bytes),
                          static_cast<int64_t>(u.cfg.pe.ipcq.slot_bytes))) {}

  // The receive of a child's state: the data's arrival, or the post of a late
  // receive plus a DMA setup per chunk and the last chunk's copy.
  ClassTime recv_done(const ClassTime& t, const ClassTime& arrive) const {
    ClassTime late = t + ClassTime(kDispatch, u.D.recv);
    const uint64_t last = st_bytes - static_cast<uint64_t>(n_chunks - 1) * u.cfg.pe.ipcq.slot_bytes;
    late.add(kReduce, u.cfg.pe.dma.setup_ns * static_cast<double>(n_chunks) + u.t_copy(last));
    return longer(arrive, late);
  }
  ClassTime xfer(unsigned hops) const {
    ClassTime t(kDispatch, u.D.send);
    t.add(kReduce, attention_ipcq_alpha_beta(u.cfg, hops).xfer_ns(st_bytes));
    return t;
  }

  // Each rank of cube k: ipcq_open when it has children, then its Q load from
  // rank (k, 0)'s HBM, which serves the loads one after another in the order
  // they arrive (ties by PE index).
  std::vector<ClassTime> q_loaded(const fw::AttnPlacement& at, unsigned k) const {
    const unsigned P = at.pes;
    std::vector<ClassTime> t_open(P);
    for (unsigned p = 0; p < P; ++p) {
      size_t peers = fw::reduce_role(pt.intra, p, P).from.size();
      unsigned hmax = 0;
      if (pt.mode.cube == fw::CubeSplit::kSp && p == 0)
        for (unsigned c : fw::reduce_role(fw::ReduceShape::kTree, k, at.cubes).from) {
          ++peers;
          hmax = std::max(hmax, grid.hops(at.cube_start + c, at.cube_start + k));
        }
      t_open[p] = u.t_open(peers, hmax);
    }
    std::vector<unsigned> order(P);
    for (unsigned p = 0; p < P; ++p) order[p] = p;
    std::stable_sort(order.begin(), order.end(),
                     [&](unsigned a, unsigned b) { return t_open[a].total() < t_open[b].total(); });
    const auto qb = static_cast<uint64_t>(pt.g * pt.d_head * 2);
    const double serve = static_cast<double>(qb) / std::min(u.hbm_bw(), u.pe_bw());
    std::vector<ClassTime> t_q(P);
    ClassTime owner_free;
    for (unsigned p : order) {
      ClassTime q_dispatched = t_open[p];
      q_dispatched.add(kDispatch, u.D.dma);
      q_dispatched.add(kQLoad, u.cfg.pe.dma.setup_ns);
      const ClassTime start = longer(q_dispatched, owner_free);
      t_q[p] = start + ClassTime(kQLoad, p == 0 ? u.t_rd(qb) : u.t_rrd(qb));
      owner_free = start + ClassTime(kQLoad, serve);
    }
    return t_q;
  }

  // A time on a rank's path and the leaf whose sweep it started from.
  struct Path {
    ClassTime t;
    size_t leaf = 0;  // index into leaves
  };
  struct Leaf {
    ClassTime q;  // ring opening and Q load
    Sweep s;
  };
  Path receive(const Path& own, const Path& child, unsigned hops) const {
    const ClassTime arrive = child.t + xfer(hops);
    const ClassTime done = recv_done(own.t, arrive);
    return {done + merge, done.total() == arrive.total() ? child.leaf : own.leaf};
  }

  // Cube k's root once level 2 (inside the cube) is merged.
  Path cube_root(const fw::AttnPlacement& at, unsigned k) {
    const unsigned P = at.pes;
    const std::vector<ClassTime> t_q = q_loaded(at, k);
    std::vector<Path> R(P);
    for (unsigned p = 0; p < P; ++p) {
      const int64_t n = ceil_div(fw::kv_block(pt.mode, pt.s_kv, at.cubes, P, k, p).count, pt.tile);
      leaves.push_back({t_q[p], sweep(sh, n, pt.variant)});
      R[p] = {t_q[p] + leaves.back().s.end(), leaves.size() - 1};
      n_max = std::max(n_max, n);
    }
    // Children have higher indices than their parent in both shapes: fold from the end.
    for (unsigned p = P; p-- > 0;)
      for (unsigned ch : fw::reduce_role(pt.intra, p, P).from) R[p] = receive(R[p], R[ch], 0);
    return R[0];
  }

  // The head's root once level 1 (across the cube roots, Cube-SP) is merged.
  Path head_root(const fw::AttnPlacement& at) {
    std::vector<Path> R(at.cubes);
    for (unsigned k = 0; k < at.cubes; ++k) R[k] = cube_root(at, k);
    if (pt.mode.cube != fw::CubeSplit::kSp) return R[0];
    for (unsigned k = at.cubes; k-- > 0;)
      for (unsigned c : fw::reduce_role(fw::ReduceShape::kTree, k, at.cubes).from)
        R[k] = receive(R[k], R[c], grid.hops(at.cube_start + c, at.cube_start + k));
    return R[0];
  }

  const Units& u;
  const LongDecodePoint& pt;
  const CubeGrid grid;
  const SweepShape sh;
  const ClassTime merge;
  const uint64_t st_bytes;
  const int64_t n_chunks;
  std::vector<Leaf> leaves;  // every rank's start and sweep
  int64_t n_max = 0;
};

}  // namespace

AttentionModel long_decode_model(const TopologyConfig& cfg, const LongDecodePoint& pt) {
  const Units u(cfg);
  if (pt.mode.pe == fw::PeSplit::kTp) return long_decode_tp(u, pt);
  const int64_t G = pt.g, d = pt.d_head;
  AttentionModel m;
  PeSpRanks ranks(u, pt);
  PeSpRanks::Path root;
  for (const fw::AttnPlacement& at : pt.heads) {
    const PeSpRanks::Path r = ranks.head_root(at);
    if (r.t.total() > root.t.total()) root = r;
  }
  // The critical path runs from this leaf's start through its sweep and the reduce.
  const PeSpRanks::Leaf& leaf = ranks.leaves.at(root.leaf);
  const ClassTime norm = normalise(u, G, d);
  const Incast out = output_incast(u, pt, m.unpriced);

  m.terms.emplace_back("q_load_and_open", leaf.q.total());
  add_sweep_terms(m, leaf.s);
  m.terms.emplace_back("reduce", root.t.total() - (leaf.q + leaf.s.end()).total());
  m.terms.emplace_back("normalise", norm.total());
  m.terms.emplace_back("output_incast", out.t.total());
  // The class split follows the root's own path (its sweep, receives and merges).
  m.classes = root.t + norm + out.t;
  m.mode = leaf.s.mode;
  const IpcqAlphaBeta ab0 = attention_ipcq_alpha_beta(cfg, 0);
  m.facts = {{"kv_tiles_per_rank", ranks.n_max},
             {"sweep_period_ns", leaf.s.period.total()},
             {"lse_merge_ns", ranks.merge.total()},
             {"ipcq_alpha0_ns", ab0.alpha_ns},
             {"ipcq_beta0_ns_per_byte", ab0.beta_ns_per_byte},
             {"output_bottleneck", out.bottleneck}};
  check_staging(u, ranks.sh, m);
  finish(m);
  return m;
}

// ---- the llm step's group attention ---------------------------------------------------

AttentionModel group_decode_model(const TopologyConfig& cfg, const std::vector<PeAddr>& group,
                                  const std::vector<int64_t>& blocks, int64_t batch, int64_t G,
                                  int64_t d, int64_t T, const std::string& variant, bool kv_tiled) {
  const Units u(cfg);
  const Dispatch& D = u.D;
  AttentionModel m;
  const auto R = static_cast<unsigned>(group.size());
  const CubeGrid grid(cfg.sip.cubes_x, cfg.sip.cubes_y, cfg.sip.topology);
  const SweepShape sh(u, G, d, T, kv_tiled);
  const int64_t rows = batch * G;
  const auto st_bytes = static_cast<uint64_t>(rows * (d + 2) * 4);
  const int64_t n_chunks =
      ceil_div(static_cast<int64_t>(st_bytes), static_cast<int64_t>(cfg.pe.ipcq.slot_bytes));
  const ClassTime merge = lse_merge(u, rows, d);
  // Each rank's sweeps, one sequence after the other: the next sequence's
  // first Q·K is dispatched while the previous one's last P·V still runs.
  auto sweeps_of = [&](const Sweep& sw) {
    const double overlap = std::min(sw.tail.total(), D.qk);
    ClassTime t = sw.end().scaled(static_cast<double>(batch));
    t.add(kDispatch, -static_cast<double>(batch - 1) * overlap);
    return t;
  };
  struct Path {
    ClassTime t;
    unsigned leaf = 0;
  };
  std::vector<Path> at(R);
  std::vector<Sweep> sweeps(R);
  int64_t n_max = 0;
  for (unsigned r = 0; r < R; ++r) {
    const int64_t n = ceil_div(blocks.at(r), T);
    n_max = std::max(n_max, n);
    sweeps[r] = sweep(sh, n, variant);
    at[r] = {sweeps_of(sweeps[r]), r};
  }
  bool cross_sip = false;
  // The tree: a parent receives each child's state (its data's arrival, or
  // the post of a late receive plus a setup per chunk and the last chunk's
  // copy) and merges it; children have higher indices than their parent.
  for (unsigned p = R; p-- > 0;)
    for (unsigned ch : fw::reduce_role(fw::ReduceShape::kTree, p, R).from) {
      cross_sip = cross_sip || group[ch].sip != group[p].sip;
      const unsigned hops = grid.hops(group[ch].cube, group[p].cube);
      ClassTime arrive = at[ch].t + ClassTime(kDispatch, D.send);
      arrive.add(kReduce, attention_ipcq_alpha_beta(cfg, hops).xfer_ns(st_bytes));
      ClassTime late = at[p].t + ClassTime(kDispatch, D.recv);
      const uint64_t last = st_bytes - static_cast<uint64_t>(n_chunks - 1) * cfg.pe.ipcq.slot_bytes;
      late.add(kReduce, cfg.pe.dma.setup_ns * static_cast<double>(n_chunks) + u.t_copy(last));
      const ClassTime& done = longer(arrive, late);
      const unsigned leaf = done.total() == arrive.total() ? at[ch].leaf : at[p].leaf;
      at[p] = {done + merge, leaf};
    }
  // The root's O / l into the output.
  ClassTime norm(kDispatch, D.recip + D.mulb + D.copy);
  norm.add(kMath, u.t_math(rows) + 2 * u.t_math(rows * d));
  const Path& root = at[0];
  const ClassTime leaf_sweeps = sweeps_of(sweeps[root.leaf]);
  m.terms.emplace_back("sweeps", leaf_sweeps.total());
  m.terms.emplace_back("state_reduce", root.t.total() - leaf_sweeps.total());
  m.terms.emplace_back("normalise", norm.total());
  m.classes = root.t + norm;
  m.mode = sweeps[root.leaf].mode;
  m.facts = {{"kv_tiles_per_rank", n_max},
             {"sweep_period_ns", sweeps[root.leaf].period.total()},
             {"lse_merge_ns", merge.total()},
             {"state_bytes", st_bytes},
             {"critical_leaf", root.leaf}};
  if (cross_sip) m.unpriced.emplace_back("the group spans SIPs: its SIP links are not priced");
  check_staging(u, sh, m);
  finish(m);
  return m;
}

// ---- gqa-prefill ----------------------------------------------------------------------

AttentionModel ring_prefill_model(const TopologyConfig& cfg, int64_t s, int64_t t_q, int64_t tile,
                                  int64_t d_head, const std::vector<unsigned>& ring) {
  const int64_t S = s, Tq = t_q, T = tile, d = d_head;
  const Units u(cfg);
  const Dispatch& D = u.D;
  AttentionModel m;
  const auto C = static_cast<int64_t>(ring.size());
  const CubeGrid grid(cfg.sip.cubes_x, cfg.sip.cubes_y, cfg.sip.topology);
  unsigned hops = 0;
  for (size_t i = 0; C > 1 && i < ring.size(); ++i)
    hops = std::max(hops, grid.hops(ring[i], ring[(i + 1) % ring.size()]));
  const int64_t block = S / C, tiles = block / T;
  // Head: open the left ring, then Q and the first own K and V tiles back to back on the PCs.
  ClassTime head = C > 1 ? u.t_open(1, hops) : ClassTime{};
  head.add(kDispatch, D.dma);
  head.add(kQLoad, cfg.pe.dma.setup_ns + u.t_rd(static_cast<uint64_t>(Tq * d * 2 + 2 * d * T * 2)));
  // One step: #1, then #2 (softmax_merge + P·V); a and b both in TCM.
  const SweepShape sh(u, Tq, d, T, true, /*streamed=*/false);
  const ClassTime X_qk = sh.X_qk(), X_pv = sh.X_pv(), X_pv0 = sh.X_pv(false);
  const ClassTime comp =
      ClassTime(kDispatch, D.qk_prefill + D.m2_prefill) + X_qk + ClassTime(kMath, sh.m_pro) + X_pv;
  ClassTime ring_t(kDispatch, D.send);
  ring_t.add(kReduce,
             attention_ipcq_alpha_beta(cfg, hops).xfer_ns(static_cast<uint64_t>(2 * d * T * 2)));
  const ClassTime step = longer(ClassTime(kDispatch, D.send + D.recv) + comp, ring_t);
  ClassTime first(kDispatch, D.send + D.recv + D.qk_prefill + D.rmax + D.exp_b + D.rsum +
                                 D.pv_prefill + D.copycmd);
  first += X_qk + X_pv0;
  first.add(kMath, u.t_math(Tq) + u.t_math(Tq * T));
  first.add(kFetchStore, 2.0 * static_cast<double>(Tq * d * 4) / u.tcm_bw());
  const ClassTime trip_end = ClassTime(kDispatch, 2 * D.dma) + comp;
  const int64_t n_steps = tiles * C, n_trip_end = tiles - 1;
  const int64_t n_reg = n_steps - 1 - n_trip_end - 1;
  int64_t n_mask = 0;
  for (int64_t b = 0; b < C; ++b)
    for (int64_t t = 0; t < tiles; ++t) n_mask += b * block + t * T + T - 1 > S - Tq ? 1 : 0;
  ClassTime mask(kDispatch, static_cast<double>(n_mask) * D.mask);
  mask.add(kMath, static_cast<double>(n_mask) * u.t_math(Tq * T));
  ClassTime fin(kDispatch, D.recip + D.mulb + D.dma);
  fin.add(kMath, u.t_math(Tq) + u.t_math(Tq * d));
  fin.add(kOutput, cfg.pe.dma.setup_ns + u.t_wr(static_cast<uint64_t>(Tq * d * 4)));
  m.terms = {{"head", head.total()},
             {"first_step", first.total()},
             {"steps", static_cast<double>(n_reg) * step.total()},
             {"trip_end_steps", static_cast<double>(n_trip_end) * trip_end.total()},
             {"last_step", comp.total()},
             {"masks", mask.total()},
             {"normalise_store", fin.total()}};
  m.classes = head + first + step.scaled(static_cast<double>(n_reg)) +
              trip_end.scaled(static_cast<double>(n_trip_end)) + comp + mask + fin;
  const bool ring_bound = ring_t.total() > (ClassTime(kDispatch, D.send + D.recv) + comp).total();
  m.mode = ring_bound ? "ring-bound step" : "compute-bound step (the ring transfer hides)";
  m.facts = {{"step_ns", step.total()},        {"compute_ns", comp.total()},
             {"ring_xfer_ns", ring_t.total()}, {"steps", n_steps},
             {"masked_tiles", n_mask},         {"ring_hops", hops}};
  finish(m);
  return m;
}

}  // namespace kb
