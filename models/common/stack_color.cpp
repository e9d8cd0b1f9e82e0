#include "models/common/stack_color.h"

#include <sysc/kernel/sc_constants.h>

namespace kb {

void color_stack(sc_core::sc_spawn_options& opts, int base_bytes) {
  constexpr int kLine = 64, kColors = 64;
  static int next = 0;  // one simulation per process; the order is the spawn order
  const int base = base_bytes > 0 ? base_bytes : sc_core::SC_DEFAULT_STACK_SIZE;
  opts.set_stack_size(base + kLine * next);
  next = (next + 1) % kColors;
}

}  // namespace kb
