#include "platform/util/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>

#include "platform/process/stop_signals.h"

namespace kb {

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

namespace {

using Clock = std::chrono::steady_clock;

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

std::string self_executable(const std::string& fallback) {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? fallback : p.string();
}

pid_t start_child(const std::vector<std::string>& argv, const std::string& stdout_path,
                  bool stderr_too) {
  if (argv.empty()) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!stdout_path.empty()) {
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, stdout_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (stderr_too) posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  }
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  if (pid > 0) register_child(pid);
  return pid;
}

void run_children(size_t count, unsigned jobs,
                  const std::function<std::vector<std::string>(size_t)>& command,
                  const std::function<std::string(size_t)>& stdout_path, bool stderr_too,
                  const std::function<void(size_t, const ChildExit&)>& done) {
  std::map<pid_t, std::pair<size_t, Clock::time_point>> running;
  size_t next = 0;
  while (next < count || !running.empty()) {
    while (next < count && running.size() < std::max(1u, jobs)) {
      const size_t i = next++;
      const pid_t pid = start_child(command(i), stdout_path ? stdout_path(i) : "", stderr_too);
      if (pid < 0) {
        done(i, ChildExit{});
        continue;
      }
      running[pid] = {i, Clock::now()};
    }
    if (running.empty()) continue;
    int status = 0;
    struct rusage ru {};
    const pid_t pid = wait4(-1, &status, 0, &ru);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    release_child(pid);
    ChildExit e;
    e.code = exit_code(status);
    e.max_rss_kib = ru.ru_maxrss;
    e.wall_s = std::chrono::duration<double>(Clock::now() - it->second.second).count();
    const size_t i = it->second.first;
    running.erase(it);
    done(i, e);
  }
}

ChildExit run_child(const std::vector<std::string>& argv, const std::string& stdout_path,
                    bool stderr_too) {
  ChildExit out;
  run_children(
      1, 1, [&](size_t) { return argv; }, [&](size_t) { return stdout_path; }, stderr_too,
      [&](size_t, const ChildExit& e) { out = e; });
  return out;
}

}  // namespace kb
