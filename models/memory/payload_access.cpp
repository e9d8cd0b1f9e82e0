#include "models/memory/payload_access.h"

#include "models/common/burst_run.h"

#include "models/common/address_map.h"

namespace kb {

bool payload_in_region(const tlm::tlm_generic_payload& trans, uint64_t region_bytes) {
  const uint64_t offset = trans.get_address() & addr_bits::kOffsetMask;
  const uint64_t len = address_span(trans);
  return offset < region_bytes && len <= region_bytes - offset;
}

tlm::tlm_response_status unsupported_payload_status(const tlm::tlm_generic_payload& trans) {
  if (trans.get_byte_enable_ptr() != nullptr) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  if (trans.get_streaming_width() < trans.get_data_length()) return tlm::TLM_BURST_ERROR_RESPONSE;
  return tlm::TLM_INCOMPLETE_RESPONSE;
}

unsigned int copy_payload(tlm::tlm_generic_payload& trans, BackingStore& store) {
  const uint64_t offset = trans.get_address() & addr_bits::kOffsetMask;
  const unsigned int len = trans.get_data_length();
  if (trans.get_data_ptr() == nullptr || len == 0) return 0;
  if (trans.is_read())
    store.read(offset, trans.get_data_ptr(), len);
  else if (trans.is_write())
    store.write(offset, trans.get_data_ptr(), len);
  return len;
}

unsigned int debug_access(tlm::tlm_generic_payload& trans, BackingStore& store,
                          uint64_t region_bytes) {
  if (!payload_in_region(trans, region_bytes)) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  const tlm::tlm_response_status unsupported = unsupported_payload_status(trans);
  if (unsupported != tlm::TLM_INCOMPLETE_RESPONSE) {
    trans.set_response_status(unsupported);
    return 0;
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return copy_payload(trans, store);
}

}  // namespace kb
