#include "models/common/energy.h"

#include <numeric>

namespace kb {

const char* to_string(EnergyClass c) {
  static const char* const kNames[kNumEnergyClasses] = {
      "gemm", "math", "hbm", "tcm", "sram", "host_memory", "link", "router", "dma", "ipcq", "cpu"};
  const auto i = static_cast<unsigned>(c);
  return i < kNumEnergyClasses ? kNames[i] : "?";
}

double EnergyTally::dynamic_total_pj() const {
  return std::accumulate(dynamic.begin(), dynamic.end(), 0.0);
}

double EnergyTally::static_total_mw() const {
  return std::accumulate(power.begin(), power.end(), 0.0);
}

}  // namespace kb
