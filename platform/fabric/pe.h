// One PE of the fabric: its crossbar, HBM controller, TCM and DMA engine.
// Crossbar ports: 0 = own HBM, 1 = own TCM, 2 = uplink to the cube router
// (bound by the Cube). Everything not in this PE leaves on the uplink.
#pragma once

#include <systemc>

#include "models/common/address_map.h"
#include "models/dma/pe_dma.h"
#include "models/hbm/hbm_ctrl.h"
#include "models/memory/memory_target.h"
#include "models/router/router.h"
#include "platform/config/topology_config.h"

namespace kb {

class Pe : public sc_core::sc_module {
 public:
  static constexpr unsigned kHbmPort = 0, kTcmPort = 1, kUplinkPort = 2;

  Pe(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map,
     const Location& self);

  const Location& location() const { return self_; }

  Router xbar;
  HbmCtrl hbm;
  MemoryTarget tcm;
  PeDma dma;

 private:
  Location self_;
};

}  // namespace kb
