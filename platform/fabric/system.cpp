#include "platform/fabric/system.h"

#include <string>

namespace kb {

System::System(const sc_core::sc_module_name& name, const TopologyConfig& cfg,
               const AddressMap& map)
    : sc_core::sc_module(name),
      host("host", cfg, map),
      h2d("h2d", cfg.host.h2d),
      d2h("d2h", cfg.host.d2h),
      routing_(cfg.routing()) {
  for (unsigned s = 0; s < cfg.system.n_sips; ++s)
    sips_.push_back(
        std::make_unique<Sip>(("sip" + std::to_string(s)).c_str(), cfg, map, s, routing_));
  // SIP links: one Link per direction of every linked pair.
  auto make_link = [&](unsigned a, unsigned b) {
    auto link = std::make_unique<Link>(
        ("sip" + std::to_string(a) + "_to_sip" + std::to_string(b)).c_str(), cfg.system.sip_link);
    sips_[a]->connect_sip(b, *link, sips_[b]->hub);
    link->out.bind(sips_[b]->hub.in);
    sip_links_.push_back(std::move(link));
    return sip_links_.back().get();
  };
  for (unsigned a = 0; a < cfg.system.n_sips; ++a)
    for (unsigned b : routing_.sips().neighbors(a)) {
      if (b < a) continue;
      Link* ab = make_link(a, b);
      Link* ba = make_link(b, a);
      ab->set_reverse(ba);
      ba->set_reverse(ab);
    }
  // Host link: d2h from the host SIP's hub, h2d back into it.
  Sip& hs = *sips_.at(cfg.system.host_sip);
  h2d.set_reverse(&d2h);
  d2h.set_reverse(&h2d);
  hs.connect_host(d2h, host.port);
  d2h.out.bind(host.port.in);
  host.port.add_port({&h2d, "", &hs.hub});
  host.port.out.bind(h2d.in);
  h2d.out.bind(hs.hub.in);
  for (auto& s : sips_) s->finalize_routing();
}

}  // namespace kb
