#include "tests/fuzz/fuzz_bodies.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "models/common/address_map.h"
#include "models/common/errors.h"
#include "platform/bench/address_text.h"
#include "platform/bench/bench.h"
#include "platform/config/topology_loader.h"
#include "platform/output/result_writer.h"
#include "platform/runtime/npy.h"
#include "platform/sweep/sweep_spec.h"

namespace kb {
namespace fuzz {

namespace {

// An accepted value broke a promise of its parser: a bug, whatever the input.
[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
  std::abort();
}

void expect(bool ok, const std::string& what) {
  if (!ok) broken(what);
}

void check_link(const LinkConfig& l, const std::string& name) {
  expect(std::isfinite(l.bandwidth_gbps) && l.bandwidth_gbps > 0, name + ".bandwidth_gbps > 0");
  expect(std::isfinite(l.latency_ns) && l.latency_ns >= 0, name + ".latency_ns >= 0");
  expect(l.packet_bytes >= 1, name + ".packet_bytes >= 1");
}

void check_positive(double v, const std::string& name) {
  expect(std::isfinite(v) && v > 0, name + " > 0 and finite");
}

void check_non_negative(double v, const std::string& name) {
  expect(std::isfinite(v) && v >= 0, name + " >= 0 and finite");
}

// What the loader promises about every TopologyConfig it returns (the
// constraints in the blocks' visit() lists and the loader's cross-field checks).
void check_topology(const TopologyConfig& c) {
  expect(c.system.n_sips >= 1 && c.system.n_sips <= addr_bits::kMaxSips, "1 <= n_sips <= 64");
  expect(c.system.host_sip < c.system.n_sips, "host_sip < n_sips");
  expect(c.sip.cubes_x >= 1 && c.sip.cubes_y >= 1, "cube grid non-empty");
  expect(uint64_t{c.sip.cubes_x} * c.sip.cubes_y <= addr_bits::kMaxCubes, "cubes per SIP <= 256");
  expect(c.sip.io_cube < c.cubes_per_sip(), "io_cube < cubes per SIP");
  expect(c.cube.pes >= 1 && c.cube.pes <= addr_bits::kMaxPes, "1 <= pes <= 64");
  check_link(c.system.sip_link, "system.sip_link");
  check_link(c.host.h2d, "host.h2d");
  check_link(c.host.d2h, "host.d2h");
  expect(c.host.d2h.bandwidth_gbps <= c.host.h2d.bandwidth_gbps, "d2h <= h2d bandwidth");
  check_link(c.sip.cube_link, "sip.cube_link");
  check_link(c.sip.io_link, "sip.io_link");
  check_link(c.cube.pe_link, "cube.pe_link");
  expect(c.host.memory_bytes >= 1 && c.host.memory_bytes <= addr_bits::kMaxRegionBytes,
         "host.memory_bytes in [1, 1 TiB]");
  check_positive(c.host.memory_bandwidth_gbps, "host.memory_bandwidth_gbps");
  check_non_negative(c.host.memory_latency_ns, "host.memory_latency_ns");
  check_non_negative(c.sip.hub_latency_ns, "sip.hub_latency_ns");
  check_non_negative(c.cube.router_latency_ns, "cube.router_latency_ns");
  expect(c.cube.sram.size_bytes >= 1 && c.cube.sram.size_bytes <= addr_bits::kMaxRegionBytes,
         "cube.sram.size_bytes in [1, 1 TiB]");
  check_positive(c.cube.sram.bandwidth_gbps, "cube.sram.bandwidth_gbps");
  check_non_negative(c.cube.sram.latency_ns, "cube.sram.latency_ns");
  check_positive(c.pe.clock_ghz, "pe.clock_ghz");
  check_non_negative(c.pe.xbar_latency_ns, "pe.xbar_latency_ns");
  const HbmConfig& h = c.pe.hbm;
  expect(h.num_pcs >= 1, "pe.hbm.num_pcs >= 1");
  expect(h.interleave_bytes != 0 && (h.interleave_bytes & (h.interleave_bytes - 1)) == 0,
         "pe.hbm.interleave_bytes is a power of two");
  expect(h.size_bytes >= 1 && h.size_bytes <= addr_bits::kMaxRegionBytes,
         "pe.hbm.size_bytes in [1, 1 TiB]");
  expect(h.interleave_bytes <= h.size_bytes / h.num_pcs &&
             h.size_bytes % (h.interleave_bytes * h.num_pcs) == 0,
         "pe.hbm.size_bytes is a multiple of interleave_bytes * num_pcs");
  check_positive(h.pc_bandwidth_gbps, "pe.hbm.pc_bandwidth_gbps");
  check_non_negative(h.access_latency_ns, "pe.hbm.access_latency_ns");
  expect(c.pe.tcm.size_bytes >= 1 && c.pe.tcm.size_bytes <= addr_bits::kMaxRegionBytes,
         "pe.tcm.size_bytes in [1, 1 TiB]");
  check_positive(c.pe.tcm.bandwidth_gbps, "pe.tcm.bandwidth_gbps");
  check_non_negative(c.pe.tcm.latency_ns, "pe.tcm.latency_ns");
  expect(c.pe.dma.burst_bytes >= 1, "pe.dma.burst_bytes >= 1");
  expect(c.pe.dma.max_outstanding >= 1, "pe.dma.max_outstanding >= 1");
  check_non_negative(c.pe.dma.setup_ns, "pe.dma.setup_ns");
}

// The loaded topology as the CLI writes it into the JSON result: any string
// the user typed (name, overrides) must survive serialisation.
void check_serialises(const TopologyConfig& c, const std::vector<std::string>& overrides) {
  nlohmann::json j;
  j["topology"] = {{"name", c.name}, {"source", c.source}, {"overrides", overrides}};
  (void)format_json(j);
}

}  // namespace

std::vector<std::string> split_lines(const uint8_t* data, size_t size, size_t max_lines) {
  std::vector<std::string> lines;
  const char* p = reinterpret_cast<const char*>(data);
  const char* end = p + size;
  while (p < end && lines.size() < max_lines) {
    const char* nl = p;
    while (nl < end && *nl != '\n') ++nl;
    lines.emplace_back(p, nl);
    p = nl + 1;
  }
  return lines;
}

void topology_yaml(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const TopologyConfig c = load_topology_text(text, "<fuzz>");
    check_topology(c);
    check_serialises(c, {});
  } catch (const ConfigError&) {
    // A message for the user: the expected outcome for most inputs.
  }
}

void set_override(const uint8_t* data, size_t size) {
  const std::vector<std::string> overrides = split_lines(data, size, 16);
  try {
    const TopologyConfig c = load_default_topology(overrides);
    check_topology(c);
    check_serialises(c, overrides);
  } catch (const ConfigError&) {
  }
}

void bench_params(const uint8_t* data, size_t size) {
  if (size == 0) return;
  static const BenchRegistry registry = BenchRegistry::with_builtin_benches();
  // Every bench's parameter specs, as one list (the parsers are shared).
  static const std::vector<ParamSpec> specs = [] {
    std::vector<ParamSpec> all;
    for (const Bench* b : registry.all())
      for (const ParamSpec& s : b->params()) all.push_back(s);
    return all;
  }();
  const std::vector<std::string> overrides = split_lines(data, size, 16);
  std::optional<BenchParams> params;
  try {
    params.emplace("fuzz", specs, overrides);
  } catch (const UsageError&) {
    return;
  }
  for (const ParamSpec& s : specs) {
    try {
      (void)params->integer(s.name);
    } catch (const UsageError&) {
    }
    try {
      (void)params->number(s.name);
    } catch (const UsageError&) {
    }
    try {
      const std::string& text = params->str(s.name);
      const uint64_t a = parse_address_text(text, "--param " + s.name);
      // A symbolic address (hbm:, tcm:, sram:, host) is mapped by
      // construction; a raw 0x address is taken as given, mapped or not.
      const bool raw = text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
      const auto loc = decode_address(a);
      expect(raw || loc.has_value(), "'" + text + "' decodes: " + format_address(a));
      expect(!loc || encode_address(*loc) == a, "'" + text + "' re-encodes to itself");
    } catch (const UsageError&) {
    }
    try {
      const PeId pe = parse_pe_text(params->str(s.name), "--param " + s.name);
      expect(pe.sip <= 0xFFFF && pe.cube <= 0xFFFF && pe.pe <= 0xFFFF, "PE fields <= 0xFFFF");
    } catch (const UsageError&) {
    }
  }
  nlohmann::json j;
  j["params"] = params->to_json();
  (void)format_json(j);
}

void npy(const uint8_t* data, size_t size) {
  const std::string content(reinterpret_cast<const char*>(data), size);
  NpyArray a;
  try {
    a = parse_npy(content, "<fuzz>");
  } catch (const UsageError&) {
    return;
  }
  uint64_t elements = 1;
  for (const int64_t d : a.shape) {
    expect(d >= 0, "a .npy dimension is >= 0");
    expect(!__builtin_mul_overflow(elements, static_cast<uint64_t>(d), &elements),
           "a .npy shape's element count fits 64 bits");
  }
  uint64_t bytes = 0;
  expect(!__builtin_mul_overflow(elements, uint64_t{dtype_bytes(a.dtype)}, &bytes) &&
             a.bytes.size() == bytes,
         "a .npy array holds exactly shape x element-size bytes");
  NpyArray b;
  try {
    b = parse_npy(format_npy(a), "<round trip>");
  } catch (const UsageError& e) {
    broken(std::string("format_npy output does not parse: ") + e.what());
  }
  expect(b.shape == a.shape && b.dtype == a.dtype && b.bytes == a.bytes,
         "format_npy + parse_npy round-trips");
}

void sweep_spec(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  SweepSpec s;
  try {
    s = load_sweep_spec_text(text, "<fuzz>");
  } catch (const ConfigError&) {
    return;
  }
  uint64_t product = 1;
  for (const SweepAxis& a : s.axes) {
    expect(!a.values.empty(), "a sweep axis has values");
    product *= a.values.size();
  }
  expect(product <= 100000, "an accepted grid has at most 100000 points");
  const std::vector<SweepPoint> points = s.expand();
  expect(points.size() == product, "the grid expands to the product of its axes");
  for (size_t i = 0; i < points.size() && i < 4; ++i) {
    const auto argv = s.command("kernbench", points[i], "p.json");
    expect(argv.size() >= 6 && argv[3] == s.bench && argv.back() == "p.json",
           "a point's command names the bench and its JSON file");
  }
}

}  // namespace fuzz
}  // namespace kb
