#include "platform/runtime/host_runtime.h"

#include "models/common/errors.h"
#include "platform/fabric/pe.h"
#include "platform/fabric/system.h"

namespace kb {

HostRuntime::HostRuntime(Platform& platform) : platform_(platform) {}
HostRuntime::~HostRuntime() = default;

fw::Tensor HostRuntime::alloc_hbm(const PeId& pe, std::vector<int64_t> shape, DType dtype,
                                  uint64_t align) {
  fw::Tensor t;
  t.h.id = ids_.next();
  t.h.shape = std::move(shape);
  t.h.dtype = dtype;
  uint64_t& used = hbm_used_[{pe.sip, pe.cube, pe.pe}];
  const uint64_t start = (used + align - 1) / align * align;
  const uint64_t cap = platform_.config().pe.hbm.size_bytes;
  if (start + t.h.bytes() > cap)
    throw UsageError("HBM of PE " + std::to_string(pe.sip) + "." + std::to_string(pe.cube) + "." +
                     std::to_string(pe.pe) + " is full: cannot allocate " +
                     std::to_string(t.h.bytes()) + " bytes (" + std::to_string(used) + " of " +
                     std::to_string(cap) + " in use)");
  used = start + t.h.bytes();
  t.h.addr = platform_.address_map().hbm(pe.sip, pe.cube, pe.pe, start);
  return t;
}

void HostRuntime::launch(const Kernel& kernel, const LaunchGrid& grid, const DpPolicy& policy) {
  std::vector<PeId> pes;
  try {
    pes = policy.place(grid, platform_.config());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  for (unsigned p = 0; p < pes.size(); ++p) {
    Pe& pe = platform_.pe(pes[p]);
    fw::LaunchPosition pos;
    pos.programs[0] = grid.x;
    pos.programs[1] = grid.y;
    pos.programs[2] = grid.z;
    pos.program[0] = p % grid.x;
    pos.program[1] = (p / grid.x) % grid.y;
    pos.program[2] = p / (grid.x * grid.y);
    contexts_.push_back(std::make_unique<fw::Tl>(pe.cpu, pe.tcm.arena(), platform_.address_map(),
                                                 pe.location(), ids_, pos));
    fw::Tl* tl = contexts_.back().get();
    TcmArena* arena = &pe.tcm.arena();
    pe.cpu.launch([kernel, tl, arena] {
      const uint64_t mark = arena->mark();
      kernel(*tl);
      tl->wait();
      arena->release_to(mark);
    });
  }
}

double HostRuntime::run() {
  return platform_.run();
}

}  // namespace kb
