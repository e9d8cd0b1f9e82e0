#include "platform/bench/bench.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "models/common/errors.h"
#include "platform/platform.h"
#include "platform/util/size_text.h"
#include "platform/util/spelling.h"

namespace kb {

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
}  // namespace

BenchParams::BenchParams(const std::string& bench, const std::vector<ParamSpec>& specs,
                         const std::vector<std::string>& overrides)
    : bench_(bench) {
  std::vector<std::string> names;
  for (const auto& s : specs) {
    values_[s.name] = s.default_value;
    names.push_back(s.name);
  }
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--param '" + o + "': expected KEY=VALUE");
    const std::string key = o.substr(0, eq);
    // A parameter is one line: a newline or another control character would
    // break the tables, the CSV and the JSON's readers.
    if (std::any_of(o.begin(), o.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      throw UsageError("--param '" + o +
                       "': holds a newline or another control character (a parameter is one "
                       "line)");
    // Given twice is ambiguous (which one did the user mean?), not "last wins".
    if (!given_.insert(key).second)
      throw UsageError("--param " + key + " is given twice ('" + o + "'); give it once");
    if (!values_.count(key)) {
      std::string msg = "--param '" + o + "': bench '" + bench + "' has no parameter '" + key + "'";
      const std::string near = nearest_spelling(key, names);
      if (!near.empty()) msg += "; did you mean '" + near + "'?";
      msg += names.empty() ? " (it takes no parameters)" : " (valid: " + join(names) + ")";
      throw UsageError(msg);
    }
    values_[key] = o.substr(eq + 1);
  }
}

const std::string& BenchParams::str(const std::string& key) const {
  return values_.at(key);
}

namespace {

// Decimal, or hex with 0x, or a size with a binary unit (96KiB, 2MiB), as a
// whole; negative decimals are allowed (a bench says whether it takes them).
// UsageError naming --param key otherwise.
long long parse_integer(const std::string& key, const std::string& v) {
  const bool negative = !v.empty() && v[0] == '-';
  const auto magnitude = parse_size_text(negative ? v.substr(1) : v);
  const uint64_t limit = static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0);
  if (!magnitude || (negative && v.size() > 2 && v[1] == '0' && (v[2] == 'x' || v[2] == 'X')))
    throw UsageError("--param " + key + "=" + v +
                     ": expected an integer up to 2^63 - 1 (decimal, 0x hex, or a size such as "
                     "96KiB or 2MiB)");
  if (*magnitude > limit)
    throw UsageError("--param " + key + "=" + v + ": out of range, expected up to 2^63 - 1");
  return negative ? static_cast<long long>(0 - *magnitude) : static_cast<long long>(*magnitude);
}

}  // namespace

long long BenchParams::integer(const std::string& key) const {
  return parse_integer(key, str(key));
}

long long BenchParams::integer_within(const std::string& key, long long max) const {
  const long long v = integer(key);
  if (v > max || v < -max)
    throw UsageError("--param " + key + "=" + str(key) + ": out of range, at most " +
                     std::to_string(max));
  return v;
}

std::vector<long long> BenchParams::integers(const std::string& key) const {
  std::vector<long long> out;
  for (const std::string& item : list(key)) out.push_back(parse_integer(key, item));
  return out;
}

std::vector<std::string> BenchParams::list(const std::string& key) const {
  std::vector<std::string> out;
  const std::string& text = str(key);
  if (text.empty()) return out;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    if (item.empty())
      throw UsageError("--param " + key + "=" + text + ": an empty item in the list");
    out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

double BenchParams::number(const std::string& key) const {
  const std::string& v = str(key);
  size_t pos = 0;
  double x = 0;
  try {
    x = std::stod(v, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos != v.size() || v.empty())
    throw UsageError("--param " + key + "=" + v + ": expected a number");
  return x;
}

nlohmann::json BenchParams::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : values_) j[k] = v;
  return j;
}

std::string SummaryTable::render() const {
  std::vector<size_t> w(headers.size());
  for (size_t i = 0; i < headers.size(); ++i) w[i] = headers[i].size();
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::ostringstream os;
  if (!title.empty()) os << title << "\n";
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < w.size(); ++i) {
      const std::string c = i < cells.size() ? cells[i] : "";
      os << "  " << std::string(i == 0 ? 0 : w[i] - c.size(), ' ') << c
         << std::string(i == 0 ? w[i] - c.size() : 0, ' ');
    }
    os << "\n";
  };
  line(headers);
  size_t total = 0;
  for (size_t x : w) total += x + 2;
  os << "  " << std::string(total - 2, '-') << "\n";
  for (const auto& r : rows) line(r);
  return os.str();
}

void BenchRegistry::add(std::unique_ptr<Bench> bench) {
  benches_.push_back(std::move(bench));
}

Bench& BenchRegistry::find(const std::string& name) const {
  std::vector<std::string> names;
  for (const auto& b : benches_) {
    if (b->name() == name) return *b;
    names.push_back(b->name());
  }
  std::string msg = "unknown bench '" + name + "'";
  const std::string near = nearest_spelling(name, names);
  if (!near.empty()) msg += "; did you mean '" + near + "'?";
  msg += " (see --list-benches)";
  throw UsageError(msg);
}

std::vector<const Bench*> BenchRegistry::all() const {
  std::vector<const Bench*> v;
  for (const auto& b : benches_) v.push_back(b.get());
  return v;
}

std::vector<std::string> with_fields(std::vector<std::string> fields,
                                     const std::vector<std::string>& more) {
  for (const std::string& f : more)
    if (std::find(fields.begin(), fields.end(), f) == fields.end()) fields.push_back(f);
  return fields;
}

std::string fmt(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

namespace {

// Adds the counters of one run window's stats delta into `sum` (by module).
void add_stats(nlohmann::json& sum, const nlohmann::json& delta) {
  for (auto it = delta.begin(); it != delta.end(); ++it) {
    nlohmann::json& to = sum[it.key()];
    if (it->is_object())
      add_stats(to, *it);
    else if (it->is_number_unsigned())
      to = (to.is_number() ? to.get<uint64_t>() : 0) + it->get<uint64_t>();
    else if (it->is_number())
      to = (to.is_number() ? to.get<double>() : 0.0) + it->get<double>();
  }
}

}  // namespace

PointWindows::PointWindows(const Platform& platform)
    : platform_(platform), first_(platform.runs().size()) {}

void PointWindows::stamp(nlohmann::json& point) {
  const auto& runs = platform_.runs();
  const size_t first = first_;
  first_ = runs.size();
  if (first >= runs.size()) return;
  nlohmann::json ids = nlohmann::json::object(), stats = nlohmann::json::object();
  for (size_t r = first; r < runs.size(); ++r) {
    add_stats(stats, runs[r].stats);
    for (const auto& [pe, range] : runs[r].cmd_ids.items()) {
      if (!ids.contains(pe))
        ids[pe] = range;
      else
        ids[pe][1] = range[1];
    }
  }
  point[kField] = {{"runs", {first + 1, runs.size()}},
                   {"start_ns", runs[first].start_ns},
                   {"end_ns", runs.back().end_ns},
                   {"cmd_ids", ids},
                   {"stats", stats}};
}

}  // namespace kb
