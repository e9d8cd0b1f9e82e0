#include "tests/support/cli_run.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kb {
namespace test {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TempDir::TempDir() {
  char tmpl[] = "/tmp/kb_test_XXXXXX";
  const char* d = mkdtemp(tmpl);
  if (d == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = d;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> names_in(const TempDir& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string kernbench_binary() {
  // KB_TEST_KERNBENCH runs the CLI tests against another build (to show that
  // a regression test fails on the build before its fix).
  const char* other = std::getenv("KB_TEST_KERNBENCH");
  return other && *other ? other : KB_KERNBENCH_BIN;
}

RunResult run_kernbench(const std::vector<std::string>& args, const TempDir& tmp,
                        const std::string& cwd) {
  static int serial = 0;
  const std::string tag = std::to_string(serial++);
  const std::string out_path = tmp / ("stdout." + tag), err_path = tmp / ("stderr." + tag);
  std::vector<std::string> argv_s{kernbench_binary()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(argv_s.size() + 1);
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  RunResult r;
  if (rc != 0) {
    r.err = "posix_spawn failed: " + std::to_string(rc);
    return r;
  }
  int status = 0;
  struct rusage ru {};
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.max_rss_kib = ru.ru_maxrss;  // KiB on Linux
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  return r;
}

std::string describe(const RunResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\n--- stdout ---\n" + r.out.substr(0, 4000) +
         "\n--- stderr ---\n" + r.err.substr(0, 4000);
}

std::string expect_usage_error(const RunResult& r) {
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_FALSE(r.err.empty()) << describe(r);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << describe(r);
  EXPECT_EQ(r.err.rfind("kernbench: ", 0), 0u) << describe(r);
  return r.err;
}

void expect_simulation_fault(const RunResult& r) {
  EXPECT_EQ(r.exit_code, 3) << describe(r);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << describe(r);
  EXPECT_EQ(r.err.rfind("kernbench: simulation fault: ", 0), 0u) << describe(r);
}

}  // namespace test
}  // namespace kb
