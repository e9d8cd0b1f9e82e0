// The host: its memory and the port router where the H2D/D2H link lands.
// Port router ports: 0 = host memory, 1 = H2D link (bound by the System).
#pragma once

#include <systemc>

#include <tlm_utils/simple_initiator_socket.h>
#include "models/memory/memory_target.h"
#include "models/router/router.h"
#include "platform/config/topology_config.h"

namespace kb {

class Host : public sc_core::sc_module {
 public:
  Host(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map);
  Router port;
  MemoryTarget memory;
  // The host runtime's backdoor: transport_dbg into any memory of the
  // platform, routed through the fabric like any other access.
  tlm_utils::simple_initiator_socket<Host> debug;
};

}  // namespace kb
