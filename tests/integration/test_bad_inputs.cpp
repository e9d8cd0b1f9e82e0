// Bad inputs, one row per class: each runs the real kernbench in a scratch
// directory and checks the exit code, that stderr is one line holding a
// fragment of the expected message, and that nothing is left behind (no
// temporary, no partial VCD, no output of a run that failed). The rows are the
// classes of a tour of hostile but realistic inputs (scripts/bad_input_tour.sh
// runs the long version); the special-file, signal and lost-result cases that
// need more than a command line have tests of their own below.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::describe;
using test::read_text;
using test::RunResult;
using test::TempDir;
using test::write_text;

using test::kTiny;

struct BadInput {
  const char* name;
  std::vector<std::string> args;  // "@" in an argument becomes the scratch directory
  int exit_code;
  const char* fragment;  // of the one stderr line
};

std::ostream& operator<<(std::ostream& os, const BadInput& b) {
  return os << b.name;
}

const std::vector<BadInput>& bad_inputs() {
  static const std::vector<BadInput> rows = {
      // Outputs, checked before the run.
      {"json_to_directory", {"-t", kTiny, "-b", "dma", "--json", "@"}, 2, "is a directory"},
      {"oplog_dot_loses_no_json",
       {"-t", kTiny, "-b", "dma", "--oplog", ".", "--json", "@/ok.json"},
       2,
       "names a directory"},
      {"vcd_in_proc", {"-t", kTiny, "-b", "dma", "--vcd", "/proc/x"}, 2, "cannot create files"},
      {"vcd_dot", {"-t", kTiny, "-b", "dma", "--vcd", "@/."}, 2, "names a directory"},
      {"missing_directory",
       {"-t", kTiny, "-b", "dma", "--trace", "@/no/such/t.json"},
       2,
       "does not exist"},
      {"name_over_255",
       {"-t", kTiny, "-b", "dma", "--json", "@/" + std::string(300, 'a')},
       2,
       "longer than the 255"},
      {"two_outputs_one_path",
       {"-t", kTiny, "-b", "dma", "--json", "@/x", "--oplog", "@/x"},
       2,
       "name the same file"},
      {"vcd_to_char_device",
       {"-t", kTiny, "-b", "dma", "--vcd", "/dev/null"},
       2,
       "needs a regular file"},
      {"emit_slurm_dot",
       {"--sweep", "@/spec.yaml", "--out", "@/out", "--emit-slurm", "@/."},
       2,
       "names a directory"},
      {"vcd_of_a_run_that_faults",
       {"-t", kTiny, "-b", "dma", "-p", "dst=0x5000000000000000", "--vcd", "@/w.vcd"},
       3,
       "simulation fault"},
      {"empty_json_name", {"-t", kTiny, "-b", "dma", "--json", ""}, 2, "the file name is empty"},
      {"empty_topology_name", {"-t", "", "--check-topology"}, 2, "the file name is empty"},
      {"empty_bench_name", {"-t", kTiny, "--bench", ""}, 2, "the bench name is empty"},
      // Sizes, checked in 64 bits before anything is allocated.
      {"gemm_2_to_the_32",
       {"-t", kTiny, "-b", "gemm", "-p", "M=4294967296", "-p", "K=4294967296", "-p", "N=4294967296",
        "-p", "variant=ref_ref"},
       2,
       "larger than 2^63 bytes"},
      {"gemm_sweep_2_to_the_32",
       {"-t", kTiny, "-b", "gemm-sweep", "-p", "shapes=4294967296x4294967296x4294967296"},
       2,
       "larger than 2^63 bytes"},
      {"gemm_beyond_hbm",
       {"-t", kTiny, "-b", "gemm", "-p", "M=65536", "-p", "K=65536", "-p", "N=65536"},
       2,
       "pe.hbm.size_bytes"},
      {"param_beyond_64_bits",
       {"-t", kTiny, "-b", "dma", "-p", "bytes=16777216TiB"},
       2,
       "up to 2^63"},
      {"param_beyond_63_bits",
       {"-t", kTiny, "-b", "dma", "-p", "bytes=9223372036854775808"},
       2,
       "up to 2^63"},
      {"attention_tile_past_its_bound",
       {"-t", kTiny, "-b", "gqa-short", "-p", "S_kv=4294967296", "-p", "heads=16", "-p",
        "kv_heads=2", "-p", "kv_per_cube=1", "-p", "tile=0x5000000000000000"},
       2,
       "out of range"},
      // Knob minimums and OS limits.
      {"stack_12KiB",
       {"-t", kTiny, "--set", "pe.cpu.stack_bytes=12KiB", "-b", "gqa-decode"},
       2,
       "must be >= 256KiB"},
      {"stack_16_bytes",
       {"-t", kTiny, "--set", "pe.cpu.stack_bytes=16", "-b", "gqa-decode"},
       2,
       "must be >= 256KiB"},
      {"stack_1TiB",
       {"-t", kTiny, "--set", "pe.cpu.stack_bytes=1TiB", "--check-topology"},
       2,
       "must be <= 256MiB"},
      {"pes_beyond_the_address_map",
       {"--set", "cube.pes=4294967297", "--check-topology"},
       2,
       "must be <= 64"},
      {"elaboration_past_max_map_count",
       {"--set", "system.n_sips=8", "--set", "sip.cubes_x=16", "--set", "sip.cubes_y=16", "--set",
        "cube.pes=64", "--check-topology"},
       2,
       "vm.max_map_count"},
      // Topology input.
      {"topology_dev_zero", {"-t", "/dev/zero", "--check-topology"}, 2, "not a regular file"},
      {"topology_directory", {"-t", "@", "--check-topology"}, 2, "Is a directory"},
      {"topology_empty", {"-t", "@/empty.yaml", "--check-topology"}, 2, "is empty"},
      {"topology_too_large", {"-t", "@/big.yaml", "--check-topology"}, 2, "16 MiB"},
      {"topology_deep_nesting", {"-t", "@/deep.yaml", "--check-topology"}, 2, "nests deeper"},
      // Command line.
      {"stray_positional",
       {"-t", kTiny, "-b", "dma", "--param", "bytes=4096", "rows=2"},
       2,
       "unexpected argument 'rows=2'"},
      {"param_given_twice",
       {"-t", kTiny, "-b", "dma", "-p", "bytes=4096", "-p", "bytes=8192"},
       2,
       "given twice"},
      {"jobs_negative", {"-j", "-1", "--list-benches"}, 2, "from 1 to 256"},
      {"jobs_zero", {"-j", "0", "--list-benches"}, 2, "from 1 to 256"},
      {"jobs_word", {"-j", "two", "--list-benches"}, 2, "from 1 to 256"},
      {"empty_list_item",
       {"-t", kTiny, "-b", "allreduce", "-p", "bytes_per_pe=4KiB,,8KiB"},
       2,
       "an empty item"},
      {"math_unknown_op", {"-t", kTiny, "-b", "math", "-p", "ops=foo"}, 2, "not a MATH op"},
      {"math_no_op", {"-t", kTiny, "-b", "math", "-p", "ops="}, 2, "at least one MATH op"},
      {"gemm_sweep_no_shape",
       {"-t", kTiny, "-b", "gemm-sweep", "-p", "shapes="},
       2,
       "at least one"},
      {"probe_contention_2", {"-t", kTiny, "-b", "probe", "-p", "contention=2"}, 2, "0 or 1"},
      {"set_value_with_a_newline",
       {"-t", kTiny, "--set", "cube.pes=2\nsecond line", "--check-topology"},
       2,
       "\\n"},
      {"merge_without_sweep", {"--merge"}, 2, "needs --sweep"},
      {"jobs_without_sweep", {"-j", "4", "--check-topology"}, 2, "needs --sweep"},
      {"two_sweep_modes",
       {"--sweep", "@/spec.yaml", "--out", "@/out", "--emit-jobs", "@/j", "--merge"},
       2,
       "exclude each other"},
      {"sweep_with_a_bench", {"--sweep", "@/spec.yaml", "--out", "@/out", "-b", "gemm"}, 2, "spec"},
      {"sweep_duplicate_key", {"--sweep", "@/twice.yaml", "--out", "@/out"}, 2, "given twice"},
      {"sweep_failing_point_quiet",
       {"--sweep", "@/fail.yaml", "--out", "@/out", "-q"},
       3,
       "1 of 2 points failed"},
      // Sweeps.
      {"sweep_merge_nothing",
       {"--sweep", "@/spec.yaml", "--out", "@/nothing", "--merge"},
       2,
       "no point results"},
      {"sweep_param_typo", {"--sweep", "@/typo.yaml", "--out", "@/out"}, 2, "did you mean 'bytes'"},
      {"sweep_unknown_column",
       {"--sweep", "@/columns.yaml", "--out", "@/out", "-q"},
       2,
       "columns.yaml:5:11: columns: bench 'dma' has no point field 'latncy_ns'; did you mean "
       "'latency_ns'?"},
      // Numbers past a knob's range, or past a double, are "out of range"
      // with the range; so are the products that would make one event
      // longer than a second.
      {"clock_below_its_range",
       {"-t", kTiny, "-b", "dma", "--set", "pe.clock_ghz=5e-7"},
       2,
       "pe.clock_ghz=5e-7: out of range [0.001, 100]"},
      {"single_op_cycles_above_their_range",
       {"-t", kTiny, "--set", "pe.cost_model.fixed_per_single_op_cmd_cycles=7.5e12",
        "--check-topology"},
       2,
       "out of range [0, 1e6]"},
      {"bandwidth_past_a_double",
       {"-t", kTiny, "--set", "sip.io_link.bandwidth_gbps=3e400", "--check-topology"},
       2,
       "out of range [0.001, 1e6]"},
      {"latency_past_minus_a_double",
       {"-t", kTiny, "--set", "pe.dma.setup_ns=-2e500", "--check-topology"},
       2,
       "out of range [0, 1e9]"},
      {"clock_in_a_topology_file",
       {"-t", "@/slow_clock.yaml", "--check-topology"},
       2,
       "slow_clock.yaml:2:14: pe.clock_ghz: out of range [0.001, 100]"},
      {"gemm_tile_longer_than_a_second",
       {"-t", kTiny, "--set", "pe.gemm.peak_tflops=0.002", "--set", "pe.gemm.tile_k=8192", "--set",
        "pe.gemm.tile_n=512", "--set", "pe.gemm.tile_m=256", "-b", "gemm"},
       2,
       "more than a second"},
      {"model_dim_past_64_bits",
       {"-t", kTiny, "-b", "llm", "-p", "model=llama3_8b", "-p", "model.ffn=123456789012345678901"},
       2,
       "out of range [1, "},
      {"model_theta_below_a_double",
       {"-t", kTiny, "-b", "llm", "-p", "model=llama3_8b", "-p", "model.rope_theta=3e-330"},
       2,
       "out of range [1, 1e12]"},
      {"model_file_dim_past_64_bits",
       {"-t", kTiny, "-b", "llm", "-p", "model=@/huge_model.yaml"},
       2,
       "huge_model.yaml:3:9: hidden: hidden = 123456789012345678901234 is out of range"},
      {"topology_key_over_1024_characters",
       {"-t", "@/long_key.yaml", "--check-topology"},
       2,
       "a key of 1500 characters: YAML reads at most 1024"},
      // Options the chosen mode never reads, and parameters the chosen
      // phase or mapping does not use.
      {"sweep_with_oplog",
       {"--sweep", "@/spec.yaml", "--out", "@/out", "--oplog", "@/x.jsonl"},
       2,
       "--sweep does not use --oplog"},
      {"sweep_with_trace_scope",
       {"--sweep", "@/spec.yaml", "--out", "@/out", "--trace-scope", "system.*"},
       2,
       "--sweep does not use --trace-scope"},
      {"list_benches_with_csv", {"--list-benches", "--csv", "@/x.csv"}, 2, "does not use --csv"},
      {"describe_topology_with_vcd",
       {"--describe-topology", "--vcd", "@/w.vcd"},
       2,
       "--describe-topology does not use --vcd"},
      {"check_topology_with_oplog",
       {"-t", kTiny, "--check-topology", "--oplog", "@/o.jsonl"},
       2,
       "--check-topology does not use --oplog"},
      {"describe_stats_with_a_bench",
       {"-t", kTiny, "--describe-stats", "-b", "dma"},
       2,
       "--describe-stats does not use --bench"},
      {"two_information_modes",
       {"-t", kTiny, "--describe-stats", "--check-topology"},
       2,
       "exclude each other"},
      {"vcd_scope_without_vcd",
       {"-t", kTiny, "-b", "dma", "--vcd-scope", "system.*"},
       2,
       "--vcd-scope needs --vcd"},
      {"llm_prompt_in_decode",
       {"-t", kTiny, "-b", "llm", "-p", "model=llama3_8b", "-p", "prompt=77"},
       2,
       "--param prompt is for phase=prefill"},
      {"llm_context_in_prefill",
       {"-t", kTiny, "-b", "llm", "-p", "model=llama3_8b", "-p", "phase=prefill", "-p",
        "context=4096"},
       2,
       "--param context is for phase=decode"},
      {"llm_micro_batches_with_tp",
       {"-t", kTiny, "-b", "llm", "-p", "model=llama3_8b", "-p", "micro_batches=3"},
       2,
       "--param micro_batches is for mapping=pp"},
      {"param_value_with_a_newline",
       {"-t", kTiny, "-b", "dma", "-p", "src=hbm:0.0.0+0\nhbm:0.0.1+0"},
       2,
       "control character"},
      {"set_name_with_a_tab",
       {"-t", kTiny, "--set", "name=a\tb", "--check-topology"},
       2,
       "control character"},
      // Sweep specs and Slurm resources.
      {"sweep_grid_value_twice",
       {"--sweep", "@/twice_value.yaml", "--out", "@/out"},
       2,
       "rows: the value '2' is given twice"},
      {"slurm_time_in_hours",
       {"--sweep", "@/spec.yaml", "--out", "@/out", "--emit-slurm", "@/s.sh", "--slurm", "time=1h"},
       2,
       "not a Slurm time limit"},
      {"slurm_seconds_past_59",
       {"--sweep", "@/spec.yaml", "--out", "@/out", "--emit-slurm", "@/s.sh", "--slurm",
        "time=3:75"},
       2,
       "not a Slurm time limit"},
      {"slurm_memory_negative_in_the_spec",
       {"--sweep", "@/slurm_mem.yaml", "--out", "@/out", "--emit-slurm", "@/s.sh"},
       2,
       "slurm.mem: '-4G' is not a positive amount of memory"},
      // Simulation faults.
      {"dma_stride_out_of_the_region",
       {"-t", kTiny, "-b", "dma", "-p", "rows=2", "-p", "bytes=128", "-p", "dst_stride=1TiB"},
       3,
       "out of the first row's memory region"},
      {"dma_write_to_unmapped_address",
       {"-t", kTiny, "-b", "dma", "-p", "dst=0x5000000000000000"},
       3,
       "simulation fault"},
  };
  return rows;
}

// The scratch directory's fixtures that rows name.
void write_fixtures(const TempDir& tmp) {
  write_text(tmp / "empty.yaml", "# nothing\n");
  write_text(tmp / "big.yaml", std::string((16u << 20) + 1, '#'));
  write_text(tmp / "deep.yaml", "a: " + std::string(3000, '['));
  const std::string spec = "bench: dma\ntopology: " + kTiny + "\ngrid:\n  param: {bytes: [4096]}\n";
  write_text(tmp / "spec.yaml", spec);
  write_text(tmp / "typo.yaml",
             "bench: dma\ntopology: " + kTiny + "\ngrid:\n  param: {byts: [4096]}\n");
  write_text(tmp / "columns.yaml", spec + "columns: [latncy_ns]\n");
  write_text(tmp / "twice.yaml", spec + "bench: gemm\n");
  write_text(tmp / "fail.yaml",
             "bench: dma\ntopology: " + kTiny + "\ngrid:\n  param: {bytes: [4096, 0]}\n");
  write_text(tmp / "slow_clock.yaml", "pe:\n  clock_ghz: 2.5e-9\n");
  write_text(tmp / "huge_model.yaml",
             "name: huge\nlayers: 1\nhidden: 123456789012345678901234\nheads: 8\nkv_heads: 8\n"
             "d_head: 64\nffn: 256\nvocab: 256\nnorm_eps: 1e-5\nrope_theta: 10000\n"
             "dtype: fp16\n");
  write_text(tmp / "long_key.yaml", "name: long\n" + std::string(1500, 'k') + ": 1\n");
  write_text(tmp / "twice_value.yaml",
             "bench: dma\ntopology: " + kTiny + "\ngrid:\n  param: {rows: [1, 2, 4, 2]}\n");
  write_text(tmp / "slurm_mem.yaml", spec + "slurm: {time: '30', mem: -4G}\n");
}

std::string expand(const std::string& arg, const TempDir& tmp) {
  std::string s = arg;
  for (size_t at = s.find('@'); at != std::string::npos; at = s.find('@', at + tmp.path().size()))
    s.replace(at, 1, tmp.path());
  return s;
}

// Every file under the scratch directory that is not a fixture, a captured
// stream, or a sweep's own output under out/ (its points and sweep.json).
std::vector<std::string> leftovers(const TempDir& tmp) {
  const std::vector<std::string> fixtures = {
      "empty.yaml",    "big.yaml",         "deep.yaml",     "spec.yaml",       "typo.yaml",
      "columns.yaml",  "twice.yaml",       "fail.yaml",     "slow_clock.yaml", "huge_model.yaml",
      "long_key.yaml", "twice_value.yaml", "slurm_mem.yaml"};
  std::vector<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(tmp.path())) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() || e.path().parent_path() == fs::path(tmp / "out") ||
        name.rfind("stdout.", 0) == 0 || name.rfind("stderr.", 0) == 0 ||
        std::find(fixtures.begin(), fixtures.end(), name) != fixtures.end())
      continue;
    left.push_back(e.path().string());
  }
  return left;
}

class BadInputs : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputs, OneClearLineTheRightExitCodeAndNothingLeftBehind) {
  const BadInput& b = GetParam();
  TempDir tmp;
  write_fixtures(tmp);
  std::vector<std::string> args;
  for (const auto& a : b.args) args.push_back(expand(a, tmp));
  const RunResult r = test::run_kernbench(args, tmp, tmp.path());
  EXPECT_EQ(r.exit_code, b.exit_code) << describe(r);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << describe(r);
  EXPECT_EQ(r.err.rfind("kernbench: ", 0), 0u) << describe(r);
  EXPECT_TRUE(contains(r.err, b.fragment)) << "want '" << b.fragment << "'\n" << describe(r);
  EXPECT_FALSE(contains(r.err, "Sanitizer")) << describe(r);
  EXPECT_EQ(leftovers(tmp), std::vector<std::string>{}) << describe(r);
}

INSTANTIATE_TEST_SUITE_P(Classes, BadInputs, ::testing::ValuesIn(bad_inputs()),
                         [](const auto& info) { return std::string(info.param.name); });

// --- special files -------------------------------------------------------

TEST(BadOutputs, ACharacterDeviceIsWrittenIntoAndStaysADevice) {
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  TempDir tmp;
  const std::string node = tmp / "null_node";
  ASSERT_EQ(mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);  // /dev/null's numbers
  const RunResult r = test::run_kernbench({"-t", kTiny, "-b", "dma", "--json", node}, tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  struct stat st {};
  ASSERT_EQ(stat(node.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device node was replaced";
  EXPECT_EQ(leftovers(tmp), std::vector<std::string>{node});
}

TEST(BadOutputs, AFullDeviceIsAnErrorAndStaysADevice) {
  struct stat st {};
  if (stat("/dev/full", &st) != 0) GTEST_SKIP() << "no /dev/full";
  TempDir tmp;
  const RunResult r = test::run_kernbench({"-t", kTiny, "-b", "dma", "--json", "/dev/full"}, tmp);
  EXPECT_EQ(test::expect_usage_error(r).find("No space left on device") != std::string::npos, true)
      << describe(r);
  ASSERT_EQ(stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(BadOutputs, AFifoIsRefusedWithoutBlocking) {
  TempDir tmp;
  const std::string fifo = tmp / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  for (const char* flag : {"--json", "--oplog", "--vcd"}) {
    const RunResult r = test::run_kernbench({"-t", kTiny, "-b", "dma", flag, fifo}, tmp);
    EXPECT_TRUE(contains(test::expect_usage_error(r), "is a FIFO")) << describe(r);
  }
  const RunResult t = test::run_kernbench({"-t", fifo, "--check-topology"}, tmp);
  EXPECT_TRUE(contains(test::expect_usage_error(t), "not a regular file")) << describe(t);
}

// A failed run leaves an earlier result where it was, byte for byte.
TEST(BadOutputs, AFailingRunKeepsTheEarlierResult) {
  TempDir tmp;
  const std::string json = tmp / "r.json";
  ASSERT_EQ(test::run_kernbench({"-t", kTiny, "-b", "dma", "--json", json}, tmp).exit_code, 0);
  const std::string before = read_text(json);
  const RunResult r = test::run_kernbench(
      {"-t", kTiny, "-b", "dma", "-p", "dst=0x5000000000000000", "--json", json}, tmp);
  EXPECT_EQ(r.exit_code, 3) << describe(r);
  EXPECT_EQ(read_text(json), before);
  EXPECT_EQ(leftovers(tmp), std::vector<std::string>{json});
}

// A refused run leaves no --out directory it made: the outputs are checked
// before anything is written, and the directory goes when the run fails.
TEST(BadOutputs, ARefusedRunLeavesNoOutDirectoryItMade) {
  TempDir tmp;
  const std::string out = tmp / "results";
  RunResult r = test::run_kernbench(
      {"-t", kTiny, "-b", "dma", "--out", out, "--oplog", out + "/dma.json"}, tmp);
  EXPECT_TRUE(contains(test::expect_usage_error(r), "name the same file")) << describe(r);
  EXPECT_FALSE(fs::exists(out));
  r = test::run_kernbench({"-t", kTiny, "-b", "dma", "-p", "src=0x5000000000000000", "--out", out},
                          tmp);
  EXPECT_EQ(r.exit_code, 3) << describe(r);
  EXPECT_FALSE(fs::exists(out));
  // A directory that was there before stays, and so does one a run wrote into.
  fs::create_directories(tmp / "kept");
  r = test::run_kernbench(
      {"-t", kTiny, "-b", "dma", "--out", tmp / "kept", "--trace", tmp / "kept/dma.json"}, tmp);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(fs::is_directory(tmp / "kept"));
  r = test::run_kernbench({"-t", kTiny, "-b", "dma", "-q", "--out", out}, tmp);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(fs::exists(out + "/dma.json"));
}

// --- signals ----------------------------------------------------------------

TEST(BadOutputs, SignalsLeaveNoPartialFiles) {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    TempDir tmp;
    // A run long enough to be stopped in the middle, VCD open.
    const std::string vcd = tmp / "run.vcd", json = tmp / "run.json";
    const std::string bin = test::kernbench_binary();
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      execl(bin.c_str(), bin.c_str(), "-q", "-b", "gqa-sweep", "--vcd", vcd.c_str(), "--vcd-scope",
            "system.*", "--json", json.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    // Wait until the run has opened its VCD temporary, then stop it.
    bool open = false;
    for (int i = 0; i < 500 && !open; ++i) {
      for (const auto& e : fs::directory_iterator(tmp.path()))
        open |= e.path().filename().string().rfind(".kb-", 0) == 0;
      if (!open) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(open) << "the run never opened its VCD";
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig;
    EXPECT_EQ(leftovers(tmp), std::vector<std::string>{}) << "signal " << sig;
  }
}

// A ccl-sweep keeps its topologies' results in a temporary directory under
// TMPDIR until it merges them: a stop signal removes it, whatever the
// children had written.
TEST(BadOutputs, AStoppedCclSweepLeavesNoTemporaryDirectory) {
  TempDir tmp;
  const std::string bin = test::kernbench_binary(), scratch = tmp / "scratch";
  fs::create_directories(scratch);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("TMPDIR", scratch.c_str(), 1);
    execl(bin.c_str(), bin.c_str(), "-q", "-b", "ccl-sweep", "--param", "algo=ring,binomial",
          "--param", "bytes_per_pe=64KiB,1MiB", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the sweep has made its directory, then give its children a
  // moment to run.
  bool made = false;
  for (int i = 0; i < 1000 && !made; ++i) {
    made = !fs::is_empty(scratch);
    if (!made) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(made) << "the sweep made no temporary directory";
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  std::vector<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(scratch)) left.push_back(e.path().string());
  EXPECT_EQ(left, std::vector<std::string>{});
}

// The stop line says what had finished: the bench's progress (even with -q).
TEST(BadOutputs, StopLineSaysWhatHadFinished) {
  TempDir tmp;
  const std::string bin = test::kernbench_binary(), err = tmp / "err.txt";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 2) < 0) _exit(127);
    execl(bin.c_str(), bin.c_str(), "-q", "-b", "gqa-sweep", static_cast<char*>(nullptr));
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));  // inside the sweep's points (tens of s)
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  const std::string text = read_text(err);
  EXPECT_NE(text.find("kernbench: stopped by SIGTERM (done: gqa-sweep: point "), std::string::npos)
      << text;
}

// A stop signal sent to a sweep's driver alone (kill, a batch system) stops
// its points too: none of them finishes afterwards.
TEST(BadOutputs, AStoppedSweepStopsItsPoints) {
  TempDir tmp;
  // Points of one to two seconds each in a Release build (longer in others):
  // without the stop reaching them, the first two would write their results
  // well within the four seconds waited below.
  write_text(
      tmp / "slow.yaml",
      "bench: gqa-sweep\nparam: [S_kv=131072]\ngrid:\n  param: {case: [1, 3], variant: [opt2, "
      "opt3]}\n");
  const std::string bin = test::kernbench_binary(), spec = tmp / "slow.yaml", out = tmp / "out";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl(bin.c_str(), bin.c_str(), "-q", "--sweep", spec.c_str(), "--out", out.c_str(), "-j", "2",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 500 && !fs::exists(out + "/point_0001.log"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the points are running
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  std::this_thread::sleep_for(std::chrono::seconds(4));  // longer than a point takes
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name.size() > 4 && name.substr(name.size() - 4) == ".log") << name;
  }
}

}  // namespace
}  // namespace kb
