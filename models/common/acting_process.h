// The process a piece of work acts for when it runs outside a process of its
// own. A PE engine lane is a calendar timer, not a thread, yet the work it
// hands on (a token's next stage submitted to PE_DMA, say) must be ordered as
// if the lane's thread had submitted it: PE_DMA breaks same-instant ties by
// the submitting process's name (docs/ARCHITECTURE.md, Determinism). While an
// ActingProcess is in scope, current() is the name the work acts under.
#pragma once

namespace kb {

class ActingProcess {
 public:
  // `name` must outlive the scope.
  explicit ActingProcess(const char* name) : prev_(current_) { current_ = name; }
  ~ActingProcess() { current_ = prev_; }
  ActingProcess(const ActingProcess&) = delete;
  ActingProcess& operator=(const ActingProcess&) = delete;

  // The innermost scope's name, or null outside every scope (the work is the
  // running process's own).
  static const char* current() { return current_; }

 private:
  static inline const char* current_ = nullptr;
  const char* prev_;
};

}  // namespace kb
