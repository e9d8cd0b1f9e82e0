#include "platform/output/trace_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "models/common/service_queue.h"
#include "platform/output/vcd_tracer.h"
#include "platform/platform.h"

namespace kb {

// Trace time in microseconds, exact to the picosecond: the integer number of
// picoseconds over 1e6 prints without binary-fraction noise (12.313 ns is
// 0.012313, not 0.012313000000000001).
double trace_us(double ns) {
  return static_cast<double>(std::llround(ns * 1000)) / 1e6;
}

namespace {

std::string hex_text(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

using Emit = std::function<void(const nlohmann::json&)>;

// A record's slice args: command, tile and bytes, and what it has of
// address, peer, DMA source and destination and wait before service.
nlohmann::json slice_args(const OpRecord& r) {
  nlohmann::json args{{"cmd_id", r.cmd_id}, {"tile", r.tile}, {"bytes", r.bytes}};
  if (r.addr != 0) args["addr"] = hex_text(r.addr);
  if (!r.peer.empty()) args["peer"] = r.peer;
  if (r.src != 0 || r.dst != 0) {
    args["src"] = hex_text(r.src);
    args["dst"] = hex_text(r.dst);
  }
  if (r.t_queued_ns >= 0 && r.t_queued_ns < r.t_start_ns)
    args["queued_ns"] = std::round((r.t_start_ns - r.t_queued_ns) * 1000) / 1000;  // to the ps
  return args;
}

// One process per PE, one thread (track) per engine. Stages of one engine
// that overlap in time (bursts in flight, messages received at once) go on
// sub-tracks "engine #2", "engine #3", ...: a stage takes the first sub-track
// whose stages have all ended by its start, so no two slices of a track
// overlap. Names each process and track (metadata events) when first used.
class Tracks {
 public:
  explicit Tracks(Emit emit) : emit_(std::move(emit)) {}
  // (pid, tid) of the record's slice.
  std::pair<int, int> place(const OpRecord& r) {
    auto [pit, pnew] = pids_.emplace(r.pe, trace_pid::kFirstPe + static_cast<int>(pids_.size()));
    if (pnew)
      emit_({{"ph", "M"},
             {"name", "process_name"},
             {"pid", pit->second},
             {"args", {{"name", r.pe}}}});
    // Records come in end-time order, so a sub-track's last end is its latest.
    std::vector<double>& ends = lane_ends_[{pit->second, r.engine}];
    size_t lane = 0;
    while (lane < ends.size() && ends[lane] > r.t_start_ns) ++lane;
    if (lane == ends.size()) ends.push_back(r.t_end_ns);
    ends[lane] = r.t_end_ns;
    auto [tit, tnew] = tids_.emplace(std::make_tuple(pit->second, r.engine, lane),
                                     static_cast<int>(tids_.size()) + 1);
    if (tnew)
      emit_({{"ph", "M"},
             {"name", "thread_name"},
             {"pid", pit->second},
             {"tid", tit->second},
             {"args",
              {{"name", lane == 0 ? r.engine : r.engine + " #" + std::to_string(lane + 1)}}}});
    return {pit->second, tit->second};
  }

 private:
  Emit emit_;
  std::map<std::string, int> pids_;
  std::map<std::pair<int, std::string>, std::vector<double>> lane_ends_;  // per engine
  std::map<std::tuple<int, std::string, size_t>, int> tids_;
};

// Flow arrows (flow events v1: an "s" and an "f" sharing an id, each at the
// start of the slice it binds to, written after that slice). "tile": from a
// tile's stage to its next one (same PE, command and tile; a stage that
// starts before the previous one ended runs beside it and gets none). "msg":
// from a doorbell (the sender's ipcq.msg slice) to the first stage of the
// receiver's chunk it announced (the chunk's one record that carries the
// message id).
class Flows {
 public:
  struct Slice {
    int pid, tid;
    int64_t start_ps, end_ps;
  };
  explicit Flows(Emit emit) : emit_(std::move(emit)) {}
  void add(const OpRecord& r, const Slice& here) {
    if (!r.tile.empty()) {
      auto [it, fresh] = tile_tail_.try_emplace(std::make_tuple(here.pid, r.cmd_id, r.tile), here);
      if (!fresh) {
        if (it->second.end_ps <= here.start_ps) flow("tile", it->second, here);
        it->second = here;  // records come by end time: this one ends last
      }
    }
    if (r.msg != 0) {  // the doorbell ends on delivery, maybe after its chunk's first stage
      const bool is_doorbell = r.engine == "ipcq.msg";
      auto [d, fresh] = doorbells_.try_emplace(r.msg, std::make_pair(is_doorbell, here));
      if (!fresh && d->second.first != is_doorbell) {
        flow("msg", is_doorbell ? here : d->second.second, is_doorbell ? d->second.second : here);
        doorbells_.erase(d);
      }
    }
  }

 private:
  void flow(const char* name, const Slice& from, const Slice& to) {
    ++flows_;
    for (const Slice* sl : {&from, &to}) {
      nlohmann::json e{{"ph", sl == &from ? "s" : "f"},
                       {"id", flows_},
                       {"name", name},
                       {"cat", "flow"},
                       {"pid", sl->pid},
                       {"tid", sl->tid},
                       {"ts", static_cast<double>(sl->start_ps) / 1e6}};
      if (sl == &to) e["bp"] = "e";
      emit_(e);
    }
  }
  Emit emit_;
  std::map<std::tuple<int, uint64_t, std::string>, Slice> tile_tail_;
  // By message id: the doorbell or the chunk's first stage, whichever came
  // first (is it the doorbell?), until the other comes.
  std::map<uint64_t, std::pair<bool, Slice>> doorbells_;
  uint64_t flows_ = 0;
};

}  // namespace

void for_each_trace_piece(const OpLog& log, const std::function<void(const std::string&)>& f,
                          const std::vector<std::string>& extra_events,
                          const std::function<bool(const std::string&)>& keep_pe) {
  // Times in microseconds. The document is {"displayTimeUnit":"ns",
  // "traceEvents":[...]} (keys in nlohmann's sorted order), written event by
  // event: the slices (tracks and flows as above), then `extra_events`.
  bool first = true;
  auto emit = [&](const nlohmann::json& e) {
    f((first ? "" : ",") + e.dump());
    first = false;
  };
  Tracks tracks(emit);
  Flows flows(emit);
  f(R"({"displayTimeUnit":"ns","traceEvents":[)");
  log.for_each_ordered([&](const OpRecord& r) {
    if (keep_pe && !keep_pe(r.pe)) return;
    const auto [pid, tid] = tracks.place(r);
    const int64_t start_ps = std::llround(r.t_start_ns * 1000);
    const int64_t end_ps = std::llround(r.t_end_ns * 1000);
    emit({{"ph", "X"},
          {"name", r.op_kind},
          {"cat", r.stage},
          {"pid", pid},
          {"tid", tid},
          {"ts", static_cast<double>(start_ps) / 1e6},
          {"dur", static_cast<double>(end_ps - start_ps) / 1e6},
          {"args", slice_args(r)}});
    flows.add(r, {pid, tid, start_ps, end_ps});
  });
  for (const std::string& e : extra_events) {
    f((first ? "" : ",") + e);
    first = false;
  }
  f("]}\n");
}

std::string chrome_trace(const OpLog& log) {
  std::string out;
  for_each_trace_piece(log, [&](const std::string& piece) { out += piece; });
  return out;
}

namespace {

// The width of the link-utilisation bins: 1, 2 or 5 times a power of ten
// picoseconds, the least that cuts the run into at most 200 bins (at least 1 ns).
int64_t utilisation_bin_ps(int64_t end_ps) {
  for (int64_t decade = 1000;; decade *= 10)
    for (const int64_t m : {1, 2, 5})
      if (m * decade * 200 >= end_ps) return m * decade;
}

// Each service queue's depth over time as a counter track ("<queue> depth"),
// and each link direction's utilisation as "<wire> busy" (percent of each
// bin), the queues grouped in one process per cube (or other module under a
// SIP).
std::vector<std::string> queue_counter_events(const Platform& platform) {
  std::vector<std::string> out;
  const int64_t end_ps = std::llround(platform.now_ns() * 1000);
  const int64_t bin_ps = utilisation_bin_ps(end_ps);
  std::map<std::string, int> pids;
  for (const Platform::QueueTrack& q : platform.queue_depth_tracks()) {
    size_t cut = 0;
    for (int dots = 0; dots < 3 && cut != std::string::npos; ++dots)
      cut = q.queue.find('.', cut + 1);
    const std::string group = cut == std::string::npos ? q.queue : q.queue.substr(0, cut);
    const std::string counter = cut == std::string::npos ? q.queue : q.queue.substr(cut + 1);
    auto [it, fresh] =
        pids.emplace(group, trace_pid::kFirstQueueGroup + static_cast<int>(pids.size()));
    if (fresh)
      out.push_back(nlohmann::json{{"ph", "M"},
                                   {"name", "process_name"},
                                   {"pid", it->second},
                                   {"args", {{"name", group + " queues"}}}}
                        .dump());
    for (const auto& [ps, depth] : q.track->samples)
      out.push_back(nlohmann::json{{"ph", "C"},
                                   {"name", counter},
                                   {"pid", it->second},
                                   {"ts", static_cast<double>(ps) / 1e6},
                                   {"args", {{"depth", depth}}}}
                        .dump());
    // A link direction's utilisation: its wire's busy share of each bin.
    if (q.queue.size() >= 5 && q.queue.compare(q.queue.size() - 5, 5, ".wire") == 0)
      for (const auto& [ps, share] : q.track->busy_share(end_ps, bin_ps))
        out.push_back(nlohmann::json{{"ph", "C"},
                                     {"name", counter + " busy"},
                                     {"pid", it->second},
                                     {"ts", static_cast<double>(ps) / 1e6},
                                     {"args", {{"percent", std::round(share * 1e4) / 100}}}}
                          .dump());
  }
  return out;
}

// An instant marker (global) at the start of each run window, named after it.
std::vector<std::string> run_marker_events(const Platform& platform) {
  std::vector<std::string> out;
  unsigned n = 0;
  for (const Platform::RunWindow& w : platform.runs())
    out.push_back(nlohmann::json{{"ph", "i"},
                                 {"s", "g"},
                                 {"name", w.label},
                                 {"cat", "run"},
                                 {"ts", trace_us(w.start_ns)},
                                 {"args", {{"run", ++n}, {"end_ns", w.end_ns}}}}
                      .dump());
  return out;
}

// Each cube's power over time as a Perfetto counter track (one process per
// cube, after the PEs'): its static power plus the dynamic energy of each bin
// over the bin's width, a sample where the value changes, and the static
// level at the end of the run.
std::vector<std::string> power_counter_events(Platform& platform,
                                              const std::vector<std::string>& scopes) {
  std::vector<std::string> out;
  int pid = trace_pid::kFirstPowerTrack - 1;
  const double end_ns = platform.now_ns();
  for (const Platform::PowerTrack& t : platform.power_tracks()) {
    ++pid;
    if (!scopes.empty() && !in_vcd_scope(t.cube, scopes)) continue;
    out.push_back(nlohmann::json{{"ph", "M"},
                                 {"name", "process_name"},
                                 {"pid", pid},
                                 {"args", {{"name", t.cube + " power"}}}}
                      .dump());
    double last = -1;
    auto sample = [&](double ts_ns, double mw) {
      if (mw == last) return;
      last = mw;
      out.push_back(nlohmann::json{{"ph", "C"},
                                   {"name", "power_mw"},
                                   {"pid", pid},
                                   {"ts", trace_us(ts_ns)},
                                   {"args", {{"mW", std::round(mw * 1e6) / 1e6}}}}  // to the nW
                        .dump());
    };
    for (size_t i = 0; i < t.bins_pj.size(); ++i)
      sample(static_cast<double>(i) * t.bin_ns, t.static_mw + t.bins_pj[i] / t.bin_ns);
    sample(std::max(end_ns, static_cast<double>(t.bins_pj.size()) * t.bin_ns), t.static_mw);
  }
  return out;
}

}  // namespace

void write_trace(Platform& platform, const std::vector<std::string>& scopes,
                 const std::function<void(const std::string&)>& out) {
  std::vector<std::string> extra = power_counter_events(platform, scopes);
  for (std::string& e : queue_counter_events(platform)) extra.push_back(std::move(e));
  for (std::string& e : run_marker_events(platform)) extra.push_back(std::move(e));
  for_each_trace_piece(platform.op_log(), out, extra, [&](const std::string& pe) {
    return scopes.empty() || in_vcd_scope(pe, scopes);
  });
}

}  // namespace kb
