// The host: its memory and the port router where the H2D/D2H link lands.
// Port router ports: 0 = host memory, 1 = H2D link (bound by the System).
#pragma once

#include <systemc>

#include "models/memory/memory_target.h"
#include "models/router/router.h"
#include "platform/config/topology_config.h"

namespace kb {

class Host : public sc_core::sc_module {
 public:
  Host(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map);
  Router port;
  MemoryTarget memory;
};

}  // namespace kb
