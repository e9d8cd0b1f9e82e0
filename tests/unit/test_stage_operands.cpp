// A stage's operand views: a stage that wrote none reads empty ones, a copy
// has its own, and operands given back at a stage's end come back to the
// next stage as a new one's, whatever the previous stage left in them.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "models/pe/stage.h"

namespace kb {
namespace {

TensorHandle handle(uint64_t id, uint64_t addr) {
  TensorHandle h;
  h.id = id;
  h.addr = addr;
  h.shape = {4, 8};
  return h;
}

void expect_empty(const StageOperands& o) {
  EXPECT_FALSE(o.a_view.valid());
  EXPECT_FALSE(o.b_view.valid());
  EXPECT_FALSE(o.out_view.valid());
  EXPECT_FALSE(o.output.valid());
  EXPECT_TRUE(o.a_view.shape.empty());
  EXPECT_TRUE(o.inputs.empty());
  EXPECT_TRUE(o.staged_inputs.empty());
  EXPECT_TRUE(o.math_extra.empty());
}

void fill(Stage& s) {
  StageOperands& o = s.mutable_operands();
  o.a_view = handle(1, 0x100);
  o.b_view = handle(2, 0x200);
  o.out_view = handle(3, 0x300);
  o.inputs = {handle(4, 0x400), handle(5, 0x500)};
  o.staged_inputs = {true, false};
  o.output = handle(6, 0x600);
  o.math_extra = {{"alpha", 2.0}};
}

TEST(StageOperands, AStageThatWroteNoneReadsEmptyOnes) {
  const Stage s;
  expect_empty(s.operands());
  EXPECT_EQ(&s.operands(), &StageOperands::none());
}

TEST(StageOperands, ACopyHasItsOwnAndAMoveTakesThem) {
  Stage a;
  fill(a);
  Stage b = a;
  EXPECT_NE(&b.operands(), &a.operands());
  EXPECT_EQ(b.operands().inputs.size(), 2u);
  b.mutable_operands().a_view.addr = 0x999;
  b.mutable_operands().inputs.clear();
  EXPECT_EQ(a.operands().a_view.addr, 0x100u);
  EXPECT_EQ(a.operands().inputs.size(), 2u);

  Stage none;
  b = none;  // copying a stage without operands drops b's
  expect_empty(b.operands());
  b = a;
  EXPECT_EQ(b.operands().output.id, 6u);

  const StageOperands* held = &a.operands();
  Stage c = std::move(a);
  EXPECT_EQ(&c.operands(), held);
  EXPECT_EQ(c.operands().math_extra.size(), 1u);
}

TEST(StageOperands, OperandsGivenBackComeBackAsNewOnes) {
  std::vector<Stage> stages(8);
  for (Stage& s : stages) fill(s);
  stages.clear();  // their operands are kept for reuse
  for (int i = 0; i < 8; ++i) {
    Stage s;
    expect_empty(s.mutable_operands());
    stages.push_back(std::move(s));
  }
}

}  // namespace
}  // namespace kb
