// The first config layer: topology YAML -> validated TopologyConfig.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "models/common/errors.h"
#include "platform/config/embedded_files.h"
#include "platform/config/knob_visitors.h"
#include "platform/config/topology_loader.h"
#include "platform/config/topology_schema.h"
#include "platform/util/spelling.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

::testing::AssertionResult HasSubstr(const std::string& s, const std::string& sub) {
  if (s.find(sub) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << s << "'\n  does not contain '" << sub << "'";
}

::testing::AssertionResult StartsWith(const std::string& s, const std::string& prefix) {
  if (s.compare(0, prefix.size(), prefix) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << s << "'\n  does not start with '" << prefix << "'";
}

::testing::AssertionResult MatchesRegex(const std::string& s, const std::string& re) {
  if (std::regex_search(s, std::regex(re))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << s << "'\n  does not match /" << re << "/";
}

// The ConfigError message of `f`, or "" (and a test failure) when it does not throw one.
std::string config_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a kb::ConfigError";
  return "";
}

std::string text_error(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return config_error([&] { load_topology_text(yaml, "t.yaml", overrides); });
}

std::string set_error(const std::string& override_text) {
  return config_error([&] { load_topology_text("", "t.yaml", {override_text}); });
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_link(const LinkConfig& l, double bw, double lat, uint64_t pkt, uint64_t hdr) {
  EXPECT_DOUBLE_EQ(l.bandwidth_gbps, bw);
  EXPECT_DOUBLE_EQ(l.latency_ns, lat);
  EXPECT_EQ(l.packet_bytes, pkt);
  EXPECT_EQ(l.header_bytes, hdr);
}

// Every field of `c` equals the default calibration (except the name/shape
// fields a caller checks itself).
void expect_default_calibration(const TopologyConfig& c) {
  EXPECT_EQ(c.system.host_sip, 0u);
  expect_link(c.system.sip_link, 64, 100, 4096, 0);

  EXPECT_EQ(c.host.memory_bytes, 16ull << 30);
  EXPECT_DOUBLE_EQ(c.host.memory_bandwidth_gbps, 100);
  EXPECT_DOUBLE_EQ(c.host.memory_latency_ns, 80);
  expect_link(c.host.h2d, 64, 250, 4096, 0);
  expect_link(c.host.d2h, 32, 250, 4096, 0);

  EXPECT_EQ(c.sip.io_cube, 0u);
  EXPECT_DOUBLE_EQ(c.sip.hub_latency_ns, 5);
  expect_link(c.sip.cube_link, 128, 5, 256, 0);
  expect_link(c.sip.io_link, 128, 10, 4096, 0);

  EXPECT_DOUBLE_EQ(c.cube.router_latency_ns, 2);
  expect_link(c.cube.pe_link, 256, 2, 256, 0);
  EXPECT_EQ(c.cube.sram.size_bytes, 8ull << 20);
  EXPECT_DOUBLE_EQ(c.cube.sram.bandwidth_gbps, 512);
  EXPECT_DOUBLE_EQ(c.cube.sram.latency_ns, 10);

  EXPECT_DOUBLE_EQ(c.pe.clock_ghz, 1.0);
  EXPECT_DOUBLE_EQ(c.pe.xbar_latency_ns, 0.5);
  EXPECT_EQ(c.pe.hbm.num_pcs, 2u);
  EXPECT_DOUBLE_EQ(c.pe.hbm.pc_bandwidth_gbps, 128);
  EXPECT_EQ(c.pe.hbm.interleave_bytes, 1024u);
  EXPECT_DOUBLE_EQ(c.pe.hbm.access_latency_ns, 5);
  EXPECT_EQ(c.pe.hbm.queue_depth, 64u);
  EXPECT_EQ(c.pe.tcm.size_bytes, 1ull << 20);
  EXPECT_DOUBLE_EQ(c.pe.tcm.bandwidth_gbps, 512);
  EXPECT_DOUBLE_EQ(c.pe.tcm.latency_ns, 1);
  EXPECT_EQ(c.pe.dma.burst_bytes, 1024u);
  EXPECT_EQ(c.pe.dma.max_outstanding, 64u);
  EXPECT_DOUBLE_EQ(c.pe.dma.setup_ns, 2);
  EXPECT_DOUBLE_EQ(c.pe.cost_model.fixed_per_composite_cycles, 40);
  EXPECT_DOUBLE_EQ(c.pe.cost_model.fixed_per_single_op_cmd_cycles, 8);
  EXPECT_DOUBLE_EQ(c.pe.cost_model.per_byte_cycles, 0.0625);
  EXPECT_EQ(c.pe.cost_model.max_composite_logical_bytes, 1024u);
  EXPECT_DOUBLE_EQ(c.pe_hbm_bandwidth_gbps(), 256);
}

// ---------------------------------------------------------------------------
// Defaults, shipped files, the embedded default.

TEST(TopologyLoader, DefaultsWhenKeysOmitted) {
  const TopologyConfig c = load_topology_text("", "empty.yaml");
  EXPECT_EQ(c.name, "unnamed");
  EXPECT_EQ(c.source, "empty.yaml");
  EXPECT_EQ(c.system.n_sips, 1u);
  EXPECT_EQ(c.system.sip_topology, SipTopology::kRing);
  EXPECT_EQ(c.sip.cubes_x, 4u);
  EXPECT_EQ(c.sip.cubes_y, 4u);
  EXPECT_EQ(c.sip.topology, CubeTopology::kTorus2d);
  EXPECT_EQ(c.cube.pes, 8u);
  EXPECT_EQ(c.pe.hbm.size_bytes, 1ull << 30);
  EXPECT_EQ(c.total_pes(), 128u);
  expect_default_calibration(c);
}

// A knob's default is written once: the member initialiser of its field. A
// default-constructed configuration, a file that sets nothing and the schema
// agree on every knob, and the schema lists each field exactly once.
TEST(TopologyLoader, DefaultsAreTheFieldInitialisers) {
  const std::vector<Knob> built = knobs_of(TopologyConfig{});
  const std::vector<Knob> loaded = knobs_of(load_topology_text("", "empty.yaml"));
  const std::vector<Knob>& schema = topology_schema().knobs();
  ASSERT_EQ(built.size(), schema.size());
  ASSERT_EQ(loaded.size(), schema.size());
  std::set<std::string> paths;
  for (size_t i = 0; i < schema.size(); ++i) {
    EXPECT_EQ(built[i].path, schema[i].path);
    EXPECT_EQ(loaded[i].default_text, schema[i].default_text) << schema[i].path;
    EXPECT_FALSE(schema[i].description.empty()) << schema[i].path;
    EXPECT_TRUE(paths.insert(schema[i].path).second) << schema[i].path;
  }
  // A value set in a file comes back out through the same fields.
  const TopologyConfig c = load_topology_text("pe:\n  hbm:\n    pc_mapping: interleave\n", "x");
  EXPECT_EQ(c.pe.hbm.pc_mapping, PcMapping::kInterleave);
}

// Every shipped topology is in the binary and loads by name from any
// directory, the same as its file; a name that is neither a file nor a
// shipped topology is an error that names the nearest one.
TEST(TopologyLoader, ShippedTopologiesLoadByName) {
  const std::vector<std::string> names = embedded_topology_names();
  for (const std::string n :
       {"ahbm_1sip", "ahbm_1sip_mesh", "ahbm_1sip_ring", "llama70b_4sip", "tiny"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    const std::vector<Knob> by_name = knobs_of(load_topology(n));
    const std::vector<Knob> by_file =
        knobs_of(load_topology_file(test::source_path("topologies/" + n + ".yaml")));
    ASSERT_EQ(by_name.size(), by_file.size());
    for (size_t i = 0; i < by_name.size(); ++i)
      EXPECT_EQ(by_name[i].default_text, by_file[i].default_text) << n << " " << by_name[i].path;
  }
  EXPECT_EQ(load_topology("topologies/tiny.yaml").cube.pes, load_topology("tiny").cube.pes);
  const std::string e = config_error([] { load_topology("tinny"); });
  EXPECT_TRUE(HasSubstr(e, "did you mean tiny?"));
  EXPECT_TRUE(HasSubstr(e, "llama70b_4sip"));
}

TEST(TopologyLoader, PartialSectionsKeepOtherDefaults) {
  const TopologyConfig c = load_topology_text(
      "name: partial\n"
      "sip:\n"
      "  cube_link:\n"
      "    latency_ns: 7.5\n"
      "pe:\n",  // an empty section is fine
      "partial.yaml");
  EXPECT_EQ(c.name, "partial");
  expect_link(c.sip.cube_link, 128, 7.5, 256, 0);
  expect_link(c.sip.io_link, 128, 10, 4096, 0);
  EXPECT_DOUBLE_EQ(c.pe.clock_ghz, 1.0);
}

TEST(TopologyLoader, ShippedTopologiesLoad) {
  struct Expect {
    const char* file;
    const char* name;
    unsigned n_sips, cubes_x, cubes_y, pes;
    CubeTopology topology;
    SipTopology sip_topology;
  };
  const Expect files[] = {
      {"ahbm_1sip.yaml", "ahbm_1sip", 1, 4, 4, 8, CubeTopology::kTorus2d, SipTopology::kRing},
      {"ahbm_1sip_mesh.yaml", "ahbm_1sip_mesh", 1, 4, 4, 8, CubeTopology::kMesh,
       SipTopology::kRing},
      {"ahbm_1sip_ring.yaml", "ahbm_1sip_ring", 1, 4, 4, 8, CubeTopology::kRing,
       SipTopology::kRing},
      {"llama70b_4sip.yaml", "llama70b_4sip", 4, 4, 4, 8, CubeTopology::kTorus2d,
       SipTopology::kFull},
      {"tiny.yaml", "tiny", 1, 2, 2, 2, CubeTopology::kTorus2d, SipTopology::kRing},
  };
  for (const Expect& e : files) {
    SCOPED_TRACE(e.file);
    const std::string path = test::source_path(std::string("topologies/") + e.file);
    const TopologyConfig c = load_topology_file(path);
    EXPECT_EQ(c.name, e.name);
    EXPECT_EQ(c.source, path);
    EXPECT_EQ(c.system.n_sips, e.n_sips);
    EXPECT_EQ(c.sip.cubes_x, e.cubes_x);
    EXPECT_EQ(c.sip.cubes_y, e.cubes_y);
    EXPECT_EQ(c.cube.pes, e.pes);
    EXPECT_EQ(c.sip.topology, e.topology);
    EXPECT_EQ(c.system.sip_topology, e.sip_topology);
  }
  const TopologyConfig tiny = load_topology_file(test::source_path("topologies/tiny.yaml"));
  EXPECT_EQ(tiny.pe.hbm.size_bytes, 64ull << 20);
  EXPECT_EQ(tiny.host.memory_bytes, 256ull << 20);
  EXPECT_EQ(tiny.total_pes(), 8u);
  const TopologyConfig llama =
      load_topology_file(test::source_path("topologies/llama70b_4sip.yaml"));
  EXPECT_EQ(llama.total_pes(), 512u);
  expect_default_calibration(llama);
}

TEST(TopologyLoader, ShippedDefaultFileWritesOutEveryKnob) {
  // ahbm_1sip.yaml documents the calibration: every knob is written out, and
  // with the values of the schema's defaults.
  const std::string path = test::source_path("topologies/ahbm_1sip.yaml");
  const TopologyConfig from_file = load_topology_file(path);
  const TopologyConfig from_defaults = load_topology_text("name: ahbm_1sip\n", "defaults");
  EXPECT_EQ(describe_topology_knobs(), describe_topology_knobs());
  expect_default_calibration(from_file);
  const std::string text = read_file(path);
  for (const Knob& k : topology_schema().knobs()) {
    EXPECT_NE(text.find(k.leaf() + ":"), std::string::npos) << k.path;
  }
  EXPECT_EQ(from_file.total_pes(), from_defaults.total_pes());
}

TEST(TopologyLoader, EmbeddedDefaultEqualsShippedFile) {
  const std::string path = test::source_path("topologies/ahbm_1sip.yaml");
  EXPECT_EQ(embedded_default_topology_yaml(), read_file(path));
  const TopologyConfig embedded = load_default_topology();
  const TopologyConfig file = load_topology_file(path);
  EXPECT_EQ(embedded.source, "<embedded ahbm_1sip.yaml>");
  EXPECT_EQ(embedded.name, "ahbm_1sip");
  EXPECT_EQ(embedded.name, file.name);
  EXPECT_EQ(embedded.sip.topology, file.sip.topology);
  EXPECT_EQ(embedded.total_pes(), file.total_pes());
  expect_default_calibration(embedded);
  // Overrides apply to the embedded default too.
  EXPECT_EQ(load_default_topology({"cube.pes=4"}).cube.pes, 4u);
}

TEST(TopologyLoader, EnumNamesRoundTrip) {
  EXPECT_STREQ(to_string(CubeTopology::kMesh), "mesh");
  EXPECT_STREQ(to_string(CubeTopology::kRing), "ring");
  EXPECT_STREQ(to_string(CubeTopology::kTorus2d), "torus2d");
  EXPECT_STREQ(to_string(SipTopology::kRing), "ring");
  EXPECT_STREQ(to_string(SipTopology::kFull), "full");
}

// ---------------------------------------------------------------------------
// Schema and --describe-topology.

TEST(TopologySchema, EveryKnobHasTypeDefaultAndDescription) {
  const TopologySchema& s = topology_schema();
  std::set<std::string> paths;
  for (const Knob& k : s.knobs()) {
    EXPECT_TRUE(paths.insert(k.path).second) << k.path;
    EXPECT_FALSE(k.description.empty()) << k.path;
    KnobValue v;
    std::string error;
    EXPECT_TRUE(s.parse_value(k, k.default_text, &v, &error)) << k.path << ": " << error;
    if (k.type == KnobType::kEnum) {
      EXPECT_FALSE(k.allowed.empty()) << k.path;
    }
  }
  // The link block is one sub-schema, instantiated at every link.
  for (const char* link : {"system.sip_link", "host.h2d", "host.d2h", "sip.cube_link",
                           "sip.io_link", "cube.pe_link"}) {
    EXPECT_EQ(s.children(link),
              (std::vector<std::string>{"bandwidth_gbps", "latency_ns", "packet_bytes",
                                        "header_bytes", "energy"}))
        << link;
    EXPECT_EQ(s.children(std::string(link) + ".energy"),
              (std::vector<std::string>{"pj_per_bit", "static_mw"}))
        << link;
  }
  EXPECT_EQ(s.children(""),
            (std::vector<std::string>{"name", "system", "host", "sip", "cube", "pe"}));
  EXPECT_TRUE(s.is_section("pe.cost_model"));
  EXPECT_NE(s.find_knob("pe.cost_model.max_composite_logical_bytes"), nullptr);
}

TEST(TopologySchema, EditDistanceAndSuggestions) {
  EXPECT_EQ(spelling_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(spelling_distance("", "abc"), 3u);
  EXPECT_EQ(spelling_distance("bandwith_gbps", "bandwidth_gbps"), 1u);
  const TopologySchema& s = topology_schema();
  EXPECT_EQ(s.suggest_child("sip.cube_link", "bandwith_gbps"), "bandwidth_gbps");
  EXPECT_EQ(s.suggest_child("", "xyzzy"), "");
  EXPECT_EQ(s.suggest_knob_paths("n_sips"), std::vector<std::string>{"system.n_sips"});
  EXPECT_EQ(format_size(1ull << 40), "1TiB");
  EXPECT_EQ(format_size(32768), "32KiB");
  EXPECT_EQ(format_size(1000), "1000B");
}

TEST(TopologyLoader, DescribeListsEveryKnobGroupedBySection) {
  const std::string d = describe_topology_knobs();
  EXPECT_EQ(d, describe_topology_knobs());
  for (const Knob& k : topology_schema().knobs()) {
    EXPECT_TRUE(HasSubstr(d, "  " + k.path + " ")) << k.path;
  }
  size_t last = 0;
  for (const char* header : {"system:\n", "host:\n", "sip:\n", "cube:\n", "pe:\n"}) {
    const size_t at = d.find(std::string("\n") + header);
    ASSERT_NE(at, std::string::npos) << header;
    EXPECT_GT(at, last) << header;
    last = at;
  }
  EXPECT_TRUE(HasSubstr(d, "<double>"));
  EXPECT_TRUE(HasSubstr(d, "<mesh|ring|torus2d>"));
  EXPECT_TRUE(HasSubstr(d, "default=torus2d"));
  EXPECT_TRUE(HasSubstr(d, "default=16GiB"));
}

// ---------------------------------------------------------------------------
// Values and overrides.

TEST(TopologyLoader, OverridesApplyOnTopOfTheFile) {
  const TopologyConfig c = load_topology_text(
      "sip:\n"
      "  cube_link:\n"
      "    bandwidth_gbps: 100\n",
      "t.yaml",
      {"sip.cube_link.bandwidth_gbps=64",      // double, overrides the file
       "pe.tcm.size_bytes=2MiB",               // size string
       "cube.sram.size_bytes = 1 MiB",         // spaces around '=' and inside the size
       "sip.topology=mesh",                    // enum
       "system.sip_topology=full",             // enum
       "pe.cost_model.per_byte_cycles=0.125",  // nested path
       "pe.hbm.queue_depth=0",                 // 0 = unbounded is allowed
       "name='my topo'"});                     // string, quotes stripped
  EXPECT_DOUBLE_EQ(c.sip.cube_link.bandwidth_gbps, 64);
  EXPECT_EQ(c.pe.tcm.size_bytes, 2ull << 20);
  EXPECT_EQ(c.cube.sram.size_bytes, 1ull << 20);
  EXPECT_EQ(c.sip.topology, CubeTopology::kMesh);
  EXPECT_EQ(c.system.sip_topology, SipTopology::kFull);
  EXPECT_DOUBLE_EQ(c.pe.cost_model.per_byte_cycles, 0.125);
  EXPECT_EQ(c.pe.hbm.queue_depth, 0u);
  EXPECT_EQ(c.name, "my topo");
  // The last override of a key wins.
  EXPECT_EQ(load_default_topology({"cube.pes=4", "cube.pes=16"}).cube.pes, 16u);
}

TEST(TopologyLoader, SizesAcceptBytesAndBinaryUnits) {
  const std::vector<std::pair<std::string, uint64_t>> cases = {
      {"4096", 4096},       {"512B", 512},        {"32KiB", 32768}, {"1 MiB", 1ull << 20},
      {"4GiB", 4ull << 30}, {"1TiB", 1ull << 40}, {"64kib", 65536},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.first);
    EXPECT_EQ(load_default_topology({"host.memory_bytes=" + c.first}).host.memory_bytes, c.second);
  }
  const TopologyConfig quoted =
      load_topology_text("cube:\n  sram:\n    size_bytes: \"16 MiB\"\n", "t.yaml");
  EXPECT_EQ(quoted.cube.sram.size_bytes, 16ull << 20);
}

// ---------------------------------------------------------------------------
// Errors in files: each names file:line:col and the key path.

TEST(TopologyLoader, MalformedYamlNamesLineAndColumn) {
  const std::string e = text_error("sip:\n  cubes_x: 4\n  cube_link: {bandwidth_gbps: 1\n");
  EXPECT_TRUE(StartsWith(e, "t.yaml:"));
  EXPECT_TRUE(HasSubstr(e, "YAML syntax error"));
  EXPECT_TRUE(MatchesRegex(e, "^t\\.yaml:[0-9]+:[0-9]+: YAML syntax error: "));
  const std::string tabs = text_error("sip:\n  cubes_x: 4\n cubes_y: 4\n");
  EXPECT_TRUE(MatchesRegex(tabs, "^t\\.yaml:3:[0-9]+: YAML syntax error: "));
}

TEST(TopologyLoader, UnknownKeySuggestsNearestSibling) {
  const std::string e = text_error(
      "sip:\n"
      "  cube_link:\n"
      "    bandwith_gbps: 64\n");
  EXPECT_EQ(e,
            "t.yaml:3:5: sip.cube_link.bandwith_gbps: unknown key 'bandwith_gbps' in section "
            "'sip.cube_link'; did you mean 'bandwidth_gbps'?");
}

TEST(TopologyLoader, UnknownKeyFarFromEveryKeyListsTheValidOnes) {
  const std::string e = text_error("cube:\n  colour: blue\n");
  EXPECT_TRUE(StartsWith(e, "t.yaml:2:3: cube.colour: unknown key 'colour' in section 'cube'"));
  EXPECT_TRUE(HasSubstr(e, "valid keys: pes, router_latency_ns, router_energy, pe_link, sram"));
}

TEST(TopologyLoader, UnknownTopLevelSection) {
  const std::string e = text_error("name: x\nchips:\n  n: 1\n");
  EXPECT_TRUE(StartsWith(e, "t.yaml:2:1: chips: unknown top-level section 'chips'"));
  EXPECT_TRUE(HasSubstr(e, "valid keys: name, system, host, sip, cube, pe"));
  const std::string near = text_error("sips:\n  cubes_x: 2\n");
  EXPECT_TRUE(HasSubstr(near, "did you mean 'sip'?"));
}

TEST(TopologyLoader, ZeroBandwidthIsRejected) {
  const std::string e = text_error(
      "sip:\n"
      "  cube_link:\n"
      "    bandwidth_gbps: 0\n");
  EXPECT_EQ(e, "t.yaml:3:21: sip.cube_link.bandwidth_gbps: must be > 0, got 0");
}

TEST(TopologyLoader, NegativeLatencyIsRejected) {
  const std::string e = text_error("host:\n  h2d: {latency_ns: -5}\n");
  EXPECT_EQ(e, "t.yaml:2:21: host.h2d.latency_ns: must be >= 0, got -5");
}

TEST(TopologyLoader, ZeroCubesXIsRejected) {
  const std::string e = text_error("sip:\n  cubes_x: 0\n");
  EXPECT_EQ(e, "t.yaml:2:12: sip.cubes_x: must be >= 1, got 0");
}

TEST(TopologyLoader, TypeErrorNamesTheExpectedType) {
  EXPECT_EQ(text_error("pe:\n  clock_ghz: abc\n"),
            "t.yaml:2:14: pe.clock_ghz: expected a number, got 'abc'");
  EXPECT_EQ(text_error("cube:\n  pes: 1.5\n"),
            "t.yaml:2:8: cube.pes: expected a non-negative integer, got '1.5'");
  EXPECT_EQ(text_error("cube:\n  pes: -2\n"), "t.yaml:2:8: cube.pes: must be >= 1, got -2");
  EXPECT_TRUE(StartsWith(text_error("sip:\n  topology: torus\n"),
                         "t.yaml:2:13: sip.topology: must be one of mesh, ring, torus2d; got "
                         "'torus'"));
  EXPECT_TRUE(StartsWith(text_error("pe:\n  clock_ghz:\n"),
                         "t.yaml:2:3: pe.clock_ghz: expected a double value, got an empty value"));
  EXPECT_EQ(text_error("pe:\n  clock_ghz: [1, 2]\n"),
            "t.yaml:2:14: pe.clock_ghz: expected a double value, got a sequence");
  EXPECT_TRUE(StartsWith(text_error("sip:\n  cube_link: 5\n"),
                         "t.yaml:2:14: sip.cube_link: expected a mapping (keys bandwidth_gbps, "
                         "latency_ns, packet_bytes, header_bytes, energy), got a scalar"));
  EXPECT_TRUE(StartsWith(text_error("- a\n- b\n"),
                         "t.yaml:1:1: expected a mapping of sections (name, system, host, sip, "
                         "cube, pe) at the top level, got a sequence"));
}

TEST(TopologyLoader, BadSizeUnitHintsAtBinaryUnits) {
  const std::string e = text_error("pe:\n  tcm:\n    size_bytes: 1MB\n");
  EXPECT_TRUE(StartsWith(e, "t.yaml:3:17: pe.tcm.size_bytes: "));
  EXPECT_TRUE(HasSubstr(e, "sizes are binary: write 1MiB instead of 1MB"));
  EXPECT_TRUE(HasSubstr(text_error("pe:\n  tcm:\n    size_bytes: lots\n"),
                        "expected a size: an integer number of bytes"));
  EXPECT_TRUE(HasSubstr(text_error("pe:\n  tcm:\n    size_bytes: 0\n"),
                        "pe.tcm.size_bytes: must be >= 1, got 0"));
}

TEST(TopologyLoader, MoreThanOneDocumentIsRejected) {
  EXPECT_TRUE(StartsWith(text_error("---\nname: a\n---\nname: b\n"),
                         "t.yaml:4:1: a topology file holds one YAML document, found 2"));
}

TEST(TopologyLoader, DuplicateKeyIsRejected) {
  const std::string e = text_error("cube:\n  pes: 4\n  pes: 8\n");
  EXPECT_EQ(e, "t.yaml:3:3: cube.pes: duplicate key (first given at line 2)");
}

TEST(TopologyLoader, AddressMapLimits) {
  EXPECT_EQ(text_error("cube:\n  pes: 65\n"),
            "t.yaml:2:8: cube.pes: must be <= 64 (the address map has 6 PE bits), got 65");
  EXPECT_TRUE(StartsWith(text_error("system:\n  n_sips: 65\n"),
                         "t.yaml:2:11: system.n_sips: must be <= 64"));
  EXPECT_TRUE(StartsWith(text_error("sip:\n  cubes_x: 16\n  cubes_y: 17\n"),
                         "t.yaml:2:12: sip.cubes_x: cubes_x * cubes_y = 16 * 17 = 272 cubes, "
                         "more than the address map's 256 per SIP"));
  EXPECT_TRUE(StartsWith(text_error("pe:\n  hbm:\n    size_bytes: 2TiB\n"),
                         "t.yaml:3:17: pe.hbm.size_bytes: must be <= 1TiB (the address map's "
                         "region limit), got 2TiB"));
}

TEST(TopologyLoader, IoCubeOutOfRange) {
  const std::string e = text_error("sip:\n  cubes_x: 2\n  cubes_y: 2\n  io_cube: 4\n");
  EXPECT_EQ(e, "t.yaml:4:12: sip.io_cube: must be < cubes_x * cubes_y = 2 * 2 = 4, got 4");
  // A grid shrunk by --set names the --set, and where the file gave io_cube.
  const std::string shrunk = text_error("sip:\n  io_cube: 5\n", {"sip.cubes_y=1"});
  EXPECT_EQ(shrunk,
            "--set sip.cubes_y=1: cubes_x * cubes_y = 4 * 1 = 4 leaves sip.io_cube = 5 "
            "(t.yaml:2:12) out of range (must be < 4)");
  // With io_cube at its default, the culprit is the key the user changed.
  EXPECT_TRUE(StartsWith(text_error("", {"sip.cubes_x=1", "sip.cubes_y=1", "sip.io_cube=1"}),
                         "--set sip.io_cube=1: must be < cubes_x * cubes_y = 1 * 1 = 1, got 1"));
}

TEST(TopologyLoader, HostSipOutOfRange) {
  EXPECT_EQ(text_error("system:\n  host_sip: 1\n"),
            "t.yaml:2:13: system.host_sip: must be < system.n_sips = 1, got 1");
}

TEST(TopologyLoader, D2hFasterThanH2dIsRejected) {
  const std::string e = text_error("host:\n  d2h:\n    bandwidth_gbps: 128\n");
  EXPECT_EQ(e,
            "t.yaml:3:21: host.d2h.bandwidth_gbps: must be <= host.h2d.bandwidth_gbps = 64, got "
            "128 (D2H is never faster than H2D)");
  // Lowering h2d below the default d2h names h2d.
  EXPECT_TRUE(StartsWith(set_error("host.h2d.bandwidth_gbps=16"),
                         "--set host.h2d.bandwidth_gbps=16: must be >= host.d2h.bandwidth_gbps = "
                         "32, got 16"));
}

TEST(TopologyLoader, HbmGeometryIsChecked) {
  EXPECT_EQ(text_error("pe:\n  hbm:\n    interleave_bytes: 1000\n"),
            "t.yaml:3:23: pe.hbm.interleave_bytes: must be a power of two, got 1000");
  EXPECT_TRUE(StartsWith(text_error("pe:\n  hbm:\n    size_bytes: 3KiB\n"),
                         "t.yaml:3:17: pe.hbm.size_bytes: must be a multiple of interleave_bytes "
                         "* num_pcs = 1024 * 2, got 3KiB"));
  EXPECT_TRUE(StartsWith(set_error("pe.hbm.num_pcs=3"),
                         "--set pe.hbm.num_pcs=3: pe.hbm.size_bytes = 1GiB is not a multiple"));
}

TEST(TopologyLoader, MissingFile) {
  const std::string e = config_error([] { load_topology_file("/nonexistent/nope.yaml"); });
  EXPECT_EQ(e, "cannot open topology file '/nonexistent/nope.yaml': No such file or directory");
}

TEST(TopologyLoader, ErrorsInShippedFilesNameThePath) {
  const std::string path = test::source_path("topologies/tiny.yaml");
  const std::string e =
      config_error([&] { load_topology_file(path, {"sip.cube_link.bandwidth_gbps=0"}); });
  EXPECT_EQ(e, "--set sip.cube_link.bandwidth_gbps=0: must be > 0, got 0");
  const std::string d = config_error([&] { load_topology_file(path, {"cube.pes=0"}); });
  EXPECT_EQ(d, "--set cube.pes=0: must be >= 1, got 0");
}

// ---------------------------------------------------------------------------
// Errors in --set.

TEST(TopologyLoader, MalformedSet) {
  EXPECT_EQ(set_error("abc"), "--set 'abc': expected key.path=value");
  EXPECT_EQ(set_error("=5"), "--set '=5': empty key path; expected key.path=value");
  EXPECT_TRUE(StartsWith(set_error("sip.cube_link=5"),
                         "--set 'sip.cube_link=5': 'sip.cube_link' is a section; --set sets one "
                         "knob at a time, one of sip.cube_link.bandwidth_gbps"));
}

TEST(TopologyLoader, SetUnknownKeySuggestsNearestPath) {
  EXPECT_EQ(set_error("sip.cube_link.bandwith_gbps=1"),
            "--set 'sip.cube_link.bandwith_gbps=1': unknown key 'sip.cube_link.bandwith_gbps'; "
            "did you mean 'sip.cube_link.bandwidth_gbps'?");
  EXPECT_EQ(set_error("n_sips=2"),
            "--set 'n_sips=2': unknown key 'n_sips'; did you mean 'system.n_sips'?");
  EXPECT_EQ(set_error("cube_link.bandwidth_gbps=1"),
            "--set 'cube_link.bandwidth_gbps=1': unknown key 'cube_link.bandwidth_gbps'; did you "
            "mean 'sip.cube_link.bandwidth_gbps'?");
  EXPECT_TRUE(HasSubstr(set_error("frobnicate=1"), "unknown key 'frobnicate' (kernbench"));
}

// A knob named without its unit suffix is the knob with it.
TEST(TopologyLoader, AKeyWithoutItsUnitSuffixSuggestsTheKnob) {
  EXPECT_EQ(set_error("pe.tcm.size=1MiB"),
            "--set 'pe.tcm.size=1MiB': unknown key 'pe.tcm.size'; did you mean "
            "'pe.tcm.size_bytes'?");
  EXPECT_EQ(set_error("sip.cube_link.bandwidth=64"),
            "--set 'sip.cube_link.bandwidth=64': unknown key 'sip.cube_link.bandwidth'; did you "
            "mean 'sip.cube_link.bandwidth_gbps'?");
  EXPECT_EQ(text_error("pe:\n  tcm:\n    size: 1MiB\n"),
            "t.yaml:3:5: pe.tcm.size: unknown key 'size' in section 'pe.tcm'; did you mean "
            "'size_bytes'?");
  // Only a unit: 'pe' is one edit from 'pes', not the section 'pe_link'.
  EXPECT_EQ(set_error("cube.pe=4"),
            "--set 'cube.pe=4': unknown key 'cube.pe'; did you mean 'cube.pes'?");
  EXPECT_TRUE(HasSubstr(text_error("cube:\n  pe: 4\n"), "did you mean 'pes'?"));
}

TEST(TopologyLoader, SetBadValue) {
  EXPECT_EQ(set_error("sip.cubes_x=0"), "--set sip.cubes_x=0: must be >= 1, got 0");
  EXPECT_EQ(set_error("pe.clock_ghz=fast"),
            "--set pe.clock_ghz=fast: expected a number, got 'fast'");
  EXPECT_TRUE(StartsWith(set_error("pe.tcm.size_bytes=2MB"),
                         "--set pe.tcm.size_bytes=2MB: sizes are binary: write 2MiB"));
  EXPECT_TRUE(StartsWith(set_error("sip.topology=hypercube"),
                         "--set sip.topology=hypercube: must be one of mesh, ring, torus2d"));
}

TEST(TopologyLoader, EnergyKnobsAreBoundedAndSpelledOut) {
  EXPECT_EQ(text_error("pe:\n  hbm:\n    energy: {read_pj_per_byte: -1}\n"),
            "t.yaml:3:32: pe.hbm.energy.read_pj_per_byte: must be >= 0, got -1");
  EXPECT_TRUE(HasSubstr(set_error("sip.cube_link.energy.pj_per_bit=.nan"),
                        "sip.cube_link.energy.pj_per_bit"));
  EXPECT_TRUE(HasSubstr(set_error("pe.gemm.energy.pj_per_flop=inf"), "pe.gemm.energy.pj_per_flop"));
  const std::string unknown = text_error("pe:\n  dma:\n    energy:\n      pj_per_brust: 3\n");
  EXPECT_TRUE(StartsWith(unknown, "t.yaml:4:7: pe.dma.energy.pj_per_brust: unknown key"));
  EXPECT_TRUE(HasSubstr(unknown, "did you mean 'pj_per_burst'?"));
  EXPECT_TRUE(HasSubstr(set_error("pe.math.energy.static_w=1"),
                        "did you mean 'pe.math.energy.static_mw'?"));
  const TopologyConfig c =
      load_topology_text("cube:\n  sram:\n    energy: {write_pj_per_byte: 7}\n", "t.yaml",
                         {"pe.xbar_energy.static_mw=0.5"});
  EXPECT_EQ(c.cube.sram.energy.write_pj_per_byte, 7.0);
  EXPECT_EQ(c.cube.sram.energy.read_pj_per_byte, 12.5);  // the default stays
  EXPECT_EQ(c.pe.xbar_energy.static_mw, 0.5);
}

}  // namespace
}  // namespace kb

namespace kb {
namespace {

// The banked HBM device: a preset fills the section, a file's key wins over
// it, and a bad preset or a page that is not whole columns is an error that
// names the keys.
TEST(TopologyLoader, BankedHbmPresetAndItsErrors) {
  const TopologyConfig hbm2e = load_topology_text(
      "pe:\n  hbm:\n    model: banked\n    banked:\n      preset: hbm2e\n"
      "      tFAW_ns: 30\n",
      "t.yaml");
  EXPECT_EQ(hbm2e.pe.hbm.model, HbmModel::kBanked);
  EXPECT_DOUBLE_EQ(hbm2e.pe.hbm.banked.tCL_ns, dram_preset(DramPreset::kHbm2e).tCL_ns);
  EXPECT_DOUBLE_EQ(hbm2e.pe.hbm.banked.tFAW_ns, 30);
  EXPECT_EQ(load_topology_text("", "t.yaml").pe.hbm.model, HbmModel::kQueue);

  const std::string preset = set_error("pe.hbm.banked.preset=hbm4");
  EXPECT_NE(preset.find("pe.hbm.banked.preset"), std::string::npos) << preset;
  EXPECT_NE(preset.find("hbm3"), std::string::npos) << preset;
  const std::string page = set_error("pe.hbm.banked.page_bytes=1000");
  EXPECT_NE(page.find("pe.hbm.banked.page_bytes"), std::string::npos) << page;
  EXPECT_NE(page.find("column_bytes"), std::string::npos) << page;
}

}  // namespace
}  // namespace kb
