// libFuzzer entry point: kb::fuzz::set_override (tests/fuzz/fuzz_bodies.h).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kb::fuzz::set_override(data, size);
  return 0;
}
