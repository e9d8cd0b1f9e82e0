#include "platform/bench/progress.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <utility>

#include "platform/bench/bench.h"
#include "platform/process/stop_signals.h"

namespace kb {

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
}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

void Progress::set_done(int64_t done) {
  const int64_t before = done_;
  done_ = std::min(done, total_);
  set_stop_status(name_ + ": " + unit_ + " " + std::to_string(done_) + "/" +
                  std::to_string(total_));
  if (quiet_ || done_ <= 0) return;
  const double s = seconds();
  if (s < after_s_) return;
  const int64_t tenth = std::max<int64_t>(1, total_ / 10);
  if (!tty_ && before / tenth == done_ / tenth && done_ != total_) return;
  const double eta = s / static_cast<double>(done_) * static_cast<double>(total_ - done_);
  std::cerr << (tty_ ? "\r" : "") << name_ << ": " << unit_ << " " << done_ << "/" << total_ << ", "
            << fmt(s, 0) << " s, ETA " << fmt(eta, 0) << " s" << (tty_ ? "   " : "\n");
  line_open_ = tty_ && done_ != total_;
  if (tty_ && done_ == total_) std::cerr << "\n";
  std::cerr << std::flush;
}

}  // namespace kb
