// The fabric's routing decision, from the topology alone (pure functions,
// unit-tested): at each node that routes (a PE's crossbar, a cube router, a
// SIP's I/O hub, the host port), which way a transaction for a destination
// leaves. The routers' policies (platform/fabric) map each exit to the port
// they bound for it; the analytic models (platform/analytic) walk `path` to
// price the same way. So there is one routing, and the two cannot differ.
//
//   crossbar     its own PE's HBM, TCM or IPCQ registers: delivered there;
//                anything else: up its PE link to the cube router.
//   cube router  this cube's SRAM, or a PE of this cube: delivered (SRAM) or
//                down that PE's link; another cube of this SIP: the cube link
//                to CubeGrid::next_hop towards it; anything else (another
//                SIP, the host): towards the I/O cube, and from the I/O cube
//                up its io link to the hub.
//   hub          its own SIP: down the io link to the I/O cube (the host, on
//                the host SIP: the host link); another SIP (the host, from
//                any other SIP): the SIP link to SipGraph::next_hop towards it.
//   host port    host memory: delivered; anything else: the host link into
//                the host SIP's hub.
// A response crosses every link of its request's path the other way round.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/address_map.h"
#include "models/topology/cube_grid.h"

namespace kb {

// A node that routes: a PE's crossbar (sip, cube, pe), a cube router (sip,
// cube), a SIP's hub (sip), the host port.
struct RouteNode {
  enum class Kind : uint8_t { kXbar, kCubeRouter, kHub, kHostPort };
  Kind kind = Kind::kXbar;
  unsigned sip = 0, cube = 0, pe = 0;

  static RouteNode xbar(unsigned sip, unsigned cube, unsigned pe) {
    return {Kind::kXbar, sip, cube, pe};
  }
  static RouteNode cube_router(unsigned sip, unsigned cube) {
    return {Kind::kCubeRouter, sip, cube, 0};
  }
  static RouteNode hub(unsigned sip) { return {Kind::kHub, sip, 0, 0}; }
  static RouteNode host_port() { return {Kind::kHostPort, 0, 0, 0}; }
  bool operator==(const RouteNode& o) const {
    return kind == o.kind && sip == o.sip && cube == o.cube && pe == o.pe;
  }
  bool operator!=(const RouteNode& o) const { return !(*this == o); }
};

// The way a node sends a transaction.
enum class RouteExit : uint8_t {
  kDeliver,   // to the node's own target: a crossbar's HBM, TCM or IPCQ
              // registers (by the destination's space), a cube router's SRAM,
              // the host port's memory
  kPeUp,      // crossbar: up its PE link to the cube router
  kPeDown,    // cube router: down the link of its PE `to`
  kCube,      // cube router: the cube link to neighbour cube `to`
  kHubUp,     // cube router of the I/O cube: up the io link to the hub
  kHubDown,   // hub: down the io link to the I/O cube
  kSip,       // hub: the SIP link to SIP `to`
  kToHost,    // hub of the host SIP: the host link to the host port (d2h)
  kFromHost,  // host port: the host link into the host SIP's hub (h2d)
};

struct RouteHop {
  RouteExit exit = RouteExit::kDeliver;
  unsigned to = 0;  // kPeDown: the PE; kCube: the cube; kSip: the SIP
};

// The link an exit crosses: a PE link (crossbar <-> cube router), a cube
// link, a SIP's io link (I/O cube <-> hub), a SIP link, the host link;
// kNone for kDeliver.
enum class LinkKind : uint8_t { kNone, kPe, kCube, kIo, kSip, kHost };
LinkKind link_kind(RouteExit e);

// One node of a path and the way it leaves. A hop other than kDeliver
// crosses one link direction, from `at` to `next`.
struct RouteStep {
  RouteNode at;
  RouteHop hop;
  RouteNode next;  // the node the hop leads to (kDeliver: `at`)
};

class FabricRouting {
 public:
  FabricRouting(unsigned cubes_x, unsigned cubes_y, CubeTopology cube_topology, unsigned io_cube,
                unsigned n_sips, SipTopology sip_topology, unsigned host_sip);

  const CubeGrid& grid() const { return grid_; }
  const SipGraph& sips() const { return sips_; }

  // The decision of one node for destination `d`.
  static RouteHop xbar_hop(const Location& self, const Location& d);
  RouteHop cube_hop(unsigned sip, unsigned cube, const Location& d) const;
  RouteHop hub_hop(unsigned sip, const Location& d) const;
  static RouteHop host_port_hop(const Location& d);
  RouteHop hop(const RouteNode& at, const Location& d) const;

  // The node `h` from `at` leads to (kDeliver: `at`).
  RouteNode next(const RouteNode& at, const RouteHop& h) const;

  // Every node from `from` to the one that delivers to `d`, in order, each
  // with its way out; the last one's is kDeliver.
  std::vector<RouteStep> path(const RouteNode& from, const Location& d) const;

 private:
  CubeGrid grid_;
  SipGraph sips_;
  unsigned n_sips_, io_cube_, host_sip_;
};

}  // namespace kb
