// The fuzz target that reaches the simulation (kb::fuzz::simulate, see
// fuzz_bodies.h). SystemC elaborates once per process, so every input runs
// the real kernbench binary in a child process: the input bytes choose a small
// topology (structural knobs of tiny.yaml, including bad values), raw --set
// lines, a bench with fuzzed parameter values, data mode and output files.
// The child has a wall-time (60 s) and a resident-memory (3 GiB) limit, enforced by this
// process. An outcome that is not a clean one is a finding, reported by
// abort() so libFuzzer keeps the input:
//   - an exit code other than 0, 2 or 3, or death by a signal (a crash);
//   - an error exit whose stderr is not one line "kernbench: ...";
//   - sanitizer text on stderr;
//   - the time or memory limit reached (a hang or a runaway allocation);
//   - a temporary (.kb-*) left in the output directory.
// The child inherits no coverage feedback: the fuzzer is guided by the
// decoder's own branches only, a structured random tester for the simulator.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/fuzz/fuzz_bodies.h"

namespace kb {
namespace fuzz {

namespace {

namespace fs = std::filesystem;

// Reads choices from the input; past its end every flag is false and every
// pick 0 (the first, valid, value), so a short input is a plain run.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  uint8_t byte() { return i_ < n_ ? p_[i_++] : 0; }
  size_t pick(size_t k) { return k == 0 ? 0 : byte() % k; }
  bool flag(unsigned one_in = 2) { return i_ < n_ && pick(one_in) == 0; }
  // Up to `max` bytes, stopping after a newline (not included).
  std::string text(size_t max) {
    std::string s;
    while (s.size() < max && i_ < n_) {
      const char c = static_cast<char>(p_[i_++]);
      if (c == '\n') break;
      s += c;
    }
    return s;
  }

 private:
  const uint8_t* p_;
  size_t n_, i_ = 0;
};

// A knob or parameter with values that should work and values that should be
// refused; a bad one is chosen one time in eight.
struct Choice {
  const char* key;
  std::vector<const char*> good, bad;
};

std::string choose(Choices& c, const Choice& k) {
  if (!k.bad.empty() && c.flag(8)) return k.bad[c.pick(k.bad.size())];
  return k.good[c.pick(k.good.size())];
}

// Structural and timing knobs of a small system.
const std::vector<Choice>& knob_choices() {
  static const std::vector<Choice> k = {
      {"system.n_sips", {"1", "2"}, {"0", "65"}},
      {"sip.cubes_x", {"1", "2", "4"}, {"0", "257"}},
      {"sip.cubes_y", {"1", "2", "3"}, {"0"}},
      {"cube.pes", {"1", "2", "3", "8"}, {"0", "65"}},
      {"sip.topology", {"mesh", "ring", "torus2d"}, {"star"}},
      {"pe.tcm.size_bytes", {"256KiB", "1MiB", "4MiB"}, {"0", "64KiB", "1TiB"}},
      {"pe.hbm.size_bytes", {"16MiB", "64MiB", "1GiB"}, {"16", "1TiB"}},
      {"pe.hbm.num_pcs", {"1", "2", "8"}, {"0", "3"}},
      {"pe.hbm.queue_depth", {"1", "4", "16"}, {"0"}},
      {"pe.dma.burst_bytes", {"256", "1024", "4096"}, {"0", "1000"}},
      {"pe.dma.max_outstanding", {"1", "2", "64"}, {"0"}},
      {"pe.cpu.stack_bytes", {"256KiB", "4MiB"}, {"16", "1TiB"}},
      {"pe.gemm.tile_m", {"16", "32"}, {"0"}},
      {"pe.math.lanes", {"1", "16", "64"}, {"0"}},
      {"pe.scheduler.staging_buffers", {"1", "2", "4"}, {"0"}},
      {"pe.ipcq.slots", {"1", "4", "8"}, {"0"}},
      {"pe.ipcq.slot_bytes", {"256", "4096"}, {"3"}},
      {"sip.cube_link.bandwidth_gbps", {"1", "64", "512"}, {"1e-9", "inf", "-1", "nan"}},
      {"cube.pe_link.latency_ns", {"0", "1", "10"}, {"1e12", "-3"}},
      {"pe.clock_ghz", {"0.5", "1", "2"}, {"0", "1e9"}},
  };
  return k;
}

struct BenchChoice {
  const char* name;
  std::vector<Choice> params;      // the ones the input may set
  std::vector<const char*> small;  // given first, so an unfuzzed run stays short
};

const std::vector<BenchChoice>& bench_choices() {
  static const std::vector<BenchChoice> b = {
      {"dma",
       {{"pe", {"0.0.0", "0.1.1", "0.3.0"}, {"9.9.9"}},
        {"src", {"hbm:0.0.0+0", "hbm:0.3.1+4096", "sram:0.1+0", "host+0"}, {"0x5000000000000000"}},
        {"dst", {"tcm:0.0.0+0", "hbm:0.2.0+1MiB"}, {"tcm:0.0.0+1TiB"}},
        {"bytes", {"64", "4096", "65536", "1MiB"}, {"0", "1TiB"}},
        {"rows", {"1", "2", "7"}, {"0", "100000"}},
        {"src_stride", {"0", "4096"}, {}},
        {"dst_stride", {"0", "4096"}, {}}},
       {}},
      {"gemm",
       {{"M", {"1", "32", "33", "64"}, {"0"}},
        {"K", {"64", "100", "512"}, {"0"}},
        {"N", {"1", "32", "48"}, {"0"}},
        {"variant", {"load_ref", "ref_ref", "load_load"}, {"ref"}}},
       {"M=32", "K=256", "N=32"}},
      {"gemm-strategies",
       {{"shapes", {"32x64x32", "64x128x32", "33x65x17"}, {"0x1x1"}},
        {"strategies", {"composite", "async-full", "async-tiled"}, {"none"}},
        {"sync", {"wait", "nowait"}, {}}},
       {"shapes=32x128x32"}},
      {"gqa-decode",
       {{"variant", {"opt1", "opt2", "opt3"}, {"opt4"}},
        {"S_kv", {"128", "256", "1000", "1024"}, {"0"}},
        {"tile", {"32", "64", "128"}, {"0"}},
        {"heads", {"8", "16"}, {"7"}},
        {"kv_heads", {"1", "2"}, {"0"}}},
       {"S_kv=256"}},
      {"gqa-long",
       {{"case", {"1", "2", "3", "4"}, {"5"}},
        {"S_kv", {"512", "1024"}, {"1536"}},
        {"C", {"1", "2", "4"}, {"3"}},
        {"P", {"1", "2"}, {"0"}},
        {"tile", {"64", "128"}, {}}},
       {"S_kv=1024", "C=2", "P=2", "kv_heads=1", "heads=8"}},
      {"gqa-short",
       {{"kv_per_cube", {"1", "2"}, {"3"}},
        {"S_kv", {"256", "512", "1024"}, {"0"}},
        {"tile", {"64", "128"}, {}}},
       {"S_kv=512", "kv_heads=2", "heads=16"}},
      {"gqa-prefill",
       {{"S", {"128", "256"}, {"0"}},
        {"T_q", {"16", "32"}, {"0"}},
        {"C", {"1", "2"}, {"5"}},
        {"tile", {"32", "64"}, {}}},
       {"S=256", "T_q=32", "C=2", "tile=64"}},
      {"allreduce",
       {{"algo",
         {"ring", "ring_bidir", "2d", "hierarchical", "chain", "binomial", "auto"},
         {"tree"}},
        {"bytes_per_pe", {"4KiB", "12KiB", "64KiB"}, {"3", "1TiB"}},
        {"buffer", {"tcm", "hbm", "sram"}, {"dram"}},
        {"pes_per_cube", {"auto", "1", "2"}, {"0"}}},
       {"bytes_per_pe=4KiB"}},
      {"math",
       {{"ops", {"add", "mul,max", "relu,exp", "silu"}, {"foo"}},
        {"elements", {"64", "100", "4096"}, {"0"}}},
       {}},
      {"probe", {{"contention", {"0", "1"}, {}}}, {}},
  };
  return b;
}

// Values for any parameter: small, boundary and huge integers, sizes with
// units, addresses, names the benches know, and bad text.
const std::vector<const char*>& value_choices() {
  static const std::vector<const char*> v = {
      "0",
      "1",
      "-1",
      "2",
      "3",
      "7",
      "63",
      "64",
      "65",
      "128",
      "1000",
      "1024",
      "4096",
      "65536",
      "1536",
      "8193",
      "2147483648",
      "4294967296",
      "9223372036854775807",
      "4KiB",
      "96KiB",
      "2MiB",
      "1TiB",
      "1,2",
      "4KiB,,8KiB",
      "0x1000",
      "hbm:0.0.0+0",
      "tcm:0.0.0+0",
      "hbm:0.3.1+1MiB",
      "sram:0.1+0",
      "host+0",
      "0x5000000000000000",
      "opt1",
      "opt2,opt3",
      "load_ref",
      "ref_ref",
      "ring",
      "2d,binomial",
      "tcm",
      "hbm",
      "auto",
      "add,relu",
      "foo",
      "",
  };
  return v;
}

std::string kernbench_path() {
  const char* env = std::getenv("KB_FUZZ_KERNBENCH");
  return env && *env ? env : KB_KERNBENCH_BIN;
}

std::vector<std::string> decode_command(Choices& c, const std::string& scratch) {
  std::vector<std::string> argv = {kernbench_path(), "-q", "--topology",
                                   KB_SOURCE_DIR "/topologies/tiny.yaml"};
  for (const Choice& k : knob_choices())
    if (c.flag(4)) argv.insert(argv.end(), {"--set", std::string(k.key) + "=" + choose(c, k)});
  if (c.flag(16)) argv.insert(argv.end(), {"--set", c.text(48)});
  const BenchChoice& b = bench_choices()[c.pick(bench_choices().size())];
  argv.insert(argv.end(), {"--bench", b.name});
  std::map<std::string, std::string> params;  // each key once: a repeated --param is an error
  for (const std::string kv : b.small)
    params[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  for (const Choice& p : b.params) {
    if (!c.flag(3)) continue;
    std::string v;
    if (c.flag(16))
      v = c.text(24);
    else if (c.flag(8))
      v = value_choices()[c.pick(value_choices().size())];
    else
      v = choose(c, p);
    params[p.key] = v;
  }
  for (const auto& [k, v] : params) argv.insert(argv.end(), {"--param", k + "=" + v});
  if (c.flag(4)) argv.emplace_back("--data");
  if (c.flag(3)) argv.insert(argv.end(), {"--json", scratch + "/r.json"});
  if (c.flag(6)) argv.insert(argv.end(), {"--oplog", scratch + "/o.jsonl"});
  if (c.flag(8)) argv.insert(argv.end(), {"--vcd", scratch + "/w.vcd"});
  return argv;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

long resident_mib(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  long pages_total = 0, pages_resident = 0;
  if (!(statm >> pages_total >> pages_resident)) return 0;
  return pages_resident * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

[[noreturn]] void finding(const std::string& what, const std::vector<std::string>& argv,
                          const std::string& err) {
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + ("'" + a + "'");
  std::fprintf(stderr, "fuzz_simulate: %s\n  command: %s\n  stderr: %s\n", what.c_str(),
               cmd.c_str(), err.substr(0, 2000).c_str());
  std::abort();
}

// A sanitizer build's child reports SystemC's coroutine leftovers at exit
// unless it gets the suite's suppressions (tests/CMakeLists.txt explains the
// options); set once for every child, unless the caller chose its own.
void sanitizer_options_for_children() {
  static const bool set = [] {
    setenv("ASAN_OPTIONS", "detect_stack_use_after_return=0:detect_leaks=1", 0);
    setenv("LSAN_OPTIONS",
           "suppressions=" KB_SOURCE_DIR "/tests/sanitizers/lsan.supp:print_suppressions=0", 0);
    setenv("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1", 0);
    return true;
  }();
  (void)set;
}

}  // namespace

void simulate(const uint8_t* data, size_t size) {
  sanitizer_options_for_children();
  // A hang, not a slow run: tiny shapes take well under a second in Release
  // and a few seconds under ASan on a busy machine.
  constexpr double kWallLimitS = 60;
  constexpr long kMemoryLimitMib = 3072;
  char tmpl[] = "/tmp/kb_fuzz_sim_XXXXXX";
  const char* dir = mkdtemp(tmpl);
  if (dir == nullptr) std::abort();
  const std::string scratch = dir;
  Choices c(data, size);
  const std::vector<std::string> argv = decode_command(c, scratch);

  // The child: stdout to /dev/null, stderr to a file, in the scratch directory.
  const std::string err_path = scratch + "/stderr";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) finding("cannot start kernbench (" + std::to_string(rc) + ")", argv, "");

  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  std::string limit;
  for (unsigned tick = 0;; ++tick) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (limit.empty() && s > kWallLimitS) limit = "hang: no exit after 60 s";
    if (limit.empty() && tick % 16 == 0 && resident_mib(pid) > kMemoryLimitMib)
      limit = "memory: over 3 GiB resident";
    if (!limit.empty()) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const std::string err = read_all(err_path);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(scratch))
    if (e.path().filename().string().rfind(".kb-", 0) == 0) left.push_back(e.path().string());
  std::error_code ec;
  fs::remove_all(scratch, ec);

  // KB_FUZZ_STATS=FILE appends each input's exit code and bench: how many
  // inputs got past the configuration and simulated.
  if (const char* stats = std::getenv("KB_FUZZ_STATS")) {
    const auto bench = std::find(argv.begin(), argv.end(), "--bench");
    std::ofstream(stats, std::ios::app) << (WIFEXITED(status) ? WEXITSTATUS(status) : -1) << " "
                                        << (bench + 1 < argv.end() ? *(bench + 1) : "?") << " "
                                        << err.substr(0, err.find('\n')) << "\n";
  }
  if (!limit.empty()) finding(limit, argv, err);
  if (WIFSIGNALED(status))
    finding("killed by signal " + std::to_string(WTERMSIG(status)), argv, err);
  const int code = WEXITSTATUS(status);
  if (code != 0 && code != 2 && code != 3) finding("exit code " + std::to_string(code), argv, err);
  if (err.find("Sanitizer") != std::string::npos || err.find("runtime error:") != std::string::npos)
    finding("sanitizer report", argv, err);
  if (code != 0) {
    const size_t lines = static_cast<size_t>(std::count(err.begin(), err.end(), '\n'));
    if (lines != 1 || err.rfind("kernbench: ", 0) != 0)
      finding("an error that is not one 'kernbench: ' line", argv, err);
  }
  if (!left.empty()) finding("temporary left behind: " + left.front(), argv, err);
}

}  // namespace fuzz
}  // namespace kb
