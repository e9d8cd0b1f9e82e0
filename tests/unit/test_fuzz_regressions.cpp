// The fuzz targets' bodies (tests/fuzz/fuzz_bodies.h) on every committed seed
// and on every input that once crashed them (tests/fuzz/regressions/), in the
// ordinary suite: a fixed crash stays fixed on builds without clang, and the
// sanitizer pass of the suite replays them under ASan + UBSan too. Each bug
// the fuzzers found also has a named test below that states the expected
// behaviour in words.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "models/common/errors.h"
#include "platform/config/topology_loader.h"
#include "platform/output/result_writer.h"
#include "platform/runtime/npy.h"
#include "tests/fuzz/fuzz_bodies.h"

namespace kb {
namespace {

namespace fs = std::filesystem;

struct Target {
  const char* name;
  std::function<void(const uint8_t*, size_t)> body;
  std::vector<std::string> extra_seed_dirs;
};

const Target kTargets[] = {
    {"fuzz_topology_yaml", fuzz::topology_yaml, {"topologies"}},
    {"fuzz_set_override", fuzz::set_override, {}},
    {"fuzz_bench_params", fuzz::bench_params, {}},
    {"fuzz_npy", fuzz::npy, {}},
    {"fuzz_sweep_spec", fuzz::sweep_spec, {}},
    {"fuzz_simulate", fuzz::simulate, {}},
};

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void PrintTo(const Target& t, std::ostream* os) {
  *os << t.name;
}

class FuzzReplay : public ::testing::TestWithParam<Target> {};

TEST_P(FuzzReplay, SeedsAndRegressionsRunClean) {
  const Target& t = GetParam();
  std::vector<std::string> dirs = {std::string("tests/fuzz/corpus/") + t.name,
                                   std::string("tests/fuzz/regressions/") + t.name};
  dirs.insert(dirs.end(), t.extra_seed_dirs.begin(), t.extra_seed_dirs.end());
  size_t inputs = 0;
  for (const std::string& d : dirs) {
    const fs::path dir = fs::path(KB_SOURCE_DIR) / d;
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      SCOPED_TRACE(f.string());
      const std::string bytes = read_bytes(f);
      t.body(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++inputs;
    }
  }
  EXPECT_GT(inputs, 0u) << "no seeds for " << t.name;
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzReplay, ::testing::ValuesIn(kTargets),
                         [](const auto& info) { return std::string(info.param.name); });

// fuzz_topology_yaml, 10 bytes ",\x9e, !\x01!\x01\n,": kernbench hung for ever
// (and grew without bound) on a topology file whose top level holds a stray
// ','; yaml-cpp 0.7's LoadAll() never gets past it. Now a syntax error.
TEST(FuzzRegression, StrayCommaInTopologyYamlIsASyntaxErrorNotAHang) {
  for (const char* text : {",", ", a", ",\x9e, !\x01!\x01\n,", "# c\n  ,\n"}) {
    try {
      (void)load_topology_text(text, "t.yaml");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("YAML syntax error"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("t.yaml:", 0), 0u) << e.what();
    }
  }
}

// fuzz_set_override / fuzz_bench_params: a topology name, --set or --param
// value that is not UTF-8 made the JSON writer throw after the run had
// finished (kernbench exit 1, no result). Invalid bytes now become U+FFFD.
TEST(FuzzRegression, ResultJsonWithInvalidUtf8IsWrittenNotThrown) {
  nlohmann::json j;
  j["topology"] = {{"name", std::string("unnam\t\0\xff\xff", 9)}};
  j["params"] = {{"bytes",
                  "0x8\xff\xff"
                  "000"}};
  std::string text;
  ASSERT_NO_THROW(text = format_json(j));
  EXPECT_NE(text.find("\xef\xbf\xbd"), std::string::npos) << text;  // U+FFFD in UTF-8
  EXPECT_NE(text.find("unnam\\t\\u0000"), std::string::npos) << text;
}

// A version-1 .npy file with `header_dict` as its header and no data.
std::string npy_with_header(const std::string& header_dict) {
  std::string header = header_dict;
  header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  return out + header;
}

// fuzz_npy: an empty (or unparenthesised) shape in a .npy header escaped
// parse_npy as std::out_of_range (kernbench: "internal error", exit 1)
// instead of a UsageError naming the file.
TEST(FuzzRegression, NpyWithoutAParenthesisedShapeIsAUsageError) {
  for (const char* shape : {"", "3", "(", ")"}) {
    const std::string npy = npy_with_header(
        std::string("{'descr': '<f4', 'fortran_order': False, 'shape': ") + shape + ", }");
    try {
      (void)parse_npy(npy, "x.npy");
      ADD_FAILURE() << "accepted shape " << shape;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("x.npy: "), std::string::npos) << e.what();
    }
  }
}

// Found reading parse_npy for the fuzz oracle: the element count was checked
// only after multiplying, so (2^40, 2^40) wrapped to 0 elements and a file
// with no data was accepted as a 2^80-element array.
TEST(FuzzRegression, NpyShapeWhoseElementCountOverflowsIsRejected) {
  const std::string npy = npy_with_header(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }");
  try {
    (void)parse_npy(npy, "x.npy");
    ADD_FAILURE() << "accepted a 2^80-element array with no data";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("array too large"), std::string::npos) << e.what();
  }
}

TEST(FuzzSplitLines, SplitsOnNewlinesAndCapsTheCount) {
  const std::string in = "a=1\n\nb=2\nc";
  const auto* p = reinterpret_cast<const uint8_t*>(in.data());
  EXPECT_EQ(fuzz::split_lines(p, in.size(), 16), (std::vector<std::string>{"a=1", "", "b=2", "c"}));
  EXPECT_EQ(fuzz::split_lines(p, in.size(), 2), (std::vector<std::string>{"a=1", ""}));
}

}  // namespace
}  // namespace kb
