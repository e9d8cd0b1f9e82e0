#include "models/hbm/pc_mapping.h"

namespace kb {

unsigned pc_of_offset(const HbmConfig& cfg, uint64_t offset) {
  const uint64_t chunk = offset / cfg.interleave_bytes;
  const uint64_t n = cfg.num_pcs;
  const bool pow2 = (n & (n - 1)) == 0;
  if (cfg.pc_mapping == PcMapping::kInterleave || !pow2 || n == 1)
    return static_cast<unsigned>(chunk % n);
  unsigned p = 0;
  while ((uint64_t{1} << p) < n) ++p;
  const uint64_t h = chunk ^ (chunk >> (2 * p)) ^ (chunk >> (3 * p)) ^ (chunk >> (6 * p));
  return static_cast<unsigned>(h & (n - 1));
}

}  // namespace kb
