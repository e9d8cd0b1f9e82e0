// The op kinds an OpSpec or MathCmd may name. PE_MATH treats every MATH kind
// as an opaque label for timing (latency = ceil(elements / lanes) cycles);
// the list exists so that a typo is an error at issue, not a silent op.
#pragma once

#include <string>
#include <vector>

namespace kb {

bool is_gemm_kind(const std::string& kind);
bool is_math_kind(const std::string& kind);
const std::vector<std::string>& math_kinds();

}  // namespace kb
