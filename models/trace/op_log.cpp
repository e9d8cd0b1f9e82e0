#include "models/trace/op_log.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace kb {

namespace {

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

}  // namespace kb
