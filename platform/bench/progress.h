// Progress of a long bench on stderr: "NAME: UNIT DONE/TOTAL, S s, ETA E s"
// (layers of an llm step, points of a study, child processes of a sweep).
//
// Silent for the first `after_s` of wall time, so a short run prints nothing.
// After that, on a terminal one line that rewrites itself at every step;
// otherwise (a log file) a line at each tenth of the total and at the end.
// A quiet Progress (--quiet) prints nothing at all.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace kb {

class Progress {
 public:
  Progress(std::string name, std::string unit, int64_t total, bool quiet, double after_s = 2.0);
  ~Progress();  // ends a line left open on a terminal
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void set_done(int64_t done);
  // The work turned out smaller than announced (the llm bench's layer
  // extension stops early): the count and its ETA go to `total`.
  void set_total(int64_t total);
  void step() { set_done(done_ + 1); }
  int64_t done() const { return done_; }

 private:
  double seconds() const;
  std::string name_, unit_;
  int64_t total_;
  bool quiet_, tty_;
  double after_s_;
  int64_t done_ = 0;
  bool line_open_ = false;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// A heartbeat for a whole bench run, for the runs no Progress counts (one
// long point) and between a Progress's lines (a tenth of a whole Llama token
// is many minutes): after `after_s` of wall time with no progress line for
// as long, "NAME: running, S s" on stderr, followed by the running
// Progress's count once it has one (", layer 3/80, ETA 7000 s") --
// rewritten every `period_s` on a terminal, a line every 10 periods in a
// log -- from a thread of its own that reads nothing of the simulation.
// Quiet: nothing at all.
class Heartbeat {
 public:
  Heartbeat(std::string name, bool quiet, double after_s = 2.0, double period_s = 1.0);
  ~Heartbeat();  // stops the thread; ends a line left open on a terminal
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  void beat();
  std::string name_;
  double after_s_, period_s_;
  bool tty_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kb
