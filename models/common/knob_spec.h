// How a block describes its parameters: the one place where a knob's name,
// description (with its unit), bound and default live.
//
// Each block's parameter struct (models/<block>/<block>_config.h) gives every
// field its default as the member initialiser and lists its fields in a
//
//   template <class V> void visit(V& v) { v.real(bandwidth_gbps, {"bandwidth_gbps", "…"}); … }
//
// The visitor decides what to do with each field: platform/config builds the
// topology schema from a default-constructed configuration (the YAML key, the
// type, the default as text, the description, the bound), and the loader
// writes each parsed value back into its field. A visitor provides
//
//   count(unsigned&, const KnobSpec&)       a non-negative integer
//   size(uint64_t&, const KnobSpec&)        bytes ("32KiB" in YAML)
//   real(double&, const KnobSpec&)          a finite real
//   text(std::string&, const KnobSpec&)     any scalar
//   choice(E&, const EnumName<E> (&)[N], const KnobSpec&)   one of the names
//   open_choice(std::string&, const char* const (&)[N], const KnobSpec&)
//       one of the built-in names or of those the platform registers for the
//       knob (an engine variant: platform/fabric/engine_variants.h)
//   section(const char* key, const char* label, F&& body)   a YAML mapping;
//       `label` (or null) prefixes its knobs' descriptions ("HBM slice: …")
//
// docs/ARCHITECTURE.md, "Configuration in two layers", has the whole path.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "models/common/address_map.h"

namespace kb {

// Lower bound / shape rule of a numeric knob.
enum class Bound {
  kNone,         // any value of the type
  kNonNegative,  // >= 0
  kPositive,     // > 0
  kAtLeastOne,   // >= 1
  kPowerOfTwo,   // 1, 2, 4, 8, ...
};

struct KnobSpec {
  const char* name;         // the YAML key (the last segment of the knob's path)
  const char* description;  // one line, unit included
  Bound bound = Bound::kNone;
  uint64_t max = 0;           // inclusive upper bound of a count or size; 0 = none
  const char* max_note = "";  // why the upper bound exists (for messages)
  uint64_t min = 0;           // inclusive lower bound beyond `bound`
  const char* min_note = "";
  // The inclusive range of a real knob, beyond `bound` (lo > hi: none given;
  // a knob in ns or GB/s then takes its unit's range, TopologySchema). Set with
  // range(): KnobSpec{"clock_ghz", "...", Bound::kPositive}.range(1e-3, 100, "why").
  double lo = 1, hi = 0;
  const char* range_note = "";

  constexpr KnobSpec range(double low, double high, const char* note) const {
    KnobSpec s = *this;
    s.lo = low;
    s.hi = high;
    s.range_note = note;
    return s;
  }
};

// One value of an enumerated knob and its YAML spelling.
template <class E>
struct EnumName {
  E value;
  const char* name;
};

template <class E, size_t N>
const char* name_of(const EnumName<E> (&names)[N], E value) {
  for (const EnumName<E>& n : names)
    if (n.value == value) return n.name;
  return "?";
}

template <class E, size_t N>
bool value_of(const EnumName<E> (&names)[N], const char* name, E* value) {
  const auto* it = std::find_if(std::begin(names), std::end(names), [&](const EnumName<E>& n) {
    return std::strcmp(n.name, name) == 0;
  });
  if (it == std::end(names)) return false;
  *value = it->value;
  return true;
}

constexpr const char* kRegionNote = "the address map's region limit";

// A memory with one port (a PE's TCM, a cube's SRAM): capacity, bandwidth,
// access latency.
template <class V>
void visit_memory_port(V& v, uint64_t& size_bytes, double& bandwidth_gbps, double& latency_ns) {
  v.size(size_bytes,
         {"size_bytes", "capacity", Bound::kAtLeastOne, addr_bits::kMaxRegionBytes, kRegionNote});
  v.real(bandwidth_gbps, {"bandwidth_gbps", "port bandwidth, GB/s (= B/ns)", Bound::kPositive});
  v.real(latency_ns, {"latency_ns", "access latency, ns", Bound::kNonNegative});
}

}  // namespace kb
