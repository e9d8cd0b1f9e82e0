// The energy of a run or of a window of it, as the results report it.
//
// Platform::energy() takes an EnergySnapshot: every module's dynamic energy
// so far and its static power, by class (models/common/energy.h). The energy
// of a window is the dynamic difference between two snapshots plus the static
// power times the window; the energy of the whole run is the last snapshot
// against time 0.
#pragma once

#include <array>
#include <nlohmann/json.hpp>

#include "models/common/energy.h"

namespace kb {

struct EnergySnapshot {
  EnergyTally tally;          // every module: dynamic pJ so far, static mW, by class
  double idle_static_mw = 0;  // static power of the modules that spent no dynamic energy
  double now_ns = 0;
};

struct EnergyReport {
  std::array<double, kNumEnergyClasses> dynamic_pj{};
  std::array<double, kNumEnergyClasses> static_pj{};
  double window_ns = 0;

  // The energy between `before` and `after`, with static energy over `window_ns`.
  static EnergyReport between(const EnergySnapshot& before, const EnergySnapshot& after,
                              double window_ns);
  // The whole run up to `now`: from time 0, when no module had spent anything.
  static EnergyReport since_start(const EnergySnapshot& now);

  double dynamic_total_pj() const;
  double static_total_pj() const;
  double total_pj() const { return dynamic_total_pj() + static_total_pj(); }
  // Average power over the window, mW (pJ / ns).
  double average_mw() const { return window_ns > 0 ? total_pj() / window_ns : 0.0; }
  // The class (or "static", all static energy together) with the most energy;
  // a table's column of it is headed kDominantHeader.
  std::string dominant() const;
  static constexpr const char* kDominantHeader = "dominant energy class";
  // The class with the most dynamic energy ("none" when there is none).
  std::string dominant_dynamic() const;

  // {total_pj, dynamic_pj, static_pj, window_ns, average_power_mw, dominant, dominant_dynamic,
  //  by_class: {gemm: {dynamic_pj, static_pj}, ...}}
  nlohmann::json to_json() const;
};

}  // namespace kb
