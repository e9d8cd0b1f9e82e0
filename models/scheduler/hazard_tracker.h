// Strict-FIFO read-write hazard tracking between composites (docs/ARCHITECTURE.md §3): a
// composite whose rw_handles intersect (by handle id) those of an earlier,
// unfinished composite waits until every such earlier composite has
// completed. Composites that share nothing proceed. Pure bookkeeping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace kb {

class HazardTracker {
 public:
  // Registers a composite in arrival order; returns its ticket.
  uint64_t arrive(const std::vector<uint64_t>& rw_ids);
  // True when no earlier unfinished composite shares a handle with `ticket`.
  bool admissible(uint64_t ticket) const;
  // Earlier unfinished composites that `ticket` waits for.
  std::vector<uint64_t> blockers(uint64_t ticket) const;
  void retire(uint64_t ticket);
  size_t unfinished() const { return live_.size(); }

 private:
  uint64_t next_ = 1;
  std::map<uint64_t, std::set<uint64_t>> live_;  // ticket -> rw ids, arrival order
};

}  // namespace kb
