// Command descriptors (docs/ARCHITECTURE.md §2.2): logical_bytes of every command kind, and
// the PE_CPU dispatch cost model (docs/ARCHITECTURE.md §2.3) built on it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/commands/commands.h"
#include "models/commands/cost_model.h"
#include "models/common/address_map.h"
#include "platform/config/topology_config.h"
#include "platform/config/topology_loader.h"
#include "tests/support/cli_run.h"

namespace kb {
namespace {

TensorHandle handle(uint64_t id, std::vector<int64_t> shape = {32, 32}) {
  TensorHandle h;
  h.id = id;
  h.addr = encode_address({Space::kTcm, 0, 0, 0, id * 4096});
  h.shape = std::move(shape);
  return h;
}

// The one-op GEMM composite of the worked example of docs/ARCHITECTURE.md §2.2: operands a, b; out;
// extra m, k, n.
CompositeCmd one_op_gemm_composite() {
  OpSpec g;
  g.kind = "gemm";
  g.scope = Scope::kKernel;
  g.operands = {{"a", handle(1, {32, 64})}, {"b", handle(2, {64, 32})}};
  g.out = handle(3, {32, 32});
  g.extra = {{"m", int64_t{32}}, {"k", int64_t{64}}, {"n", int64_t{32}}};
  CompositeCmd c;
  c.ops.push_back(g);
  return c;
}

CostModelConfig defaults() {
  return CostModelConfig{};  // 40 / 8 / 0.0625 / 1024
}

using test::contains;

// ---- logical_bytes ------------------------------------------------------------

TEST(PeCommands, SingleOpCommandSizes) {
  // framing 4 + opcode 1 + 8 per address + 4 per integer field (+ 1 per flag).
  EXPECT_EQ(DmaReadCmd::logical_bytes(), 4u + 1 + 8 * 2 + 4 * 4);
  EXPECT_EQ(DmaReadCmd::logical_bytes(), 37u);
  EXPECT_EQ(DmaWriteCmd::logical_bytes(), 37u);
  EXPECT_EQ(GemmCmd::logical_bytes(), 42u);
  EXPECT_EQ(CopyCmd::logical_bytes(), 25u);
  EXPECT_EQ(PeCpuOverheadCmd::logical_bytes(), 9u);
  // The same through the Command variant.
  EXPECT_EQ(logical_bytes(Command{DmaReadCmd{}}), 37u);
  EXPECT_EQ(logical_bytes(Command{DmaWriteCmd{}}), 37u);
  EXPECT_EQ(logical_bytes(Command{GemmCmd{}}), 42u);
  EXPECT_EQ(logical_bytes(Command{CopyCmd{}}), 25u);
  EXPECT_EQ(logical_bytes(Command{PeCpuOverheadCmd{}}), 9u);
}

TEST(PeCommands, SingleOpSizesDoNotDependOnFieldValues) {
  DmaReadCmd d;
  d.src = 0x1234;
  d.dst = 0x5678;
  d.row_bytes = 4096;
  d.rows = 77;
  EXPECT_EQ(logical_bytes(Command{d}), 37u);
  GemmCmd g;
  g.a = handle(1);
  g.b = handle(2);
  g.out = handle(3);
  g.m = g.k = g.n = 4096;
  g.accumulate = true;
  EXPECT_EQ(logical_bytes(Command{g}), 42u);
  PeCpuOverheadCmd o;
  o.cycles = 1e6;
  EXPECT_EQ(logical_bytes(Command{o}), 9u);
}

TEST(PeCommands, MathCommandFollowsItsRule) {
  // 4 framing + 1 opcode + 1 + 8·len(inputs) + 8 (out) + 4 (elements) + 1 + Σ size(extra)
  auto rule = [](uint64_t inputs, uint64_t extra_bytes) {
    return 4 + 1 + 1 + 8 * inputs + 8 + 4 + 1 + extra_bytes;
  };
  MathCmd m;
  m.kind = "relu";
  m.inputs = {handle(1)};
  m.out = handle(2);
  EXPECT_EQ(m.logical_bytes(), rule(1, 0));
  EXPECT_EQ(m.logical_bytes(), 27u);
  m.kind = "fma";
  m.inputs = {handle(1), handle(2), handle(3)};
  EXPECT_EQ(m.logical_bytes(), rule(3, 0));
  EXPECT_EQ(m.logical_bytes(), 43u);
  m.kind = "rmax";
  m.inputs = {handle(1)};
  m.extra = {{"reduce_axis", int64_t{-1}}, {"keepdims", true}};
  EXPECT_EQ(m.logical_bytes(), rule(1, 4 + 1));
  EXPECT_EQ(logical_bytes(Command{m}), 32u);
  m.inputs.clear();
  m.extra.clear();
  EXPECT_EQ(m.logical_bytes(), rule(0, 0));
}

TEST(PeCommands, ExtraValueSizes) {
  EXPECT_EQ(extra_value_bytes(ExtraValue{int64_t{7}}), 4u);
  EXPECT_EQ(extra_value_bytes(ExtraValue{int64_t{-1}}), 4u);
  EXPECT_EQ(extra_value_bytes(ExtraValue{0.5}), 4u);
  EXPECT_EQ(extra_value_bytes(ExtraValue{true}), 1u);
  EXPECT_EQ(extra_value_bytes(ExtraValue{false}), 1u);
  EXPECT_EQ(extra_value_bytes(ExtraValue{std::vector<double>{}}), 1u);
  EXPECT_EQ(extra_value_bytes(ExtraValue{std::vector<double>{1, 2, 3}}), 1u + 4 * 3);
  EXPECT_EQ(extra_value_bytes(ExtraValue{std::string("a long label")}), 1u);
  EXPECT_EQ(extra_value_bytes(ExtraValue{std::string()}), 1u);
}

TEST(PeCommands, OpSpecFollowsItsRule) {
  OpSpec op;
  op.kind = "relu";
  // 1 opcode + 1 scope + 1 + 0 operands + no out + 1 + no extra
  EXPECT_EQ(op.logical_bytes(), 4u);
  op.operands = {{"src", handle(1)}};
  EXPECT_EQ(op.logical_bytes(), 4u + 8);
  op.out = handle(2);
  EXPECT_EQ(op.logical_bytes(), 4u + 8 + 8);
  op.operands.emplace_back("other", handle(3));
  EXPECT_EQ(op.logical_bytes(), 4u + 16 + 8);
  op.extra = {{"i", int64_t{3}},
              {"f", 0.25},
              {"b", true},
              {"l", std::vector<double>{1, 2, 3, 4}},
              {"s", std::string("fp16")}};
  EXPECT_EQ(op.logical_bytes(), 4u + 16 + 8 + (4 + 4 + 1 + (1 + 16) + 1));
  // Scope does not change the size (one byte whatever its value).
  const uint64_t before = op.logical_bytes();
  for (Scope s : {Scope::kKernel, Scope::kKTile, Scope::kOutputTile}) {
    op.scope = s;
    EXPECT_EQ(op.logical_bytes(), before) << to_string(s);
  }
}

TEST(PeCommands, CompositeFollowsItsRule) {
  CompositeCmd c;
  EXPECT_EQ(c.logical_bytes(), 4u + 1 + 1);  // empty: framing and the two counts
  OpSpec op;
  op.kind = "relu";
  op.operands = {{"src", handle(1)}};
  op.out = handle(2);
  c.ops = {op, op};
  EXPECT_EQ(c.logical_bytes(), 4u + 1 + 2 * op.logical_bytes() + 1);
  c.rw_handles = {handle(2), handle(5)};
  EXPECT_EQ(c.logical_bytes(), 4u + 1 + 2 * op.logical_bytes() + 1 + uint64_t{8} * 2);
  EXPECT_EQ(logical_bytes(Command{c}), c.logical_bytes());
}

TEST(PeCommands, OneOpGemmCompositeIs46Bytes) {
  const CompositeCmd c = one_op_gemm_composite();
  // 4 + 1 + (1+1+1+16+8+1+12) + 1 + 0
  EXPECT_EQ(c.ops[0].logical_bytes(), 40u);
  EXPECT_EQ(c.logical_bytes(), 46u);
  EXPECT_EQ(logical_bytes(Command{c}), 46u);
}

TEST(PeCommands, OneOpGemmCompositeCosts42_875NsAtDefaults) {
  const CostModel cost(defaults(), 1.0);
  const Command c{one_op_gemm_composite()};
  EXPECT_DOUBLE_EQ(cost.dispatch_cycles(c), 42.875);
  EXPECT_DOUBLE_EQ(cost.dispatch_ns(c), 42.875);
  EXPECT_EQ(cost.check(c), "");
}

// docs/ARCHITECTURE.md §2.2: "No deduplication: a handle named in three OpSpecs and in
// rw_handles is counted four times (a descriptor slot each)".
TEST(PeCommands, HandleIsCountedOncePerMentionWithoutDeduplication) {
  const TensorHandle h = handle(42), g = handle(43);
  auto op = [](const std::string& kind, std::vector<std::pair<std::string, TensorHandle>> ops,
               const TensorHandle& out) {
    OpSpec o;
    o.kind = kind;
    o.operands = std::move(ops);
    o.out = out;
    return o;
  };
  // H named in three OpSpecs and in rw_handles (four slots).
  CompositeCmd four;
  four.ops = {op("relu", {{"src", h}}, handle(10)),
              op("add", {{"src", h}, {"other", g}}, handle(11)),
              op("scale", {{"src", h}}, handle(12))};
  four.rw_handles = {h};
  // The same composite without any of H's four slots.
  CompositeCmd none;
  none.ops = {op("relu", {}, handle(10)), op("add", {{"other", g}}, handle(11)),
              op("scale", {}, handle(12))};
  // The same composite naming H once (first OpSpec only, no rw_handles).
  CompositeCmd once;
  once.ops = {op("relu", {{"src", h}}, handle(10)), op("add", {{"other", g}}, handle(11)),
              op("scale", {}, handle(12))};
  // Identity does not matter: four distinct handles in the same slots.
  CompositeCmd distinct = four;
  distinct.ops[1].operands[0].second = handle(50);
  distinct.ops[2].operands[0].second = handle(51);
  distinct.rw_handles = {handle(52)};

  // H's share of the descriptor is 4 slots x 8 bytes = 32 bytes...
  EXPECT_EQ(four.logical_bytes() - none.logical_bytes(), 32u);
  // ... so naming it in three OpSpecs and rw_handles costs three slots (two
  // more operand slots and the rw_handles slot) more than naming it once.
  EXPECT_EQ(four.logical_bytes() - once.logical_bytes(), 3u * 8);
  EXPECT_EQ(four.logical_bytes(), distinct.logical_bytes());
  // Absolute value by the rule: 6 + ops (4+8+8, 4+16+8, 4+8+8) + 8 rw.
  EXPECT_EQ(four.logical_bytes(), 6u + 20 + 28 + 20 + 8);
}

// ---- dispatch cost ------------------------------------------------------------

TEST(PeCommands, DispatchFormulaAtSeveralPerByteRates) {
  const Command composite{one_op_gemm_composite()};  // 46 bytes
  const Command single{GemmCmd{}};                   // 42 bytes
  MathCmd m;
  m.kind = "relu";
  m.inputs = {handle(1)};
  m.out = handle(2);
  const Command math{m};  // 27 bytes
  for (double r : {0.25, 0.0625, 0.03125}) {
    CostModelConfig cfg = defaults();
    cfg.per_byte_cycles = r;
    const CostModel cost(cfg, 1.0);
    EXPECT_DOUBLE_EQ(cost.dispatch_cycles(composite), 40 + 46 * r) << "R=" << r;
    EXPECT_DOUBLE_EQ(cost.dispatch_ns(composite), 40 + 46 * r) << "R=" << r;
    EXPECT_DOUBLE_EQ(cost.dispatch_cycles(single), 8 + 42 * r) << "R=" << r;
    EXPECT_DOUBLE_EQ(cost.dispatch_cycles(math), 8 + 27 * r) << "R=" << r;
    EXPECT_DOUBLE_EQ(cost.dispatch_cycles(Command{DmaReadCmd{}}), 8 + 37 * r) << "R=" << r;
    EXPECT_DOUBLE_EQ(cost.dispatch_cycles(Command{CopyCmd{}}), 8 + 25 * r) << "R=" << r;
  }
  // The worked numbers.
  CostModelConfig cfg = defaults();
  cfg.per_byte_cycles = 0.25;
  EXPECT_DOUBLE_EQ(CostModel(cfg, 1.0).dispatch_ns(composite), 51.5);
  cfg.per_byte_cycles = 0.03125;
  EXPECT_DOUBLE_EQ(CostModel(cfg, 1.0).dispatch_ns(composite), 41.4375);
}

TEST(PeCommands, DispatchUsesTheFixedCostsAndTheClock) {
  CostModelConfig cfg = defaults();
  cfg.fixed_per_composite_cycles = 100;
  cfg.fixed_per_single_op_cmd_cycles = 3;
  const CostModel cost(cfg, 2.0);  // 2 GHz: ns = cycles / 2
  const Command composite{one_op_gemm_composite()};
  EXPECT_DOUBLE_EQ(cost.dispatch_cycles(composite), 100 + 46 * 0.0625);
  EXPECT_DOUBLE_EQ(cost.dispatch_ns(composite), (100 + 46 * 0.0625) / 2);
  EXPECT_DOUBLE_EQ(cost.dispatch_cycles(Command{GemmCmd{}}), 3 + 42 * 0.0625);
  EXPECT_DOUBLE_EQ(cost.dispatch_ns(Command{GemmCmd{}}), (3 + 42 * 0.0625) / 2);
}

TEST(PeCommands, PeCpuOverheadBypassesTheFormula) {
  for (double r : {0.25, 0.0625, 0.03125}) {
    CostModelConfig cfg = defaults();
    cfg.per_byte_cycles = r;
    const CostModel cost(cfg, 1.0);
    PeCpuOverheadCmd o;
    o.cycles = 123;
    EXPECT_DOUBLE_EQ(cost.dispatch_cycles(Command{o}), 123.0) << "R=" << r;
    EXPECT_DOUBLE_EQ(cost.dispatch_ns(Command{o}), 123.0) << "R=" << r;
    o.cycles = 0;
    EXPECT_DOUBLE_EQ(cost.dispatch_cycles(Command{o}), 0.0) << "R=" << r;
  }
  EXPECT_DOUBLE_EQ(CostModel(defaults(), 2.0).dispatch_ns(Command{PeCpuOverheadCmd{10}}), 5.0);
}

// A composite of exactly `bytes` logical bytes (bytes >= 12): one op with a
// list extra and padding flags.
CompositeCmd composite_of(uint64_t bytes) {
  // 6 (framing, counts) + 4 (op) + list (1 + 4N) + flags (1 each)
  OpSpec op;
  op.kind = "scale";
  op.scope = Scope::kKernel;
  const uint64_t body = bytes - 6 - 4;
  const uint64_t n = (body - 1) / 4;
  op.extra.emplace_back("l", std::vector<double>(n, 1.0));
  for (uint64_t i = 1 + 4 * n; i < body; ++i) op.extra.emplace_back("f", true);
  CompositeCmd c;
  c.ops.push_back(op);
  return c;
}

TEST(PeCommands, CapRejectsACompositeOverMaxLogicalBytesNamingBothNumbers) {
  const CostModel cost(defaults(), 1.0);
  const CompositeCmd at_cap = composite_of(1024), over = composite_of(1025),
                     far_over = composite_of(4000);
  ASSERT_EQ(at_cap.logical_bytes(), 1024u);
  ASSERT_EQ(over.logical_bytes(), 1025u);
  ASSERT_EQ(far_over.logical_bytes(), 4000u);
  EXPECT_EQ(cost.check(Command{at_cap}), "");
  const std::string why = cost.check(Command{over});
  EXPECT_TRUE(contains(why, "1025")) << why;
  EXPECT_TRUE(contains(why, "1024")) << why;
  const std::string why2 = cost.check(Command{far_over});
  EXPECT_TRUE(contains(why2, "4000")) << why2;
  EXPECT_TRUE(contains(why2, "1024")) << why2;
  // The cap is the configured one.
  CostModelConfig cfg = defaults();
  cfg.max_composite_logical_bytes = 2048;
  EXPECT_EQ(CostModel(cfg, 1.0).check(Command{far_over}).find("2048") != std::string::npos, true);
  EXPECT_EQ(CostModel(cfg, 1.0).check(Command{over}), "");
}

TEST(PeCommands, CapAppliesToCompositesOnly) {
  const CostModel cost(defaults(), 1.0);
  MathCmd m;
  m.kind = "scale";
  m.out = handle(1);
  m.extra.emplace_back("l", std::vector<double>(1000, 1.0));  // > 4000 bytes
  ASSERT_GT(m.logical_bytes(), 1024u);
  EXPECT_EQ(cost.check(Command{m}), "");
  EXPECT_EQ(cost.check(Command{GemmCmd{}}), "");
  EXPECT_EQ(cost.check(Command{PeCpuOverheadCmd{1e9}}), "");
}

TEST(PeCommands, CostModelDefaultsMatchTheDefaultTopology) {
  const TopologyConfig cfg = load_default_topology();
  EXPECT_DOUBLE_EQ(cfg.pe.cost_model.fixed_per_composite_cycles, 40);
  EXPECT_DOUBLE_EQ(cfg.pe.cost_model.fixed_per_single_op_cmd_cycles, 8);
  EXPECT_DOUBLE_EQ(cfg.pe.cost_model.per_byte_cycles, 0.0625);
  EXPECT_EQ(cfg.pe.cost_model.max_composite_logical_bytes, 1024u);
  EXPECT_DOUBLE_EQ(cfg.pe.clock_ghz, 1.0);
  const CostModel cost(cfg.pe.cost_model, cfg.pe.clock_ghz);
  EXPECT_DOUBLE_EQ(cost.dispatch_ns(Command{one_op_gemm_composite()}), 42.875);
}

TEST(PeCommands, YamlOverrideReachesTheCostModel) {
  const TopologyConfig cfg = load_default_topology({"pe.cost_model.per_byte_cycles=0.25"});
  EXPECT_DOUBLE_EQ(cfg.pe.cost_model.per_byte_cycles, 0.25);
  EXPECT_DOUBLE_EQ(cfg.pe.cost_model.fixed_per_composite_cycles, 40);  // untouched
  const CostModel cost(cfg.pe.cost_model, cfg.pe.clock_ghz);
  EXPECT_DOUBLE_EQ(cost.dispatch_ns(Command{one_op_gemm_composite()}), 40 + 46 * 0.25);

  const TopologyConfig all = load_default_topology(
      {"pe.cost_model.fixed_per_composite_cycles=100",
       "pe.cost_model.fixed_per_single_op_cmd_cycles=2", "pe.cost_model.per_byte_cycles=0.03125",
       "pe.cost_model.max_composite_logical_bytes=45"});
  const CostModel c2(all.pe.cost_model, all.pe.clock_ghz);
  EXPECT_DOUBLE_EQ(c2.dispatch_ns(Command{one_op_gemm_composite()}), 100 + 46 * 0.03125);
  EXPECT_DOUBLE_EQ(c2.dispatch_ns(Command{GemmCmd{}}), 2 + 42 * 0.03125);
  const std::string why = c2.check(Command{one_op_gemm_composite()});
  EXPECT_TRUE(contains(why, "46")) << why;
  EXPECT_TRUE(contains(why, "45")) << why;
}

TEST(PeCommands, CommandNames) {
  EXPECT_STREQ(command_name(Command{DmaReadCmd{}}), "DmaRead");
  EXPECT_STREQ(command_name(Command{DmaWriteCmd{}}), "DmaWrite");
  EXPECT_STREQ(command_name(Command{GemmCmd{}}), "Gemm");
  EXPECT_STREQ(command_name(Command{MathCmd{}}), "Math");
  EXPECT_STREQ(command_name(Command{CopyCmd{}}), "Copy");
  EXPECT_STREQ(command_name(Command{CompositeCmd{}}), "Composite");
  EXPECT_STREQ(command_name(Command{PeCpuOverheadCmd{}}), "PeCpuOverhead");
  EXPECT_STREQ(command_name(Command{IpcqOpenCmd{}}), "IpcqOpen");
  EXPECT_STREQ(command_name(Command{IpcqSendCmd{}}), "IpcqSend");
  EXPECT_STREQ(command_name(Command{IpcqRecvCmd{}}), "IpcqRecv");
  EXPECT_TRUE(is_composite(Command{CompositeCmd{}}));
  EXPECT_FALSE(is_composite(Command{GemmCmd{}}));
}

TEST(PeCommands, IpcqLogicalBytesFollowTheirRules) {
  // open: 4 framing + 1 opcode + 1 space + 1 count + 4 per peer
  IpcqOpenCmd open;
  EXPECT_EQ(logical_bytes(Command{open}), 7u);
  open.peers = {{0, 1, 0}, {0, 2, 0}, {0, 3, 1}};
  EXPECT_EQ(logical_bytes(Command{open}), 19u);
  // send: 4 + 1 + 4 peer + 8 src
  EXPECT_EQ(logical_bytes(Command{IpcqSendCmd{}}), 17u);
  // recv: 4 + 1 + 4 peer + 8 dst + 1 flags + 4 forward peer + 8 scratch
  EXPECT_EQ(logical_bytes(Command{IpcqRecvCmd{}}), 30u);
  // Single-op dispatch: 8 + 30 / 16 cycles at 1 GHz.
  const CostModel cost(CostModelConfig{}, 1.0);
  EXPECT_DOUBLE_EQ(cost.dispatch_ns(Command{IpcqRecvCmd{}}), 8 + 30 * 0.0625);
}

}  // namespace
}  // namespace kb
