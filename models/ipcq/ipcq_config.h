// Parameters of PE_IPCQ (models/ipcq/pe_ipcq.h): per-peer receive rings of
// `slots` slots of `slot_bytes`, carved from a `ring_bytes` region the PE
// reserves in each memory a ring may live in (top of its TCM below the
// staging buffers, top of its HBM slice, its share of the top of the cube
// SRAM). Each field's default, unit and bound: visit() below
// (models/common/knob_spec.h).
#pragma once

#include <cstdint>

#include "models/common/knob_spec.h"

namespace kb {

// Energy of PE_IPCQ: per control message it sends (grant, doorbell, credit),
// and its static power. The chunks it moves are DMA bursts, priced there.
struct IpcqEnergyConfig {
  double pj_per_message = 20;
  double static_mw = 10;
};

struct IpcqConfig {
  unsigned slots = 32;
  uint64_t slot_bytes = 512;
  uint64_t ring_bytes = uint64_t{256} << 10;
  uint64_t message_bytes = 32;
  IpcqEnergyConfig energy;

  template <class V>
  void visit(V& v) {
    v.count(slots, {"slots", "slots per receive ring (credits a sender holds towards one receiver)",
                    Bound::kAtLeastOne});
    v.size(slot_bytes, {"slot_bytes", "bytes per slot; send/recv chunk messages to this size",
                        Bound::kAtLeastOne, addr_bits::kMaxRegionBytes, kRegionNote});
    v.size(ring_bytes,
           {"ring_bytes",
            "receive-ring region reserved per PE in each of its TCM, HBM and cube-SRAM share",
            Bound::kAtLeastOne, addr_bits::kMaxRegionBytes, kRegionNote});
    v.size(message_bytes,
           {"message_bytes", "wire size of a control message (doorbell, credit, grant)",
            Bound::kAtLeastOne, addr_bits::kIpcqRegionBytes, "the IPCQ register window"});
    v.section("energy", "PE_IPCQ energy", [&] {
      v.real(energy.pj_per_message,
             {"pj_per_message",
              "per control message sent (its wire bytes are priced by the links and routers), "
              "pJ (default 20: two 64-bit accesses of an 8 KB SRAM at 10 pJ, Horowitz, ISSCC "
              "2014)",
              Bound::kNonNegative});
      v.real(energy.static_mw,
             {"static_mw", "static power, mW (default 10: an estimate)", Bound::kNonNegative});
    });
  }
};

}  // namespace kb
