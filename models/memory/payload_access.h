// Moving a TLM payload's bytes in or out of a region's BackingStore.
#pragma once

#include <cstdint>
#include <tlm>

#include "models/memory/backing_store.h"

namespace kb {

// True when [offset, offset+len) of the payload lies inside a region of
// `region_bytes` (offset = the address's offset field; len = address_span(),
// a stream transaction's span: models/common/burst_run.h).
bool payload_in_region(const tlm::tlm_generic_payload& trans, uint64_t region_bytes);

// The memories of this platform move whole contiguous payloads: a payload
// with byte enables gets TLM_BYTE_ENABLE_ERROR_RESPONSE and a streaming one
// (streaming width below the data length) TLM_BURST_ERROR_RESPONSE, as the
// TLM-2.0 rules ask of a target that does not support them; otherwise
// TLM_INCOMPLETE_RESPONSE (meaning: supported, go on).
tlm::tlm_response_status unsupported_payload_status(const tlm::tlm_generic_payload& trans);

// Copies between the payload's data pointer and the store (read or write by
// the payload's command). Returns the bytes moved.
unsigned int copy_payload(tlm::tlm_generic_payload& trans, BackingStore& store);

// transport_dbg body: bounds check, copy, byte count (0 on an address error).
unsigned int debug_access(tlm::tlm_generic_payload& trans, BackingStore& store,
                          uint64_t region_bytes);

}  // namespace kb
