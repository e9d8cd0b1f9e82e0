// The GEMM study on one PE: a composite GEMM C = A·W with
// A [M,K], W [K,N], C [M,N] fp16 in the PE's HBM, in three operand-staging
// variants:
//   load_ref   A pre-loaded to TCM, W streamed from HBM
//   ref_ref    both streamed
//   load_load  both pre-loaded
// The window runs from the composite's issue (PE_CPU starts its dispatch) to
// its completion; the up-front loads are outside it. Beside each measurement
// its analytic model (platform/analytic/gemm_model.h).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/analytic/gemm_model.h"

namespace kb {

// The operand-staging variants above, in that order.
inline const std::vector<std::string> kGemmVariants = {"load_ref", "ref_ref", "load_load"};

class Platform;
class HostRuntime;
struct TopologyConfig;

// "MxKxN" (e.g. 32x3072x32), each > 0; UsageError naming --param shapes.
GemmShape parse_gemm_shape(const std::string& text);

// UsageError unless A [M,K], W [K,N] and C [M,N] (fp16) have sizes that fit
// in 64 bits and fit together in the HBM of one PE, where the study places
// them: checked before anything is allocated or simulated.
void check_gemm_size(const TopologyConfig& cfg, const GemmShape& s);

// "" when the variant's pre-loaded operands fit the TCM arena, else why not.
std::string gemm_fit(const TopologyConfig& cfg, const GemmShape& s, const std::string& variant);

// Runs one point on an elaborated platform (PE sip0.cube0.pe0) and returns its
// metrics (window_ns, tflops_per_pe, mac_util, mac_util_analytic,
// hbm_bw_util, stage_busy_ns, dispatch_ns, n_tiles, ...).
// With `data` (the platform in data mode) A and W get random fp16 values in
// [-1, 1) from a fixed seed and the result reports C's error against a
// double-precision reference: max_abs_err and max_rel_err = max|C - ref| /
// max|ref|.
nlohmann::json run_gemm_point(HostRuntime& rt, const GemmShape& s, const std::string& variant,
                              bool data = false);
// The fields of run_gemm_point's point, data mode's included (Bench::point_fields).
std::vector<std::string> gemm_point_fields();

}  // namespace kb
