// The analytic model of the llm bench's decode step under the tensor-parallel
// mapping (firmware/kernels/transformer_decode.cpp): each phase of a layer,
// and of the head after the last layer, priced on the rank it takes longest,
// from the configuration alone (no measurement, no fitted constant):
//   - elementwise phases (RMSNorm, the residual adds, SiLU·mul): the PE_CPU
//     dispatching each DMA and MATH command once its inputs are ready, the DMA
//     transfers' paths and PE_MATH's lanes;
//   - GEMM phases (QKV, RoPE, O, gate and up, down, the LM head): the
//     composite's first token, then one token per native tile at its busiest
//     engine (PE_GEMM, the HBM stream of the weight tile, FETCH, STORE), then
//     its last store;
//   - the collectives (the QKV gather, the all-reduces, the attention output's
//     broadcast): allreduce_model.h over the mapping's PEs;
//   - attention: attention_model.h's group model (each rank's sweeps, the
//     state reduce, the root's normalisation).
// docs/ARCHITECTURE.md, "The llm step model", derives the terms. Every layer
// of a decode step does the same work, so the step is the ring opening, the
// layer's phases times the layers, and the head.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/config/topology_config.h"
#include "platform/llm/llm_mapping.h"

namespace kb {

// The implicit noexcept move moves nlohmann::json members, whose move resets
// the source to null through a constructor that allocates only for other
// value types; bugprone-exception-escape cannot tell and reports the struct.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct LlmStepModel {
  struct Phase {
    std::string name;   // the phase's name in the op log and phases_rank0_ns
    double ns = 0;      // on its slowest rank
    unsigned rank = 0;  // that rank
    std::string how;    // what bounds it
    nlohmann::json terms = nlohmann::json::object();  // its parts, ns
  };
  double open_ns = 0;        // the IPCQ rings' opening at the step's start
  std::vector<Phase> layer;  // one layer's phases, in order
  std::vector<Phase> head;   // the final norm and the LM head
  int64_t layers = 0;
  double layer_ns = 0, head_ns = 0, total_ns = 0;
  // Whether an all-reduce moves more chunks per step than a ring's credits
  // (its broadcast and credit loop are then priced approximately).
  bool credit_paced = false;
  // Unpriced effects (empty: none).
  std::vector<std::string> unpriced;
  // A pipeline's schedule (null for one tensor-parallel stage): per stage and
  // micro-batch the hand-off in, the layers, the hand-off out or the head.
  nlohmann::json pipeline;

  // The model's time of a phase over the whole step (every layer, or the head).
  double phase_ns(const std::string& name) const;
  // {"total_ns", "open_ns", "layer_ns", "head_ns", "layers", "phases": {name: {...}},
  //  "classes": {op class: ns over the step}, ["unpriced"]}.
  nlohmann::json to_json() const;
};

// Decode under mapping tp. Throws std::invalid_argument for a prefill.
LlmStepModel llm_decode_model(const TpMapping& map, const LlmRun& run, const TopologyConfig& cfg);

// Decode under mapping pp: `stages` in order, each a tensor-parallel mapping
// of its PEs and its run (its layers, whether it has the head), the batch
// cut into micro-batches of `micro_rows` sequences. Each stage takes the
// micro-batches in turn: the residual stream from the previous stage's root
// (a send over the SIP link) and its broadcast over the stage, the stage's
// layers (llm_decode_model on the micro-batch), then the send to the next
// stage's root, or the head. A micro-batch enters a stage once the stage is
// done with the previous one and the previous stage has sent it.
struct LlmStage {
  const TpMapping* map;
  LlmRun run;
};
LlmStepModel llm_pipeline_decode_model(const std::vector<LlmStage>& stages,
                                       const std::vector<int64_t>& micro_rows,
                                       const TopologyConfig& cfg);

// Why a measured step lies outside [0.9, 1.1] of the model (empty inside).
std::string llm_model_gap(const LlmStepModel& m, double ratio);

}  // namespace kb
