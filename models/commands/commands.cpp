#include "models/commands/commands.h"

namespace kb {

const char* to_string(Scope s) {
  switch (s) {
    case Scope::kKernel:
      return "KERNEL";
    case Scope::kKTile:
      return "K_TILE";
    case Scope::kOutputTile:
      return "OUTPUT_TILE";
  }
  return "?";
}

uint64_t extra_value_bytes(const ExtraValue& v) {
  struct Size {
    uint64_t operator()(int64_t) const { return 4; }
    uint64_t operator()(double) const { return 4; }
    uint64_t operator()(bool) const { return 1; }
    uint64_t operator()(const std::vector<double>& l) const { return 1 + 4 * l.size(); }
    uint64_t operator()(const std::string&) const { return 1; }
  };
  return std::visit(Size{}, v);
}

namespace {
uint64_t extras_bytes(const std::vector<std::pair<std::string, ExtraValue>>& extra) {
  uint64_t b = 1;
  for (const auto& e : extra) b += extra_value_bytes(e.second);
  return b;
}
}  // namespace

const TensorHandle* OpSpec::operand(const std::string& name) const {
  for (const auto& o : operands)
    if (o.first == name) return &o.second;
  return nullptr;
}

const ExtraValue* OpSpec::find_extra(const std::string& name) const {
  for (const auto& e : extra)
    if (e.first == name) return &e.second;
  return nullptr;
}

int64_t OpSpec::extra_int(const std::string& name, int64_t fallback) const {
  const ExtraValue* v = find_extra(name);
  if (!v) return fallback;
  if (const auto* i = std::get_if<int64_t>(v)) return *i;
  if (const auto* d = std::get_if<double>(v)) return static_cast<int64_t>(*d);
  return fallback;
}

uint64_t OpSpec::logical_bytes() const {
  return 1 + 1 + 1 + 8 * operands.size() + (out ? 8 : 0) + extras_bytes(extra);
}

uint64_t CompositeCmd::logical_bytes() const {
  uint64_t b = 4 + 1;
  for (const auto& op : ops) b += op.logical_bytes();
  return b + 1 + 8 * rw_handles.size();
}

uint64_t MathCmd::logical_bytes() const {
  return 4 + 1 + 1 + 8 * inputs.size() + 8 + 4 + extras_bytes(extra);
}

uint64_t logical_bytes(const Command& c) {
  return std::visit([](const auto& x) -> uint64_t { return x.logical_bytes(); }, c);
}

const char* command_name(const Command& c) {
  static const char* const kNames[] = {"DmaRead",  "DmaWrite",  "Gemm",          "Math",
                                       "Copy",     "Composite", "PeCpuOverhead", "IpcqOpen",
                                       "IpcqSend", "IpcqRecv"};
  return kNames[c.index()];
}

std::string to_string(const PeAddr& p) {
  return "sip" + std::to_string(p.sip) + ".cube" + std::to_string(p.cube) + ".pe" +
         std::to_string(p.pe);
}

const char* to_string(RingSpace s) {
  switch (s) {
    case RingSpace::kTcm:
      return "tcm";
    case RingSpace::kHbm:
      return "hbm";
    case RingSpace::kSram:
      return "sram";
  }
  return "?";
}

bool is_composite(const Command& c) {
  return std::holds_alternative<CompositeCmd>(c);
}

}  // namespace kb
