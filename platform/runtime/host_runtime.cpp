#include "platform/runtime/host_runtime.h"

#include "models/common/alloc_failure.h"
#include "models/common/dtype_convert.h"
#include "models/common/errors.h"
#include "models/tcm/tcm_arena.h"
#include "platform/fabric/pe.h"
#include "platform/fabric/system.h"
#include "platform/runtime/npy.h"

namespace kb {

HostRuntime::HostRuntime(Platform& platform) : platform_(platform) {}
HostRuntime::~HostRuntime() = default;

namespace {

std::string pe_text(const PeId& pe) {
  return std::to_string(pe.sip) + "." + std::to_string(pe.cube) + "." + std::to_string(pe.pe);
}

// Before anything is allocated: a shape whose size overflows 64 bits.
void check_tensor_size(const TensorHandle& h, const char* memory, const PeId& pe) {
  if (checked_numel_bytes(h.shape, h.dtype)) return;
  std::string dims;
  for (int64_t d : h.shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
  throw UsageError(std::string(memory) + " of PE " + pe_text(pe) + ": a " + to_string(h.dtype) +
                   " tensor of shape [" + dims + "] is larger than 2^63 bytes");
}

// Bump allocation of `h` at `align` in a region of `cap` bytes whose first
// `used` are taken: its offset, `used` moved past it. When it does not fit,
// a UsageError with the AllocationFailure that `describe` fills in (which
// memory, what its capacity is less of, the advice) beside the figures.
template <class Describe>
uint64_t bump_allocate(uint64_t& used, uint64_t cap, uint64_t align, const TensorHandle& h,
                       const char* region, Describe describe) {
  const uint64_t start = (used + align - 1) / align * align;
  if (start > cap || h.bytes() > cap - start) {
    AllocationFailure f;
    describe(f);
    f.asked = h.bytes();
    f.what = "tensor " + h.describe_unplaced();
    f.region = region;
    f.capacity = cap;
    f.used = used;
    f.largest_free = bump_largest_free(cap, used, align);
    throw UsageError(f.text());
  }
  used = start + h.bytes();
  return start;
}

}  // namespace

fw::Tensor HostRuntime::alloc_hbm(const PeId& pe, Shape shape, DType dtype, uint64_t align) {
  fw::Tensor t;
  t.h.id = ids_.next();
  t.h.shape = std::move(shape);
  t.h.dtype = dtype;
  check_tensor_size(t.h, "HBM", pe);
  const PeMemoryLimits limits = pe_memory_limits(platform_.config());
  const uint64_t start = bump_allocate(
      hbm_used_[{pe.sip, pe.cube, pe.pe}], limits.hbm_tensor_bytes, align, t.h,
      "the HBM slice's room for tensors", [&](AllocationFailure& f) {
        f.memory = "HBM of PE " + pe_text(pe) + " is full";
        f.note = "pe.hbm.size_bytes " + std::to_string(limits.hbm_bytes) + " less PE_IPCQ's " +
                 std::to_string(limits.hbm_ipcq_bytes) + " B of rings at its top";
        f.advice =
            "HostRuntime::release_all() frees every host allocation; otherwise split the tensor "
            "over more PEs' HBM slices, or raise pe.hbm.size_bytes";
      });
  t.h.addr = platform_.address_map().hbm(pe.sip, pe.cube, pe.pe, start);
  return t;
}

fw::Tensor HostRuntime::alloc_tcm(const PeId& pe, Shape shape, DType dtype) {
  fw::Tensor t;
  t.h.id = ids_.next();
  t.h.shape = std::move(shape);
  t.h.dtype = dtype;
  check_tensor_size(t.h, "TCM", pe);
  TcmArena& arena = platform_.pe(pe).tcm.arena();
  uint64_t offset = 0;
  try {
    offset = arena.allocate(t.h.bytes());
  } catch (const TcmOverflow& e) {
    throw UsageError("TCM of PE " + pe_text(pe) + ": " +
                     e.message("tensor " + t.h.describe_unplaced()));
  }
  tcm_users_.push_back(pe);
  t.h.addr = platform_.address_map().tcm(pe.sip, pe.cube, pe.pe, offset);
  return t;
}

fw::Tensor HostRuntime::alloc_sram(unsigned sip, unsigned cube, Shape shape, DType dtype,
                                   uint64_t align) {
  fw::Tensor t;
  t.h.id = ids_.next();
  t.h.shape = std::move(shape);
  t.h.dtype = dtype;
  const PeMemoryLimits limits = pe_memory_limits(platform_.config());
  const uint64_t start = bump_allocate(
      sram_used_[{sip, cube}], limits.sram_tensor_bytes, align, t.h,
      "the cube SRAM's room for tensors", [&](AllocationFailure& f) {
        f.memory = "SRAM of cube " + std::to_string(sip) + "." + std::to_string(cube) + " is full";
        f.note = "cube.sram.size_bytes " + std::to_string(limits.sram_bytes) + " less PE_IPCQ's " +
                 std::to_string(limits.sram_ipcq_bytes) + " B of rings at its top";
        f.advice =
            "HostRuntime::release_all() frees every host allocation; otherwise put the tensor in "
            "HBM (HostRuntime::alloc_hbm)";
      });
  t.h.addr = platform_.address_map().sram(sip, cube, start);
  return t;
}

void HostRuntime::release_all() {
  hbm_used_.clear();
  sram_used_.clear();
  for (const PeId& pe : tcm_users_) platform_.pe(pe).tcm.arena().release_to(0);
  tcm_users_.clear();
}

void HostRuntime::write(const fw::Tensor& t, const std::vector<float>& values) {
  const TensorHandle& h = t.h;
  if (static_cast<int64_t>(values.size()) != h.numel())
    throw UsageError("write of " + std::to_string(values.size()) + " values into " + h.describe());
  const uint64_t esize = dtype_bytes(h.dtype);
  if (h.grid_rows != 0) throw UsageError("write into a window of a tiled matrix: " + h.describe());
  if (h.tiled()) {  // one contiguous write in block order
    std::vector<float> ordered(values.size());
    for (int64_t r = 0; r < h.rows(); ++r)
      for (int64_t c = 0; c < h.cols(); ++c)
        ordered[static_cast<size_t>(h.tiled_index(r, c))] =
            values[static_cast<size_t>(r * h.cols() + c)];
    std::vector<uint8_t> bytes(ordered.size() * esize);
    encode_elements(ordered.data(), ordered.size(), h.dtype, bytes.data());
    platform_.debug_write(h.addr, bytes.data(), bytes.size());
    return;
  }
  std::vector<uint8_t> row(static_cast<size_t>(h.cols()) * esize);
  for (int64_t r = 0; r < h.rows(); ++r) {
    encode_elements(values.data() + r * h.cols(), static_cast<uint64_t>(h.cols()), h.dtype,
                    row.data());
    platform_.debug_write(h.addr + static_cast<uint64_t>(r * h.stride()) * esize, row.data(),
                          row.size());
  }
}

std::vector<float> HostRuntime::read(const fw::Tensor& t) {
  const TensorHandle& h = t.h;
  const uint64_t esize = dtype_bytes(h.dtype);
  std::vector<float> out;
  if (h.grid_rows != 0) throw UsageError("read of a window of a tiled matrix: " + h.describe());
  if (h.tiled()) {
    std::vector<uint8_t> bytes(h.bytes());
    platform_.debug_read(h.addr, bytes.data(), bytes.size());
    const auto ordered = decode_elements(bytes.data(), static_cast<uint64_t>(h.numel()), h.dtype);
    out.resize(ordered.size());
    for (int64_t r = 0; r < h.rows(); ++r)
      for (int64_t c = 0; c < h.cols(); ++c)
        out[static_cast<size_t>(r * h.cols() + c)] =
            ordered[static_cast<size_t>(h.tiled_index(r, c))];
    return out;
  }
  out.reserve(static_cast<size_t>(h.numel()));
  std::vector<uint8_t> row(static_cast<size_t>(h.cols()) * esize);
  for (int64_t r = 0; r < h.rows(); ++r) {
    platform_.debug_read(h.addr + static_cast<uint64_t>(r * h.stride()) * esize, row.data(),
                         row.size());
    const auto v = decode_elements(row.data(), static_cast<uint64_t>(h.cols()), h.dtype);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

fw::Tensor HostRuntime::from_npy(const PeId& pe, const std::string& path) {
  NpyArray a = read_npy(path);
  fw::Tensor t = alloc_hbm(pe, a.shape, a.dtype);
  platform_.debug_write(t.h.addr, a.bytes.data(), a.bytes.size());
  return t;
}

void HostRuntime::to_npy(const fw::Tensor& t, const std::string& path) {
  NpyArray a;
  a.shape = t.h.shape.vec();
  a.dtype = t.h.dtype == DType::kBf16 ? DType::kFp32 : t.h.dtype;
  const std::vector<float> v = read(t);
  a.bytes.resize(v.size() * dtype_bytes(a.dtype));
  encode_elements(v.data(), v.size(), a.dtype, a.bytes.data());
  write_npy(path, a);
}

void HostRuntime::launch(const Kernel& kernel, const LaunchGrid& grid, const DpPolicy& policy) {
  std::vector<PeId> pes;
  try {
    pes = policy.place(grid, platform_.config());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  start(kernel, grid, pes);
}

void HostRuntime::launch_on(const std::vector<PeId>& pes, const Kernel& kernel) {
  const auto& c = platform_.config();
  for (const PeId& pe : pes)
    if (pe.sip >= c.system.n_sips || pe.cube >= c.cubes_per_sip() || pe.pe >= c.cube.pes)
      throw UsageError("launch_on: PE " + std::to_string(pe.sip) + "." + std::to_string(pe.cube) +
                       "." + std::to_string(pe.pe) + " does not exist on " + c.name);
  LaunchGrid grid;
  grid.x = static_cast<unsigned>(pes.size());
  start(kernel, grid, pes);
}

void HostRuntime::start(const Kernel& kernel, const LaunchGrid& grid,
                        const std::vector<PeId>& pes) {
  for (unsigned p = 0; p < pes.size(); ++p) {
    Pe& pe = platform_.pe(pes[p]);
    fw::LaunchPosition pos;
    pos.programs[0] = grid.x;
    pos.programs[1] = grid.y;
    pos.programs[2] = grid.z;
    pos.program[0] = p % grid.x;
    pos.program[1] = (p / grid.x) % grid.y;
    pos.program[2] = p / (grid.x * grid.y);
    contexts_.push_back(std::make_unique<fw::Tl>(pe.cpu, pe.ipcq.config(), pe.tcm.arena(),
                                                 platform_.address_map(), pe.location(), ids_,
                                                 pos));
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
