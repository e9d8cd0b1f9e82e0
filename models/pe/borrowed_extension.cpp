#include "models/pe/borrowed_extension.h"

#include <memory>
#include <vector>

namespace kb {

namespace {

// Payloads not in use. Posts nest (a callee may post on), so a scope takes
// its own and the list grows to the deepest nesting seen.
std::vector<std::unique_ptr<tlm::tlm_generic_payload>>& free_payloads() {
  // Never destroyed: at exit the kernel's objects may already be gone.
  static auto* list = new std::vector<std::unique_ptr<tlm::tlm_generic_payload>>;
  return *list;
}

}  // namespace

PooledPayload::PooledPayload() {
  auto& list = free_payloads();
  if (list.empty()) {
    trans_ = new tlm::tlm_generic_payload;  // owned by the list once returned
  } else {
    trans_ = list.back().release();
    list.pop_back();
  }
}

PooledPayload::~PooledPayload() {
  free_payloads().emplace_back(trans_);
}

}  // namespace kb
