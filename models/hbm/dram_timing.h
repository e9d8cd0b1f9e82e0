// The DRAM device behind a pseudo-channel when the HBM slice runs the banked
// model (pe.hbm.model: banked, models/hbm/banked_channel.h): its organisation
// (bank groups, banks, page and column size) and its JEDEC timing parameters.
//
// Every timing is in ns. A preset (hbm3, hbm2e) gives each knob the file and
// --set leave unset (the loader applies it, platform/config/topology_loader);
// dram_preset() holds the values and their sources.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "models/common/knob_spec.h"

namespace kb {

enum class HbmModel { kQueue, kBanked };
constexpr EnumName<HbmModel> kHbmModelNames[] = {{HbmModel::kQueue, "queue"},
                                                 {HbmModel::kBanked, "banked"}};

enum class DramPreset { kHbm3, kHbm2e };
constexpr EnumName<DramPreset> kDramPresetNames[] = {{DramPreset::kHbm3, "hbm3"},
                                                     {DramPreset::kHbm2e, "hbm2e"}};

// open: a row stays open after its accesses (the next access to it is a hit);
// closed: every access precharges its row when done (auto-precharge).
enum class PagePolicy { kOpen, kClosed };
constexpr EnumName<PagePolicy> kPagePolicyNames[] = {{PagePolicy::kOpen, "open"},
                                                     {PagePolicy::kClosed, "closed"}};

struct DramTimingConfig {
  DramPreset preset = DramPreset::kHbm3;
  PagePolicy page_policy = PagePolicy::kOpen;
  unsigned bank_groups = 4;
  unsigned banks_per_group = 4;
  uint64_t column_bytes = 32;  // one column access (RD/WR) of one device pseudo-channel
  uint64_t page_bytes = 1024;  // one bank's row buffer in one device pseudo-channel
  double tRCD_ns = 14;
  double tRP_ns = 14;
  double tRAS_ns = 33;
  double tCL_ns = 18.75;
  double tCWL_ns = 5;
  double tRRD_S_ns = 2.5;
  double tRRD_L_ns = 3.75;
  double tFAW_ns = 16;
  double tCCD_S_ns = 1.25;
  double tCCD_L_ns = 2.5;
  double tWR_ns = 16;
  double tWTR_ns = 5;
  double tRTP_ns = 5;
  double tRFC_ns = 350;
  double tREFI_ns = 3900;

  // One device pseudo-channel's peak: a column every tCCD_S, GB/s.
  double device_gbps() const { return static_cast<double>(column_bytes) / tCCD_S_ns; }
  // Device pseudo-channels that work in lockstep as one pseudo-channel of
  // `pc_gbps` (pe.hbm.pc_bandwidth_gbps): they share commands, so a column
  // access and a row are this many times the device's.
  unsigned lockstep(double pc_gbps) const {
    return static_cast<unsigned>(std::max(1.0, std::round(pc_gbps / device_gbps())));
  }

  template <class V>
  void visit(V& v) {
    v.choice(preset, kDramPresetNames,
             {"preset",
              "device whose datasheet values fill every knob of this section the topology "
              "does not set: hbm3 (JEDEC JESD238A, 6.4 Gb/s/pin, 32-bit pseudo-channel, BL8) "
              "or hbm2e (JEDEC JESD235D, 3.2 Gb/s/pin, 64-bit pseudo-channel, BL4)"});
    v.choice(page_policy, kPagePolicyNames,
             {"page_policy", "open (rows stay open for later hits) or closed (auto-precharge)"});
    v.count(bank_groups, {"bank_groups", "bank groups per pseudo-channel", Bound::kAtLeastOne});
    v.count(banks_per_group, {"banks_per_group", "banks per bank group", Bound::kAtLeastOne});
    v.size(column_bytes, {"column_bytes",
                          "bytes one column access (RD/WR burst) moves on one device "
                          "pseudo-channel (DQ width x burst length / 8)",
                          Bound::kAtLeastOne});
    v.size(page_bytes, {"page_bytes", "row buffer (page) per bank of one device pseudo-channel",
                        Bound::kAtLeastOne});
    v.real(tRCD_ns, {"tRCD_ns", "ACT to RD/WR of the same bank, ns", Bound::kNonNegative});
    v.real(tRP_ns, {"tRP_ns", "PRE to ACT of the same bank, ns", Bound::kNonNegative});
    v.real(tRAS_ns, {"tRAS_ns", "ACT to PRE of the same bank, ns", Bound::kNonNegative});
    v.real(tCL_ns, {"tCL_ns", "RD to its first data (read latency), ns", Bound::kNonNegative});
    v.real(tCWL_ns, {"tCWL_ns", "WR to its first data (write latency), ns", Bound::kNonNegative});
    v.real(tRRD_S_ns, {"tRRD_S_ns", "ACT to ACT, different bank groups, ns", Bound::kNonNegative});
    v.real(tRRD_L_ns, {"tRRD_L_ns", "ACT to ACT, same bank group, ns", Bound::kNonNegative});
    v.real(tFAW_ns, {"tFAW_ns", "window holding at most four ACTs, ns", Bound::kNonNegative});
    v.real(tCCD_S_ns, {"tCCD_S_ns",
                       "RD to RD (WR to WR), different bank groups, ns; also one column's "
                       "time on the data bus",
                       Bound::kPositive});
    v.real(tCCD_L_ns,
           {"tCCD_L_ns", "RD to RD (WR to WR), same bank group, ns", Bound::kNonNegative});
    v.real(tWR_ns,
           {"tWR_ns", "end of write data to PRE (write recovery), ns", Bound::kNonNegative});
    v.real(tWTR_ns, {"tWTR_ns", "end of write data to a RD (write-to-read turnaround), ns",
                     Bound::kNonNegative});
    v.real(tRTP_ns, {"tRTP_ns", "RD to PRE of the same bank, ns", Bound::kNonNegative});
    v.real(tRFC_ns,
           {"tRFC_ns", "all-bank REF to the next ACT (refresh cycle), ns", Bound::kNonNegative});
    v.real(tREFI_ns, {"tREFI_ns", "interval between all-bank refreshes, ns (0 = no refresh)",
                      Bound::kNonNegative});
  }
};

// The datasheet values of `p` (the sources are in dram_timing.cpp).
DramTimingConfig dram_preset(DramPreset p);

}  // namespace kb
