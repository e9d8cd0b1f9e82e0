// The host runtime: allocate device tensors, launch kernels on PEs, run.
//
// Tensors are allocated in a chosen PE's HBM slice (a bump allocator per
// PE). A launch runs one firmware kernel per program of a grid on the PEs the
// DPPolicy picks; each program gets its own `tl` context, its TCM
// allocations are released when it ends. run() simulates until every launched
// kernel and every command it issued has drained.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "firmware/tl.h"
#include "platform/platform.h"
#include "platform/runtime/dp_policy.h"

namespace kb {

using Kernel = std::function<void(fw::Tl&)>;

class HostRuntime {
 public:
  explicit HostRuntime(Platform& platform);
  ~HostRuntime();

  // A tensor in `pe`'s HBM, `align`-byte aligned. Throws UsageError when full.
  fw::Tensor alloc_hbm(const PeId& pe, Shape shape, DType dtype = DType::kFp16,
                       uint64_t align = 64);
  // A tensor in `pe`'s TCM, taken from its arena below what kernels allocate
  // (kernels see it as data already there). Throws UsageError when full.
  fw::Tensor alloc_tcm(const PeId& pe, Shape shape, DType dtype = DType::kFp16);
  // A tensor in a cube's SRAM (below PE_IPCQ's reserved top). Throws UsageError when full.
  fw::Tensor alloc_sram(unsigned sip, unsigned cube, Shape shape, DType dtype = DType::kFp16,
                        uint64_t align = 64);
  // Frees every host allocation (HBM, TCM, SRAM) at once, between the points
  // of a sweep. Needs no kernel running.
  void release_all();

  // Data mode (Platform::set_data_mode): fill and read tensors through the
  // host's backdoor (TLM transport_dbg; no simulated time). Values convert to
  // and from the tensor's dtype, rounding to nearest even. Memory that was
  // never written reads as zero (a documented choice: allocations are zeros).
  void write(const fw::Tensor& t, const std::vector<float>& values);
  std::vector<float> read(const fw::Tensor& t);
  // A tensor in `pe`'s HBM holding a .npy file's contents.
  fw::Tensor from_npy(const PeId& pe, const std::string& path);
  void to_npy(const fw::Tensor& t, const std::string& path);

  // Posts one kernel per program; they start when run() simulates.
  void launch(const Kernel& kernel, const LaunchGrid& grid = {}, const DpPolicy& policy = {});
  // Posts `kernel` on each listed PE (program i of a 1-D grid runs on pes[i]).
  void launch_on(const std::vector<PeId>& pes, const Kernel& kernel);
  // Simulates until the launched work drains; returns the simulated time (ns).
  double run();

  fw::IdSource& ids() { return ids_; }
  Platform& platform() { return platform_; }

 private:
  void start(const Kernel& kernel, const LaunchGrid& grid, const std::vector<PeId>& pes);

  Platform& platform_;
  fw::IdSource ids_;
  std::map<std::tuple<unsigned, unsigned, unsigned>, uint64_t> hbm_used_;
  std::map<std::pair<unsigned, unsigned>, uint64_t> sram_used_;
  std::vector<PeId> tcm_users_;
  std::vector<std::unique_ptr<fw::Tl>> contexts_;
};

}  // namespace kb
