// Recipes: firmware-level macros that a composite's prologue expands into
// KERNEL-scope MATH OpSpecs (firmware/tl.h). PE_SCHEDULER and the engines never
// see a recipe, only the OpSpecs it lowers to.
//
// A recipe names its operands (read, or read-and-written), the scratch
// tensors it needs in TCM, its engine sequence, and an optional primary
// output that is auto-bound to the head GEMM's `a` operand.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "models/commands/commands.h"

namespace kb {
namespace fw {

enum class Access { kRead, kReadWrite };

struct RecipeOperand {
  std::string name;
  Access access = Access::kRead;
};

// A scratch tensor: shaped like an operand, optionally with its last
// dimension reduced to 1 (keepdims results).
struct RecipeScratch {
  std::string name;
  std::string shape_from;  // operand whose shape it takes
  bool reduce_last = false;
  bool primary_out = false;  // auto-bound to the head GEMM's `a`; takes b's dtype
};

struct RecipeStep {
  std::string op_kind;
  std::vector<std::string> reads;  // operand or scratch names, in order
  std::string writes;
  std::vector<std::pair<std::string, ExtraValue>> extra;
};

struct Recipe {
  std::string name;
  std::vector<RecipeOperand> operands;
  std::vector<RecipeScratch> scratch;
  std::vector<RecipeStep> steps;
};

// nullptr when no recipe has that name.
const Recipe* find_recipe(const std::string& name);
std::vector<std::string> recipe_names();

}  // namespace fw
}  // namespace kb
