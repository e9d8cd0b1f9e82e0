#include "platform/bench/progress.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <utility>

#include "platform/bench/bench.h"
#include "platform/process/stop_signals.h"

namespace kb {

namespace {

using Clock = std::chrono::steady_clock;
// Serialises the lines of Progress and Heartbeat (which runs on a thread of
// its own); the time of the last progress line, for the heartbeat.
std::mutex g_line_mutex;
std::atomic<int64_t> g_last_line_ns{0};
// The count of the Progress that is running, for the heartbeat's line
// ("UNIT DONE/TOTAL, ETA E s"; empty: none or nothing done yet). Guarded by
// g_line_mutex.
std::string g_count;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

}  // namespace

Progress::Progress(std::string name, std::string unit, int64_t total, bool quiet, double after_s)
    : name_(std::move(name)),
      unit_(std::move(unit)),
      total_(std::max<int64_t>(total, 1)),
      quiet_(quiet),
      tty_(isatty(2) != 0),
      after_s_(after_s) {
  set_stop_status(name_ + ": " + unit_ + " 0/" + std::to_string(total_));
}

Progress::~Progress() {
  if (line_open_) std::cerr << "\n" << std::flush;
  set_stop_status("");
  const std::lock_guard<std::mutex> lock(g_line_mutex);
  g_count.clear();
}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

void Progress::set_total(int64_t total) {
  total_ = std::max<int64_t>({total, done_, 1});
}

void Progress::set_done(int64_t done) {
  const int64_t before = done_;
  done_ = std::min(done, total_);
  set_stop_status(name_ + ": " + unit_ + " " + std::to_string(done_) + "/" +
                  std::to_string(total_));
  if (quiet_ || done_ <= 0) return;
  const double s = seconds();
  const double eta = s / static_cast<double>(done_) * static_cast<double>(total_ - done_);
  const std::lock_guard<std::mutex> lock(g_line_mutex);
  g_count = unit_ + " " + std::to_string(done_) + "/" + std::to_string(total_) + ", ETA " +
            fmt(eta, 0) + " s";
  if (s < after_s_) return;
  const int64_t tenth = std::max<int64_t>(1, total_ / 10);
  if (!tty_ && before / tenth == done_ / tenth && done_ != total_) return;
  g_last_line_ns.store(now_ns());
  std::cerr << (tty_ ? "\r" : "") << name_ << ": " << unit_ << " " << done_ << "/" << total_ << ", "
            << fmt(s, 0) << " s, ETA " << fmt(eta, 0) << " s" << (tty_ ? "   " : "\n");
  line_open_ = tty_ && done_ != total_;
  if (tty_ && done_ == total_) std::cerr << "\n";
  std::cerr << std::flush;
}

Heartbeat::Heartbeat(std::string name, bool quiet, double after_s, double period_s)
    : name_(std::move(name)), after_s_(after_s), period_s_(period_s), tty_(isatty(2) != 0) {
  if (quiet) return;
  // The thread never takes a stop signal: the handler runs on the main
  // thread, which owns the registries it cleans up.
  const StopSignalsHeld held;  // the thread inherits the held mask
  thread_ = std::thread([this] { beat(); });
}

Heartbeat::~Heartbeat() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Heartbeat::beat() {
  const auto t0 = Clock::now();
  const auto period = std::chrono::duration<double>(period_s_);
  bool line_open = false;
  unsigned ticks = 0;
  std::unique_lock<std::mutex> lock(m_);
  while (!cv_.wait_for(lock, period, [this] { return stop_; })) {
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    const double quiet_s = static_cast<double>(now_ns() - g_last_line_ns.load()) * 1e-9;
    if (s < after_s_ || quiet_s < after_s_) continue;
    if (!tty_ && ticks++ % 10 != 0) continue;
    const std::lock_guard<std::mutex> out(g_line_mutex);
    std::cerr << (tty_ ? "\r" : "") << name_ << ": running, " << fmt(s, 0) << " s"
              << (g_count.empty() ? "" : ", " + g_count) << (tty_ ? "   " : "\n") << std::flush;
    line_open = tty_;
  }
  if (line_open) std::cerr << "\n" << std::flush;
}

}  // namespace kb
