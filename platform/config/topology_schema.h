// The topology schema: every knob of a topology YAML file, as data.
//
// A knob is a scalar leaf of the YAML tree, named by its dotted key path
// ("sip.cube_link.bandwidth_gbps"). Each knob has a type, a default (as text,
// parsed by the same rules as a value written in a file), a one-line
// description and a constraint. Sections (the YAML mappings) are implied by
// the knob paths. The knobs are not written here: topology_schema() collects
// them from the configuration's visit() (knob_visitors.h), where each block
// lists its fields with their defaults.
//
// The schema also owns value parsing and single-field validation, so that a
// value is checked the same way whether it comes from a file, an override or
// a default. Cross-field rules live in the loader.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/common/knob_spec.h"  // Bound

namespace kb {

enum class KnobType {
  kUint,    // non-negative integer (fits `unsigned` unless the knob says otherwise)
  kSize,    // bytes: an integer, or an integer with a binary unit ("32KiB", "1 MiB")
  kDouble,  // finite real number
  kBool,    // true/false (also yes/no, on/off)
  kEnum,    // one of `allowed`
  kString,  // any scalar
};
const char* to_string(KnobType t);

struct Knob {
  std::string path;  // dotted key path
  KnobType type = KnobType::kString;
  std::string default_text;  // parsed like a value from a file
  std::string description;   // one line
  Bound bound = Bound::kNone;
  uint64_t max = 0;      // inclusive upper bound for kUint/kSize; 0 = none
  std::string max_note;  // why the upper bound exists (for messages)
  uint64_t min = 0;      // inclusive lower bound for kUint/kSize beyond `bound`
  std::string min_note;  // why the lower bound exists (for messages)
  // kDouble: the inclusive range beyond `bound` (lo > hi: none), and why. A
  // knob without one in its KnobSpec takes its unit's: ns [0, 1e9], GB/s
  // [0.001, 1e6] (simulated time is 64 bits of picoseconds).
  double lo = 1, hi = 0;
  std::string range_note;
  std::vector<std::string> allowed;  // kEnum only

  bool has_range() const { return lo <= hi; }

  std::string leaf() const;     // last path segment
  std::string section() const;  // path without the leaf ("" for a top-level knob)
};

// A parsed, single-field-validated knob value. Only the member matching the
// knob's type is meaningful (kEnum and kString use `text`).
struct KnobValue {
  uint64_t u = 0;
  double d = 0;
  bool b = false;
  std::string text;
};

class TopologySchema {
 public:
  explicit TopologySchema(std::vector<Knob> knobs);

  const std::vector<Knob>& knobs() const { return knobs_; }
  const Knob* find_knob(const std::string& path) const;
  // True for a YAML mapping of the schema; "" is the document root.
  bool is_section(const std::string& path) const;
  // Keys of a section, in schema order (knob leaves and sub-sections).
  const std::vector<std::string>& children(const std::string& section) const;

  // Nearest key of `section` to `key` by edit distance, or "" when none is
  // reasonably close.
  std::string suggest_child(const std::string& section, const std::string& key) const;
  // Nearest knob paths to a mistyped full path: one close path, or the knobs
  // whose leaf matches the path's leaf; empty when nothing fits.
  std::vector<std::string> suggest_knob_paths(const std::string& path) const;

  // Parses `raw` (surrounding blanks ignored, except for a string) as a value
  // of `knob` and checks its constraint. Returns false with `error` set to
  // e.g. "must be > 0, got 0".
  static bool parse_value(const Knob& knob, const std::string& raw, KnobValue* out,
                          std::string* error);

  // "> 0", ">= 1, <= 64", ">= 0.001, <= 100", "power of two", "one of mesh|ring|torus2d", or "".
  static std::string describe_constraint(const Knob& knob);

 private:
  std::vector<Knob> knobs_;
  std::map<std::string, size_t> knob_index_;
  std::map<std::string, std::vector<std::string>> children_;  // section -> keys
};

// The schema of topology YAML files (built once, immutable).
const TopologySchema& topology_schema();
// Whether topology_schema() has been built (engine variants register before).
bool topology_schema_built();

// "1TiB", "32KiB", "1000B": the largest binary unit that divides `bytes`.
std::string format_size(uint64_t bytes);

}  // namespace kb
