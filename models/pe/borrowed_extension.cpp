#include "models/pe/borrowed_extension.h"

#include "models/common/free_list.h"

namespace kb {

PooledPayload::PooledPayload() : trans_(FreeList<tlm::tlm_generic_payload>::take()) {}

PooledPayload::~PooledPayload() {
  FreeList<tlm::tlm_generic_payload>::give(trans_);
}

}  // namespace kb
