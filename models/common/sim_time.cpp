#include "models/common/sim_time.h"

#include <cmath>
#include <cstdio>

#include "models/common/fault.h"

namespace kb {

std::string time_overflow_text(const std::string& what, double ns) {
  char value[64], limit[64];
  std::snprintf(value, sizeof value, "%.6g", ns);
  std::snprintf(limit, sizeof limit, "%.6g", kTimeLimitNs);
  return what + " takes " + value + " ns, past the simulated time a run can hold (" + limit +
         " ns = 2^63 ps, about 107 days)";
}

void raise_time_overflow(const std::string& what, double ns) {
  raise_fault("/kernbench/sim_time", time_overflow_text(what, ns));
}

uint64_t ns_to_ps(double ns) {
  if (!(ns > 0)) return 0;
  if (ns >= kTimeLimitNs) raise_time_overflow("a duration", ns);
  return static_cast<uint64_t>(std::llround(ns * kPsPerNs));
}

sc_core::sc_time ns_to_time(double ns) {
  return sc_core::sc_time::from_value(ns_to_ps(ns));
}

sc_core::sc_time transfer_time(uint64_t bytes, double gbps) {
  const double ns = transfer_ns(bytes, gbps);
  if (ns >= kTimeLimitNs) {
    char bw[64];
    std::snprintf(bw, sizeof bw, "%.6g", gbps);
    raise_time_overflow("a transfer of " + std::to_string(bytes) + " bytes at " + bw + " GB/s", ns);
  }
  return ns_to_time(ns);
}

double to_ns(const sc_core::sc_time& t) {
  return static_cast<double>(t.value()) / kPsPerNs;
}

}  // namespace kb
