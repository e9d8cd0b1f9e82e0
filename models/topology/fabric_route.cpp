#include "models/topology/fabric_route.h"

#include <stdexcept>

namespace kb {

FabricRouting::FabricRouting(unsigned cubes_x, unsigned cubes_y, CubeTopology cube_topology,
                             unsigned io_cube, unsigned n_sips, SipTopology sip_topology,
                             unsigned host_sip)
    : grid_(cubes_x, cubes_y, cube_topology),
      sips_(n_sips, sip_topology),
      n_sips_(n_sips),
      io_cube_(io_cube),
      host_sip_(host_sip) {}

RouteHop FabricRouting::xbar_hop(const Location& self, const Location& d) {
  const bool mine = d.sip == self.sip && d.cube == self.cube && d.pe == self.pe;
  const bool own_space =
      d.space == Space::kHbm || d.space == Space::kTcm || d.space == Space::kIpcq;
  return {mine && own_space ? RouteExit::kDeliver : RouteExit::kPeUp, 0};
}

RouteHop FabricRouting::cube_hop(unsigned sip, unsigned cube, const Location& d) const {
  const bool this_sip = d.space != Space::kHost && d.sip == sip;
  if (this_sip && d.cube == cube) {
    if (d.space == Space::kSram) return {RouteExit::kDeliver, 0};
    return {RouteExit::kPeDown, d.pe};  // HBM, TCM or registers of one of this cube's PEs
  }
  const unsigned target = this_sip ? d.cube : io_cube_;
  if (target == cube) return {RouteExit::kHubUp, 0};  // leave the SIP
  return {RouteExit::kCube, grid_.next_hop(cube, target)};
}

RouteHop FabricRouting::hub_hop(unsigned sip, const Location& d) const {
  const unsigned target = d.space == Space::kHost ? host_sip_ : d.sip;
  if (target == sip) return {d.space == Space::kHost ? RouteExit::kToHost : RouteExit::kHubDown, 0};
  return {RouteExit::kSip, sips_.next_hop(sip, target)};
}

RouteHop FabricRouting::host_port_hop(const Location& d) {
  return {d.space == Space::kHost ? RouteExit::kDeliver : RouteExit::kFromHost, 0};
}

LinkKind link_kind(RouteExit e) {
  switch (e) {
    case RouteExit::kDeliver:
      return LinkKind::kNone;
    case RouteExit::kPeUp:
    case RouteExit::kPeDown:
      return LinkKind::kPe;
    case RouteExit::kCube:
      return LinkKind::kCube;
    case RouteExit::kHubUp:
    case RouteExit::kHubDown:
      return LinkKind::kIo;
    case RouteExit::kSip:
      return LinkKind::kSip;
    case RouteExit::kToHost:
    case RouteExit::kFromHost:
      return LinkKind::kHost;
  }
  throw std::logic_error("route: unknown exit");
}

RouteHop FabricRouting::hop(const RouteNode& at, const Location& d) const {
  switch (at.kind) {
    case RouteNode::Kind::kXbar:
      return xbar_hop(Location{Space::kHbm, at.sip, at.cube, at.pe, 0}, d);
    case RouteNode::Kind::kCubeRouter:
      return cube_hop(at.sip, at.cube, d);
    case RouteNode::Kind::kHub:
      return hub_hop(at.sip, d);
    case RouteNode::Kind::kHostPort:
      return host_port_hop(d);
  }
  throw std::logic_error("route: unknown node kind");
}

RouteNode FabricRouting::next(const RouteNode& at, const RouteHop& h) const {
  switch (h.exit) {
    case RouteExit::kDeliver:
      return at;
    case RouteExit::kPeUp:
      return RouteNode::cube_router(at.sip, at.cube);
    case RouteExit::kPeDown:
      return RouteNode::xbar(at.sip, at.cube, h.to);
    case RouteExit::kCube:
      return RouteNode::cube_router(at.sip, h.to);
    case RouteExit::kHubUp:
      return RouteNode::hub(at.sip);
    case RouteExit::kHubDown:
      return RouteNode::cube_router(at.sip, io_cube_);
    case RouteExit::kSip:
      return RouteNode::hub(h.to);
    case RouteExit::kToHost:
      return RouteNode::host_port();
    case RouteExit::kFromHost:
      return RouteNode::hub(host_sip_);
  }
  throw std::logic_error("route: unknown exit");
}

std::vector<RouteStep> FabricRouting::path(const RouteNode& from, const Location& d) const {
  std::vector<RouteStep> steps;
  // A path visits each node at most once: at most the crossbars at its ends,
  // the cube routers of two SIPs, every hub and the host port.
  const size_t bound = 2 * size_t{grid_.size()} + n_sips_ + 3;
  for (RouteNode at = from;;) {
    const RouteHop h = hop(at, d);
    steps.push_back({at, h, next(at, h)});
    if (h.exit == RouteExit::kDeliver) return steps;
    if (steps.size() >= bound) throw std::logic_error("fabric routing loop");
    at = steps.back().next;
  }
}

}  // namespace kb
