// The whole platform's module tree, built from a TopologyConfig by walking it:
// system.host, system.sipN (cubes, PEs, links, hub), the SIP-to-SIP links
// `sipA_to_sipB` and the host link directions `h2d` and `d2h`.
#pragma once

#include <memory>
#include <systemc>
#include <vector>

#include "models/link/link.h"
#include "models/topology/fabric_route.h"
#include "platform/fabric/host.h"
#include "platform/fabric/sip.h"

namespace kb {

class System : public sc_core::sc_module {
 public:
  System(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map);

  Sip& sip(unsigned i) { return *sips_.at(i); }
  unsigned num_sips() const { return static_cast<unsigned>(sips_.size()); }
  Pe& pe(unsigned sip, unsigned cube, unsigned pe) { return sips_.at(sip)->cube(cube).pe(pe); }
  const SipGraph& sip_graph() const { return routing_.sips(); }
  const FabricRouting& routing() const { return routing_; }
  Host host;
  Link h2d, d2h;

 private:
  FabricRouting routing_;
  std::vector<std::unique_ptr<Sip>> sips_;
  std::vector<std::unique_ptr<Link>> sip_links_;
};

}  // namespace kb
