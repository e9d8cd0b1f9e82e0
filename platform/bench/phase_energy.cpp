#include "platform/bench/phase_energy.h"

#include <unordered_map>

#include "models/common/energy.h"

namespace kb {

PhaseEnergy::PhaseEnergy(const Platform& platform, const std::vector<PeAddr>& pes, size_t lead)
    : platform_(platform), ranks_(pes.size()), lead_(lead) {
  // A module belongs to a rank's PE when its name is the PE's path or lies
  // below it ("system.sip0.cube0.pe0.dma"; "system.sip0.cube0.pe0_to_router",
  // the PE's link, is the fabric's).
  std::unordered_map<std::string, size_t> rank_of;
  for (size_t i = 0; i < pes.size(); ++i) rank_of["system." + to_string(pes[i])] = i;
  for (const auto& [name, m] : platform.instrumented()) {
    Part* part = &rest_;
    for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
      const auto it = rank_of.find(name.substr(0, dot));
      if (it != rank_of.end()) {
        part = &ranks_[it->second];
        break;
      }
    }
    if (part == &rest_) {
      const auto it = rank_of.find(name);
      if (it != rank_of.end()) part = &ranks_[it->second];
    }
    part->modules.push_back(m);
    EnergyTally t;
    m->report_energy(t);
    part->static_mw += t.static_total_mw();
  }
}

double PhaseEnergy::dynamic_pj(const Part& p) const {
  double pj = 0;
  for (const Instrumented* m : p.modules) {
    EnergyTally t;
    m->report_energy(t);
    pj += t.dynamic_total_pj();
  }
  return pj;
}

void PhaseEnergy::start() {
  const double now = platform_.now_ns();
  auto reset = [&](Part& p) {
    p.dynamic_pj = dynamic_pj(p);
    p.at_ns = now;
    p.pj.clear();
  };
  for (Part& p : ranks_) reset(p);
  reset(rest_);
  pj_.clear();
}

void PhaseEnergy::charge(Part& p, const std::string& cls, int layer) {
  const double now = platform_.now_ns(), dyn = dynamic_pj(p);
  // Static energy: power (mW) x time (ns) = pJ.
  const double pj = dyn - p.dynamic_pj + p.static_mw * (now - p.at_ns);
  p.pj[cls] += pj;
  if (layer >= 0) p.layer_pj[{layer, cls}] += pj;
  p.dynamic_pj = dyn;
  p.at_ns = now;
}

void PhaseEnergy::phase_done(size_t rank, const fw::PhaseRecord& r) {
  const std::string cls = fw::phase_class(r.phase);
  charge(ranks_.at(rank), cls, r.layer);
  if (rank == lead_) charge(rest_, cls, r.layer);
}

void PhaseEnergy::finish() {
  for (Part& p : ranks_) charge(p, "after_last_phase");
  charge(rest_, "after_last_phase");
  pj_.clear();
  for (const Part& p : ranks_)
    for (const auto& [cls, pj] : p.pj) pj_[cls] += pj;
  for (const auto& [cls, pj] : rest_.pj) pj_[cls] += pj;
}

std::map<std::string, std::vector<double>> PhaseEnergy::pj_by_class_per_layer(size_t layers) const {
  std::map<std::string, std::vector<double>> out;
  auto add = [&](const Part& p) {
    for (const auto& [key, pj] : p.layer_pj) {
      std::vector<double>& v = out[key.second];
      v.resize(layers, 0.0);
      if (key.first >= 0 && static_cast<size_t>(key.first) < layers)
        v[static_cast<size_t>(key.first)] += pj;
    }
  };
  for (const Part& p : ranks_) add(p);
  add(rest_);
  return out;
}

double PhaseEnergy::total_pj() const {
  double pj = 0;
  for (const auto& kv : pj_) pj += kv.second;
  return pj;
}

}  // namespace kb
