// The rules of what a program registers from outside the platform: MATH op
// kinds (models/math/math_ops.h), recipes (firmware/recipes.h) and the llm
// bench's norm kernels (platform/llm/norm_kernels.h). Each test runs in its
// own process, so each registers into empty registries.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "firmware/recipes.h"
#include "models/commands/op_kinds.h"
#include "models/common/errors.h"
#include "models/math/math_eval.h"
#include "models/math/math_ops.h"
#include "platform/llm/norm_kernels.h"
#include "tests/support/cli_run.h"

namespace kb {
namespace {

using test::contains;

// x * 2: one operand, one pass, elementwise.
MathOpDef reg_twice() {
  MathOpDef d;
  d.eval = [](const std::vector<NdArray>& in, const MathExtras&) {
    NdArray out = in[0];
    for (float& v : out.data) v *= 2;
    return out;
  };
  return d;
}

// The message of what `f` throws as E ("" when it throws nothing).
template <class E, class F>
std::string reg_thrown(F f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

TEST(RegisterMathOp, ARegisteredKindIsAMathKindWithItsNumericsAndCost) {
  MathOpDef d = reg_twice();
  d.cost = {MathOpClass::kTranscendental, 3};
  register_math_op("twice", d);
  EXPECT_TRUE(is_math_kind("twice"));
  EXPECT_FALSE(is_gemm_kind("twice"));
  EXPECT_EQ(math_op_class("twice"), MathOpClass::kTranscendental);
  EXPECT_EQ(math_op_passes("twice"), 3u);
  EXPECT_EQ(math_op_passes("relu"), 1u);  // a built-in kind: one pass
  EXPECT_EQ(registered_math_ops(), std::vector<std::string>{"twice"});
  const std::vector<std::string> all = all_math_kinds();
  EXPECT_EQ(all.back(), "twice");
  EXPECT_EQ(all.size(), math_kinds().size() + 1);  // the built-in list itself is unchanged
  const NdArray r = math_eval("twice", {NdArray{{1, 3}, {1, -2, 0.5f}}}, {});
  EXPECT_EQ(r.shape, (Shape{1, 3}));
  EXPECT_EQ(r.data, (std::vector<float>{2, -4, 1}));
}

TEST(RegisterMathOp, TooFewOperandsIsAMathErrorBeforeItsFunctionRuns) {
  MathOpDef d = reg_twice();
  d.operands = 2;
  register_math_op("pair", d);
  const std::string msg = reg_thrown<MathError>([] { math_eval("pair", {NdArray{{1}, {1}}}, {}); });
  EXPECT_TRUE(contains(msg, "'pair' needs 2 operand(s), got 1")) << msg;
}

TEST(RegisterMathOp, DuplicateNamesAreRefusedWithAClearMessage) {
  register_math_op("twice", reg_twice());
  std::string msg =
      reg_thrown<std::invalid_argument>([] { register_math_op("twice", reg_twice()); });
  EXPECT_TRUE(contains(msg, "register_math_op: 'twice' is already registered")) << msg;
  msg = reg_thrown<std::invalid_argument>([] { register_math_op("relu", reg_twice()); });
  EXPECT_TRUE(contains(msg, "'relu' is a built-in op kind")) << msg;
  msg = reg_thrown<std::invalid_argument>([] { register_math_op("gemm", reg_twice()); });
  EXPECT_TRUE(contains(msg, "'gemm' is the GEMM engine's op kind")) << msg;
}

TEST(RegisterMathOp, BadNamesFunctionsAndCostsAreRefused) {
  for (const char* name : {"", "Twice", "2x", "two words", "x-y"}) {
    const std::string msg =
        reg_thrown<std::invalid_argument>([&] { register_math_op(name, reg_twice()); });
    EXPECT_TRUE(contains(msg, "lower-case letters, digits and underscores")) << name << ": " << msg;
  }
  std::string msg =
      reg_thrown<std::invalid_argument>([] { register_math_op("noeval", MathOpDef{}); });
  EXPECT_TRUE(contains(msg, "has no data-mode function")) << msg;
  MathOpDef d = reg_twice();
  d.cost.passes = 0;
  msg = reg_thrown<std::invalid_argument>([&] { register_math_op("nopass", d); });
  EXPECT_TRUE(contains(msg, "0 passes")) << msg;
  EXPECT_TRUE(registered_math_ops().empty());  // nothing refused was added
}

TEST(RegisterMathOp, UnknownKindsSuggestTheNearestBuiltInOrRegisteredOne) {
  register_math_op("rmean", reg_twice());
  EXPECT_EQ(unknown_op_kind("rmeen", false), "unknown op kind 'rmeen'; did you mean 'rmean'?");
  EXPECT_EQ(unknown_op_kind("rsqtr", false), "unknown op kind 'rsqtr'; did you mean 'rsqrt'?");
  EXPECT_EQ(unknown_op_kind("gem", true), "unknown op kind 'gem'; did you mean 'gemm'?");
  EXPECT_EQ(unknown_op_kind("frobnicate", false), "unknown op kind 'frobnicate'");
}

TEST(RegisterMathOp, NoRegistrationOnceTheRegistryIsClosed) {
  close_math_op_registry();  // as the first Platform does
  const std::string msg =
      reg_thrown<std::logic_error>([] { register_math_op("late", reg_twice()); });
  EXPECT_TRUE(contains(msg, "after the first Platform was built")) << msg;
  EXPECT_FALSE(is_math_kind("late"));
}

// A recipe over the registered kind `twice`: y = twice(x) + x.
fw::Recipe reg_twice_plus() {
  using fw::Access;
  fw::Recipe r;
  r.name = "twice_plus";
  r.operands = {{"x", Access::kRead}, {"y", Access::kReadWrite}};
  r.scratch = {{"t", "x", false, false}};
  r.steps = {{"twice", {"x"}, "t", {}}, {"add", {"t", "x"}, "y", {}}};
  return r;
}

TEST(RegisterRecipe, ARegisteredRecipeIsFoundAfterTheBuiltInOnes) {
  register_math_op("twice", reg_twice());
  fw::register_recipe(reg_twice_plus());
  EXPECT_EQ(fw::recipe_names(), (std::vector<std::string>{"softmax_merge", "twice_plus"}));
  const fw::Recipe* r = fw::find_recipe("twice_plus");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->steps.size(), 2u);
}

TEST(RegisterRecipe, DuplicateNamesAreRefusedWithAClearMessage) {
  register_math_op("twice", reg_twice());
  fw::register_recipe(reg_twice_plus());
  std::string msg =
      reg_thrown<std::invalid_argument>([] { fw::register_recipe(reg_twice_plus()); });
  EXPECT_TRUE(contains(msg, "recipe 'twice_plus': the name is taken (registered)")) << msg;
  fw::Recipe r = reg_twice_plus();
  r.name = "softmax_merge";
  msg = reg_thrown<std::invalid_argument>([&] { fw::register_recipe(r); });
  EXPECT_TRUE(contains(msg, "the name is taken (built in)")) << msg;
}

TEST(RegisterRecipe, UnknownOpKindsAndNamesSuggestTheNearest) {
  // The op kind is not registered yet: the message says to register it first.
  std::string msg =
      reg_thrown<std::invalid_argument>([] { fw::register_recipe(reg_twice_plus()); });
  EXPECT_TRUE(contains(msg, "step 0 ('twice'): unknown op kind 'twice'")) << msg;
  EXPECT_TRUE(contains(msg, "register your own with kb::register_math_op before the recipe"))
      << msg;
  register_math_op("twice", reg_twice());
  fw::Recipe r = reg_twice_plus();
  r.steps[0].op_kind = "twise";
  msg = reg_thrown<std::invalid_argument>([&] { fw::register_recipe(r); });
  EXPECT_TRUE(contains(msg, "unknown op kind 'twise'; did you mean 'twice'?")) << msg;
  r = reg_twice_plus();
  r.steps[1].reads = {"tt", "x"};
  msg = reg_thrown<std::invalid_argument>([&] { fw::register_recipe(r); });
  EXPECT_TRUE(contains(msg,
                       "step 1 ('add') reads 'tt', which is neither an operand nor a scratch "
                       "tensor; did you mean 't'?"))
      << msg;
  r = reg_twice_plus();
  r.scratch[0].shape_from = "xx";
  msg = reg_thrown<std::invalid_argument>([&] { fw::register_recipe(r); });
  EXPECT_TRUE(contains(msg,
                       "scratch 't' takes its shape from 'xx', which is not an operand; did "
                       "you mean 'x'?"))
      << msg;
}

TEST(RegisterRecipe, MalformedRecipesAreRefused) {
  register_math_op("twice", reg_twice());
  auto refused = [](const fw::Recipe& r) {
    return reg_thrown<std::invalid_argument>([&] { fw::register_recipe(r); });
  };
  fw::Recipe r = reg_twice_plus();
  r.steps[1].writes = "x";
  EXPECT_TRUE(contains(refused(r), "writes 'x', a read-only operand")) << refused(r);
  r = reg_twice_plus();
  r.scratch.push_back({"x", "x", false, false});
  EXPECT_TRUE(contains(refused(r), "names 'x' twice")) << refused(r);
  r = reg_twice_plus();
  r.scratch = {{"t", "x", false, true}, {"u", "x", false, true}};
  EXPECT_TRUE(contains(refused(r), "has 2 primary outputs")) << refused(r);
  r = reg_twice_plus();
  r.steps.clear();
  EXPECT_TRUE(contains(refused(r), "has no steps")) << refused(r);
  r.name = "";
  EXPECT_TRUE(contains(refused(r), "a recipe needs a name")) << refused(r);
  EXPECT_EQ(fw::recipe_names().size(), 1u);  // only softmax_merge
  fw::close_recipe_registry();
  const std::string late =
      reg_thrown<std::logic_error>([] { fw::register_recipe(reg_twice_plus()); });
  EXPECT_TRUE(contains(late, "after the first Platform was built")) << late;
}

NormKernelDef reg_some_norm() {
  return {[](const fw::NormCall&) {},
          [](const double*, const float*, double*, int64_t, int64_t, double) {}, "a norm"};
}

TEST(RegisterNormKernel, NamesAreUniqueAndUnknownOnesSuggestTheNearest) {
  EXPECT_EQ(norm_kernel("rmsnorm"), nullptr);  // the built-in one
  register_norm_kernel("layernorm", reg_some_norm());
  EXPECT_NE(norm_kernel("layernorm"), nullptr);
  EXPECT_EQ(norm_kernel_names(), (std::vector<std::string>{"rmsnorm", "layernorm"}));
  std::string msg =
      reg_thrown<std::invalid_argument>([] { register_norm_kernel("layernorm", reg_some_norm()); });
  EXPECT_TRUE(contains(msg, "'layernorm' is already registered")) << msg;
  msg = reg_thrown<std::invalid_argument>([] { register_norm_kernel("rmsnorm", reg_some_norm()); });
  EXPECT_TRUE(contains(msg, "'rmsnorm' is the built-in norm")) << msg;
  NormKernelDef d = reg_some_norm();
  d.reference = nullptr;
  msg = reg_thrown<std::invalid_argument>([&] { register_norm_kernel("noref", d); });
  EXPECT_TRUE(contains(msg, "has no double-precision reference")) << msg;
  msg = reg_thrown<UsageError>([] { norm_kernel("layernrom"); });
  EXPECT_TRUE(contains(msg, "no norm kernel 'layernrom'; did you mean 'layernorm'?")) << msg;
  EXPECT_TRUE(contains(msg, "the norm kernels: rmsnorm, layernorm")) << msg;
  close_norm_kernel_registry();
  msg = reg_thrown<std::logic_error>([] { register_norm_kernel("late", reg_some_norm()); });
  EXPECT_TRUE(contains(msg, "after the first Platform was built")) << msg;
}

}  // namespace
}  // namespace kb
