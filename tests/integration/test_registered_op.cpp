// A MATH op kind registered from outside the platform (models/math/math_ops.h)
// runs on a PE like a built-in one: tl.math and a registered recipe's steps
// (firmware/recipes.h) issue it, PE_MATH times it by its passes and, in data
// mode, computes it with its function; a misspelt kind gets it suggested.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "firmware/recipes.h"
#include "firmware/tl.h"
#include "models/math/math_ops.h"
#include "models/trace/op_log.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

using test::contains;
using test::tiny;

// cube3: x^3, three passes of PE_MATH.
void register_cube3() {
  MathOpDef d;
  d.eval = [](const std::vector<NdArray>& in, const MathExtras&) {
    NdArray out = in[0];
    for (float& v : out.data) v = v * v * v;
    return out;
  };
  d.cost = {MathOpClass::kElementwise, 3};
  register_math_op("cube3", d);
}

// The one MATH record of `kind` on PE 0.0.0.
const OpRecord* math_record(Platform& p, const std::string& kind) {
  const OpRecord* found = nullptr;
  for (const OpRecord& r : p.op_log().records())
    if (r.engine == "math" && r.op_kind == kind) {
      EXPECT_EQ(found, nullptr) << "two " << kind << " records";
      found = &r;
    }
  return found;
}

TEST(RegisteredMathOp, RunsOnAPeInDataModeWithItsFunctionAndItsPasses) {
  register_cube3();
  Platform p(tiny());
  p.set_data_mode(true);
  HostRuntime rt(p);
  const PeId pe{0, 0, 0};
  const Shape shape{8, 64};
  const fw::Tensor x = rt.alloc_hbm(pe, shape, DType::kFp32);
  const fw::Tensor y = rt.alloc_hbm(pe, shape, DType::kFp32);
  const fw::Tensor r = rt.alloc_hbm(pe, shape, DType::kFp32);
  std::vector<float> xv(8 * 64);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i % 17) / 8.0f - 1.0f;
  rt.write(x, xv);
  rt.launch_on({pe}, [&](fw::Tl& tl) {
    const fw::Tensor t = tl.load(x);
    tl.wait(tl.store(y, tl.math("cube3", {t})));
    tl.wait(tl.store(r, tl.math("relu", {t})));
  });
  rt.run();
  const std::vector<float> got = rt.read(y);
  ASSERT_EQ(got.size(), xv.size());
  for (size_t i = 0; i < xv.size(); ++i) EXPECT_EQ(got[i], xv[i] * xv[i] * xv[i]) << i;
  const OpRecord* cube = math_record(p, "cube3");
  const OpRecord* relu = math_record(p, "relu");
  ASSERT_NE(cube, nullptr);
  ASSERT_NE(relu, nullptr);
  const double cube_ns = cube->t_end_ns - cube->t_start_ns;
  const double relu_ns = relu->t_end_ns - relu->t_start_ns;
  EXPECT_GT(relu_ns, 0);
  EXPECT_NEAR(cube_ns, 3 * relu_ns, 0.002);  // three passes over the same 512 outputs
}

TEST(RegisteredMathOp, ARegisteredRecipeRunsItInAComposite) {
  register_cube3();
  fw::Recipe rec;  // y = cube3(x) + x
  rec.name = "cube_plus";
  rec.operands = {{"x", fw::Access::kRead}, {"y", fw::Access::kReadWrite}};
  rec.scratch = {{"c", "x", false, false}};
  rec.steps = {{"cube3", {"x"}, "c", {}}, {"add", {"c", "x"}, "y", {}}};
  fw::register_recipe(rec);
  Platform p(tiny());
  p.set_data_mode(true);
  HostRuntime rt(p);
  const PeId pe{0, 0, 0};
  const fw::Tensor x = rt.alloc_hbm(pe, {4, 32}, DType::kFp32);
  const fw::Tensor out = rt.alloc_hbm(pe, {4, 32}, DType::kFp32);
  std::vector<float> xv(4 * 32);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i % 7) - 3.0f;
  rt.write(x, xv);
  rt.launch_on({pe}, [&](fw::Tl& tl) {
    const fw::Tensor t = tl.load(x);
    const fw::Tensor yt = tl.empty({4, 32}, DType::kFp32);
    fw::CompositeArgs c;
    c.prologue.push_back({"cube_plus", {{"x", t}, {"y", yt}}, {}});
    c.op = "copy";  // the head: y as it is
    c.a = yt;
    tl.wait(tl.store(out, tl.composite(c)));
  });
  rt.run();
  const std::vector<float> got = rt.read(out);
  for (size_t i = 0; i < xv.size(); ++i) EXPECT_EQ(got[i], xv[i] * xv[i] * xv[i] + xv[i]) << i;
}

TEST(RegisteredMathOp, AMisspeltKindIsAFaultThatSuggestsTheRegisteredOne) {
  register_cube3();
  Platform p(tiny());
  HostRuntime rt(p);
  rt.launch_on({{0, 0, 0}}, [&](fw::Tl& tl) { tl.math("cube4", {tl.empty({4, 32})}); });
  const std::string msg = test::run_expecting_error(rt);
  EXPECT_TRUE(contains(msg, "system.sip0.cube0.pe0")) << msg;
  EXPECT_TRUE(contains(msg, "unknown op kind 'cube4'; did you mean 'cube3'?")) << msg;
}

TEST(RegisteredMathOp, TheFirstPlatformClosesTheRegistries) {
  Platform p(tiny());
  EXPECT_THROW(register_cube3(), std::logic_error);
  EXPECT_THROW(fw::register_recipe(fw::Recipe{}), std::logic_error);
}

}  // namespace
}  // namespace kb
