#include "models/math/pe_math.h"

#include "models/common/energy.h"
#include "models/common/sim_time.h"
#include "models/gemm/pe_gemm.h"
#include "models/math/math_eval.h"
#include "models/math/math_ops.h"
#include "models/pe/pe_data.h"

namespace kb {

PeMath::PeMath(const sc_core::sc_module_name& name, const MathConfig& cfg, double clock_ghz)
    : PeEngine(name, EngineKind::kMath, {"math"}),
      lanes_(cfg.lanes),
      clock_ghz_(clock_ghz),
      energy_(cfg.energy) {}

void PeMath::count_served(const Stage& stage) {
  // A registered kind of P passes counts P x its output elements (math_ops.h).
  elements_[static_cast<unsigned>(math_op_class(stage.op_kind))] +=
      stage.elements * math_op_passes(stage.op_kind);
}

double PeMath::pj_per_element(MathOpClass c) const {
  switch (c) {
    case MathOpClass::kReduction:
      return energy_.reduction_pj_per_element;
    case MathOpClass::kTranscendental:
      return energy_.transcendental_pj_per_element;
    case MathOpClass::kElementwise:
      break;
  }
  return energy_.elementwise_pj_per_element;
}

double PeMath::stage_energy_pj(const Stage& stage) const {
  return static_cast<double>(stage.elements * math_op_passes(stage.op_kind)) *
         pj_per_element(math_op_class(stage.op_kind));
}

void PeMath::report_lane_extras(StatsSink& out) const {
  std::map<std::string, uint64_t> by_class;
  for (unsigned c = 0; c < kNumMathOpClasses; ++c)
    by_class[to_string(static_cast<MathOpClass>(c))] = elements_[c];
  out.count_by("elements", by_class, "", "output elements served, by op class (energy per class)");
}

void PeMath::report_energy(EnergySink& out) const {
  double pj = 0;
  for (unsigned c = 0; c < kNumMathOpClasses; ++c)
    pj += static_cast<double>(elements_[c]) * pj_per_element(static_cast<MathOpClass>(c));
  out.dynamic_pj(EnergyClass::kMath, pj);
  out.static_mw(EnergyClass::kMath, energy_.static_mw);
}

double PeMath::stage_ns(uint64_t elements) const {
  const uint64_t cycles = (elements + lanes_ - 1) / lanes_;
  return static_cast<double>(cycles) / clock_ghz_;
}

sc_core::sc_time PeMath::service_time(const Stage& stage) const {
  // A registered kind takes its passes (models/math/math_ops.h); a built-in one, one.
  const unsigned passes = math_op_passes(stage.op_kind);
  if (stage.stream_tiles > 1) {  // a streamed OUTPUT_TILE op: each tile rounds up to a cycle
    const uint64_t k = stage.stream_tiles;
    return ns_to_time(static_cast<double>(k * passes) * stage_ns((stage.elements + k - 1) / k));
  }
  if (passes == 1) return ns_to_time(stage_ns(stage.elements));
  return ns_to_time(static_cast<double>(passes) * stage_ns(stage.elements));
}

namespace {

// A K_TILE op may carry one value per K step in a list extra: it sees the
// value of its own step as a scalar.
std::vector<std::pair<std::string, ExtraValue>> extras_for_step(const Stage& s) {
  std::vector<std::pair<std::string, ExtraValue>> out;
  if (!s.op) return out;
  for (const auto& [k, v] : s.op->extra) {
    if (const auto* l = std::get_if<std::vector<double>>(&v);
        l && s.math_on == Stage::MathOn::kPartial) {
      if (s.ki >= l->size())
        throw MathError("extra '" + k + "' has " + std::to_string(l->size()) +
                        " values but this is K step " + std::to_string(s.ki));
      out.emplace_back(k, (*l)[s.ki]);
    } else {
      out.emplace_back(k, v);
    }
  }
  return out;
}

}  // namespace

void PeMath::finish_service(TileToken& token, Stage& stage) {
  if (!data()) return;
  compute(token, stage, math_eval);
}

void PeMath::compute(TileToken& token, Stage& stage, const Evaluator& eval) {
  try {
    const StageOperands& o = stage.operands();
    const auto extra = stage.op ? extras_for_step(stage) : o.math_extra;
    if (stage.math_on == Stage::MathOn::kTensors) {
      std::vector<NdArray> ins;
      for (const auto& h : o.inputs) ins.push_back(data()->read(h));
      for (size_t i = 1; i < o.inputs.size(); ++i)
        if (o.inputs[i].dtype != o.inputs[0].dtype)
          throw MathError(std::string("dtype mismatch between operands: ") +
                          to_string(o.inputs[0].dtype) + " and " + to_string(o.inputs[i].dtype));
      NdArray r = eval(stage.op_kind, ins, extra);
      // Same element count is not enough: a transpose into an untransposed
      // handle would read back as a reshape.
      Shape rs = r.shape, os = o.output.shape;
      while (rs.size() > 1 && rs.front() == 1) rs.erase(rs.begin());
      while (os.size() > 1 && os.front() == 1) os.erase(os.begin());
      if (rs != os)
        throw MathError("the result's shape does not match the output " + o.output.describe());
      data()->write(o.output, r);
      return;
    }
    const PeData::TileKey key{token.cmd_id, stage.mi, stage.ni};
    auto& table =
        stage.math_on == Stage::MathOn::kPartial ? data()->partials() : data()->accumulators();
    NdArray& cur = table[key];
    std::vector<NdArray> ins{cur};
    const int64_t mm = cur.shape.at(0), nn = cur.shape.at(1);
    for (const auto& h : o.inputs)
      ins.push_back(tile_of(data()->read(h), stage.out_m, stage.out_n, stage.m0, mm, stage.n0, nn));
    NdArray r = eval(stage.op_kind, ins, extra);
    if (r.shape != cur.shape) throw MathError("an epilogue op must keep the tile's shape");
    cur = std::move(r);
    if (stage.math_on == Stage::MathOn::kPartial && stage.accumulate_partial) {
      NdArray& acc = data()->accumulators()[key];
      if (stage.first_k || acc.data.empty())
        acc = cur;
      else
        accumulate_into(acc, cur);
    }
  } catch (const MathError& e) {
    compute_fault(token, stage, e.what());
  }
}

}  // namespace kb
