#include "platform/sweep/sweep_spec.h"

#include "platform/util/input_file.h"

#include <yaml-cpp/yaml.h>
#include <cctype>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "models/common/errors.h"
#include "platform/util/spelling.h"

namespace kb {

namespace {

// "FILE:LINE:COLUMN" of a node, as every error names it.
std::string spec_place(const std::string& file, const YAML::Node& at) {
  const YAML::Mark m = at.Mark();
  return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

[[noreturn]] void fail(const std::string& file, const YAML::Node& at, const std::string& key,
                       const std::string& why) {
  throw ConfigError(spec_place(file, at) + ": " + key + ": " + why);
}

std::string scalar(const std::string& file, const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) fail(file, n, key, "expected a single value");
  return n.Scalar();
}

std::vector<std::string> scalars(const std::string& file, const YAML::Node& n,
                                 const std::string& key) {
  std::vector<std::string> out;
  if (n.IsScalar()) return {n.Scalar()};
  if (!n.IsSequence()) fail(file, n, key, "expected a value or a list of values");
  for (const auto& v : n) out.push_back(scalar(file, v, key));
  return out;
}

// A key given twice in one mapping: yaml-cpp keeps both and reads the first,
// so the second would be ignored without a word.
void refuse_duplicate_keys(const std::string& file, const YAML::Node& map,
                           const std::string& where) {
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = scalar(file, kv.first, where.empty() ? "(key)" : where);
    if (!seen.insert(key).second)
      fail(file, kv.first, where.empty() ? key : where + "." + key, "given twice");
  }
}

void read_axes(const std::string& file, const YAML::Node& block, bool is_set,
               std::vector<SweepAxis>& axes) {
  const std::string kind = is_set ? "grid.set" : "grid.param";
  if (!block.IsMap()) fail(file, block, kind, "expected a mapping of KEY: [values]");
  refuse_duplicate_keys(file, block, kind);
  for (const auto& kv : block) {
    SweepAxis a;
    a.is_set = is_set;
    a.key = scalar(file, kv.first, kind);
    a.values = scalars(file, kv.second, kind + "." + a.key);
    if (a.values.empty()) fail(file, kv.second, kind + "." + a.key, "has no values");
    // A value given twice would run its points twice.
    std::set<std::string> seen;
    for (size_t i = 0; i < a.values.size(); ++i)
      if (!seen.insert(a.values[i]).second)
        fail(file, kv.second.IsSequence() ? kv.second[i] : kv.second, kind + "." + a.key,
             "the value '" + a.values[i] + "' is given twice");
    axes.push_back(a);
  }
}

}  // namespace

namespace {

constexpr uint64_t kMaxSweepPoints = 100000;
// The spec's slurm: mapping, each key known and each value safe in a script.
std::vector<std::pair<std::string, std::string>> slurm_resources(const std::string& path,
                                                                 const YAML::Node& sl) {
  if (!sl.IsMap()) fail(path, sl, "slurm", "expected a mapping of Slurm resources");
  refuse_duplicate_keys(path, sl, "slurm");
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& kv : sl) {
    const std::string k = scalar(path, kv.first, "slurm");
    if (std::find(kSlurmKeys.begin(), kSlurmKeys.end(), k) == kSlurmKeys.end()) {
      const std::string near = nearest_spelling(k, kSlurmKeys);
      fail(path, kv.first, "slurm." + k,
           "unknown key" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
    }
    const std::string v = scalar(path, kv.second, "slurm." + k);
    if (const std::string e = slurm_value_error(v); !e.empty())
      fail(path, kv.second, "slurm." + k, e);
    if (const std::string e = slurm_resource_error(k, v); !e.empty())
      fail(path, kv.second, "slurm." + k, e);
    out.emplace_back(k, v);
  }
  return out;
}

SweepSpec parse_spec(const YAML::Node& root, const std::string& path);

}  // namespace

SweepSpec load_sweep_spec(const std::string& path) {
  return load_sweep_spec_text(read_input_file(path, "sweep spec"), path);
}

SweepSpec load_sweep_spec_text(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": " +
                      yaml_error_message(e.msg, text, e.mark.line, e.mark.column));
  }
  return parse_spec(root, source);
}

const std::vector<std::string> kSlurmKeys = {"time",    "mem", "partition",
                                             "account", "qos", "cpus_per_task"};

std::string slurm_value_error(const std::string& value) {
  if (value.empty()) return "is empty";
  for (char c : value)
    if (!std::isgraph(static_cast<unsigned char>(c)) || c == '\'' || c == '"' || c == '\\' ||
        c == '$' || c == '`')
      return "'" + value + "' holds a space, quote or shell character";
  return "";
}

namespace {

bool slurm_digits(const std::string& s) {
  return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// sbatch's time formats: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS; the
// fields after the first are below 60 (minutes, seconds) or 24 (hours after D-).
bool slurm_time(const std::string& t) {
  std::string rest = t;
  const size_t dash = t.find('-');
  if (dash != std::string::npos) {
    if (!slurm_digits(t.substr(0, dash))) return false;
    rest = t.substr(dash + 1);
  }
  std::vector<std::string> f;
  for (size_t at = 0;;) {
    const size_t colon = rest.find(':', at);
    f.push_back(rest.substr(at, colon == std::string::npos ? std::string::npos : colon - at));
    if (colon == std::string::npos) break;
    at = colon + 1;
  }
  if (f.size() > 3) return false;
  for (const std::string& x : f)
    if (!slurm_digits(x)) return false;
  for (size_t i = 1; i < f.size(); ++i)
    if (std::stoul(f[i]) >= 60) return false;
  return dash == std::string::npos || std::stoul(f[0]) < 24;
}

}  // namespace

std::string slurm_resource_error(const std::string& key, const std::string& value) {
  if (key == "time" && !slurm_time(value))
    return "'" + value +
           "' is not a Slurm time limit (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)";
  if (key == "mem") {
    const bool unit = !value.empty() && std::strchr("KMGTkmgt", value.back()) != nullptr;
    const std::string n = unit ? value.substr(0, value.size() - 1) : value;
    if (!slurm_digits(n) || std::stoul(n) == 0)
      return "'" + value + "' is not a positive amount of memory (megabytes, or a whole number " +
             "with K, M, G or T, as in 4G)";
  }
  if (key == "cpus_per_task" && (!slurm_digits(value) || std::stoul(value) == 0))
    return "'" + value + "' is not a positive whole number of CPUs";
  return "";
}

namespace {

SweepSpec parse_spec(const YAML::Node& root, const std::string& path) {
  if (!root.IsMap()) throw ConfigError(path + ": a sweep spec is a YAML mapping");
  static const std::vector<std::string> kKeys = {"bench", "topology", "set",     "param",
                                                 "data",  "grid",     "columns", "slurm"};
  SweepSpec s;
  s.source = path;
  for (const auto& kv : root) {
    const std::string key = scalar(path, kv.first, "(key)");
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      const std::string near = nearest_spelling(key, kKeys);
      fail(path, kv.first, key,
           "unknown key" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
    }
  }
  refuse_duplicate_keys(path, root, "");
  if (!root["bench"]) throw ConfigError(path + ": missing key 'bench'");
  s.bench = scalar(path, root["bench"], "bench");
  if (root["topology"]) s.topology = scalar(path, root["topology"], "topology");
  if (root["set"]) s.sets = scalars(path, root["set"], "set");
  if (root["param"]) s.params = scalars(path, root["param"], "param");
  if (root["data"]) {
    const std::string d = scalar(path, root["data"], "data");
    if (d != "true" && d != "false") fail(path, root["data"], "data", "expected true or false");
    s.data = d == "true";
  }
  if (root["columns"]) {
    const YAML::Node c = root["columns"];
    s.columns = scalars(path, c, "columns");
    for (size_t i = 0; i < s.columns.size(); ++i)
      s.column_at.push_back(spec_place(path, c.IsSequence() ? c[i] : c));
  }
  if (root["slurm"]) s.slurm = slurm_resources(path, root["slurm"]);
  if (root["grid"]) {
    const YAML::Node g = root["grid"];
    if (!g.IsMap()) fail(path, g, "grid", "expected a mapping with set: and/or param:");
    refuse_duplicate_keys(path, g, "grid");
    for (const auto& kv : g) {
      const std::string k = scalar(path, kv.first, "grid");
      if (k != "set" && k != "param") {
        const std::string near = nearest_spelling(k, {"set", "param"});
        fail(path, kv.first, "grid." + k,
             "unknown key" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
      }
      read_axes(path, kv.second, k == "set", s.axes);
    }
  }
  uint64_t points = 1;
  for (const SweepAxis& a : s.axes) {
    points *= a.values.size();
    if (points > kMaxSweepPoints)
      fail(path, root["grid"], "grid",
           "more than " + std::to_string(kMaxSweepPoints) + " points (split the sweep)");
  }
  return s;
}

}  // namespace

std::vector<SweepPoint> SweepSpec::expand() const {
  std::vector<SweepPoint> out;
  std::vector<size_t> at(axes.size(), 0);
  for (unsigned index = 0;; ++index) {
    SweepPoint p;
    p.index = index;
    for (size_t a = 0; a < axes.size(); ++a)
      (axes[a].is_set ? p.sets : p.params).emplace_back(axes[a].key, axes[a].values[at[a]]);
    out.push_back(p);
    // Odometer: the last axis turns fastest.
    size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++at[a] < axes[a].values.size()) break;
      at[a] = 0;
      if (a == 0) return out;
    }
    if (axes.empty()) return out;
  }
}

std::vector<std::string> SweepSpec::command(const std::string& exe, const SweepPoint& p,
                                            const std::string& json) const {
  std::vector<std::string> argv = {exe, "--quiet", "--bench", bench};
  if (!topology.empty()) argv.insert(argv.end(), {"--topology", topology});
  for (const auto& s : sets) argv.insert(argv.end(), {"--set", s});
  for (const auto& [k, v] : p.sets) argv.insert(argv.end(), {"--set", k + "=" + v});
  for (const auto& s : params) argv.insert(argv.end(), {"--param", s});
  for (const auto& [k, v] : p.params) argv.insert(argv.end(), {"--param", k + "=" + v});
  if (data) argv.emplace_back("--data");
  argv.insert(argv.end(), {"--json", json});
  return argv;
}

}  // namespace kb
