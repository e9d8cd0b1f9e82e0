// A firmware kernel that overflows its SC_THREAD stack hits the guard page
// SystemC puts below every coroutine stack. Without help that is a bare
// SIGSEGV (exit 139, no message). install_stack_overflow_report() turns a
// fault next to the stack pointer into one line naming the SystemC process
// and the knob to raise, and exit code 3:
//
//   kernbench: simulation fault: kernel_0: stack overflow (segmentation
//   fault at the stack pointer); pe.cpu.stack_bytes is 262144, raise it
//
// Any other segmentation fault is left to the default action (a core dump).
// Not installed under AddressSanitizer, which reports faults itself.
#pragma once

#include <cstdint>

namespace kb {

// Installs the SIGSEGV/SIGBUS handler (on an alternate signal stack) once;
// later calls only update the stack size named in the message.
void install_stack_overflow_report(uint64_t stack_bytes);

}  // namespace kb
