#include "models/memory/memory_target.h"

#include "models/common/request_order.h"

namespace kb {

MemoryTarget::MemoryTarget(const sc_core::sc_module_name& name, uint64_t size_bytes,
                           double bandwidth_gbps, double latency_ns)
    : MemoryTargetBase(name, size_bytes, ns_to_time(latency_ns), MemoryEnergyConfig{},
                       EnergyClass::kSram),
      bandwidth_gbps_(bandwidth_gbps),
      port_time_(bandwidth_gbps),
      port_("port") {}

void MemoryTarget::queue(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay,
                         Completion* served) {
  const uint64_t len = trans.get_data_length();
  // Queued at the time the request arrives, when the annotated delay has passed.
  port_.push_after(delay, port_time_(len), len, served, order_key(trans),
                   static_cast<double>(len) * pj_per_byte(trans));
}

}  // namespace kb
