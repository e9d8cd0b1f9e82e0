#include "platform/config/topology_loader.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "models/common/address_map.h"
#include "models/common/errors.h"
#include "platform/config/embedded_files.h"
#include "platform/config/knob_visitors.h"
#include "platform/config/topology_schema.h"
#include "platform/util/input_file.h"
#include "platform/util/spelling.h"

namespace kb {

namespace {

constexpr const char* kEmbeddedSource = "<embedded ahbm_1sip.yaml>";

// ---------------------------------------------------------------------------
// Helpers.

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> q;
  q.reserve(items.size());
  for (const std::string& s : items) q.push_back("'" + s + "'");
  return join(q, ", ");
}

// "did you mean 'x'?" / "did you mean one of 'x', 'y'?"
std::string did_you_mean(const std::vector<std::string>& candidates) {
  if (candidates.size() == 1) return "did you mean '" + candidates[0] + "'?";
  return "did you mean one of " + quoted_list(candidates) + "?";
}

// HBM geometry, the cross-field rule of §4.4: a slice of `size` bytes is
// whole stripes of interleave_bytes (`il`) on each of the `pcs` channels.
bool hbm_stripes_divide(uint64_t size, uint64_t il, uint64_t pcs) {
  return il <= size / pcs && size % (il * pcs) == 0;  // il * pcs <= size: no overflow
}

// What would make whole stripes, for each key of the rule: "" when no value
// of that key would.
// The size: "a multiple of S (the nearest: A or B)", S = il * pcs.
std::string hbm_size_fix(uint64_t size, uint64_t il, uint64_t pcs) {
  if (il > std::numeric_limits<uint64_t>::max() / pcs) return "";
  const uint64_t stripe = il * pcs, below = size / stripe * stripe;
  std::vector<std::string> near;
  if (below > 0) near.push_back(format_size(below));
  if (below <= std::numeric_limits<uint64_t>::max() - stripe)
    near.push_back(format_size(below + stripe));
  return "a multiple of " + std::to_string(stripe) + " (the nearest: " + join(near, " or ") + ")";
}

// num_pcs: the divisors of the size's interleave chunks nearest `pcs`
// below and above it ("num_pcs = 2 or 4"; 1 always divides).
std::string hbm_pcs_fix(uint64_t size, uint64_t il, uint64_t pcs) {
  if (size % il != 0) return "";
  const uint64_t n = size / il;
  uint64_t below = 1, above = 0;
  for (uint64_t d = 1; d <= n / d; ++d) {
    if (n % d != 0) continue;
    for (const uint64_t q : {d, n / d}) {
      if (q < pcs) below = std::max(below, q);
      if (q > pcs && (above == 0 || q < above)) above = q;
    }
  }
  return "num_pcs = " + std::to_string(below) + (above ? " or " + std::to_string(above) : "");
}

// interleave_bytes: every power of two up to the largest that divides a
// channel's share of the size.
std::string hbm_interleave_fix(uint64_t size, uint64_t pcs) {
  if (size % pcs != 0) return "";
  const uint64_t per_pc = size / pcs;
  return "interleave_bytes <= " + format_size(per_pc & (~per_pc + 1)) + " (a power of two)";
}

// "; a, or b" of the fixes that are not "".
std::string hbm_fixes(const std::string& a, const std::string& b) {
  if (a.empty() && b.empty()) return "";
  return "; " + a + (a.empty() || b.empty() ? "" : ", or ") + b;
}

const char* node_kind(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a sequence";
    case YAML::NodeType::Scalar:
      return "a scalar";
    default:
      return "an empty value";
  }
}

std::string join_path(const std::string& section, const std::string& key) {
  return section.empty() ? key : section + "." + key;
}

// Where each document of a YAML stream starts (the mark of its root node),
// found by a parse that builds no nodes. It replaces YAML::LoadAll(), which in
// yaml-cpp 0.7 loops forever, allocating one null document per turn, when the
// parser stops consuming input, e.g. on a stray ',' at the top level
// (jbeder/yaml-cpp#1040, fixed upstream after 0.7 by #1319; found by
// tests/fuzz/fuzz_topology_yaml). That loop shows as a document whose root
// starts exactly where the previous one's did.
class DocumentRoots : public YAML::EventHandler {
 public:
  const std::vector<YAML::Mark>& roots() const { return roots_; }

  void OnDocumentStart(const YAML::Mark&) override { in_root_ = true; }
  void OnDocumentEnd() override { in_root_ = false; }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    node(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& mark) {
    if (!in_root_) return;
    roots_.push_back(mark);
    in_root_ = false;
  }
  bool in_root_ = false;
  std::vector<YAML::Mark> roots_;
};

// ---------------------------------------------------------------------------

// Where a knob's value came from.
struct Origin {
  enum class Kind { kDefault, kFile, kOverride };
  Kind kind = Kind::kDefault;
  int line = 0;               // 1-based (kFile)
  int column = 0;             // 1-based (kFile)
  std::string override_text;  // "key=value" as given (kOverride)
};

struct RawValue {
  std::string text;
  Origin origin;
};

// A cross-field rule's complaint, phrased from one key's point of view.
struct Complaint {
  std::string path;
  std::string message;
};

// Loads one topology: YAML -> raw values -> overrides -> parsed values ->
// cross-field checks -> TopologyConfig.
class Loader {
 public:
  explicit Loader(std::string source) : schema_(topology_schema()), source_(std::move(source)) {}

  TopologyConfig load(const std::string& text, const std::vector<std::string>& overrides) {
    read_yaml(text);
    for (const std::string& o : overrides) apply_override(o);
    parse_values();
    check_cross_fields();
    return build();
  }

 private:
  // --- errors --------------------------------------------------------------

  std::string at(const YAML::Mark& mark) const {
    if (mark.is_null()) return source_ + ": ";
    return source_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) +
           ": ";
  }

  [[noreturn]] void fail_at(const YAML::Mark& mark, const std::string& path,
                            const std::string& message) const {
    throw ConfigError(at(mark) + (path.empty() ? "" : path + ": ") + message);
  }

  // The message prefix for a problem with `path`'s current value.
  std::string where(const std::string& path) const {
    const auto it = raw_.find(path);
    const Origin o = it == raw_.end() ? Origin{} : it->second.origin;
    switch (o.kind) {
      case Origin::Kind::kFile:
        return source_ + ":" + std::to_string(o.line) + ":" + std::to_string(o.column) + ": " +
               path + ": ";
      case Origin::Kind::kOverride:
        return "--set " + o.override_text + ": ";
      case Origin::Kind::kDefault:
        break;
    }
    return source_ + ": " + path + ": ";
  }

  bool set_explicitly(const std::string& path) const {
    const auto it = raw_.find(path);
    return it != raw_.end() && it->second.origin.kind != Origin::Kind::kDefault;
  }

  // `path = value`, and where a file gave it (" (file:line:column)"): how a
  // complaint about another key names this one.
  std::string value_at(const std::string& path) const {
    const auto it = raw_.find(path);
    const bool in_file = it != raw_.end() && it->second.origin.kind == Origin::Kind::kFile;
    return path + " = " + text(path) +
           (in_file ? " (" + source_ + ":" + std::to_string(it->second.origin.line) + ":" +
                          std::to_string(it->second.origin.column) + ")"
                    : "");
  }

  // Reports the complaint of the key the user edited last: the first one set
  // by --set, else the first one set in the file, else the first one. A
  // shipped file spells out every knob, so a --set of one is what broke the
  // rule, even when the complaint from another key's view would be the file's.
  [[noreturn]] void fail_cross(const std::vector<Complaint>& complaints) const {
    for (const Origin::Kind kind : {Origin::Kind::kOverride, Origin::Kind::kFile})
      for (const Complaint& c : complaints) {
        const auto it = raw_.find(c.path);
        if (it != raw_.end() && it->second.origin.kind == kind)
          throw ConfigError(where(c.path) + c.message);
      }
    throw ConfigError(where(complaints.front().path) + complaints.front().message);
  }

  // --- YAML ----------------------------------------------------------------

  void read_yaml(const std::string& text) {
    YAML::Node root;
    try {
      std::istringstream in(text);
      YAML::Parser parser(in);
      DocumentRoots docs;
      while (parser.HandleNextDocument(docs)) {
        const std::vector<YAML::Mark>& r = docs.roots();
        if (r.size() >= 2 && r[r.size() - 1].pos == r[r.size() - 2].pos) {
          const auto pos = static_cast<size_t>(r.back().pos);
          const char c = pos < text.size() ? text[pos] : ' ';
          fail_at(r.back(), "",
                  std::string("YAML syntax error: unexpected ") +
                      (c > ' ' && c < 0x7f ? std::string("'") + c + "'" : "character"));
        }
      }
      if (docs.roots().size() > 1) {
        fail_at(docs.roots()[1], "",
                "a topology file holds one YAML document, found " +
                    std::to_string(docs.roots().size()));
      }
      root = YAML::Load(text);  // the one document, now known to parse
    } catch (const YAML::Exception& e) {
      // yaml-cpp says only "bad file" when its recursion guard stops a
      // document nested too deep.
      throw ConfigError(at(e.mark) + "YAML syntax error: " +
                        (e.msg == "bad file"
                             ? std::string("the document nests deeper than the parser allows "
                                           "(hundreds of levels) or is malformed")
                             : yaml_error_message(e.msg, text, e.mark.line, e.mark.column)));
    }
    if (root.IsNull()) return;  // an empty file: every knob at its default
    if (!root.IsMap()) {
      YAML::Mark m = root.Mark();
      if (m.is_null()) m = YAML::Mark();
      fail_at(m, "",
              std::string("expected a mapping of sections (") + join(schema_.children(""), ", ") +
                  ") at the top level, got " + node_kind(root));
    }
    walk(root, "");
  }

  void walk(const YAML::Node& map, const std::string& section) {
    std::map<std::string, YAML::Mark> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key_node = it->first;
      const YAML::Node value = it->second;
      if (!key_node.IsScalar()) {
        fail_at(key_node.Mark(), section,
                std::string("expected a key name, got ") + node_kind(key_node));
      }
      const std::string& key = key_node.Scalar();
      const std::string path = join_path(section, key);
      const auto dup = seen.emplace(key, key_node.Mark());
      if (!dup.second) {
        fail_at(key_node.Mark(), path,
                "duplicate key (first given at line " + std::to_string(dup.first->second.line + 1) +
                    ")");
      }

      if (const Knob* knob = schema_.find_knob(path)) {
        // An empty value's mark is wherever the parser noticed it: use the key's.
        YAML::Mark mark = value.Mark();
        if (mark.is_null() || value.IsNull()) mark = key_node.Mark();
        if (!value.IsScalar()) {
          fail_at(mark, path,
                  std::string("expected a ") + to_string(knob->type) + " value, got " +
                      node_kind(value));
        }
        Origin o;
        o.kind = Origin::Kind::kFile;
        o.line = mark.line + 1;
        o.column = mark.column + 1;
        raw_[path] = RawValue{value.Scalar(), o};
      } else if (schema_.is_section(path)) {
        if (value.IsNull()) continue;  // "pe:" with every key commented out
        if (!value.IsMap()) {
          YAML::Mark mark = value.Mark();
          if (mark.is_null()) mark = key_node.Mark();
          fail_at(mark, path,
                  std::string("expected a mapping (keys ") + join(schema_.children(path), ", ") +
                      "), got " + node_kind(value));
        }
        walk(value, path);
      } else {
        std::string msg = section.empty()
                              ? "unknown top-level section '" + key + "'"
                              : "unknown key '" + key + "' in section '" + section + "'";
        const std::string near = schema_.suggest_child(section, key);
        if (!near.empty()) {
          msg += "; did you mean '" + near + "'?";
        } else {
          msg += "; valid keys: " + join(schema_.children(section), ", ");
        }
        fail_at(key_node.Mark(), path, msg);
      }
    }
  }

  // --- overrides -----------------------------------------------------------

  void apply_override(const std::string& o) {
    const std::string bad = "--set '" + o + "': ";
    const size_t eq = o.find('=');
    if (eq == std::string::npos) throw ConfigError(bad + "expected key.path=value");
    // A value is one line: a newline or another control character in a name
    // would break the tables and the result's readers.
    if (std::any_of(o.begin(), o.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      throw ConfigError(bad + "holds a newline or another control character (a value is one line)");
    const std::string key = trim(o.substr(0, eq));
    std::string value = trim(o.substr(eq + 1));
    if (key.empty()) throw ConfigError(bad + "empty key path; expected key.path=value");
    if (schema_.is_section(key)) {
      std::vector<std::string> keys;
      for (const std::string& c : schema_.children(key)) keys.push_back(key + "." + c);
      throw ConfigError(bad + "'" + key + "' is a section; --set sets one knob at a time, one of " +
                        join(keys, ", "));
    }
    if (!schema_.find_knob(key)) {
      std::string msg = bad + "unknown key '" + key + "'";
      const std::vector<std::string> near = schema_.suggest_knob_paths(key);
      if (!near.empty() && near.size() <= 8) {
        msg += "; " + did_you_mean(near);
      } else {
        msg += " (kernbench --describe-topology lists every knob)";
      }
      throw ConfigError(msg);
    }
    if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    Origin origin;
    origin.kind = Origin::Kind::kOverride;
    origin.override_text = o;
    raw_[key] = RawValue{value, origin};
  }

  // --- values --------------------------------------------------------------

  // The default text of every knob of the banked HBM device's preset: the
  // knobs the topology leaves unset take the preset's values, not the
  // schema's (which are the default preset's).
  std::map<std::string, std::string> preset_defaults() const {
    const std::string key = std::string(kBankedPrefix) + "preset";
    const auto given = raw_.find(key);
    DramPreset preset = DramPreset::kHbm3;
    if (given != raw_.end() && !value_of(kDramPresetNames, given->second.text.c_str(), &preset))
      return {};  // parse_values() reports the bad name
    TopologyConfig c;
    c.pe.hbm.banked = dram_preset(preset);
    std::map<std::string, std::string> out;
    for (const Knob& k : knobs_of(c))
      if (k.path.rfind(kBankedPrefix, 0) == 0) out[k.path] = k.default_text;
    return out;
  }
  static constexpr const char* kBankedPrefix = "pe.hbm.banked.";

  void parse_values() {
    const std::map<std::string, std::string> preset = preset_defaults();
    for (const Knob& k : schema_.knobs()) {
      const auto it = raw_.find(k.path);
      const auto from_preset = preset.find(k.path);
      const std::string& text = it != raw_.end()              ? it->second.text
                                : from_preset != preset.end() ? from_preset->second
                                                              : k.default_text;
      KnobValue v;
      std::string error;
      if (!TopologySchema::parse_value(k, text, &v, &error))
        throw ConfigError(where(k.path) + error);
      values_[k.path] = v;
    }
  }

  uint64_t u(const std::string& path) const { return values_.at(path).u; }
  double d(const std::string& path) const { return values_.at(path).d; }
  const std::string& text(const std::string& path) const { return values_.at(path).text; }

  void check_cross_fields() const {
    const uint64_t cx = u("sip.cubes_x"), cy = u("sip.cubes_y");
    const uint64_t cubes = cx * cy;  // each <= 256: no overflow
    const std::string grid = "cubes_x * cubes_y = " + text("sip.cubes_x") + " * " +
                             text("sip.cubes_y") + " = " + std::to_string(cubes);
    if (cubes > addr_bits::kMaxCubes) {
      const std::string m = grid + " cubes, more than the address map's " +
                            std::to_string(addr_bits::kMaxCubes) + " per SIP";
      fail_cross({{"sip.cubes_x", m}, {"sip.cubes_y", m}});
    }

    const uint64_t io = u("sip.io_cube");
    if (io >= cubes) {
      const std::string m = grid + " leaves " + value_at("sip.io_cube") +
                            " out of range (must be < " + std::to_string(cubes) + ")";
      fail_cross({{"sip.io_cube", "must be < " + grid + ", got " + text("sip.io_cube")},
                  {"sip.cubes_x", m},
                  {"sip.cubes_y", m}});
    }

    if (u("system.host_sip") >= u("system.n_sips")) {
      fail_cross({{"system.host_sip", "must be < system.n_sips = " + text("system.n_sips") +
                                          ", got " + text("system.host_sip")},
                  {"system.n_sips", "must be > system.host_sip = " + text("system.host_sip") +
                                        ", got " + text("system.n_sips")}});
    }

    if (d("host.d2h.bandwidth_gbps") > d("host.h2d.bandwidth_gbps")) {
      const char* why = " (D2H is never faster than H2D)";
      fail_cross({{"host.d2h.bandwidth_gbps",
                   "must be <= host.h2d.bandwidth_gbps = " + text("host.h2d.bandwidth_gbps") +
                       ", got " + text("host.d2h.bandwidth_gbps") + why},
                  {"host.h2d.bandwidth_gbps",
                   "must be >= host.d2h.bandwidth_gbps = " + text("host.d2h.bandwidth_gbps") +
                       ", got " + text("host.h2d.bandwidth_gbps") + why}});
    }

    // HBM capacity: whole interleave stripes across every pseudo-channel.
    const uint64_t size = u("pe.hbm.size_bytes");
    const uint64_t il = u("pe.hbm.interleave_bytes");
    const uint64_t pcs = u("pe.hbm.num_pcs");
    if (!hbm_stripes_divide(size, il, pcs)) {
      const std::string stripe = "interleave_bytes * num_pcs = " + text("pe.hbm.interleave_bytes") +
                                 " * " + text("pe.hbm.num_pcs");
      const std::string m = value_at("pe.hbm.size_bytes") + " is not a multiple of " + stripe;
      // Each key's view says which of its values would do, then the other ways.
      const std::string size_fix = hbm_size_fix(size, il, pcs),
                        pcs_fix = hbm_pcs_fix(size, il, pcs),
                        il_fix = hbm_interleave_fix(size, pcs);
      const std::string make_size = size_fix.empty() ? "" : "make pe.hbm.size_bytes " + size_fix;
      auto would = [](const std::string& fix) {
        return fix.empty() ? fix : fix + " would divide it";
      };
      fail_cross({{"pe.hbm.size_bytes",
                   "must be a multiple of " + stripe + ", got " + text("pe.hbm.size_bytes") +
                       hbm_fixes(size_fix.empty() ? "" : "make it " + size_fix,
                                 pcs_fix.empty() ? "" : "set pe.hbm." + pcs_fix)},
                  {"pe.hbm.interleave_bytes", m + hbm_fixes(would(il_fix), make_size)},
                  {"pe.hbm.num_pcs", m + hbm_fixes(would(pcs_fix), make_size)}});
    }

    // Banked HBM: a row holds whole columns.
    if (u("pe.hbm.banked.page_bytes") % u("pe.hbm.banked.column_bytes") != 0) {
      const std::string m = "pe.hbm.banked.page_bytes = " + text("pe.hbm.banked.page_bytes") +
                            " is not a multiple of pe.hbm.banked.column_bytes = " +
                            text("pe.hbm.banked.column_bytes");
      fail_cross({{"pe.hbm.banked.page_bytes", m}, {"pe.hbm.banked.column_bytes", m}});
    }

    // PE_MATH on RTL: the build must have it, and the verilated vector unit's
    // lane count is fixed when it is built.
    if (const std::string spec_error =
            rtl_pes_error(text("pe.math.rtl_pes"), static_cast<unsigned>(u("system.n_sips")),
                          static_cast<unsigned>(u("sip.cubes_x") * u("sip.cubes_y")),
                          static_cast<unsigned>(u("cube.pes")));
        !spec_error.empty()) {
      fail_cross({{"pe.math.rtl_pes", spec_error}});
    }
    if (text("pe.math.impl") == "rtl" || text("pe.math.impl") == "scoreboard") {
      if (!rtl_cosim_available()) {
        fail_cross(
            {{"pe.math.impl",
              "'" + text("pe.math.impl") +
                  "' needs the RTL co-simulation path, and this build has none "
                  "(Verilator was not found when it was configured, or -DKB_WITH_RTL=OFF): install "
                  "Verilator "
                  "(Debian: apt-get install verilator), then re-run cmake and rebuild; "
                  "or use pe.math.impl: tlm"}});
      }
#if KB_HAVE_RTL
      if (u("pe.math.lanes") != KB_RTL_LANES) {
        const std::string m = "pe.math.impl: " + text("pe.math.impl") +
                              " runs the vector unit verilated with " +
                              std::to_string(KB_RTL_LANES) + " lanes, so pe.math.lanes must be " +
                              std::to_string(KB_RTL_LANES) + ", got " + text("pe.math.lanes") +
                              " (rebuild with cmake -DKB_RTL_LANES=N for another width)";
        fail_cross({{"pe.math.lanes", m}, {"pe.math.impl", m}});
      }
#endif
    }

    // PE_GEMM: a native tile takes at most a second, as any one event (the
    // time of a stage of many tiles must stay within what a run can hold).
    const double tile_flop = 2.0 * static_cast<double>(u("pe.gemm.tile_m")) *
                             static_cast<double>(u("pe.gemm.tile_k")) *
                             static_cast<double>(u("pe.gemm.tile_n"));
    if (const double tile_ns = tile_flop / (d("pe.gemm.peak_tflops") * 1000.0); tile_ns > 1e9) {
      char ns[32];
      std::snprintf(ns, sizeof ns, "%.3g", tile_ns);
      const std::string m = "a native tile of 2 * tile_m * tile_k * tile_n = 2 * " +
                            text("pe.gemm.tile_m") + " * " + text("pe.gemm.tile_k") + " * " +
                            text("pe.gemm.tile_n") + " flop takes " + ns +
                            " ns at pe.gemm.peak_tflops = " + text("pe.gemm.peak_tflops") +
                            ", more than a second (the most one event may take)";
      fail_cross({{"pe.gemm.tile_m", m},
                  {"pe.gemm.tile_k", m},
                  {"pe.gemm.tile_n", m},
                  {"pe.gemm.peak_tflops", m}});
    }

    // PE_IPCQ: one ring fits its region, and the region fits every memory it
    // is reserved in (TCM also holds the scheduler's staging buffers).
    const uint64_t slots = u("pe.ipcq.slots"), slot = u("pe.ipcq.slot_bytes");
    const uint64_t ring = u("pe.ipcq.ring_bytes");
    if (slot > ring / slots) {
      const std::string m = "one ring of slots * slot_bytes = " + text("pe.ipcq.slots") + " * " +
                            text("pe.ipcq.slot_bytes") +
                            " does not fit pe.ipcq.ring_bytes = " + text("pe.ipcq.ring_bytes");
      fail_cross({{"pe.ipcq.ring_bytes", m}, {"pe.ipcq.slots", m}, {"pe.ipcq.slot_bytes", m}});
    }
    if (ring >= u("pe.tcm.size_bytes") / 2) {
      const std::string m =
          "pe.ipcq.ring_bytes = " + text("pe.ipcq.ring_bytes") +
          " must be less than half of pe.tcm.size_bytes = " + text("pe.tcm.size_bytes") +
          " (the rest is arena and staging)";
      fail_cross({{"pe.ipcq.ring_bytes", m}, {"pe.tcm.size_bytes", m}});
    }
    if (ring > size / 2) {
      const std::string m =
          "pe.ipcq.ring_bytes = " + text("pe.ipcq.ring_bytes") +
          " must be at most half of pe.hbm.size_bytes = " + text("pe.hbm.size_bytes");
      fail_cross({{"pe.ipcq.ring_bytes", m}, {"pe.hbm.size_bytes", m}});
    }
    // In the cube SRAM a PE's ring region is capped at half its share.
    if (slot > u("cube.sram.size_bytes") / (2 * u("cube.pes")) / slots) {
      const std::string m = "one ring of slots * slot_bytes = " + text("pe.ipcq.slots") + " * " +
                            text("pe.ipcq.slot_bytes") +
                            " does not fit half of a PE's share of cube.sram.size_bytes (" +
                            text("cube.sram.size_bytes") + " / " + text("cube.pes") + " / 2)";
      fail_cross({{"pe.ipcq.slot_bytes", m}, {"pe.ipcq.slots", m}, {"cube.sram.size_bytes", m}});
    }
  }

  TopologyConfig build() const {
    TopologyConfig c;
    KnobApplier apply(values_);
    c.visit(apply);
    c.source = source_;
    return c;
  }

  const TopologySchema& schema_;
  std::string source_;
  std::map<std::string, RawValue> raw_;
  std::map<std::string, KnobValue> values_;
};

}  // namespace

TopologyConfig load_topology_text(const std::string& yaml_text, const std::string& source_name,
                                  const std::vector<std::string>& overrides) {
  return Loader(source_name).load(yaml_text, overrides);
}

namespace {

// The shipped topologies as load_topology takes them without their files
// ("tiny.yaml", "topologies/tiny.yaml") when `path` is spelled that way: the
// guesses beside the files of its directory.
std::vector<std::string> shipped_paths_beside(const std::string& path) {
  std::vector<std::string> out;
  const std::string dir = std::filesystem::path(path).parent_path().lexically_normal().string();
  if (dir != "" && dir != "topologies") return out;
  for (const std::string& n : embedded_topology_names())
    out.push_back((dir.empty() ? "" : "topologies/") + n + ".yaml");
  return out;
}

}  // namespace

TopologyConfig load_topology_file(const std::string& path,
                                  const std::vector<std::string>& overrides) {
  const std::string text =
      read_input_file(path, "topology file", kMaxConfigFileBytes, shipped_paths_beside(path));
  // A file that names nothing is a mistake (a truncated copy, the wrong
  // path), not a request for every default: those are the embedded topology.
  bool content = false;
  std::istringstream lines(text);
  for (std::string line; !content && std::getline(lines, line);) {
    const size_t first = line.find_first_not_of(" \t\r");
    content =
        first != std::string::npos && line[first] != '#' && line.compare(first, 3, "---") != 0;
  }
  if (!content)
    throw ConfigError("topology file '" + path +
                      "' is empty: it sets no knob (omit --topology for the embedded default, "
                      "or start from topologies/tiny.yaml)");
  return load_topology_text(text, path, overrides);
}

namespace {

// The shipped topology `arg` names when it is not a file ("" when none).
std::string shipped_name(const std::string& arg) {
  std::error_code ec;
  if (std::filesystem::exists(arg, ec)) return "";
  std::string name = arg;
  const std::string dir = "topologies/", ext = ".yaml";
  if (name.compare(0, dir.size(), dir) == 0) name = name.substr(dir.size());
  if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
    name.resize(name.size() - ext.size());
  return embedded_topology(name) ? name : "";
}

}  // namespace

std::string topology_source(const std::string& arg) {
  const std::string name = shipped_name(arg);
  return name.empty() ? arg : "topologies/" + name + ".yaml (embedded)";
}

TopologyConfig load_topology(const std::string& arg, const std::vector<std::string>& overrides) {
  const std::string name = shipped_name(arg);
  if (!name.empty())
    return load_topology_text(*embedded_topology(name), topology_source(arg), overrides);
  std::error_code ec;
  if (std::filesystem::exists(arg, ec)) return load_topology_file(arg, overrides);
  if (arg.find('/') == std::string::npos && arg.find('.') == std::string::npos) {
    const std::vector<std::string> names = embedded_topology_names();
    const std::string near = nearest_spelling(arg, names);
    throw ConfigError("--topology " + arg + ": no such file, and no shipped topology of that name" +
                      (near.empty() ? "" : " (did you mean " + near + "?)") +
                      "; shipped: " + join(names, ", "));
  }
  return load_topology_file(arg, overrides);  // names the missing file
}

const std::string& embedded_default_topology_yaml() {
  return *embedded_file("topologies/ahbm_1sip.yaml");
}

TopologyConfig load_default_topology(const std::vector<std::string>& overrides) {
  return load_topology_text(embedded_default_topology_yaml(), kEmbeddedSource, overrides);
}

std::string describe_topology_knobs() {
  const TopologySchema& schema = topology_schema();
  struct Row {
    std::string group, path, type, def, desc;
  };
  std::vector<Row> rows;
  size_t w_path = 0, w_type = 0, w_def = 0;
  for (const Knob& k : schema.knobs()) {
    Row r;
    const size_t dot = k.path.find('.');
    r.group = dot == std::string::npos ? "top level" : k.path.substr(0, dot);
    r.path = k.path;
    r.type = "<" + std::string(to_string(k.type)) + ">";
    if (k.type == KnobType::kEnum) r.type = "<" + join(k.allowed, "|") + ">";
    r.def = "default=" + k.default_text;
    r.desc = k.description;
    const std::string c = TopologySchema::describe_constraint(k);
    if (!c.empty() && k.type != KnobType::kEnum) r.desc += " [" + c + "]";
    w_path = std::max(w_path, r.path.size());
    w_type = std::max(w_type, r.type.size());
    w_def = std::max(w_def, r.def.size());
    rows.push_back(std::move(r));
  }
  std::ostringstream out;
  out << std::left;
  std::string group;
  for (const Row& r : rows) {
    if (r.group != group) {
      group = r.group;
      out << group << ":\n";
    }
    out << "  " << std::setw(static_cast<int>(w_path)) << r.path << "  "
        << std::setw(static_cast<int>(w_type)) << r.type << "  "
        << std::setw(static_cast<int>(w_def)) << r.def << "  " << r.desc << "\n";
  }
  return out.str();
}

}  // namespace kb
