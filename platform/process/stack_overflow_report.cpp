#include "platform/process/stack_overflow_report.h"

#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <systemc>

namespace kb {

namespace {

std::atomic<uint64_t> g_stack_bytes{0};
constexpr uintptr_t kNearStackPointer = 64 << 10;

uintptr_t stack_pointer(void* context) {
#if defined(__x86_64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  return static_cast<uintptr_t>(uc->uc_mcontext.sp);
#else
  (void)context;
  return 0;
#endif
}

extern "C" void on_fault(int sig, siginfo_t* info, void* context) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  const uintptr_t sp = stack_pointer(context);
  const bool at_stack = sp != 0 && addr + kNearStackPointer > sp && addr < sp + kNearStackPointer;
  if (at_stack) {
    // The process is about to end: naming the SystemC process is worth the
    // calls that are not async-signal-safe.
    const sc_core::sc_process_handle h = sc_core::sc_get_current_process_handle();
    const char* who = h.valid() ? h.name() : "the simulation's main thread";
    char msg[512];
    const int n = std::snprintf(msg, sizeof msg,
                                "kernbench: simulation fault: %s: stack overflow (segmentation "
                                "fault at the stack pointer); pe.cpu.stack_bytes is %llu, raise "
                                "it\n",
                                who, static_cast<unsigned long long>(g_stack_bytes.load()));
    if (n > 0) {
      const ssize_t w = ::write(2, msg, static_cast<size_t>(n) < sizeof msg ? n : sizeof msg - 1);
      (void)w;
    }
    ::_exit(3);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void install_stack_overflow_report(uint64_t stack_bytes) {
  g_stack_bytes.store(stack_bytes);
#if !defined(__SANITIZE_ADDRESS__)
  static const bool installed = [] {
    static char alt[64 << 10];
    stack_t ss{};
    ss.ss_sp = alt;
    ss.ss_size = sizeof alt;
    if (::sigaltstack(&ss, nullptr) != 0) return false;
    struct sigaction sa {};
    sa.sa_sigaction = on_fault;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    ::sigaction(SIGSEGV, &sa, nullptr);
    ::sigaction(SIGBUS, &sa, nullptr);
    return true;
  }();
  (void)installed;
#endif
}

}  // namespace kb
