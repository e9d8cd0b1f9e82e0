#include "models/memory/backing_store.h"

#include <algorithm>
#include <cstring>

namespace kb {

void BackingStore::read(uint64_t offset, uint8_t* dst, uint64_t len) const {
  while (len > 0) {
    const uint64_t page = offset / kPageBytes, in_page = offset % kPageBytes;
    const uint64_t n = std::min(len, kPageBytes - in_page);
    auto it = pages_.find(page);
    if (it == pages_.end())
      std::memset(dst, 0, n);
    else
      std::memcpy(dst, it->second.get() + in_page, n);
    offset += n;
    dst += n;
    len -= n;
  }
}

void BackingStore::write(uint64_t offset, const uint8_t* src, uint64_t len) {
  while (len > 0) {
    const uint64_t page = offset / kPageBytes, in_page = offset % kPageBytes;
    const uint64_t n = std::min(len, kPageBytes - in_page);
    auto& p = pages_[page];
    if (!p) {
      p = std::make_unique<uint8_t[]>(kPageBytes);
      std::memset(p.get(), 0, kPageBytes);
    }
    std::memcpy(p.get() + in_page, src, n);
    offset += n;
    src += n;
    len -= n;
  }
}

}  // namespace kb
