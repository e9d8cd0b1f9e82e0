#include "models/scheduler/hazard_tracker.h"

namespace kb {

uint64_t HazardTracker::arrive(const std::vector<uint64_t>& rw_ids) {
  const uint64_t t = next_++;
  live_[t] = std::set<uint64_t>(rw_ids.begin(), rw_ids.end());
  return t;
}

std::vector<uint64_t> HazardTracker::blockers(uint64_t ticket) const {
  std::vector<uint64_t> out;
  auto me = live_.find(ticket);
  if (me == live_.end()) return out;
  for (auto it = live_.begin(); it != me; ++it)
    for (uint64_t id : me->second)
      if (it->second.count(id)) {
        out.push_back(it->first);
        break;
      }
  return out;
}

bool HazardTracker::admissible(uint64_t ticket) const {
  return blockers(ticket).empty();
}

void HazardTracker::retire(uint64_t ticket) {
  live_.erase(ticket);
}

}  // namespace kb
