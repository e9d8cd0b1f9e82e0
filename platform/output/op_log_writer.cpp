#include "platform/output/op_log_writer.h"

#include <nlohmann/json.hpp>

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

}  // namespace

void for_each_op_log_line(const OpLog& log, const std::function<void(const std::string&)>& f) {
  log.for_each_ordered([&](const OpRecord& r) { f(record_json(r).dump() + "\n"); });
}

std::string op_log_jsonl(const OpLog& log) {
  std::string out;
  for_each_op_log_line(log, [&](const std::string& line) { out += line; });
  return out;
}

uint64_t op_log_hash(const OpLog& log) {
  uint64_t h = 1469598103934665603ull;
  for_each_op_log_line(log, [&](const std::string& line) {
    for (unsigned char c : line) {
      h ^= c;
      h *= 1099511628211ull;
    }
  });
  return h;
}

}  // namespace kb
