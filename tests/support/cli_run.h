// Running the real kernbench binary (KB_KERNBENCH_BIN) from a test: a scratch
// directory, the run with its exit code, stdout, stderr and peak RSS, and the
// checks every error test makes (one line on stderr, the exit code).
#pragma once

#include <string>
#include <vector>

namespace kb {
namespace test {

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& text);
bool contains(const std::string& s, const std::string& part);

// A fresh directory under /tmp, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The names of the entries of `dir` (files and directories), sorted.
std::vector<std::string> names_in(const TempDir& dir);

struct RunResult {
  int exit_code = -1;    // 128 + N when killed by signal N
  std::string out, err;  // stdout and stderr
  long max_rss_kib = 0;  // the child's peak resident set
};

// This build's kernbench, or $KB_TEST_KERNBENCH when set.
std::string kernbench_binary();

// Runs kernbench with `args` (no shell, stdin from /dev/null), stdout and
// stderr captured to files in `tmp`; `cwd` (when not empty) is its directory.
RunResult run_kernbench(const std::vector<std::string>& args, const TempDir& tmp,
                        const std::string& cwd = "");

std::string describe(const RunResult& r);

// Exit 2 with exactly one line on stderr, which is returned.
std::string expect_usage_error(const RunResult& r);
// Exit 3 with exactly one line on stderr, reporting a simulation fault.
void expect_simulation_fault(const RunResult& r);

}  // namespace test
}  // namespace kb
