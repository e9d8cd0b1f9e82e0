// MATH op kinds a program adds to the built-in ones (models/math/math_eval.h
// lists those): a name, its data-mode numerics and its cost. A registered kind
// is a MATH kind like any other: tl.math, a composite's ops and a recipe's
// steps may name it, PE_CPU and make_tile_plan accept it, and PE_MATH (the
// TLM model and the engine variants derived from it) times it, counts its
// energy and, in data mode, evaluates it. The RTL vector unit implements the
// built-in kinds only and refuses others with a simulation fault.
//
//   kb::MathOpDef def;
//   def.operands = 1;
//   def.cost = {kb::MathOpClass::kReduction, 2};   // energy class, passes
//   def.eval = [](const std::vector<kb::NdArray>& in, const kb::MathExtras& extra) { ... };
//   kb::register_math_op("rmean", def);            // before the first Platform
//
// Cost: a stage of a registered kind takes `passes` x ceil(output elements /
// lanes) cycles of PE_MATH (a built-in kind: one pass), and spends `passes` x
// its output elements x the per-element energy of its class
// (pe.math.energy.*_pj_per_element), counted under that class in the
// statistics.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/commands/op_kinds.h"
#include "models/math/math_eval.h"

namespace kb {

using MathExtras = std::vector<std::pair<std::string, ExtraValue>>;
// Data-mode numerics: the op's result from its operands (fp32 values, in the
// order the command gives them) and the extras it was issued with. Throw
// MathError for operands or extras it cannot take: the stage then fails with
// a simulation fault that names the PE, the command and this message.
using MathFunction =
    std::function<NdArray(const std::vector<NdArray>& inputs, const MathExtras& extra)>;

struct MathOpCost {
  MathOpClass energy_class = MathOpClass::kElementwise;
  unsigned passes = 1;  // PE_MATH passes over the output elements (at least 1)
};

struct MathOpDef {
  MathFunction eval;
  MathOpCost cost;
  unsigned operands = 1;  // inputs it needs at least (fewer: a MathError before eval)
};

// Adds op kind `name`. Throws std::invalid_argument when the name is not a
// lower-case identifier ([a-z][a-z0-9_]*), is built in (a MATH kind or gemm)
// or already registered, or when eval is empty or passes is 0; and
// std::logic_error once a Platform has been built (register before it, i.e.
// before kernbench_main or run_main).
void register_math_op(const std::string& name, MathOpDef def);

// The registered kind `name`, or null (for a built-in kind too).
const MathOpDef* find_registered_math_op(const std::string& name);
// The registered kinds, in the order they were registered.
std::vector<std::string> registered_math_ops();
// PE_MATH passes of a stage of `kind`: 1 unless it is a registered kind.
unsigned math_op_passes(const std::string& kind);

// Refuses further registrations (Platform's constructor calls it).
void close_math_op_registry();

// The value of a numeric extra (an integer, a real or a bool) named `name`,
// or nullopt when the op was issued without it.
std::optional<double> math_extra_number(const MathExtras& extra, const std::string& name);

}  // namespace kb
