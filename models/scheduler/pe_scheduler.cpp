#include "models/scheduler/pe_scheduler.h"
#include "models/common/fault.h"

#include <string>

#include "models/common/acting_process.h"
#include "models/pe/pe_engine.h"
#include "models/scheduler/composite_request.h"

namespace kb {

PeScheduler::PeScheduler(const sc_core::sc_module_name& name, const TilingConfig& tiling,
                         unsigned staging_buffers, uint64_t staging_base)
    : sc_core::sc_module(name),
      cmd_in("cmd_in"),
      stage_out("stage_out"),
      tiling_(tiling),
      staging_base_(staging_base),
      feeder_name_(std::string(this->name()) + ".feeder") {
  for (unsigned i = staging_buffers; i-- > 0;) free_slots_.push_back(static_cast<int>(i));
  cmd_in.register_b_transport(this, &PeScheduler::b_transport);
}

void PeScheduler::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
  CompositeRequest* req = nullptr;
  trans.get_extension(req);
  if (!req || !req->cmd) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  auto e = std::make_unique<Entry>();
  e->cmd_id = req->cmd_id;
  e->on_done = req->on_done;
  try {
    e->plan = std::make_unique<TilePlanner>(*req->cmd, tiling_, req->cmd_id, operand_views_,
                                            stream_gemm_);
  } catch (const PlanError& err) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    const std::string pe = std::string(name()).substr(0, std::string(name()).rfind('.'));
    raise_fault("/kernbench/pe_scheduler", std::string(name()) + ": composite command #" +
                                               std::to_string(req->cmd_id) + " on " + pe +
                                               " rejected: " + err.what());
  }
  std::vector<uint64_t> ids;
  for (const auto& h : req->cmd->rw_handles) ids.push_back(h.id);
  e->ticket = hazards_.arrive(ids);
  entries_.push_back(std::move(e));
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  kick_.kick();
}

size_t PeScheduler::phase_size(const Entry& e) {
  return e.phase < 3 ? e.plan->count(e.phase) : 0;
}

void PeScheduler::free_finished(Entry& e) {
  if (e.phase == 3) {  // done: no token of it is in flight
    spare_.splice(spare_.end(), e.live);
    e.finished.clear();
    return;
  }
  for (const TileToken* t : e.finished)
    for (auto it = e.live.begin(); it != e.live.end(); ++it)
      if (&*it == t) {
        spare_.splice(spare_.end(), e.live, it);
        break;
      }
  e.finished.clear();
}

bool PeScheduler::needs_slot(const TileToken& t) {
  for (const Stage& s : t.stages) {
    if (s.staged) return true;
    for (bool b : s.operands().staged_inputs)
      if (b) return true;
  }
  return false;
}

void PeScheduler::assign_slot(TileToken& t, int slot) {
  t.slot = slot;
  const uint64_t base = staging_base_ + static_cast<uint64_t>(slot) * tiling_.slot_bytes();
  for (Stage& s : t.stages) {
    if (s.staged & Stage::kStagedSrc) s.transfer.src += base;
    if (s.staged & Stage::kStagedDst) s.transfer.dst += base;
    if (s.staged & Stage::kStagedAddr) s.addr += base;
    // Views planned without their operands (TilePlanner) have nothing to move.
    const bool views = s.staged & (Stage::kStagedA | Stage::kStagedB | Stage::kStagedOut);
    if (!s.has_operands() || (!views && s.operands().staged_inputs.empty())) continue;
    StageOperands& o = s.mutable_operands();
    if (s.staged & Stage::kStagedA) o.a_view.addr += base;
    if (s.staged & Stage::kStagedB) o.b_view.addr += base;
    if (s.staged & Stage::kStagedOut) {
      o.out_view.addr += base;
      o.output.addr += base;
    }
    for (size_t i = 0; i < o.staged_inputs.size(); ++i)
      if (o.staged_inputs[i]) o.inputs[i].addr += base;
  }
}

void PeScheduler::enter_next_phase(Entry* e) {
  // Skip empty phases; the composite completes after its last phase.
  while (e->phase < 3) {
    ++e->phase;
    e->fed = e->completed = 0;
    if (e->phase == 3 || phase_size(*e) != 0) break;
  }
  if (e->phase == 3) {
    hazards_.retire(e->ticket);
    ++composites_done_;
    // The entry (and the token whose callback got us here) is freed later by
    // the feeder, never from inside a token's own callback.
    if (e->on_done) e->on_done();
  }
  kick_.kick();
}

void PeScheduler::on_token_done(Entry* e, TileToken& t) {
  if (t.slot >= 0) free_slots_.push_back(t.slot);
  t.slot = -1;
  --in_flight_;
  e->finished.push_back(&t);
  if (++e->completed == phase_size(*e)) enter_next_phase(e);
  kick_.kick();
}

// The feeder: run one delta after each kick (what an SC_METHOD asleep on a
// kick event would do), it feeds while it finds something to feed.
void PeScheduler::feeder() {
  // It runs inside the calendar's process; the tokens it posts start their
  // DMA stages under the name `<scheduler>.feeder`, which PE_DMA's
  // same-instant order reads (ActingProcess).
  const ActingProcess as_feeder(feeder_name_.c_str());
  for (bool fed_any = true; fed_any;) {
    fed_any = false;
    entries_.remove_if([this](const std::unique_ptr<Entry>& p) {
      if (p->phase != 3) return false;
      free_finished(*p);
      return true;
    });
    for (auto& up : entries_)
      if (feed_entry(up.get(), fed_any) && free_slots_.empty()) break;
  }
}

bool PeScheduler::feed_entry(Entry* e, bool& fed_any) {
  free_finished(*e);
  if (e->phase == 3) return false;
  if (!e->admitted) {
    if (!hazards_.admissible(e->ticket)) return false;
    e->admitted = true;
    if (phase_size(*e) == 0) {
      enter_next_phase(e);
      fed_any = true;
      if (e->phase == 3) return false;
    }
  }
  while (e->fed < phase_size(*e)) {
    if (!e->has_next) {
      if (spare_.empty())
        e->live.emplace_back();
      else
        e->live.splice(e->live.end(), spare_, spare_.begin());
      e->plan->take(e->phase, e->fed, e->live.back());
      e->has_next = true;
    }
    TileToken& t = e->live.back();
    if (needs_slot(t) && free_slots_.empty()) break;
    e->has_next = false;
    if (needs_slot(t)) {
      assign_slot(t, free_slots_.back());
      free_slots_.pop_back();
    }
    t.on_done = [this, e](TileToken& tok) { on_token_done(e, tok); };
    ++e->fed;
    ++in_flight_;
    ++tokens_fed_;
    fed_any = true;
    post_token(first_engine_.of(stage_out, engine_of(t.current().kind)), &t);
  }
  return true;
}

void PeScheduler::report_stats(StatsSink& /*out*/, double /*now_ns*/) const {}

unsigned PeScheduler::trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const {
  sc_core::sc_trace(tf, in_flight_value(), name + ".tokens_in_flight");
  return 1;
}

}  // namespace kb
