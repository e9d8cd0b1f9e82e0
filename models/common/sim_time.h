// The one place where model quantities become SystemC time.
//
// Rounding rule: a duration in ns is rounded to the nearest picosecond (the
// kernel's resolution, set first thing in sc_main), ties away from zero.
// Every module converts through these helpers so all of them round alike.
#pragma once

#include <sysc/kernel/sc_simcontext.h>
#include <sysc/kernel/sc_time.h>
#include <cstdint>
#include <string>

namespace kb {

constexpr double kPsPerNs = 1000.0;

// The latest simulated time a run may reach, and the longest duration a model
// may wait: 2^63 ps (about 107 days). Below it, a duration added to the
// current time cannot wrap SystemC's 64-bit picosecond count (sc_time's
// arithmetic does not check), and every instant converts to ns exactly
// enough. Platform::run stops the kernel there.
constexpr uint64_t kTimeLimitPs = uint64_t{1} << 63;
constexpr double kTimeLimitNs = static_cast<double>(kTimeLimitPs) / kPsPerNs;

// Picoseconds, rounded as documented above. A duration of kTimeLimitNs or
// more (or infinite) is a simulation fault naming it: raise_fault, exit 3.
uint64_t ns_to_ps(double ns);

sc_core::sc_time ns_to_time(double ns);

// The fault of a duration past kTimeLimitNs: `what` names the quantity
// ("a transfer of 4096 bytes at 0.001 GB/s"), the message adds the value and
// the limit.
std::string time_overflow_text(const std::string& what, double ns);
[[noreturn]] void raise_time_overflow(const std::string& what, double ns);

// Time to move `bytes` at `gbps` (1 GB/s = 1 byte/ns).
inline double transfer_ns(uint64_t bytes, double gbps) {
  return static_cast<double>(bytes) / gbps;
}
// The fault names the size and the bandwidth when the time is past the limit.
sc_core::sc_time transfer_time(uint64_t bytes, double gbps);

// transfer_time() at one bandwidth, remembering the last size asked for: a
// stream of equal bursts asks for the same one again and again.
class TransferTime {
 public:
  explicit TransferTime(double gbps) : gbps_(gbps) {}
  const sc_core::sc_time& operator()(uint64_t bytes) {
    if (bytes != bytes_) {
      bytes_ = bytes;
      time_ = transfer_time(bytes, gbps_);
    }
    return time_;
  }

 private:
  double gbps_;
  uint64_t bytes_ = 0;  // 0 bytes take no time
  sc_core::sc_time time_;
};

double to_ns(const sc_core::sc_time& t);

// The simulation context, kept from the first call: one per process, as
// SystemC 2.3 has. Its inline accessors spare the hot paths a call into the
// SystemC library each.
inline const sc_core::sc_simcontext& sim_context() {
  static const sc_core::sc_simcontext* const context = sc_core::sc_get_curr_simcontext();
  return *context;
}

// The current simulated time: sc_core::sc_time_stamp() without the library
// call (the hot paths ask for it tens of millions of times a run).
inline const sc_core::sc_time& sim_now() {
  return sim_context().time_stamp();
}

}  // namespace kb
