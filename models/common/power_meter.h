// Power over time of one cube: what its memories, wires and engines draw
// while they serve, plus its blocks' static power.
//
// A module with a meter calls begin() when a service of known duration starts
// and end() with the same values when it ends; the meter holds the cube's
// power as an exact integer (microwatts) and traces it into the VCD. It also
// keeps the energy in time bins (attojoules, integers: the result depends on
// no process order) for the Perfetto trace's counter track. Router, DMA-burst
// and IPCQ-message energy are not drawn (they are in the totals); links
// between cubes count in the cube they leave. A meter changes no timing: it
// has no process and is only called from services already simulated.
#pragma once

#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "models/common/instrumented.h"

namespace kb {

class PowerMeter : public sc_core::sc_module, public Instrumented {
 public:
  explicit PowerMeter(const sc_core::sc_module_name& name);

  // The static power of the blocks it covers, mW (set once, before running).
  void set_static_mw(double mw);
  // Power drawn by `pj` spent evenly over `duration` (ignored if zero). The
  // returned token is passed to end() when the service ends.
  int64_t begin(double pj, const sc_core::sc_time& duration);
  void end(int64_t token);

  double power_mw() const { return power_mw_; }
  double static_mw() const { return static_cast<double>(static_uw_) / 1000.0; }
  // Brings the bins up to the current time (before reading them).
  void flush() { advance(); }
  // Energy per bin so far (pJ) and the bin width (ns), for counter tracks.
  std::vector<double> binned_pj() const;
  double bin_ns() const;

  // Instrumented: the peak power (stats); the power in mW (VCD, a real).
  void report_stats(StatsSink& out, double now_ns) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;

 private:
  void advance();  // integrates the level since the last change into the bins
  void set_level(int64_t uw);

  int64_t static_uw_ = 0;
  int64_t dynamic_uw_ = 0;
  int64_t peak_uw_ = 0;
  double power_mw_ = 0;  // static + dynamic, traced
  uint64_t last_ps_ = 0;
  uint64_t bin_ps_ = 10000;  // doubles when the bins would exceed kMaxBins
  std::vector<int64_t> bins_aj_;
  static constexpr size_t kMaxBins = 4096;
};

}  // namespace kb
