#include "models/trace/op_log.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace kb {

namespace {

nlohmann::json record_json(const OpRecord& r) {
  nlohmann::json j;
  j["t_start_ns"] = r.t_start_ns;
  j["t_end_ns"] = r.t_end_ns;
  j["pe"] = r.pe;
  j["engine"] = r.engine;
  j["stage"] = r.stage;
  j["op_kind"] = r.op_kind;
  j["cmd_id"] = r.cmd_id;
  j["tile"] = r.tile;
  j["bytes"] = r.bytes;
  j["addr"] = r.addr;
  if (r.t_queued_ns >= 0 && r.t_queued_ns < r.t_start_ns) j["t_queued_ns"] = r.t_queued_ns;
  if (r.src != 0 || r.dst != 0) {
    j["src"] = r.src;
    j["dst"] = r.dst;
  }
  if (!r.peer.empty()) j["peer"] = r.peer;
  return j;
}

auto canonical_key(const OpRecord& r) {
  return std::tie(r.t_end_ns, r.pe, r.engine, r.cmd_id, r.tile, r.t_start_ns, r.stage, r.op_kind,
                  r.addr, r.bytes, r.t_queued_ns, r.src, r.dst, r.peer, r.msg);
}

bool canonical_less(const OpRecord* a, const OpRecord* b) {
  return canonical_key(*a) < canonical_key(*b);
}

std::vector<const OpRecord*> sorted_pointers(const std::vector<OpRecord>& records) {
  std::vector<const OpRecord*> out;
  out.reserve(records.size());
  for (const auto& r : records) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), canonical_less);  // ties keep insertion order
  return out;
}

// The spill file's record format: fixed-size fields as raw bytes, strings as
// a 32-bit length and the bytes (one machine writes and reads it).
template <typename T>
void put(std::string& b, const T& v) {
  b.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_string(std::string& b, const std::string& s) {
  put(b, static_cast<uint32_t>(s.size()));
  b += s;
}

void encode(std::string& b, const OpRecord& r) {
  put(b, r.t_start_ns);
  put(b, r.t_end_ns);
  put_string(b, r.pe);
  put_string(b, r.engine);
  put_string(b, r.stage);
  put_string(b, r.op_kind);
  put(b, r.cmd_id);
  put_string(b, r.tile);
  put(b, r.bytes);
  put(b, r.addr);
  put(b, r.t_queued_ns);
  put(b, r.src);
  put(b, r.dst);
  put_string(b, r.peer);
  put(b, r.msg);
}

template <typename T>
void get(std::istream& in, T& v) {
  in.read(reinterpret_cast<char*>(&v), sizeof v);
}

void get_string(std::istream& in, std::string& s) {
  uint32_t n = 0;
  get(in, n);
  s.resize(n);
  in.read(s.data(), n);
}

bool decode(std::istream& in, OpRecord& r) {
  get(in, r.t_start_ns);
  get(in, r.t_end_ns);
  get_string(in, r.pe);
  get_string(in, r.engine);
  get_string(in, r.stage);
  get_string(in, r.op_kind);
  get(in, r.cmd_id);
  get_string(in, r.tile);
  get(in, r.bytes);
  get(in, r.addr);
  get(in, r.t_queued_ns);
  get(in, r.src);
  get(in, r.dst);
  get_string(in, r.peer);
  get(in, r.msg);
  return static_cast<bool>(in);
}

// One sorted run of the spill file, read one record at a time.
struct RunReader {
  std::ifstream in;
  size_t left = 0;
  OpRecord current;
  bool next() {
    if (left == 0) return false;
    --left;
    if (!decode(in, current)) throw std::runtime_error("op log spill file is truncated");
    return true;
  }
};

}  // namespace

void OpLog::add(OpRecord r) {
  records_.push_back(std::move(r));
  if (chunk_ != 0 && records_.size() >= chunk_) spill_chunk();
}

const std::vector<OpRecord>& OpLog::records() const {
  if (spilled())
    throw std::logic_error("op log records were spilled to " + spill_path_ +
                           "; read them with for_each_ordered()");
  return records_;
}

void OpLog::clear() {
  records_.clear();
  spilled_records_ = 0;
  runs_.clear();
  if (!spill_path_.empty()) std::ofstream(spill_path_, std::ios::binary | std::ios::trunc);
}

void OpLog::spill_to(const std::string& path, size_t chunk) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write the op log spill file '" + path + "'");
  spill_path_ = path;
  chunk_ = std::max<size_t>(chunk, 1);
  if (records_.size() >= chunk_) spill_chunk();
}

void OpLog::spill_chunk() {
  std::string bytes;
  for (const OpRecord* r : sorted_pointers(records_)) encode(bytes, *r);
  std::ofstream out(spill_path_, std::ios::binary | std::ios::app);
  const auto offset = static_cast<uint64_t>(out.tellp());
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  if (!out)
    throw std::runtime_error("cannot write the op log spill file '" + spill_path_ +
                             "': " + std::strerror(errno));
  runs_.emplace_back(offset, records_.size());
  spilled_records_ += records_.size();
  records_.clear();
  records_.shrink_to_fit();
}

std::vector<const OpRecord*> OpLog::ordered() const {
  return sorted_pointers(records());
}

void OpLog::for_each_ordered(const std::function<void(const OpRecord&)>& f) const {
  const std::vector<const OpRecord*> memory = sorted_pointers(records_);
  if (runs_.empty()) {
    for (const OpRecord* r : memory) f(*r);
    return;
  }
  // K-way merge: the spilled runs in order, then memory (the newest records);
  // equal keys go to the earlier source, as a stable sort of everything would.
  std::vector<std::unique_ptr<RunReader>> runs;
  for (const auto& [offset, n] : runs_) {
    auto rr = std::make_unique<RunReader>();
    rr->in.open(spill_path_, std::ios::binary);
    rr->in.seekg(static_cast<std::streamoff>(offset));
    rr->left = n;
    if (!rr->in)
      throw std::runtime_error("cannot read the op log spill file '" + spill_path_ + "'");
    runs.push_back(std::move(rr));
  }
  size_t mem_at = 0;
  const size_t mem_source = runs.size();
  auto head = [&](size_t s) -> const OpRecord* {
    return s == mem_source ? memory[mem_at] : &runs[s]->current;
  };
  auto later = [&](size_t a, size_t b) {  // the heap's order: b comes out first
    const OpRecord *ra = head(a), *rb = head(b);
    if (canonical_less(rb, ra)) return true;
    if (canonical_less(ra, rb)) return false;
    return a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t s = 0; s < runs.size(); ++s)
    if (runs[s]->next()) heap.push(s);
  if (!memory.empty()) heap.push(mem_source);
  while (!heap.empty()) {
    const size_t s = heap.top();
    heap.pop();
    f(*head(s));
    if (s == mem_source ? ++mem_at < memory.size() : runs[s]->next()) heap.push(s);
  }
}

void OpLog::for_each_jsonl_line(const std::function<void(const std::string&)>& f) const {
  for_each_ordered([&](const OpRecord& r) { f(record_json(r).dump() + "\n"); });
}

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
    auto [pit, pnew] = pids_.emplace(r.pe, static_cast<int>(pids_.size()) + 1);
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

void OpLog::for_each_trace_piece(const std::function<void(const std::string&)>& f,
                                 const std::vector<std::string>& extra_events,
                                 const std::function<bool(const std::string&)>& keep_pe) const {
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
  for_each_ordered([&](const OpRecord& r) {
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

std::string OpLog::to_jsonl() const {
  std::string out;
  for_each_jsonl_line([&](const std::string& line) { out += line; });
  return out;
}

std::string OpLog::to_chrome_trace() const {
  std::string out;
  for_each_trace_piece([&](const std::string& piece) { out += piece; });
  return out;
}

uint64_t OpLog::hash() const {
  uint64_t h = 1469598103934665603ull;
  for_each_jsonl_line([&](const std::string& line) {
    for (unsigned char c : line) {
      h ^= c;
      h *= 1099511628211ull;
    }
  });
  return h;
}

}  // namespace kb
