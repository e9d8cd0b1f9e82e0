// The op kinds an OpSpec or MathCmd may name. PE_MATH treats every MATH kind
// as an opaque label for timing (latency = ceil(elements / lanes) cycles);
// the list exists so that a typo is an error at issue, not a silent op.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kb {

// What a MATH op costs per output element in energy (not in time): an
// elementwise op, a reduction, or a transcendental or iterative one.
enum class MathOpClass : uint8_t { kElementwise, kReduction, kTranscendental };
constexpr unsigned kNumMathOpClasses = 3;
const char* to_string(MathOpClass c);
// The class of a MATH kind (kElementwise for any name not listed as another;
// a registered kind's, models/math/math_ops.h, is its MathOpCost's).
MathOpClass math_op_class(const std::string& kind);

bool is_gemm_kind(const std::string& kind);
// A built-in MATH kind or one a program registered (models/math/math_ops.h).
bool is_math_kind(const std::string& kind);
// The built-in MATH kinds.
const std::vector<std::string>& math_kinds();
// The built-in MATH kinds, then the registered ones.
std::vector<std::string> all_math_kinds();
// "unknown op kind 'KIND'", with the nearest MATH kind (or gemm, with
// gemm_too) as a suggestion when one is close.
std::string unknown_op_kind(const std::string& kind, bool gemm_too);

}  // namespace kb
