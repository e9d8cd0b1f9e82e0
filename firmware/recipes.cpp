#include "firmware/recipes.h"

#include <algorithm>
#include <stdexcept>

#include "models/commands/op_kinds.h"
#include "models/common/spelling.h"

namespace kb {
namespace fw {

namespace {

// softmax_merge(s, m, l, O): the online-softmax merge of one KV tile.
//   m_loc = rmax(s)             m_new = max(m, m_loc)     corr = exp(m - m_new)
//   P     = exp(s - m_new)      l_loc = rsum(P)           l    = l*corr + l_loc
//   O     = O * corr            m     = m_new
// P is the primary output (the head GEMM computes P·V, accumulating into O).
Recipe softmax_merge() {
  Recipe r;
  r.name = "softmax_merge";
  r.operands = {{"s", Access::kRead},
                {"m", Access::kReadWrite},
                {"l", Access::kReadWrite},
                {"O", Access::kReadWrite}};
  r.scratch = {{"m_loc", "s", true, false},
               {"m_new", "s", true, false},
               {"corr", "s", true, false},
               {"P", "s", false, true},
               {"l_loc", "s", true, false}};
  r.steps = {
      {"rmax", {"s"}, "m_loc", {{"reduce_axis", int64_t{-1}}}},
      {"max_elem", {"m", "m_loc"}, "m_new", {}},
      {"exp_diff", {"m", "m_new"}, "corr", {}},
      {"exp_diff", {"s", "m_new"}, "P", {{"bcast_axis", int64_t{0}}}},
      {"rsum", {"P"}, "l_loc", {{"reduce_axis", int64_t{-1}}}},
      {"fma", {"l", "corr", "l_loc"}, "l", {}},
      {"mul_bcast", {"O", "corr"}, "O", {{"bcast_axis", int64_t{1}}}},
      {"copy", {"m_new"}, "m", {}},
  };
  return r;
}

struct RecipeRegistry {
  std::vector<Recipe> all = {softmax_merge()};  // the built-in ones first
  bool closed = false;
};

RecipeRegistry& recipe_registry() {
  static RecipeRegistry r;
  return r;
}

// Throws, for register_recipe, what is wrong with `r` (nothing: returns).
void check_recipe(const Recipe& r) {
  const std::string what = "register_recipe: recipe '" + r.name + "'";
  auto bad = [&](const std::string& why) { throw std::invalid_argument(what + ": " + why); };
  if (r.name.empty()) throw std::invalid_argument("register_recipe: a recipe needs a name");
  if (find_recipe(r.name))
    bad("the name is taken (" + std::string(r.name == "softmax_merge" ? "built in" : "registered") +
        "); each recipe is registered once");
  if (r.steps.empty()) bad("has no steps");
  std::vector<std::string> names, operands, writable;
  auto add_name = [&](const std::string& n, const char* kind) {
    if (n.empty()) bad(std::string("has a ") + kind + " without a name");
    for (const std::string& m : names)
      if (m == n) bad("names '" + n + "' twice (operands and scratch share one namespace)");
    names.push_back(n);
  };
  for (const RecipeOperand& o : r.operands) {
    add_name(o.name, "operand");
    operands.push_back(o.name);
    if (o.access == Access::kReadWrite) writable.push_back(o.name);
  }
  unsigned primary = 0;
  for (const RecipeScratch& sc : r.scratch) {
    add_name(sc.name, "scratch tensor");
    writable.push_back(sc.name);
    if (std::find(operands.begin(), operands.end(), sc.shape_from) == operands.end())
      bad("scratch '" + sc.name + "' takes its shape from '" + sc.shape_from +
          "', which is not an operand" + did_you_mean(sc.shape_from, operands));
    primary += sc.primary_out ? 1 : 0;
  }
  if (primary > 1) bad("has " + std::to_string(primary) + " primary outputs; at most one");
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const RecipeStep& st = r.steps[i];
    const std::string step = "step " + std::to_string(i) + " ('" + st.op_kind + "')";
    if (!is_math_kind(st.op_kind))
      bad(step + ": " + unknown_op_kind(st.op_kind, false) +
          " (a recipe's steps are MATH ops; register your own with kb::register_math_op "
          "before the recipe)");
    if (st.reads.empty()) bad(step + " reads nothing");
    for (const std::string& n : st.reads)
      if (std::find(names.begin(), names.end(), n) == names.end())
        bad(step + " reads '" + n + "', which is neither an operand nor a scratch tensor" +
            did_you_mean(n, names));
    if (std::find(writable.begin(), writable.end(), st.writes) == writable.end()) {
      if (std::find(names.begin(), names.end(), st.writes) != names.end())
        bad(step + " writes '" + st.writes +
            "', a read-only operand (make it Access::kReadWrite, or write a scratch tensor)");
      bad(step + " writes '" + st.writes + "', which is neither an operand nor a scratch tensor" +
          did_you_mean(st.writes, writable));
    }
  }
}

}  // namespace

const Recipe* find_recipe(const std::string& name) {
  for (const Recipe& r : recipe_registry().all)
    if (r.name == name) return &r;
  return nullptr;
}

std::vector<std::string> recipe_names() {
  std::vector<std::string> v;
  for (const Recipe& r : recipe_registry().all) v.push_back(r.name);
  return v;
}

void register_recipe(Recipe r) {
  RecipeRegistry& reg = recipe_registry();
  if (reg.closed)
    throw std::logic_error("register_recipe: recipe '" + r.name +
                           "' comes after the first Platform was built; register recipes before "
                           "it (before kernbench_main or run_main)");
  check_recipe(r);
  reg.all.push_back(std::move(r));
}

void close_recipe_registry() {
  recipe_registry().closed = true;
}

}  // namespace fw
}  // namespace kb
