// Energy accounting: what each module spent, from what it simulated.
//
// A module's dynamic energy is its own event counts (bytes read and written,
// bytes on a wire or through a router, flops, MATH elements, DMA bursts, IPCQ
// messages) times the per-event energies of its configuration's `energy:`
// section; its static energy is its static power times the simulated time
// (1 mW x 1 ns = 1 pJ). The counts are the integers the module already keeps
// for its statistics, so energy changes no timing and depends on no process
// order. A module reports through Instrumented::report_energy; the platform
// sums every module (Platform::energy) and writes each active module's share
// into its statistics (docs/ARCHITECTURE.md, "Energy").
#pragma once

#include <array>
#include <cstdint>

#include "models/common/knob_spec.h"

namespace kb {

// What a picojoule was spent on: the kind of block that spent it.
enum class EnergyClass : uint8_t {
  kGemm,        // PE_GEMM MACs
  kMath,        // PE_MATH elements
  kHbm,         // HBM slice reads and writes
  kTcm,         // TCM reads and writes (DMA port, FETCH, STORE)
  kSram,        // cube SRAM reads and writes
  kHostMemory,  // host memory reads and writes
  kLink,        // bits on link wires
  kRouter,      // bits through routers and crossbars
  kDma,         // DMA bursts (descriptor and address generation)
  kIpcq,        // IPCQ control messages
  kCpu,         // PE_CPU (static only)
};
constexpr unsigned kNumEnergyClasses = 11;
const char* to_string(EnergyClass c);

// Receives a module's energy, class by class.
class EnergySink {
 public:
  virtual ~EnergySink() = default;
  // Dynamic energy spent so far, pJ.
  virtual void dynamic_pj(EnergyClass c, double pj) = 0;
  // Static (leakage plus clock) power while the platform exists, mW.
  virtual void static_mw(EnergyClass c, double mw) = 0;
};

// Sums what modules report, by class.
struct EnergyTally final : EnergySink {
  std::array<double, kNumEnergyClasses> dynamic{};  // pJ
  std::array<double, kNumEnergyClasses> power{};    // mW
  void dynamic_pj(EnergyClass c, double pj) override { dynamic[static_cast<unsigned>(c)] += pj; }
  void static_mw(EnergyClass c, double mw) override { power[static_cast<unsigned>(c)] += mw; }
  double dynamic_total_pj() const;
  double static_total_mw() const;
};

// The energy of a memory: per byte read and written, and its static power.
// The defaults differ per memory, so the configuration holding one gives
// them, and the descriptions that name their sources.
struct MemoryEnergyConfig {
  double read_pj_per_byte = 0;
  double write_pj_per_byte = 0;
  double static_mw = 0;

  template <class V>
  void visit(V& v, const char* read_what, const char* write_what, const char* static_what) {
    v.real(read_pj_per_byte, {"read_pj_per_byte", read_what, Bound::kNonNegative});
    v.real(write_pj_per_byte, {"write_pj_per_byte", write_what, Bound::kNonNegative});
    v.real(static_mw, {"static_mw", static_what, Bound::kNonNegative});
  }
  double dynamic_pj(uint64_t bytes_read, uint64_t bytes_written) const {
    return static_cast<double>(bytes_read) * read_pj_per_byte +
           static_cast<double>(bytes_written) * write_pj_per_byte;
  }
};

// The energy of a wire or a router: per bit carried, and its static power.
struct BitEnergyConfig {
  double pj_per_bit = 0;
  double static_mw = 0;

  template <class V>
  void visit(V& v, const char* bit_what, const char* static_what) {
    v.real(pj_per_bit, {"pj_per_bit", bit_what, Bound::kNonNegative});
    v.real(static_mw, {"static_mw", static_what, Bound::kNonNegative});
  }
  double dynamic_pj(uint64_t bytes) const { return 8.0 * static_cast<double>(bytes) * pj_per_bit; }
};

}  // namespace kb
