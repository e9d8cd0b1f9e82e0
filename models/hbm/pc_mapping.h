// Which pseudo-channel an HBM offset belongs to. Offsets are cut into chunks
// of interleave_bytes; chunk c goes to
//   interleave:  c mod num_pcs
//   xor:         (c ^ c>>2p ^ c>>3p ^ c>>6p) mod num_pcs,  p = log2(num_pcs)
// The xor fold keeps consecutive chunks on alternating channels (a
// contiguous transfer uses them all) and spreads the rows of strided tiles
// (row strides of 2, 3, 4, 6, 8, ... chunks) over the channels, as channel
// hashing in real HBM controllers does; plain interleave parks such rows on
// one channel. num_pcs that is not a power of two always uses interleave.
#pragma once

#include <cstdint>

#include "models/hbm/hbm_config.h"

namespace kb {

unsigned pc_of_offset(const HbmConfig& cfg, uint64_t offset);

}  // namespace kb
