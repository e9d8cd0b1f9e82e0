#include "models/trace/op_log.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
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
  return j;
}
}  // namespace

std::vector<const OpRecord*> OpLog::ordered() const {
  std::vector<const OpRecord*> out;
  out.reserve(records_.size());
  for (const auto& r : records_) out.push_back(&r);
  auto key = [](const OpRecord* r) {
    return std::tie(r->t_end_ns, r->pe, r->engine, r->cmd_id, r->tile, r->t_start_ns, r->stage,
                    r->op_kind, r->addr, r->bytes);
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const OpRecord* a, const OpRecord* b) { return key(a) < key(b); });
  return out;
}

std::string OpLog::to_jsonl() const {
  std::string out;
  for (const OpRecord* r : ordered()) out += record_json(*r).dump() + "\n";
  return out;
}

std::string OpLog::to_chrome_trace() const {
  // One process per PE, one thread (track) per engine; times in microseconds.
  std::map<std::string, int> pids;
  std::map<std::pair<int, std::string>, int> tids;
  nlohmann::json events = nlohmann::json::array();
  for (const OpRecord* rp : ordered()) {
    const OpRecord& r = *rp;
    auto [pit, pnew] = pids.emplace(r.pe, static_cast<int>(pids.size()) + 1);
    if (pnew)
      events.push_back({{"ph", "M"},
                        {"name", "process_name"},
                        {"pid", pit->second},
                        {"args", {{"name", r.pe}}}});
    auto [tit, tnew] =
        tids.emplace(std::make_pair(pit->second, r.engine), static_cast<int>(tids.size()) + 1);
    if (tnew)
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", pit->second},
                        {"tid", tit->second},
                        {"args", {{"name", r.engine}}}});
    events.push_back({{"ph", "X"},
                      {"name", r.op_kind},
                      {"cat", r.stage},
                      {"pid", pit->second},
                      {"tid", tit->second},
                      {"ts", r.t_start_ns / 1000.0},
                      {"dur", (r.t_end_ns - r.t_start_ns) / 1000.0},
                      {"args", {{"cmd_id", r.cmd_id}, {"tile", r.tile}, {"bytes", r.bytes}}}});
  }
  nlohmann::json doc;
  doc["traceEvents"] = events;
  doc["displayTimeUnit"] = "ns";
  return doc.dump() + "\n";
}

uint64_t OpLog::hash() const {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : to_jsonl()) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace kb
