// Child processes: how kernbench runs one configuration per process (a
// sweep's points, ccl-sweep's topologies, simspeed's measurements). Every
// child is registered so a stop signal reaches it too (stop_signals.h).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace kb {

// This process's executable (/proc/self/exe), or `fallback` when unknown.
std::string self_executable(const std::string& fallback = "");

struct ChildExit {
  int code = -1;         // exit code, 128 + N when killed by signal N, -1 not started
  long max_rss_kib = 0;  // the child's peak resident set
  double wall_s = 0;     // from start to exit
};

// Starts argv[0] with argv (no shell). Its stdout goes to `stdout_path`
// (created or truncated) when given, and its stderr with it when
// `stderr_too`. Returns the pid, or -1 when it could not start.
pid_t start_child(const std::vector<std::string>& argv, const std::string& stdout_path = "",
                  bool stderr_too = false);

// Runs `count` commands, at most `jobs` at a time (at least one); `command(i)`
// gives the i-th argv and `stdout_path(i)` its output file ("" to inherit).
// `done(i, exit)` is called as each ends, in the order they end.
void run_children(size_t count, unsigned jobs,
                  const std::function<std::vector<std::string>(size_t)>& command,
                  const std::function<std::string(size_t)>& stdout_path, bool stderr_too,
                  const std::function<void(size_t, const ChildExit&)>& done);

// "SIGKILL" for 9: a signal's name, or "signal N" for one without a name.
std::string signal_name(int sig);

// One command, waited for.
ChildExit run_child(const std::vector<std::string>& argv, const std::string& stdout_path = "",
                    bool stderr_too = false);

}  // namespace kb
