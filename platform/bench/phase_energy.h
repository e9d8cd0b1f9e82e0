// The energy of an LLM step by the op class of its phases (GEMM, attention,
// all-reduce, norm and elementwise, pipeline hand-over), from the modules'
// own energy counters read as each phase ends.
//
// Each rank's PE (its HBM, TCM, DMA, engines, IPCQ, CPU and crossbar) is
// charged to that rank's phases: when a phase ends on the rank, what the PE
// spent since the rank's previous phase ended (its dynamic energy, and its
// static power over that time) goes to the class of the phase that ended.
// Everything outside the ranks' PEs (cube routers and SRAM, links, hubs, SIP
// links, the host, PEs the mapping leaves idle) is charged the same way to
// the phases of `lead`, one rank (the first), whose phases every rank runs.
// What a PE spends after its rank's last phase, until the step ends, is the
// `after_last_phase` part. The parts add up to the step's energy.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "firmware/kernels/transformer_step.h"
#include "platform/platform.h"

namespace kb {

class PhaseEnergy {
 public:
  // `pes`: each rank's PE, by rank index; `lead` charges the modules outside them.
  PhaseEnergy(const Platform& platform, const std::vector<PeAddr>& pes, size_t lead = 0);

  // Every part starts from now (the step's launch).
  void start();
  // Rank `rank`'s phase `r` has ended (now).
  void phase_done(size_t rank, const fw::PhaseRecord& r);
  // The step has ended (now): what each part spent after its last phase.
  void finish();

  // pJ by op class (fw::phase_class), and "after_last_phase": after finish().
  const std::map<std::string, double>& pj_by_class() const { return pj_; }
  // What the phases of each layer were charged, by op class: [class][layer]
  // (`layers` long), summed over the parts as finish() sums.
  std::map<std::string, std::vector<double>> pj_by_class_per_layer(size_t layers) const;
  double total_pj() const;

 private:
  // The modules one part covers, and what they had spent when it was last read.
  struct Part {
    std::vector<const Instrumented*> modules;
    double static_mw = 0;
    double dynamic_pj = 0;  // at `at_ns`
    double at_ns = 0;
    // What it spent, by op class. Summed per part, in its own phase order,
    // then over the parts in a fixed order (finish()): ranks whose phases
    // end at one instant end in kernel order, which must not reorder the sum.
    std::map<std::string, double> pj;
    std::map<std::pair<int, std::string>, double> layer_pj;  // by (layer, class)
  };
  double dynamic_pj(const Part& p) const;
  // What `p` spent since it was last read, charged to `cls` (and to `layer`'s
  // share of it, for a layer's phase).
  void charge(Part& p, const std::string& cls, int layer = -1);

  const Platform& platform_;
  std::vector<Part> ranks_;
  Part rest_;
  size_t lead_;
  std::map<std::string, double> pj_;
};

}  // namespace kb
