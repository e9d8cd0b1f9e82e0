#include "models/hbm/dram_timing.h"

namespace kb {

// Representative values of each standard's fastest speed bin, in ns, from
// the JEDEC timing tables (JESD238A for HBM3, JESD235D for HBM2E) as vendors'
// public datasheet summaries quote them. A part's own datasheet may differ by a
// few ns; the topology replaces any value (pe.hbm.banked.*).
DramTimingConfig dram_preset(DramPreset p) {
  DramTimingConfig t;  // the member initialisers are HBM3's
  t.preset = p;
  if (p == DramPreset::kHbm3) {
    // HBM3, 6.4 Gb/s/pin, tCK = 0.625 ns (1.6 GHz). 32-bit pseudo-channel x
    // BL8 = 32 B per column; 4 bank groups x 4 banks; 1 KiB page.
    // tCCD_S = 2 tCK, tCCD_L = 4 tCK, tRRD_S = 4 tCK, tRRD_L = 6 tCK,
    // RL = 30 tCK, WL = 8 tCK; tRCD, tRP 14 ns, tRAS 33 ns, tFAW 16 ns,
    // tWR 16 ns, tWTR_L 5 ns, tRTP 5 ns; 16 Gb die: tRFC 350 ns, tREFI 3.9 us.
    return t;
  }
  // HBM2E, 3.2 Gb/s/pin, tCK = 0.625 ns (1.6 GHz, DDR). 64-bit pseudo-channel
  // x BL4 = 32 B per column; 4 bank groups x 4 banks; 1 KiB page.
  // tCCD_S = 2 tCK, tCCD_L = 4 tCK, tRRD_S = 4 tCK, tRRD_L = 6 tCK,
  // RL = 22 tCK, WL = 4 tCK; tRCD, tRP 14 ns, tRAS 33 ns, tFAW 20 ns,
  // tWR 16 ns, tWTR_L 7.5 ns, tRTP 3.75 ns; 8 Gb die: tRFC 350 ns, tREFI 3.9 us.
  t.tCL_ns = 13.75;
  t.tCWL_ns = 2.5;
  t.tFAW_ns = 20;
  t.tWTR_ns = 7.5;
  t.tRTP_ns = 3.75;
  return t;
}

}  // namespace kb
