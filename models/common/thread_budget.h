// A process-wide budget for SystemC threads started while simulating.
//
// Every SystemC thread runs on its own coroutine stack, and SystemC guards
// each stack with a protected page: two memory maps per thread. Linux caps
// the maps of a process at vm.max_map_count (65530 by default), so a large
// system (512 PEs each streaming with dozens of DMA bursts in flight) can run
// out; SystemC then fails deep inside its scheduler. Models that start
// threads on demand (DMA burst workers, IPCQ queues) call
// reserve_thread_stack() first, which turns that into a SimulationError
// naming the module and the fix, before the kernel is in trouble.
#pragma once

#include <string>

namespace kb {

// Throws SimulationError when one more thread would exceed what
// vm.max_map_count leaves (the maps already used are counted once, at the
// first call, when every elaborated thread has its stack).
void reserve_thread_stack(const std::string& who);

// vm.max_map_count, or -1 where it cannot be read (no limit is then assumed).
long vm_max_map_count();
// The memory maps this process has now (/proc/self/maps).
long process_map_count();

}  // namespace kb
