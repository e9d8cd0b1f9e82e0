// The command descriptors the analytic models price the PE_CPU's dispatch of,
// shaped as the firmware issues them (the operands, outputs and extras that
// make up a command's logical bytes; the handles themselves are empty).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "models/commands/commands.h"

namespace kb {

using ExtraArg = std::pair<std::string, ExtraValue>;

// The extras of the firmware's row reductions and broadcasts.
inline const ExtraArg kReduceLastAxis{"reduce_axis", int64_t{-1}};
inline const ExtraArg kBcastRows{"bcast_axis", int64_t{0}};
inline const ExtraArg kBcastCols{"bcast_axis", int64_t{1}};

// One op of a composite: `kind` over the named operands, with an output or not.
OpSpec op_shape(const std::string& kind, std::vector<std::string> operands, bool out,
                std::vector<ExtraArg> extra);
// The GEMM op tl.composite builds: a · b into out, with m, k, n.
OpSpec gemm_op_shape();
// A composite of `ops` with `rw` read-and-written handles.
CompositeCmd composite_shape(std::vector<OpSpec> ops, size_t rw);
// A single MATH command of `kind` over `inputs` tensors.
MathCmd math_shape(const std::string& kind, size_t inputs, std::vector<ExtraArg> extra = {});

}  // namespace kb
