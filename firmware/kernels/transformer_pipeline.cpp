#include "firmware/kernels/transformer_pipeline.h"

#include <stdexcept>

#include "firmware/kernels/allreduce.h"
#include "firmware/kernels/transformer_decode.h"
#include "firmware/kernels/transformer_ops.h"
#include "firmware/kernels/transformer_prefill.h"

namespace kb {
namespace fw {

namespace {

// A hand-off counts towards the layer it feeds (receive) or ends (send).
void record(Tl& tl, std::vector<PhaseRecord>* phases, int layer, const char* phase, double t0) {
  if (phases) phases->push_back({layer, phase, t0, tl.now_ns()});
}

}  // namespace

void pipeline_step(Tl& tl, const PipelineArgs& p, std::vector<PhaseRecord>* phases) {
  if (p.micro.empty() || p.roots.size() != p.stages || p.stage >= p.stages)
    throw std::invalid_argument("pipeline_step: a stage, its micro-batches and every stage's root");
  const TransformerStepArgs& a0 = p.micro.front();
  const bool root = a0.rank == 0;
  const int last_layer = p.first_layer + static_cast<int>(a0.layers.size()) - 1;
  // The step's own rings, and the previous stage's root for the root.
  std::vector<PeAddr> prev;
  if (root && p.stage > 0) prev.push_back(p.roots[p.stage - 1]);
  tx::open_rings(tl, a0, prev);

  for (const TransformerStepArgs& a : p.micro) {
    if (p.stage > 0) {
      const double t0 = tl.now_ns();
      Tensor x = a.x;
      if (root) x = tl.recv_async(p.roots[p.stage - 1], x);
      tl.wait(x);
      tree_broadcast(tl, a.x, a.ranks, a.rank);
      tl.wait();
      record(tl, phases, p.first_layer, phase::kPpRecv, t0);
    }
    if (p.prefill)
      prefill_layers(tl, a, phases, p.first_layer);
    else
      decode_layers(tl, a, phases, p.first_layer);
    if (p.stage + 1 < p.stages) {
      const double t0 = tl.now_ns();
      if (root) tl.wait(tl.send(p.roots[p.stage + 1], a.x));
      record(tl, phases, last_layer, phase::kPpSend, t0);
    } else if (p.prefill) {
      prefill_tail(tl, a, phases);
    } else {
      decode_tail(tl, a, phases);
    }
  }
}

}  // namespace fw
}  // namespace kb
