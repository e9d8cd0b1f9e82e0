// Recipes: firmware-level macros that a composite's prologue expands into
// KERNEL-scope MATH OpSpecs (firmware/tl.h). PE_SCHEDULER and the engines never
// see a recipe, only the OpSpecs it lowers to.
//
// A recipe names its operands (read, or read-and-written), the scratch
// tensors it needs in TCM, its engine sequence, and an optional primary
// output that is auto-bound to the head GEMM's `a` operand.
//
// The built-in recipe is softmax_merge; a program adds its own with
// register_recipe (before the first Platform), and a kernel then names it in a
// composite's prologue (tl.h, RecipeCall) like the built-in one.
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
// The built-in recipes, then the registered ones.
std::vector<std::string> recipe_names();

// Adds `r`. Throws std::invalid_argument, naming the recipe and the part at
// fault (with the nearest name where a name is unknown), when: its name is
// empty or taken (built in or registered); it has no steps; an operand or
// scratch name is empty or used twice; a scratch's shape_from is not an
// operand; more than one scratch is the primary output; a step's op kind is
// not a MATH kind (built in or registered, models/math/math_ops.h: register op
// kinds first); a step reads or writes a name that is neither an operand nor
// a scratch, or writes a read-only operand. Throws std::logic_error once a
// Platform has been built.
void register_recipe(Recipe r);
// Refuses further registrations (Platform's constructor calls it).
void close_recipe_registry();

}  // namespace fw
}  // namespace kb
