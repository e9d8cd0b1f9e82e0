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

// A PE's index in order keys: 24 bits, (sip << 14 | cube << 6 | pe).
inline uint64_t pe_key_index(unsigned sip, unsigned cube, unsigned pe) {
  return ((uint64_t{sip} << 8 | cube) << 6 | pe) & ((uint64_t{1} << 24) - 1);
}

// The bits of an order key, the one place they are laid out (every result's
// determinism rests on them: two requests that tie must never share a key):
//   63..40  the initiating PE (pe_key_index)
//   39      0: a PE_DMA burst, 1: a PE_IPCQ control message (after the
//           PE's bursts at equal times)
//   a burst:    38 its channel (1: write), 37..0 the channel's burst sequence
//   a message:  38..37 its type, 36..13 its destination PE (pe_key_index),
//               12..0 its slot (doorbell, credit) or its grant sequence
namespace order_bits {
constexpr unsigned kPe = 40;
constexpr uint64_t kIpcqMessage = uint64_t{1} << 39;
constexpr unsigned kDmaWrite = 38;
constexpr uint64_t kDmaSeqMask = (uint64_t{1} << kDmaWrite) - 1;
constexpr unsigned kMsgType = 37;
constexpr unsigned kMsgPeer = 13;
constexpr uint64_t kMsgLowMask = (uint64_t{1} << kMsgPeer) - 1;
static_assert(kMsgPeer + 24 <= kMsgType, "a message's destination PE fits below its type");
static_assert(kMsgType + 2 <= 39, "a message's type fits below the IPCQ bit");
}  // namespace order_bits

// The initiating PE's part of its order keys (bits 63..40).
inline uint64_t pe_order_base(unsigned sip, unsigned cube, unsigned pe) {
  return pe_key_index(sip, cube, pe) << order_bits::kPe;
}

inline uint64_t order_key(const tlm::tlm_generic_payload& trans) {
  RequestOrder* o = nullptr;
  trans.get_extension(o);
  return o ? o->key : 0;
}

}  // namespace kb
