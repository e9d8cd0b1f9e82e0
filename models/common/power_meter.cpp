#include "models/common/power_meter.h"

#include <algorithm>
#include <cmath>

#include "models/common/sim_time.h"

namespace kb {

namespace {

uint64_t now_ps() {
  return sim_now().value() /
         static_cast<uint64_t>(std::llround(sc_core::sc_get_time_resolution().to_seconds() * 1e12));
}

}  // namespace

PowerMeter::PowerMeter(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {}

void PowerMeter::set_static_mw(double mw) {
  static_uw_ = std::llround(mw * 1000);
  set_level(dynamic_uw_);
}

int64_t PowerMeter::begin(double pj, const sc_core::sc_time& duration) {
  const double ns = duration.to_seconds() * 1e9;
  if (ns <= 0 || pj <= 0) return 0;
  const int64_t uw = std::llround(pj / ns * 1000);  // pJ / ns = mW
  advance();
  set_level(dynamic_uw_ + uw);
  return uw;
}

void PowerMeter::end(int64_t token) {
  if (token == 0) return;
  advance();
  set_level(dynamic_uw_ - token);
}

void PowerMeter::set_level(int64_t uw) {
  dynamic_uw_ = uw;
  peak_uw_ = std::max(peak_uw_, static_uw_ + dynamic_uw_);
  power_mw_ = static_cast<double>(static_uw_ + dynamic_uw_) / 1000.0;
}

void PowerMeter::advance() {
  const uint64_t now = now_ps();
  // uW x ps = aJ; the dynamic level alone (static power is a constant).
  while (last_ps_ < now) {
    const uint64_t bin = last_ps_ / bin_ps_;
    if (bin >= kMaxBins) {  // coarser bins: merge pairs
      for (size_t i = 0; i < bins_aj_.size() / 2; ++i)
        bins_aj_[i] = bins_aj_[2 * i] + bins_aj_[2 * i + 1];
      if (bins_aj_.size() % 2) bins_aj_[bins_aj_.size() / 2] = bins_aj_.back();
      bins_aj_.resize((bins_aj_.size() + 1) / 2);
      bin_ps_ *= 2;
      continue;
    }
    const uint64_t until = std::min(now, (bin + 1) * bin_ps_);
    if (bins_aj_.size() <= bin) bins_aj_.resize(bin + 1, 0);
    bins_aj_[bin] += dynamic_uw_ * static_cast<int64_t>(until - last_ps_);
    last_ps_ = until;
  }
}

std::vector<double> PowerMeter::binned_pj() const {
  std::vector<double> out(bins_aj_.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(bins_aj_[i]) * 1e-6;
  return out;
}

double PowerMeter::bin_ns() const {
  return static_cast<double>(bin_ps_) / 1000.0;
}

void PowerMeter::report_stats(StatsSink& out, double /*now_ns*/) const {
  if (peak_uw_ == static_uw_ && !out.describing()) return;
  out.group(name());
  out.real("peak_power_mw", static_cast<double>(peak_uw_) / 1000.0, "mW",
           "highest power drawn (static + memories, wires and engines in service)");
}

unsigned PowerMeter::trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const {
  sc_core::sc_trace(tf, power_mw_, name + ".power_mw");
  return 1;
}

}  // namespace kb
