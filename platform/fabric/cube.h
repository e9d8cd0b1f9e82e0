// One cube: its router, shared SRAM, PEs and the PE<->router links.
// Router ports: 0..pes-1 = down-links to the PEs, pes = SRAM, then the
// cube links (added by the Sip, one per neighbour) and, on the SIP's I/O
// cube, the link to the SIP hub.
#pragma once

#include <map>
#include <memory>
#include <systemc>
#include <vector>

#include "models/common/power_meter.h"
#include "models/link/link.h"
#include "models/memory/memory_target.h"
#include "models/router/router.h"
#include "platform/fabric/pe.h"

namespace kb {

class FabricRouting;

class Cube : public sc_core::sc_module {
 public:
  Cube(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map,
       unsigned sip, unsigned cube);

  unsigned id() const { return cube_; }
  Pe& pe(unsigned i) { return *pes_.at(i); }
  unsigned num_pes() const { return static_cast<unsigned>(pes_.size()); }

  // Wiring by the Sip: an outgoing link towards a neighbour cube or the hub.
  void connect_neighbor(unsigned neighbor_cube, Link& out_link, const Router& next);
  void connect_hub(Link& out_link, const Router& hub);
  // Installs the router's policy once every port exists.
  void finalize_routing(const FabricRouting& routing);

  Router router;
  MemoryTarget sram;
  // The cube's power over time (on once enable_power_meter is called).
  PowerMeter power;
  // Draws the energy of this cube's memories, wires (its PE links and the
  // cube links leaving it) and engines on `power`, whose static part is the
  // static power of everything it covers.
  void enable_power_meter();

 private:
  unsigned sip_, cube_;
  std::vector<std::unique_ptr<Pe>> pes_;
  std::vector<std::unique_ptr<Link>> up_, down_;
  std::vector<Link*> out_links_;  // cube links and the io link leaving this cube
  unsigned sram_port_ = 0;
  std::map<unsigned, unsigned> neighbor_port_;
  int hub_port_ = -1;
};

}  // namespace kb
