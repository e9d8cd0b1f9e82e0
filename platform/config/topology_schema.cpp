#include "platform/config/topology_schema.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "platform/config/knob_visitors.h"
#include "platform/util/spelling.h"

namespace kb {

namespace {

constexpr uint64_t kUnsignedMax = std::numeric_limits<unsigned>::max();

// ---------------------------------------------------------------------------
// Value parsing helpers.

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// Decimal digits -> uint64; false on overflow.
bool to_u64(const std::string& digits, uint64_t* out) {
  uint64_t v = 0;
  for (char c : digits) {
    const auto d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

// The smallest value the knob's bound allows, for "must be >= N" messages.
const char* lower_bound_text(Bound b) {
  switch (b) {
    case Bound::kPositive:
    case Bound::kAtLeastOne:
    case Bound::kPowerOfTwo:
      return ">= 1";
    default:
      return ">= 0";
  }
}

std::string format_max(const Knob& knob) {
  std::string s = knob.type == KnobType::kSize ? format_size(knob.max) : std::to_string(knob.max);
  if (!knob.max_note.empty()) s += " (" + knob.max_note + ")";
  return s;
}

bool parse_uint(const Knob& knob, const std::string& text, uint64_t* out, std::string* error) {
  if (text.size() > 1 && text[0] == '-' && all_digits(text.substr(1))) {
    *error = std::string("must be ") + lower_bound_text(knob.bound) + ", got " + text;
    return false;
  }
  const std::string digits = (!text.empty() && text[0] == '+') ? text.substr(1) : text;
  if (!all_digits(digits)) {
    *error = "expected a non-negative integer, got " + quoted(text);
    return false;
  }
  if (!to_u64(digits, out) || *out > kUnsignedMax) {
    // The knob's own limit when it has one: that is the one that matters.
    *error = "must be <= " + (knob.max != 0 ? format_max(knob) : std::to_string(kUnsignedMax)) +
             ", got " + text;
    return false;
  }
  return true;
}

bool parse_size(const Knob& knob, const std::string& text, uint64_t* out, std::string* error) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  const std::string number = text.substr(0, i);
  const std::string unit = trim(text.substr(i));
  const std::string expected =
      "expected a size: an integer number of bytes, optionally with a binary unit (B, KiB, "
      "MiB, GiB, TiB) as in 32KiB or \"1 MiB\"; got " +
      quoted(text);
  if (number.empty()) {
    *error = (!text.empty() && text[0] == '-')
                 ? std::string("must be ") + lower_bound_text(knob.bound) + ", got " + text
                 : expected;
    return false;
  }
  static const std::vector<std::pair<std::string, int>> kBinary = {
      {"", 0}, {"b", 0}, {"kib", 10}, {"mib", 20}, {"gib", 30}, {"tib", 40}};
  static const std::vector<std::pair<std::string, std::string>> kDecimal = {
      {"k", "KiB"}, {"kb", "KiB"}, {"m", "MiB"},  {"mb", "MiB"}, {"g", "GiB"},  {"gb", "GiB"},
      {"t", "TiB"}, {"tb", "TiB"}, {"ki", "KiB"}, {"mi", "MiB"}, {"gi", "GiB"}, {"ti", "TiB"}};
  const std::string u = lower(unit);
  for (const auto& d : kDecimal) {
    if (u == d.first) {
      *error = "sizes are binary: write " + number + d.second + " instead of " + text +
               " (units B, KiB, MiB, GiB, TiB)";
      return false;
    }
  }
  for (const auto& bu : kBinary) {
    if (u != bu.first) continue;
    uint64_t n = 0;
    if (!to_u64(number, &n) || (bu.second > 0 && n > (~uint64_t{0} >> bu.second))) {
      *error = "size too large, got " + text;
      return false;
    }
    *out = n << bu.second;
    return true;
  }
  *error = expected;
  return false;
}

// A number of a range for messages: "0.001", "100", "1e9".
std::string knob_range_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  std::string s = buf;
  const size_t e = s.find('e');
  if (e != std::string::npos) {
    size_t digits = e + 1;
    const bool minus = digits < s.size() && s[digits] == '-';
    if (digits < s.size() && (s[digits] == '+' || minus)) ++digits;
    while (digits + 1 < s.size() && s[digits] == '0') ++digits;
    s = s.substr(0, e + 1) + (minus ? "-" : "") + s.substr(digits);
  }
  return s;
}

// "out of range [lo, hi] (why), got TEXT": a real knob's range, or a double's
// for a knob without one.
std::string knob_out_of_range(const Knob& knob, const std::string& text) {
  if (!knob.has_range())
    return "out of range (a real number here is at most 1.8e308 in magnitude), got " + text;
  return "out of range [" + knob_range_number(knob.lo) + ", " + knob_range_number(knob.hi) + "]" +
         (knob.range_note.empty() ? "" : " (" + knob.range_note + ")") + ", got " + text;
}

// A real number; false with `error` set when `text` is not one, or with
// `*too_large` set instead when it is one past a double's range. A number
// too small for a double reads as the nearest one (0 or subnormal): the
// knob's range judges it.
bool parse_double(const std::string& text, double* out, std::string* error, bool* too_large) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  *too_large = false;
  if (text.empty() || end != begin + text.size() ||
      std::isspace(static_cast<unsigned char>(text[0]))) {
    *error = "expected a number, got " + quoted(text);
    return false;
  }
  if (std::isinf(v) && errno == ERANGE) {
    *too_large = true;
    return false;
  }
  if (!std::isfinite(v)) {  // "inf", "nan"
    *error = "expected a finite number, got " + quoted(text);
    return false;
  }
  *out = v;
  return true;
}

bool is_power_of_two(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

// The bound and maximum of a uint or size knob, for a parsed value `v`.
bool check_integral_bound(const Knob& knob, uint64_t v, const std::string& text,
                          std::string* error) {
  if ((knob.bound == Bound::kPositive || knob.bound == Bound::kAtLeastOne) && v < 1) {
    *error = "must be >= 1, got " + text;
    return false;
  }
  if (v < knob.min) {
    *error = "must be >= " +
             (knob.type == KnobType::kSize ? format_size(knob.min) : std::to_string(knob.min)) +
             (knob.min_note.empty() ? "" : " (" + knob.min_note + ")") + ", got " + text;
    return false;
  }
  if (knob.bound == Bound::kPowerOfTwo && !is_power_of_two(v)) {
    *error = "must be a power of two, got " + text;
    return false;
  }
  if (knob.max != 0 && v > knob.max) {
    *error = "must be <= " + format_max(knob) + ", got " + text;
    return false;
  }
  return true;
}

// The bound of a double knob: "> 0", ">= 0", ">= 1" or "".
const char* double_bound_text(Bound b) {
  switch (b) {
    case Bound::kPositive:
      return "> 0";
    case Bound::kNonNegative:
      return ">= 0";
    case Bound::kAtLeastOne:
      return ">= 1";
    default:
      return "";
  }
}

// The bound and the range of a double knob, for a parsed value `v`.
bool check_double_bound(const Knob& knob, double v, const std::string& text, std::string* error) {
  const bool ok = knob.bound == Bound::kPositive      ? v > 0
                  : knob.bound == Bound::kNonNegative ? v >= 0
                  : knob.bound == Bound::kAtLeastOne  ? v >= 1
                                                      : true;
  if (!ok) {
    *error = std::string("must be ") + double_bound_text(knob.bound) + ", got " + text;
    return false;
  }
  if (knob.has_range() && (v < knob.lo || v > knob.hi)) {
    *error = knob_out_of_range(knob, text);
    return false;
  }
  return true;
}

bool knob_path_ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// A real knob without a range of its own takes its unit's. Simulated time is
// 64 bits of picoseconds: a latency above a second, or a bandwidth under
// 1 MB/s, would make one event take years or overflow; neither is a hardware
// parameter.
void give_unit_range(Knob& k) {
  if (k.type != KnobType::kDouble || k.has_range()) return;
  if (knob_path_ends_with(k.path, "_ns")) {
    k.lo = 0;
    k.hi = 1e9;
    k.range_note = "ns: at most a second per event";
  } else if (knob_path_ends_with(k.path, "_gbps")) {
    k.lo = 1e-3;
    k.hi = 1e6;
    k.range_note = "GB/s: 1 MB/s to 1 PB/s";
  }
}

}  // namespace

// ---------------------------------------------------------------------------

const char* to_string(KnobType t) {
  switch (t) {
    case KnobType::kUint:
      return "uint";
    case KnobType::kSize:
      return "size";
    case KnobType::kDouble:
      return "double";
    case KnobType::kBool:
      return "bool";
    case KnobType::kEnum:
      return "enum";
    case KnobType::kString:
      return "string";
  }
  return "?";
}

std::string Knob::leaf() const {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

std::string Knob::section() const {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string format_size(uint64_t bytes) {
  static const char* kUnits[] = {"TiB", "GiB", "MiB", "KiB"};
  static const int kShifts[] = {40, 30, 20, 10};
  for (int i = 0; i < 4; ++i) {
    const uint64_t unit = uint64_t{1} << kShifts[i];
    if (bytes != 0 && bytes % unit == 0) return std::to_string(bytes / unit) + kUnits[i];
  }
  return std::to_string(bytes) + "B";
}

TopologySchema::TopologySchema(std::vector<Knob> knobs) : knobs_(std::move(knobs)) {
  children_[""];  // the root always exists
  for (Knob& k : knobs_) give_unit_range(k);
  for (size_t i = 0; i < knobs_.size(); ++i) {
    const Knob& k = knobs_[i];
    if (!knob_index_.emplace(k.path, i).second) {
      throw std::logic_error("topology schema: duplicate knob '" + k.path + "'");
    }
    // Register the knob's leaf and every enclosing section with its parent.
    std::string child = k.path;
    while (true) {
      const size_t dot = child.rfind('.');
      const std::string parent = dot == std::string::npos ? "" : child.substr(0, dot);
      const std::string key = dot == std::string::npos ? child : child.substr(dot + 1);
      std::vector<std::string>& keys = children_[parent];
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
      if (parent.empty()) break;
      child = parent;
    }
  }
  for (const Knob& k : knobs_) {
    if (children_.count(k.path)) {
      throw std::logic_error("topology schema: '" + k.path + "' is both a knob and a section");
    }
    KnobValue v;
    std::string error;
    if (!parse_value(k, k.default_text, &v, &error)) {
      throw std::logic_error("topology schema: default of '" + k.path + "': " + error);
    }
  }
}

const Knob* TopologySchema::find_knob(const std::string& path) const {
  const auto it = knob_index_.find(path);
  return it == knob_index_.end() ? nullptr : &knobs_[it->second];
}

bool TopologySchema::is_section(const std::string& path) const {
  return children_.count(path) != 0;
}

const std::vector<std::string>& TopologySchema::children(const std::string& section) const {
  static const std::vector<std::string> kNone;
  const auto it = children_.find(section);
  return it == children_.end() ? kNone : it->second;
}

namespace {

// Whether `name` is `word` followed by a unit suffix: "_bytes", "_ns", ...
bool is_unit_suffixed(const std::string& word, const std::string& name) {
  static const char* const kUnits[] = {"bytes", "ns", "mw", "gbps", "ghz", "cycles", "tflops"};
  const std::string w = lower(word) + "_", n = lower(name);
  if (n.size() <= w.size() || n.compare(0, w.size(), w) != 0) return false;
  const std::string unit = n.substr(w.size());
  return std::find(std::begin(kUnits), std::end(kUnits), unit) != std::end(kUnits);
}

}  // namespace

std::string TopologySchema::suggest_child(const std::string& section,
                                          const std::string& key) const {
  // The knob's name without its unit suffix ("size" for "size_bytes").
  for (const std::string& c : children(section))
    if (!is_section(section.empty() ? c : section + "." + c) && is_unit_suffixed(key, c)) return c;
  std::string best;
  SpellingScore best_s;
  for (const std::string& c : children(section)) {
    const SpellingScore s = spelling_score(lower(key), lower(c));
    const size_t limit = std::max<size_t>(1, std::max(key.size(), c.size()) / 3);
    if (s.distance <= limit && s < best_s) {
      best = c;
      best_s = s;
    }
  }
  return best;
}

std::vector<std::string> TopologySchema::suggest_knob_paths(const std::string& path) const {
  std::vector<std::string> best;
  // 1. Knob paths that end with the given path ("cube_link.bandwidth_gbps").
  if (path.find('.') != std::string::npos) {
    for (const Knob& k : knobs_) {
      const std::string tail = "." + lower(path);
      const std::string kp = lower(k.path);
      if (kp.size() > tail.size() && kp.compare(kp.size() - tail.size(), tail.size(), tail) == 0) {
        best.push_back(k.path);
      }
    }
    if (!best.empty()) return best;
  }
  // 2. The path without its unit suffix ("pe.tcm.size" for "pe.tcm.size_bytes").
  for (const Knob& k : knobs_)
    if (is_unit_suffixed(path, k.path)) best.push_back(k.path);
  if (!best.empty()) return best;
  // 3. A full path within a few edits.
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const Knob& k : knobs_) {
    const size_t d = spelling_distance(lower(path), lower(k.path));
    const size_t limit = std::max<size_t>(2, std::max(path.size(), k.path.size()) / 5);
    if (d > limit || d > best_d) continue;
    if (d < best_d) best.clear();
    best_d = d;
    best.push_back(k.path);
  }
  if (!best.empty()) return best;
  // 4. Knobs whose leaf is (close to) the path's last segment.
  const size_t dot = path.rfind('.');
  const std::string leaf = lower(dot == std::string::npos ? path : path.substr(dot + 1));
  for (const Knob& k : knobs_) {
    const std::string kl = lower(k.leaf());
    const size_t d = spelling_distance(leaf, kl);
    const size_t limit = std::max<size_t>(1, std::max(leaf.size(), kl.size()) / 3);
    if (d > limit || d > best_d) continue;
    if (d < best_d) best.clear();
    best_d = d;
    best.push_back(k.path);
  }
  return best;
}

bool TopologySchema::parse_value(const Knob& knob, const std::string& raw, KnobValue* out,
                                 std::string* error) {
  const std::string text = trim(raw);
  out->text = text;
  switch (knob.type) {
    case KnobType::kString:
      out->text = raw;
      return true;

    case KnobType::kEnum:
      if (std::find(knob.allowed.begin(), knob.allowed.end(), text) != knob.allowed.end()) {
        return true;
      } else {
        std::string list;
        for (const std::string& a : knob.allowed) list += (list.empty() ? "" : ", ") + a;
        *error = "must be one of " + list + "; got " + quoted(text);
        // The nearest allowed value, when one is reasonably close.
        std::string best;
        SpellingScore best_s;
        for (const std::string& a : knob.allowed) {
          const SpellingScore s = spelling_score(lower(text), a);
          if (s.distance <= text.size() / 2 + 1 && s < best_s) best_s = s, best = a;
        }
        if (!best.empty()) *error += " (did you mean '" + best + "'?)";
        return false;
      }

    case KnobType::kBool: {
      const std::string t = lower(text);
      if (t == "true" || t == "yes" || t == "on") {
        out->b = true;
      } else if (t == "false" || t == "no" || t == "off") {
        out->b = false;
      } else {
        *error = "expected true or false, got " + quoted(text);
        return false;
      }
      return true;
    }

    case KnobType::kDouble: {
      bool too_large = false;
      if (!parse_double(text, &out->d, error, &too_large)) {
        if (too_large) *error = knob_out_of_range(knob, text);
        return false;
      }
      return check_double_bound(knob, out->d, text, error);
    }

    case KnobType::kUint:
    case KnobType::kSize:
      if (knob.type == KnobType::kUint ? !parse_uint(knob, text, &out->u, error)
                                       : !parse_size(knob, text, &out->u, error)) {
        return false;
      }
      if (!check_integral_bound(knob, out->u, text, error)) return false;
      out->d = static_cast<double>(out->u);
      return true;
  }
  *error = "unsupported knob type";
  return false;
}

std::string TopologySchema::describe_constraint(const Knob& knob) {
  const bool integral = knob.type == KnobType::kUint || knob.type == KnobType::kSize;
  if (knob.type == KnobType::kDouble && knob.has_range())
    return (knob.bound == Bound::kPositive && knob.lo <= 0 ? std::string("> 0")
                                                           : ">= " + knob_range_number(knob.lo)) +
           ", <= " + knob_range_number(knob.hi);
  std::string s;
  switch (knob.bound) {
    case Bound::kNone:
      break;
    case Bound::kNonNegative:
      if (!integral) s = ">= 0";
      break;
    case Bound::kPositive:
      s = integral ? ">= 1" : "> 0";
      break;
    case Bound::kAtLeastOne:
      s = ">= 1";
      break;
    case Bound::kPowerOfTwo:
      s = "power of two";
      break;
  }
  if (integral && knob.min != 0) {
    const std::string m =
        ">= " + (knob.type == KnobType::kSize ? format_size(knob.min) : std::to_string(knob.min));
    s = s == ">= 1" || s.empty() ? m : s + ", " + m;
  }
  if (integral && knob.max != 0) {
    const std::string m =
        "<= " + (knob.type == KnobType::kSize ? format_size(knob.max) : std::to_string(knob.max));
    s = s.empty() ? m : s + ", " + m;
  }
  if (knob.type == KnobType::kEnum) {
    std::string list;
    for (const std::string& a : knob.allowed) list += (list.empty() ? "" : "|") + a;
    s = "one of " + list;
  }
  return s;
}

namespace {
bool g_schema_built = false;
}  // namespace

bool topology_schema_built() {
  return g_schema_built;
}

const TopologySchema& topology_schema() {
  // The knobs of a default configuration: each block lists its own (visit()).
  static const TopologySchema schema(knobs_of(TopologyConfig{}));
  g_schema_built = true;
  return schema;
}

}  // namespace kb
