#include "platform/analytic/command_shapes.h"

namespace kb {

OpSpec op_shape(const std::string& kind, std::vector<std::string> operands, bool out,
                std::vector<ExtraArg> extra) {
  OpSpec o;
  o.kind = kind;
  for (auto& n : operands) o.operands.emplace_back(std::move(n), TensorHandle{});
  if (out) o.out = TensorHandle{};
  o.extra = std::move(extra);
  return o;
}

OpSpec gemm_op_shape() {
  return op_shape("gemm", {"a", "b"}, true,
                  {{"m", int64_t{0}}, {"k", int64_t{0}}, {"n", int64_t{0}}});
}

CompositeCmd composite_shape(std::vector<OpSpec> ops, size_t rw) {
  CompositeCmd c;
  c.ops = std::move(ops);
  c.rw_handles.resize(rw);
  return c;
}

MathCmd math_shape(const std::string& kind, size_t inputs, std::vector<ExtraArg> extra) {
  MathCmd m;
  m.kind = kind;
  m.inputs.resize(inputs);
  m.extra = std::move(extra);
  return m;
}

}  // namespace kb
