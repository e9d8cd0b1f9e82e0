// libFuzzer entry point: kb::fuzz::simulate (tests/fuzz/fuzz_bodies.h).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kb::fuzz::simulate(data, size);
  return 0;
}
