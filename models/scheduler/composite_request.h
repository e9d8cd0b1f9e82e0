// What PE_CPU hands PE_SCHEDULER over its command socket: the composite, its
// command id, and whom to tell when it has completed. Carried as a TLM
// extension of a generic payload.
#pragma once

#include <cstdint>
#include <functional>
#include <tlm>

#include "models/commands/commands.h"

namespace kb {

struct CompositeRequest : tlm::tlm_extension<CompositeRequest> {
  const CompositeCmd* cmd = nullptr;  // owned by the issuer until on_done runs
  uint64_t cmd_id = 0;
  std::function<void()> on_done;

  tlm::tlm_extension_base* clone() const override { return new CompositeRequest(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const CompositeRequest&>(other);
  }
};

}  // namespace kb
