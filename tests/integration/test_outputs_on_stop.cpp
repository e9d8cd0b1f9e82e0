// A run's outputs are one transaction (platform/output/output_transaction.h):
// stopped by SIGINT or SIGTERM at any moment, a run with every output option
// leaves either every output new and complete or every target as it was
// before, byte for byte, and nothing else behind.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

namespace fs = std::filesystem;
using test::names_in;
using test::read_text;
using test::TempDir;
using test::write_text;

const std::vector<std::string> kOutputs = {"r.json",       "r.csv", "r.jsonl",
                                           "r.trace.json", "r.vcd", "r.gtkw"};

std::vector<std::string> run_args(const TempDir& tmp) {
  return {"-q",
          "-t",
          test::kTiny,
          "-b",
          "gemm",
          "-p",
          "M=128",
          "-p",
          "K=2048",
          "-p",
          "N=128",
          "--json",
          tmp / "r.json",
          "--csv",
          tmp / "r.csv",
          "--oplog",
          tmp / "r.jsonl",
          "--trace",
          tmp / "r.trace.json",
          "--vcd",
          tmp / "r.vcd"};
}

// Starts the run; stderr to err.txt in `tmp`.
pid_t start(const TempDir& tmp) {
  const std::string bin = test::kernbench_binary(), err = tmp / "err.txt";
  std::vector<std::string> args = run_args(tmp);
  args.insert(args.begin(), bin);
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(err.c_str(), "w", stderr)) _exit(127);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// The result without what differs between two runs of the same inputs (the
// wall time; the VCD's date line; the save file's path of the VCD).
std::string comparable(const std::string& name, const std::string& text) {
  if (name == "r.json") {
    nlohmann::json j = nlohmann::json::parse(text);
    j.erase("wall_s");
    return j.dump();
  }
  if (name == "r.gtkw") {  // its [dumpfile] line names the run's own directory
    const size_t line = text.find("[dumpfile]"), end = text.find('\n', line);
    return line == std::string::npos ? text : text.substr(0, line) + text.substr(end);
  }
  if (name == "r.vcd") {
    const size_t date = text.find("$date"), end = text.find("$end", date);
    return date == std::string::npos ? text : text.substr(0, date) + text.substr(end);
  }
  return text;
}

// What an earlier run left (a save file kernbench wrote, so it is replaced).
std::string earlier(const std::string& name) {
  return std::string(name == "r.gtkw" ? "[*] GTKWave save file written by kernbench\n" : "") +
         "earlier " + name + "\n";
}

TEST(OutputsOnStop, EveryOutputNewOrEveryTargetAsBefore) {
  // The reference: one run to the end, and how long it takes.
  std::map<std::string, std::string> fresh;
  double run_s = 0;
  {
    TempDir tmp;
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = start(tmp);
    ASSERT_GT(pid, 0);
    int status = 0;
    waitpid(pid, &status, 0);
    run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_text(tmp / "err.txt");
    for (const std::string& n : kOutputs) fresh[n] = comparable(n, read_text(tmp / n));
  }
  // Stops spread over the whole run, and packed around its end, where the
  // outputs are written and committed.
  std::vector<double> at;
  for (int i = 1; i <= 6; ++i) at.push_back(run_s * i / 7.0);
  for (int i = 0; i < 6; ++i) at.push_back(run_s * (0.9 + 0.035 * i));
  unsigned kept = 0, replaced = 0;
  for (size_t k = 0; k < at.size(); ++k) {
    const int sig = k % 2 ? SIGINT : SIGTERM;
    TempDir tmp;
    for (const std::string& n : kOutputs) write_text(tmp / n, earlier(n));
    const pid_t pid = start(tmp);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::duration<double>(at[k]));
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    const std::string err = read_text(tmp / "err.txt");
    const bool stopped = WIFSIGNALED(status) && WTERMSIG(status) == sig;
    ASSERT_TRUE(stopped || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
        << "stop at " << at[k] << " s: " << err;
    bool all_old = true, all_new = true;
    std::string which;  // each output: old, new or other
    for (const std::string& n : kOutputs) {
      const std::string text = read_text(tmp / n);
      const bool old = text == earlier(n), fresh_one = !old && comparable(n, text) == fresh[n];
      all_old = all_old && old;
      all_new = all_new && fresh_one;
      which += " " + n + (old ? ":old" : fresh_one ? ":new" : ":other");
    }
    EXPECT_TRUE(all_old || all_new)
        << "stop at " << at[k] << " s left a mix of runs:" << which << "; " << err;
    std::vector<std::string> expected = kOutputs;
    expected.push_back("err.txt");
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(names_in(tmp), expected) << "stop at " << at[k] << " s left files behind";
    // (A signal that comes before the handlers are installed, as the process
    // starts, ends it without a line: nothing had been written then.)
    if (stopped && !(err.empty() && all_old)) {
      EXPECT_NE(err.find(all_new ? "every output had been written and is kept"
                                 : "no output written, earlier files left as they were"),
                std::string::npos)
          << err;
    }
    (all_new ? replaced : kept) += 1;
  }
  // Both outcomes were seen: the stops did reach the run before its end.
  EXPECT_GT(kept, 0u);
  RecordProperty("kept", static_cast<int>(kept));
  RecordProperty("replaced", static_cast<int>(replaced));
}

}  // namespace
}  // namespace kb
