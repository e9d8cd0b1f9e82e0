// A count (queue depth, bursts in flight) and its peak, where the peak is
// taken from the value each simulated instant settles on: an item counted
// over [start, end) does not overlap one that starts at the instant it ends,
// and the peak does not depend on the order the kernel ran that instant's
// processes in (which decides only the transient values within the instant).
#pragma once

#include <sysc/kernel/sc_time.h>

#include <algorithm>

#include "models/common/sim_time.h"

namespace kb {

class SettledPeak {
 public:
  // The count is now `v`.
  void set(unsigned v) {
    const sc_core::sc_time& now = sim_now();
    if (now != changed_at_) {  // the previous instant's value is settled
      peak_ = std::max(peak_, value_);
      changed_at_ = now;
    }
    value_ = v;
  }
  unsigned value() const { return value_; }
  // For sc_trace (the VCD shows the count itself).
  const unsigned& traced() const { return value_; }
  // The peak so far, the current instant's value included.
  unsigned peak() const { return std::max(peak_, value_); }

 private:
  unsigned value_ = 0;
  unsigned peak_ = 0;
  sc_core::sc_time changed_at_;
};

}  // namespace kb
