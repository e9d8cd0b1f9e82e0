#include "platform/fabric/cube.h"

#include <string>

#include "models/topology/fabric_route.h"

namespace kb {

Cube::Cube(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map,
           unsigned sip, unsigned cube)
    : sc_core::sc_module(name),
      router("router", map, cfg.cube.router_latency_ns),
      sram("sram", cfg.cube.sram.size_bytes, cfg.cube.sram.bandwidth_gbps,
           cfg.cube.sram.latency_ns),
      power("power"),
      sip_(sip),
      cube_(cube) {
  router.set_energy(cfg.cube.router_energy);
  sram.set_energy(cfg.cube.sram.energy, EnergyClass::kSram);
  for (unsigned i = 0; i < cfg.cube.pes; ++i) {
    const std::string pe = "pe" + std::to_string(i);
    pes_.push_back(
        std::make_unique<Pe>(pe.c_str(), cfg, map, Location{Space::kHbm, sip, cube, i, 0}));
    up_.push_back(std::make_unique<Link>((pe + "_to_router").c_str(), cfg.cube.pe_link));
    down_.push_back(std::make_unique<Link>(("router_to_" + pe).c_str(), cfg.cube.pe_link));
    up_.back()->set_reverse(down_.back().get());
    down_.back()->set_reverse(up_.back().get());
    // PE uplink: xbar port 3 (after HBM, TCM and the IPCQ registers) -> link -> router.
    pes_.back()->xbar.add_port({up_.back().get(), "", &router});
    pes_.back()->xbar.out.bind(up_.back()->in);
    up_.back()->out.bind(router.in);
  }
  for (unsigned i = 0; i < cfg.cube.pes; ++i) {
    router.add_port({down_[i].get(), "", &pes_[i]->xbar});
    router.out.bind(down_[i]->in);
    down_[i]->out.bind(pes_[i]->xbar.in);
  }
  sram_port_ = router.add_port({nullptr, sram.name(), nullptr});
  router.out.bind(sram.in);
}

void Cube::connect_neighbor(unsigned neighbor_cube, Link& out_link, const Router& next) {
  neighbor_port_[neighbor_cube] = router.add_port({&out_link, "", &next});
  router.out.bind(out_link.in);
  out_links_.push_back(&out_link);
}

void Cube::connect_hub(Link& out_link, const Router& hub) {
  hub_port_ = static_cast<int>(router.add_port({&out_link, "", &hub}));
  router.out.bind(out_link.in);
  out_links_.push_back(&out_link);
}

void Cube::enable_power_meter() {
  EnergyTally covered;
  auto cover = [&](const Instrumented& m) { m.report_energy(covered); };
  cover(router);
  cover(sram);
  sram.set_power_meter(&power);
  for (auto* links : {&up_, &down_})
    for (auto& l : *links) {
      cover(*l);
      l->set_power_meter(&power);
    }
  for (Link* l : out_links_) {
    cover(*l);
    l->set_power_meter(&power);
  }
  for (auto& pe : pes_) {
    cover(pe->xbar);
    cover(pe->hbm);
    cover(pe->tcm.dma_port);
    cover(pe->cpu);
    pe->hbm.set_power_meter(&power);
    pe->tcm.dma_port.set_power_meter(&power);
    for (PeEngine* e : pe->engines()) {
      cover(*e);
      e->set_power_meter(&power);
    }
  }
  power.set_static_mw(covered.static_total_mw());
}

void Cube::finalize_routing(const FabricRouting& routing) {
  router.set_route_policy([this, &routing](const Location& d) -> unsigned {
    const RouteHop h = routing.cube_hop(sip_, cube_, d);
    switch (h.exit) {
      case RouteExit::kDeliver:
        return sram_port_;
      case RouteExit::kPeDown:
        return h.to;  // ports 0..pes-1
      case RouteExit::kHubUp:
        return static_cast<unsigned>(hub_port_);
      default:  // kCube
        return neighbor_port_.at(h.to);
    }
  });
}

}  // namespace kb
