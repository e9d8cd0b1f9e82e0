// A stage socket's targets by EngineKind, taken from the socket at their
// first use. A tile token is handed to the next engine after nearly every
// stage; the multi-socket's own vector of bound targets is one more cache
// line to miss each time, in a simulation whose hundreds of PEs do not stay
// in cache.
#pragma once

#include <array>
#include <cstddef>
#include <tlm>

#include "models/pe/stage.h"

namespace kb {

class EngineTargets {
 public:
  // The target `out` is bound to for `kind` (its index in EngineKind order).
  template <class Socket>
  tlm::tlm_fw_transport_if<>& of(Socket& out, EngineKind kind) {
    tlm::tlm_fw_transport_if<>*& to = targets_[static_cast<size_t>(kind)];
    if (!to) to = out[static_cast<int>(kind)];
    return *to;
  }

 private:
  std::array<tlm::tlm_fw_transport_if<>*, kNumEngineKinds> targets_{};
};

}  // namespace kb
