#include "platform/process/sanitizer_support.h"

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
#include <cstdlib>
#endif

namespace kb {

#ifdef KB_HAS_ASAN

namespace {

struct Stack {
  char* low = nullptr;
  size_t size = 0;
  bool contains(const void* p) const {
    const char* c = static_cast<const char*>(p);
    return size != 0 && c >= low && c < low + size;
  }
};

// The OS thread's own stack (SystemC runs every process on the main thread).
Stack os_stack() {
  static const Stack stack = [] {
    Stack s;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return s;
    void* low = nullptr;
    if (pthread_attr_getstack(&attr, &low, &s.size) != 0) s.size = 0;
    s.low = static_cast<char*>(low);
    pthread_attr_destroy(&attr);
    return s;
  }();
  return stack;
}

bool g_switch_announced = false;

void make_os_stack_current();

// LeakSanitizer's exit-time scan reads the stack ASan believes current: make
// it the OS stack, not a coroutine stack that SystemC may have unmapped by
// then (seen as "Tracer caught signal 11 ... LeakSanitizer has encountered a
// fatal error" after a test whose SC_THREAD died).
[[maybe_unused]] const bool g_resync_at_exit = [] {
  std::atexit([] {
    if (os_stack().contains(__builtin_frame_address(0))) make_os_stack_current();
  });
  return true;
}();

// Makes the OS stack ASan's current stack; must run on it.
void make_os_stack_current() {
  const Stack s = os_stack();
  if (!g_switch_announced) __sanitizer_start_switch_fiber(nullptr, s.low, s.size);
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
  g_switch_announced = false;
}

}  // namespace

void prepare_stack_for_sc_exception() {
  const Stack s = os_stack();
  if (s.size == 0) return;
  if (s.contains(__builtin_frame_address(0))) {
    make_os_stack_current();
  } else if (!g_switch_announced) {  // an SC_THREAD's coroutine stack
    __sanitizer_start_switch_fiber(nullptr, s.low, s.size);
    g_switch_announced = true;
  }
}

void resync_stack_after_sc_start() {
  if (os_stack().contains(__builtin_frame_address(0))) make_os_stack_current();
}

void recover_stack_after_sc_exception() {
  const Stack s = os_stack();
  char* const here = static_cast<char*>(__builtin_frame_address(0));
  if (!s.contains(here)) return;
  make_os_stack_current();
  // The frames the exception discarded lay below this one.
  __asan_unpoison_memory_region(s.low, static_cast<size_t>(here - s.low));
}

#else

void prepare_stack_for_sc_exception() {}
void resync_stack_after_sc_start() {}
void recover_stack_after_sc_exception() {}

#endif

}  // namespace kb
