// Sparse, page-granular byte storage for a memory region: a page exists only
// once something was written to it, so a 4-SIP system costs only what is
// touched. Unwritten bytes read as zero.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace kb {

class BackingStore {
 public:
  static constexpr uint64_t kPageBytes = 4096;

  void read(uint64_t offset, uint8_t* dst, uint64_t len) const;
  void write(uint64_t offset, const uint8_t* src, uint64_t len);
  uint64_t pages_touched() const { return pages_.size(); }

 private:
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
};

}  // namespace kb
