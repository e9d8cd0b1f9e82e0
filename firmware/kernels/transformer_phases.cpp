#include "firmware/kernels/transformer_phases.h"

#include <cstring>
#include <stdexcept>

namespace kb {
namespace fw {

const char* phase_class(const std::string& phase) {
  static constexpr struct {
    const char* name;
    const char* op_class;
  } kPhases[] = {
      {phase::kAttnNorm, "norm_elementwise"},
      {phase::kAttnNormGather, "allreduce"},
      {phase::kQkv, "gemm"},
      {phase::kQkvGather, "allreduce"},
      {phase::kRope, "gemm"},
      {phase::kKvAppend, "norm_elementwise"},
      {phase::kAttention, "attention"},
      {phase::kAttnGather, "allreduce"},
      {phase::kOProj, "gemm"},
      {phase::kOAllreduce, "allreduce"},
      {phase::kOReduceScatter, "allreduce"},
      {phase::kOResidual, "norm_elementwise"},
      {phase::kFfnNorm, "norm_elementwise"},
      {phase::kFfnNormGather, "allreduce"},
      {phase::kGateUp, "gemm"},
      {phase::kSiluMul, "norm_elementwise"},
      {phase::kDown, "gemm"},
      {phase::kFfnAllreduce, "allreduce"},
      {phase::kFfnReduceScatter, "allreduce"},
      {phase::kFfnResidual, "norm_elementwise"},
      {phase::kFinalNorm, "norm_elementwise"},
      {phase::kFinalNormGather, "allreduce"},
      {phase::kLmHead, "gemm"},
      {phase::kPpRecv, "pipeline"},
      {phase::kPpSend, "pipeline"},
  };
  for (const auto& p : kPhases)
    if (phase == p.name) return p.op_class;
  throw std::invalid_argument(
      "phase_class: '" + phase +
      "' is not a transformer phase (firmware/kernels/transformer_phases.h)");
}

}  // namespace fw
}  // namespace kb
