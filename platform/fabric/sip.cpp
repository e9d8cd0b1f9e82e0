#include "platform/fabric/sip.h"

#include <string>

namespace kb {

Sip::Sip(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map,
         unsigned sip, const FabricRouting& routing)
    : sc_core::sc_module(name),
      hub("hub", map, cfg.sip.hub_latency_ns),
      sip_(sip),
      routing_(routing) {
  hub.set_energy(cfg.sip.hub_energy);
  const CubeGrid& grid = routing.grid();
  for (unsigned c = 0; c < grid.size(); ++c)
    cubes_.push_back(
        std::make_unique<Cube>(("cube" + std::to_string(c)).c_str(), cfg, map, sip, c));
  // Cube links: one Link per direction of every neighbour pair.
  for (unsigned a = 0; a < grid.size(); ++a)
    for (unsigned b : grid.neighbors(a)) {
      if (b < a) continue;
      auto ab = std::make_unique<Link>(
          ("cube" + std::to_string(a) + "_to_cube" + std::to_string(b)).c_str(), cfg.sip.cube_link);
      auto ba = std::make_unique<Link>(
          ("cube" + std::to_string(b) + "_to_cube" + std::to_string(a)).c_str(), cfg.sip.cube_link);
      ab->set_reverse(ba.get());
      ba->set_reverse(ab.get());
      cubes_[a]->connect_neighbor(b, *ab, cubes_[b]->router);
      ab->out.bind(cubes_[b]->router.in);
      cubes_[b]->connect_neighbor(a, *ba, cubes_[a]->router);
      ba->out.bind(cubes_[a]->router.in);
      links_.push_back(std::move(ab));
      links_.push_back(std::move(ba));
    }
  // I/O cube <-> hub.
  Cube& io = *cubes_.at(cfg.sip.io_cube);
  const std::string io_name = "cube" + std::to_string(cfg.sip.io_cube);
  auto up = std::make_unique<Link>((io_name + "_to_hub").c_str(), cfg.sip.io_link);
  auto down = std::make_unique<Link>(("hub_to_" + io_name).c_str(), cfg.sip.io_link);
  up->set_reverse(down.get());
  down->set_reverse(up.get());
  io.connect_hub(*up, hub);
  up->out.bind(hub.in);
  hub.add_port({down.get(), "", &io.router});
  hub.out.bind(down->in);
  down->out.bind(io.router.in);
  links_.push_back(std::move(up));
  links_.push_back(std::move(down));
  for (auto& c : cubes_) c->finalize_routing(routing);
}

void Sip::connect_sip(unsigned other_sip, Link& out_link, const Router& next) {
  sip_port_[other_sip] = hub.add_port({&out_link, "", &next});
  hub.out.bind(out_link.in);
}

void Sip::connect_host(Link& out_link, const Router& host_port) {
  host_port_ = static_cast<int>(hub.add_port({&out_link, "", &host_port}));
  hub.out.bind(out_link.in);
}

void Sip::finalize_routing() {
  hub.set_route_policy([this](const Location& d) -> unsigned {
    const RouteHop h = routing_.hub_hop(sip_, d);
    if (h.exit == RouteExit::kToHost) return static_cast<unsigned>(host_port_);
    if (h.exit == RouteExit::kHubDown) return 0;  // down to the I/O cube
    return sip_port_.at(h.to);                    // kSip
  });
}

}  // namespace kb
