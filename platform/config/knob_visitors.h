// The two walks over a TopologyConfig's visit() (models/common/knob_spec.h):
// KnobCollector turns a configuration into the schema's knobs (path, type,
// its current value as the default text, description, bound), and KnobApplier
// writes parsed values back into the fields. With these, a knob's name,
// default, unit and description are written once, beside its field.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/common/knob_spec.h"
#include "platform/config/topology_config.h"
#include "platform/config/topology_schema.h"

namespace kb {

// Values a program adds to an open choice (a knob such as pe.math.impl that
// names an implementation), in registration order. Registering after the
// schema was first used throws std::logic_error: the schema is built once.
void register_choice(const std::string& knob_path, const std::string& value);
std::vector<std::string> registered_choices(const std::string& knob_path);

// The dotted path and the label of the section being visited.
class KnobPath {
 public:
  template <class F>
  void section(const char* key, const char* label, F&& body) {
    keys_.emplace_back(key);
    labels_.push_back(label);
    body();
    keys_.pop_back();
    labels_.pop_back();
  }
  std::string path(const char* name) const {
    std::string p;
    for (const std::string& k : keys_) p += k + ".";
    return p + name;
  }
  // The innermost section's label, or null.
  const char* label() const {
    for (auto it = labels_.rbegin(); it != labels_.rend(); ++it)
      if (*it) return *it;
    return nullptr;
  }

 private:
  std::vector<std::string> keys_;
  std::vector<const char*> labels_;
};

// The default text of a value, parsed back by the same rules as a file's.
std::string size_text(uint64_t bytes);  // "4096" below 64 KiB, else "256KiB", "1GiB"
std::string real_text(double v);        // shortest round trip: "0.0625", "128"

class KnobCollector : public KnobPath {
 public:
  void count(unsigned& f, const KnobSpec& s) { add(s, KnobType::kUint, std::to_string(f)); }
  void size(uint64_t& f, const KnobSpec& s) { add(s, KnobType::kSize, size_text(f)); }
  void real(double& f, const KnobSpec& s) { add(s, KnobType::kDouble, real_text(f)); }
  void text(std::string& f, const KnobSpec& s) { add(s, KnobType::kString, f); }
  template <class E, size_t N>
  void choice(E& f, const EnumName<E> (&names)[N], const KnobSpec& s) {
    add(s, KnobType::kEnum, name_of(names, f));
    for (const EnumName<E>& n : names) knobs_.back().allowed.emplace_back(n.name);
  }
  template <size_t N>
  void open_choice(std::string& f, const char* const (&builtins)[N], const KnobSpec& s) {
    add(s, KnobType::kEnum, f);
    for (const char* n : builtins) knobs_.back().allowed.emplace_back(n);
    for (const std::string& n : registered_choices(knobs_.back().path))
      knobs_.back().allowed.push_back(n);
  }
  std::vector<Knob> take() { return std::move(knobs_); }

 private:
  void add(const KnobSpec& s, KnobType type, std::string default_text);
  std::vector<Knob> knobs_;
};

class KnobApplier : public KnobPath {
 public:
  explicit KnobApplier(const std::map<std::string, KnobValue>& values) : values_(values) {}
  void count(unsigned& f, const KnobSpec& s) { f = static_cast<unsigned>(at(s).u); }
  void size(uint64_t& f, const KnobSpec& s) { f = at(s).u; }
  void real(double& f, const KnobSpec& s) { f = at(s).d; }
  void text(std::string& f, const KnobSpec& s) { f = at(s).text; }
  template <class E, size_t N>
  void choice(E& f, const EnumName<E> (&names)[N], const KnobSpec& s) {
    value_of(names, at(s).text.c_str(), &f);  // the schema admitted only these names
  }
  template <size_t N>
  void open_choice(std::string& f, const char* const (&)[N], const KnobSpec& s) {
    f = at(s).text;
  }

 private:
  const KnobValue& at(const KnobSpec& s) const { return values_.at(path(s.name)); }
  const std::map<std::string, KnobValue>& values_;
};

// The knobs of `c` in schema order, each with c's value as its default.
std::vector<Knob> knobs_of(TopologyConfig c);

}  // namespace kb
