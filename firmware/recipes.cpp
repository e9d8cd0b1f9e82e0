#include "firmware/recipes.h"

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

const std::vector<Recipe>& registry() {
  static const std::vector<Recipe> all = {softmax_merge()};
  return all;
}

}  // namespace

const Recipe* find_recipe(const std::string& name) {
  for (const Recipe& r : registry())
    if (r.name == name) return &r;
  return nullptr;
}

std::vector<std::string> recipe_names() {
  std::vector<std::string> v;
  for (const Recipe& r : registry()) v.push_back(r.name);
  return v;
}

}  // namespace fw
}  // namespace kb
