#include "platform/output/energy_report.h"

#include <numeric>
#include <string>

namespace kb {

EnergyReport EnergyReport::between(const EnergySnapshot& before, const EnergySnapshot& after,
                                   double window_ns) {
  EnergyReport r;
  r.window_ns = window_ns;
  for (unsigned c = 0; c < kNumEnergyClasses; ++c) {
    r.dynamic_pj[c] = after.tally.dynamic[c] - before.tally.dynamic[c];
    r.static_pj[c] = after.tally.power[c] * window_ns;  // mW x ns = pJ
  }
  return r;
}

EnergyReport EnergyReport::since_start(const EnergySnapshot& now) {
  EnergySnapshot origin;
  return between(origin, now, now.now_ns);
}

double EnergyReport::dynamic_total_pj() const {
  return std::accumulate(dynamic_pj.begin(), dynamic_pj.end(), 0.0);
}

double EnergyReport::static_total_pj() const {
  return std::accumulate(static_pj.begin(), static_pj.end(), 0.0);
}

std::string EnergyReport::dominant() const {
  std::string best = "static";
  double most = static_total_pj();
  for (unsigned c = 0; c < kNumEnergyClasses; ++c)
    if (dynamic_pj[c] > most) {
      most = dynamic_pj[c];
      best = to_string(static_cast<EnergyClass>(c));
    }
  return best;
}

std::string EnergyReport::dominant_dynamic() const {
  std::string best = "none";
  double most = 0;
  for (unsigned c = 0; c < kNumEnergyClasses; ++c)
    if (dynamic_pj[c] > most) {
      most = dynamic_pj[c];
      best = to_string(static_cast<EnergyClass>(c));
    }
  return best;
}

nlohmann::json EnergyReport::to_json() const {
  nlohmann::json by_class = nlohmann::json::object();
  for (unsigned c = 0; c < kNumEnergyClasses; ++c)
    by_class[to_string(static_cast<EnergyClass>(c))] = {{"dynamic_pj", dynamic_pj[c]},
                                                        {"static_pj", static_pj[c]}};
  return {{"total_pj", total_pj()},
          {"dynamic_pj", dynamic_total_pj()},
          {"static_pj", static_total_pj()},
          {"window_ns", window_ns},
          {"average_power_mw", average_mw()},
          {"dominant", dominant()},
          {"dominant_dynamic", dominant_dynamic()},
          {"by_class", by_class}};
}

}  // namespace kb
