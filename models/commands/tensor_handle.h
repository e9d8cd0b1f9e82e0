// A tensor as the PE's commands see it: where it lives, its shape and type,
// and an identity for hazard tracking. Part of the command-descriptor
// interface shared by models/ and firmware/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kb {

enum class DType : uint8_t { kFp16, kBf16, kFp32, kInt32 };
unsigned dtype_bytes(DType t);
const char* to_string(DType t);

struct TensorHandle {
  uint64_t id = 0;             // identity (hazards compare ids); 0 = none
  uint64_t addr = 0;           // platform address of element [0, 0, ...]
  std::vector<int64_t> shape;  // row-major; the last dimension is contiguous
  DType dtype = DType::kFp16;
  int64_t row_stride = 0;  // elements between rows in memory; 0 = shape.back()

  bool valid() const { return id != 0; }
  int64_t numel() const;
  uint64_t bytes() const { return static_cast<uint64_t>(numel()) * dtype_bytes(dtype); }
  int64_t rows() const;  // product of all dimensions but the last (1 for a vector)
  int64_t cols() const;  // the last dimension
  int64_t stride() const { return row_stride ? row_stride : cols(); }
  bool in_tcm() const;  // decoded from the address: a TCM operand needs no DMA_READ
  bool in_hbm() const;
  std::string describe() const;  // "#7 [32,64] fp16 @0x..."
};

}  // namespace kb
