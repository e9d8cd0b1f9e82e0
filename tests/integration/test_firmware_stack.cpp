// Firmware kernels run on SC_THREAD coroutines; PE_CPU gives them an explicit
// stack (pe.cpu.stack_bytes) so a deep call chain does not overflow silently.
#include <gtest/gtest.h>

#include "firmware/tl.h"
#include "platform/config/topology_loader.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {
namespace {

// About 1 KiB of stack per level, touched so it is really used.
__attribute__((noinline)) uint64_t deep(unsigned depth, volatile uint8_t* sink) {
  volatile uint8_t frame[1024];
  for (unsigned i = 0; i < sizeof frame; i += 64) frame[i] = static_cast<uint8_t>(depth + i);
  if (depth == 0) return frame[0];
  const uint64_t below = deep(depth - 1, sink);
  *sink = frame[depth % sizeof frame];
  return below + frame[64];
}

TEST(FirmwareStack, ADeepKernelRunsOnTheConfiguredStack) {
  // 2 MiB of recursion on a 4 MiB firmware stack (the default).
  Platform p(load_topology_file(KB_SOURCE_DIR "/topologies/tiny.yaml"));
  ASSERT_GE(p.config().pe.cpu.stack_bytes, 4u << 20);
  HostRuntime rt(p);
  uint64_t result = 0;
  double after_ns = 0;
  rt.launch([&](fw::Tl& tl) {
    volatile uint8_t sink = 0;
    result = deep(2048, &sink);
    tl.overhead(10);  // the kernel still issues commands after the deep chain
    after_ns = tl.now_ns();
  });
  rt.run();
  EXPECT_GT(result, 0u);
  EXPECT_DOUBLE_EQ(after_ns, 10.0);  // 10 cycles at 1 GHz
}

// A kernel deeper than its stack hits the guard page: one line naming the
// thread and the knob, exit code 3, instead of a bare SIGSEGV.
TEST(FirmwareStackDeathTest, AnOverflowIsASimulationFaultNamingTheKnob) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reports stack overflows itself";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Platform p(load_topology_file(KB_SOURCE_DIR "/topologies/tiny.yaml",
                                      {"pe.cpu.stack_bytes=256KiB"}));
        HostRuntime rt(p);
        rt.launch([](fw::Tl&) {
          volatile uint8_t sink = 0;
          deep(2048, &sink);  // 2 MiB on 256 KiB
        });
        rt.run();
        std::exit(0);
      },
      testing::ExitedWithCode(3),
      "kernbench: simulation fault: kernel_0: stack overflow.*"
      "pe\\.cpu\\.stack_bytes is 262144, raise it");
}

}  // namespace
}  // namespace kb
