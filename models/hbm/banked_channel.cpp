#include "models/hbm/banked_channel.h"

#include <algorithm>
#include <tuple>

#include "models/common/power_meter.h"
#include "models/common/service_order.h"
#include "models/common/sim_time.h"

namespace kb {

namespace {

const sc_core::sc_time& later(const sc_core::sc_time& a, const sc_core::sc_time& b) {
  return a < b ? b : a;
}

}  // namespace

BankedChannel::BankedChannel(const sc_core::sc_module_name& name, const DramTimingConfig& timing,
                             unsigned lockstep, unsigned capacity)
    : sc_core::sc_module(name),
      t_(timing),
      column_bytes_(timing.column_bytes * std::max(1u, lockstep)),
      columns_per_row_(std::max<uint64_t>(1, timing.page_bytes / timing.column_bytes)),
      capacity_(capacity),
      tRCD_(ns_to_time(timing.tRCD_ns)),
      tRP_(ns_to_time(timing.tRP_ns)),
      tRAS_(ns_to_time(timing.tRAS_ns)),
      tCL_(ns_to_time(timing.tCL_ns)),
      tCWL_(ns_to_time(timing.tCWL_ns)),
      tRRD_S_(ns_to_time(timing.tRRD_S_ns)),
      tRRD_L_(ns_to_time(timing.tRRD_L_ns)),
      tFAW_(ns_to_time(timing.tFAW_ns)),
      tCCD_S_(ns_to_time(timing.tCCD_S_ns)),
      tCCD_L_(ns_to_time(timing.tCCD_L_ns)),
      tWR_(ns_to_time(timing.tWR_ns)),
      tWTR_(ns_to_time(timing.tWTR_ns)),
      tRTP_(ns_to_time(timing.tRTP_ns)),
      tRFC_(ns_to_time(timing.tRFC_ns)),
      tREFI_(ns_to_time(timing.tREFI_ns)),
      banks_(size_t{timing.bank_groups} * timing.banks_per_group),
      last_col_group_(timing.bank_groups),
      last_act_group_(timing.bank_groups),
      next_refresh_(tREFI_) {
  SC_HAS_PROCESS(BankedChannel);
  SC_METHOD(step);
  sensitive << kick_;
  dont_initialize();
}

double BankedChannel::peak_gbps() const {
  return static_cast<double>(column_bytes_) / t_.tCCD_S_ns;
}

BankedChannel::Location BankedChannel::locate(uint64_t offset) const {
  const uint64_t c = offset / column_bytes_;
  const uint64_t rest = c / t_.bank_groups;
  const uint64_t bank_row = rest / columns_per_row_;
  Location l;
  l.group = static_cast<unsigned>(c % t_.bank_groups);
  l.column = rest % columns_per_row_;
  l.bank = static_cast<unsigned>(bank_row % t_.banks_per_group);
  l.row = bank_row / t_.banks_per_group;
  return l;
}

void BankedChannel::push(uint64_t offset, uint64_t bytes, bool write, Completion* done,
                         uint64_t order, double pj) {
  if (bytes == 0) return;
  const uint64_t stripe_bytes = column_bytes_ * t_.bank_groups * columns_per_row_;
  const uint64_t end = offset + bytes;
  for (uint64_t pos = offset; pos < end;) {
    const uint64_t piece_end = std::min(end, (pos / stripe_bytes + 1) * stripe_bytes);
    Entry e;
    e.arrival = sim_now();
    e.order = order;
    e.seq = next_seq_++;
    e.write = write;
    e.bytes = piece_end - pos;
    e.pj = pj * static_cast<double>(e.bytes) / static_cast<double>(bytes);
    e.done = done;
    for (uint64_t c = pos / column_bytes_; c <= (piece_end - 1) / column_bytes_; ++c) {
      const Location l = locate(c * column_bytes_);
      const unsigned bank = l.group * t_.banks_per_group + l.bank;
      auto it = std::find_if(e.targets.begin(), e.targets.end(),
                             [&](const Target& x) { return x.bank == bank; });
      if (it == e.targets.end())
        it = e.targets.insert(e.targets.end(), Target{bank, l.group, l.row, 0});
      ++it->columns;
    }
    if (done) done->expect(1);
    if (capacity_ > 0 && (queue_.size() >= capacity_ || !stalled_.empty()))
      stalled_.push_back(std::move(e));  // pushes arrive in time order
    else
      insert_in_service_order(queue_, std::move(e));
    pos = piece_end;
  }
  depth_.set(static_cast<unsigned>(queue_.size() + in_flight_.size()));
  kick_.notify(sc_core::SC_ZERO_TIME);
}

void BankedChannel::admit_stalled() {
  while (!stalled_.empty() && (capacity_ == 0 || queue_.size() < capacity_)) {
    Entry e = std::move(stalled_.front());
    stalled_.pop_front();
    e.arrival = sim_now();
    insert_in_service_order(queue_, std::move(e));
  }
}

bool BankedChannel::is_hit(const Entry& e) const {
  return std::all_of(e.targets.begin(), e.targets.end(), [&](const Target& x) {
    return banks_[x.bank].open && banks_[x.bank].row == x.row;
  });
}

bool BankedChannel::protected_row(unsigned bank) const {
  return std::any_of(queue_.begin(), queue_.end(), [&](const Entry& e) {
    return is_hit(e) && std::any_of(e.targets.begin(), e.targets.end(),
                                    [&](const Target& x) { return x.bank == bank; });
  });
}

sc_core::sc_time BankedChannel::act_time(const Bank& b, unsigned group,
                                         const sc_core::sc_time& from) const {
  sc_core::sc_time t = later(later(from, b.act_ok), refresh_block_);
  if (any_act_) {
    t = later(t, last_act_ + tRRD_S_);
    t = later(t, last_act_group_[group] + tRRD_L_);
  }
  if (act_window_.size() == 4) t = later(t, act_window_.front() + tFAW_);
  return t;
}

sc_core::sc_time BankedChannel::column_time(const Target& x, bool write,
                                            const sc_core::sc_time& from) const {
  sc_core::sc_time t = later(from, banks_[x.bank].col_ok);
  if (any_col_) {
    t = later(t, last_col_ + tCCD_S_);
    t = later(t, last_col_group_[x.group] + tCCD_L_);
  }
  const sc_core::sc_time& latency = write ? tCWL_ : tCL_;
  if (bus_free_ > t + latency) t = bus_free_ - latency;
  if (!write && write_data_end_ > sc_core::SC_ZERO_TIME) t = later(t, write_data_end_ + tWTR_);
  return t;
}

bool BankedChannel::first_row_command(const Entry& e, const sc_core::sc_time& now,
                                      sc_core::sc_time* t) const {
  bool any = false;
  for (const Target& x : e.targets) {
    const Bank& b = banks_[x.bank];
    if (b.open && b.row == x.row) continue;
    if (b.open && protected_row(x.bank)) return false;
    const sc_core::sc_time c = b.open ? later(now, b.pre_ok) : act_time(b, x.group, now);
    if (!any || c < *t) *t = c;
    any = true;
  }
  return any;
}

void BankedChannel::precharge(Bank& b, const sc_core::sc_time& t) {
  b.open = false;
  b.act_ok = later(b.act_ok, t + tRP_);
  ++stats_.precharges;
  committed_until_ = later(committed_until_, t);
}

void BankedChannel::prepare(Entry& e, const sc_core::sc_time& now) {
  for (const Target& x : e.targets) {
    Bank& b = banks_[x.bank];
    if (b.open && b.row == x.row) continue;
    if (b.open) precharge(b, later(now, b.pre_ok));
    const sc_core::sc_time a = act_time(b, x.group, now);
    b.open = true;
    b.row = x.row;
    b.col_ok = a + tRCD_;
    b.pre_ok = later(b.pre_ok, a + tRAS_);
    b.act_ok = a + tRAS_ + tRP_;  // tRC
    any_act_ = true;
    last_act_ = a;
    last_act_group_[x.group] = a;
    act_window_.push_back(a);
    if (act_window_.size() > 4) act_window_.pop_front();
    ++stats_.activates;
    committed_until_ = later(committed_until_, a);
  }
  e.prepared = true;
}

void BankedChannel::issue_columns(Entry& e, const sc_core::sc_time& now) {
  if (!e.prepared) ++stats_.row_hits;
  const sc_core::sc_time& latency = e.write ? tCWL_ : tCL_;
  std::vector<unsigned> left;
  left.reserve(e.targets.size());
  for (const Target& x : e.targets) left.push_back(x.columns);
  sc_core::sc_time end;
  for (bool more = true; more;) {  // one column per bank in turn
    more = false;
    for (size_t i = 0; i < e.targets.size(); ++i) {
      if (left[i] == 0) continue;
      const Target& x = e.targets[i];
      Bank& b = banks_[x.bank];
      const sc_core::sc_time c = column_time(x, e.write, now);
      const sc_core::sc_time data_end = c + latency + tCCD_S_;
      bus_free_ = data_end;
      any_col_ = true;
      last_col_ = c;
      last_col_group_[x.group] = c;
      b.pre_ok = later(b.pre_ok, e.write ? data_end + tWR_ : c + tRTP_);
      if (e.write) write_data_end_ = data_end;
      ++stats_.columns;
      stats_.data_busy += tCCD_S_;
      end = later(end, data_end);
      committed_until_ = later(committed_until_, c);
      if (--left[i] > 0) more = true;
    }
  }
  if (t_.page_policy == PagePolicy::kClosed)
    for (const Target& x : e.targets) precharge(banks_[x.bank], banks_[x.bank].pre_ok);
  InFlight f{end, e.seq, e.bytes, e.done, 0};
  if (meter_) f.power_token = meter_->begin(e.pj, end - now);
  in_flight_.push_back(f);
}

// All-bank refreshes due by `now`. A REF waits for every committed command
// and for the prepared entries' columns (decide() issues only those while a
// REF is due); it closes every row and blocks ACTs for tRFC.
void BankedChannel::refresh_due(const sc_core::sc_time& now) {
  if (tREFI_ == sc_core::SC_ZERO_TIME) return;
  while (next_refresh_ <= now) {
    if (std::any_of(queue_.begin(), queue_.end(), [](const Entry& e) { return e.prepared; }))
      return;
    sc_core::sc_time t = later(next_refresh_, committed_until_);
    for (Bank& b : banks_) {
      if (b.open) precharge(b, later(next_refresh_, b.pre_ok));
      t = later(t, b.act_ok);  // tRP after a PRE, tRC after an ACT
    }
    refresh_block_ = t + tRFC_;
    for (Bank& b : banks_) b.act_ok = later(b.act_ok, refresh_block_);
    committed_until_ = later(committed_until_, t);
    ++stats_.refreshes;
    next_refresh_ += tREFI_;
  }
}

void BankedChannel::decide(const sc_core::sc_time& now) {
  for (;;) {
    const bool refresh_waits = tREFI_ > sc_core::SC_ZERO_TIME && next_refresh_ <= now;
    auto pick = queue_.end();
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (refresh_waits && !it->prepared) continue;
      if (is_hit(*it) && column_time(it->targets.front(), it->write, now) <= now) {
        pick = it;
        break;
      }
    }
    if (pick != queue_.end()) {
      issue_columns(*pick, now);
      queue_.erase(pick);
      admit_stalled();
      continue;
    }
    if (refresh_waits) return;
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      sc_core::sc_time t;
      if (!it->prepared && !is_hit(*it) && first_row_command(*it, now, &t) && t <= now) {
        pick = it;
        break;
      }
    }
    if (pick == queue_.end()) return;
    prepare(*pick, now);
  }
}

void BankedChannel::finish_done(const sc_core::sc_time& now) {
  std::sort(in_flight_.begin(), in_flight_.end(), [](const InFlight& a, const InFlight& b) {
    return std::tie(a.end, a.seq) < std::tie(b.end, b.seq);
  });
  size_t n = 0;
  while (n < in_flight_.size() && in_flight_[n].end <= now) {
    const InFlight& f = in_flight_[n++];
    if (meter_) meter_->end(f.power_token);
    ++stats_.requests;
    stats_.bytes += f.bytes;
    if (f.done) f.done->done();
  }
  in_flight_.erase(in_flight_.begin(), in_flight_.begin() + static_cast<std::ptrdiff_t>(n));
}

void BankedChannel::step() {
  if (!settling_) {  // decide one delta later: every arrival of this instant is in
    settling_ = true;
    next_trigger(sc_core::SC_ZERO_TIME);
    return;
  }
  settling_ = false;
  const sc_core::sc_time& now = sim_now();
  finish_done(now);
  refresh_due(now);
  decide(now);
  refresh_due(now);
  decide(now);
  depth_.set(static_cast<unsigned>(queue_.size() + in_flight_.size()));

  // The next instant anything can happen: a completion, a command, a REF.
  bool any = false;
  sc_core::sc_time next;
  auto consider = [&](const sc_core::sc_time& t) {
    if (!any || t < next) next = t;
    any = true;
  };
  for (const InFlight& f : in_flight_) consider(f.end);
  const bool refresh_waits = tREFI_ > sc_core::SC_ZERO_TIME && next_refresh_ <= now;
  for (const Entry& e : queue_) {
    if (refresh_waits && !e.prepared) continue;
    sc_core::sc_time t;
    if (is_hit(e))
      consider(column_time(e.targets.front(), e.write, now));
    else if (!refresh_waits && first_row_command(e, now, &t))
      consider(t);
  }
  if (tREFI_ > sc_core::SC_ZERO_TIME && !queue_.empty() && next_refresh_ > now)
    consider(next_refresh_);
  if (any && next > now)
    next_trigger(next - now, kick_);
  else
    next_trigger(kick_);
}

void BankedChannel::report_stats(StatsSink& out, double now_ns) const {
  const Stats s = stats();
  if (s.requests == 0 && !out.describing()) return;
  const double busy = to_ns(s.data_busy);
  out.group(name());
  out.count("requests", s.requests, "", "requests served (cut at row-stripe boundaries)");
  out.count("bytes", s.bytes, "B", "bytes the requests carried");
  out.count("row_hits", s.row_hits, "", "requests whose every bank was open at their row");
  out.count("activates", s.activates, "", "ACT commands");
  out.count("precharges", s.precharges, "", "PRE commands (auto-precharge and REF included)");
  out.count("refreshes", s.refreshes, "", "all-bank REF commands");
  out.count("columns", s.columns, "", "RD and WR commands");
  out.real("busy_ns", busy, "ns", "time the data bus carried data");
  out.real("utilization", now_ns > 0 ? busy / now_ns : 0.0, "", "busy_ns over the simulated time");
  out.count("max_queue_depth", s.max_depth, "", "most requests queued or in flight at once");
}

unsigned BankedChannel::trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const {
  sc_core::sc_trace(tf, depth_.traced(), name + ".depth");
  return 1;
}

}  // namespace kb
