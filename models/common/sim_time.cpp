#include "models/common/sim_time.h"

#include <cmath>

namespace kb {

uint64_t ns_to_ps(double ns) {
  if (!(ns > 0)) return 0;
  return static_cast<uint64_t>(std::llround(ns * kPsPerNs));
}

sc_core::sc_time ns_to_time(double ns) {
  return sc_core::sc_time::from_value(ns_to_ps(ns));
}

sc_core::sc_time transfer_time(uint64_t bytes, double gbps) {
  return ns_to_time(transfer_ns(bytes, gbps));
}

double to_ns(const sc_core::sc_time& t) {
  return static_cast<double>(t.value()) / kPsPerNs;
}

}  // namespace kb
