// Parameters of PE_IPCQ (models/ipcq/pe_ipcq.h): per-peer receive rings of
// `slots` slots of `slot_bytes`, carved from a `ring_bytes` region the PE
// reserves in each memory a ring may live in (top of its TCM below the
// staging buffers, top of its HBM slice, its share of the top of the cube
// SRAM). Defaults and bounds: platform/config/topology_schema.cpp.
#pragma once

#include <cstdint>

namespace kb {

struct IpcqConfig {
  unsigned slots = 0;          // slots per receive ring (= credits of its sender)
  uint64_t slot_bytes = 0;     // bytes per slot; messages are chunked to this
  uint64_t ring_bytes = 0;     // bytes, receive-ring region per memory kind, per PE
  uint64_t message_bytes = 0;  // bytes, wire size of a doorbell / credit / grant message
};

}  // namespace kb
