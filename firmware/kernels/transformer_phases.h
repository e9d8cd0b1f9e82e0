// The phases of a transformer step (docs/ARCHITECTURE.md §7.4): the names
// the firmware records (Step::begin, PhaseRecord::phase), the llm bench reads
// back and its step model prices, each with its op class. Code names a phase
// by these constants, never by a literal, so that a misspelt phase does not
// compile (a map looked up by a wrong name would read as zero).
#pragma once

#include <string>

namespace kb {
namespace fw {
namespace phase {

inline constexpr char kAttnNorm[] = "attn_norm";
inline constexpr char kAttnNormGather[] = "attn_norm_gather";
inline constexpr char kQkv[] = "qkv";
inline constexpr char kQkvGather[] = "qkv_gather";
inline constexpr char kRope[] = "rope";
inline constexpr char kKvAppend[] = "kv_append";
inline constexpr char kAttention[] = "attention";
inline constexpr char kAttnGather[] = "attn_gather";
inline constexpr char kOProj[] = "o_proj";
inline constexpr char kOAllreduce[] = "o_allreduce";
inline constexpr char kOReduceScatter[] = "o_reduce_scatter";
inline constexpr char kOResidual[] = "o_residual";
inline constexpr char kFfnNorm[] = "ffn_norm";
inline constexpr char kFfnNormGather[] = "ffn_norm_gather";
inline constexpr char kGateUp[] = "gate_up";
inline constexpr char kSiluMul[] = "silu_mul";
inline constexpr char kDown[] = "down";
inline constexpr char kFfnAllreduce[] = "ffn_allreduce";
inline constexpr char kFfnReduceScatter[] = "ffn_reduce_scatter";
inline constexpr char kFfnResidual[] = "ffn_residual";
inline constexpr char kFinalNorm[] = "final_norm";
inline constexpr char kFinalNormGather[] = "final_norm_gather";
inline constexpr char kLmHead[] = "lm_head";
inline constexpr char kPpRecv[] = "pp_recv";
inline constexpr char kPpSend[] = "pp_send";

}  // namespace phase

// The op class of a phase: gemm, attention, allreduce, pipeline or
// norm_elementwise. Throws std::invalid_argument for a name not above.
const char* phase_class(const std::string& phase);

}  // namespace fw
}  // namespace kb
