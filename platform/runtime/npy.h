// NumPy .npy files (format 1.0/2.0, little-endian, C order): what the host
// runtime reads tensors from and writes them to. Element types: '<f2' (fp16),
// '<f4' (fp32), '<i4' (int32); bf16 has no NumPy type and is stored as fp32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/commands/tensor_handle.h"

namespace kb {

struct NpyArray {
  std::vector<int64_t> shape;
  DType dtype = DType::kFp32;
  std::vector<uint8_t> bytes;  // raw little-endian elements, C order
};

// Throws UsageError naming the file and what is wrong with it.
NpyArray parse_npy(const std::string& content, const std::string& what);
NpyArray read_npy(const std::string& path);
std::string format_npy(const NpyArray& a);
void write_npy(const std::string& path, const NpyArray& a);

}  // namespace kb
