// libFuzzer entry point: kb::fuzz::sweep_spec (tests/fuzz/fuzz_bodies.h).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kb::fuzz::sweep_spec(data, size);
  return 0;
}
