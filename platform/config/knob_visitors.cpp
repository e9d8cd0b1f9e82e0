#include "platform/config/knob_visitors.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <stdexcept>

namespace kb {

std::string size_text(uint64_t bytes) {
  return bytes < (uint64_t{64} << 10) ? std::to_string(bytes) : format_size(bytes);
}

std::string real_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

void KnobCollector::add(const KnobSpec& s, KnobType type, std::string default_text) {
  Knob k;
  k.path = path(s.name);
  k.type = type;
  k.default_text = std::move(default_text);
  // A description that already names its block keeps its own wording.
  const char* label = this->label();
  k.description = label && std::strncmp(s.description, label, std::strlen(label)) != 0
                      ? std::string(label) + ": " + s.description
                      : s.description;
  k.bound = s.bound;
  k.max = s.max;
  k.max_note = s.max_note;
  k.min = s.min;
  k.min_note = s.min_note;
  k.lo = s.lo;
  k.hi = s.hi;
  k.range_note = s.range_note;
  knobs_.push_back(std::move(k));
}

namespace {
std::map<std::string, std::vector<std::string>>& choices() {
  static std::map<std::string, std::vector<std::string>> c;
  return c;
}
}  // namespace

void register_choice(const std::string& knob_path, const std::string& value) {
  if (topology_schema_built())
    throw std::logic_error("'" + value + "' registered for " + knob_path +
                           " after the first topology was loaded: register engine variants "
                           "before kernbench_main / run_main loads one");
  auto& v = choices()[knob_path];
  if (std::find(v.begin(), v.end(), value) == v.end()) v.push_back(value);
}

std::vector<std::string> registered_choices(const std::string& knob_path) {
  const auto it = choices().find(knob_path);
  return it == choices().end() ? std::vector<std::string>{} : it->second;
}

std::vector<Knob> knobs_of(TopologyConfig c) {
  KnobCollector collector;
  c.visit(collector);
  return collector.take();
}

}  // namespace kb
