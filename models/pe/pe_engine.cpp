#include "models/pe/pe_engine.h"
#include "models/common/acting_process.h"
#include "models/common/calendar.h"
#include "models/common/fault.h"

#include "models/common/first_use_thread.h"
#include "models/common/power_meter.h"
#include "models/common/sim_time.h"
#include "models/pe/borrowed_extension.h"
#include "models/trace/op_log.h"

#include <algorithm>
#include <utility>

namespace kb {

namespace {

// Carries a token pointer through a TLM generic payload.
struct TokenExtension : tlm::tlm_extension<TokenExtension> {
  TileToken* token = nullptr;
  tlm::tlm_extension_base* clone() const override { return new TokenExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    token = static_cast<const TokenExtension&>(other).token;
  }
};

}  // namespace

void post_token(tlm::tlm_fw_transport_if<>& engine, TileToken* token) {
  TokenExtension ext;
  ext.token = token;
  post_extension(engine, ext);
}

PeEngine::PeEngine(const sc_core::sc_module_name& name, EngineKind kind,
                   std::vector<std::string> lanes)
    : sc_core::sc_module(name),
      stage_in("stage_in"),
      stage_out("stage_out"),
      kind_(kind),
      due_(*this, "lanes_due", "lanes_due_now") {
  const std::string full = this->name();
  pe_path_ = full.substr(0, full.rfind('.'));
  stage_in.register_b_transport(this, &PeEngine::b_transport);
  for (std::string& label : lanes) {
    const auto i = static_cast<unsigned>(lanes_.size());
    lanes_.push_back(std::make_unique<Lane>(*this, i));
    lanes_.back()->process_name = full + ".lane_" + std::to_string(i);
    lanes_.back()->stats.label = std::move(label);
  }
}

void PeEngine::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
  TokenExtension* ext = nullptr;
  trans.get_extension(ext);
  if (!ext || !ext->token) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    raise_fault("/kernbench/pe_engine",
                std::string(name()) + ": stage socket received a payload without a token");
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  ext->token->arrived_ns = to_ns(sim_now());
  accept(ext->token);
}

unsigned PeEngine::lane_of(const Stage&) const {
  return 0;
}

void PeEngine::accept(TileToken* token) {
  const unsigned lane = lane_of(token->current());
  Lane& l = *lanes_.at(lane);
  if (!serves_in_thread()) {
    l.queue.push_back(token);
    update_depth(l);
    run_lane(l);
    return;
  }
  if (!l.arrived) {  // the worker runs in this evaluation, as if woken by the notify below
    l.arrived =
        make_event_on_first_use(*this, ("lane" + std::to_string(lane) + "_arrived").c_str());
    start_thread_on_first_use(*this, ("lane_" + std::to_string(lane)).c_str(), false,
                              [this, lane] { worker(lane); });
  }
  l.queue.push_back(token);
  update_depth(l);
  l.arrived->notify();
}

void PeEngine::update_depth(Lane& l) {
  l.depth.set(static_cast<unsigned>(l.queue.size()) + (l.busy ? 1u : 0u));
}

void PeEngine::serve(TileToken& token, Stage& stage) {
  const sc_core::sc_time t = service_time(stage);
  if (t != sc_core::SC_ZERO_TIME) Calendar::get().wait(t);
  finish_service(token, stage);
}

// A timer lane does what worker() does, in the same order at the same
// instants: a token queued on an idle lane starts at once (where the woken
// worker would start it in this evaluation), the end of service runs from
// the calendar at the instant the worker's wait would end (a zero-time
// service later in this delta, not inside the caller: DueTimers), and the
// next queued token starts then.
void PeEngine::run_lane(Lane& l) {
  if (!l.busy && !l.queue.empty()) begin_service(l);
}

void PeEngine::begin_service(Lane& l) {
  TileToken* token = l.queue.front();
  l.queue.pop_front();
  l.busy = true;
  l.current_cmd = token->cmd_id;
  update_depth(l);
  l.serving = token;
  l.started = sim_now();
  const Stage& stage = token->current();
  l.work = service_time(stage);
  l.streaming = stage.stream_tiles > 1;
  const sc_core::sc_time t =
      l.streaming ? stream_end(l, *token, stage.stream_tiles) - l.started : l.work;
  l.power = meter_ ? meter_->begin(stage_energy_pj(stage), t) : 0;
  due_.call_in(l, t);
}

// A streamed stage (docs/ARCHITECTURE.md §1.6): k items, `work` in all.
// The previous stage passed on c = token.stream_count items evenly from
// token.stream_first_ns to stream_last_ns, and item i here needs its
// (i + 1) c / k of them (a GEMM's K steps per output tile for its STORE):
// so item i is available at first' + i (last - first') / (k - 1), first'
// being when the first c / k had come. The exact model's tokens would each
// be served as soon as available and the lane free, from when the lane was
// last free: the stage starts at max(free, first') and ends at
// max(start + work, last + work / k) (the lane running without a gap, or
// waiting for the last item), never before now. Its items leave evenly from
// start + work / k to that end.
sc_core::sc_time PeEngine::stream_end(Lane& l, TileToken& token, unsigned k) {
  const sc_core::sc_time& now = l.started;
  const double c = std::max<double>(token.stream_count, 1);
  const double step = c > 1 ? (token.stream_last_ns - token.stream_first_ns) / (c - 1) : 0;
  const double ratio = std::max(c / k, 1.0);
  const sc_core::sc_time first = ns_to_time(token.stream_first_ns + (ratio - 1) * step);
  const sc_core::sc_time last = ns_to_time(token.stream_last_ns);
  const sc_core::sc_time per = l.work / static_cast<double>(k);
  l.stream_start = std::min(now, std::max(l.free_since, first));
  const sc_core::sc_time end = std::max({l.stream_start + l.work, last + per, now});
  token.stream_first_ns = to_ns(l.stream_start + per);
  token.stream_last_ns = to_ns(end);
  token.stream_count = k;
  return end;
}

void PeEngine::end_service(Lane& l) {
  TileToken& token = *l.serving;
  l.serving = nullptr;
  Stage& stage = token.current();
  finish_service(token, stage);
  if (meter_) meter_->end(l.power);
  const sc_core::sc_time& now = sim_now();
  // A streamed stage was busy for its work, from its backdated start.
  l.busy_time += l.streaming ? l.work : now - l.started;
  l.free_since = now;
  l.busy = false;
  l.current_cmd = 0;
  update_depth(l);
  record(token, stage, l, to_ns(l.streaming ? l.stream_start : l.started), to_ns(now));
  {
    // What the token's next engine sees: the lane's thread handing it on.
    const ActingProcess as_lane(l.process_name.c_str());
    advance(token);
  }
  run_lane(l);
}

void PeEngine::worker(unsigned lane) {
  Lane& l = *lanes_[lane];
  for (;;) {
    while (l.queue.empty()) sc_core::wait(*l.arrived);
    TileToken* token = l.queue.front();
    l.queue.pop_front();
    l.busy = true;
    l.current_cmd = token->cmd_id;
    update_depth(l);
    Stage& stage = token->current();
    // A copy: the time stamp moves on while serve() waits.
    // NOLINTNEXTLINE(performance-unnecessary-copy-initialization)
    const sc_core::sc_time started = sim_now();
    const int64_t power = meter_ ? meter_->begin(stage_energy_pj(stage), service_time(stage)) : 0;
    serve(*token, stage);
    if (meter_) meter_->end(power);
    l.busy_time += sim_now() - started;
    const double start = to_ns(started);
    const double end = to_ns(sim_now());
    l.busy = false;
    l.current_cmd = 0;
    update_depth(l);
    record(*token, stage, lane, start, end);
    advance(*token);
  }
}

void PeEngine::record(const TileToken& token, const Stage& stage, unsigned lane, double start_ns,
                      double end_ns) {
  record(token, stage, *lanes_.at(lane), start_ns, end_ns);
}

void PeEngine::record(const TileToken& token, const Stage& stage, Lane& lane, double start_ns,
                      double end_ns) {
  LaneStats& s = lane.stats;
  ++s.stages;
  s.bytes += stage.bytes;
  count_served(stage);
  if (!op_log_) return;
  OpRecord r;
  r.t_start_ns = start_ns;
  r.t_end_ns = end_ns;
  r.t_queued_ns = token.arrived_ns >= 0 ? std::min(token.arrived_ns, start_ns) : start_ns;
  if (stage.kind == StageKind::kDmaRead || stage.kind == StageKind::kDmaWrite) {
    r.src = stage.transfer.src;
    r.dst = stage.transfer.dst;
  }
  r.pe = pe_path_;
  r.engine = s.label;
  r.stage = to_string(stage.kind);
  r.op_kind = stage.op_kind;
  r.cmd_id = token.cmd_id;
  r.tile = token.tile;
  r.bytes = logged_bytes(stage);
  r.addr = stage.addr;
  if (token.has_peer)
    r.peer = pe_path_.substr(0, pe_path_.find(".sip") + 1) + to_string(token.peer);
  // The doorbell (a message's slim token has no stages) or the first stage
  // of the chunk it announced.
  if (token.stages.empty() || &stage == &token.stages.front()) r.msg = token.msg;
  op_log_->add(std::move(r));
}

void PeEngine::advance(TileToken& token) {
  ++token.next;
  if (token.finished()) {
    if (token.on_done) token.on_done(token);
    return;
  }
  post_token(engine_for(engine_of(token.current().kind)), &token);
}

void PeEngine::compute_fault(const TileToken& token, const Stage& stage,
                             const std::string& why) const {
  const std::string msg = std::string(name()) + ": command #" + std::to_string(token.cmd_id) +
                          " tile " + token.tile + " " + to_string(stage.kind) + " '" +
                          stage.op_kind + "': " + why;
  raise_fault("/kernbench/data", msg);
}

void PeEngine::lane_enter(unsigned lane, uint64_t cmd) {
  Lane& l = *lanes_.at(lane);
  if (l.active++ == 0) {
    l.active_since = sim_now();
    l.busy = true;
  }
  l.current_cmd = cmd;
  l.depth.set(l.active);
}

void PeEngine::lane_leave(unsigned lane) {
  Lane& l = *lanes_.at(lane);
  if (--l.active == 0) {
    l.busy_time += sim_now() - l.active_since;
    l.busy = false;
    l.current_cmd = 0;
  }
  l.depth.set(l.active);
}

void PeEngine::report_stats(StatsSink& out, double now_ns) const {
  for (unsigned l = 0; l < num_lanes(); ++l) {
    const LaneStats s = lane_stats(l);
    if (s.stages == 0 && !out.describing()) continue;
    out.group(pe_path() + "." + s.label + ".stages");
    out.count("stages", s.stages, "", "stages served");
    out.count("bytes", s.bytes, "B", "bytes the stages moved");
    out.real("busy_ns", s.busy_ns, "ns", "time with at least one stage in service");
    out.real("utilization", now_ns > 0 ? s.busy_ns / now_ns : 0.0, "",
             "busy_ns over the simulated time");
    out.count("max_queue_depth", s.max_queue, "", "most stages queued or in service at once");
    report_lane_extras(out);
  }
}

unsigned PeEngine::trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const {
  for (unsigned l = 0; l < num_lanes(); ++l) {
    std::string lane = lanes_[l]->stats.label;
    for (char& ch : lane)
      if (ch == '.') ch = '_';
    const std::string base = name + ".stage_" + lane;
    sc_core::sc_trace(tf, lane_busy(l), base + ".busy");
    sc_core::sc_trace(tf, lane_depth(l), base + ".queue_depth");
    sc_core::sc_trace(tf, lane_cmd(l), base + ".cmd_id");
  }
  return 3 * num_lanes();
}

}  // namespace kb
