#include "platform/runtime/sanitizer_support.h"

#if defined(__SANITIZE_ADDRESS__)
#define KB_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KB_HAS_ASAN 1
#endif
#endif

#ifdef KB_HAS_ASAN
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>

#include <cstddef>
#endif

namespace kb {

#ifdef KB_HAS_ASAN

void recover_stack_after_sc_exception() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* lowest = nullptr;
  size_t size = 0;
  const int rc = pthread_attr_getstack(&attr, &lowest, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0) return;
  char* const low = static_cast<char*>(lowest);
  char* const here = static_cast<char*>(__builtin_frame_address(0));
  if (here < low || here >= low + size) return;  // not on the OS thread's own stack
  // The switch SystemC did not announce: from the dead coroutine to this stack.
  __sanitizer_start_switch_fiber(nullptr, low, size);
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
  // The frames the rethrow discarded lay below this one.
  __asan_unpoison_memory_region(low, static_cast<size_t>(here - low));
}

#else

void recover_stack_after_sc_exception() {}

#endif

}  // namespace kb
