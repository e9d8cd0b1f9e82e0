// Data mode state of one PE: access to its TCM bytes and the GEMM engine's
// output-tile accumulators (fp32), shared by the engines that compute.
// Engines only touch this when data mode is on; timing never depends on it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "models/commands/tensor_handle.h"
#include "models/common/address_map.h"
#include "models/math/math_eval.h"
#include "models/memory/backing_store.h"

namespace kb {

class PeData {
 public:
  PeData(BackingStore& tcm, const Location& pe) : tcm_(tcm), pe_(pe) {}

  // A tensor in this PE's TCM (honouring row_stride) as fp32 values.
  // Throws MathError when the handle is not in this PE's TCM.
  NdArray read(const TensorHandle& h) const;
  // Stores values (shape must match the handle's) converted to its dtype.
  void write(const TensorHandle& h, const NdArray& v);

  using TileKey = std::tuple<uint64_t, uint32_t, uint32_t>;  // cmd id, m tile, n tile
  std::map<TileKey, NdArray>& accumulators() { return acc_; }
  std::map<TileKey, NdArray>& partials() { return partial_; }

 private:
  uint64_t offset_of(const TensorHandle& h) const;

  BackingStore& tcm_;
  Location pe_;
  std::map<TileKey, NdArray> acc_, partial_;
};

// The tile [m0, m0+mm) x [n0, n0+nn) of an operand that broadcasts against an
// [M, N] output (shapes [M,N], [N], [1,N], [M,1], [1] or scalar).
NdArray tile_of(const NdArray& full, int64_t M, int64_t N, int64_t m0, int64_t mm, int64_t n0,
                int64_t nn);

}  // namespace kb
