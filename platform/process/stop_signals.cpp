#include "platform/process/stop_signals.h"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>

#include <algorithm>
#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>

namespace kb {

namespace {

constexpr int kTempSlots = 64;
struct TempSlot {
  std::atomic<int> used{0};  // 0 free, 2 being written, 1 live
  bool dir = false;          // removed with rmdir, after every file
  char path[PATH_MAX];
};
TempSlot g_temps[kTempSlots];

constexpr int kChildSlots = 1024;  // more than the largest -j
std::atomic<pid_t> g_children[kChildSlots];

// The stop status, double-buffered: set_stop_status writes the buffer not in
// use and then publishes it, so a handler interrupting it reads a whole one.
constexpr size_t kStatusBytes = 256;
char g_status[2][kStatusBytes];
std::atomic<int> g_status_live{-1};
std::atomic<bool> g_outputs_committed{false};

void write_all_stderr(const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

extern "C" void on_stop_signal(int sig) {
  bool children = false;
  for (std::atomic<pid_t>& c : g_children) {
    const pid_t pid = c.load();
    if (pid > 0) children = ::kill(pid, sig) == 0 || children;
  }
  // Give the children up to 2 s to end and remove their own temporaries,
  // which may lie in a directory registered here.
  for (int tries = 0; children && tries < 200; ++tries) {
    children = false;
    for (std::atomic<pid_t>& c : g_children) {
      const pid_t pid = c.load();
      if (pid > 0 && ::waitpid(pid, nullptr, WNOHANG) == 0) children = true;
    }
    if (children) {
      const timespec tick{0, 10000000};  // 10 ms
      ::nanosleep(&tick, nullptr);
    }
  }
  for (TempSlot& s : g_temps)
    if (s.used.load() == 1 && !s.dir) ::unlink(s.path);
  for (TempSlot& s : g_temps)
    if (s.used.load() == 1 && s.dir) ::rmdir(s.path);
  // One write of the whole line, so that the lines of a sweep's points,
  // stopped at the same instant, do not interleave.
  char line[512] = "";
  size_t used = 0;
  auto add = [&](const char* text) {
    for (; *text != '\0' && used + 1 < sizeof line; ++text) line[used++] = *text;
    line[used] = '\0';
  };
  add("kernbench: stopped by ");
  add(sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
  const int live = g_status_live.load();
  if (live >= 0) {
    add(" (done: ");
    add(g_status[live]);
    add(")");
  }
  add(g_outputs_committed.load() ? "; every output had been written and is kept\n"
                                 : "; no output written, earlier files left as they were\n");
  write_all_stderr(line);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void install_stop_signal_cleanup() {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, sig);  // one at a time
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
    return true;
  }();
  (void)installed;
}

namespace {

int register_temp(const std::string& path, bool dir) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kTempSlots; ++i) {
    int expected = 0;
    if (g_temps[i].used.compare_exchange_strong(expected, 2)) {
      std::memcpy(g_temps[i].path, path.c_str(), path.size() + 1);
      g_temps[i].dir = dir;
      g_temps[i].used.store(1);
      return i;
    }
  }
  return -1;
}

}  // namespace

int register_temp_file(const std::string& path) {
  return register_temp(path, false);
}

int register_temp_dir(const std::string& path) {
  return register_temp(path, true);
}

void release_temp_file(int slot) {
  if (slot >= 0 && slot < kTempSlots) g_temps[slot].used.store(0);
}

StopSignalsHeld::StopSignalsHeld() {
  sigset_t stops;
  sigemptyset(&stops);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, sig);
  pthread_sigmask(SIG_BLOCK, &stops, &old_);
}

StopSignalsHeld::~StopSignalsHeld() {
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

void set_stop_status(const std::string& text) {
  if (text.empty()) {
    g_status_live.store(-1);
    return;
  }
  const int spare = g_status_live.load() == 0 ? 1 : 0;
  const size_t n = std::min(text.size(), kStatusBytes - 1);
  std::memcpy(g_status[spare], text.data(), n);
  g_status[spare][n] = '\0';
  g_status_live.store(spare);
}

void set_outputs_committed(bool committed) {
  g_outputs_committed.store(committed);
}

void register_child(pid_t pid) {
  for (std::atomic<pid_t>& c : g_children) {
    pid_t expected = 0;
    if (c.compare_exchange_strong(expected, pid)) return;
  }
}

void release_child(pid_t pid) {
  for (std::atomic<pid_t>& c : g_children) {
    pid_t expected = pid;
    if (c.compare_exchange_strong(expected, 0)) return;
  }
}

}  // namespace kb
