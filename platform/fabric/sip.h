// One SIP: its cube grid, the cube links (one Link per direction), and the
// SIP I/O hub that connects the I/O cube to other SIPs and the host.
// Hub ports: 0 = link down to the I/O cube, then one per SIP link (added by
// the System), then the host link on the host SIP.
#pragma once

#include <map>
#include <memory>
#include <systemc>
#include <vector>

#include "models/link/link.h"
#include "models/router/router.h"
#include "models/topology/fabric_route.h"
#include "platform/fabric/cube.h"

namespace kb {

class Sip : public sc_core::sc_module {
 public:
  Sip(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map,
      unsigned sip, const FabricRouting& routing);

  unsigned id() const { return sip_; }
  Cube& cube(unsigned i) { return *cubes_.at(i); }
  unsigned num_cubes() const { return static_cast<unsigned>(cubes_.size()); }
  const CubeGrid& grid() const { return routing_.grid(); }

  void connect_sip(unsigned other_sip, Link& out_link, const Router& next);
  void connect_host(Link& out_link, const Router& host_port);
  void finalize_routing();

  Router hub;

 private:
  unsigned sip_;
  const FabricRouting& routing_;
  std::vector<std::unique_ptr<Cube>> cubes_;
  std::vector<std::unique_ptr<Link>> links_;
  std::map<unsigned, unsigned> sip_port_;
  int host_port_ = -1;
};

}  // namespace kb
