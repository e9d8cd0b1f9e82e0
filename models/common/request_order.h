// The order key a request carries through the fabric (a TLM extension set by
// the initiator): it decides the service order of requests that reach a
// queue at the same simulated time (see ServiceQueue). PE_DMA keys each burst
// by (its PE, its issue sequence), so ties resolve the same way whatever else
// the platform is doing. Requests without the extension have key 0.
#pragma once

#include <cstdint>
#include <tlm>

namespace kb {

struct RequestOrder : tlm::tlm_extension<RequestOrder> {
  uint64_t key = 0;
  tlm::tlm_extension_base* clone() const override { return new RequestOrder(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    key = static_cast<const RequestOrder&>(other).key;
  }
};

// A PE's index in order keys: 24 bits, (sip << 14 | cube << 6 | pe). Initiators
// put their own in bits 40+ (PE_DMA, PE_IPCQ); PE_IPCQ also keys a message by
// its destination's.
inline uint64_t pe_key_index(unsigned sip, unsigned cube, unsigned pe) {
  return ((uint64_t{sip} << 8 | cube) << 6 | pe) & ((uint64_t{1} << 24) - 1);
}

inline uint64_t order_key(const tlm::tlm_generic_payload& trans) {
  RequestOrder* o = nullptr;
  trans.get_extension(o);
  return o ? o->key : 0;
}

}  // namespace kb
